"""Scale out: two webhook server processes (real uvicorn, `python -m chatbot web`) share one
Redis. A whole EGO game's signed webhooks go to both in turn; halfway one process is killed
(SIGKILL) and the game finishes on the other: no pick lost or applied twice, every pick
answered by its own reply token."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from chatbot.core import buttons as b
from chatbot.core.session import Session
from chatbot.line.convert import qualify
from chatbot.store.redis import RedisStore
from engine.core import restore
from engine.ego import GAME
from tests.line.fake_line import ACCESS_TOKEN, SECRET, FakeLine
from tests.line.test_line_game import buttons

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def server(line: FakeLine, redis_url: str, port: int, ops: int) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "LINE_CHANNEL_SECRET": SECRET,
        "LINE_CHANNEL_ACCESS_TOKEN": ACCESS_TOKEN,
        "LINE_API_BASE_URL": line.base_url,
        "LINE_ANSWER_WITHIN": "600",  # the webhook answers once its events were handled
        "REDIS_URL": redis_url,
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "METRICS_PORT": str(ops),  # /healthz
        "BOT_DELAY": "0",
        "TABLE_INTERVAL": "0",
        "PYTHONPATH": str(REPO),
    }
    env.pop("TELEGRAM_TOKEN", None)
    return subprocess.Popen(
        [sys.executable, "-m", "chatbot", "web"],
        env=env,
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


async def until_up(client: httpx.AsyncClient, ops: int) -> None:
    url = f"http://127.0.0.1:{ops}"
    deadline = time.monotonic() + 30
    while True:
        try:
            if (await client.get(f"{url}/healthz")).status_code == 200:
                return
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, f"{url} did not start"
        await asyncio.sleep(0.1)


@pytest.mark.slow
async def test_two_processes_share_a_game_and_one_dies(line: FakeLine, redis_url: str) -> None:
    url = redis_url.rsplit("/", 1)[0] + "/4"
    store = RedisStore.from_url(url)
    ports = [free_port(), free_port()]
    opses = [free_port(), free_port()]
    procs = [server(line, url, port, ops) for port, ops in zip(ports, opses, strict=True)]
    urls = [f"http://127.0.0.1:{port}" for port in ports]
    try:
        async with httpx.AsyncClient(timeout=30) as client:
            for ops in opses:
                await until_up(client, ops)
            alive = list(urls)
            turn = 0

            async def post(event: dict[str, Any]) -> None:
                nonlocal turn
                body, signature = line.signed(event)
                target = alive[turn % len(alive)]
                turn += 1
                response = await client.post(
                    f"{target}/line/webhook",
                    content=body,
                    headers={"X-Line-Signature": signature, "Content-Type": "application/json"},
                )
                assert response.status_code == 200
                token = event["replyToken"]
                deadline = time.monotonic() + 10
                while not line.answered(token):
                    assert time.monotonic() < deadline, "the event was answered"
                    await asyncio.sleep(0.01)

            async def load() -> Session | None:
                doc = await store.load(f"game:{qualify(group)}")
                return None if doc is None else Session.loads(doc.data, doc.fields)

            people = [line.user(name, "en", friend=False) for name in ("Ann", "Bob", "Cid")]
            group = line.group(*people)
            await post(line.text(group, people[0], "/newgame ego"))
            for user in people[1:]:
                (join,) = buttons(line.to(group)[-1], b.JOIN)
                await post(line.postback(group, user, join))
            (start,) = buttons(line.to(group)[-1], b.START)
            await post(line.postback(group, people[0], start))
            rng, picks, killed = random.Random(8), 0, False
            for _ in range(3000):
                session = await load()
                if session is None:
                    break
                if picks == 40 and not killed:  # one process dies mid-game
                    procs[0].send_signal(signal.SIGKILL)
                    procs[0].wait(10)
                    alive.remove(urls[0])
                    killed = True
                state = restore(GAME, session.state)
                seat = rng.choice(GAME.to_move(state))
                if seat == state.active:
                    code = str(rng.randint(1, 3))
                else:
                    stake = rng.choice([s for s in (1, 2) if s <= state.tokens[seat]])
                    code = f"{rng.randint(1, 3)}b{stake}"
                table = next(s for s in reversed(line.to(group)) if buttons(s, b.GROUP_MOVE))
                (data,) = [d for d in buttons(table, b.GROUP_MOVE) if d.endswith(f"|{code}")]
                user = next(u for u in people if qualify(u) == session.seats[seat].user)
                moves = session.moves
                await post(line.postback(group, user, data))
                after = await load()
                assert after is None or after.moves == moves + 1, "each pick applied once"
                picks += 1
            else:
                raise AssertionError("the game did not end")
        assert killed and picks > 40
        assert "Game over!" in line.to(group)[-1].text
        assert not line.pushes
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
        await store.close()
