"""People at human pace against the strict fake Bot API, on bots that share one Redis: the
machinery of bench/telegram_pace.py and of the test of three processes behind one token.

The fake refuses a group's 21st message in a minute and the bot's 31st in a second (429), as
Telegram does. People open the table as people do: they press Join, the host sets the turn
timer and an option, adds computers and presses Start, each 1–2 s after looking at the lobby
as the group shows it (which lags behind the game's own state while the group's budget is
spent). Then they play: a move 1–4 s after their hand shows it (a step of a choice in
0.3–0.8 s); in EGO everyone picks within 5 s of a new question. A member who is not playing
spams /status every second and someone who is not the host asks to /stop now and then.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import random
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
from tests.e2e.webprocess import Web

JSON = dict[str, Any]
GAMES = registry()
OUTDATED = ("That button is outdated", "That turn is over")  # a press refused as stale
# A lobby press refused (its answer), in the words of chatbot/core/lobby.py: the table changed
# under the button, or the button no longer applies.
LOBBY_REFUSED = (
    "The table changed",
    "This button is no longer in use",
    "There is no open table",
    "Someone changed the table",
    *OUTDATED,
)
SEATED = re.compile(r"\((\d+)/\d+\):")  # the lobby's "Players (3/6):"
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
    lobby_presses: int = 0
    lobby_refused: list[str] = field(default_factory=list)  # the answers of refused presses
    burst_at: float = 0.0  # (monotonic) when the scenario's burst began
    burst_replies: int = 0  # replies to commands from the burst's start on
    after_burst: list[float] = field(default_factory=list)  # move to table, a minute from it
    http_429: int = 0  # Bot API calls to the group or its people refused as flood
    ended: bool = False  # the game came to its end
    seen: list[float] = field(default_factory=list)  # seconds from a move to the group's next


def quantile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Table:
    """One group at play: its people, the bot, and what they measured."""

    def __init__(self, bots: Bots, tg: FakeTelegram, group: int, name: str, game: str) -> None:
        self.bots, self.tg, self.group, self.chat = bots, tg, group, f"tg:{group}"
        self.fed = 0
        self.game = game
        self.figures = Figures(name)
        self.over = False
        self.think = 1.0  # how long people think over a move, against a human's

    async def feed(self, update: JSON) -> None:
        """Deliver an update as Telegram's webhook would: to the next process in turn."""
        feed = self.bots.feeds[self.fed % len(self.bots.feeds)]
        self.fed += 1
        await feed(update)

    async def press(
        self, user: JSON, message: StoredMessage, data: str, *, lobby: bool = False
    ) -> str:
        """Press a button as a person would; the answer's text (a game's press refused as
        outdated is counted; `lobby`: the lobby counts its own)."""
        update = self.tg.callback_update(user, message, data, check=False)
        began = time.monotonic()
        await self.feed(update)
        self.figures.answers.append(time.monotonic() - began)
        answer = self.tg.callback_answer(update["callback_query"]["id"]) or {}
        text = str(answer.get("text") or "")
        if not lobby:
            self.figures.presses += 1
            self.figures.outdated += text.startswith(OUTDATED)
        return text

    async def session(self) -> Session | None:
        session, _ = await self.bots.reader.sessions.load(self.chat)
        return session

    async def open(self, game: str, humans: list[JSON], computers: int, rng: random.Random) -> None:
        """Open the table as people do, each press 1–2 s after looking at the lobby the group
        shows: the others join, the host sets the turn timer and an option and adds the
        computers, then starts once the lobby on screen shows every seat."""
        host = humans[0]
        self.tg.group(self.group, f"{game} night", creator=host)
        self.tg.flood_limit(self.group, 20, retry_after=5)  # Telegram's 20 a minute in a group
        for user in humans:
            await self.feed(self.tg.message_update(user["id"], user, "/start"))
        await self.feed(self.tg.message_update(self.group, host, f"/newgame {game}"))
        await self.wait_for(self._lobby)
        think = random.Random(rng.random())

        async def join(user: JSON, delay: float) -> None:
            await asyncio.sleep(delay)
            await self.lobby_press(user, b.JOIN)

        async def host_presses() -> None:
            for op in (b.TIMER, b.OPTION, *[b.ADD_BOT] * computers):
                await asyncio.sleep(think.uniform(1.0, 2.0))
                await self.lobby_press(host, op, think)

        delays = [think.uniform(1.0, 2.0) for _ in humans[1:]]
        await asyncio.gather(host_presses(), *map(join, humans[1:], delays))
        seats = len(humans) + computers
        await self.wait_for(lambda: _seated(self._lobby()) >= seats)
        await asyncio.sleep(think.uniform(1.0, 2.0))
        await self.lobby_press(host, b.START)
        await self.wait_for(self._playing)

    async def lobby_press(self, user: JSON, op: str, rng: random.Random | None = None) -> None:
        """Press a button of kind `op` (one of them, where `rng` picks) on the lobby as the
        group shows it now; a refusal is counted."""
        lobby = self._lobby()
        assert lobby is not None
        offered = [d for d in lobby.callback_data if (c := b.decode(d)) and c.op == op]
        if not offered:
            return  # (a game with no option to set)
        data = rng.choice(offered) if rng else offered[0]
        text = await self.press(user, lobby, data, lobby=True)
        self.figures.lobby_presses += 1
        if text.startswith(LOBBY_REFUSED):
            self.figures.lobby_refused.append(text)

    def _lobby(self) -> StoredMessage | None:
        """The lobby as the group shows it now."""
        for message in reversed(self.tg.sent_to(self.group)):
            if any(d == b.JOIN for d in message.callback_data):
                return message
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
        shown = [
            (c.method, c.error_code, str(c.params.get("text", ""))[:80]) for c in self.tg.calls
        ]
        raise TimeoutError(f"{self.figures.name}: waited {limit} s; the last calls: {shown[-8:]}")

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
            await asyncio.sleep(
                self.think * (rng.uniform(1.0, 4.0) if move else rng.uniform(0.3, 0.8))
            )
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
            await asyncio.sleep(
                self.think * (rng.uniform(1.0, 4.0) if private else rng.uniform(0.5, 5.0))
            )
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
        await asyncio.sleep(self.think * rng.uniform(0.5, 5.0))
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

    async def burst(self, spammer: JSON, scenario: Scenario) -> None:
        """The scenario's burst of commands, its moment marked (`Figures.burst_at`)."""
        await asyncio.sleep(scenario.after)
        self.figures.burst_at = time.monotonic()
        for command in scenario.burst:
            await self.feed(self.tg.message_update(self.group, spammer, command))
            self.figures.spam += 1
            await asyncio.sleep(scenario.gap)

    def table_seen(self, since: float, until: float) -> list[float]:
        """Seconds from each move made between `since` and `until` (monotonic) to the group's
        next message or edit that is not a reply to a command."""
        told = {id(c) for c in self.chatter()}
        gap = time.time() - time.monotonic()
        stamps = sorted(c.at - gap for c in self._group_calls() if c.ok and id(c) not in told)
        seen = []
        for moved in self.figures.moves:
            later = [t for t in stamps if t >= moved]
            if since <= moved <= until and later:
                seen.append(later[0] - moved)
        return seen

    async def watch_end(self, limit: float) -> None:
        end = time.monotonic() + limit
        while time.monotonic() < end:
            session = await self.session()
            if session is None or session.phase != "playing":
                self.figures.ended = True
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
        /status (a new message whose heading, its first line, is that of the table posted last:
        the same round or turn) and the edits that take the buttons off the copies they leave
        above."""
        said, posted = [], ""
        for c in self._group_calls():
            if not c.ok or c.method not in ("sendMessage", "editMessageReplyMarkup"):
                continue
            heading = str(c.params.get("text", "")).split("\n", 1)[0]
            keyboard = "inline_keyboard" in str(c.params)
            if c.method == "editMessageReplyMarkup" or not keyboard or heading == posted:
                said.append(c)
            if keyboard:
                posted = heading
        return said


def _seated(lobby: StoredMessage | None) -> int:
    """How many seats the lobby shows taken."""
    found = SEATED.search(lobby.text) if lobby is not None else None
    return int(found.group(1)) if found else 0


def _epoch(message: StoredMessage) -> int | None:
    for d in message.callback_data:
        press = b.decode(d)
        if press is not None and press.op == b.GROUP_MOVE:
            return press.stamp
    return None


@dataclass(frozen=True)
class Pace:
    """What to play: the games (the scenarios of these games, or `scenarios`), EGO's turns,
    how long a game may take, the people's seed, the bots on one Redis, whether a member spams
    /status and whether people move on the game page (a Mini App) instead of their private
    hands."""

    games: tuple[str, ...] = ("egonomy", "ano", "ego")
    scenarios: tuple[Scenario, ...] = ()
    turns: int = 15
    limit: float = 900.0
    seed: int = 1
    processes: int = 1
    spam: bool = True
    page: bool = False
    interval_grace: float = 4.0  # seconds after a game for the last edits to go out
    think: float = 1.0  # how long people think over a move, against a human's (1–4 s)


@dataclass(frozen=True)
class Scenario:
    """A group's game: its people and computers; `burst`: commands a member who is not
    playing sends in a row, one every `gap` seconds, `after` seconds into the game (the moment
    is marked even with no commands, to compare with a group that has them)."""

    game: str
    humans: int
    computers: int
    burst: tuple[str, ...] = ()
    after: float = 20.0
    gap: float = 0.25


SCENARIOS = (
    Scenario("egonomy", 3, 0),
    Scenario("ano", 3, 1),
    Scenario("ego", 6, 0),
    Scenario("ego", 4, 2),
)


@dataclass
class Bots:
    """The bots behind one token: how an update reaches each (in turn), and one to read the
    games with (and serve the page's requests, in process)."""

    feeds: list[Callable[[JSON], Awaitable[None]]]
    reader: TelegramBot


async def play_tables(
    redis_url: str, pace: Pace, prefix: str | None = None, log: Path | None = None
) -> list[tuple[Figures, int]]:
    """Every scenario of `pace.games` in a group of its own, all at once, on `pace.processes`
    bots sharing one Redis behind one token: each game's figures and its group calls. With a
    `log` file, the bots are real processes (`python -m chatbot web` at the default limits,
    updates posted to their webhooks, their errors in `log`, their keys under the default
    prefix), else bots in this process (their keys under `prefix`, if given)."""
    assert log is None or prefix is None, "the processes keep their keys under the default"
    store = RedisStore.from_url(redis_url, prefix) if prefix else RedisStore.from_url(redis_url)
    async with contextlib.AsyncExitStack() as stack:
        stack.push_async_callback(store.close)
        tg = await stack.enter_async_context(FakeTelegram.running())
        tg.bot_limit(30)  # Telegram's 30 messages a second over all chats
        root = tg.base_url.removesuffix("/bot")
        webapp = "table" if pace.page else None
        settings = Settings(
            telegram=TelegramSettings(token=tg.token, base_url=root, webapp_name=webapp)
        )

        def made() -> TelegramBot:
            return telegram_bot(
                settings, store, GAMES, request=request(), get_updates_request=request()
            )

        if log is not None:
            assert not pace.page, "the page's requests go to a bot in this process"
            bots = Bots([], made())
            await _processes(stack, tg, redis_url, pace.processes, log, bots)
        else:
            bots = Bots([], made())
            for n in range(pace.processes):
                bot = bots.reader if n == 0 else made()
                await bot.app.initialize()
                bot.runner.start()
                stack.push_async_callback(bot.app.shutdown)
                stack.push_async_callback(bot.runner.stop)
                bots.feeds.append(_in_process(bot))
        transport = httpx.ASGITransport(app=app(bots.reader, ops=False))  # (the page's calls)
        page = await stack.enter_async_context(
            httpx.AsyncClient(transport=transport, base_url="http://bot", timeout=30)
        )
        scenarios = pace.scenarios or [s for s in SCENARIOS if s.game in pace.games]
        jobs: list[Awaitable[tuple[Figures, int]]] = []
        for i, scenario in enumerate(scenarios):
            jobs.append(_play(bots, tg, -1000500 - i, scenario, pace, i, page))
        results = list(await asyncio.gather(*jobs))
        assert not tg.internal_errors, tg.internal_errors
        if os.environ.get("PACE_TRACE"):
            began = tg.calls[0].at if tg.calls else 0.0
            for c in tg.calls:
                if c.error_code == 429:
                    print(f"429 {c.at - began:8.2f} {c.method} {c.params.get('chat_id')}")
        return results


def _in_process(bot: TelegramBot) -> Callable[[JSON], Awaitable[None]]:
    async def feed(update: JSON) -> None:
        await bot.app.process_update(Update.de_json(update, bot.app.bot))

    return feed


async def _processes(
    stack: contextlib.AsyncExitStack,
    tg: FakeTelegram,
    redis_url: str,
    count: int,
    log: Path,
    bots: Bots,
) -> None:
    """Start `count` bot processes at the default limits (each stopped when `stack` closes)
    and feed updates to their webhooks."""
    client = await stack.enter_async_context(httpx.AsyncClient(timeout=60))
    default = Settings()  # its delays and Telegram's limits (Web lifts the delays)
    paced = {"BOT_DELAY": str(default.bot_delay), "TABLE_INTERVAL": str(default.table_interval)}
    webs = [Web(tg, redis_url, log, paced) for _ in range(count)]
    for web in webs:
        stack.callback(web.end)
    await asyncio.gather(*(web.up(client) for web in webs))
    for web in webs:
        bots.feeds.append(functools.partial(web.post, client))


async def _play(
    bots: Bots,
    tg: FakeTelegram,
    group: int,
    scenario: Scenario,
    pace: Pace,
    index: int,
    page: httpx.AsyncClient,
) -> tuple[Figures, int]:
    game, humans, computers = scenario.game, scenario.humans, scenario.computers
    name = f"{game} {humans} people + {computers} computers"
    table = Table(bots, tg, group, name, game)
    table.think = pace.think
    base = 7000 + 100 * index
    people = [tg.user(base + i, f"P{index}{i}", language_code="en") for i in range(humans)]
    spammer = tg.user(base + 50, f"Spammer{index}", language_code="en")
    stopper = tg.user(base + 51, f"Stopper{index}", language_code="en")
    rng = random.Random(pace.seed + index)
    await table.open(game, people, computers, rng)
    await asyncio.sleep(2.0)  # the start's messages are out: from here on, calls are the game's
    session = await table.session()
    assert session is not None
    calls_before = len(table._group_calls())
    since = len(tg.calls)
    seat_of = {s: u for u in people if (s := session.seat_of(f"tg:{u['id']}")) is not None}
    tasks = [asyncio.create_task(table.spam(spammer, stopper))] if pace.spam else []
    tasks.append(asyncio.create_task(table.burst(spammer, scenario)))
    if pace.page:
        tasks += [
            asyncio.create_task(table.on_page(u, random.Random(rng.random()), page)) for u in people
        ]
        limit = pace.limit if GAMES[game].private_hands else pace.turns * 6.0
        await table.watch_end(limit)  # EGO: about `turns` turns at that pace
    elif GAMES[game].private_hands:
        tasks += [asyncio.create_task(table.hands(u, random.Random(rng.random()))) for u in people]
        await table.watch_end(pace.limit)
    else:
        picking = asyncio.create_task(table.picks(seat_of, rng, pace.turns))
        watching = asyncio.create_task(table.watch_end(pace.limit))
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
    await asyncio.sleep(pace.interval_grace)
    table.finish(spammer)
    if began := table.figures.burst_at:
        table.figures.after_burst = table.table_seen(began, began + 60.0)
        since_burst = began + time.time() - time.monotonic()
        replies = [c for c in table.chatter() if c.method == "sendMessage"]
        table.figures.burst_replies = sum(1 for c in replies if c.at >= since_burst)
    table.figures.private = table.private_calls(people, since)
    calls = len(table._group_calls()) - calls_before - len(table.chatter())
    chats = {str(group), *(str(u["id"]) for u in [*people, spammer, stopper])}
    table.figures.http_429 = sum(
        1 for c in tg.calls if c.error_code == 429 and str(c.params.get("chat_id")) in chats
    )
    return table.figures, calls
