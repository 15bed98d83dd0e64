"""The terminal adapter: a game against computer players, through the same chat core.

The terminal is one group chat plus your private chat; buttons are numbered choices. At any
prompt `help`, `?` or `rules` opens the game's rule help; Ctrl-C or Ctrl-D ends the game.
"""

from __future__ import annotations

import asyncio
import html
import os
import re
import signal
import sys
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor

from chatbot.core import buttons as b
from chatbot.core import views
from chatbot.core.model import Button, Incoming, Message, User
from chatbot.core.registry import Bundle, Registry
from chatbot.core.service import GameService
from chatbot.core.session import Session
from chatbot.core.tables import Platform, Tables
from chatbot.games import registry
from chatbot.i18n import N_, Translator, negotiate, translator
from chatbot.settings import Settings
from chatbot.store.memory import MemoryStore
from engine.core import OptionValue, restore

GROUP, YOU = "con:table", "con:you"
HELP_WORDS = frozenset({"help", "?", "rules", "h"})  # open the rule help in every language
_TAGS = re.compile(r"<[^>]+>")

# TRANSLATORS: the terminal game; {answer} is what the player typed. Keep "help" in English:
# it is the word the player types.
NOT_A_CHOICE = N_(
    "“{answer}” is not one of the choices: type a number from 1 to {last} (help: the rules)."
)
# TRANSLATORS: the terminal game: words a player may type at a prompt to read the rules,
# comma-separated, beside the English help, ? and rules (which always work).
HELP_ALIASES = N_("help, rules")
# TRANSLATORS: the terminal game: the player pressed Enter without typing anything.
EMPTY_ANSWER = N_("Type the number of your choice, from 1 to {last} (help: the rules).")


def plain(text: str) -> str:
    """Message HTML as terminal text."""
    return html.unescape(_TAGS.sub("", text))


def choice_number(answer: str, count: int) -> int | None:
    """The 1-based choice an answer names (ASCII digits only), or None."""
    if not (answer.isascii() and answer.isdigit()):
        return None
    number = int(answer)
    return number if 1 <= number <= count else None


def _has_choices(message: Message) -> bool:
    """Whether `message` is a hand offering moves (or steps towards one)."""
    return any(
        (press := b.decode(button.data or "")) is not None and press.op in (b.MOVE, b.NAV)
        for row in message.buttons
        for button in row
    )


