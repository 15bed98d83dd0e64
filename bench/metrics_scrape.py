"""What a /metrics scrape costs with many games running.

Fills a real Redis with G running games (a stored session each, its deadline in the timer
index, counted as running as a started game is), then scrapes /metrics of the real ops app
(`chatbot.web.ops_app`, the Starlette app `python -m chatbot web` serves on METRICS_PORT)
over real HTTP (uvicorn on a free port) N times, and prints the scrape time (p50, max), the
Redis commands one scrape sends and the machine's load average.

Usage: python bench/metrics_scrape.py [--games G] [--scrapes N] [--redis-url URL]
(without --redis-url a throwaway redis-server is started on a free port).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx
import redis.asyncio as aioredis
import uvicorn
from starlette.applications import Starlette
from telegram_presses import start_redis

from chatbot.core import keys
from chatbot.core.session import PLAYING, Seat, Session
from chatbot.core.sessions import Platform, Sessions
from chatbot.games import registry
from chatbot.metrics import RunningGames
from chatbot.settings import Settings
from chatbot.store.redis import RedisStore
from chatbot.web import ops_routes

PREFIX = "bench:"


async def fill(store: RedisStore, games: int) -> None:
    """`games` sessions being played, as a start leaves them (saved, scheduled, counted)."""
    names = registry().names
    gate = asyncio.Semaphore(64)

    async def one(i: int) -> None:
        game = names[i % len(names)]
        session = Session(game, f"tg:-{i}", "tg:1", "en", {}, [Seat("Ann", "tg:1")])
        session.phase = PLAYING
        key = keys.game(session.chat)
        async with gate:
            await store.save(key, session.dumps(), 0, 3600, time.time() + 60 + i % 600)
            await store.mark_running(key, game)

    await asyncio.gather(*(one(i) for i in range(games)))


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--scrapes", type=int, default=50)
    parser.add_argument("--redis-url", default=None)
    args = parser.parse_args()
    proc = None
    url = args.redis_url
    if url is None:
        proc, url = start_redis()
    store = RedisStore.from_url(url, PREFIX)
    client = aioredis.Redis.from_url(url)
    try:
        await client.flushdb()
        began = time.perf_counter()
        await fill(store, args.games)
        print(f"{args.games} running games stored in {time.perf_counter() - began:.1f} s")
        sessions = Sessions(store, Settings(), registry(), Platform())
        running = RunningGames(sessions.count_running, registry().names)
        app = Starlette(routes=ops_routes([sessions], running))
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
        )
        serving = asyncio.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.01)
        before = int((await client.info("stats"))["total_commands_processed"])
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
            times = []
            for _ in range(args.scrapes):
                start = time.perf_counter()
                text = (await http.get("/metrics")).text
                times.append(time.perf_counter() - start)
        after = int((await client.info("stats"))["total_commands_processed"])
        server.should_exit = True
        await serving
        shown = sorted(
            line for line in text.splitlines() if line.startswith("egobot_games_running{")
        )
        print("\n".join(shown))
        per_scrape = (after - before - 1) / args.scrapes  # (less the INFO itself)
        print(
            f"scrape of /metrics with {args.games} games running: "
            f"p50 {statistics.median(times) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms "
            f"over {args.scrapes} scrapes; Redis commands a scrape: {per_scrape:.0f}"
        )
        print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        await client.aclose()
        await store.close()
        if proc is not None:
            proc.terminate()
            proc.wait()


if __name__ == "__main__":
    asyncio.run(main())
