"""Games at human pace within Telegram's real budgets: what a group sees and waits for.

Plays whole games against the local fake Bot API at the default limits (GROUP_RATE 20 a
minute, OVERALL_RATE 30 a second, TABLE_INTERVAL 3 s, BOT_DELAY 1.5 s), with the fake refusing
a group's 21st message in a minute (429) as Telegram does, on a real redis-server. Simulated
people press at human pace: a move 1–4 s after their hand shows it (a step of a choice in
0.3–0.8 s); in EGO everyone picks within 5 s of a new question. In every group a member who
is not playing spams /status every second, and someone who is not the host sends /stop now and
then (a membership check). Each game runs in a group of its own, all at once.

With `--page` the bot has a game page (a Mini App, `TELEGRAM_WEBAPP_NAME`): people read the
game and move on the page's API (`/webapp/api/state`, `/webapp/api/move`, with init data
signed as Telegram signs it), 1–4 s after it offers them a move (EGO: within 5 s), instead of
pressing the buttons of their private hands.

Prints per game: group API calls a move (a turn for EGO), private-chat messages a move and all
Bot API messages a move (sent, edited; the spammer's replies left out), the press answer
latency p50/p99/max, the time from a move to the group's next message or edit p50/p90 (EGO:
from a turn's last pick to its reveal), the share of presses refused as outdated, 429s, and the
replies the spammer got.

    .venv/bin/python bench/telegram_pace.py              # every game, whole games
    .venv/bin/python bench/telegram_pace.py --turns 8    # EGO: stop after 8 turns
    .venv/bin/python bench/telegram_pace.py --processes 3  # three bots on one Redis, one token:
                                                           # each update goes to the next one
    .venv/bin/python bench/telegram_pace.py --page       # moves on the game page
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx
from telegram import Update

from chatbot.bootstrap import telegram_bot
from chatbot.core import buttons as b
from chatbot.core.session import Session
from chatbot.games import registry
from chatbot.settings import Settings, TelegramSettings
from chatbot.store.redis import RedisStore
from chatbot.telegram.bot import TelegramBot
from chatbot.web import app
from engine.core import restore
from tests.e2e.fake_telegram import FakeTelegram, StoredMessage
from tests.e2e.harness import hand_message, pick, request
from tests.e2e.page_site import init_data

JSON = dict[str, Any]
GAMES = registry()
OUTDATED = ("That button is outdated", "That turn is over")  # a press refused as stale
MESSAGE_CALLS = ("sendMessage", "editMessageText", "editMessageReplyMarkup")


@dataclass
class Figures:
    """What one group's game measured."""

    name: str
    answers: list[float] = field(default_factory=list)  # seconds a press waited for its answer
    moves: list[float] = field(default_factory=list)  # when a person's move was answered
    reveals: list[float] = field(default_factory=list)  # EGO: seconds from last pick to reveal
    presses: int = 0
    outdated: int = 0
    spam: int = 0  # commands the spammer sent
    spam_replies: int = 0
    turns: int = 0
    done_moves: int = 0
    private: int = 0  # messages sent or edited in the players' private chats during the game
    seen: list[float] = field(default_factory=list)  # seconds from a move to the group's next


