"""Telegram in webhook mode through the webhook server (the ASGI app in process, the fake Bot
API server): the secret token is checked before anything is touched, updates are handled as
in polling mode, and /metrics counts them."""

from __future__ import annotations

import httpx

from chatbot.bootstrap import telegram_bot
from chatbot.games import registry
from chatbot.store.memory import MemoryStore
from chatbot.telegram.bot import SECRET_HEADER
from chatbot.web import app
from tests.e2e.fake_telegram import FakeTelegram
from tests.e2e.harness import pointed_at, request
from tests.e2e.helpers import GROUP

SECRET = "s3cret-token_1"
URL = "https://bot.example/telegram/webhook"


async def test_the_webhook_checks_the_secret_and_handles_updates(tg: FakeTelegram) -> None:
    settings = pointed_at(tg, webhook_url=URL, webhook_secret=SECRET)
    store = MemoryStore()
    bot = telegram_bot(settings, store, registry(), request=request())
    ann = tg.user(31, "Ann")
    tg.group(GROUP, "Symposium", creator=ann)
    server = app(bot)
    async with server.router.lifespan_context(server):
        assert tg.webhook_url == URL, "Telegram was told where to send updates"
        transport = httpx.ASGITransport(app=server)
        async with httpx.AsyncClient(transport=transport, base_url="http://bot") as client:
            update = tg.message_update(GROUP, ann, "/newgame")
            for headers in ({}, {SECRET_HEADER: "wrong"}):
                refused = await client.post("/telegram/webhook", json=update, headers=headers)
                assert refused.status_code == 403
            await bot.runner.delivery.flush()
            assert tg.last_message(GROUP) is None, "nothing was touched"
            assert (await bot.sessions.load(f"tg:{GROUP}"))[0] is None
            garbage = await client.post(
                "/telegram/webhook", content=b"{", headers={SECRET_HEADER: SECRET}
            )
            assert garbage.status_code == 400
            signed = {SECRET_HEADER: SECRET}
            ok = await client.post("/telegram/webhook", json=update, headers=signed)
            assert ok.status_code == 200
            await bot.runner.delivery.flush()
            lobby = tg.last_message(GROUP)
            assert lobby is not None and "Egonomy" in lobby.text
            assert (await client.get("/healthz")).status_code == 200
            metrics = (await client.get("/metrics")).text
            assert 'egobot_updates_total{kind="command",platform="telegram"}' in metrics
            assert 'egobot_messages_sent_total{how="send",platform="telegram"}' in metrics