class Console:
    """Plays one game: prints what changed, reads numbered choices."""

    def __init__(
        self,
        ask: Callable[[str], str] = input,
        show: Callable[[str], None] = print,
        lang: str | None = None,
        seed: int | None = None,
        games: Registry | None = None,
        pace: float = 0.0,
    ) -> None:
        """`pace`: seconds between computer moves while watching (0: all at once)."""
        # one player at a terminal: computers think in a thread (no worker processes to start)
        settings = Settings(bot_delay=0, remind_after=10**9, takeover_after=10**9, thinkers=0)
        self.games = games or registry()
        tables = Tables(MemoryStore(), settings, self.games, Platform())
        if seed is not None:
            tables.seeds = lambda: seed
        self.service = GameService(tables)
        self.ask, self.show = ask, show
        self.tr: Translator = translator(negotiate(lang))
        aliases = re.split(r"[,、]", self.tr.gettext(HELP_ALIASES))
        self.help_words = HELP_WORDS | {a.strip().casefold() for a in aliases if a.strip()}
        # TRANSLATORS: the name of the person playing in the terminal, among computer players.
        self.me = User(YOU, self.tr.gettext("You"), lang)
        self.messages: dict[str, Message] = {}  # message id -> latest content
        self.printed: dict[str, str] = {}  # message id -> the text last printed for it
        self.hand_id: str | None = None
        self.bundle: Bundle = self.games.default
        self.quiet = False  # while setting up the table: the lobby's steps are not shown
        self.watching = False  # no seat of yours: every move is shown as it happens
        self.pace = pace
        self._ids = 0

    async def send(self, chat: str, private: bool, **fields: str | None) -> None:
        reply = await self.service.handle(Incoming(chat, private, self.me, **fields))  # type: ignore[arg-type]
        if reply.answer and reply.answer.text and not self.quiet:
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
            elif message.chat == GROUP and not message.coalesce and not self.quiet:
                self._print(message_id)

    def _print(self, message_id: str, again: bool = False) -> None:
        """Print a message unless it was printed as it is now (`again`: print it anyway)."""
        text = plain(self.messages[message_id].text)
        if again or self.printed.get(message_id) != text:
            self.printed[message_id] = text
            self.show("\n" + text)

    async def press(self, message_id: str, data: str) -> None:
        message = self.messages[message_id]
        private = message.chat == YOU
        await self.send(message.chat, private, data=data, message=message_id)

    async def setup(
        self,
        game: str,
        players: int,
        options: Mapping[str, OptionValue] | None = None,
        watch: bool = False,
    ) -> None:
        """Open a table of `game`, fill it with computers, set `options`, and start."""
        bundle = self.games.get(game)
        if bundle is None:
            raise ValueError(f"unknown game {game!r}: the games are {', '.join(self.games.names)}")
        spec = bundle.game.spec
        if not spec.min_players <= players <= spec.max_players:
            raise ValueError(f"{game} takes {spec.min_players} to {spec.max_players} players")
        unknown = set(options or {}) - {o.name for o in spec.options}
        if unknown:
            raise ValueError(f"{game} has no option {', '.join(sorted(unknown))}")
        wanted = spec.resolve_options(options)
        self.bundle = bundle
        self.watching = watch
        self.quiet = True
        await self.send(YOU, True, command="start")
        await self.send(GROUP, False, command="newgame", args=game)
        if watch:
            await self._lobby_press(b.LEAVE)
        for _ in range(players - (0 if watch else 1)):
            await self._lobby_press(b.ADD_BOT)
        for name, value in wanted.items():
            for _ in spec.option(name).choices:
                session, _ = await self.service.tables.load(GROUP)
                if session is None or session.options.get(name) == value:
                    break
                await self._lobby_press(b.OPTION, name)
        lobby = await self._lobby_press(b.START)
        self.quiet = False
        self._print(lobby)  # the start notice: players and the options in force
        for message_id, message in self.messages.items():
            if message.chat == GROUP and message_id != lobby:
                self._print(message_id)

    async def _lobby_press(self, op: str, field: str | None = None) -> str:
        session, _ = await self.service.tables.load(GROUP)
        lobby = session.messages.get("lobby") if session is not None else None
        if lobby is None or lobby not in self.messages:
            raise RuntimeError("the table did not open")
        for row in self.messages[lobby].buttons:
            for button in row:
                press = b.decode(button.data or "")
                if press and press.op == op and (field is None or field in press.fields):
                    await self.press(lobby, button.data or "")
                    return lobby
        raise LookupError(op)

    async def run_computers(self) -> bool:
        """Let computer players act until they wait for you; whether anything happened."""
        moved = False
        while await self._tick():
            moved = True
            if self.watching:
                session, _ = await self.service.tables.load(GROUP)
                table = None if session is None else session.messages.get(views.table_slot(session))
                if table in self.messages:
                    self._print(table or "")
                if self.pace:
                    await asyncio.sleep(self.pace)
        return moved

    async def _tick(self) -> bool:
        out = await self.service.tick()
        await self.deliver(out)
        return bool(out)

    def _choices(self, session: Session) -> tuple[str, list[Button]] | None:
        """Where your choices are now: your hand's buttons, else your moves on the table."""
        hand = self.messages.get(self.hand_id or "")
        if hand is not None and _has_choices(hand):
            return self.hand_id or "", [btn for row in hand.buttons for btn in row if btn.data]
        seat = session.seat_of(YOU)
        if seat is None or seat >= len(session.legal) or not session.legal[seat]:
            return None  # nothing you may do now
        table = session.messages.get(views.table_slot(session), "")
        game = self.service.tables.bundle(session).game
        state = restore(game, session.state)
        mine = {game.encode_action(a) for a in game.legal_actions(state, seat)}
        moves = [  # the group's buttons serve every player: only yours are offered here
            btn
            for row in (self.messages[table].buttons if table in self.messages else ())
            for btn in row
            if (press := b.decode(btn.data or "")) is not None
            and press.op == b.GROUP_MOVE
            and press.fields[-1:]
            and press.fields[-1] in mine
        ]
        return (table, moves) if moves else None

    async def play(self) -> bool:
        """One of your choices (or the computers' turns); False when the game is over."""
        moved = await self.run_computers()
        session, _ = await self.service.tables.load(GROUP)
        if session is None:
            return False
        table = session.messages.get(views.table_slot(session))
        if table in self.messages:
            self._print(table)
        found = self._choices(session)
        if found is None:
            if moved:
                return True
            raise RuntimeError("the game waits for something the terminal cannot do")
        message_id, choices = found
        self._show_choices(message_id, choices, again=False)
        while True:
            answer = self.ask("> ").strip()
            if answer.casefold() in self.help_words:
                self.rules_help()
                self._show_choices(message_id, choices, again=True)
                continue
            number = choice_number(answer, len(choices))
            if number is not None:
                break
            wrong = NOT_A_CHOICE if answer else EMPTY_ANSWER
            self.show(self.tr.t(wrong, answer=answer, last=self.tr.number(len(choices))))
        await self.press(message_id, choices[number - 1].data or "")
        return True

    def _show_choices(self, message_id: str, choices: list[Button], again: bool) -> None:
        """The numbered choices (with your hand above them when they are on it), unless
        shown just as they are (`again`: show them anyway)."""
        message = self.messages[message_id]
        labels = [btn.label for btn in choices]
        own = message.chat == YOU
        key = plain(message.text) + "\0" + "\0".join(labels)
        if again or self.printed.get(message_id + "/choices") != key:
            self.printed[message_id + "/choices"] = key
            if own or again:
                self.show("\n" + plain(message.text))
            for i, label in enumerate(labels, start=1):
                self.show(f"  {i}. {label}")

    def rules_help(self) -> None:
        """The game's rule help (the texts of /rules): pick a section or the glossary."""
        tr, book = self.tr, self.bundle.rules
        titles = [tr.gettext(s.title) for s in book.sections]
        # TRANSLATORS: the terminal game's rule help: the last entry, every term explained.
        titles.append(tr.gettext("Glossary"))
        self.show("\n" + tr.t("📖 {game}: the rules", game=self.bundle.presenter.title(tr)))
        for i, title in enumerate(titles, start=1):
            self.show(f"  {i}. {title}")
        while True:
            # TRANSLATORS: the terminal game's rule help prompt.
            answer = self.ask(tr.gettext("Section number (Enter: back to the game)> ")).strip()
            if not answer:
                return
            number = choice_number(answer, len(titles))
            if number is None:
                self.show(tr.t(NOT_A_CHOICE, answer=answer, last=tr.number(len(titles))))
            elif number <= len(book.sections):
                section = book.sections[number - 1]
                text = f"\n{tr.gettext(section.title)}\n\n{tr.gettext(section.body)}"
                if section.ruling:
                    text += f"\n\n{tr.gettext(section.ruling)}"
                self.show(text)
            else:
                for entry in book.glossary:
                    self.show(f"\n{tr.gettext(entry.term)}\n{tr.gettext(entry.text)}")