def quantile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Table:
    """One group at play: its people, the bot, and what they measured."""

    def __init__(
        self, bots: list[TelegramBot], tg: FakeTelegram, group: int, name: str, game: str
    ) -> None:
        self.bots, self.tg, self.group, self.chat = bots, tg, group, f"tg:{group}"
        self.bot = bots[0]
        self.fed = 0
        self.game = game
        self.figures = Figures(name)
        self.over = False

    async def feed(self, update: JSON) -> None:
        """Deliver an update as Telegram's webhook would: to the next process in turn."""
        bot = self.bots[self.fed % len(self.bots)]
        self.fed += 1
        await bot.app.process_update(Update.de_json(update, bot.app.bot))

    async def press(self, user: JSON, message: StoredMessage, data: str) -> str:
        """Press a button as a person would; the answer's text."""
        update = self.tg.callback_update(user, message, data, check=False)
        began = time.monotonic()
        await self.feed(update)
        self.figures.answers.append(time.monotonic() - began)
        self.figures.presses += 1
        answer = self.tg.callback_answer(update["callback_query"]["id"]) or {}
        text = str(answer.get("text") or "")
        if text.startswith(OUTDATED):
            self.figures.outdated += 1
        return text

    async def session(self) -> Session | None:
        session, _ = await self.bot.sessions.load(self.chat)
        return session

    async def open(self, game: str, humans: list[JSON], computers: int) -> None:
        host = humans[0]
        self.tg.group(self.group, f"{game} night", creator=host)
        self.tg.flood_limit(self.group, 20, retry_after=5)  # Telegram's 20 a minute in a group
        for user in humans:
            await self.feed(self.tg.message_update(user["id"], user, "/start"))
        await self.feed(self.tg.message_update(self.group, host, f"/newgame {game}"))
        lobby = await self.wait_for(lambda: self._lobby())
        for user in humans[1:]:
            await self.feed(self.tg.callback_update(user, lobby, _button(lobby, b.JOIN)))
            lobby = await self.wait_for(lambda: self._lobby(len(humans)))
        for _ in range(computers):
            await self.feed(self.tg.callback_update(host, lobby, _button(lobby, b.ADD_BOT)))
            await asyncio.sleep(0.2)
            lobby = self.tg.message(self.group, lobby.message_id)
        shown = lobby.message_id
        names = [u["first_name"] for u in humans]
        await self.wait_for(
            lambda: all(n in self.tg.message(self.group, shown).text for n in names)
        )
        await asyncio.sleep(computers * 0.5 + 3.5)  # the host sees the lobby as it is now
        lobby = self.tg.message(self.group, shown)
        await self.feed(self.tg.callback_update(host, lobby, _button(lobby, b.START)))
        await self.wait_for(self._playing)

    def _lobby(self, players: int = 1) -> StoredMessage | None:
        for message in reversed(self.tg.sent_to(self.group)):
            if any(d == b.JOIN for d in message.callback_data):
                return message if message.text.count("\n") >= players else None
        return None

    async def _playing(self) -> bool:
        session = await self.session()
        return session is not None and session.phase == "playing"

    async def wait_for(self, check: Callable[[], Any], limit: float = 120.0) -> Any:
        end = time.monotonic() + limit
        while time.monotonic() < end:
            got = check()
            if asyncio.iscoroutine(got):
                got = await got
            if got:
                return got
            await asyncio.sleep(0.1)
        raise TimeoutError(f"{self.figures.name}: waited {limit} s")

    async def hands(self, user: JSON, rng: random.Random) -> None:
        """A person playing from their private hand until the game ends."""
        last = None
        while not self.over:
            message = hand_message(self.tg, user["id"])
            shows = None if message is None else (message.message_id, message.raw)
            if message is None or shows == last:
                await asyncio.sleep(0.1)
                continue
            data = pick(message, rng)
            move = data.startswith(b.MOVE)
            await asyncio.sleep(rng.uniform(1.0, 4.0) if move else rng.uniform(0.3, 0.8))
            message = hand_message(self.tg, user["id"])
            if message is None or self.over:
                continue
            if (message.message_id, message.raw) != shows:
                continue  # it changed meanwhile: look again
            text = await self.press(user, message, data)
            last = shows
            if move and not text.startswith(OUTDATED):
                self.figures.moves.append(time.monotonic())

    async def on_page(self, user: JSON, rng: random.Random, page: httpx.AsyncClient) -> None:
        """A person playing on the game page until the game ends: a move 1–4 s after the
        page offers one (EGO: 0.5–5 s); the page reads the game again when told (here: a
        look every half second, in process)."""
        token = b.hand_payload(self.chat)
        seen = None
        while not self.over:
            auth = {"Authorization": "tma " + init_data(self.tg.token, user, token)}
            got = await page.get("/webapp/api/state", params={"game": token}, headers=auth)
            shown = got.json()
            if not shown.get("choices") or shown.get("version") == seen:
                await asyncio.sleep(0.5)
                continue
            seen = shown["version"]
            private = GAMES[self.game].private_hands
            await asyncio.sleep(rng.uniform(1.0, 4.0) if private else rng.uniform(0.5, 5.0))
            if self.over:
                return
            act = rng.choice(shown["choices"])["act"]
            body = {"game": token, "act": act, "stamp": shown["stamp"]}
            began = time.monotonic()
            moved = await page.post("/webapp/api/move", json=body, headers=auth)
            self.figures.answers.append(time.monotonic() - began)
            self.figures.presses += 1
            said = str(moved.json().get("said") or "")
            if said.startswith(OUTDATED):
                self.figures.outdated += 1
            if moved.json().get("moved"):
                self.figures.moves.append(time.monotonic())

    async def picks(self, seat_of: dict[int, JSON], rng: random.Random, turns: int) -> None:
        """EGO's people: each picks within 5 s of a new question on the group's table."""
        epoch, picked_at = None, 0.0
        while not self.over:
            table = self._current_table()
            if table is None or _epoch(table) == epoch:
                await asyncio.sleep(0.05)
                continue
            if epoch is not None and picked_at:
                reveal = await self._reveal_after(picked_at)
                if reveal is not None:
                    self.figures.reveals.append(reveal)
                self.figures.turns += 1
                if self.figures.turns >= turns:
                    return
            epoch = _epoch(table)
            session = await self.session()
            if session is None or session.phase != "playing":
                return
            game = GAMES[session.game].game
            state = restore(game, session.state)
            people = [(s, u) for s, u in seat_of.items() if game.legal_actions(state, s)]
            times = await asyncio.gather(
                *(self._pick(s, u, game, state, epoch, rng) for s, u in people)
            )
            picked_at = max((t for t in times if t is not None), default=0.0)

    async def _pick(
        self, seat: int, user: JSON, game: Any, state: Any, epoch: int | None, rng: random.Random
    ) -> float | None:
        await asyncio.sleep(rng.uniform(0.5, 5.0))
        codes = [game.encode_action(a) for a in game.legal_actions(state, seat)]
        table = self._current_table()  # what the person sees now
        if table is None:
            return None
        offered = [d for d in table.callback_data if d.startswith(b.GROUP_MOVE)]
        whole = [d for d in offered if (c := d.rsplit("|", 1)[-1]) in codes and c[:1].isdigit()]
        wanted = [d for d in whole if "b" in d] or whole  # an answer with a bet, or an answer
        if not wanted:
            return None
        text = await self.press(user, table, rng.choice(wanted))
        return None if text.startswith(OUTDATED) else time.monotonic()

    def _current_table(self) -> StoredMessage | None:
        for message in reversed(self.tg.sent_to(self.group)):
            if any(d.startswith(b.GROUP_MOVE) for d in message.callback_data):
                return message
        return None

    async def _reveal_after(self, since: float) -> float | None:
        """Seconds from `since` (a turn's last pick) until the group was shown its reveal."""
        for call in self._group_calls():
            if call.ok and "Reveal" in str(call.params.get("text", "")):
                at = time.monotonic() - (time.time() - call.at)
                if at >= since - 0.01:
                    return float(at - since)
        return None

    def private_calls(self, people: list[JSON], since: int) -> int:
        """Messages sent or edited in the people's private chats after the `since`-th call."""
        ids = {str(u["id"]) for u in people}
        return sum(
            1
            for c in self.tg.calls[since:]
            if c.ok and c.method in MESSAGE_CALLS and str(c.params.get("chat_id")) in ids
        )

    def _group_calls(self) -> list[Any]:
        return [
            c
            for c in self.tg.calls
            if c.method in MESSAGE_CALLS and str(c.params.get("chat_id")) == str(self.group)
        ]

    async def spam(self, spammer: JSON, stopper: JSON) -> None:
        """A member spams /status every second; another asks to /stop every 20 s."""
        n = 0
        while not self.over:
            await self.feed(self.tg.message_update(self.group, spammer, "/status"))
            self.figures.spam += 1
            n += 1
            if n % 20 == 0:
                await self.feed(self.tg.message_update(self.group, stopper, "/stop"))
            await asyncio.sleep(1.0)

    async def watch_end(self, limit: float) -> None:
        end = time.monotonic() + limit
        while time.monotonic() < end:
            session = await self.session()
            if session is None or session.phase != "playing":
                break
            self.figures.done_moves = session.moves
            await asyncio.sleep(0.5)
        self.over = True

    def finish(self, spammer: JSON) -> None:
        """Match moves with the group's next message, count the spammer's replies."""
        calls = [c for c in self._group_calls() if c.ok]
        clock_gap = time.time() - time.monotonic()
        stamps = sorted(c.at - clock_gap for c in calls)
        for moved in self.figures.moves:
            later = [t for t in stamps if t >= moved]
            if later:
                self.figures.seen.append(later[0] - moved)
        self.figures.spam_replies = len(self.chatter())
        if os.environ.get("PACE_TRACE"):
            start = calls[0].at if calls else 0.0
            for c in self._group_calls():
                text = str(c.params.get("text", ""))[:50].replace("\n", " ")
                at = c.at - start
                print(f"{self.figures.name[:12]} {at:7.2f} {c.method[:8]} {c.error_code} {text}")

    def chatter(self) -> list[Any]:
        """Replies to commands: the group's new messages without buttons, tables shown anew by
        /status (the very text the group was last shown) and the edits that take the buttons
        off the copies they leave above."""
        said, shown = [], ""
        for c in self._group_calls():
            if not c.ok:
                continue
            text = str(c.params.get("text", ""))
            keyboard = "inline_keyboard" in str(c.params)
            reposted = c.method == "sendMessage" and (not keyboard or text == shown)
            if reposted or c.method == "editMessageReplyMarkup":
                said.append(c)
            if keyboard:
                shown = text
        return said


