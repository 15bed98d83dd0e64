"""What whole games cost on LINE: replies (free) and pushes (a monthly quota) per game.

Each game is played twice: with hands in the 1:1 chats (no LIFF app), and with the game page
(`LINE_LIFF_ID` set): people read the game and move through the page's API
(`/liff/api/state`, `/liff/api/move`, as tests/line/test_page_browser.py does in a browser),
and after each saved move the page's own line in the group (the move itself, "🃏 played 7♠")
comes as a webhook event.

Plays whole games of Egonomy, EGO and Ano in a LINE group against the local fake LINE server
(tests/line/fake_line.py, as strict as LINE), through signed webhooks and the real
line-bot-sdk, on a real Redis, with people and computer players mixed; then presses the
table's 📖 Rules button and the overview's sections. People press at random among the buttons
they see (their hand in their 1:1 chat, the group's table); a person who has no hand asks for
it with the table's "My hand" link (a message of their own: a free reply). Prints, per game,
the events sent, the moves made in 1:1 chats (each owes the group its table: a push unless a
reply in the group carries it), the messages sent by reply and by push (and to where), events
left unanswered by their reply token, and the session saves (compare-and-set writes of the
game's document) the whole game made.

Usage: python bench/line_costs.py [--seed N] [--redis-url URL]
(without --redis-url a throwaway redis-server is started on a free port).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from telegram_presses import start_redis  # beside this file

from chatbot.bootstrap import line_bot
from chatbot.core import buttons as b
from chatbot.core.session import WAIT_BOT
from chatbot.games import registry
from chatbot.line.bot import LineBot
from chatbot.line.convert import qualify
from chatbot.store.base import Seen
from chatbot.store.redis import RedisStore
from chatbot.web import app
from engine.core import restore
from tests.line.fake_line import FakeLine, Sent, bot_settings, liff_settings

JSON = dict[str, Any]


@dataclass
class Costs:
    events: int = 0
    unanswered: int = 0
    private_moves: int = 0  # moves made in a 1:1 chat or on the page (each owes the group)
    page_lines: int = 0  # the players' own lines in the group after a move on the page
    to: dict[str, int] = field(default_factory=dict)
    saves: int = 0  # session saves


class CountedStore(RedisStore):
    """The Redis store, counting the saves of game sessions."""

    saves = 0

    async def save(
        self,
        key: str,
        data: bytes,
        expected: int,
        ttl: int | None,
        deadline: float | None = None,
        seen: Seen | None = None,
    ) -> int:
        self.saves += key.startswith("game:")
        return await super().save(key, data, expected, ttl, deadline, seen)


def data_of(sent: Sent | None, *ops: str) -> list[str]:
    return [d for d in sent.data() if d[:1] in ops] if sent is not None else []


def link_of(sent: Sent, mark: str) -> str | None:
    uris = [a["uri"] for a in sent.actions() if a["type"] == "uri" and mark in a["label"]]
    return unquote(uris[0].partition("?")[2]) if uris else None


class Table:
    """One LINE group playing one game."""

    def __init__(
        self,
        bot: LineBot,
        line: FakeLine,
        rng: random.Random,
        page: httpx.AsyncClient | None = None,
    ) -> None:
        self.bot, self.line, self.rng, self.costs = bot, line, rng, Costs()
        self.table: Sent | None = None  # the game's table as it began
        self.page = page  # the web server, where the hand page is on
        self.tokens: dict[str, str] = {}  # each person's ID token, as their open page keeps it

    async def on_page(self, group: str, user: str) -> None:
        """The person makes one of the moves their page offers; after a saved move, the page's
        line in the group (a webhook event with a reply token)."""
        assert self.page is not None
        token = self.tokens.setdefault(user, self.line.id_token(user))  # (checked once)
        auth = {"Authorization": f"Bearer {token}"}
        got = await self.page.get("/liff/api/state", params={"game": group}, headers=auth)
        shown = got.json()
        if not shown.get("choices"):  # read before a computer moved: look again
            await self.send(None)
            return
        act = self.rng.choice(shown["choices"])["act"]
        body = {"game": group, "act": act, "stamp": shown["stamp"], "heard": True}
        moved = (await self.page.post("/liff/api/move", json=body, headers=auth)).json()
        if moved["moved"]:
            self.costs.private_moves += 1
            self.costs.page_lines += 1
            await self.send(self.line.text(group, user, moved["echo"]))
            return
        await self.send(None)

    async def send(self, event: JSON | None) -> None:
        """One event (None: none, after a move on the page); the computers due after it act
        before its table update is pushed (as they do at human pace: within the table
        interval)."""
        if event is None:
            await self.bot.runner.delivery.flush()
            return
        assert await self.bot.webhook(*self.line.signed(event)) == 200
        await self.bot.idle()
        for _ in range(200):
            if not await self.bot.runner.tick():
                break
        await self.bot.runner.delivery.flush()
        self.costs.events += 1
        token = event.get("replyToken")
        self.costs.unanswered += bool(token) and not self.line.answered(str(token))

    def last(self, chat: str, *ops: str) -> Sent | None:
        found = [s for s in self.line.to(chat) if not ops or data_of(s, *ops)]
        return found[-1] if found else None

    async def open(self, game: str, people: list[str], friends: set[str], computers: int) -> str:
        group = self.line.group(*people, name="Picnic")
        await self.send(self.line.join(group))
        for user in people:
            if user in friends:
                await self.send(self.line.follow(user))
        await self.send(self.line.text(group, people[0], f"/newgame {game}"))
        for user in people[1:]:
            (join,) = data_of(self.last(group, b.JOIN), b.JOIN)
            await self.send(self.line.postback(group, user, join))
        for _ in range(computers):
            (add,) = data_of(self.last(group, b.ADD_BOT), b.ADD_BOT)
            await self.send(self.line.postback(group, people[0], add))
        (start,) = data_of(self.last(group, b.START), b.START)
        await self.send(self.line.postback(group, people[0], start))
        return group

    async def computers(self, chat: str) -> bool:
        """Tick while a computer is due; whether one was."""
        ticked = False
        for _ in range(200):
            session, _ = await self.bot.sessions.load(chat)
            if session is None or not any(
                kind == WAIT_BOT and at <= self.bot.sessions.clock()
                for kind, at in session.timers.values()
            ):
                return ticked
            ticked = True
            await self.bot.runner.tick()
            await self.bot.runner.delivery.flush()
        raise AssertionError("the computers kept acting")

    async def play(self, group: str, people: list[str]) -> None:
        chat = qualify(group)
        for _ in range(5000):
            if await self.computers(chat):
                continue
            session, _ = await self.bot.sessions.load(chat)
            if session is None:
                return
            game = self.bot.sessions.bundle(session).game
            state = restore(game, session.state)
            seats = [s for s in game.to_move(state) if session.seats[s].user]
            user = next(u for u in people if qualify(u) == session.seats[seats[0]].user)
            if len(seats) > 1:  # simultaneous: any of them
                seat = self.rng.choice(seats)
                user = next(u for u in people if qualify(u) == session.seats[seat].user)
            hand = self.last(user, b.MOVE, b.NAV)
            table = self.last(group, b.GROUP_MOVE)
            moves = data_of(hand, b.MOVE, b.NAV)
            if self.page is not None:
                await self.on_page(group, user)
            elif not self.bot.sessions.bundle(session).private_hands:
                pick = self.rng.choice(data_of(table, b.GROUP_MOVE))
                await self.send(self.line.postback(group, user, pick))
            elif moves and hand is self.last(user):
                await self.send(self.line.postback(user, user, self.rng.choice(moves)))
                after, _ = await self.bot.sessions.load(chat)
                self.costs.private_moves += after is None or after.moves != session.moves
            else:
                shown = self.last(group)
                request = link_of(shown, "🃏") if shown else None
                assert request, "the table links to the hand"
                await self.send(self.line.text(user, user, request))
        raise AssertionError("the game did not end")

    async def rules(self, group: str, user: str, presses: int) -> None:
        """The table's 📖 Rules, then a section of the overview, `presses` times."""
        table = self.table
        assert table is not None
        for _ in range(presses):
            await self.send(self.line.postback(group, user, self.rules_of(table)[0]))
            overview = self.line.to(group)[-1]
            section = data_of(overview, b.RULE)[0]
            await self.send(self.line.postback(group, user, section))

    @staticmethod
    def rules_of(sent: Sent) -> list[str]:
        return [d for d in data_of(sent, b.RULE) if d.endswith(b.SEND_PRIVATELY)]


