"""How many groups one bot process serves: N groups of 4 people at human pace.

One bot process (`python -m chatbot web`: uvicorn, the Starlette app, the Telegram bot in
webhook mode) on a real Redis (a throwaway redis-server), pointed at the local fake Bot API
server. This process is Telegram: the fake Bot API and the people who press, in one event
loop; the bot, Redis and this process each have their own. Every group is 4 people playing
Egonomy, and each group presses one button every `--pace` seconds (2: about as fast as people
read and tap), the player to move pressing a real button of their hand (a step of a choice or
a move); a finished game is opened again from its "again" button. Groups are added step by
step (`--groups 100,200,...`, every group of a step opened before its clock starts); each step
is measured for `--seconds` and prints: the answer (the webhook's HTTP response, which carries
the press's answer) p50/p99, presses refused as outdated or answered "storage unavailable",
presses that found no fresh hand (the bot was late), the bot's processor time a press, its
RSS, Redis bytes a group (MEMORY USAGE of every key, divided by the groups), `/metrics`
latency (scraped once a second) and this process's own processor use (when it nears a
whole core, the figures are this side's, not the bot's). Then the knee: the largest N whose
answer p99 is under 250 ms. Loopback only; stops by itself (a step that cannot open its groups
in `--open-timeout` seconds, or whose presses fall under 80% of the pace, ends the run).

Usage: python bench/capacity.py [--groups 100,200,300,400,500,600,700,800] [--seconds 20]
[--pace 2] [--profile FILE] [--gc-young N] [--gc-times] (--profile runs the bot under py-spy
and writes its flame graph; --gc-young N has the bot collect its youngest objects every N
allocations instead of its own 20,000; --gc-times prints what its garbage collector did)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp
import redis.asyncio as aredis
from telegram_presses import start_redis  # beside this file
from webhook_presses import SECRET, cpu_seconds, free_port, server

from chatbot.telegram.bot import SECRET_HEADER
from tests.e2e.fake_telegram import FakeTelegram, StoredMessage
from tests.e2e.harness import pick, playable

JSON = dict[str, Any]
SENDS = ("sendMessage", "editMessageText")
KNEE_P99 = 0.250  # seconds
OPS = ""  # the bot's /healthz and /metrics server (METRICS_PORT), set when it starts
STORAGE = b"game storage"  # in the apology when Redis cannot be reached
OUTDATED = b"no longer"


@dataclass
class Group:
    """One group chat and its four people, as the driver sees them."""

    id: int
    people: list[JSON]
    lobby: StoredMessage | None = None
    hand: StoredMessage | None = None  # the newest message with buttons to play
    fresh: bool = False  # `hand` changed since the last press
    over: StoredMessage | None = None  # the final results, with the "again" button
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    said: bytes = b""  # the webhook's response to the last join

    def state(self) -> str:
        """What the driver knows of the group (for a failure's message)."""
        lobby = self.lobby
        shown = f"{lobby.text!r} {lobby.callback_data}" if lobby else "no lobby"
        return (
            f"{shown}; hand {self.hand is not None}, over {self.over is not None}; "
            f"the last press's answer {self.said!r}"
        )

    @property
    def full(self) -> bool:
        """The lobby shows all four people."""
        lobby = self.lobby
        return lobby is not None and all(p["first_name"] in lobby.text for p in self.people)


class World(FakeTelegram):
    """The fake Bot API, telling each group what the bot sent to it and its people."""

    def __init__(self) -> None:
        super().__init__()
        self.groups: dict[int, Group] = {}  # by group chat id and by each person's id
        self._seen = 0

    async def start(self) -> None:  # the fake on uvicorn's fast parser: this side is busy
        from tests.local_server import LocalServer

        self._local = LocalServer(self.asgi_app(), "FakeTelegram", http="httptools")
        self.port = await self._local.start()

    async def _endpoint(self, request: Any) -> Any:
        response = await super()._endpoint(request)
        self.scan()
        return response

    def scan(self) -> None:
        """Tell the groups about the calls made since the last scan, and forget the calls."""
        for call in self.calls[self._seen :]:
            chat = call.params.get("chat_id")
            if not call.ok or call.method not in SENDS or not isinstance(chat, int):
                continue
            group = self.groups.get(chat)
            if group is None:
                continue
            result = call.result if isinstance(call.result, dict) else {}
            message = self.message(chat, int(result.get("message_id") or call.params["message_id"]))
            data = message.callback_data
            if chat < 0 and any(d.startswith("j") for d in data):
                group.lobby = message
            elif chat < 0 and any(d.startswith("g|") for d in data):
                group.over = message
            elif chat > 0 and playable(message):
                group.hand, group.fresh = message, True
            group.changed.set()
        del self.calls[:]
        self._seen = 0


@dataclass
class Step:
    """What one step measured."""

    answers: list[float] = field(default_factory=list)
    outdated: int = 0
    unavailable: int = 0
    late: int = 0
    metrics: list[float] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)  # presses whose request failed