def _button(message: StoredMessage, op: str) -> str:
    return next(d for d in message.callback_data if d.startswith(op))


def _epoch(message: StoredMessage) -> int | None:
    for d in message.callback_data:
        press = b.decode(d)
        if press is not None and press.op == b.GROUP_MOVE:
            return press.stamp
    return None


async def run(args: argparse.Namespace) -> list[tuple[Figures, int]]:
    from telegram_presses import start_redis

    proc, url = (None, args.redis_url) if args.redis_url else start_redis()
    store = RedisStore.from_url(url, f"pace{os.getpid()}:")
    try:
        async with FakeTelegram.running() as tg:
            root = tg.base_url.removesuffix("/bot")
            webapp = "table" if args.page else None
            settings = Settings(
                telegram=TelegramSettings(token=tg.token, base_url=root, webapp_name=webapp)
            )
            bots = []
            for _ in range(args.processes):
                bot = telegram_bot(
                    settings, store, GAMES, request=request(), get_updates_request=request()
                )
                await bot.app.initialize()
                bot.runner.start()
                bots.append(bot)
            bot = bots[0]  # (the page's requests go to the first)
            transport = httpx.ASGITransport(app=app(bot, ops=False))
            page = httpx.AsyncClient(transport=transport, base_url="http://bot", timeout=30)
            scenarios = [
                ("egonomy", 3, 0),
                ("ano", 3, 1),
                ("ego", 6, 0),
                ("ego", 4, 2),
            ]
            scenarios = [s for s in scenarios if s[0] in args.games]
            jobs: list[Awaitable[tuple[Figures, int]]] = []
            for i, (game, humans, computers) in enumerate(scenarios):
                jobs.append(_play(bots, tg, -1000500 - i, game, humans, computers, args, i, page))
            results = await asyncio.gather(*jobs)
            await page.aclose()
            for bot in bots:
                await bot.runner.stop()
                await bot.app.shutdown()
            return list(results)
    finally:
        await store.close()
        if proc is not None:
            proc.terminate()


