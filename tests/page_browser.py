"""The game page in a real browser: Debian's headless Chromium, driven by selenium through
chromedriver, on the bot's real web server; the platform's SDK is the tests' own stand-in
(tests/line/liff_sdk.js, tests/e2e/telegram_web_app.js), told who is logged in by a script
run before the page's own (`window.__liffTest`, `window.__telegramTest`).

A person's moves are made as a person makes them: tap a lit card (again, until a move fits
the picked cards), choose among the lit moves, press the one primary button. Screenshots go
to test-artifacts/page/ (git-ignored)."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from engine.core import restore

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts" / "page"
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
    "--hide-scrollbars",
)
LIVE_WAIT = 4.0  # seconds a page may take to show a move: less than its look when not live
T = TypeVar("T")


class Browser:
    """One headless Chromium (a browser context of its own); every call runs in a thread
    (the servers keep serving on this test's event loop meanwhile)."""

    def __init__(self, height: int = 780) -> None:
        options = Options()
        options.binary_location = "/usr/bin/chromium"
        for flag in CHROMIUM_FLAGS:
            options.add_argument(flag)
        self.driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        self.driver.set_window_size(360, height)
        self._script: str | None = None

    async def run(self, call: Callable[..., T], *args: Any) -> T:
        return await asyncio.to_thread(call, *args)

    async def open(self, url: str, before: dict[str, Any]) -> None:
        """Open `url` with `before` ({name: value}) set on `window` before any script runs."""
        await self.run(self._open, url, before)
        await self.idle()

    def _open(self, url: str, before: dict[str, Any]) -> None:
        cdp = self.driver.execute_cdp_cmd
        if self._script is not None:
            cdp("Page.removeScriptToEvaluateOnNewDocument", {"identifier": self._script})
        source = "".join(f"window.{k} = {json.dumps(v)};" for k, v in before.items())
        added = cdp("Page.addScriptToEvaluateOnNewDocument", {"source": source})
        self._script = added["identifier"]
        self.driver.get(url)

    async def idle(self, timeout: float = 30) -> None:
        """Wait until the page shows what it was waiting for (no request on its way)."""

        def done(driver: Any) -> bool:
            status = driver.find_element(By.ID, "status")
            return "idle" in (status.get_attribute("class") or "")

        await self.run(WebDriverWait(self.driver, timeout, poll_frequency=0.02).until, done)

    async def version(self) -> int | None:
        got = await self.run(self.driver.execute_script, "return document.body.dataset.version")
        return None if got is None else int(got)

    async def shows(self, version: int, timeout: float = LIVE_WAIT) -> float:
        """Wait until the page shows the game's `version` or a later one (by itself: live);
        the seconds it took."""
        began = time.monotonic()
        script = "return Number(document.body.dataset.version || -1)"

        def shown(driver: Any) -> bool:
            return int(driver.execute_script(script)) >= version

        await self.run(WebDriverWait(self.driver, timeout, poll_frequency=0.01).until, shown)
        return time.monotonic() - began

    async def over(self, timeout: float = LIVE_WAIT) -> None:
        """Wait until the page shows the game's end."""

        def done(driver: Any) -> bool:
            return bool(driver.execute_script("return document.body.dataset.over === 'true'"))

        await self.run(WebDriverWait(self.driver, timeout, poll_frequency=0.02).until, done)

    async def text(self, element_id: str) -> str:
        element = await self.run(self.driver.find_element, By.ID, element_id)
        return str(await self.run(getattr, element, "text"))

    async def all(self, css: str) -> list[Any]:
        return await self.run(self.driver.find_elements, By.CSS_SELECTOR, css)

    async def offered(self) -> bool:
        """Whether the page offers a move now (a lit card, or a move to choose)."""
        return bool(
            await self.all("#hand button.lit:not([disabled]), #choices button:not([disabled])")
        )

    async def make_move(self, rng: random.Random) -> str:
        """Make one move as a person does: pick lit cards until a move fits them, choose one
        of the moves that fit, press the primary button; the chosen move's code. A page that
        draws itself anew under the finger (another's move arrived) is tapped again."""
        for _ in range(10):
            try:
                return await self._make_move(rng)
            except StaleElementReferenceException:
                await asyncio.sleep(0.05)
        raise AssertionError("the page kept changing under the finger")

    async def _make_move(self, rng: random.Random) -> str:
        for _ in range(12):
            moves = await self.all("#choices button:not([disabled])")
            cards = await self.all("#hand button.lit:not([disabled]):not(.picked)")
            if moves and (not cards or rng.random() < 0.4):
                choice = rng.choice(moves)
                act = str(await self.run(choice.get_attribute, "data-act"))
                await self.run(choice.click)
                (primary,) = await self.all("#primary")
                await self.run(primary.click)
                await self.idle()
                return act
            if not cards:
                raise AssertionError("nothing to pick and no move offered")
            await self.run(rng.choice(cards).click)
        raise AssertionError("no move fits after 12 picks")

    async def screenshot(self, name: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        await self.run(self.driver.save_screenshot, str(path))
        return path

    async def full_screenshot(self, name: str) -> Path:
        """A screenshot of the whole page, however long (the window grows to fit it)."""
        script = "return document.documentElement.scrollHeight + outerHeight - innerHeight"
        height = await self.run(self.driver.execute_script, script)
        await self.run(self.driver.set_window_size, 360, max(640, min(int(height) + 8, 2400)))
        try:
            return await self.screenshot(name)
        finally:
            await self.run(self.driver.set_window_size, 360, 780)

    def close(self) -> None:
        self.driver.quit()


async def awaited(bot: Any, chat: str) -> tuple[str | None, int]:
    """The person (user id) whose move the game waits for, computers due acting first (None
    when the game is over), and the game's count of moves."""
    for _ in range(100):
        session, _ = await bot.sessions.load(chat)
        if session is None:
            return None, -1
        game = bot.sessions.bundle(session).game
        state = restore(game, session.state)
        seats = [s for s in game.to_move(state) if not session.seats[s].bot]
        if seats:
            return session.seats[seats[0]].user, session.moves
        await bot.runner.tick()
        await bot.runner.delivery.flush()
    raise AssertionError("the computers kept the game")


async def play_on_the_page(
    bot: Any, chat: str, pages: dict[str, Browser], watcher: Browser, name: str, seed: int
) -> dict[str, Any]:
    """Play a whole game on the pages (by user id), each person choosing at random among
    what their page offers when the game waits for them; every page, the watcher's too,
    follows each move by itself. Screenshots of a player's turn, of a waiting player, of a
    chance out of turn, of the watcher and of the end, named after `name`."""
    rng = random.Random(seed)
    moves, lags, shots = 0, [], set()
    for _ in range(3000):
        user, version = await awaited(bot, chat)
        if user is None:
            break
        page = pages[user]
        await page.shows(version)
        if "turn" not in shots:
            await page.full_screenshot(f"{name}-turn")
            for other, waiting in pages.items():
                if other != user:
                    await waiting.shows(version)
                    await waiting.full_screenshot(f"{name}-waiting")
            await watcher.shows(version)
            await watcher.full_screenshot(f"{name}-watcher")
            shots.add("turn")
        if "chance" not in shots:
            for other, waiting in pages.items():
                if other != user and await waiting.offered():
                    await waiting.full_screenshot(f"{name}-chance")
                    shots.add("chance")
        await page.make_move(rng)
        moves += 1
        await bot.runner.delivery.flush()
        session, _ = await bot.sessions.load(chat)
        if session is not None:
            lags.append(await watcher.shows(session.moves))
    else:
        raise AssertionError("the game did not end")
    for page in [*pages.values(), watcher]:
        await page.over()
    await next(iter(pages.values())).full_screenshot(f"{name}-end")
    await bot.runner.delivery.flush()
    assert not bot.errors, bot.errors
    return {"moves": moves, "slowest watcher update (s)": round(max(lags), 3) if lags else None}