class Driver:
    """The people of every group, pressing at their pace."""

    def __init__(self, world: World, session: aiohttp.ClientSession, pace: float) -> None:
        self.world, self.session, self.pace = world, session, pace
        self.step: Step | None = None  # presses count only while a step is measured
        self.stopping = False
        self.rng = random.Random(25)
        self.next_group = -1_000_000_000_100
        self.starting = asyncio.Semaphore(4)
        self.opening = asyncio.Semaphore(16)

    async def deliver(self, update: JSON) -> bytes:
        """Post the update to the bot's webhook; carry out the method its response names."""
        async with self.session.post(
            "/telegram/webhook", json=update, headers={SECRET_HEADER: SECRET}
        ) as response:
            body = await response.read()
            if response.status != 200:
                raise SystemExit(f"the webhook answered {response.status}: {body!r}")
            kind = response.headers.get("content-type", "")
        self.world.webhook_response(200, body, kind)
        self.world.scan()
        return body

    async def press(self, user: JSON, message: StoredMessage, data: str) -> bytes:
        update = self.world.callback_update(user, message, data)
        began = time.perf_counter()
        body = await self.deliver(update)
        step = self.step
        if step is not None:
            step.answers.append(time.perf_counter() - began)
            step.outdated += OUTDATED in body
            step.unavailable += STORAGE in body
        return body

    async def until(
        self, group: Group, ready: Any, wait: float, deadline: float | None = None
    ) -> None:
        """Wait until `ready()` or `wait` seconds passed; past `deadline` TimeoutError."""
        end = time.monotonic() + wait
        while not ready():
            group.changed.clear()
            left = end - time.monotonic()
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"group {group.id} waited in vain: {group.state()}")
            if left <= 0:
                if deadline is None:
                    raise TimeoutError(f"group {group.id} waited in vain: {group.state()}")
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(group.changed.wait(), left)

    async def new_group(self) -> Group:
        """A group of four who have each started the bot in private."""
        tg, gid = self.world, self.next_group
        self.next_group -= 1
        people = [tg.user(-gid % 10**9 * 10 + i, f"P{i}", language_code="en") for i in range(4)]
        tg.group(gid, "capacity", creator=people[0], members=people[1:])
        group = Group(gid, people)
        tg.groups[gid] = group
        for user in people:
            tg.groups[user["id"]] = group
        async with self.starting:  # a few groups at a time: the others keep their pace
            await asyncio.gather(
                *(self.deliver(tg.message_update(u["id"], u, "/start")) for u in people)
            )
        return group

    async def open_table(self, group: Group, timeout: float) -> None:
        """Open a table (from the last game's "again" button, else /newgame), all four join,
        the first starts it; returns when the first hand is there."""
        tg, first = self.world, group.people[0]
        over, group.over, group.lobby, group.hand, group.fresh = group.over, None, None, None, False
        if over is not None:
            again = next(d for d in over.callback_data if d.startswith("g|"))
            await self.press(first, over, again)
        else:
            await self.deliver(tg.message_update(group.id, first, "/newgame egonomy"))
        deadline = time.monotonic() + timeout
        await self.until(group, lambda: group.lobby is not None, timeout)
        joined: set[int] = set()
        while not group.full:  # a press on a lobby edited since is refused: press again
            lobby = group.lobby
            assert lobby is not None
            join = next(d for d in lobby.callback_data if d.startswith("j"))
            for user in group.people:
                if user["id"] in joined:
                    continue
                group.said = await self.press(user, lobby, join)
                if OUTDATED not in group.said:
                    joined.add(user["id"])
            await self.until(group, lambda: group.full, 4.0, deadline)
        while group.hand is None:
            lobby = group.lobby
            assert lobby is not None
            begin = next((d for d in lobby.callback_data if d.startswith("s")), None)
            if begin is not None:  # else the game began: its first hand is on its way
                await self.press(first, lobby, begin)
            await self.until(group, lambda: group.hand is not None, 4.0, deadline)

    async def play(self, group: Group, opened: asyncio.Future[None], timeout: float) -> None:
        """Open the group's table, then press once every `pace` seconds until stopped."""
        try:
            async with self.opening:  # a few tables at a time (a burst is not human pace)
                await self.open_table(group, timeout)
        except BaseException as exc:
            opened.set_exception(exc)
            return
        opened.set_result(None)
        loop = asyncio.get_running_loop()
        at = loop.time() + self.rng.uniform(0, self.pace)
        waited = 0
        while not self.stopping:
            await asyncio.sleep(max(0.0, at - loop.time()))
            at += self.pace
            if group.over is not None:
                with contextlib.suppress(TimeoutError, aiohttp.ClientError):
                    await self.open_table(group, timeout)
                continue
            hand = group.hand
            if hand is None or (not group.fresh and waited < 3):
                waited += 1  # the bot has not shown the next hand yet
                if self.step is not None:
                    self.step.late += 1
                continue
            group.fresh, waited = False, 0
            person = next(p for p in group.people if p["id"] == hand.chat_id)
            try:
                body = await self.press(person, hand, pick(hand, self.rng))
            except ValueError:  # a button gone since (the hand was edited)
                continue
            except (aiohttp.ClientError, TimeoutError) as exc:
                if self.step is not None:
                    self.step.failed.append(repr(exc))
                continue
            if OUTDATED in body:
                group.fresh = True  # press what the hand shows now


