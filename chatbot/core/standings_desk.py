"""The standings desk: /stats in a group or a private chat, and the standings button.

/stats in a group shows its standings per game; in a private chat, the sender's own figures in
the groups they played in lately; the standings button sits under a game's results.
"""

from __future__ import annotations

import asyncio
import html

from chatbot.core import keys
from chatbot.core.model import Answer, Command, Incoming, Message, Press, Reply, units
from chatbot.core.session import BadSession
from chatbot.core.sessions import Sessions
from chatbot.core.standings import SHOWN, TTL, Figures, Standings
from chatbot.core.views import say
from chatbot.i18n import N_, Translator, translator

SHOWN_TTL = 2 * 24 * 3600  # seconds a results message's standings button posts only once
UNREADABLE = N_("The standings here could not be read: the next game's results start them again.")


class StandingsDesk:
    """Shows the standings kept per chat (`chatbot.core.standings`)."""

    def __init__(self, sessions: Sessions) -> None:
        self.sessions = sessions

    async def command(self, inc: Command) -> Reply:
        tr = translator(await self.sessions.people.chat_language(inc))
        if inc.private:
            return Reply(messages=[await self.mine(inc, tr)])
        wanted = inc.args.strip().lower()
        bundle = self.sessions.games.get(wanted) if wanted else None
        if wanted and bundle is None:
            titles = tr.list(g.presenter.title(tr) for g in self.sessions.games)
            return Reply(
                messages=[say(inc.chat, tr.t("I know these games: {games}.", games=titles))]
            )
        standings = await self._load(inc.chat)
        if standings is None:
            return Reply(messages=[say(inc.chat, tr.gettext(UNREADABLE))])
        games = [bundle.name] if bundle else [g.name for g in self.sessions.games]
        return Reply(messages=[self.board(inc.chat, standings, games, tr)])

    async def press(self, inc: Press, game: str) -> Reply:
        """The standings button under a game's results: the game's leaderboard in the group,
        once per results message (later presses: the top three in a pop-up)."""
        if game not in self.sessions.games:
            tr = translator(
                await self.sessions.people.user_language(inc.user.id, inc.user.language)
            )
            return Reply(Answer(tr.gettext("This button is no longer in use.")))
        standings = await self._load(inc.chat)
        key = keys.shown(inc.chat, inc.message or "", game)
        if inc.private or not inc.message or await self.sessions.first_time(key, SHOWN_TTL):
            tr = translator(await self.sessions.people.chat_language(inc))
            if standings is None:
                return Reply(Answer(), [say(inc.chat, tr.gettext(UNREADABLE))])
            return Reply(Answer(), [self.board(inc.chat, standings, [game], tr)])
        tr = translator(await self.sessions.people.user_language(inc.user.id, inc.user.language))
        if standings is None:
            return Reply(Answer(tr.gettext(UNREADABLE)[: self.sessions.caps.answer_chars]))
        lines = [_line(i, f, tr) for i, (_, f) in enumerate(standings.ranked(game)[:3])]
        text = _plain("\n".join(lines)) or tr.gettext("No finished games here yet.")
        return Reply(Answer(text[: self.sessions.caps.answer_chars], alert=True))

    async def _load(self, chat: str) -> Standings | None:
        """The chat's standings (None: unreadable); reading them keeps them (their time to
        live starts again)."""
        try:
            doc = await self.sessions.standings(chat, TTL)
        except BadSession:  # (not even a document)
            return None
        return Standings.read(doc.data if doc else None)

    def board(self, chat: str, standings: Standings, games: list[str], tr: Translator) -> Message:
        """The leaderboards of `games` in `chat` (the games with no results left out)."""
        parts = []
        for name in games:
            ranked = standings.ranked(name)
            bundle = self.sessions.games.get(name)
            if not ranked or bundle is None:
                continue
            lines = [f"<b>{html.escape(bundle.presenter.title(tr))}</b>"]
            lines += [_line(i, f, tr) for i, (_, f) in enumerate(ranked[:SHOWN])]
            parts.append("\n".join(lines))
        if not parts:
            return say(chat, tr.gettext("No finished games here yet: /newgame opens one."))
        head = tr.gettext("📊 Standings in this chat")
        foot = tr.gettext("A rating rises most for beating strong players.")
        return say(chat, "\n\n".join([head, *parts, f"<i>{foot}</i>"]))

    async def mine(self, inc: Incoming, tr: Translator) -> Message:
        """The sender's figures in every chat where they sat down lately, per game."""
        user = inc.user.id
        lines = []
        chats = await self.sessions.people.games_of(user)
        for standings in await asyncio.gather(*(self._load(chat) for chat in chats)):
            if standings is None:  # (no figures of theirs can be told there)
                continue
            for bundle in self.sessions.games:
                ranked = standings.ranked(bundle.name)
                place = next((i for i, (pid, _) in enumerate(ranked) if pid == user), None)
                if place is None:
                    continue
                figures = ranked[place][1]
                where = html.escape(standings.title) if standings.title else tr.gettext("a chat")
                lines.append(
                    tr.t(
                        "<b>{game}</b> in {chat}: place {place} of {players}",
                        game=html.escape(bundle.presenter.title(tr)),
                        chat=where,
                        place=place + 1,
                        players=len(ranked),
                    )
                    + "\n"
                    + _figures(figures, tr)
                )
        if not lines:
            return say(inc.chat, tr.gettext("You have no results yet: play a game in a group."))
        shown = [tr.gettext("📊 Your standings")]
        room = self.sessions.caps.message_chars - 100  # (room for the last line)
        for i, line in enumerate(lines):  # the newest groups first, as many as a message holds
            if units("\n\n".join([*shown, line])) > room:
                shown.append(tr.nt("… and {n} more", "… and {n} more", len(lines) - i))
                break
            shown.append(line)
        return say(inc.chat, "\n\n".join(shown))


def _name(figures: Figures, tr: Translator) -> str:
    if figures.bot:
        return "🤖 " + html.escape(tr.gettext(figures.name))
    return html.escape(figures.name)


def _figures(figures: Figures, tr: Translator) -> str:
    games = tr.nt("{n} game", "{n} games", figures.played)
    wins = tr.nt("{n} win", "{n} wins", figures.wins)
    return tr.t(
        "rating {points} · {games} · {wins} ({rate}%)",
        points=figures.points,
        games=games,
        wins=wins,
        rate=round(100 * figures.win_rate),
    )


def _line(index: int, figures: Figures, tr: Translator) -> str:
    return f"{index + 1}. {_name(figures, tr)} — {_figures(figures, tr)}"


def _plain(text: str) -> str:
    return html.unescape(text.replace("<b>", "").replace("</b>", ""))
