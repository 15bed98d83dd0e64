"""Issue 38, item 1, on real processes: two `python -m chatbot web` processes serve Telegram's
webhook on one real redis-server. Process A reaches Redis through a proxy that lets A's save
of a move through to Redis (it is applied) and holds Redis's reply: A is at its save. Then A
is killed (SIGKILL) or frozen (SIGSTOP), and the same press is delivered to B: B answers
"That press was already counted." A frozen A, woken, answers nothing more: one answer in all,
and the move is applied once."""

from __future__ import annotations

import asyncio
import hashlib
import signal
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from chatbot.core.session import Session
from chatbot.store.redis import RedisStore, script
from tests.e2e.fake_telegram import FakeTelegram
from tests.e2e.harness import Harness
from tests.e2e.helpers import CHAT, answer_calls, open_table
from tests.e2e.webprocess import Web
from tests.faults.conftest import RedisProcess
from tests.faults.test_crash_dedupe import move_update

COUNTED = "That press was already counted."


class HoldingProxy:
    """A TCP proxy to Redis that, once armed, holds Redis's replies on the connection that
    sent the save script (the save is applied; the process does not hear of it) until
    released."""

    def __init__(self, redis_port: int) -> None:
        self.redis_port = redis_port
        self.port = 0
        self.sha = hashlib.sha1(script("save").encode()).hexdigest().encode()
        self.armed = False
        self.holding = asyncio.Event()  # a save's reply is held
        self.released = asyncio.Event()
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        self.released.set()
        if self._server is not None:
            self._server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.redis_port)
        hold = [False]

        async def up() -> None:
            while data := await reader.read(65536):
                if self.armed and self.sha in data:
                    self.armed, hold[0] = False, True
                up_writer.write(data)
                await up_writer.drain()
            up_writer.close()

        async def down() -> None:
            while data := await up_reader.read(65536):
                if hold[0]:
                    self.holding.set()
                    await self.released.wait()
                    hold[0] = False
                writer.write(data)
                await writer.drain()
            writer.close()

        await asyncio.gather(up(), down(), return_exceptions=True)


@pytest.fixture
async def played(tg: FakeTelegram, own_redis: RedisProcess) -> AsyncIterator[dict[str, Any]]:
    """A game opened and started in process (then stopped), and a move press not yet sent."""
    h = await Harness(tg, RedisStore.from_url(own_redis.url)).start()
    try:
        users = [tg.user(701, "Ann"), tg.user(702, "Bob")]
        await open_table(h, tg, users)
        update = await move_update(h, tg, users)
        await h.bot.runner.delivery.flush()
    finally:
        await h.stop()
    yield update


async def moves(store: RedisStore) -> int:
    doc = await store.load(f"game:{CHAT}")
    assert doc is not None
    return Session.loads(doc.data, doc.fields).moves


def texts(tg: FakeTelegram, update: dict[str, Any]) -> list[str]:
    return [str(c.params.get("text", "")) for c in answer_calls(tg, update)]


@pytest.mark.slow  # (real processes: `pytest -m slow`)
@pytest.mark.parametrize("fault", ["sigkill", "sigstop"])
async def test_a_press_whose_process_died_or_froze_at_its_save_is_answered_by_another(
    tg: FakeTelegram,
    own_redis: RedisProcess,
    played: dict[str, Any],
    tmp_path: Path,
    fault: str,
) -> None:
    log = tmp_path / "web.log"
    store = RedisStore.from_url(own_redis.url)
    proxy = HoldingProxy(own_redis.port)
    await proxy.start()
    before = await moves(store)
    a = Web(tg, f"redis://127.0.0.1:{proxy.port}/0", log)
    b2 = Web(tg, own_redis.url, log)
    try:
        async with httpx.AsyncClient(timeout=60) as client:
            await a.up(client)
            await b2.up(client)
            proxy.armed = True
            first = asyncio.create_task(a.post(client, played))
            await asyncio.wait_for(proxy.holding.wait(), 30)  # A is at its save
            assert await moves(store) == before + 1, "Redis applied A's save"
            a.proc.send_signal(signal.SIGKILL if fault == "sigkill" else signal.SIGSTOP)
            await b2.post(client, played)  # Telegram delivers the press again, to B
            (said,) = texts(tg, played)
            assert said.startswith(COUNTED), said
            if fault == "sigstop":
                a.proc.send_signal(signal.SIGCONT)
                proxy.released.set()  # A hears of its save, 4 s and more late
                await asyncio.wait_for(first, 30)
                assert texts(tg, played) == [said], "the woken process said nothing more"
            else:
                proxy.released.set()
                first.cancel()
                await asyncio.gather(first, return_exceptions=True)
            assert await moves(store) == before + 1, "applied once"
    except BaseException:
        print(log.read_text(errors="replace")[-5000:] if log.exists() else "(no log)")
        raise
    finally:
        a.end()
        b2.end()
        await proxy.stop()
        await store.close()
