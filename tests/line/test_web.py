"""The webhook server's LINE route and health check, over HTTP (the ASGI app in process)."""

from __future__ import annotations

import httpx

from chatbot.bootstrap import line_bot
from chatbot.games import registry
from chatbot.line.bot import LineBot
from chatbot.line.convert import qualify
from chatbot.settings import LineSettings, Settings
from chatbot.store.memory import MemoryStore
from chatbot.web import app
from tests.line.fake_line import ACCESS_TOKEN, SECRET, FakeLine


async def test_signed_webhooks_are_handled_and_forged_ones_refused(
    bot: LineBot, line: FakeLine
) -> None:
    ann = line.user("Ann", "en")
    group = line.group(ann)
    body, signature = line.signed(line.text(group, ann, "/newgame"))
    transport = httpx.ASGITransport(app=app(bot))
    async with httpx.AsyncClient(transport=transport, base_url="http://bot") as client:
        forged = await client.post("/line/webhook", content=body, headers={"X-Line-Signature": "x"})
        missing = await client.post("/line/webhook", content=body)
        assert forged.status_code == missing.status_code == 400
        await bot.runner.delivery.flush()
        assert (await bot.sessions.load(qualify(group)))[0] is None and not line.sent
        signed = {"X-Line-Signature": signature}
        assert (await client.post("/line/webhook", content=body, headers=signed)).status_code == 200
        await bot.runner.delivery.flush()
        assert (await bot.sessions.load(qualify(group)))[0] is not None
        assert line.to(group)[-1].via == "reply"
        assert (await client.get("/healthz")).status_code == 200


async def test_the_app_starts_and_stops_its_bot(line: FakeLine) -> None:
    lb = line_bot(_settings(line), MemoryStore(), registry())
    server = app(lb)
    async with server.router.lifespan_context(server):
        assert lb.basic_id == "@fakebot", "the bot learnt its id at start"
    assert "/v2/bot/info" in line.calls


def _settings(line: FakeLine) -> Settings:
    return Settings(
        line=LineSettings(
            channel_secret=SECRET, channel_access_token=ACCESS_TOKEN, api_base_url=line.base_url
        )
    )
