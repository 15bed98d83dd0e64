"""Button presses per second through the whole Telegram application, and the ceiling.

Pushes callback-query updates for M concurrent Egonomy games (4 people each, every press a real
button of the player to move: a step of the choice or a move) through the real
python-telegram-bot application with our handler, on a real Redis and the local fake Bot API
server, and prints presses/s and p50/p99 time per press. In the same run, the same figures for
a bare python-telegram-bot handler that only answers the query and edits one message: the
framework's own ceiling. Both sides time the same thing: from handing the update to the
application until the press is answered and every new message it causes has reached the (fake)
Bot API (our table edits merge and go later, at most one per TABLE_INTERVAL); the games are
opened before the clock starts, so presses/s counts presses only.

Usage: python bench/telegram_presses.py [--presses N] [--games M] [--redis-url URL]
(without --redis-url a throwaway redis-server is started on a free port).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from telegram import Update
from telegram.ext import CallbackQueryHandler, ContextTypes

from chatbot.store.redis import RedisStore
from tests.e2e.fake_telegram import FakeTelegram
from tests.e2e.harness import (
    TEST_SETTINGS,
    Harness,
    hand_message,
    pick,
    playable,
    request,
)


def start_redis() -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = shutil.which("redis-server")
    if server is None:
        raise SystemExit("redis-server is not installed")
    proc = subprocess.Popen(
        [
            server,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            tempfile.mkdtemp(),
        ],
        stdout=subprocess.DEVNULL,
    )
    time.sleep(0.3)
    return proc, f"redis://127.0.0.1:{port}/0"


def report(name: str, count: int, elapsed: float, times: list[float]) -> float:
    times.sort()
    rate = count / elapsed
    p50 = statistics.median(times) * 1000
    p99 = times[int(len(times) * 0.99) - 1] * 1000
    print(f"  {name:<34} {rate:8.0f} presses/s   p50 {p50:6.2f} ms   p99 {p99:6.2f} ms")
    return rate


async def ours(tg: FakeTelegram, url: str, presses: int, games: int) -> float:
    """Our application: presses spread over `games` concurrent games."""
    store = RedisStore.from_url(url, f"bench:{time.time_ns()}:")
    # Real table coalescing; Telegram's own flood limits lifted, as for the bare handler.
    h = await Harness(tg, store, replace(TEST_SETTINGS, table_interval=3.0)).start()
    timings: list[float] = []
    rng = random.Random(7)
    done = 0
    next_group = iter(range(-1_000_000_000_100, -1_000_000_000_000_000, -1))

    async def new_game() -> list[dict[str, Any]]:
        group = next(next_group)
        users = [
            tg.user(abs(group) % 10**8 * 10 + i, f"P{i}", language_code="en") for i in range(4)
        ]
        tg.group(group, "bench", creator=users[0])
        for u in users:
            await h.command(u["id"], u, "/start")
        await h.command(group, users[0], "/newgame")
        lobby = tg.last_message(group)
        assert lobby is not None
        for u in users[1:]:
            await h.press(u, lobby, next(d for d in lobby.callback_data if d.startswith("j")))
            lobby = tg.message(group, lobby.message_id)
        await h.press(users[0], lobby, next(d for d in lobby.callback_data if d.startswith("s")))
        return users

    async def player(tables: list[list[dict[str, Any]]]) -> None:
        nonlocal done
        users = tables.pop()
        while done < presses:
            for u in users:
                message = hand_message(tg, u["id"])
                if message is not None and playable(message):
                    began = time.perf_counter()
                    await h.press(u, message, pick(message, rng))  # answered, messages sent
                    timings.append(time.perf_counter() - began)
                    done += 1
                    break
            else:  # nobody has a button left: the game is over
                users = tables.pop()

    # Enough games opened beforehand that no player runs out (a game takes 60+ presses).
    per_player = presses // (games * 30) + 2
    opened = [[await new_game() for _ in range(per_player)] for _ in range(games)]
    calls_before = len(tg.calls)
    started = time.perf_counter()
    await asyncio.gather(*(player(tables) for tables in opened))
    elapsed = time.perf_counter() - started
    await h.stop()
    rate = report("our bot (Egonomy presses)", done, elapsed, timings)
    print(f"  Bot API calls a press: ours {(len(tg.calls) - calls_before) / done:.2f}, bare 2.00")
    return rate


async def bare(tg: FakeTelegram, presses: int, games: int) -> float:
    """A bare PTB handler: answer the query and edit one message."""
    app = tg.application_builder().request(request()).get_updates_request(request()).build()
    timings: list[float] = []
    counter = 0

    async def on_press(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        nonlocal counter
        counter += 1
        text = f"pressed {counter}"
        query = update.callback_query
        assert query is not None
        await query.answer()
        await query.edit_message_text(text, reply_markup=_one_button())

    app.add_handler(CallbackQueryHandler(on_press))
    await app.initialize()
    user = tg.user(5, "Bare", started=True)
    group = tg.group(-4242, "bare", creator=user)
    message = await app.bot.send_message(group["id"], "start", reply_markup=_one_button())
    stored = tg.message(group["id"], message.message_id)
    per_game = presses // games

    async def presser() -> None:
        for _ in range(per_game):
            update = tg.callback_update(user, stored, "x", check=False)
            began = time.perf_counter()
            await app.process_update(Update.de_json(update, app.bot))
            timings.append(time.perf_counter() - began)

    started = time.perf_counter()
    await asyncio.gather(*(presser() for _ in range(games)))
    elapsed = time.perf_counter() - started
    await app.shutdown()
    return report("bare PTB (answer + edit)", per_game * games, elapsed, timings)


def _one_button() -> Any:
    from telegram import InlineKeyboardButton, InlineKeyboardMarkup

    return InlineKeyboardMarkup([[InlineKeyboardButton("x", callback_data="x")]])


async def main(args: argparse.Namespace) -> None:
    proc = None
    url = args.redis_url
    if url is None:
        proc, url = start_redis()
    try:
        for games in sorted({1, args.games}):
            async with FakeTelegram.running() as tg:
                print(f"{args.presses} presses, {games} concurrent game(s), one process:")
                ceiling = await bare(tg, args.presses, games)
                rate = await ours(tg, url, args.presses, games)
                print(f"  ours / ceiling: {rate / ceiling:.0%}")
    finally:
        if proc is not None:
            proc.terminate()


def run(
    argv: list[str] | None = None, entry: Callable[..., Coroutine[Any, Any, None]] = main
) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--presses", type=int, default=2000)
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--redis-url", default=None)
    asyncio.run(entry(parser.parse_args(argv)))


if __name__ == "__main__":
    run()
