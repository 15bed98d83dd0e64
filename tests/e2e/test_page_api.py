"""The game page as a Telegram Mini App, over HTTP (no browser): the table's "My hand" is the
Mini App's direct link; init data is checked as Telegram documents it (forged, expired and
another bot's are refused); a move from the page is a press of its button (same stamps and
refusals), edits the group's table and sends nothing to the player's private chat; a group
member who is not playing watches; live updates reach a page served by another process."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from chatbot.i18n import translator
from chatbot.store.redis import RedisStore
from tests.e2e.fake_telegram import FakeTelegram
from tests.e2e.helpers import CHAT, GROUP
from tests.e2e.page_site import APP, Site, game_token, open_game, served

JSON = dict[str, Any]


@pytest.fixture
async def site(tg: FakeTelegram, redis_url: str, redis_prefix: str) -> AsyncIterator[Site]:
    async with served(tg, RedisStore.from_url(redis_url, redis_prefix)) as s:
        yield s


async def state(site: Site, user: JSON, **kw: Any) -> Any:
    async with site.client() as client:
        headers = {"Authorization": site.auth(user, **kw)}
        return await client.get("/webapp/api/state", params={"game": game_token()}, headers=headers)


async def move(site: Site, user: JSON, act: str, stamp: int, **kw: Any) -> Any:
    async with site.client() as client:
        body = {"game": kw.pop("game", game_token()), "act": act, "stamp": stamp}
        headers = {"Authorization": site.auth(user, **kw)}
        return await client.post("/webapp/api/move", json=body, headers=headers)


def private_sends(tg: FakeTelegram, users: list[JSON]) -> int:
    ids = {u["id"] for u in users}
    return sum(
        1
        for c in tg.calls
        if c.method in ("sendMessage", "editMessageText") and c.params.get("chat_id") in ids
    )


async def mover_of(site: Site, people: list[JSON]) -> JSON:
    for user in people:
        if (await state(site, user)).json()["choices"]:
            return user
    raise AssertionError("nobody may move")


async def test_the_table_links_to_the_mini_app_and_a_move_there_sends_nothing_private(
    site: Site,
) -> None:
    tg, h = site.tg, site.h
    ann, bob = tg.user(31, "Ann", language_code="en"), tg.user(32, "Bob", language_code="th")
    await open_game(h, tg, "egonomy", [ann, bob])
    table = tg.last_message(GROUP)
    assert table is not None
    urls = [x["url"] for row in table.reply_markup["inline_keyboard"] for x in row if "url" in x]
    assert urls == [f"https://t.me/{tg.bot_username}/{APP}?startapp={game_token()}"]
    mover = await mover_of(site, [ann, bob])
    shown = (await state(site, mover)).json()
    lang = "en" if mover is ann else "th"
    assert shown["words"]["turn"] == translator(lang).gettext("Your turn")
    private = private_sends(tg, [ann, bob])
    edits = len(tg.calls_to("editMessageText"))
    got = await move(site, mover, shown["choices"][0]["act"], shown["stamp"])
    assert got.status_code == 200 and got.json()["moved"], got.text
    assert got.json()["echo"] is None, "a Mini App posts nothing in the group"
    await h.bot.runner.delivery.flush()
    assert private_sends(tg, [ann, bob]) == private, "nothing in a private chat"
    assert len(tg.calls_to("editMessageText")) > edits, "the group's table is edited"
    session, _ = await h.bot.sessions.load(CHAT)
    assert session is not None and session.moves == shown["version"] + 1
    assert not h.bot.errors


async def test_forged_expired_and_other_bots_init_data_is_refused(site: Site) -> None:
    tg, h = site.tg, site.h
    ann, bob = tg.user(31, "Ann", language_code="en"), tg.user(32, "Bob", language_code="th")
    await open_game(h, tg, "ano", [ann, bob])
    mover = await mover_of(site, [ann, bob])
    shown = (await state(site, mover)).json()
    before, _ = await h.bot.sessions.load(CHAT)
    old = time.time() - h.settings.telegram.webapp_max_age - 60
    for kw in ({"token": "1234:another-bot"}, {"made": old}, {"made": time.time() + 3600}):
        got = await state(site, mover, **kw)
        assert got.status_code == 401 and got.json()["error"], kw
        got = await move(site, mover, shown["choices"][0]["act"], shown["stamp"], **kw)
        assert got.status_code == 401, kw
    good = site.auth(mover)
    forged = good.replace("Ann", "Eve").replace("Bob", "Eve")
    async with site.client() as client:
        for header in (forged, good.replace("tma ", "Bearer "), "tma x", "tma " + "a=1&" * 2000):
            got = await client.get(
                "/webapp/api/state",
                params={"game": game_token()},
                headers={"Authorization": header},
            )
            assert got.status_code == 401, header[:40]
        got = await client.get("/webapp/api/state", params={"game": game_token()})
        assert got.status_code == 401
    after, _ = await h.bot.sessions.load(CHAT)
    assert before is not None and after is not None and after.change == before.change


async def test_another_seat_another_group_and_big_bodies_are_refused(site: Site) -> None:
    tg, h = site.tg, site.h
    ann, bob = tg.user(31, "Ann", language_code="en"), tg.user(32, "Bob", language_code="en")
    eve = tg.user(35, "<b>Eve</b>", language_code="ja")
    await open_game(h, tg, "ano", [ann, bob])
    mover = await mover_of(site, [ann, bob])
    waiter = bob if mover is ann else ann
    shown = (await state(site, mover)).json()
    act, stamp = shown["choices"][0]["act"], shown["stamp"]
    before, _ = await h.bot.sessions.load(CHAT)
    other = game_token(-1009999999999)
    tg.group(-1009999999999, "Elsewhere", creator=eve)
    for user, kw, why in (
        (waiter, {}, "another seat's move"),
        (mover, {"game": other, "start": other}, "another group's game"),
        (eve, {}, "not a player"),
    ):
        got = await move(site, user, act, stamp, **kw)
        assert not got.json().get("moved") and (
            got.json().get("said") or got.json().get("error")
        ), why
    stranger = await state(site, eve)
    assert stranger.status_code == 403, "not a member of the group: nothing to watch"
    async with site.client() as client:
        headers = {"Authorization": site.auth(mover)}
        big = json.dumps({"game": game_token(), "act": "p" * 10_000, "stamp": stamp})
        got = await client.post("/webapp/api/move", content=big, headers=headers)
        assert got.status_code == 413 and got.json()["error"]
        for junk in (b"[]", b"{", b'{"game": 1}'):
            got = await client.post("/webapp/api/move", content=junk, headers=headers)
            assert got.status_code == 400 and got.json()["error"]
    after, _ = await h.bot.sessions.load(CHAT)
    assert before is not None and after is not None and after.change == before.change
    assert not h.bot.errors


async def test_a_move_made_through_one_process_reaches_a_page_served_by_another(
    tg: FakeTelegram, redis_url: str, redis_prefix: str
) -> None:
    """Two bot processes on one Redis: a page listening to process A's event stream hears of
    a move made through process B's API (Redis pub/sub)."""
    async with (
        served(tg, RedisStore.from_url(redis_url, redis_prefix)) as a,
        served(tg, RedisStore.from_url(redis_url, redis_prefix)) as b_,
    ):
        ann, bob = tg.user(31, "Ann", language_code="en"), tg.user(32, "Bob", language_code="en")
        cid = tg.user(33, "Cid", language_code="en")
        await open_game(a.h, tg, "egonomy", [ann, bob], members=(cid,))
        mover = await mover_of(b_, [ann, bob])
        shown = (await state(b_, mover)).json()
        heard: asyncio.Queue[str] = asyncio.Queue()

        async def listen() -> None:
            params = {"game": game_token(), "auth": a.auth(cid)}
            async with (
                a.client() as client,
                client.stream("GET", "/webapp/api/events", params=params) as got,
            ):
                assert got.status_code == 200
                async for line in got.aiter_lines():
                    await heard.put(line)

        listening = asyncio.create_task(listen())
        try:
            assert (await asyncio.wait_for(heard.get(), 10)).startswith("retry:")
            got = await move(b_, mover, shown["choices"][0]["act"], shown["stamp"])
            assert got.json()["moved"]
            line = await asyncio.wait_for(heard.get(), 10)
            while not line.startswith("data: "):  # (the blank line after "retry")
                line = await asyncio.wait_for(heard.get(), 10)
            doc = await a.h.bot.sessions.find(CHAT)
            assert doc is not None and line == f"data: {doc.version}", "the saved version"
        finally:
            listening.cancel()
            await asyncio.gather(listening, return_exceptions=True)
