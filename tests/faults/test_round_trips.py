"""Redis round trips of a move press and of a command, counted at the connection: the dedupe
check (and the claim against another process's copy of the same update) rides on the load, the
presser's language is read only to refuse, and deliveries are recorded together."""

from __future__ import annotations

import pytest
from prometheus_client import REGISTRY
from telegram import Update

from chatbot.store.redis import RedisStore
from tests.e2e.fake_telegram import FakeTelegram
from tests.e2e.harness import Harness, hand_message
from tests.e2e.helpers import GROUP, JSON, load, open_table, to_move, user_of
from tests.faults.test_crash_dedupe import move_update
from tests.redis_packets import Packets

# (The flood budget's reservations, one or two a message sent, are counted apart: they are
# the platform's budget, not the press's work; tests/chatbot/test_shared_budget.py.)
# A move press: one load (with the dedupe check and the claim against another process's copy)
# and one compare-and-set (which marks the update handled). The record that its messages went
# out is a write shared by every change delivered within LEDGER_EVERY (not counted here).
# /status checks dedupe (and claims the update), loads (the message ids beside the session come
# with it), and records the fresh table's message id beside the session (one script: no load,
# no save); that it was handled is recorded with the deliveries. Its reply, as it goes, reads and
# writes when the member's last reply went (one reply a burst, however many processes saw it).
PRESS_TRIPS = ["EVALSHA", "EVALSHA"]
# A step of a choice: the load (with the dedupe check and the claim), nothing else; that it was
# handled is recorded with the deliveries.
STEP_TRIPS = ["EVALSHA"]
COMMAND_TRIPS = 5


@pytest.mark.parametrize("cluster", [False, True], ids=["single", "cluster"])
async def test_round_trips_of_a_move_a_step_and_a_command(
    tg: FakeTelegram,
    redis_prefix: str,
    request: pytest.FixtureRequest,
    cluster: bool,
) -> None:
    url = request.getfixturevalue("redis_cluster_url" if cluster else "redis_url")
    store = RedisStore.from_url(url, redis_prefix, cluster=cluster)
    h = await Harness(tg, store).start(heartbeat=False)  # (its writes would be counted)
    try:
        users = [tg.user(61, "Kim"), tg.user(62, "Lou")]
        await open_table(h, tg, users)
        update = await move_update(h, tg, users)
        moves = moves_made()
        budget = (store._reserve.sha, store._pause.sha)  # the flood budget's, per message sent
        with Packets() as sent:
            await h.feed(update)
        press = sent.without(*budget)
        assert moves_made() == moves + 1  # (two people: no computer moves after it)
        with Packets() as sent:
            await h.command(GROUP, users[0], "/status")
        command = sent.without(*budget)
        step = await step_update(h, tg, users)
        with Packets() as sent:
            await h.bot.app.process_update(Update.de_json(step, h.bot.app.bot))
        nav = sent.without(*budget)
    finally:
        await h.stop()
        await store.close()
    print(f"round trips: a move press {press}, a step")
    print(f"{nav}, /status {len(command)} {command}")
    assert press == PRESS_TRIPS, press
    assert nav == STEP_TRIPS, nav
    assert len(command) == COMMAND_TRIPS, command


def moves_made() -> float:
    """`egobot_moves_total{game="egonomy"}` in this process."""
    return REGISTRY.get_sample_value("egobot_moves_total", {"game": "egonomy"}) or 0.0


async def step_update(h: Harness, tg: FakeTelegram, users: list[JSON]) -> JSON:
    """A press of a step of a choice (a button that opens the next choice) by the player to
    move; other players' moves are made until one has such a button."""
    for _ in range(50):
        session = await load(h)
        user = user_of(session, to_move(session), users)
        hand = hand_message(tg, user["id"])
        assert hand is not None
        steps = [d for d in hand.callback_data if d.startswith("n")]
        if steps:
            return tg.callback_update(user, hand, steps[0])
        await h.press(user, hand, next(d for d in hand.callback_data if d.startswith("m")))
    raise AssertionError("no step of a choice in 50 moves")
