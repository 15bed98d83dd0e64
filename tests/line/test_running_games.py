"""The "games running" gauge of /metrics is counted in the shared store (as games start and
end, one round trip a scrape): two
server processes on one Redis (here two bots, each with its own Redis connection pool) report
the same figure, whichever handled the games."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import httpx
import pytest
from prometheus_client import REGISTRY

from chatbot.bootstrap import line_bot
from chatbot.core import buttons as b
from chatbot.core.registry import Registry
from chatbot.line.bot import LineBot
from chatbot.line.convert import qualify
from chatbot.metrics import RUNNING, RunningGames
from chatbot.store.redis import RedisStore
from chatbot.web import app
from tests.games import pick
from tests.line.fake_line import FakeLine, bot_settings
from tests.line.test_line_game import buttons, deliver


def _bot(line: FakeLine, redis_url: str, prefix: str) -> LineBot:
    return line_bot(
        bot_settings(line), RedisStore.from_url(redis_url, prefix), Registry([pick.bundle()])
    )


@pytest.fixture
async def pair(
    line: FakeLine, redis_url: str, redis_prefix: str
) -> AsyncIterator[tuple[LineBot, LineBot]]:
    """Two bots ("processes") on one Redis, each with its own pool."""
    bots = _bot(line, redis_url, redis_prefix), _bot(line, redis_url, redis_prefix)
    for bot in bots:
        await bot.start()
    try:
        yield bots
    finally:
        for bot in bots:
            await bot.stop()


async def scraped(bot: LineBot) -> dict[str, float]:
    """The games-running samples of one process's /metrics for its games (other tests of
    this process leave samples of other games)."""
    server = app(bot)
    transport = httpx.ASGITransport(app=server)
    async with httpx.AsyncClient(transport=transport, base_url="http://bot") as client:
        text = (await client.get("/metrics")).text
    found = re.findall(r'^egobot_games_running\{game="(\w+)"\} (\S+)$', text, re.MULTILINE)
    games = bot.sessions.games.names
    return {game: float(value) for game, value in found if game in games}


async def open_table(bot: LineBot, line: FakeLine, people: list[str], start: bool) -> str:
    group = line.group(*people)
    await deliver(bot, line, line.text(group, people[0], "/newgame"))
    for user in people[1:]:
        (join,) = buttons(line.to(group)[-1], b.JOIN)
        await deliver(bot, line, line.postback(group, user, join))
    if start:
        (go,) = buttons(line.to(group)[-1], b.START)
        await deliver(bot, line, line.postback(group, people[0], go))
    return group


async def test_every_process_counts_the_games_of_the_shared_store(
    pair: tuple[LineBot, LineBot], line: FakeLine
) -> None:
    one, two = pair
    ann, bob, cid, dan = (line.user(n, "en") for n in ("Ann", "Bob", "Cid", "Dan"))
    assert await scraped(one) == {"pick": 0}
    first = await open_table(one, line, [ann, bob], start=True)
    await open_table(two, line, [cid, dan], start=True)
    await open_table(one, line, [dan, ann], start=False)  # a table not yet started
    assert await scraped(two) == {"pick": 2}, "the other process's game counts too"
    assert await scraped(one) == {"pick": 2}

    for turn in range(pick.TURNS):  # the first game, played to its end on the other process
        for user in (ann, bob):
            table = next(s for s in reversed(line.to(first)) if buttons(s, b.GROUP_MOVE))
            (one_pick,) = [d for d in buttons(table, b.GROUP_MOVE) if d.endswith("|p1")]
            await deliver(two if turn % 2 else one, line, line.postback(first, user, one_pick))
    assert (await one.sessions.load(qualify(first)))[0] is None, "the first game is over"
    assert await scraped(one) == {"pick": 1}
    assert await RunningGames(two.sessions.count_running, ["pick"]).count() == {"pick": 1}
    assert not one.errors and not two.errors


async def test_a_store_out_of_reach_leaves_the_gauge_out(line: FakeLine) -> None:
    lost = RedisStore.from_url("redis://127.0.0.1:1/0")  # nothing listens there
    running = RunningGames(lost.running, ["pick"])
    RUNNING.labels("pick").set(3)  # an earlier count
    try:
        await running.refresh()
    finally:
        await lost.close()
    assert REGISTRY.get_sample_value("egobot_games_running", {"game": "pick"}) is None