def _leave_sigint_to_main_thread() -> None:
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})


def play(
    game: str,
    players: int,
    options: Mapping[str, OptionValue] | None = None,
    seed: int | None = None,
    watch: bool = False,
    lang: str | None = None,
    games: Registry | None = None,
    ask: Callable[[str], str] = input,
    show: Callable[[str], None] = print,
    pace: float = 0.0,
) -> int:
    """Run a terminal game (`watch`: computers in every seat, a move every `pace` seconds);
    Ctrl-C or Ctrl-D ends it."""
    console = Console(ask=ask, show=show, lang=lang, seed=seed, games=games, pace=pace)

    async def main() -> None:
        await console.setup(game, players, options, watch)
        while await console.play():
            pass

    # A loop of our own, not asyncio.run: its SIGINT handler would swallow the first Ctrl-C
    # while input() waits.
    loop = asyncio.new_event_loop()
    # Computer players think in worker threads; a Ctrl-C delivered to one of them would not
    # wake the main thread waiting in input(), so they leave SIGINT to the main thread.
    workers = ThreadPoolExecutor(initializer=_leave_sigint_to_main_thread)
    loop.set_default_executor(workers)
    try:
        loop.run_until_complete(main())
    except ValueError as exc:  # a game, player count or option this registry does not offer
        show(str(exc))
        return 2
    except BrokenPipeError:  # the output went to a pipe that closed (e.g. `| head`)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # nothing more to say: stop quietly
        return 1
    except (EOFError, KeyboardInterrupt):
        show("")
        # TRANSLATORS: the terminal game was ended with Ctrl-C or Ctrl-D.
        show(console.tr.gettext("Game ended."))
    finally:
        workers.shutdown(wait=False, cancel_futures=True)
        loop.close()
    return 0
