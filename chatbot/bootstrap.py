"""Start-up: the one place that builds the store, and for each adapter the sessions, game
service and runner it works through, from `Settings`. Adapters only translate and send; they
are handed their runner here (`attach`). `prepare` is what a process does once before any of
it runs (nothing is done at import time)."""

from __future__ import annotations

import atexit
import functools
import gc
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from chatbot.core import keys
from chatbot.core.outbox import Budget, Outbox
from chatbot.core.registry import Registry
from chatbot.core.runner import Runner
from chatbot.core.service import GameService
from chatbot.core.sessions import Platform, Sessions
from chatbot.core.thinking import ThinkingPool
from chatbot.settings import Settings, masked_url
from chatbot.store.base import Store
from chatbot.store.memory import MemoryStore

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from chatbot.line.bot import LineBot
    from chatbot.telegram.bot import TelegramBot
    from chatbot.web import WebAdapter


@functools.cache  # once
def prepare() -> None:
    """Once a process: python-telegram-bot's durations as `datetime.timedelta` (its coming
    default; without the opt-in it warns on every `retry_after`)."""
    os.environ["PTB_TIMEDELTA"] = "true"


@functools.cache  # one a process, whatever the platforms it serves
def thinking_pool(workers: int) -> ThinkingPool:
    """The process's thinking workers (`THINK_WORKERS`), each ended at exit (a stuck one too)."""
    made = ThinkingPool(workers)
    atexit.register(made.shutdown)
    return made


# Allocations between two collections of the youngest objects (Python's default: 700). A
# press makes thousands of short-lived objects; at 700 the collector ran several times a press
# and moved the objects of the presses in flight into the older generations, whose
# collections then walked the caches and kept games (docs/performance.md).
YOUNG_COLLECTION = 20_000


def settled() -> None:
    """Once a server is built, before it serves: what start-up made (modules, the bot, the
    translations) lives as long as the process, so the garbage collector stops walking it
    (`gc.freeze`); and the youngest objects are collected every `YOUNG_COLLECTION`
    allocations instead of 700, after most of a press's objects are gone."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_COLLECTION, 10, 10)


def startup_line(settings: Settings, polling: bool = False) -> str:
    """The one line a bot process logs as it starts: where the games live (Redis's URL
    without its password, or memory, which a restart empties) and what it serves (`polling`:
    Telegram by long polling; else the webhook server's platforms and pages)."""
    if settings.redis_url:
        cluster = " (a Redis Cluster)" if settings.redis_cluster else ""
        games = f"games live in Redis at {masked_url(settings.redis_url)}{cluster}"
    else:
        games = "games live in memory: they are lost on restart (set REDIS_URL to keep them)"
    line, telegram = settings.line, settings.telegram
    on: list[str] = []
    if polling:
        on.append("Telegram by long polling")
    else:
        if telegram.token and telegram.webhook_url:
            on.append("Telegram webhook /telegram/webhook")
            if telegram.webapp_name:
                on.append(f"Telegram game page /webapp/page (Mini App {telegram.webapp_name})")
        if line.channel_secret and line.channel_access_token:
            on.append("LINE webhook /line/webhook")
            if line.liff_id:
                on.append("LINE game page /liff/page")
            else:
                on.append("no LINE game page (LINE_LIFF_ID unset: hands go to 1:1 chats)")
        ops = f"{settings.metrics_host}:{settings.metrics_port}"
        on.append(f"/healthz and /metrics on {ops}")
    return f"{games}; on: {', '.join(on)}"


def open_store(settings: Settings) -> Store:
    """Redis at REDIS_URL, else the in-process store."""
    if not settings.redis_url:
        return MemoryStore()
    from chatbot.store.redis import RedisStore

    return RedisStore.from_settings(settings)


async def probe(settings: Settings) -> None:
    """One read from the store at REDIS_URL, as /healthz makes it (StoreUnavailable)."""
    store = open_store(settings)
    try:
        await store.get_setting(keys.HEALTH, "probe")
    finally:
        await store.close()


def service(
    store: Store,
    settings: Settings,
    games: Registry,
    platform: Platform,
    clock: Callable[[], float] = time.time,
) -> GameService:
    """The game service over `store`, for a platform with these ports."""
    sessions = Sessions(store, settings, games, platform, clock=clock)
    return GameService(sessions, thinking_pool(settings.think_workers))


class Adapter(Outbox, Protocol):
    """What the bootstrap needs of an adapter: its ports for the core, its message budget
    (None: unlimited) and a place for the runner built for it."""

    def ports(self) -> Platform: ...

    def budget(self) -> Budget | None: ...

    def attach(self, runner: Runner) -> None: ...


def wire(
    adapter: Adapter,
    store: Store,
    settings: Settings,
    games: Registry,
    clock: Callable[[], float] = time.time,
    monotonic: Callable[[], float] = time.monotonic,
) -> Runner:
    """Build `adapter`'s sessions, service and runner and hand it the runner."""
    runner = Runner(
        service(store, settings, games, adapter.ports(), clock),
        adapter,
        monotonic=monotonic,
        budget=adapter.budget(),
    )
    adapter.attach(runner)
    return runner


def telegram_bot(
    settings: Settings,
    store: Store,
    games: Registry,
    clock: Callable[[], float] = time.time,
    **builder_options: Any,
) -> TelegramBot:
    """The Telegram adapter wired to its runner; `builder_options` go to PTB's builder."""
    from chatbot.telegram.bot import TelegramBot

    bot = TelegramBot(settings, **builder_options)
    wire(bot, store, settings, games, clock)
    return bot


def line_bot(
    settings: Settings,
    store: Store,
    games: Registry,
    clock: Callable[[], float] = time.time,
    monotonic: Callable[[], float] = time.monotonic,
) -> LineBot:
    """The LINE adapter wired to its runner."""
    from chatbot.line.bot import LineBot

    bot = LineBot(settings, monotonic=monotonic)
    wire(bot, store, settings, games, clock, monotonic)
    return bot


def web_adapters(settings: Settings, store: Store, games: Registry) -> list[WebAdapter]:
    """An adapter for each platform configured for webhooks, all on `store`: LINE
    (LINE_CHANNEL_SECRET and LINE_CHANNEL_ACCESS_TOKEN), Telegram (TELEGRAM_TOKEN and
    TELEGRAM_WEBHOOK_URL)."""
    adapters: list[WebAdapter] = []
    if settings.line.channel_secret and settings.line.channel_access_token:
        adapters.append(line_bot(settings, store, games))
    if settings.telegram.token and settings.telegram.webhook_url:
        adapters.append(telegram_bot(settings, store, games))
    return adapters


def web_app(settings: Settings, games: Registry) -> Starlette:
    """The webhook app with the adapters configured on one store (one connection pool),
    which the app closes once at shutdown; /healthz and /metrics are served apart."""
    from chatbot.web import app

    return app(*web_adapters(settings, open_store(settings), games), ops=False)
