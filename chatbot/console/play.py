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
import unicodedata
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor

from chatbot.bootstrap import service
from chatbot.core import buttons as b
from chatbot.core import views
from chatbot.core.model import Button, Command, Incoming, Message, Press, User
from chatbot.core.record import Record
from chatbot.core.registry import Bundle, Registry
from chatbot.core.session import Session
from chatbot.core.sessions import Platform
from chatbot.games import registry
from chatbot.i18n import N_, Translator, negotiate, translator
from chatbot.settings import Settings
from chatbot.store.memory import MemoryStore
from engine.core import OptionValue, load_event, restore

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
# TRANSLATORS: the terminal game, when there is only one choice; {answer} is what was typed.
NOT_THE_CHOICE = N_("“{answer}” is not the choice: type 1 to take it (help: the rules).")
# TRANSLATORS: the terminal game: Enter pressed when there is only one choice.
EMPTY_ONE = N_("Type 1 to take the only choice (help: the rules).")
# TRANSLATORS: the terminal game: the last choice when a move is open to you out of turn
# (calling "Ano!", a catch, a jump-in): decline it and let the computers play on.
PLAY_ON = N_("⏩ Let the others play on")
LOG_MARK = "• "  # a line of the table's log
CUT = "\0"  # in the news: an announcement (a round's results) comes here, between the lines
SHOWN_ANSWER = 24  # characters of a wrong answer repeated in the reply
# Digits a player may type: ASCII, full-width (Japanese keyboards), Thai.
DIGITS = (
    frozenset("0123456789")
    | {chr(0xFF10 + i) for i in range(10)}
    | {chr(0x0E50 + i) for i in range(10)}
)


def plain(text: str) -> str:
    """Message HTML as terminal text."""
    return html.unescape(_TAGS.sub("", text))


def choice_number(answer: str, count: int) -> int | None:
    """The 1-based choice an answer names (ASCII, full-width or Thai digits), or None; a
    number too long to be a choice is no choice (never Python's digit limit)."""
    if not answer or not set(answer) <= DIGITS:
        return None
    digits = "".join(str(unicodedata.digit(c)) for c in answer).lstrip("0")
    if not digits or len(digits) > len(str(count)):
        return None
    number = int(digits)
    return number if 1 <= number <= count else None