async def one(
    redis_url: str,
    prefix: str,
    game: str,
    humans: int,
    friends: int,
    computers: int,
    seed: int,
    rules: int = 0,
    page: bool = False,
) -> tuple[Costs, FakeLine]:
    async with FakeLine.running() as line, contextlib.AsyncExitStack() as stack:
        # a computer thinks (up to THINK_BUDGET) within the interval a pushed table waits
        configure = liff_settings if page else bot_settings
        settings = configure(line, table_interval=1.0, think_workers=0)
        store = CountedStore.from_url(redis_url, prefix)
        assert isinstance(store, CountedStore)
        bot = line_bot(settings, store, registry())
        bot.sessions.seeds = lambda: seed  # the same deals in every run: counts compare
        await bot.start()
        client = None
        if page:
            transport = httpx.ASGITransport(app=app(bot, ops=False))
            client = httpx.AsyncClient(transport=transport, base_url="http://bot")
            await stack.enter_async_context(client)
        try:
            names = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"][:humans]
            langs = ["th", "ja", "en"]
            people = [line.user(n, langs[i % 3], friend=False) for i, n in enumerate(names)]
            table = Table(bot, line, random.Random(seed), client)
            group = await table.open(game, people, set(people[:friends]), computers)
            table.table = next(s for s in reversed(line.to(group)) if table.rules_of(s))
            if rules:
                line.sent.clear()
                table.costs = Costs()
                store.saves = 0
                await table.rules(group, people[-1], rules)
            else:
                await table.play(group, people)
            for sent in line.pushes:
                where = "group" if sent.chat == group else "a player"
                table.costs.to[where] = table.costs.to.get(where, 0) + 1
            table.costs.saves = store.saves
            assert not bot.errors, bot.errors
            return table.costs, line
        finally:
            await bot.stop()


