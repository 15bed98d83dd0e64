"""Button presses per second through the whole Telegram application, against a bare handler
that makes the very same Bot API calls.

Our side: M concurrent Egonomy games (4 people each, every press a real button of the player
to move: a step of the choice or a move) through the real python-telegram-bot application with
our handler, on a real Redis and the local fake Bot API server. The bare side: a bare
python-telegram-bot handler that, for each press, replays the Bot API calls our bot made for
that press (same methods, same parameters, same order, through PTB's own methods for them; the
query answered by its own id) and nothing else: the framework's and the Bot API's share of the
cost, without the game. The bare side's connection is PTB's own (HTTPXRequest, Nagle's algorithm
off) with `--bare-request ptb`, and by default the one our bot uses (chatbot/telegram/request.py),
making each press's calls all at once as our bot does (`--bare-in-turn`: one after the other):
the headline compares like with like, the same connection and the same overlap.

Both sides time the same thing: from handing the update to the application until the last Bot
API call it causes has returned. Games are opened before the clock starts, so presses/s counts
presses only. Printed per side: presses/s, p50/p99 per press, processor time per press (of
this whole process: bot or bare handler, HTTP client and the fake server), Bot API calls and
request bytes (the JSON of the parameters) per press, and Redis round trips per press (packets
sent to Redis, connection greetings left out; counted in one more round of a quarter of the
presses, untimed, since counting them costs our side time). Rounds alternate ours and bare
(the machine may be shared); the figures are medians over the rounds.

Usage: python bench/telegram_presses.py [--presses N] [--games M] [--rounds R] [--bare-in-turn]
[--bare-request ptb|ours] [--redis-url URL] [--profile FILE]
(without --redis-url a throwaway redis-server is started on a free port).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import os
import pstats
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.error import TelegramError
from telegram.ext import CallbackQueryHandler, ContextTypes
from telegram.request import BaseRequest, HTTPXRequest

from chatbot.bootstrap import settled
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
from tests.redis_packets import Packets

JSON = dict[str, Any]
Calls = list[tuple[str, JSON]]  # one press's Bot API calls: (method, parameters)


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


@dataclass
class Side:
    """One side's figures in one round."""

    presses: int
    seconds: float
    times: list[float]
    calls: int
    request_bytes: int
    redis_trips: int | None  # None: not counted in this round
    cpu: float  # processor seconds of this process (bot, fake Bot API server, HTTP client)
    not_modified: int = 0  # edits refused as changing nothing
    driver: float = 0.0  # of `cpu`, the people's: finding a button and making its update

    @property
    def served(self) -> float:
        """Processor seconds of serving the presses: `cpu` without the people's own."""
        return self.cpu - self.driver

    @property
    def rate(self) -> float:
        return self.presses / self.seconds


def _request_bytes(calls: Iterable[tuple[str, JSON]]) -> int:
    return sum(len(orjson.dumps(params)) for _, params in calls)


