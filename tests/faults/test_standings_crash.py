"""A process killed (SIGKILL) at the end of a game, just before or just after the step that
removes the game and counts it in the chat's standings: the process that takes over counts
the game exactly once (the step is one Lua compare-and-set on a real Redis)."""

from __future__ import annotations

import os
import select
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from chatbot.core import keys
from chatbot.core.standings import Standings
from chatbot.settings import Settings
from chatbot.store.redis import RedisStore
from tests.conftest import make_service
from tests.faults.finisher import CHAT

REPO = Path(__file__).resolve().parents[2]


def run_until_the_end(url: str, prefix: str, when: str, game: str) -> None:
    """The finisher process, killed as soon as it reports the game's end."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    args = [sys.executable, "-m", "tests.faults.finisher", url, prefix, when, game]
    proc = subprocess.Popen(args, env=env, cwd=REPO, stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], 120)
        line = proc.stdout.readline() if ready else b"(nothing within 120 s)"
        assert line.strip() == b"AT-END", f"the finisher stopped early: {line!r}"
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize("when", ["before", "after"])
async def test_a_game_ended_by_a_killed_process_is_counted_once(
    redis_url: str, redis_prefix: str, when: str
) -> None:
    run_until_the_end(redis_url, redis_prefix, when, "ano")  # every seat a computer player
    store = RedisStore.from_url(redis_url, redis_prefix)
    try:
        doc = await store.load(f"game:{CHAT}")
        assert (doc is not None) == (when == "before"), "the game is gone iff it was counted"
        # the next process: its ticker finds the game (a change owed by a dead process is
        # due after the grace: its clock runs ahead) and ends it
        later = make_service(store, Settings(bot_delay=0))
        later.sessions.clock = lambda: 2e10
        for _ in range(3):
            await later.tick()
        assert await store.load(f"game:{CHAT}") is None
        board = await store.load(keys.standings(CHAT))
        assert board is not None
        (table,) = (Standings.loads(board.data).games or {}).values()
        assert len(table) >= 2 and all(f.played == 1 for f in table.values())
        assert sum(f.wins for f in table.values()) >= 1
        entries = await store.history(f"hist:{CHAT}", 10)
        assert [orjson.loads(e)["stopped"] for e in entries] == [False]
    finally:
        await store.close()
