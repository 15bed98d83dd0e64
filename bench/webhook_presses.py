"""Button presses per second with Telegram served by webhook, over real HTTP.

Starts the real server (`python -m chatbot web`: uvicorn, the Starlette app, the Telegram bot
in webhook mode) as its own process on a real Redis, pointed at the local fake Bot API server,
which runs in this process. This process plays Telegram: it posts webhook updates (with the
secret token) for M concurrent Egonomy games of 4 people, carries out the method a response
names (the press's answer), and presses, as each player, a real button of the player to move
(a step of the choice or a move). Prints presses/s, p50/p99 per press and Bot API calls a
press. A press is timed from posting its update until its HTTP response came back (the
answer) and until the player who acts next has a fresh hand with buttons (or the game ended):
every message the press owed that player has reached the Bot API. The games are opened
before the clock starts.

Usage: python bench/webhook_presses.py [--presses N] [--games M] [--redis-url URL]
(without --redis-url a throwaway redis-server is started on a free port).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx
from telegram_presses import start_redis  # beside this file

from chatbot.telegram.bot import SECRET_HEADER
from tests.e2e.fake_telegram import Call, FakeTelegram, StoredMessage
from tests.e2e.harness import pick, playable

REPO = Path(__file__).resolve().parent.parent
SECRET = "bench-secret"
JSON = dict[str, Any]
T = TypeVar("T")
SENDS = ("sendMessage", "editMessageText")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def bot_env(tg: FakeTelegram, redis_url: str, port: int, ops: int) -> dict[str, str]:
    """The environment of `python -m chatbot web` serving Telegram by webhook from the fake
    Bot API server (`ops`: the port of /healthz and /metrics), Telegram's flood limits
    lifted."""
    env = {
        **os.environ,
        "TELEGRAM_TOKEN": tg.token,
        "TELEGRAM_BASE_URL": tg.base_url.removesuffix("/bot"),
        "TELEGRAM_WEBHOOK_URL": "https://bench.example/telegram/webhook",
        "TELEGRAM_WEBHOOK_SECRET": SECRET,
        "REDIS_URL": redis_url,
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "METRICS_PORT": str(ops),
        "TABLE_INTERVAL": "3",
        "REMIND_AFTER": "3600",
        "TAKEOVER_AFTER": "3600",
        "GROUP_RATE": "100000",
        "OVERALL_RATE": "100000",
        "THINK_WORKERS": "0",
        "PYTHONPATH": str(REPO),
    }
    for name in ("LINE_CHANNEL_SECRET", "LINE_CHANNEL_ACCESS_TOKEN"):
        env.pop(name, None)
    return env


# Loaded by the bot's interpreter at start as its sitecustomize, for what `server` is asked
# to compare or count: the young threshold `settled()` sets replaced ({young}: 0 keeps it),
# and the garbage collector's work counted by generation into a JSON file at exit ({log}).
_SITE = """import atexit, gc, json, time

if {young}:
    _set_threshold = gc.set_threshold
    gc.set_threshold = lambda *_: _set_threshold({young}, 10, 10)
if {log!r}:
    _counts, _seconds, _longest, _began = [0, 0, 0], [0.0, 0.0, 0.0], [0.0], [0.0]

    def _watch(phase, info):
        if phase == "start":
            _began[0] = time.process_time()
            return
        spent = time.process_time() - _began[0]
        _counts[info["generation"]] += 1
        _seconds[info["generation"]] += spent
        _longest[0] = max(_longest[0], spent)

    def _write():
        with open({log!r}, "w") as out:
            json.dump({{"counts": _counts, "seconds": _seconds, "longest": _longest[0]}}, out)

    gc.callbacks.append(_watch)
    atexit.register(_write)