async def ours(
    tg: FakeTelegram,
    url: str,
    presses: int,
    games: int,
    count: bool = False,
    profile: cProfile.Profile | None = None,
) -> tuple[Side, list[list[Calls]]]:
    """Our application: presses spread over `games` concurrent games. Also returns each
    presser's presses' Bot API calls, for the bare side to replay; with `count`, the Redis
    round trips too; with `profile`, the timed presses are profiled into it."""
    store = RedisStore.from_url(url, f"bench:{time.time_ns()}:")
    # Real table coalescing; Telegram's own flood limits lifted, as for the bare handler.
    h = await Harness(tg, store, replace(TEST_SETTINGS, table_interval=3.0)).start()
    timings: list[float] = []
    rng = random.Random(7)
    done = 0
    owner: dict[int, int] = {}  # chat id -> presser
    queries: dict[str, int] = {}  # callback query id -> presser
    starts: list[list[int]] = [[] for _ in range(games)]  # presser -> index in tg.calls a press
    chats: dict[int, list[str]] = {}  # a game's first player -> the game's chats

    async def new_game(presser: int) -> list[JSON]:
        group = -1_000_000_000_100 - len(owner)
        users = [
            tg.user(abs(group) % 10**8 * 10 + i, f"P{i}", language_code="en") for i in range(4)
        ]
        tg.group(group, "bench", creator=users[0])
        owner.update({group: presser, **{u["id"]: presser for u in users}})
        chats[users[0]["id"]] = [f"tg:{c}" for c in (group, *(u["id"] for u in users))]
        for u in users:
            await h.command(u["id"], u, "/start")
        await h.command(group, users[0], "/newgame")
        lobby = tg.last_message(group)
        assert lobby is not None
        for u in users[1:]:
            await h.press(u, lobby, next(d for d in lobby.callback_data if d.startswith("j")))
        # The lobby's edits are coalesced (one each `table_interval`): start from the one that
        # shows all four.
        while not all(u["first_name"] in lobby.text for u in users):
            await asyncio.sleep(0.05)
            lobby = tg.message(group, lobby.message_id)
        await h.press(users[0], lobby, next(d for d in lobby.callback_data if d.startswith("s")))
        return users

    driver = 0.0

    async def player(presser: int, sessions: list[list[JSON]]) -> None:
        nonlocal done, driver
        users = sessions.pop()
        while done < presses:
            looking = time.process_time()
            for u in users:
                message = hand_message(tg, u["id"])
                if message is not None and playable(message):
                    update = tg.callback_update(u, message, pick(message, rng))
                    driver += time.process_time() - looking
                    queries[update["callback_query"]["id"]] = presser
                    starts[presser].append(len(tg.calls))
                    began = time.perf_counter()
                    await h.bot.app.process_update(Update.de_json(update, h.bot.app.bot))
                    await h.bot.runner.delivery.settle(chats[users[0]["id"]])  # its messages sent
                    timings.append(time.perf_counter() - began)
                    done += 1
                    break
            else:  # nobody has a button left: the game is over
                users = sessions.pop()

    # Enough games opened beforehand that no player runs out (a game takes 60+ presses).
    per_player = presses // (games * 30) + 2
    opening = [[new_game(p) for _ in range(per_player)] for p in range(games)]
    opened = [list(await asyncio.gather(*player_games)) for player_games in opening]
    first = len(tg.calls)
    settled()  # as a server does once it is up (both sides)
    profiling = profile if profile is not None else contextlib.nullcontext()
    with Packets() if count else contextlib.nullcontext() as trips, profiling:
        started, cpu = time.perf_counter(), time.process_time()
        await asyncio.gather(*(player(p, sessions) for p, sessions in enumerate(opened)))
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    calls = tg.calls[first:]
    await h.stop()
    await store.close()
    # Each call belongs to the presser whose chat (or query) it names, and to that presser's
    # press that began last before it.
    recorded: list[list[Calls]] = [[[] for _ in starts[p]] for p in range(games)]
    for index, call in enumerate(calls, start=first):
        params = call.params
        presser = queries.get(str(params.get("callback_query_id")), -1)
        if presser < 0:
            presser = owner.get(int(params.get("chat_id", 0) or 0), -1)
        if presser < 0 or not starts[presser] or starts[presser][0] > index:
            continue
        k = sum(1 for at in starts[presser] if at <= index) - 1
        recorded[presser][k].append((call.method, dict(params)))
    flat = [c for p in recorded for press in p for c in press]
    refused = sum(1 for c in calls if "not modified" in (c.description or ""))
    side = Side(
        done,
        elapsed,
        timings,
        len(flat),
        _request_bytes(flat),
        len(trips.names) if trips is not None else None,
        cpu,
        refused,
        driver,
    )
    return side, recorded


def ptb_request() -> HTTPXRequest:
    """PTB's own connection, with Nagle's algorithm off as ours has it."""
    return HTTPXRequest(
        socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)],
        httpx_kwargs={"trust_env": False},
    )


async def bare(
    tg: FakeTelegram, recorded: list[list[Calls]], at_once: bool = False, connection: str = "ptb"
) -> Side:
    """A bare PTB handler: each press makes the calls our bot made for its press, in order
    (`at_once`: all together, as our bot sends the answer and each chat's messages), on PTB's
    own connection or (`connection` "ours") on our bot's."""
    made: Callable[[], BaseRequest] = request if connection == "ours" else ptb_request
    app = tg.application_builder().request(made()).get_updates_request(made()).build()
    timings: list[float] = []

    async def on_press(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        assert query is not None and query.data is not None
        presser, k = map(int, query.data.split(":"))
        calls = [_replay(context.bot, query.id, m, p) for m, p in recorded[presser][k]]
        if at_once:
            await asyncio.gather(*calls, return_exceptions=True)  # (refused as ours may be)
            return
        for call in calls:
            with contextlib.suppress(TelegramError):  # refused as ours may be
                await call

    app.add_handler(CallbackQueryHandler(on_press))
    await app.initialize()
    user = tg.user(5, "Bare", started=True)
    group = tg.group(-4242, "bare", creator=user)
    button = InlineKeyboardMarkup([[InlineKeyboardButton("x", callback_data="x")]])
    message = await app.bot.send_message(group["id"], "start", reply_markup=button)
    stored = tg.message(group["id"], message.message_id)

    driver = 0.0

    async def presser(p: int) -> None:
        nonlocal driver
        for k in range(len(recorded[p])):
            looking = time.process_time()
            update = tg.callback_update(user, stored, f"{p}:{k}", check=False)
            driver += time.process_time() - looking
            began = time.perf_counter()
            await app.process_update(Update.de_json(update, app.bot))
            timings.append(time.perf_counter() - began)

    count = sum(len(p) for p in recorded)
    flat = [c for p in recorded for press in p for c in press]
    settled()
    started, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(presser(p) for p in range(len(recorded))))
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    await app.shutdown()
    return Side(count, elapsed, timings, len(flat), _request_bytes(flat), 0, cpu, 0, driver)


