"""Both platforms in one webhook server (`python -m chatbot web`): one store for both bots (one
Redis connection pool), closed once when the server stops."""

from __future__ import annotations

from chatbot.bootstrap import line_bot, telegram_bot, web_app
from chatbot.games import registry
from chatbot.line.bot import LineBot
from chatbot.settings import LineSettings, Settings, TelegramSettings
from chatbot.store.memory import MemoryStore
from chatbot.store.redis import RedisStore
from chatbot.telegram.bot import TelegramBot
from chatbot.web import app
from tests.e2e.fake_telegram import FakeTelegram
from tests.e2e.harness import request
from tests.line.fake_line import ACCESS_TOKEN, SECRET, FakeLine

WEBHOOK = "https://bot.example/telegram/webhook"


class CountedStore(MemoryStore):
    """The in-process store, counting how often it was closed."""

    def __init__(self) -> None:
        super().__init__()
        self.closed = 0

    async def close(self) -> None:
        self.closed += 1
        await super().close()


def _settings(line: FakeLine, tg: FakeTelegram, redis_url: str | None = None) -> Settings:
    return Settings(
        line=LineSettings(
            channel_secret=SECRET, channel_access_token=ACCESS_TOKEN, api_base_url=line.base_url
        ),
        telegram=TelegramSettings(
            token=tg.token, base_url=tg.base_url.removesuffix("/bot"), webhook_url=WEBHOOK
        ),
        redis_url=redis_url,
    )


async def test_the_command_builds_one_store_for_both_platforms(
    line: FakeLine, tg: FakeTelegram, redis_url: str
) -> None:
    server = web_app(_settings(line, tg, redis_url), registry())
    lb, tb = server.state.adapters
    assert isinstance(lb, LineBot) and isinstance(tb, TelegramBot)
    assert lb.sessions._store is tb.sessions._store, "one store, one connection pool"
    assert isinstance(lb.sessions._store, RedisStore)
    async with server.router.lifespan_context(server):
        assert tg.webhook_url == WEBHOOK and lb.basic_id == "@fakebot"


async def test_a_shared_store_is_closed_once_after_both_bots_stopped(
    line: FakeLine, tg: FakeTelegram
) -> None:
    store = CountedStore()
    settings = _settings(line, tg)
    lb = line_bot(settings, store, registry())
    tb = telegram_bot(settings, store, registry(), request=request(), get_updates_request=request())
    server = app(lb, tb)
    async with server.router.lifespan_context(server):
        assert store.closed == 0
    assert store.closed == 1


async def test_each_store_of_its_own_is_closed_once(line: FakeLine, tg: FakeTelegram) -> None:
    stores = CountedStore(), CountedStore()
    settings = _settings(line, tg)
    lb = line_bot(settings, stores[0], registry())
    tb = telegram_bot(
        settings, stores[1], registry(), request=request(), get_updates_request=request()
    )
    server = app(lb, tb)
    async with server.router.lifespan_context(server):
        pass
    assert [s.closed for s in stores] == [1, 1]
