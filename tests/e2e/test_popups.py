"""Pop-ups within Telegram's 200 UTF-16 units, in every language, with the longest names.

"Callback answer text 0–200 characters" (Telegram counts UTF-16 code units: an emoji outside
the BMP is two). An outdated press tells what happened meanwhile, naming players: with names
of 64 units that would not fit, and Telegram refuses the whole answer."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator

import pytest

from chatbot.core import buttons as b
from chatbot.store.redis import RedisStore
from tests.e2e.fake_telegram import FakeTelegram, utf16_len
from tests.e2e.harness import Harness
from tests.e2e.helpers import load, open_table, ready_to_move, to_move, user_of

LONGEST = {  # Telegram's longest first name: 64 UTF-16 units
    "th": "🐘" * 10 + "สมศักดิ์ศรีมีชัย" * 4,
    "ja": "🌸" * 10 + "長い名前のプレイヤーさん" * 5,
    "en": "🦄" * 10 + "Bartholomew-Maximilian " * 3,
}


def longest(text: str) -> str:
    """`text` cut to 64 UTF-16 units."""
    while utf16_len(text) > 64:
        text = text[:-1]
    return text


@pytest.fixture
async def store(redis_url: str, redis_prefix: str) -> AsyncIterator[RedisStore]:
    store = RedisStore.from_url(redis_url, redis_prefix)
    yield store
    await store.close()


@pytest.mark.parametrize("lang", ["th", "ja", "en"])
async def test_an_outdated_press_naming_long_names_fits_a_pop_up(
    tg: FakeTelegram, store: RedisStore, lang: str
) -> None:
    name = longest(LONGEST[lang])
    users = [tg.user(81, name, language_code=lang), tg.user(82, name[::-1], language_code=lang)]
    h = await Harness(tg, store).start()
    try:
        await open_table(h, tg, users)
        rng = random.Random(3)
        answers: list[str] = []
        for _ in range(30):  # a move, then its button pressed again: outdated, with news
            session = await load(h)
            mover = user_of(session, to_move(session), users)
            hand = await ready_to_move(h, tg, mover, rng)
            move = next(d for d in hand.callback_data if d.startswith(b.MOVE))
            await h.press(mover, hand, move)
            update = await h.press(mover, hand, move, check=False)
            got = tg.callback_answer(update["callback_query"]["id"])
            assert got is not None, "the press was answered"
            answers.append(str(got.get("text") or ""))
        assert answers and all(utf16_len(a) <= 200 for a in answers)
        assert not [c for c in tg.calls_to("answerCallbackQuery") if not c.ok], "none refused"
        assert max(utf16_len(a) for a in answers) > 120, "long answers were made, and fit"
    finally:
        await h.stop()