async def _play(
    bots: list[TelegramBot],
    tg: FakeTelegram,
    group: int,
    game: str,
    humans: int,
    computers: int,
    args: argparse.Namespace,
    index: int,
    page: httpx.AsyncClient,
) -> tuple[Figures, int]:
    name = f"{game} {humans} people + {computers} computers"
    table = Table(bots, tg, group, name, game)
    base = 7000 + 100 * index
    people = [tg.user(base + i, f"P{index}{i}", language_code="en") for i in range(humans)]
    spammer = tg.user(base + 50, f"Spammer{index}", language_code="en")
    stopper = tg.user(base + 51, f"Stopper{index}", language_code="en")
    await table.open(game, people, computers)
    await asyncio.sleep(2.0)  # the start's messages are out: from here on, calls are the game's
    session = await table.session()
    assert session is not None
    calls_before = len(table._group_calls())
    since = len(tg.calls)
    rng = random.Random(args.seed + index)
    seat_of = {s: u for u in people if (s := session.seat_of(f"tg:{u['id']}")) is not None}
    tasks = [asyncio.create_task(table.spam(spammer, stopper))] if args.spam else []
    if args.page:
        tasks += [
            asyncio.create_task(table.on_page(u, random.Random(rng.random()), page)) for u in people
        ]
        limit = args.limit if GAMES[game].private_hands else args.turns * 6.0
        await table.watch_end(limit)  # EGO: about `turns` turns at that pace
    elif GAMES[game].private_hands:
        tasks += [asyncio.create_task(table.hands(u, random.Random(rng.random()))) for u in people]
        await table.watch_end(args.limit)
    else:
        picking = asyncio.create_task(table.picks(seat_of, rng, args.turns))
        watching = asyncio.create_task(table.watch_end(args.limit))
        await asyncio.wait([picking, watching], return_when=asyncio.FIRST_COMPLETED)
        session = await table.session()
        table.figures.done_moves = session.moves if session is not None else 0
        table.over = True
        picking.cancel()
        watching.cancel()
    table.over = True
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await asyncio.sleep(args.interval_grace)
    table.finish(spammer)
    table.figures.private = table.private_calls(people, since)
    calls = len(table._group_calls()) - calls_before - len(table.chatter())
    failed = sum(1 for c in table._group_calls() if c.error_code == 429)
    table.figures.name += f" (429s: {failed})"
    return table.figures, calls