async def _replay(bot: Bot, query: str, method: str, params: JSON) -> None:
    """One recorded call, made through PTB's own method for it, as a bare PTB bot would."""
    markup = params.get("reply_markup")
    keyboard = InlineKeyboardMarkup.de_json(markup, bot) if isinstance(markup, dict) else None
    if method == "answerCallbackQuery":
        await bot.answer_callback_query(
            query, params.get("text"), show_alert=params.get("show_alert"), url=params.get("url")
        )
    elif method == "sendMessage":
        await bot.send_message(
            params["chat_id"],
            params["text"],
            parse_mode=params.get("parse_mode"),
            reply_markup=keyboard,
        )
    elif method == "editMessageText":
        await bot.edit_message_text(
            params["text"],
            chat_id=params["chat_id"],
            message_id=params["message_id"],
            parse_mode=params.get("parse_mode"),
            reply_markup=keyboard,
        )
    else:
        await bot.do_api_request(method, api_kwargs=params)


def _line(name: str, sides: list[Side], trips: float = 0.0) -> str:
    rate = statistics.median(s.rate for s in sides)
    times = sorted(t for s in sides for t in s.times)
    p50 = statistics.median(times) * 1000
    p99 = times[max(0, int(len(times) * 0.99) - 1)] * 1000
    presses = sum(s.presses for s in sides)
    calls = sum(s.calls for s in sides) / presses
    sent = sum(s.request_bytes for s in sides) / presses
    refused = sum(s.not_modified for s in sides)
    cpu = sum(s.served for s in sides) / presses * 1000
    people = sum(s.driver for s in sides) / presses * 1000
    return (
        f"  {name:<30} {rate:7.0f} presses/s   p50 {p50:6.2f} ms   p99 {p99:6.2f} ms   "
        f"{cpu:.2f} ms processor time (+{people:.2f} the people's), "
        f"{calls:.2f} calls, {sent:,.0f} bytes, {trips:.2f} Redis round trips a press"
        + (f"; {refused} edits refused as not modified" if name.startswith("our") else "")
    )


async def main(args: argparse.Namespace) -> None:
    proc = None
    url = args.redis_url
    profile = cProfile.Profile() if args.profile else None
    if url is None:
        proc, url = start_redis()
    try:
        for games in sorted({1, args.games}):
            print(
                f"{args.presses} presses, {games} concurrent game(s), one process, "
                f"{args.rounds} alternating rounds (medians):"
            )
            mine: list[Side] = []
            theirs: list[Side] = []
            for _ in range(args.rounds):
                async with FakeTelegram.running() as tg:
                    side, recorded = await ours(tg, url, args.presses, games, profile=profile)
                    mine.append(side)
                    theirs.append(await bare(tg, recorded, args.bare_at_once, args.bare_request))
            async with FakeTelegram.running() as tg:
                counted, _ = await ours(tg, url, max(100, args.presses // 4), games, count=True)
            trips = (counted.redis_trips or 0) / counted.presses
            print(_line("our bot (Egonomy presses)", mine, trips))
            how = "at once" if args.bare_at_once else "in turn"
            how += ", our connection" if args.bare_request == "ours" else ", PTB's connection"
            print(_line(f"bare PTB (same calls, {how})", theirs))
            pairs = list(zip(mine, theirs, strict=True))
            ratio = statistics.median(m.rate / t.rate for m, t in pairs)
            cpu = statistics.median(
                (m.served / m.presses) / (t.served / t.presses) for m, t in pairs
            )
            load = "/".join(f"{x:.1f}" for x in os.getloadavg())
            print(
                f"  ours / bare: {ratio:.0%} of the presses/s, {cpu:.2f}x the processor time "
                f"a press (load average {load})"
            )
        if profile is not None:
            profile.dump_stats(args.profile)
            for key in ("tottime", "cumulative"):
                pstats.Stats(profile).sort_stats(key).print_stats(25)
    finally:
        if proc is not None:
            proc.terminate()


def run(
    argv: list[str] | None = None, entry: Callable[..., Coroutine[Any, Any, None]] = main
) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--presses", type=int, default=2000)
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--bare-in-turn",
        dest="bare_at_once",
        action="store_false",
        help="the bare handler makes each press's calls one after the other (default: all at "
        "once, as ours sends them)",
    )
    parser.add_argument(
        "--bare-request",
        choices=("ptb", "ours"),
        default="ours",
        help="the bare handler's Bot API connection: PTB's HTTPXRequest or our bot's",
    )
    parser.add_argument("--redis-url", default=None)
    parser.add_argument(
        "--profile",
        metavar="FILE",
        default=None,
        help="profile our side's timed presses (all rounds) with cProfile into FILE and print "
        "the top functions by own and by cumulative time (the timings are then inflated)",
    )
    asyncio.run(entry(parser.parse_args(argv)))


if __name__ == "__main__":
    run()
