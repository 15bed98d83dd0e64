"""Help, rule texts and language choice: /help, /rules, /rule <term>, /language."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from babel import Locale

from chatbot.core import buttons as b
from chatbot.core.model import Answer, Button, Incoming, Keyboard, Message, Reply
from chatbot.core.session import Session
from chatbot.i18n import N_, Translator, available_locales, translator, translators
from chatbot.rules import RuleBook, find_term
from chatbot.rules.egonomy import EGONOMY_RULES

if TYPE_CHECKING:
    from chatbot.core.service import GameService

RULEBOOKS: dict[str, RuleBook] = {EGONOMY_RULES.game: EGONOMY_RULES}
SEND_PRIVATELY = "*"  # rule button on a table: send the overview to the private chat
OVERVIEW = "^"  # "All rules" under a section: the overview in place of the section
QUERY_SHOWN = 64  # characters of an unknown /rule query repeated in the answer

# The command menu, registered with the platform in every language.
COMMANDS = (
    ("newgame", N_("Open a new game table")),
    ("status", N_("Show the game in this chat")),
    ("rules", N_("The rules, section by section")),
    ("rule", N_("Look up one rule term, e.g. /rule momentum")),
    ("language", N_("Choose the language")),
    ("stop", N_("Stop the game (host or admin)")),
    ("help", N_("What I can do")),
)


def language_name(locale: str) -> str:
    """A language's name in itself ("ไทย", "日本語", "English")."""
    name = Locale.parse(locale).get_display_name(locale) or locale
    return name[:1].upper() + name[1:]