def report(results: list[tuple[Figures, int]]) -> None:
    print(
        "| game | moves (turns) | group calls a move (a turn) | private messages a move |"
        " Bot API messages a move | answer p50 / p99 / max |"
        " move seen by the group p50 / p90 | reveal after last pick p50 / p90 |"
        " outdated presses | spam: commands → replies |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for f, calls in results:
        per = calls / f.turns if f.turns else calls / max(1, f.done_moves)
        private = f.private / max(1, f.done_moves)
        overall = (calls + f.private) / max(1, f.done_moves)
        unit = f"{f.done_moves} ({f.turns})" if f.turns else str(f.done_moves)
        ms = [x * 1000 for x in f.answers]
        answer = f"{quantile(ms, 0.5):.0f} / {quantile(ms, 0.99):.0f} / {max(ms):.0f} ms"
        seen = (
            f"{quantile(f.seen, 0.5):.1f} / {quantile(f.seen, 0.9):.1f} s"
            if f.seen and not f.turns
            else "–"
        )
        rev = (
            f"{quantile(f.reveals, 0.5):.1f} / {quantile(f.reveals, 0.9):.1f} s"
            if f.reveals
            else "–"
        )
        out = f"{100 * f.outdated / max(1, f.presses):.1f}% of {f.presses}"
        print(
            f"| {f.name} | {unit} | {per:.2f} | {private:.2f} | {overall:.2f} | {answer} |"
            f" {seen} | {rev} | {out} | {f.spam} → {f.spam_replies} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="*", default=["egonomy", "ano", "ego"])
    parser.add_argument("--turns", type=int, default=15, help="EGO turns measured (15)")
    parser.add_argument("--limit", type=float, default=900.0, help="seconds a game may take")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--redis-url", default=None)
    parser.add_argument("--processes", type=int, default=1, help="bots on one Redis (1)")
    parser.add_argument("--interval-grace", type=float, default=4.0)
    parser.add_argument(
        "--no-spam", dest="spam", action="store_false", help="no member spams the group"
    )
    parser.add_argument("--page", action="store_true", help="moves on the game page (Mini App)")
    args = parser.parse_args()
    began = time.monotonic()
    results = asyncio.run(run(args))
    report(results)
    load = os.getloadavg()[0]
    print(f"\n{time.monotonic() - began:.0f} s in all; load average {load:.1f}")


if __name__ == "__main__":
    main()