_LOCK = re.compile(r"-[0-9a-f]{16}$")


async def redis_bytes(url: str) -> tuple[int, dict[str, int]]:
    """MEMORY USAGE of every key, summed (SCAN, pipelined), and by kind of key."""
    client = aredis.Redis.from_url(url)
    try:
        kinds: dict[str, int] = {}
        keys = [k async for k in client.scan_iter(count=1000)]
        for i in range(0, len(keys), 500):
            async with client.pipeline(transaction=False) as pipe:
                for key in keys[i : i + 500]:
                    pipe.memory_usage(key, samples=0)
                for key, used in zip(keys[i : i + 500], await pipe.execute(), strict=True):
                    # a game's record has a key of its own (rec-<its deal's lock>): one kind
                    kind = _LOCK.sub("", key.decode().split(":")[1])
                    kinds[kind] = kinds.get(kind, 0) + (used or 0)
        return sum(kinds.values()), kinds
    finally:
        await client.aclose()


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def quantile(values: list[float], q: float) -> float:
    """The `q` quantile (nearest rank) of `values` (0 for none)."""
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[max(0, min(len(ordered) - 1, int(len(ordered) * q + 0.5) - 1))]


async def scrape(session: aiohttp.ClientSession, step: Step, seconds: float) -> None:
    """GET /metrics once a second for `seconds`, timing each."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        began = time.perf_counter()
        async with session.get(f"{OPS}/metrics") as response:
            await response.read()
        step.metrics.append(time.perf_counter() - began)
        await asyncio.sleep(1.0)


async def until_up(session: aiohttp.ClientSession, world: World, proc: Any) -> None:
    deadline = time.monotonic() + 60
    while True:
        with contextlib.suppress(aiohttp.ClientError):
            async with session.get(f"{OPS}/healthz") as response:
                if response.status == 200 and world.webhook_url:
                    return
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("the bot did not start")
        await asyncio.sleep(0.1)


async def progress(groups: list[Group]) -> None:
    """While groups open: every 10 s, how many wait for what (on stderr)."""
    while True:
        await asyncio.sleep(10)
        lobby = sum(g.lobby is None for g in groups)
        full = sum(g.lobby is not None and not g.full and g.hand is None for g in groups)
        hand = sum(g.full and g.hand is None for g in groups)
        print(
            f"  opening: {lobby} wait for a lobby, {full} for its joins, {hand} for a hand",
            file=sys.stderr,
            flush=True,
        )


HEADER = (
    f"{'groups':>6} {'presses/s':>9} {'p50 ms':>7} {'p99 ms':>7} {'outdated':>8} "
    f"{'no store':>8} {'late':>5} {'cpu ms':>6} {'RSS MB':>6} {'Redis B':>7} "
    f"{'metrics ms':>10} {'driver':>6}  load"
)


async def measure(
    args: argparse.Namespace, driver: Driver, session: aiohttp.ClientSession, pid: int, url: str
) -> list[tuple[int, float]]:
    groups: list[Group] = []
    tasks: list[asyncio.Task[None]] = []
    knee: list[tuple[int, float]] = []
    print(HEADER, flush=True)
    for target in args.groups:
        fresh = await asyncio.gather(*(driver.new_group() for _ in range(target - len(groups))))
        opened = []
        for group in fresh:
            groups.append(group)
            done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            tasks.append(asyncio.create_task(driver.play(group, done, args.open_timeout)))
            opened.append(done)
        watch = asyncio.create_task(progress(groups))
        try:
            await asyncio.gather(*opened)
        except (TimeoutError, aiohttp.ClientError) as exc:
            print(f"{target:>6} could not open its groups ({exc!r}): stopping", flush=True)
            break
        finally:
            watch.cancel()
        await asyncio.sleep(args.warmup)
        step = driver.step = Step()
        cpu, own = cpu_seconds(pid), time.process_time()
        began = time.perf_counter()
        await scrape(session, step, args.seconds)
        elapsed = time.perf_counter() - began
        cpu, own = cpu_seconds(pid) - cpu, time.process_time() - own
        driver.step = None
        kept, kinds = await redis_bytes(url)
        n = len(step.answers)
        p99 = quantile(step.answers, 0.99)
        knee.append((target, p99))
        load = "/".join(f"{x:.1f}" for x in os.getloadavg())
        print(
            f"{target:>6} {n / elapsed:>9.0f} {statistics.median(step.answers) * 1000:>7.1f} "
            f"{p99 * 1000:>7.0f} {step.outdated:>8} {step.unavailable:>8} {step.late:>5} "
            f"{cpu / max(n, 1) * 1000:>6.2f} {rss_mb(pid):>6.0f} {kept / target:>7.0f} "
            f"{statistics.median(step.metrics) * 1000:>5.1f}/{max(step.metrics) * 1000:<4.0f} "
            f"{own / elapsed:>6.0%}  {load}",
            flush=True,
        )
        if step.failed:
            print(f"    {len(step.failed)} presses failed: {step.failed[:3]}", flush=True)
        if args.breakdown:
            parts = sorted(kinds.items(), key=lambda kv: -kv[1])
            print(
                "    Redis bytes a group by key: "
                + ", ".join(f"{k} {v / target:.0f}" for k, v in parts),
                flush=True,
            )
        if n / elapsed < 0.8 * target / args.pace and target != args.groups[-1]:
            print("the bot no longer keeps the pace (presses/s under 80% of it): stopping")
            break
    driver.stopping = True
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return knee


async def run(args: argparse.Namespace, url: str) -> None:
    world = World()
    await world.start()
    global OPS
    port, ops = free_port(), free_port()
    OPS = f"http://127.0.0.1:{ops}"  # /healthz and /metrics: the bot's ops port
    prefix: list[str] = []
    gc_log = os.path.join(tempfile.mkdtemp(), "gc.json") if args.gc_times else ""
    if args.profile:
        spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
        kind = "raw" if args.profile.endswith(".txt") else "flamegraph"  # raw: collapsed stacks
        prefix = [spy, "record", "--nonblocking", "--rate", "200", "--format", kind]
        prefix += ["-o", args.profile, "--"]
    proc = server(
        world,
        url,
        port,
        ops,
        prefix,
        env=dict(args.env),
        without=args.without,
        gc_young=args.gc_young,
        gc_log=gc_log,
    )
    pid = proc.pid
    used = 0.0  # the bot's processor time at the end
    try:
        # Idle connections are dropped before uvicorn's 5 s keep-alive ends them: a POST sent
        # on a connection as the server closes it is lost (it is never retried).
        connector = aiohttp.TCPConnector(limit=0, keepalive_timeout=3.0)
        async with aiohttp.ClientSession(
            f"http://127.0.0.1:{port}",
            connector=connector,
            trust_env=False,
            timeout=aiohttp.ClientTimeout(total=30),
        ) as session:
            await until_up(session, world, proc)
            pid = bot_pid(proc.pid) if args.profile else proc.pid
            driver = Driver(world, session, args.pace)
            knee = await measure(args, driver, session, pid, url)
        fits = [n for n, p99 in knee if p99 < KNEE_P99]
        print(
            f"knee (largest N with answer p99 < {KNEE_P99 * 1000:.0f} ms): "
            f"{f'{max(fits)} groups' if fits else 'none of the steps'}",
            flush=True,
        )
    finally:
        with contextlib.suppress(OSError):
            used = cpu_seconds(pid)
        os.kill(pid, signal.SIGTERM)  # under py-spy: the bot, then py-spy writes its graph
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.kill(pid, signal.SIGKILL)
            proc.wait(timeout=30)
        await world.stop()
    if gc_log:
        collector(gc_log, used)


def collector(log: str, used: float) -> None:
    """Print what the bot's garbage collector did over the run (`--gc-times`), against the
    bot's processor time `used`."""
    try:
        done = json.loads(Path(log).read_text())
    except (OSError, ValueError):
        print("the collector's figures were not written (the bot did not exit cleanly)")
        return
    spent = sum(done["seconds"])
    young, middle, full = done["counts"]
    print(
        f"the collector: {spent:.2f} s of processor time over the run "
        f"({spent / used:.1%} of the bot's {used:.1f} s): {young:,} young, {middle:,} middle and "
        f"{full:,} full collections, the longest {done['longest'] * 1000:.0f} ms",
        flush=True,
    )


