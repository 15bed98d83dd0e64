"""A short game per language through the Telegram end-to-end harness: every text the bot sends
(group table, lobby, narration, private hands, pop-up answers, button labels) is in the
players' language, with no English leaking into Thai or Japanese and no untranslated msgid."""

from __future__ import annotations

import random
import re

import pytest

from chatbot.store.memory import MemoryStore
from tests.e2e.fake_telegram import FakeTelegram
from tests.e2e.harness import Harness, hand_message, pick, playable

GROUP = -1009876543210
# The same in every language: the games' names (Uno too), the players' and the group's names,
# slash commands.
PROPER = re.compile(r"<code>[^<]*</code>|Egonomy|EGO|Uno|UNO|Ann|Bob|Symposium|/\w+")  # code: data
LATIN_WORD = re.compile(r"[A-Za-z]{3,}")
SCRIPT = {"th": re.compile(r"[\u0e00-\u0e7f]"), "ja": re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")}


def leaks(text: str, language: str) -> list[str]:
    """English words left in a text meant to be Thai or Japanese."""
    return LATIN_WORD.findall(PROPER.sub("", text))


def texts_sent(tg: FakeTelegram) -> list[str]:
    """Every text and button label the bot sent or answered with, as it was sent."""
    out: list[str] = []
    for call in tg.calls:
        params = call.params
        if call.method in ("sendMessage", "editMessageText"):
            out.append(str(params.get("text", "")))
            markup = params.get("reply_markup") or {}
            for row in markup.get("inline_keyboard", []):
                out.extend(str(button["text"]) for button in row)
        elif call.method == "answerCallbackQuery" and params.get("text"):
            out.append(str(params["text"]))
    return out


@pytest.mark.parametrize("game", ["egonomy", "ano"])
@pytest.mark.parametrize("language", ["th", "ja", "en"])
async def test_a_game_speaks_the_players_language(
    tg: FakeTelegram, language: str, game: str
) -> None:
    ann = tg.user(21, "Ann", language_code=language)
    bob = tg.user(22, "Bob", language_code=language)
    tg.group(GROUP, "Symposium", creator=ann)
    h = await Harness(tg, MemoryStore()).start()
    try:
        for user in (ann, bob):
            await h.command(user["id"], user, "/start")
        await h.command(GROUP, ann, f"/newgame {game}")
        lobby = tg.last_message(GROUP)
        assert lobby is not None
        await h.press(bob, lobby, next(d for d in lobby.callback_data if d.startswith("j")))
        lobby = tg.message(GROUP, lobby.message_id)
        await h.press(ann, lobby, next(d for d in lobby.callback_data if d.startswith("b")))
        lobby = tg.message(GROUP, lobby.message_id)
        await h.press(ann, lobby, next(d for d in lobby.callback_data if d.startswith("o")))
        lobby = tg.message(GROUP, lobby.message_id)
        await h.press(ann, lobby, next(d for d in lobby.callback_data if d.startswith("s")))
        await h.command(GROUP, ann, "/rules")
        await h.command(GROUP, bob, "/rule momentum")
        rng = random.Random(3)
        for _ in range(40):  # a short game: some moves by everyone
            if await h.tick():
                continue
            for user in (ann, bob):
                message = hand_message(tg, user["id"])
                if message is not None and playable(message):
                    await h.press(user, message, pick(message, rng))
                    break
        texts = texts_sent(tg)
        assert len(texts) > 50
        if language == "en":
            assert any(("Babble" if game == "egonomy" else "Top card") in t for t in texts)
            return
        for text in texts:
            assert not leaks(text, language), (text, leaks(text, language))
        assert sum(bool(SCRIPT[language].search(t)) for t in texts) > len(texts) // 2
    finally:
        await h.stop()