"""


def server(
    tg: FakeTelegram,
    redis_url: str,
    port: int,
    ops: int,
    prefix: Sequence[str] = (),
    env: dict[str, str] | None = None,
    without: str = "",
    gc_young: int = 0,
    gc_log: str = "",
) -> subprocess.Popen[bytes]:
    """`python -m chatbot web` as `bot_env` sets it up, and `env`; `prefix`: a command that
    runs it; `without`: modules (comma-separated) it cannot import, to compare without them;
    `gc_young`: the young-collection threshold it keeps once settled, in place of its own
    (`chatbot.bootstrap.YOUNG_COLLECTION`), to compare another; `gc_log`: a file where it
    writes at exit what its garbage collector did (`_SITE`)."""
    environment = bot_env(tg, redis_url, port, ops) | (env or {})
    if without or gc_young or gc_log:
        first = Path(tempfile.mkdtemp())  # put before the checkout on the bot's path
        for name in filter(None, without.split(",")):
            (first / f"{name}.py").write_text(f"raise ImportError('{name}: left out')\n")
        site = _SITE.format(young=gc_young, log=gc_log)
        (first / "sitecustomize.py").write_text(site)
        environment["PYTHONPATH"] = f"{first}{os.pathsep}{environment['PYTHONPATH']}"
    return subprocess.Popen(
        [*prefix, sys.executable, "-m", "chatbot", "web"],
        env=environment,
        cwd=REPO,
        stdout=subprocess.DEVNULL,  # its access log
        stderr=subprocess.DEVNULL,
    )


class WatchedTelegram(FakeTelegram):
    """The fake Bot API server, waking whoever waits for the bot's next call."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.next_call: asyncio.Future[None] | None = None

    async def _endpoint(self, request: Any) -> Any:
        response = await super()._endpoint(request)
        if self.next_call is not None and not self.next_call.done():
            self.next_call.set_result(None)
        return response

    async def call_made(self, timeout: float = 10.0) -> None:
        """Wait for the bot's next Bot API call (any)."""
        if self.next_call is None or self.next_call.done():
            self.next_call = asyncio.get_running_loop().create_future()
        await asyncio.wait_for(asyncio.shield(self.next_call), timeout)


class Telegram:
    """Telegram's side: delivers updates to the webhook and carries out a response's method."""

    def __init__(self, tg: WatchedTelegram, client: httpx.AsyncClient) -> None:
        self.tg, self.client = tg, client
        self.in_response = 0

    async def deliver(self, update: JSON) -> httpx.Response:
        response = await self.client.post(
            "/telegram/webhook", json=update, headers={SECRET_HEADER: SECRET}
        )
        if response.status_code != 200:
            raise SystemExit(f"the webhook answered {response.status_code}: {response.text}")
        call = self.tg.webhook_response(
            response.status_code, response.content, response.headers.get("content-type", "")
        )
        self.in_response += call is not None
        return response

    async def until(self, found: Callable[[], T | None], timeout: float = 60) -> T:
        """What `found` returns once it returns something (it is asked after each Bot API
        call the bot makes)."""
        deadline = time.monotonic() + timeout
        while True:
            result = found()
            if result is not None:
                return result
            if time.monotonic() > deadline:
                raise SystemExit("the bot did not answer in time")
            with contextlib.suppress(TimeoutError):
                await self.tg.call_made(max(0.01, deadline - time.monotonic()))

    async def quiet(self, for_seconds: float = 0.2) -> None:
        """Wait until the bot made no Bot API call for a while (its messages went out)."""
        seen, since = len(self.tg.calls), time.monotonic()
        while time.monotonic() - since < for_seconds:
            await asyncio.sleep(0.005)
            if len(self.tg.calls) != seen:
                seen, since = len(self.tg.calls), time.monotonic()


def after(tg: FakeTelegram, start: int, chats: set[int]) -> list[tuple[Call, StoredMessage]]:
    """Messages sent or edited to `chats` by the calls since `start`, as they are now."""
    found = []
    for call in tg.calls[start:]:
        if not call.ok or call.method not in SENDS or call.params.get("chat_id") not in chats:
            continue
        result = call.result if isinstance(call.result, dict) else {}
        message_id = int(result.get("message_id") or call.params["message_id"])
        found.append((call, tg.message(int(call.params["chat_id"]), message_id)))
    return found


async def open_game(telegram: Telegram, group: int) -> tuple[int, list[JSON], StoredMessage]:
    """Four people in `group` open and start an Egonomy table; (group, people, first hand)."""
    tg = telegram.tg
    people = [tg.user(abs(group) % 10**8 * 10 + i, f"P{i}", language_code="en") for i in range(4)]
    tg.group(group, "bench", creator=people[0], members=people[1:])
    for user in people:
        await telegram.deliver(tg.message_update(user["id"], user, "/start"))
    await telegram.deliver(tg.message_update(group, people[0], "/newgame egonomy"))

    def lobby() -> StoredMessage | None:
        found = tg.last_message(group)
        return found if found is not None and "j" in found.callback_data else None

    def full() -> StoredMessage | None:  # the lobby's edit showing everyone
        found = lobby()
        return found if found and all(u["first_name"] in found.text for u in people) else None

    table = await telegram.until(lobby)
    join = next(d for d in table.callback_data if d.startswith("j"))
    for user in people[1:]:
        await telegram.deliver(tg.callback_update(user, table, join))
    table = await telegram.until(full)  # table edits wait their interval
    start = len(tg.calls)
    begin = next(d for d in table.callback_data if d.startswith("s"))
    await telegram.deliver(tg.callback_update(people[0], table, begin))
    chats = {u["id"] for u in people}
    hand = await telegram.until(
        lambda: next((m for _, m in after(tg, start, chats) if playable(m)), None)
    )
    return group, people, hand