def bot_pid(spy: int) -> int:
    """The bot's process id under py-spy (its child)."""
    for _ in range(100):
        children = Path(f"/proc/{spy}/task/{spy}/children").read_text().split()
        if children:
            return int(children[0])
        time.sleep(0.1)
    raise SystemExit("py-spy started no bot")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--groups",
        type=lambda s: sorted(int(x) for x in s.split(",")),
        default=[100, 200, 300, 400, 500, 600, 700, 800],
    )
    parser.add_argument("--seconds", type=float, default=20.0, help="each step's measurement")
    parser.add_argument("--warmup", type=float, default=4.0, help="seconds before a step's clock")
    parser.add_argument("--pace", type=float, default=2.0, help="seconds between a group's presses")
    parser.add_argument("--open-timeout", type=float, default=120.0, help="a table's")
    parser.add_argument("--breakdown", action="store_true", help="Redis bytes by kind of key")
    parser.add_argument(
        "--profile",
        default=None,
        help="run the bot under py-spy: a flame graph (.svg) or collapsed stacks (.txt)",
    )
    parser.add_argument(
        "--env",
        action="append",
        default=[],
        type=lambda s: tuple(s.split("=", 1)),
        help="NAME=VALUE in the bot's environment (e.g. ACCESS_LOG=1, REDIS_POOL_SIZE=16)",
    )
    parser.add_argument(
        "--without", default="", help="modules the bot cannot import, e.g. uvloop,httptools"
    )
    parser.add_argument(
        "--gc-young",
        type=int,
        default=0,
        help="the bot collects its youngest objects every this many allocations once settled "
        "(its own: 20000; Python's default: 700)",
    )
    parser.add_argument(
        "--gc-times",
        action="store_true",
        help="the bot counts its garbage collections and their processor time, printed at the end",
    )
    args = parser.parse_args(argv)
    redis_proc, url = start_redis()
    try:
        asyncio.run(run(args, url))
    finally:
        redis_proc.terminate()


if __name__ == "__main__":
    main()