GAMES = [
    # (label, game, people, of them friends, computers)
    ("EGO", "ego", 3, 0, 0),
    ("EGO", "ego", 2, 1, 1),
    ("EGO", "ego", 1, 0, 3),
    ("EGO", "ego", 4, 2, 2),
    ("Egonomy", "egonomy", 2, 2, 0),
    ("Egonomy", "egonomy", 2, 2, 1),
    ("Ano", "ano", 2, 2, 2),
]


async def main(redis_url: str, seed: int) -> None:
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(
        "| game | hands | people (friends) | computers | webhook events | moves in 1:1 chats"
        " or on the page | players' lines in the group a move | messages by reply | pushes |"
        " unanswered | session saves |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for page in (False, True):
        where = "game page (LIFF)" if page else "1:1 chat"
        ego = "game page (LIFF)" if page else "none (group buttons)"
        for i, (label, game, humans, friends, computers) in enumerate(GAMES):
            prefix = f"bench{i}{'p' if page else ''}:"
            costs, line = await one(
                redis_url, prefix, game, humans, friends, computers, seed, page=page
            )
            pushes = ", ".join(f"{n} to {w}" for w, n in costs.to.items()) or "0"
            lines = f"{costs.page_lines / costs.private_moves:.2f}" if page else "–"
            print(
                f"| {label} | {where if game != 'ego' else ego} |"
                f" {humans} ({friends}) | {computers} | {costs.events} | {costs.private_moves} |"
                f" {lines} | {len(line.replies)} | {pushes} | {costs.unanswered} |"
                f" {costs.saves} |"
            )
        prefix = f"benchr{'p' if page else ''}:"
        costs, line = await one(redis_url, prefix, "egonomy", 2, 2, 0, seed, rules=10, page=page)
        pushes = ", ".join(f"{n} to {w}" for w, n in costs.to.items()) or "0"
        print(
            f"| Egonomy: 📖 Rules and a section ×10 | {where} | 2 (2) | 0 | {costs.events} | 0 |"
            f" – | {len(line.replies)} | {pushes} | {costs.unanswered} | {costs.saves} |"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--redis-url")
    args = parser.parse_args()
    proc = None
    url = args.redis_url
    if url is None:
        proc, url = start_redis()
    try:
        asyncio.run(main(url, args.seed))
    finally:
        if proc is not None:
            proc.terminate()
