"""A captured, signed LINE event sent again (issue 38, item 2), on real processes (`python -m
chatbot web`, real uvicorn) and a real redis-server: after the process that handled it was
killed and another started in its place, and after 1,000 other events in the same group, the
copy changes nothing and nothing is said. Handled event ids are kept in Redis for
`DEDUPE_TTL` seconds after each one's own handling (not the newest 100 of a chat), longer
than LINE's events are accepted at all (`EVENT_WINDOW`, by their own timestamp)."""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from chatbot.core import keys
from chatbot.core.dedupe import DEDUPE_TTL
from chatbot.line.bot import EVENT_WINDOW
from chatbot.line.convert import qualify
from chatbot.store.redis import RedisStore
from tests.e2e.webprocess import bot_process
from tests.faults.conftest import RedisProcess
from tests.line.fake_line import ACCESS_TOKEN, LOGIN_CHANNEL, SECRET, FakeLine
from tests.line.test_scale_out import free_port

REPO = Path(__file__).resolve().parents[2]
JSON = dict[str, Any]


@pytest.fixture
async def line() -> AsyncIterator[FakeLine]:
    async with FakeLine.running() as fake:
        yield fake


def web_process(
    line: FakeLine, redis_url: str, port: int, ops: int, log: Path, extra: dict[str, str]
) -> subprocess.Popen[bytes]:
    """`python -m chatbot web` for the fake LINE channel, its log appended to `log`."""
    channel = {
        "LINE_CHANNEL_SECRET": SECRET,
        "LINE_CHANNEL_ACCESS_TOKEN": ACCESS_TOKEN,
        "LINE_API_BASE_URL": line.base_url,
        "LINE_ANSWER_WITHIN": "600",  # the webhook answers once its events were handled
    }
    return bot_process(channel, redis_url, port, ops, log, extra)


