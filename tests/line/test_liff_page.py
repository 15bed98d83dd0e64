"""The hand page in a real browser: Debian's headless Chromium (driven by selenium through
chromedriver) opens /liff/hand on the real web server (uvicorn, in this process), with the
tests' stand-in for the LIFF SDK (tests/line/liff_sdk.js) and the fake LINE server, on a real
Redis. Players see their hand and move on the page; the page's own message in the group
(liff.sendMessages) is answered with the table: whole games cost no push.

Screenshots of the page (360 px wide) in th, ja and en are saved under test-artifacts/liff/
(git-ignored) for a person to look at."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from chatbot.bootstrap import line_bot
from chatbot.core import views
from chatbot.games import registry
from chatbot.i18n import translator
from chatbot.line.bot import LineBot
from chatbot.line.convert import qualify
from chatbot.line.liff import ECHO
from chatbot.store.redis import RedisStore
from chatbot.web import app
from engine.core import restore
from tests.line.fake_line import FakeLine, liff_settings
from tests.line.test_line_game import deliver, started
from tests.local_server import LocalServer

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "liff"
CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--window-size=360,780",
)
T = TypeVar("T")


class Browser:
    """One headless Chromium; every call runs in a thread (the servers keep serving on this
    test's event loop meanwhile)."""

    def __init__(self) -> None:
        options = Options()
        options.binary_location = "/usr/bin/chromium"
        for flag in CHROMIUM_FLAGS:
            options.add_argument(flag)
        self.driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        self.driver.set_window_size(360, 780)
        self._script: str | None = None

    async def run(self, call: Callable[..., T], *args: Any) -> T:
        return await asyncio.to_thread(call, *args)

    async def open(self, url: str, who: dict[str, Any]) -> None:
        """Open `url` as the LIFF SDK stand-in's user `who` ({idToken, chat, context})."""
        await self.run(self._open, url, who)
        await self.idle()

    def _open(self, url: str, who: dict[str, Any]) -> None:
        cdp = self.driver.execute_cdp_cmd
        if self._script is not None:
            cdp("Page.removeScriptToEvaluateOnNewDocument", {"identifier": self._script})
        source = f"window.__liffTest = {_js(who)};"
        self._script = cdp("Page.addScriptToEvaluateOnNewDocument", {"source": source})[
            "identifier"
        ]
        self.driver.get(url)

    async def idle(self) -> None:
        """Wait until the page shows what it was waiting for (no request on its way)."""

        def done(driver: Any) -> bool:
            status = driver.find_element(By.ID, "status")
            return "idle" in (status.get_attribute("class") or "")

        await self.run(WebDriverWait(self.driver, 30, poll_frequency=0.02).until, done)

    async def moves(self) -> list[Any]:
        return await self.run(self.driver.find_elements, By.CSS_SELECTOR, "#moves button")

    async def text(self, element_id: str) -> str:
        element = await self.run(self.driver.find_element, By.ID, element_id)
        return str(await self.run(getattr, element, "text"))

    async def press(self, button: Any) -> None:
        await self.run(button.click)
        await self.idle()

    def close(self) -> None:
        self.driver.quit()


def _js(value: dict[str, Any]) -> str:
    return json.dumps(value)


@pytest.fixture(scope="module")
def browser() -> Any:
    chrome = Browser()
    try:
        yield chrome
    finally:
        chrome.close()


class Site:
    """The bot's web server (webhook, hand page) with the fake LINE server posting to it."""

    def __init__(self, bot: LineBot, line: FakeLine, port: int) -> None:
        self.bot, self.line, self.port = bot, line, port
        self.tokens: dict[str, str] = {}  # the user's ID token, as LINE keeps it for a while

    def token(self, user: str) -> str:
        return self.tokens.setdefault(user, self.line.id_token(user))

    def page(self, group: str, via_state: bool = False) -> str:
        """The page's URL as LINE opens it: first with `liff.state` (the LIFF URL's query),
        then, after liff.init, with the query itself."""
        query = f"liff.state=%3Fgame%3D{group}" if via_state else f"game={group}"
        return f"http://127.0.0.1:{self.port}/liff/hand?{query}"

    def who(self, user: str, group: str, **more: Any) -> dict[str, Any]:
        token = self.token(user)
        return {"idToken": token, "chat": group, "context": "group", **more}


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


async def open_game(site: Site, game: str, people: list[str], computers: int = 0) -> str:
    """A group of `people` (friends of the bot) playing `game`, started; the group."""
    bot, line = site.bot, site.line
    group = line.group(*people)
    await started(bot, line, group, *people, game=game, computers=computers)
    return group


async def awaited(site: Site, group: str, people: list[str]) -> str | None:
    """The person whose move the game waits for (computers due act first); None when over."""
    bot = site.bot
    for _ in range(100):
        session, _ = await bot.sessions.load(qualify(group))
        if session is None:
            return None
        game = bot.sessions.bundle(session).game
        seats = [s for s in game.to_move(restore(game, session.state)) if not session.seats[s].bot]
        if seats:
            return next(u for u in people if qualify(u) == session.seats[seats[0]].user)
        await bot.runner.tick()
        await bot.runner.delivery.flush()
    raise AssertionError("the computers kept the game")


async def play_through_the_page(
    site: Site, browser: Browser, group: str, people: list[str], seed: int
) -> dict[str, int]:
    """Play a whole game on the page, each person pressing at random among their buttons;
    the counts of presses, moves, replies and pushes."""
    bot, line = site.bot, site.line
    rng = random.Random(seed)
    presses = moves = 0
    shown: str | None = None  # whose page is open
    for _ in range(2000):
        await bot.runner.tick()
        await bot.runner.delivery.flush()
        user = await awaited(site, group, people)
        if user is None:
            break
        if user != shown:
            await browser.open(site.page(group), site.who(user, group))
            shown = user
        choices = await browser.moves()
        if not choices:  # the page read the hand before the last computer moved
            shown = None
            continue
        before, _ = await bot.sessions.load(qualify(group))
        await browser.press(rng.choice(choices))
        await bot.runner.delivery.flush()
        after, _ = await bot.sessions.load(qualify(group))
        presses += 1
        moves += after is None or before is None or after.moves != before.moves
    else:
        raise AssertionError("the game did not end")
    await bot.runner.delivery.flush()
    assert not bot.errors, bot.errors
    assert not line.refused, line.refused
    return {
        "presses": presses,
        "moves": moves,
        "page messages": len(line.page_sent),
        "replies": len(line.replies),
        "pushes": len(line.pushes),
    }


async def test_the_page_in_three_languages_and_a_move_that_costs_nothing(
    site: Site, browser: Browser
) -> None:
    """Opened from the table's LIFF URL (its query in `liff.state`), the page speaks the
    player's language; a move made there is told to the group by the reply to the page's
    own message. Without the right to post there, the page says so and the group is told by
    push (the fallback)."""
    line, bot = site.line, site.bot
    ann, bob, cid = line.user("Ann", "en"), line.user("Bob", "th"), line.user("Cid", "ja")
    people = [ann, bob, cid]
    group = await open_game(site, "egonomy", people)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for user, lang in ((ann, "en"), (bob, "th"), (cid, "ja")):
        await browser.open(site.page(group, via_state=True), site.who(user, group))
        title = await browser.text("title")
        assert title == translator(lang).gettext("🃏 My hand")
        assert await browser.text("hand"), "the hand is shown"
        await browser.run(browser.driver.save_screenshot, str(ARTIFACTS / f"hand-{lang}.png"))
    width = await browser.run(browser.driver.execute_script, "return innerWidth")
    assert width <= 400, "a phone's width"

    mover = await awaited(site, group, people)
    assert mover is not None
    await browser.open(site.page(group), site.who(mover, group))
    in_group = len(line.to(group))
    for _ in range(10):
        before = len(line.page_sent)
        await browser.press((await browser.moves())[0])
        await bot.runner.delivery.flush()
        if len(line.page_sent) > before:
            break
    else:
        raise AssertionError("no move saved after 10 presses")
    told = line.to(group)[in_group:]
    assert told and all(s.via == "reply" for s in told), "the group sees it for free"
    said = await browser.text("said")
    lang = {ann: "en", bob: "th", cid: "ja"}[mover]
    assert said.endswith(translator(lang).gettext("Your move is in: the group sees it now."))
    assert not line.pushes

    nxt = await awaited(site, group, people)
    assert nxt is not None
    await browser.open(site.page(group), site.who(nxt, group, refuse=True))
    in_group, sent = len(line.to(group)), len(line.page_sent)
    for _ in range(10):
        await browser.press((await browser.moves())[0])
        await bot.runner.delivery.flush()
        if len(line.to(group)) > in_group:
            break
    assert len(line.page_sent) == sent, "the page could not post"
    assert line.pushes and all(s.chat == group for s in line.pushes), "told by push instead"
    lang = {ann: "en", bob: "th", cid: "ja"}[nxt]
    unheard = "This page cannot post in the group: the bot tells the group itself."
    assert (await browser.text("said")).endswith(translator(lang).gettext(unheard))
    assert not bot.errors


async def test_a_waiting_players_page_offers_their_moves_when_their_turn_comes(
    site: Site, browser: Browser
) -> None:
    """The page of a player who waits looks again by itself, quietly: when the other player
    has moved (on their own page), their choices appear without a press."""
    line, bot = site.line, site.bot
    people = [line.user("Ann", "en"), line.user("Bob", "th")]
    group = await open_game(site, "egonomy", people)
    mover = await awaited(site, group, people)
    waiter = next(u for u in people if u != mover)
    await browser.open(site.page(group), site.who(waiter, group))
    assert not await browser.moves()
    bundle = registry().get("egonomy")
    assert bundle is not None
    lang = "en" if waiter == people[0] else "th"
    waits = views.waiting(bundle, bot.capabilities, translator(lang))
    assert waits.split("\n")[0] in await browser.text("hand"), "their moves come there"
    assert "🃏" not in waits
    base = f"http://127.0.0.1:{site.port}"
    async with httpx.AsyncClient(base_url=base) as client:
        for _ in range(20):
            if await awaited(site, group, people) == waiter:
                break
            user = await awaited(site, group, people)
            assert user is not None
            auth = {"Authorization": f"Bearer {site.token(user)}"}
            got = await client.get("/liff/api/hand", params={"game": group}, headers=auth)
            for _ in range(10):  # the steps of a choice, then the move
                data = got.json()["hand"]["buttons"][0][0]["data"]
                body = {"game": group, "data": data, "heard": True}
                got = await client.post("/liff/api/move", json=body, headers=auth)
                if got.json()["moved"]:
                    await deliver(bot, line, line.text(group, user, ECHO))
                    break
        else:
            raise AssertionError("the waiter's turn never came")

    def offered(driver: Any) -> bool:
        return bool(driver.find_elements(By.CSS_SELECTOR, "#moves button"))

    await browser.run(WebDriverWait(browser.driver, 15, poll_frequency=0.1).until, offered)
    assert not line.pushes and not bot.errors


@pytest.mark.slow
async def test_a_whole_egonomy_game_of_two_people_on_the_page_costs_no_push(
    site: Site, browser: Browser
) -> None:
    line = site.line
    people = [line.user("Ann", "en"), line.user("Bob", "th")]
    group = await open_game(site, "egonomy", people)
    counts = await play_through_the_page(site, browser, group, people, seed=3)
    print(f"\nLINE Egonomy on the hand page, 2 people: {counts}")
    assert "🔓" in json.dumps(line.to(group)[-1].message, ensure_ascii=False), (
        "the final results in the group"
    )
    assert counts["pushes"] == 0
    assert counts["page messages"] == counts["moves"] > 10


@pytest.mark.slow
async def test_a_whole_ano_game_of_two_people_and_two_computers_on_the_page_costs_no_push(
    site: Site, browser: Browser
) -> None:
    line = site.line
    people = [line.user("Ann", "ja"), line.user("Bob", "en")]
    group = await open_game(site, "ano", people, computers=2)
    counts = await play_through_the_page(site, browser, group, people, seed=5)
    print(f"\nLINE Ano on the hand page, 2 people and 2 computers: {counts}")
    assert "🔓" in json.dumps(line.to(group)[-1].message, ensure_ascii=False), (
        "the final results in the group"
    )
    assert counts["pushes"] == 0
    assert counts["page messages"] == counts["moves"] > 5
