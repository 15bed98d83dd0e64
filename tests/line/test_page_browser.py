"""The game page on LINE in a real browser (tests/page_browser.py): the bot's real web server,
the fake LINE server, the tests' stand-in for the LIFF SDK, a real Redis. People play whole
games only on the page, each in a browser of their own, while a member of the group who is
not playing watches in another: every move shows on the other pages by itself. Each move's
line in the group is the move itself, answered for free with the table: no push."""

from __future__ import annotations

import json
import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from chatbot.bootstrap import line_bot
from chatbot.games import registry
from chatbot.i18n import translator
from chatbot.line.bot import LineBot
from chatbot.line.convert import qualify
from chatbot.line.liff import ECHO
from chatbot.store.redis import RedisStore
from chatbot.web import app
from tests.line.fake_line import FakeLine, liff_settings
from tests.line.test_line_game import started
from tests.local_server import LocalServer
from tests.page_browser import ARTIFACTS, Browser, play_on_the_page

DOCS_IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"


class Site:
    """The bot's web server (webhook, game page) with the fake LINE server posting to it."""

    def __init__(self, bot: LineBot, line: FakeLine, port: int) -> None:
        self.bot, self.line, self.port = bot, line, port

    def page(self, group: str, via_state: bool = False) -> str:
        """The page's URL as LINE opens it: first with `liff.state` (the LIFF URL's query),
        then, after liff.init, with the query itself."""
        query = f"liff.state=%3Fgame%3D{group}" if via_state else f"game={group}"
        return f"http://127.0.0.1:{self.port}/liff/page?{query}"

    def who(self, user: str, group: str, **more: Any) -> dict[str, Any]:
        token = self.line.id_token(user)
        return {"__liffTest": {"idToken": token, "chat": group, "context": "group", **more}}


@pytest.fixture
async def site(line: FakeLine, redis_url: str, redis_prefix: str) -> AsyncIterator[Site]:
    settings = liff_settings(line)
    bot = line_bot(settings, RedisStore.from_url(redis_url, redis_prefix), registry())
    await bot.start()
    server = LocalServer(app(bot, ops=False), "the bot's web server")
    port = await server.start()
    line.webhook = f"http://127.0.0.1:{port}/line/webhook"
    try:
        yield Site(bot, line, port)
    finally:
        await server.stop()
        await bot.stop()


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


async def open_pages(
    site: Site, browsers: list[Browser], group: str, people: list[str], watcher: str
) -> tuple[dict[str, Browser], Browser]:
    pages = dict(zip(people, browsers, strict=False))
    for user, page in pages.items():
        await page.open(site.page(group, via_state=True), site.who(user, group))
    watching = browsers[len(people)]
    await watching.open(site.page(group), site.who(watcher, group))
    return {qualify(user): page for user, page in pages.items()}, watching


async def test_a_short_ano_game_played_only_on_the_page(
    site: Site, browsers: list[Browser]
) -> None:
    """Two people play Ano to its end on the page, in Japanese and Thai, watched by a third
    member in English; each move's line in the group is the move itself, and no push."""
    line = site.line
    ann, bob, cid = line.user("Ann", "ja"), line.user("Bob", "th"), line.user("<b>Cid</b>", "en")
    group = line.group(ann, bob, cid)
    site.bot.sessions.seeds = lambda: 5  # the deal
    await started(site.bot, line, group, ann, bob, game="ano")
    await _befriend(site, cid)
    pages, watcher = await open_pages(site, browsers, group, [ann, bob], cid)
    title = await pages[qualify(ann)].text("title")
    assert title == translator("ja").gettext("Ano")
    watching = await watcher.text("prompt")
    assert watching == translator("en").gettext(
        "You are watching: only the players see their cards."
    )
    assert not await watcher.all("#hand button"), "a watcher sees no hand"
    seats = await watcher.text("seats")
    assert "<b>Cid</b>" not in seats, "only players sit"
    counts = await play_on_the_page(site.bot, qualify(group), pages, watcher, "line-ano", seed=5)
    counts |= {"page lines": len(line.page_sent), "pushes": len(line.pushes)}
    print(f"\nLINE Ano on the page, 2 people: {counts}")
    assert counts["pushes"] == 0
    assert counts["page lines"] == counts["moves"] > 5, "one line in the group a move"
    assert all(text.startswith(ECHO + " ") for _, _, text in line.page_sent)
    plays = [t for _, _, t in line.page_sent if any(s in t for s in "♠♥♦♣")]
    assert plays, "a play's line names its cards"
    result = await pages[qualify(ann)].text("result-text")
    assert "🏆" in result and "🔓" in await pages[qualify(ann)].text("result-key")
    _keep_for_docs("line-ano-turn", "line-ano-end")


async def _befriend(site: Site, user: str) -> None:
    from tests.line.test_line_game import deliver

    await deliver(site.bot, site.line, site.line.follow(user))


def _keep_for_docs(*names: str) -> None:
    """Copy screenshots of this run into docs/images (the README shows them)."""
    DOCS_IMAGES.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copyfile(ARTIFACTS / f"{name}.png", DOCS_IMAGES / f"page-{name}.png")


@pytest.mark.slow
@pytest.mark.parametrize(("game", "seed"), [("egonomy", 3), ("ego", 4)])
async def test_a_whole_game_on_the_page_costs_no_push(
    site: Site, browsers: list[Browser], game: str, seed: int
) -> None:
    line = site.line
    ann, bob, cid = line.user("Ann", "en"), line.user("Bob", "th"), line.user("Cid", "ja")
    group = line.group(ann, bob, cid)
    site.bot.sessions.seeds = lambda: seed  # the deal
    await started(site.bot, line, group, ann, bob, game=game)
    await _befriend(site, cid)
    pages, watcher = await open_pages(site, browsers, group, [ann, bob], cid)
    counts = await play_on_the_page(site.bot, qualify(group), pages, watcher, f"line-{game}", seed)
    counts |= {"page lines": len(line.page_sent), "pushes": len(line.pushes)}
    print(f"\nLINE {game} on the page, 2 people: {counts}")
    assert counts["pushes"] == 0
    assert counts["page lines"] == counts["moves"] > 5
    final = json.dumps(line.to(group)[-1].message, ensure_ascii=False)
    assert "🔓" in final, "the final results in the group"
    _keep_for_docs(f"line-{game}-end")