async def run(args: argparse.Namespace, url: str) -> None:
    tg = WatchedTelegram()
    await tg.start()
    try:
        port, ops = free_port(), free_port()
        proc = server(tg, url, port, ops)
        try:
            async with httpx.AsyncClient(
                base_url=f"http://127.0.0.1:{port}", timeout=30, trust_env=False
            ) as client:
                telegram = Telegram(tg, client)
                await until_up(telegram, proc, ops)
                for games in sorted({1, args.games}):
                    await measure(telegram, args.presses, games, proc.pid)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    finally:
        await tg.stop()


async def until_up(telegram: Telegram, proc: subprocess.Popen[bytes], ops: int) -> None:
    """Wait until the server answers /healthz (on its ops port) and has told Telegram its
    webhook."""
    tg, client = telegram.tg, telegram.client
    deadline = time.monotonic() + 60
    while True:
        try:
            health = await client.get(f"http://127.0.0.1:{ops}/healthz")
            if health.status_code == 200 and tg.webhook_url:
                break
        except httpx.TransportError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("the server did not start")
        await asyncio.sleep(0.1)


GROUPS = iter(range(-1_000_000_000_100, -1_000_000_000_000_000, -1))


def cpu_seconds(pid: int) -> float:
    """The processor time a process used so far (user + system; Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure(telegram: Telegram, count: int, games: int, server_pid: int) -> None:
    """`count` presses spread over `games` concurrent games (`server_pid`: its processor
    time is counted too, a figure that other work on the machine moves less)."""
    tg = telegram.tg
    per_player = count // (games * 40) + 2  # a game takes 60+ presses
    opening = [open_game(telegram, next(GROUPS)) for _ in range(per_player * games)]
    ready = await asyncio.gather(*opening)  # at once: each waits for its lobby's edit
    opened = [ready[i::games] for i in range(games)]
    rng = random.Random(7)
    answers: list[float] = []
    presses: list[float] = []
    refused = 0
    done = 0

    async def player(games: list[tuple[int, list[JSON], StoredMessage]]) -> None:
        nonlocal done, refused
        group, people, hand = games.pop()
        by_id = {u["id"]: u for u in people}
        chats = {*by_id, group}
        while done < count:
            start = len(tg.calls)
            update = tg.callback_update(by_id[hand.chat_id], hand, pick(hand, rng))
            began = time.perf_counter()
            response = await telegram.deliver(update)
            answers.append(time.perf_counter() - began)
            done += 1
            if b"no longer" in response.content:
                refused += 1
            while True:  # the next hand with buttons, or the game's end
                sent = after(tg, start, chats)
                fresh = [m for c, m in sent if m.chat_id != group and playable(m)]
                over = any(m.chat_id == group and "g|" in str(m.callback_data) for _, m in sent)
                if fresh or over:
                    break
                await tg.call_made()
            presses.append(time.perf_counter() - began)
            if fresh:
                hand = fresh[-1]
            elif games:
                group, people, hand = games.pop()
                by_id = {u["id"]: u for u in people}
                chats = {*by_id, group}
            else:
                return

    calls_before, answered_before = len(tg.calls), telegram.in_response
    cpu = cpu_seconds(server_pid)
    started = time.perf_counter()
    await asyncio.gather(*(player(g) for g in opened))
    elapsed = time.perf_counter() - started
    cpu = cpu_seconds(server_pid) - cpu
    await telegram.quiet()
    made = [c for c in tg.calls[calls_before:] if not c.in_response]
    in_response = telegram.in_response - answered_before
    print(f"{done} presses, {games} concurrent game(s), Telegram by webhook over HTTP:")
    per_press = cpu / done * 1000
    print(f"  presses/s {done / elapsed:8.0f}   server processor time a press {per_press:.2f} ms")
    for name, times in (("answered (HTTP response)", answers), ("next hand ready", presses)):
        times.sort()
        p50 = statistics.median(times) * 1000
        p99 = times[max(0, int(len(times) * 0.99) - 1)] * 1000
        print(f"  {name:<26} p50 {p50:6.2f} ms   p99 {p99:6.2f} ms")
    print(
        f"  Bot API calls a press: {len(made) / done:.2f}"
        f" (+ {in_response / done:.2f} answers carried in the webhook's response)"
    )
    if refused:
        print(f"  presses refused as outdated: {refused}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--presses", type=int, default=2000)
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--redis-url", default=None)
    args = parser.parse_args(argv)
    proc = None
    url = args.redis_url
    if url is None:
        proc, url = start_redis()
    try:
        asyncio.run(run(args, url))
    finally:
        if proc is not None:
            proc.terminate()


if __name__ == "__main__":
    main()
