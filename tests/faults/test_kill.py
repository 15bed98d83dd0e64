"""A bot process killed (SIGKILL) right after it saved a move, before the group saw it: a new
process started in its place delivers the move within seconds, once, and play goes on."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from chatbot.core import buttons as b
from chatbot.core import views
from chatbot.core.session import Session
from chatbot.store.redis import RedisStore
from engine.core import restore
from tests.e2e.fake_telegram import FakeTelegram, StoredMessage
from tests.e2e.harness import hand_message, pick, playable
from tests.e2e.helpers import GAMES, button, table_id

REPO = Path(__file__).resolve().parents[2]
GROUP = -1005550001111
CHAT = f"tg:{GROUP}"


def bot_process(tg: FakeTelegram, redis_url: str, log: Path) -> subprocess.Popen[bytes]:
    """`python -m chatbot telegram` against the fake server and the test's Redis (db 3), its
    log appended to `log` (printed when the test fails)."""
    env = {
        **os.environ,
        "TELEGRAM_TOKEN": tg.token,
        "TELEGRAM_BASE_URL": f"http://127.0.0.1:{tg.port}",
        "REDIS_URL": redis_url.rsplit("/", 1)[0] + "/3",
        "BOT_DELAY": "0.2",
        "TABLE_INTERVAL": "0.2",
        "PYTHONPATH": str(REPO),
    }
    return subprocess.Popen(
        [sys.executable, "-m", "chatbot", "telegram"],
        env=env,
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=log.open("ab"),
    )


async def until(check: Callable[[], Awaitable[bool]], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not await check():
        assert time.monotonic() < deadline, f"not within {seconds} s: {what}"
        await asyncio.sleep(0.05)


def to_move(session: Session) -> int:
    (seat,) = GAMES[session.game].game.to_move(restore(GAMES[session.game].game, session.state))
    return seat


@pytest.mark.slow
async def test_a_move_saved_by_a_killed_process_reaches_the_group_through_the_next(
    tg: FakeTelegram, redis_url: str, tmp_path: Path
) -> None:
    store = RedisStore.from_url(redis_url.rsplit("/", 1)[0] + "/3")
    ann, bob = tg.user(91, "Ann"), tg.user(92, "Bob")
    tg.group(GROUP, "Lyceum", creator=ann, members=[bob["id"]])
    users = {f"tg:{u['id']}": u for u in (ann, bob)}

    async def load() -> Session | None:
        doc = await store.load(f"game:{CHAT}")
        return None if doc is None else Session.loads(doc.data, doc.fields)

    async def said(chat: int, n: int) -> bool:
        return len(tg.sent_to(chat)) >= n

    log = tmp_path / "bots.log"
    a = bot_process(tg, redis_url, log)
    b2: subprocess.Popen[bytes] | None = None
    try:
        for user in (ann, bob):
            tg.push_message(user["id"], user, "/start")
            await until(lambda u=user: said(u["id"], 1), 30, "the bot answers /start")
        tg.push_message(GROUP, ann, "/newgame")
        await until(lambda: said(GROUP, 1), 10, "the lobby")
        lobby = tg.last_message(GROUP)
        assert lobby is not None
        tg.push_callback(bob, lobby, button(lobby, b.JOIN))

        async def seated() -> bool:
            s = await load()
            return s is not None and len(s.seats) == 2

        await until(seated, 10, "Bob sits down")
        shown = lobby.message_id

        async def lobby_shows_bob() -> bool:  # its Start button carries the lobby's new stamp
            return "Bob" in tg.message(GROUP, shown).text

        # Pressed before the lobby's edit lands, Start would carry the stamp from before Bob
        # joined and be refused as outdated (the save comes before the edit).
        await until(lobby_shows_bob, 10, "the lobby shows Bob")
        lobby = tg.message(GROUP, shown)
        tg.push_callback(ann, lobby, button(lobby, b.START))

        async def playing() -> bool:
            s = await load()
            return s is not None and s.phase == "playing" and views.table_slot(s) in s.message_ids

        await until(playing, 10, "the game starts")
        before = await load()
        assert before is not None
        table_no = int(table_id(before))
        user = users[before.seats[to_move(before)].user or ""]

        async def has_hand() -> bool:
            return hand_message(tg, user["id"]) is not None

        await until(has_hand, 10, "the player to move gets their hand")

        tg.hold(GROUP)  # the group's messages hang: A will die with them in hand
        rng = random.Random(1)

        async def moved() -> bool:
            s = await load()
            return s is not None and s.moves > before.moves

        while not await moved():  # choice steps, then the move itself
            hand: StoredMessage | None = hand_message(tg, user["id"])
            assert hand is not None and playable(hand)
            edits = len(hand.history)
            tg.push_callback(user, hand, pick(hand, rng))

            async def answered(h: StoredMessage = hand, e: int = edits) -> bool:
                return len(h.history) > e or await moved()

            await until(answered, 10, "the press is handled")
        shown = tg.message(GROUP, table_no).text
        a.send_signal(signal.SIGKILL)
        a.wait(10)
        tg.let_through()

        b2 = bot_process(tg, redis_url, log)

        async def table_current() -> bool:
            return tg.message(GROUP, table_no).text != shown

        began = time.monotonic()
        await until(table_current, 40, "the new process shows the saved move")
        recovered_in = time.monotonic() - began
        after = await load()
        assert after is not None and after.moves >= before.moves + 1
        next_user = users.get(after.seats[to_move(after)].user or "")
        if next_user is not None:
            assert hand_message(tg, next_user["id"]) is not None
        print(f"recovered in {recovered_in:.1f} s")
    except AssertionError:
        print("the bot processes' log:\n" + log.read_text(errors="replace")[-5000:])
        raise
    finally:
        tg.release()
        for proc in (a, b2):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
        await store.close()
