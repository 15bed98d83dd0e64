"""What whole games cost on LINE: replies (free) and pushes (a monthly quota) per game.

Plays whole games of Egonomy, EGO and Ano in a LINE group against the local fake LINE server
(tests/line/fake_line.py, as strict as LINE), through signed webhooks and the real
line-bot-sdk, on a real Redis, with people and computer players mixed; then presses the
table's 📖 Rules button and the overview's sections. People press at random among the buttons
they see (their hand in their 1:1 chat, the group's table); a person who has no hand asks for
it with the table's "My hand" link (a message of their own: a free reply). Prints, per game,
the events sent, the moves made in 1:1 chats (each owes the group its table: a push unless a
reply in the group carries it), the messages sent by reply and by push (and to where), and
events left unanswered by their reply token.

Usage: python bench/line_costs.py [--seed N] [--redis-url URL]
(without --redis-url a throwaway redis-server is started on a free port).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from telegram_presses import start_redis  # beside this file

from chatbot.core import buttons as b
from chatbot.core.session import WAIT_BOT
from chatbot.games import registry
from chatbot.line.bot import LineBot
from chatbot.line.convert import qualify
from chatbot.store.redis import RedisStore
from engine.core import restore
from tests.line.fake_line import FakeLine, Sent, bot_settings

JSON = dict[str, Any]


@dataclass
class Costs:
    events: int = 0
    unanswered: int = 0
    private_moves: int = 0  # moves made in a 1:1 chat (each owes the group its table)
    to: dict[str, int] = field(default_factory=dict)


def data_of(sent: Sent | None, *ops: str) -> list[str]:
    return [d for d in sent.data() if d[:1] in ops] if sent is not None else []


def link_of(sent: Sent, mark: str) -> str | None:
    uris = [a["uri"] for a in sent.actions() if a["type"] == "uri" and mark in a["label"]]
    return unquote(uris[0].partition("?")[2]) if uris else None


class Table:
    """One LINE group playing one game."""

    def __init__(self, bot: LineBot, line: FakeLine, rng: random.Random) -> None:
        self.bot, self.line, self.rng, self.costs = bot, line, rng, Costs()
        self.table: Sent | None = None  # the game's table as it began

    async def send(self, event: JSON) -> None:
        """One event; the computers due after it act before its table update is pushed (as
        they do at human pace: within the table interval)."""
        assert await self.bot.webhook(*self.line.signed(event)) == 200
        await self.bot.idle()
        for _ in range(200):
            if not await self.bot.runner.tick():
                break
        await self.bot.runner.flush()
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
            session, _ = await self.bot.tables.load(chat)
            if session is None or not any(
                kind == WAIT_BOT and at <= self.bot.tables.clock()
                for kind, at in session.timers.values()
            ):
                return ticked
            ticked = True
            await self.bot.runner.tick()
            await self.bot.runner.flush()
        raise AssertionError("the computers kept acting")

    async def play(self, group: str, people: list[str]) -> None:
        chat = qualify(group)
        for _ in range(5000):
            if await self.computers(chat):
                continue
            session, _ = await self.bot.tables.load(chat)
            if session is None:
                return
            game = self.bot.tables.bundle(session).game
            state = restore(game, session.state)
            seats = [s for s in game.to_move(state) if session.seats[s].user]
            user = next(u for u in people if qualify(u) == session.seats[seats[0]].user)
            if len(seats) > 1:  # simultaneous: any of them
                seat = self.rng.choice(seats)
                user = next(u for u in people if qualify(u) == session.seats[seat].user)
            hand = self.last(user, b.MOVE, b.NAV)
            table = self.last(group, b.GROUP_MOVE)
            moves = data_of(hand, b.MOVE, b.NAV)
            if not self.bot.tables.bundle(session).private_hands:
                pick = self.rng.choice(data_of(table, b.GROUP_MOVE))
                await self.send(self.line.postback(group, user, pick))
            elif moves and hand is self.last(user):
                await self.send(self.line.postback(user, user, self.rng.choice(moves)))
                after, _ = await self.bot.tables.load(chat)
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
) -> tuple[Costs, FakeLine]:
    async with FakeLine.running() as line:
        # a computer thinks (up to THINK_BUDGET) within the interval a pushed table waits
        settings = bot_settings(line, table_interval=1.0, thinkers=0)
        bot = LineBot(settings, RedisStore.from_url(redis_url, prefix), registry())
        await bot.start()
        try:
            names = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"][:humans]
            langs = ["th", "ja", "en"]
            people = [line.user(n, langs[i % 3], friend=False) for i, n in enumerate(names)]
            table = Table(bot, line, random.Random(seed))
            group = await table.open(game, people, set(people[:friends]), computers)
            table.table = next(s for s in reversed(line.to(group)) if table.rules_of(s))
            if rules:
                line.sent.clear()
                table.costs = Costs()
                await table.rules(group, people[-1], rules)
            else:
                await table.play(group, people)
            for sent in line.pushes:
                where = "group" if sent.chat == group else "a player"
                table.costs.to[where] = table.costs.to.get(where, 0) + 1
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
        "| game | people (friends) | computers | events | moves in 1:1 chats | replies"
        " | pushes | unanswered |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for i, (label, game, humans, friends, computers) in enumerate(GAMES):
        costs, line = await one(redis_url, f"bench{i}:", game, humans, friends, computers, seed)
        pushes = ", ".join(f"{n} to {w}" for w, n in costs.to.items()) or "0"
        print(
            f"| {label} | {humans} ({friends}) | {computers} | {costs.events} |"
            f" {costs.private_moves} | {len(line.replies)} | {pushes} | {costs.unanswered} |"
        )
    costs, line = await one(redis_url, "benchr:", "egonomy", 2, 2, 0, seed, rules=10)
    pushes = ", ".join(f"{n} to {w}" for w, n in costs.to.items()) or "0"
    print(
        f"| Egonomy: 📖 Rules and a section ×10 | 2 (2) | 0 | {costs.events} | 0 |"
        f" {len(line.replies)} | {pushes} | {costs.unanswered} |"
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
