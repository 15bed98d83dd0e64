"""The terminal adapter: a game against computer players, through the same chat core.

The terminal is one group chat plus your private chat; buttons are numbered choices.
"""

from __future__ import annotations

import asyncio
import html
import re
from collections.abc import Callable

from chatbot.core import buttons as b
from chatbot.core.model import Incoming, Message, User
from chatbot.core.registry import Registry
from chatbot.core.service import GameService
from chatbot.core.tables import Platform, Tables
from chatbot.games import registry
from chatbot.i18n import negotiate, translator
from chatbot.settings import Settings
from chatbot.store.memory import MemoryStore

GROUP, YOU = "con:table", "con:you"
_TAGS = re.compile(r"<[^>]+>")


def plain(text: str) -> str:
    """Message HTML as terminal text."""
    return html.unescape(_TAGS.sub("", text))


def _has_choices(message: Message) -> bool:
    """Whether `message` is a hand offering moves (or steps towards one)."""
    return any(
        (press := b.decode(button.data or "")) is not None and press.op in (b.MOVE, b.NAV)
        for row in message.buttons
        for button in row
    )


class Console:
    """Plays one game: prints messages, reads numbered choices."""

    def __init__(
        self,
        ask: Callable[[str], str] = input,
        show: Callable[[str], None] = print,
        lang: str | None = None,
        seed: int | None = None,
        games: Registry | None = None,
    ) -> None:
        settings = Settings(bot_delay=0, remind_after=10**9, takeover_after=10**9)
        tables = Tables(MemoryStore(), settings, games or registry(), Platform())
        if seed is not None:
            tables.seeds = lambda: seed
        self.service = GameService(tables)
        self.ask, self.show = ask, show
        # TRANSLATORS: the name of the person playing in the terminal, among computer players.
        self.me = User(YOU, translator(negotiate(lang)).gettext("Human"), lang)
        self.messages: dict[str, Message] = {}  # message id -> latest content
        self.hand_id: str | None = None
        self._ids = 0

    async def send(self, chat: str, private: bool, **fields: str | None) -> None:
        reply = await self.service.handle(Incoming(chat, private, self.me, **fields))  # type: ignore[arg-type]
        if reply.answer and reply.answer.text:
            self.show(f"» {plain(reply.answer.text)}")
        await self.deliver(reply.messages)

    async def deliver(self, messages: list[Message]) -> None:
        for message in messages:
            if message.edit and message.edit in self.messages:
                message_id = message.edit
            else:
                self._ids += 1
                message_id = str(self._ids)
                if message.slot and message.game:
                    await self.service.tables.remember(message.game, message.slot, message_id)
            self.messages[message_id] = message
            if message.chat == YOU and _has_choices(message):
                self.hand_id = message_id  # the newest hand to act from
            elif message.chat == GROUP and not message.coalesce and not message.edit:
                self.show("\n" + plain(message.text))

    async def press(self, message_id: str, data: str) -> None:
        message = self.messages[message_id]
        private = message.chat == YOU
        await self.send(message.chat, private, data=data, message=message_id)

    async def setup(self, game: str, players: int, flip: bool, watch: bool = False) -> None:
        await self.send(YOU, True, command="start")
        await self.send(GROUP, False, command="newgame", args=game)
        lobby = self._latest(lambda m: m.slot == "lobby")
        if watch:
            await self.press(lobby, self._button(lobby, b.LEAVE))
        for _ in range(players - (0 if watch else 1)):
            lobby = self._latest(lambda m: m.slot == "lobby")
            await self.press(lobby, self._button(lobby, b.ADD_BOT))
        if flip:
            lobby = self._latest(lambda m: m.slot == "lobby")
            await self.press(lobby, self._button(lobby, b.OPTION))
        lobby = self._latest(lambda m: m.slot == "lobby")
        await self.press(lobby, self._button(lobby, b.START))

    def _latest(self, match: Callable[[Message], bool]) -> str:
        return max((k for k, m in self.messages.items() if match(m)), key=int)

    def _button(self, message_id: str, op: str) -> str:
        for row in self.messages[message_id].buttons:
            for button in row:
                if button.data and button.data.startswith(op):
                    return button.data
        raise LookupError(op)

    async def run_computers(self) -> None:
        while await self._tick():
            pass

    async def _tick(self) -> bool:
        out = await self.service.tick()
        await self.deliver(out)
        return bool(out)

    async def play(self) -> bool:
        """One of your choices (or the computers' turns); False when the game is over."""
        await self.run_computers()
        session, _ = await self.service.tables.load(GROUP)
        if session is None:
            return False
        table = session.messages.get("table")
        if table in self.messages:
            self.show("\n" + plain(self.messages[table].text))
        hand = self.messages.get(self.hand_id or "")
        if hand is None or not hand.buttons:
            return True
        self.show("\n" + plain(hand.text))
        choices = [btn for row in hand.buttons for btn in row if btn.data]
        for i, btn in enumerate(choices, start=1):
            self.show(f"  {i}. {btn.label}")
        answer = self.ask("> ").strip()
        if not answer.isdigit() or not 1 <= int(answer) <= len(choices):
            self.show(f"1–{len(choices)}?")
            return True
        await self.press(self.hand_id or "", choices[int(answer) - 1].data or "")
        return True


def play(
    game: str,
    players: int,
    flip: bool,
    seed: int | None,
    watch: bool = False,
    lang: str | None = None,
) -> int:
    """Run a terminal game; `watch`: computers in every seat."""

    async def main() -> None:
        console = Console(lang=lang, seed=seed)
        await console.setup(game, players, flip, watch)
        while await console.play():
            pass

    try:
        asyncio.run(main())
    except (EOFError, KeyboardInterrupt):
        print()
    return 0
