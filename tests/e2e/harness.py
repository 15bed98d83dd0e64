"""Drives the real Telegram adapter (python-telegram-bot) against the fake Bot API server."""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from typing import Any

from telegram import Update

from chatbot.bootstrap import telegram_bot
from chatbot.core.registry import Registry
from chatbot.games import registry
from chatbot.settings import Settings, TelegramSettings
from chatbot.store.base import Store
from chatbot.store.redis import RedisStore
from chatbot.telegram.request import AiohttpRequest
from tests.e2e.fake_telegram import FakeTelegram, StoredMessage

JSON = dict[str, Any]
TEST_SETTINGS = Settings(
    telegram=TelegramSettings(token="x", group_rate=100_000.0, overall_rate=100_000.0),
    bot_delay=0.0,
    remind_after=3600.0,
    takeover_after=3600.0,
    table_interval=0.0,
)


def request() -> AiohttpRequest:
    """The bot's own Bot API connection, ignoring any proxy set in the environment."""
    return AiohttpRequest(trust_env=False)


def pointed_at(tg: FakeTelegram, settings: Settings = TEST_SETTINGS, **telegram: Any) -> Settings:
    """`settings` with the Telegram adapter pointed at the fake Bot API server (its token and
    root), and `telegram`'s other Telegram settings (a webhook's URL and secret)."""
    root = tg.base_url.removesuffix("/bot")
    return replace(
        settings, telegram=replace(settings.telegram, token=tg.token, base_url=root, **telegram)
    )


class Harness:
    """One bot process: a TelegramBot on `store`, fed raw updates as Telegram sends them."""

    def __init__(
        self,
        tg: FakeTelegram,
        store: Store,
        settings: Settings = TEST_SETTINGS,
        clock: Callable[[], float] = time.time,
        games: Registry | None = None,
    ):
        self.tg = tg
        self.settings = pointed_at(tg, settings)
        self.bot = telegram_bot(
            self.settings,
            store,
            games or registry(),
            clock,
            request=request(),
            get_updates_request=request(),
        )

    async def start(self, heartbeat: bool = True) -> Harness:
        """Start the bot as a process does, its heartbeat included unless told (the tests
        tick)."""
        await self.bot.app.initialize()
        await self.bot.register_commands()
        if heartbeat:
            self.bot.runner.start_heartbeat()
        return self

    async def stop(self) -> None:
        await self.bot.runner.stop()
        await self.bot.app.shutdown()

    async def feed(self, update: JSON) -> None:
        await self.bot.app.process_update(Update.de_json(update, self.bot.app.bot))
        await self.bot.runner.delivery.settle()
        assert not self.bot.errors, self.bot.errors

    async def command(self, chat: JSON | int, user: JSON, text: str) -> None:
        await self.feed(self.tg.message_update(chat, user, text))

    async def press(
        self, user: JSON, message: StoredMessage, data: str, check: bool = True
    ) -> JSON:
        """Press a button of `message` (`check`: it must be on the message now)."""
        update = self.tg.callback_update(user, message, data, check=check)
        await self.feed(update)
        return update

    async def tick(self) -> int:
        """Run due timers once (computer moves); how many messages they produced."""
        posted = await self.bot.runner.tick()
        await self.bot.runner.delivery.settle()
        assert not self.bot.errors, self.bot.errors
        return posted


@contextlib.asynccontextmanager
async def two_processes(
    tg: FakeTelegram,
    redis_url: str,
    redis_prefix: str,
    settings: Settings = TEST_SETTINGS,
    clock: Callable[[], float] = time.time,
    games: Registry | None = None,
) -> AsyncIterator[tuple[Harness, Harness]]:
    """Two bot processes on one Redis, started; stopped (and their stores closed) after."""
    pair = tuple(
        Harness(tg, RedisStore.from_url(redis_url, redis_prefix), settings, clock, games)
        for _ in range(2)
    )
    for h in pair:
        await h.start()
    try:
        yield pair[0], pair[1]
    finally:
        tg.release()
        for h in pair:
            await h.stop()
            await h.bot.sessions._store.close()


def hand_message(tg: FakeTelegram, user_id: int) -> StoredMessage | None:
    """The player's private hand message: the latest bot message there with game buttons."""
    for message in reversed(tg.sent_to(user_id)):
        if any(d.startswith(("m", "n")) for d in message.callback_data):
            return message
    return None


def playable(message: StoredMessage) -> bool:
    return any(d.startswith(("m", "n")) for d in message.callback_data)


def pick(message: StoredMessage, rng: random.Random) -> str:
    """A button that makes progress: a move if there is one, else the deepest step."""
    moves = [d for d in message.callback_data if d.startswith("m")]
    if moves:
        return rng.choice(moves)
    steps = [d for d in message.callback_data if d.startswith("n")]
    deepest = max(len(d.rsplit("|", 1)[1]) for d in steps)
    return rng.choice([d for d in steps if len(d.rsplit("|", 1)[1]) == deepest])
