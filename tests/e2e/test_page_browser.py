"""The game page as a Telegram Mini App in a real browser (tests/page_browser.py): the bot's
real web server, the fake Bot API server, the tests' stand-in for telegram-web-app.js, a real
Redis. People play whole games only on the page, each in a browser of their own, while a
member of the group who is not playing watches: every move shows on the other pages by
itself, the group's table is edited, and no move sends anything to a private chat."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from chatbot.i18n import translator
from chatbot.store.redis import RedisStore
from tests.e2e.fake_telegram import FakeTelegram
from tests.e2e.helpers import CHAT, GROUP
from tests.e2e.page_site import Site, open_game, served
from tests.page_browser import ARTIFACTS, Browser, play_on_the_page

DOCS_IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"
DARK = {  # Telegram's dark theme, as its clients send it
    "bg_color": "#17212b",
    "secondary_bg_color": "#232e3c",
    "text_color": "#f5f5f5",
    "hint_color": "#a8b3bf",
    "button_color": "#5288c1",
    "button_text_color": "#ffffff",
}
MESSAGES = ("sendMessage", "editMessageText", "editMessageReplyMarkup", "deleteMessage")


@pytest.fixture
async def site(tg: FakeTelegram, redis_url: str, redis_prefix: str) -> AsyncIterator[Site]:
    async with served(tg, RedisStore.from_url(redis_url, redis_prefix)) as s:
        yield s


@pytest.fixture(scope="module")
def browsers() -> Iterator[list[Browser]]:
    """Three browsers (two players and a watcher), each a context of its own."""
    opened = [Browser() for _ in range(3)]
    try:
        yield opened
    finally:
        for browser in opened:
            browser.close()


@pytest.fixture(autouse=True)
def blank_after(site: Site, browsers: list[Browser]) -> Iterator[None]:
    """After a test, every browser leaves its page (its event stream closes) before the web
    server stops."""
    yield
    for browser in browsers:
        browser.driver.get("about:blank")


def counted(tg: FakeTelegram, people: list[Any], since: int) -> dict[str, int]:
    """The Bot API's messages (sent, edited, deleted) since the `since`-th call: to the
    group, to the people's private chats."""
    calls = [c for c in tg.calls[since:] if c.method in MESSAGES and c.ok]
    private = {p["id"] for p in people}
    return {
        "group messages": sum(c.params.get("chat_id") == GROUP for c in calls),
        "private messages": sum(c.params.get("chat_id") in private for c in calls),
    }


async def play(
    site: Site, browsers: list[Browser], game: str, seed: int, scheme: str = "light"
) -> dict[str, Any]:
    tg, h = site.tg, site.h
    ann = tg.user(31, "Ann", language_code="en")
    bob = tg.user(32, "<i>Bob</i> & co", language_code="th")
    cid = tg.user(33, "Cid", language_code="ja")
    h.bot.sessions.seeds = lambda: seed  # the deal
    await open_game(h, tg, game, [ann, bob], members=(cid,))
    theme = DARK if scheme == "dark" else {}
    pages = {}
    for user, page in zip((ann, bob), browsers, strict=False):
        await page.open(site.page(), site.who(user, theme=theme, scheme=scheme))
        pages[f"tg:{user['id']}"] = page
    watcher = browsers[2]
    await watcher.open(site.page(), site.who(cid, theme=theme, scheme=scheme))
    since = len(tg.calls)
    counts = await play_on_the_page(h.bot, CHAT, pages, watcher, f"telegram-{game}", seed)
    counts |= counted(tg, [ann, bob, cid], since)
    counts["Bot API messages a move"] = round(
        (counts["group messages"] + counts["private messages"]) / counts["moves"], 2
    )
    return counts


def _keep_for_docs(*names: str) -> None:
    DOCS_IMAGES.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copyfile(ARTIFACTS / f"{name}.png", DOCS_IMAGES / f"page-{name}.png")


async def test_a_short_ano_game_in_the_mini_app_sends_no_private_message(
    site: Site, browsers: list[Browser]
) -> None:
    """Ann (en) and Bob (th, a name with markup) play Ano to its end in the Mini App, Cid (ja)
    watches: every move edits the group's table and sends no private message."""
    counts = await play(site, browsers, "ano", seed=7)
    print(f"\nTelegram Ano in the Mini App, 2 people: {counts}")
    assert counts["private messages"] == 0
    assert counts["moves"] > 5 and counts["Bot API messages a move"] <= 1.5
    watcher = browsers[2]
    assert await watcher.text("title") == translator("ja").gettext("Ano")
    assert "🏆" in await watcher.text("result-text")
    markup = await watcher.run(
        watcher.driver.execute_script, "return document.querySelectorAll('main i').length"
    )
    assert markup == 0, "names are text, never markup"
    assert "<i>Bob</i> & co" in await watcher.text("result-text"), "shown as written"
    _keep_for_docs("telegram-ano-turn")


@pytest.mark.slow
@pytest.mark.parametrize(("game", "seed", "scheme"), [("egonomy", 3, "dark"), ("ego", 4, "light")])
async def test_a_whole_game_in_the_mini_app_sends_no_private_message(
    site: Site, browsers: list[Browser], game: str, seed: int, scheme: str
) -> None:
    counts = await play(site, browsers, game, seed, scheme)
    print(f"\nTelegram {game} in the Mini App, 2 people: {counts}")
    assert counts["private messages"] == 0 and counts["moves"] > 5
    _keep_for_docs(f"telegram-{game}-turn")
