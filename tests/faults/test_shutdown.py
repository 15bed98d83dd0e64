"""SIGTERM ends a bot process and every process it started (issue 21, item 7): the thinking
workers, their forkserver and the resource tracker, by polling and by webhook, within a few
seconds; the game's timers are left in the store for the next process. By webhook, /healthz
and /metrics answer on METRICS_PORT only (issue 21, item 5). Real processes: the
bot (`python -m chatbot`, THINK_WORKERS=1), the fake Bot API server and Redis of the tests."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from chatbot.core import buttons as b
from chatbot.core.session import Session
from chatbot.store.redis import RedisStore
from tests.conftest import _free_port
from tests.e2e.fake_telegram import FakeTelegram, StoredMessage
from tests.e2e.helpers import button
from tests.faults.test_kill import until

REPO = Path(__file__).resolve().parents[2]
GROUP = -1005550002222
CHAT = f"tg:{GROUP}"
URL = "https://bot.example/telegram/webhook"


def get(port: int, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, ""


def descendants(root: int) -> set[int]:
    """The processes under `root` (children, theirs, and so on), from /proc."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = set(), {root}
    while frontier:
        frontier = {p for p, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def running(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


@pytest.mark.parametrize("mode", ["telegram", "web"])
async def test_sigterm_ends_the_bot_and_every_process_it_started(
    mode: str, tg: FakeTelegram, redis_url: str, tmp_path: Path
) -> None:
    db = redis_url.rsplit("/", 1)[0] + "/5"  # the bot's keys have no test prefix: a db of its own
    store = RedisStore.from_url(db)
    await store._r.flushdb()  # (what an earlier run left)
    port, ops = _free_port(), _free_port()
    env = {
        **os.environ,
        "TELEGRAM_TOKEN": tg.token,
        "TELEGRAM_BASE_URL": f"http://127.0.0.1:{tg.port}",
        "REDIS_URL": db,
        "THINK_WORKERS": "1",
        "BOT_DELAY": "0.2",
        "REMIND_AFTER": "0.3",  # the person is idle: a computer plays for them at once
        "TAKEOVER_AFTER": "0.3",
        "TABLE_INTERVAL": "0.2",
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "METRICS_PORT": str(ops),
        "PYTHONPATH": str(REPO),
    }
    if mode == "web":
        env["TELEGRAM_WEBHOOK_URL"] = URL
    log = tmp_path / "bot.log"
    bot = subprocess.Popen(
        [sys.executable, "-m", "chatbot", mode],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=log.open("wb"),
    )
    ann = tg.user(93, "Ann")
    tg.group(GROUP, "Stoa", creator=ann)

    def post(update: dict[str, object]) -> None:
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/telegram/webhook",
            data=json.dumps(update).encode(),
            headers={
                "Content-Type": "application/json",
                "X-Telegram-Bot-Api-Secret-Token": tg.webhook_secret or "",
            },
        )
        urllib.request.urlopen(request, timeout=10).read()

    async def send(update: dict[str, object]) -> None:
        await asyncio.to_thread(post, update)

    async def said(chat: int, n: int) -> bool:
        return len(tg.sent_to(chat)) >= n

    def lobby() -> StoredMessage:
        """The group's first message (the lobby, as edited so far)."""
        return tg.sent_to(GROUP)[0]

    async def load() -> Session | None:
        doc = await store.load(f"game:{CHAT}")
        return None if doc is None else Session.loads(doc.data, doc.fields)

    try:
        if mode == "web":
            await until(lambda: asyncio.sleep(0, bool(tg.webhook_secret)), 30, "setWebhook")

            async def command(chat: int, text: str) -> None:
                await send(tg.message_update(chat, ann, text))

            async def press(data: str) -> None:
                await send(tg.callback_update(ann, lobby(), data))
        else:

            async def command(chat: int, text: str) -> None:
                tg.push_message(chat, ann, text)

            async def press(data: str) -> None:
                tg.push_callback(ann, lobby(), data)

        await command(ann["id"], "/start")
        await until(lambda: said(ann["id"], 1), 30, "the bot answers /start")
        await command(GROUP, "/newgame")
        await until(lambda: said(GROUP, 1), 10, "the lobby")
        for seats in range(2):
            await press(button(lobby(), b.ADD_BOT))

            async def seated(n: int = seats + 1) -> bool:
                return lobby().text.count("🤖") == n

            await until(seated, 10, "a computer sits down")
        await press(button(lobby(), b.START))

        async def computers_moved() -> bool:
            s = await load()
            return s is not None and s.moves >= 2

        await until(computers_moved, 40, "the computers moved (a thinking process started)")
        if mode == "web":  # /healthz and /metrics on their own port, not the public one
            status = await asyncio.to_thread(get, ops, "/metrics")
            assert status[0] == 200 and 'egobot_games_running{game="egonomy"} 1.0' in status[1]
            assert (await asyncio.to_thread(get, ops, "/healthz"))[0] == 200
            for path in ("/metrics", "/healthz"):
                assert (await asyncio.to_thread(get, port, path))[0] == 404
        started = descendants(bot.pid)
        assert any("forkserver" in command_line(p) for p in started), started
        assert len(started) >= 3, "forkserver, resource tracker, worker"

        began = time.monotonic()
        bot.send_signal(signal.SIGTERM)
        code = await asyncio.to_thread(bot.wait, 30)  # (a hang fails here)
        ended_in = time.monotonic() - began
        assert code == 0, log.read_text()

        async def all_gone() -> bool:
            return not any(running(p) for p in started)

        await until(all_gone, 10, f"every process it started ended: {started}")
        print(f"\n{mode}: SIGTERM to exit {ended_in:.2f} s, {len(started)} processes ended")
        session = await load()
        if session is not None and session.phase == "playing":
            assert f"game:{CHAT}" in await store.due(float("inf"), 100), "its timer is left"
        assert "Traceback" not in log.read_text()
    except AssertionError:
        print("the bot's log:\n" + log.read_text(errors="replace")[-5000:])
        raise
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait(10)
        await store.close()
