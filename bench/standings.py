"""What a group's standings cost: a busy group's year of games, counted as the bot counts them.

One group of M members plays G games (2–6 seats each, people drawn from the members, one
computer seat in every third game, each game one of the three), every result counted by
`add_result` and written with one `Store.commit` on a real Redis, as a game's end does. Prints
the rating update's time a game (openskill), the commit's round trip, the standings document's
size in Redis (`MEMORY USAGE`, deflated as the store keeps it) and the time to render the
group's `/stats` board, with the machine's load average.

Usage: python bench/standings.py [--members M] [--games G] [--redis-url URL]
(without --redis-url a throwaway redis-server is started on a free port).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import redis.asyncio as aioredis
from telegram_presses import start_redis

from chatbot.core import keys
from chatbot.core.session import Seat
from chatbot.core.sessions import Platform, Sessions
from chatbot.core.standings import TTL, Standings, add_result
from chatbot.core.standings_desk import StandingsDesk
from chatbot.games import registry
from chatbot.i18n import translator
from chatbot.settings import Settings
from chatbot.store.base import Write
from chatbot.store.redis import RedisStore

PREFIX = "bench:"
CHAT = "tg:-100777"


def ms(values: list[float]) -> str:
    cut = statistics.quantiles(values, n=100)
    return f"{statistics.median(values) * 1e3:.2f} / {cut[98] * 1e3:.2f} ms"


async def run(url: str, members: int, games: int) -> None:
    store = RedisStore.from_url(url, PREFIX)
    rng = random.Random(7)
    people = [Seat(f"Member {i}", f"tg:{1000 + i}") for i in range(members)]
    names = registry().names
    standings, version = Standings(), 0
    rating, commit = [], []
    for g in range(games):
        seats = rng.sample(people, rng.randint(2, 6))
        if g % 3 == 0:
            seats[-1] = Seat("Mochi", bot="sensible")
        places = list(range(1, len(seats) + 1))
        rng.shuffle(places)
        began = time.perf_counter()
        standings = add_result(standings, names[g % len(names)], seats, places, g, "Club")
        rating.append(time.perf_counter() - began)
        began = time.perf_counter()
        key = keys.standings(CHAT)
        (version,) = await store.commit([Write(key, version, standings.dumps(), TTL)])
        commit.append(time.perf_counter() - began)
    raw = aioredis.from_url(url)
    size = 0  # the document and whatever the store keeps beside it (its version)
    async for stored in raw.scan_iter(f"{PREFIX}*stats*"):
        size += await raw.memory_usage(stored) or 0
    await raw.aclose()
    desk = StandingsDesk(Sessions(store, Settings(), registry(), Platform()))
    tr = translator("th")
    board = []
    for _ in range(200):
        began = time.perf_counter()
        desk.board(CHAT, standings, list(names), tr)
        board.append(time.perf_counter() - began)
    kept = sum(len(standings.of(n)) for n in names)
    await store.close()
    print(f"{members} members, {games} games, {kept} players kept in 3 tables")
    print("| rating update a game | commit a game | standings in Redis | /stats board |")
    print("| --- | --- | --- | --- |")
    print(f"| {ms(rating)} | {ms(commit)} | {size} bytes | {ms(board)} |")
    print(f"(p50 / p99; load average {os.getloadavg()[0]:.1f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--members", type=int, default=200)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--redis-url")
    args = parser.parse_args()
    server = None
    url = args.redis_url
    if url is None:
        server, url = start_redis()
    try:
        asyncio.run(run(url, args.members, args.games))
    finally:
        if server is not None:
            server.terminate()


if __name__ == "__main__":
    main()