class HelpDesk:
    def __init__(self, service: GameService) -> None:
        self.service = service

    async def command(self, inc: Incoming) -> Reply:
        tr = translator(await self.service.chat_language(inc))
        if inc.command == "rules":
            return Reply(messages=[self.overview(inc.chat, self._book(inc.args), tr)])
        if inc.command == "rule":
            return Reply(messages=[self.lookup(inc.chat, inc.args, tr)])
        if inc.command == "language":
            return Reply(messages=[self.language_menu(inc, tr)])
        return Reply(messages=[self.help(inc.chat, tr)])

    @staticmethod
    def _book(name: str) -> RuleBook:
        return RULEBOOKS.get(name.strip().lower(), EGONOMY_RULES)

    @staticmethod
    def help(chat: str, tr: Translator) -> Message:
        lines = [
            tr.gettext(
                "👋 I host card games in this chat: Egonomy, with computer players for empty "
                "seats. Your hand comes to our private chat."
            ),
            "",
        ]
        lines.extend(f"/{name} — {tr.gettext(text)}" for name, text in COMMANDS)
        return Message(chat, "\n".join(lines))

    @staticmethod
    def overview(chat: str, book: RuleBook, tr: Translator, edit: str | None = None) -> Message:
        """The rulebook's sections as buttons."""
        text = tr.gettext("📖 Which rule would you like to read?")
        buttons = [
            Button(tr.gettext(s.title), b.encode(b.RULE, book.game, s.key)) for s in book.sections
        ]
        return Message(chat, text, _rows(buttons), edit=edit)

    @staticmethod
    def section(chat: str, book: RuleBook, key: str, tr: Translator, edit: str | None) -> Message:
        section = book.section(key)
        title, body = html.escape(tr.gettext(section.title)), html.escape(tr.gettext(section.body))
        text = f"<b>{title}</b>\n\n{body}"
        if section.ruling:
            text += f"\n\n<i>{html.escape(tr.gettext(section.ruling))}</i>"
        back = ((Button(tr.gettext("⬅️ All rules"), b.encode(b.RULE, book.game, OVERVIEW)),),)
        return Message(chat, text, back, edit=edit)

    def lookup(self, chat: str, query: str, tr: Translator) -> Message:
        book = EGONOMY_RULES
        if not query.strip():
            return Message(chat, tr.gettext("Which term? For example: /rule momentum"))
        entry, suggestions = find_term(book, query, translators())
        if entry is not None:
            term, body = html.escape(tr.gettext(entry.term)), html.escape(tr.gettext(entry.text))
            text = f"<b>{term}</b>\n{body}"
            more = Button(tr.gettext("📖 Read more"), b.encode(b.RULE, book.game, entry.section))
            return Message(chat, text, ((more,),))
        if suggestions:
            text = tr.t("I don't know “{query}”. Did you mean:", query=_shown(query))
            rows = tuple(
                (Button(tr.gettext(s.term), b.encode(b.RULE, book.game, s.section)),)
                for s in suggestions
            )
            return Message(chat, text, rows)
        text = tr.t("I don't know “{query}”. /rules lists every section.", query=_shown(query))
        return Message(chat, text)

    @staticmethod
    def language_menu(inc: Incoming, tr: Translator) -> Message:
        scope = "u" if inc.private else "c"
        text = (
            tr.gettext("Which language should I use with you?")
            if inc.private
            else tr.gettext("Which language should I use in this group?")
        )
        buttons = [
            Button(language_name(code), b.encode(b.LANGUAGE, scope, code))
            for code in available_locales()
        ]
        return Message(inc.chat, text, _rows(buttons))

    async def press(self, inc: Incoming, press: b.Press) -> Reply:
        if press.op == b.LANGUAGE and len(press.fields) == 2:
            return await self._choose_language(inc, *press.fields)
        tr = translator(await self.service.chat_language(inc))
        book = RULEBOOKS.get(press.fields[0] if press.fields else "", EGONOMY_RULES)
        key = press.fields[1] if len(press.fields) > 1 else ""
        # The table's rules button is shared by everyone: the overview goes to the presser's
        # private chat instead of replacing the table.
        if key == SEND_PRIVATELY:
            ptr = translator(await self.service.user_language(inc.user.id, inc.user.language))
            if not await self.service.lobby.reachable(inc.user.id):
                text = ptr.gettext("Open a private chat with me first, then press again.")
                return Reply(Answer(text, url=self.service.deep_link("rules")))
            return Reply(
                Answer(ptr.gettext("I sent the rules to our private chat.")),
                [self.overview(inc.user.id, book, ptr)],
            )
        if key in ("", OVERVIEW):
            return Reply(Answer(), [self.overview(inc.chat, book, tr, edit=inc.message)])
        try:
            return Reply(Answer(), [self.section(inc.chat, book, key, tr, inc.message)])
        except KeyError:
            return Reply(Answer(tr.gettext("This button is no longer in use.")))

    async def _choose_language(self, inc: Incoming, scope: str, code: str) -> Reply:
        if code not in available_locales():
            tr = translator(await self.service.chat_language(inc))
            return Reply(Answer(tr.gettext("This button is no longer in use.")))
        store = self.service.store
        tr = translator(code)
        if scope == "u":
            await store.set_setting(f"user:{inc.user.id}", "lang", code)
            game_chat = await store.get_setting(f"user:{inc.user.id}", "game")
            if game_chat:
                await self.service.update(game_chat, lambda s: _seat_language(s, inc.user.id, code))
            text = tr.gettext("Done: I will write to you in English.")
        else:
            await store.set_setting(f"chat:{inc.chat}", "lang", code)
            await self.service.update(inc.chat, lambda s: _group_language(s, code))
            text = tr.gettext("Done: I will write in English in this group.")
        return Reply(Answer(text), [Message(inc.chat, text, edit=inc.message)])


def _rows(buttons: list[Button]) -> Keyboard:
    """Buttons three to a row (Telegram allows at most eight)."""
    return tuple(tuple(buttons[i : i + 3]) for i in range(0, len(buttons), 3))


def _shown(query: str) -> str:
    """A user's query as repeated in an answer: escaped, and cut short (a message may hold a
    query of 4,096 characters, the answer no more than that in all)."""
    query = query.strip()
    if len(query) > QUERY_SHOWN:
        query = query[: QUERY_SHOWN - 1] + "…"
    return html.escape(query)


def _seat_language(session: Session, user: str, code: str) -> bool:
    """The user's private messages in this game in `code` (False: not a player here)."""
    seat = session.seat_of(user)
    if seat is not None:
        session.seats[seat].language = code
    return seat is not None


def _group_language(session: Session, code: str) -> bool:
    """The group's messages in this game in `code`."""
    session.language = code
    return True