def wrong_answer(tr: Translator, answer: str, last: int) -> str:
    """Why `answer` names no choice of 1..`last`, and what to type."""
    if len(answer) > SHOWN_ANSWER:
        answer = answer[: SHOWN_ANSWER - 1] + "…"
    if last == 1:
        return tr.t(NOT_THE_CHOICE if answer else EMPTY_ONE, answer=answer)
    return tr.t(NOT_A_CHOICE if answer else EMPTY_ANSWER, answer=answer, last=tr.number(last))


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
        settings = Settings(bot_delay=0, remind_after=10**9, takeover_after=10**9, think_workers=0)
        self.games = games or registry()
        self.service = service(MemoryStore(), settings, self.games, Platform())
        if seed is not None:
            self.service.sessions.seeds = lambda: seed
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
        self.news: list[str] = []  # what the table narrated since it was last printed for you
        self.seen_change = -1  # the session's change whose events are in `news`
        self.told: list[str] = []  # every event narrated so far
        self.table_id: str | None = None  # the group's table message
        self.table_slot = ""  # its slot in this game
        self.declined: frozenset[str] = frozenset()  # your moves that were open when you acted
        self.answered = False  # a reply was shown since the choices were last listed

    async def send(self, inc: Incoming) -> None:
        reply = await self.service.handle(inc)
        if reply.answer and reply.answer.text and not self.quiet:
            self.show(f"» {plain(reply.answer.text)}")
            self.answered = True  # what it says refers to the choices: list them again
        if not self.quiet:
            await self._collect(reply.messages)
        await self.deliver(reply.messages)

    async def _collect(self, messages: list[Message]) -> None:
        """Narrate the events of the game's last change, once, for the next table print; at
        the game's end (the session is gone) the final table's log says the last of them."""
        session, _ = await self.service.sessions.load(GROUP)
        if session is None or session.state is None:
            self._collect_final(messages)
            return
        if session.change == self.seen_change:
            return
        self.seen_change = session.change
        bundle = self.service.sessions.bundle(session)
        recent = session.log[len(session.log) - session.recent :] if session.recent else []
        names = views.names(session, self.tr)
        for dumped in recent:
            event = load_event(bundle.game.event_types, dumped)
            if (line := bundle.presenter.narrate(event, names, self.tr)) is not None:
                self.news.append(plain(line))
                self.told.append(plain(line))
            elif bundle.presenter.announce(event, names, self.tr) is not None:
                self.news.append(CUT)  # what follows it ("Round 2 begins") comes after it

    def _collect_final(self, messages: list[Message]) -> None:
        """The final table's log lines that come after those already told."""
        tables = [m for m in messages if m.chat == GROUP and m.slot == self.table_slot]
        tables += [m for m in messages if m.edit is not None and m.edit == self.table_id]
        if not tables:
            return
        text = plain(tables[-1].text)
        shown = [line[len(LOG_MARK) :] for line in text.splitlines() if line.startswith(LOG_MARK)]
        told = self.told
        for k in range(min(len(told), len(shown)), -1, -1):
            if told[len(told) - k :] == shown[:k]:
                self.news += shown[k:]
                self.told += shown[k:]
                return

    async def deliver(self, messages: list[Message]) -> None:
        for at, message in enumerate(messages):
            if message.edit and message.edit in self.messages:
                message_id = message.edit
            else:
                self._ids += 1
                message_id = str(self._ids)
                if message.slot and message.host:
                    await self.service.sessions.remember(message.host, message.slot, message_id)
            self.messages[message_id] = message
            if message.chat == GROUP and message.slot == self.table_slot:
                self.table_id = message_id
            if message.chat == YOU:  # the newest hand: its choices are yours now (or none)
                self.hand_id = message_id if _has_choices(message) else None
            elif message.chat == GROUP and not self.quiet and self._news(message, messages[at:]):
                self._flush(upto_cut=True)  # what led to this news (a round's or the game's end)
                self._print(message_id)

    def _news(self, message: Message, rest: list[Message]) -> bool:
        """Whether a group message is printed as it comes: not a table (a table is printed
        with its events), unless it is a finished turn's table, edited into the turn's results
        with a new table below it."""
        if message.slot != self.table_slot:
            return not message.coalesce
        return message.edit is not None and any(
            m.slot == self.table_slot and m.edit is None for m in rest[1:]
        )

    def _print_table(self, message_id: str) -> None:
        """The table (without its short log, if it changed), then every event since the table
        was last printed: in a game of four, a round holds more than the log shows."""
        text = plain(self.messages[message_id].text)
        lines = [line for line in text.splitlines() if not line.startswith(LOG_MARK)]
        table = "\n".join(lines).rstrip()
        if self.printed.get(message_id) != table:
            self.printed[message_id] = table
            self.show("\n" + table)
        self._flush()

    def _flush(self, upto_cut: bool = False) -> None:
        """Print the events not printed yet (`upto_cut`: those before the first announcement
        only, the rest kept for after it)."""
        shown, rest = self.news, []
        if upto_cut and CUT in self.news:
            at = self.news.index(CUT)
            shown, rest = self.news[:at], self.news[at + 1 :]
        shown = [line for line in shown if line != CUT]
        if shown:
            self.show("\n".join(LOG_MARK + line for line in shown))
        self.news = rest

    def _print(self, message_id: str, again: bool = False) -> None:
        """Print a message unless it was printed as it is now (`again`: print it anyway)."""
        text = plain(self.messages[message_id].text)
        if again or self.printed.get(message_id) != text:
            self.printed[message_id] = text
            self.show("\n" + text)

    async def press(self, message_id: str, data: str) -> None:
        message = self.messages[message_id]
        private = message.chat == YOU
        await self.send(
            Press(chat=message.chat, private=private, user=self.me, data=data, message=message_id)
        )

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
        await self.send(Command(chat=YOU, private=True, user=self.me, name="start"))
        await self.send(Command(chat=GROUP, private=False, user=self.me, name="newgame", args=game))
        if watch:
            await self._lobby_press(b.LEAVE)
        for _ in range(players - (0 if watch else 1)):
            await self._lobby_press(b.ADD_BOT)
        for name, value in wanted.items():
            for _ in spec.option(name).choices:
                session, _ = await self.service.sessions.load(GROUP)
                if session is None or session.options.get(name) == value:
                    break
                await self._lobby_press(b.OPTION, name)
        lobby = await self._lobby_press(b.START)
        self.quiet = False
        session, _ = await self.service.sessions.load(GROUP)
        if session is not None:
            self.table_slot = views.table_slot(session)
        table = session.message_ids.get(self.table_slot) if session is not None else None
        self.table_id = table
        await self._collect([])  # the deal
        self._print(lobby)  # the start notice: players and the options in force
        for message_id, message in list(self.messages.items()):
            if message.chat == GROUP and message_id not in (lobby, table):
                self._print(message_id)
        # the table itself comes with your first choices (or the first move watched), once:
        # the computers' first moves (EGO's guesses) would change it at once

    async def _lobby_press(self, op: str, field: str | None = None) -> str:
        session, _ = await self.service.sessions.load(GROUP)
        lobby = session.message_ids.get("lobby") if session is not None else None
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
        """Let computer players act until they wait for you, or until a move opens to you out
        of turn (a call, a catch, a jump-in); whether anything happened."""
        moved = False
        while not await self._opened() and await self._tick():
            moved = True
            if self.watching:
                session, _ = await self.service.sessions.load(GROUP)
                table = None if session is None else session.message_ids.get(self.table_slot)
                if table in self.messages:
                    self._print_table(table or "")
                if self.pace:
                    await asyncio.sleep(self.pace)
        return moved

    async def _tick(self) -> bool:
        out = await self.service.tick()
        await self._collect(out)
        await self.deliver(out)
        return bool(out)

    def _mine(self, session: Session) -> tuple[frozenset[str], bool]:
        """Your legal action codes now, and whether the game waits for you (your turn)."""
        seat = session.seat_of(YOU)
        if seat is None or session.state is None or session.phase != "playing":
            return frozenset(), False
        game = self.service.sessions.bundle(session).game
        state = restore(game, session.state)
        codes = frozenset(game.encode_action(a) for a in game.legal_actions(state, seat))
        return codes, seat in game.to_move(state)

    async def _opened(self) -> bool:
        """Whether a move you did not have when you last acted is open to you out of turn."""
        session, _ = await self.service.sessions.load(GROUP)
        if session is None:
            return False
        codes, waited = self._mine(session)
        return not waited and bool(codes - self.declined)

    def _choices(self, session: Session) -> tuple[list[tuple[str, Button]], str | None]:
        """Your choices now, each with the message it is on: your hand's buttons, and your
        moves among the group table's buttons (those serve every player); and the message
        to show above them (your hand, when the choices are on it)."""
        found: list[tuple[str, Button]] = []
        hand = self.messages.get(self.hand_id or "")
        above = None
        if hand is not None and _has_choices(hand):
            above = self.hand_id
            found += [(self.hand_id or "", btn) for row in hand.buttons for btn in row if btn.data]
        seat = session.seat_of(YOU)
        if seat is None or seat >= len(session.choice_digests) or not session.choice_digests[seat]:
            return found, above
        table = session.message_ids.get(self.table_slot, "")
        mine, _ = self._mine(session)
        found += [
            (table, btn)
            for row in (self.messages[table].buttons if table in self.messages else ())
            for btn in row
            if (press := b.decode(btn.data or "")) is not None
            and press.op == b.GROUP_MOVE
            and press.fields[-1:]
            and press.fields[-1] in mine
        ]
        if above is None and found:
            above = table
        return found, above

    async def play(self) -> bool:
        """One of your choices (or the computers' turns); False when the game is over."""
        moved = await self.run_computers()
        session, _ = await self.service.sessions.load(GROUP)
        if session is None:
            return False
        table = session.message_ids.get(self.table_slot)
        if table in self.messages:
            self._print_table(table or "")
        found, above = self._choices(session)
        codes, waited = self._mine(session)
        out_of_turn = not waited and bool(codes - self.declined)
        if not found or above is None:
            if moved:
                return True
            if out_of_turn:  # nothing of it on a message: let the others go on
                self.declined = codes
                return True
            raise RuntimeError("the game waits for something the terminal cannot do")
        labels = [btn.label for _, btn in found]
        if out_of_turn:
            labels.append(self.tr.gettext(PLAY_ON))
        self._show_choices(above, labels, again=False, relist=self.answered)
        self.answered = False
        while True:
            answer = self.ask("> ").strip()
            if answer.casefold() in self.help_words:
                self.rules_help()
                self._show_choices(above, labels, again=True)
                continue
            number = choice_number(answer, len(labels))
            if number is not None:
                break
            self.show(wrong_answer(self.tr, answer, len(labels)))
        self.declined = codes  # what was open now is not offered again out of turn
        if number > len(found):  # let the others play on
            return True
        message_id, button = found[number - 1]
        await self.press(message_id, button.data or "")
        return True

    def _show_choices(
        self, message_id: str, labels: list[str], again: bool, relist: bool = False
    ) -> None:
        """The numbered choices (with your hand above them when they are on it, and the
        game's key to the labels), unless shown just as they are (`again`: show them anyway;
        `relist`: the list again, without the message above it)."""
        message = self.messages[message_id]
        own = message.chat == YOU
        key = plain(message.text) + "\0" + "\0".join(labels)
        if relist and self.printed.get(message_id + "/choices") == key:
            self.show("")
            for i, label in enumerate(labels, start=1):
                self.show(f"  {i}. {label}")
            return
        if again or self.printed.get(message_id + "/choices") != key:
            self.printed[message_id + "/choices"] = key
            if own or again:
                self.show("\n" + plain(message.text))
            for i, label in enumerate(labels, start=1):
                self.show(f"  {i}. {label}")
            if legend := self.bundle.presenter.legend(self.tr, labels):
                self.show(legend)

    async def finish(self) -> None:
        """After the game's results: the deal's key with the command that checks it, and the
        record's code with the command that plays it back (both as the chat offers them)."""
        lock = next(
            (
                press.fields[0]
                for message in reversed(list(self.messages.values()))
                if message.chat == GROUP
                for row in message.buttons
                for button in row
                if (press := b.decode(button.data or "")) is not None
                and press.op == b.RECORD
                and press.fields
            ),
            None,
        )
        if lock is None:
            return
        key = None
        for message in reversed(list(self.messages.values())):
            found = re.search(r"🔓[^<]*<code>([^<]+)</code>", message.text)
            if message.chat == GROUP and found and lock in message.text:
                key = found.group(1)
                break
        lines = []
        if key is not None:
            lines.append(self.tr.t("🔓 The deal's key: <code>{key}</code>", key=key))
            # TRANSLATORS: the terminal game, after the results: the command that checks the
            # deal. Keep the command as it is.
            lines.append(
                self.tr.t(
                    "✅ To check it: python -m chatbot verify "
                    "<code>{key}</code> <code>{lock}</code>",
                    key=key,
                    lock=lock,
                )
            )
        doc = await self.service.sessions.record(GROUP, lock)
        if doc is not None:
            code = Record.loads(doc.data).code()
            lines.append(
                self.tr.t(
                    "▶️ In a terminal: python -m chatbot replay <code>{code}</code>", code=code
                )
            )
        if lines:
            self._flush()
            self.show("\n" + "\n".join(plain(line) for line in lines))

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
                self.show(wrong_answer(tr, answer, len(titles)))
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
    Ctrl-C ends it with 130, Ctrl-D with 0."""
    console = Console(ask=ask, show=show, lang=lang, seed=seed, games=games, pace=pace)

    async def main() -> None:
        await console.setup(game, players, options, watch)
        while await console.play():
            pass
        await console.finish()

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
    except (EOFError, KeyboardInterrupt) as ended:
        show("")
        # TRANSLATORS: the terminal game was ended with Ctrl-C or Ctrl-D.
        show(console.tr.gettext("Game ended."))
        if isinstance(ended, KeyboardInterrupt):
            return 130  # ended by Ctrl-C, as a shell reports SIGINT
    finally:
        workers.shutdown(wait=False, cancel_futures=True)
        loop.close()
    return 0