class Web:
    """One web server process and its URL."""

    def __init__(
        self, line: FakeLine, redis_url: str, log: Path, extra: dict[str, str] | None = None
    ) -> None:
        self.port, self.ops = free_port(), free_port()
        self.proc = web_process(line, redis_url, self.port, self.ops, log, extra or {})
        self.url = f"http://127.0.0.1:{self.port}/line/webhook"

    async def post(self, client: httpx.AsyncClient, body: str, signature: str) -> None:
        headers = {"X-Line-Signature": signature, "Content-Type": "application/json"}
        response = await client.post(self.url, content=body, headers=headers)
        assert response.status_code == 200, response.text

    def end(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


async def until_up(client: httpx.AsyncClient, ops: int) -> None:
    """Wait until the process serves /healthz (a minute at most: the machine may be busy)."""
    deadline = time.monotonic() + 60
    while True:
        try:
            if (await client.get(f"http://127.0.0.1:{ops}/healthz")).status_code == 200:
                return
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, "the web server did not start"
        await asyncio.sleep(0.1)


async def answered(line: FakeLine, event: JSON) -> None:
    """Wait until the reply to `event` went out (its messages are sent after the webhook's
    answer)."""
    deadline = time.monotonic() + 10
    while not line.answered(event["replyToken"]):
        assert time.monotonic() < deadline, "the event was answered"
        await asyncio.sleep(0.02)


def test_the_windows_fit() -> None:
    """A LINE event is accepted EVENT_WINDOW seconds after its timestamp: its id is kept
    at least that long after it was handled."""
    assert EVENT_WINDOW <= DEDUPE_TTL


@pytest.mark.slow  # (real processes: `pytest -m slow`)
async def test_a_captured_event_replayed_after_a_restart_and_1000_other_events_changes_nothing(
    line: FakeLine, own_redis: RedisProcess, tmp_path: Path
) -> None:
    log = tmp_path / "web.log"
    store = RedisStore.from_url(own_redis.url)
    began = time.monotonic()
    ann, bob = line.user("Ann", "en"), line.user("Bob", "en")
    group = line.group(ann, bob)
    chat = qualify(group)
    webs = [Web(line, own_redis.url, log)]
    try:
        async with httpx.AsyncClient(timeout=60) as client:
            await until_up(client, webs[0].ops)
            opened = line.text(group, ann, "/newgame")
            captured = line.signed(opened)  # as an eavesdropper kept it: body and signature
            await webs[0].post(client, *captured)
            await answered(line, opened)
            assert await store.load(keys.game(chat)) is not None, "the table opened"
            stop = line.text(group, ann, "/stop")
            await webs[0].post(client, *line.signed(stop))
            await answered(line, stop)
            assert await store.load(keys.game(chat)) is None, "and was stopped"

            webs[0].end()  # the process dies; another starts in its place
            webs.append(Web(line, own_redis.url, log))
            await until_up(client, webs[1].ops)
            said = len(line.to(group))
            await webs[1].post(client, *captured)
            assert await store.load(keys.game(chat)) is None, "the copy opened nothing"
            assert len(line.to(group)) == said, "and said nothing"

            for _ in range(10):  # 1,000 other events in the group: each handled, none says
                others = [line.text(group, bob, "/someone_elses_bot") for _ in range(100)]
                await webs[1].post(client, *line.signed(*others))
            assert len(line.to(group)) == said
            await webs[1].post(client, *captured)
            assert await store.load(keys.game(chat)) is None, "the copy opened nothing"
            assert len(line.to(group)) == said, "and said nothing"
            assert time.monotonic() - began < EVENT_WINDOW, "(the copy was within its window)"
    except BaseException:
        print(log.read_text(errors="replace")[-5000:] if log.exists() else "(no log)")
        raise
    finally:
        for web in webs:
            web.end()
        await store.close()


@pytest.mark.slow  # (real processes: `pytest -m slow`)
@pytest.mark.parametrize("page", [False, True], ids=["pushes", "hand-page"])
async def test_a_redelivered_events_reply_token_is_not_used_past_its_life(
    line: FakeLine, own_redis: RedisProcess, tmp_path: Path, page: bool
) -> None:
    """LINE delivers a /newgame again 120 s after it happened (its first process died before
    answering): its reply token is as old as the event, past LINE_REPLY_WITHIN (50 s), so it
    is never tried. Without the hand page the group is pushed the lobby; with it (group
    updates wait for a reply there) the lobby rides on the reply to the next event in the
    group."""
    log = tmp_path / "web.log"
    store = RedisStore.from_url(own_redis.url)
    ann, bob = line.user("Ann", "en"), line.user("Bob", "en")
    group = line.group(ann, bob)
    extra = {"LINE_LIFF_ID": f"{LOGIN_CHANNEL}-HandPage", "LINE_LOGIN_CHANNEL_ID": LOGIN_CHANNEL}
    web = Web(line, own_redis.url, log, extra if page else {})
    try:
        async with httpx.AsyncClient(timeout=60) as client:
            await until_up(client, web.ops)
            late = line.text(group, ann, "/newgame")
            late["timestamp"] -= 120_000
            late["deliveryContext"] = {"isRedelivery": True}
            line.tokens[late["replyToken"]].issued -= 120  # LINE issued it with the event
            await web.post(client, *line.signed(late))
            assert await store.load(keys.game(qualify(group))) is not None, "the table opened"
            if page:
                nudge = line.text(group, bob, "/status")
                await web.post(client, *line.signed(nudge))
                await answered(line, nudge)
            deadline = time.monotonic() + 10
            while not any(s.text.startswith("🎲") or "Join" in s.text for s in line.to(group)):
                assert time.monotonic() < deadline, "the lobby was shown"
                await asyncio.sleep(0.02)
            assert not line.answered(late["replyToken"]), "the old token was never used"
            refused = [r for r in line.refused if r[0] == "/v2/bot/message/reply"]
            assert not refused, refused
            ways = {s.via for s in line.to(group)}
            assert ways == ({"reply"} if page else {"push"}), ways
    except BaseException:
        print(log.read_text(errors="replace")[-5000:] if log.exists() else "(no log)")
        raise
    finally:
        web.end()
        await store.close()
