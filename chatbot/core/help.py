"""Help, rule texts and language choice: /help, /rules, /rule <term>, /language."""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence

from babel import Locale

from chatbot.core import buttons as b
from chatbot.core.model import Answer, Button, Command, Incoming, Keyboard, Message, Press, Reply
from chatbot.core.registry import Bundle
from chatbot.core.session import Session
from chatbot.core.sessions import Sessions
from chatbot.core.work import Found, Outcome, Work
from chatbot.i18n import N_, Translator, available_locales, negotiate, translator, translators
from chatbot.rule_help import CLOSE, GlossaryEntry, RuleBook, match_term

INTRO = N_(
    "👋 I host card games in this chat: {games}, with computer players for empty seats. "
    "/newgame opens a table; /newgame and a game's name opens that game."
)
QUERY_SHOWN = 64  # characters of an unknown /rule query repeated in the answer
ROW = 3  # buttons to a row in the help (short labels read best three abreast)

# The command menu, registered with the platform in every language.
COMMANDS = (
    ("newgame", N_("Open a new game table")),
    ("status", N_("Show the game in this chat")),
    ("stats", N_("Standings: this chat's, or yours in a private chat")),
    ("verify", N_("Check a finished game's deal: /verify key lock")),
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
    def __init__(self, sessions: Sessions) -> None:
        self.sessions = sessions

    async def command(self, inc: Command) -> Reply:
        known = await self.sessions.people.known_chat_language(inc)
        if known is None and inc.name == "help":  # a group of unknown language
            return Reply(messages=[self.greeting(inc.chat)])
        tr = translator(known or negotiate(None))
        if inc.name == "rules":
            return Reply(messages=[await self.rules(inc, tr)])
        if inc.name == "rule":
            playing = None
            if not inc.private:
                session, _ = await self.sessions.load(inc.chat)
                playing = session.game if session is not None else None
            return Reply(messages=[self.lookup(inc.chat, inc.args, tr, playing)])
        if inc.name == "language":
            return Reply(messages=[self.language_menu(inc, tr)])
        return Reply(messages=[self.help(inc.chat, tr)])

    async def rules(self, inc: Command, tr: Translator) -> Message:
        """/rules [game]: the game named, else the game in this chat, else the game menu."""
        games = self.sessions.games
        bundle = games.get(inc.args.strip().lower()) if inc.args.strip() else None
        if bundle is None and not inc.private:
            session, _ = await self.sessions.load(inc.chat)
            bundle = games.get(session.game) if session is not None else None
        if bundle is None and len(games) == 1:
            bundle = games.default
        if bundle is None:
            return self.games_menu(inc.chat, tr)
        return self.overview(inc.chat, bundle, tr)

    def _rows(self, buttons: list[Button]) -> Keyboard:
        """Buttons a few to a row (ROW, fewer where the platform's rows are shorter)."""
        width = min(ROW, self.sessions.caps.row_buttons)
        return tuple(tuple(buttons[i : i + width]) for i in range(0, len(buttons), width))

    def help(self, chat: str, tr: Translator) -> Message:
        titles = tr.list(g.presenter.title(tr) for g in self.sessions.games)
        lines = [
            tr.t(INTRO, games=titles),
            "",
        ]
        lines.extend(f"/{name} — {tr.gettext(text)}" for name, text in COMMANDS)
        return Message(chat, "\n".join(lines))

    def greeting(self, chat: str) -> Message:
        """What the bot does and which language to speak, in every language, with a button
        per language (each in its own language)."""
        parts = []
        for code in available_locales():
            tr = translator(code)
            titles = tr.list(g.presenter.title(tr) for g in self.sessions.games)
            ask = tr.gettext("Which language should I use in this group?")
            parts.append(f"{tr.t(INTRO, games=titles)}\n{ask}")
        buttons = [
            Button(language_name(code), b.encode(b.LANGUAGE, "c", code))
            for code in available_locales()
        ]
        return Message(chat, "\n\n".join(parts), self._rows(buttons))

    def games_menu(self, chat: str, tr: Translator, edit: str | None = None) -> Message:
        """Which game's rules to read."""
        buttons = [
            Button(g.presenter.title(tr), b.encode(b.RULE, g.name, b.OVERVIEW))
            for g in self.sessions.games
        ]
        return Message(chat, tr.gettext("📖 Which game's rules?"), self._rows(buttons), edit=edit)

    def overview(
        self, chat: str, bundle: Bundle, tr: Translator, edit: str | None = None
    ) -> Message:
        """The rulebook's sections as buttons."""
        book = bundle.rules
        text = tr.gettext("📖 Which rule would you like to read?")
        if len(self.sessions.games) > 1:
            text = f"<b>{html.escape(bundle.presenter.title(tr))}</b>\n{text}"
        buttons = [
            Button(tr.gettext(s.title), b.encode(b.RULE, book.game, s.key)) for s in book.sections
        ]
        if len(self.sessions.games) > 1:
            buttons.append(Button(tr.gettext("🎲 Other games"), b.encode(b.RULE, "", b.GAMES_MENU)))
        return Message(chat, text, self._rows(buttons), edit=edit)

    @staticmethod
    def section(chat: str, book: RuleBook, key: str, tr: Translator, edit: str | None) -> Message:
        section = book.section(key)
        title, body = html.escape(tr.gettext(section.title)), html.escape(tr.gettext(section.body))
        text = f"<b>{title}</b>\n\n{body}"
        if section.ruling:
            text += f"\n\n<i>{html.escape(tr.gettext(section.ruling))}</i>"
        back = ((Button(tr.gettext("⬅️ All rules"), b.encode(b.RULE, book.game, b.OVERVIEW)),),)
        return Message(chat, text, back, edit=edit)

    def lookup(self, chat: str, query: str, tr: Translator, playing: str | None = None) -> Message:
        """/rule <term>, searched in every game's glossary and every language: the games
        whose match is best (an exact name beats a prefix, a prefix a part of a name), and
        among those the game `playing` in the chat."""
        if not query.strip():
            return Message(chat, tr.gettext("Which term? For example: /rule momentum"))
        found: list[tuple[Bundle, GlossaryEntry]] = []
        suggested: list[tuple[Bundle, GlossaryEntry]] = []
        best = CLOSE + 1
        for bundle in self.sessions.games:
            rank, entry, suggestions = match_term(bundle.rules, query, translators())
            if rank < best and (entry is not None or rank < CLOSE):
                best, found, suggested = rank, [], []  # a better match: worse ones go
            if rank > best:
                continue
            if entry is not None:
                found.append((bundle, entry))
            suggested += [(bundle, s) for s in suggestions]
        if len(found) > 1 and playing in {bundle.name for bundle, _ in found}:
            found = [(bundle, entry) for bundle, entry in found if bundle.name == playing]
        if len(found) == 1:
            bundle, entry = found[0]
            term, body = html.escape(tr.gettext(entry.term)), html.escape(tr.gettext(entry.text))
            text = f"<b>{term}</b>\n{body}"
            more = Button(tr.gettext("📖 Read more"), b.encode(b.RULE, bundle.name, entry.section))
            return Message(chat, text, ((more,),))
        if found:
            text = tr.t("“{query}” is a rule of several games. Which one?", query=_shown(query))
            return Message(chat, text, self._entries(found, tr, titled=True))
        if suggested:
            text = tr.t("I don't know “{query}”. Did you mean:", query=_shown(query))
            return Message(
                chat, text, self._entries(suggested, tr, titled=len(self.sessions.games) > 1)
            )
        text = tr.t("I don't know “{query}”. /rules lists every section.", query=_shown(query))
        return Message(chat, text)

    @staticmethod
    def _entries(
        entries: Sequence[tuple[Bundle, GlossaryEntry]], tr: Translator, titled: bool
    ) -> Keyboard:
        """A button per glossary entry (with its game's name when several games are meant)."""
        rows = []
        for bundle, entry in entries:
            label = tr.gettext(entry.term)
            if titled:
                # TRANSLATORS: a rule term on a button, after the name of its game.
                label = tr.t("{game}: {term}", game=bundle.presenter.title(tr), term=label)
            rows.append((Button(label, b.encode(b.RULE, bundle.name, entry.section)),))
        return tuple(rows)

    def language_menu(self, inc: Incoming, tr: Translator) -> Message:
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
        return Message(inc.chat, text, self._rows(buttons))

    async def press(self, inc: Press, code: b.Code) -> Reply:
        if code.op == b.LANGUAGE and len(code.fields) == 2:
            return await self._choose_language(inc, *code.fields)
        sessions = self.sessions
        tr = translator(await sessions.people.chat_language(inc))
        game = code.fields[0] if code.fields else ""
        key = code.fields[1] if len(code.fields) > 1 else ""
        if key == b.GAMES_MENU:
            return Reply(Answer(), [self.games_menu(inc.chat, tr, edit=await self._own(inc))])
        bundle = sessions.games.get(game)
        if bundle is None:
            return Reply(Answer(tr.gettext("This button is no longer in use.")))
        # The table's rules button is shared by everyone: the overview goes to the presser's
        # private chat instead of replacing the table (without edits it cannot replace it: it
        # comes in the group, as the press's own free answer where the platform answers so).
        if key == b.SEND_PRIVATELY and not sessions.caps.edits:
            return Reply(Answer(), [self.overview(inc.chat, bundle, tr)])
        if key == b.SEND_PRIVATELY:
            ptr = translator(await sessions.people.user_language(inc.user.id, inc.user.language))
            if not await sessions.people.reachable(inc.user.id):
                text = ptr.gettext("Open a private chat with me first, then press again.")
                return Reply(Answer(text, url=sessions.platform.deep_link("rules")))
            return Reply(
                Answer(ptr.gettext("I sent the rules to our private chat.")),
                [self.overview(inc.user.id, bundle, ptr)],
            )
        if key in ("", b.OVERVIEW):
            edit = await self._own(inc)
            return Reply(Answer(), [self.overview(inc.chat, bundle, tr, edit=edit)])
        try:
            bundle.rules.section(key)
        except KeyError:
            return Reply(Answer(tr.gettext("This button is no longer in use.")))
        edit = await self._own(inc)
        return Reply(Answer(), [self.section(inc.chat, bundle.rules, key, tr, edit)])

    async def _choose_language(self, inc: Press, scope: str, code: str) -> Reply:
        sessions = self.sessions
        if code not in available_locales():
            tr = translator(await sessions.people.chat_language(inc))
            return Reply(Answer(tr.gettext("This button is no longer in use.")))
        tr = translator(code)
        if scope == "u":
            await sessions.set_user_setting(inc.user.id, "lang", code)
            await self.seat_languages(inc.user.id, code)
            text = tr.gettext("Done: I will write to you in English.")
        else:
            session, _ = await sessions.load(inc.chat)
            host = session is not None and session.creator == inc.user.id
            if not host and not await sessions.people.is_admin(inc.chat, inc.user.id):
                ptr = translator(
                    await sessions.people.user_language(inc.user.id, inc.user.language)
                )
                text = ptr.gettext(
                    "Only a chat admin or the host of the open table can change the group's "
                    "language."
                )
                return Reply(Answer(text))
            await sessions.set_chat_setting(inc.chat, "lang", code)
            await sessions.change(inc.chat, _language_of(lambda s: _group_language(s, code)))
            text = tr.gettext("Done: I will write in English in this group.")
        edit = await self._own(inc)
        return Reply(Answer(text), [Message(inc.chat, text, edit=edit)])

    async def seat_languages(self, user: str, code: str) -> None:
        """The user's seats in the games they sit in speak `code` from now on."""
        for game_chat in await self.sessions.people.games_of(user):
            change = _language_of(lambda s: _seat_language(s, user, code))
            await self.sessions.change(game_chat, change)

    async def _own(self, inc: Press) -> str | None:
        """The pressed message when help may edit it: never a game's table or lobby (a forged
        button there must not replace the game's message)."""
        if inc.private or inc.message is None:
            return inc.message
        session, _ = await self.sessions.load(inc.chat)
        if session is not None and inc.message in session.message_ids.values():
            return None
        return inc.message


def _shown(query: str) -> str:
    """A user's query as repeated in an answer: escaped, and cut short (a message may hold a
    query of 4,096 characters, the answer no more than that in all)."""
    query = query.strip()
    if len(query) > QUERY_SHOWN:
        query = query[: QUERY_SHOWN - 1] + "…"
    return html.escape(query)


def _language_of(change: Callable[[Session], bool]) -> Work[None]:
    """A unit of work that saves the session when `change` changed it."""

    async def work(found: Found) -> Outcome[None]:
        session = found.session
        if session is None or not change(session):
            return Outcome(None)
        return Outcome(None, save=session)

    return work


def _seat_language(session: Session, user: str, code: str) -> bool:
    """The user's private messages in this game in `code` (False: not a player here, or
    already so)."""
    seat = session.seat_of(user)
    if seat is None or session.seats[seat].language == code:
        return False
    session.seats[seat].language = code
    return True


def _group_language(session: Session, code: str) -> bool:
    """The group's messages in this game in `code`."""
    session.language = code
    return True
