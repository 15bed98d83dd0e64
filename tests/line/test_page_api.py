"""The game page's API on LINE (chatbot/page/server.py with chatbot/line/liff.py) over HTTP,
without a browser: ID tokens checked with the fake LINE Login verify endpoint, a player sees
only their own seat (a member of the group who is not playing watches), and a move made there
is a press of their hand's button (same stamps and refusals) that sends nothing to their 1:1
chat and pushes nothing: the group's table rides on the reply to the page's own line in the
group, which is the move itself."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from chatbot.bootstrap import line_bot
from chatbot.core import buttons as b
from chatbot.core import views
from chatbot.games import registry
from chatbot.i18n import translator
from chatbot.line.bot import LineBot
from chatbot.line.convert import plain, qualify
from chatbot.line.liff import ECHO
from chatbot.store.redis import RedisStore
from chatbot.web import app
from engine.core import restore
from tests.line.fake_line import FakeLine, liff_settings
from tests.line.test_line_game import buttons, deliver, started

JSON = dict[str, Any]


@dataclass
class Table:
    """A running Egonomy game of Ann (en) and Bob (th) in a group, and Cid (ja) who is not
    playing; the page's HTTP client."""

    bot: LineBot
    line: FakeLine
    client: httpx.AsyncClient
    group: str
    ann: str
    bob: str
    cid: str
    tokens: dict[str, str] = field(default_factory=dict)  # a page keeps its user's token

    def token(self, user: str) -> str:
        return self.tokens.setdefault(user, self.line.id_token(user))

    async def get(self, user: str, game: str | None = None, **kw: Any) -> httpx.Response:
        token = kw.pop("token", None) or self.token(user)
        headers = {"Authorization": f"Bearer {token}", "Accept-Language": kw.pop("lang", "en")}
        params = {"game": game or self.group, **kw}
        return await self.client.get("/liff/api/state", params=params, headers=headers)

    async def move(
        self, user: str, act: str, stamp: int, heard: bool = True, **kw: Any
    ) -> httpx.Response:
        token = kw.pop("token", None) or self.token(user)
        body = {"game": kw.pop("game", self.group), "act": act, "stamp": stamp, "heard": heard}
        return await self.client.post(
            "/liff/api/move", json=body, headers={"Authorization": f"Bearer {token}"}
        )

    async def state(self) -> tuple[Any, Any]:
        session, _ = await self.bot.sessions.load(qualify(self.group))
        assert session is not None
        game = self.bot.sessions.bundle(session).game
        return session, restore(game, session.state)

    async def turn(self) -> str:
        """The user whose turn it is."""
        session, state = await self.state()
        (seat,) = self.bot.sessions.bundle(session).game.to_move(state)
        return self.ann if session.seats[seat].user == qualify(self.ann) else self.bob


@pytest.fixture
async def table(line: FakeLine, redis_url: str, redis_prefix: str) -> AsyncIterator[Table]:
    bot = line_bot(liff_settings(line), RedisStore.from_url(redis_url, redis_prefix), registry())
    await bot.start()
    try:
        ann, bob, cid = line.user("Ann", "en"), line.user("Bob", "th"), line.user("Cid", "ja")
        group = line.group(ann, bob, cid)
        await started(bot, line, group, ann, bob, game="egonomy")
        await deliver(bot, line, line.follow(cid))
        transport = httpx.ASGITransport(app=app(bot))
        async with httpx.AsyncClient(transport=transport, base_url="http://bot") as client:
            yield Table(bot, line, client, group, ann, bob, cid)
    finally:
        await bot.stop()


async def test_the_table_opens_the_page_and_a_player_sees_their_own_cards(
    table: Table,
) -> None:
    line, bot = table.line, table.bot
    (link,) = [a for a in line.to(table.group)[-1].actions() if a["type"] == "uri"]
    assert link["uri"] == f"https://liff.line.me/{bot.settings.line.liff_id}?game={table.group}"
    session, state = await table.state()
    bundle = bot.sessions.bundle(session)
    for user, lang in ((table.ann, "en"), (table.bob, "th")):
        got = await table.get(user)
        assert got.status_code == 200, got.text
        body = got.json()
        assert body["words"]["turn"] == translator(lang).gettext("Your turn")
        seat = session.seat_of(qualify(user))
        assert body["seat"] == seat and body["stamp"] == session.stamps[seat]
        view = bundle.game.view(state, seat)
        assert [c["number"] for c in body["hand"]] == sorted(c["number"] for c in body["hand"]), (
            "sorted by number"
        )
        assert len(body["hand"]) == len(view.hand)
        legal = bundle.game.legal_actions(state, seat)
        acts = {c["act"] for c in body["choices"]}
        assert acts == {bundle.game.encode_action(a) for a in legal}
        other = bundle.game.view(state, 1 - seat)
        held = translator(lang).nt("{n} card", "{n} cards", len(other.hand))
        assert len(body["hand"]) != 0 and body["seats"][1 - seat]["note"].startswith(held), (
            "another seat: its size, never its cards"
        )
        assert len(body["areas"]) >= 3 and body["rules"], "the tables, and the rules"
    assert not line.pushes


async def test_forged_expired_and_other_channel_tokens_are_refused(table: Table) -> None:
    line = table.line
    before, _ = await table.state()
    forged = line.id_token(table.ann)[:-3] + "xyz"
    expired = line.id_token(table.ann, life=-10)
    other = line.id_token(table.ann, channel="1659999999")
    for token in (forged, expired, other):
        for got in (
            await table.get(table.ann, token=token, lang="th"),
            await table.move(table.ann, "b0.1", before.stamps[0], token=token),
        ):
            assert got.status_code == 401
            assert got.json()["error"], "a reason"
    got = await table.get(table.ann, token=expired, lang="th")
    assert "LINE" in got.json()["error"] and "หน้า" in got.json()["error"], "in Thai"
    missing = await table.client.get("/liff/api/state", params={"game": table.group})
    assert missing.status_code == 401
    reasons = {why for path, _, why in line.refused if path == "/oauth2/v2.1/verify"}
    assert reasons == {"Invalid IdToken.", "IdToken expired.", "Invalid IdToken Audience."}
    after, _ = await table.state()
    assert after.change == before.change and not line.pushes


async def test_a_verified_token_is_checked_once_until_it_expires(table: Table) -> None:
    token = table.line.id_token(table.ann)
    for _ in range(3):
        assert (await table.get(table.ann, token=token)).status_code == 200
    assert table.line.calls.count("/oauth2/v2.1/verify") == 1


VERIFY = "/oauth2/v2.1/verify"


async def test_forged_tokens_cost_line_a_bounded_number_of_calls(table: Table) -> None:
    """300 forged ID tokens from one client: LINE is asked about as many as the client's
    calls a minute allow (the rest are refused at once, 429, in the browser's language); a
    token LINE refused is refused again without asking; another client still gets its own
    calls, and a player's real token from there still opens the hand."""
    line, bot = table.line, table.bot
    allowed = int(bot.settings.line.liff_verify_per_minute)
    before = line.calls.count(VERIFY)
    statuses = []
    for n in range(300):
        forged = f"eyJhbGciOiJIUzI1NiJ9.{n:08d}.forged"
        statuses.append((await table.get(table.ann, token=forged, lang="ja")).status_code)
    calls = line.calls.count(VERIFY) - before
    assert calls == allowed, calls
    assert statuses.count(401) == allowed and statuses.count(429) == 300 - allowed
    got = await table.get(table.ann, token="eyJhbGciOiJIUzI1NiJ9.00000001.forged", lang="ja")
    assert got.status_code == 401, "refused again, remembered"
    refused = await table.get(table.ann, token="another.forged.one", lang="ja")
    assert refused.status_code == 429 and refused.json()["error"] == translator("ja").gettext(
        "Too many logins from here: wait a minute, then open this page again."
    )
    assert line.calls.count(VERIFY) - before == allowed

    transport = httpx.ASGITransport(app=app(bot), client=("192.0.2.7", 4000))
    async with httpx.AsyncClient(transport=transport, base_url="http://bot") as elsewhere:
        forged = "eyJhbGciOiJIUzI1NiJ9.00000001.forged"
        headers = {"Authorization": f"Bearer {forged}"}
        for _ in range(50):  # one token refused once: remembered for its life
            got = await elsewhere.get(
                "/liff/api/state", params={"game": table.group}, headers=headers
            )
            assert got.status_code == 401
        headers = {"Authorization": f"Bearer {line.id_token(table.ann)}"}
        got = await elsewhere.get("/liff/api/state", params={"game": table.group}, headers=headers)
        assert got.status_code == 200, got.text
    assert line.calls.count(VERIFY) - before == allowed + 1


async def test_a_member_not_playing_watches_and_a_stranger_sees_nothing(table: Table) -> None:
    got = await table.get(table.cid)
    assert got.status_code == 200, got.text
    body = got.json()
    assert body["seat"] is None and body["hand"] == [] and body["choices"] == []
    assert body["words"]["watching"] == translator("ja").gettext(
        "You are watching: only the players see their cards."
    )
    stranger = table.line.user("Eve", "en")
    got = await table.get(stranger)
    assert got.status_code == 403 and "hand" not in got.json()
    elsewhere = table.line.group(table.ann, name="Other")
    got = await table.get(table.ann, game=elsewhere)
    assert got.status_code in (403, 404) and "hand" not in got.json()
    bad = await table.get(table.ann, game="../../v2/bot/info")
    assert bad.status_code == 400


async def test_bad_moves_are_refused_with_a_reason_and_change_nothing(table: Table) -> None:
    line, bot = table.line, table.bot
    mover = await table.turn()
    waiter = table.bob if mover == table.ann else table.ann
    mine = (await table.get(mover)).json()
    act, stamp = mine["choices"][0]["act"], mine["stamp"]
    before, _ = await table.state()
    cases = [
        (waiter, act, stamp, table.group, "the other seat's move"),
        (mover, act, stamp - 1, table.group, "a stale stamp"),
        (mover, act, stamp, line.group(table.ann, table.bob), "another group's game"),
        (mover, "zz", stamp, table.group, "not a move of this game"),
        (mover, "x" * 80, stamp, table.group, "too long for a button"),
        (table.cid, act, stamp, table.group, "not a player"),
    ]
    for user, pressed, stamped, game, why in cases:
        got = await table.move(user, pressed, stamped, game=game)
        body = got.json()
        reason = body.get("said") or body.get("error")
        assert reason, why
        assert not body.get("moved"), why
        after, _ = await table.state()
        assert after.change == before.change, why
    tr = translator("en" if mover == table.ann else "th")
    outdated = tr.gettext("That button is outdated: here is your current hand.")
    assert (await table.move(mover, act, stamp - 1)).json()["said"].startswith(outdated)
    assert not line.pushes, "nothing pushed"
    assert all(s.via == "reply" for s in line.to(mover)), "nothing pushed to the player"
    assert not bot.errors


async def test_a_move_on_the_page_sends_nothing_until_the_page_speaks_in_the_group(
    table: Table,
) -> None:
    line, bot = table.line, table.bot
    mover = await table.turn()
    private_before = len(line.to(mover))
    in_group = len(line.to(table.group))
    act, stamp, echo = await _move_once(table, mover)
    await bot.runner.delivery.flush()
    assert len(line.to(mover)) == private_before, "nothing in the 1:1 chat"
    assert len(line.to(table.group)) == in_group, "the group's update waits for a reply"
    assert not line.pushes
    assert echo.startswith(ECHO + " ") and len(echo) > 3, "the line is the move itself"

    replay = await table.move(mover, act, stamp)
    tr = translator("en" if mover == table.ann else "th")
    outdated = tr.gettext("That button is outdated: here is your current hand.")
    assert not replay.json()["moved"] and replay.json()["said"].startswith(outdated)

    token = await deliver(bot, line, line.text(table.group, mover, echo))
    assert token and line.answered(token), "the page's line is answered"
    shown = line.to(table.group)[in_group:]
    assert shown and all(s.via == "reply" for s in shown)
    assert not line.pushes and not bot.errors


async def test_without_the_chat_the_group_is_told_as_before(table: Table) -> None:
    """The page opened outside the group (or not allowed to post): its move's update goes to
    the group as without a page (a push, after the table interval)."""
    line, bot = table.line, table.bot
    mover = await table.turn()
    await _move_once(table, mover, heard=False)
    await bot.runner.delivery.flush()
    assert line.pushes and all(s.chat == table.group for s in line.pushes)


async def test_a_finished_game_takes_no_move_and_shows_its_result(table: Table) -> None:
    line, bot = table.line, table.bot
    mover = await table.turn()
    mine = (await table.get(mover)).json()
    await deliver(bot, line, line.text(table.group, table.ann, "/stop"))
    assert (await bot.sessions.load(qualify(table.group)))[0] is None
    got = await table.move(mover, mine["choices"][0]["act"], mine["stamp"])
    body = got.json()
    assert (body.get("said") or body.get("error")) and not body.get("moved")
    assert (await table.get(mover)).status_code == 404, "stopped: no record"


async def _move_once(table: Table, user: str, heard: bool = True) -> tuple[str, int, str]:
    """Make the user's first choice on the page; its act, stamp and the page's line."""
    mine = (await table.get(user)).json()
    act, stamp = mine["choices"][0]["act"], mine["stamp"]
    got = await table.move(user, act, stamp, heard=heard)
    assert got.status_code == 200, got.text
    body = got.json()
    assert body["moved"], body
    return act, stamp, body["echo"]


async def test_without_a_liff_app_there_is_no_page(bot: LineBot, line: FakeLine) -> None:
    """Without LINE_LIFF_ID the bot is as before: "My hand" opens the 1:1 chat, no page."""
    transport = httpx.ASGITransport(app=app(bot))
    async with httpx.AsyncClient(transport=transport, base_url="http://bot") as client:
        assert (await client.get("/liff/page")).status_code == 404
        assert (await client.get("/liff/api/state")).status_code == 404
    assert not bot.capabilities.hold_unasked
    ann, bob = line.user("Ann", "en"), line.user("Bob", "en")
    group = line.group(ann, bob)
    await started(bot, line, group, ann, bob, game="egonomy")
    (link,) = [a["uri"] for a in line.to(group)[-1].actions() if a["type"] == "uri"]
    assert link.startswith("https://line.me/R/oaMessage/")


async def test_the_page_is_served_with_its_sdk_and_files(table: Table) -> None:
    page = await table.client.get("/liff/page?game=C1", headers={"Accept-Language": "ja"})
    assert page.status_code == 200 and 'lang="ja"' in page.text
    assert f'src="{table.bot.settings.line.liff_sdk_url}"' in page.text
    assert translator("ja").gettext("Loading your hand…") in page.text
    assert "<script>" not in page.text and "style=" not in page.text, "no inline script"
    for name in ("page.js", "page.css", "page_line.js"):
        assert (await table.client.get(f"/liff/static/{name}")).status_code == 200
    glue = (await table.client.get("/liff/static/page_line.js")).text
    assert json.dumps(table.bot.settings.line.liff_id) in glue
    assert (await table.client.get("/liff/static/../bot.py")).status_code == 404


async def test_a_take_over_pushes_nothing_and_rides_on_the_next_reply(
    line: FakeLine, redis_url: str, redis_prefix: str
) -> None:
    """With the page, an idle player is not reminded by push, the computer still moves for
    them, and the group learns of it with the next reply there (a press of 📖 Rules)."""
    now = [1_700_000_000.0]
    settings = liff_settings(line, remind_after=30.0, takeover_after=20.0)
    store = RedisStore.from_url(redis_url, redis_prefix)
    bot = line_bot(settings, store, registry(), lambda: now[0])
    await bot.start()
    try:
        ann, bob = line.user("Ann", "en"), line.user("Bob", "en")
        group = line.group(ann, bob)
        await started(bot, line, group, ann, bob, game="egonomy")
        table = line.to(group)[-1]
        before, _ = await bot.sessions.load(qualify(group))
        assert before is not None
        in_group = len(line.to(group))
        now[0] += 31  # past REMIND_AFTER: no reminder
        assert await bot.runner.tick() == 0
        now[0] += 21  # past TAKEOVER_AFTER: a computer moves for them
        await bot.runner.tick()
        await bot.runner.delivery.flush()
        after, _ = await bot.sessions.load(qualify(group))
        assert after is not None and after.moves == before.moves + 1
        assert len(line.to(group)) == in_group and not line.pushes, "nothing pushed"
        (rules,) = [d for d in buttons(table, b.RULE) if d.endswith(b.SEND_PRIVATELY)]
        token = await deliver(bot, line, line.postback(group, bob, rules))
        assert token and line.answered(token)
        told = line.to(group)[in_group:]
        assert any("was away" in json.dumps(s.message) for s in told), "it rides on the reply"
        assert all(s.via == "reply" for s in told) and not line.pushes and not bot.errors
    finally:
        await bot.stop()


async def test_a_request_past_the_limit_is_refused_unread(table: Table) -> None:
    """A move is a few dozen bytes: a body past 4 KB gets 413 and changes nothing, and a body
    that is not a JSON object gets 400."""
    before, _ = await table.state()
    headers = {"Authorization": f"Bearer {table.line.id_token(table.ann)}"}
    big = json.dumps({"game": table.group, "act": "x" * 20_000, "stamp": 1})
    got = await table.client.post("/liff/api/move", content=big, headers=headers)
    assert got.status_code == 413 and got.json()["error"]
    for junk in (b"[1, 2]", b"\xff\xfe", b"{"):
        got = await table.client.post("/liff/api/move", content=junk, headers=headers)
        assert got.status_code == 400 and got.json()["error"]
    after, _ = await table.state()
    assert after.change == before.change and not table.line.pushes


async def test_the_pages_message_brings_what_was_parked_to_whichever_process_gets_it(
    table: Table, redis_url: str, redis_prefix: str
) -> None:
    """Behind a load balancer the page's message in the group may reach another process than
    the one that saved the move (or this one after a restart). The group's updates were parked
    in the store, so that process's reply carries them: a plain move's table, and the end of
    a round with its results (the table as it is then shows the next round). With nothing
    parked (the message came twice), it answers with the table as it is now."""
    line, bot = table.line, table.bot
    other = line_bot(liff_settings(line), RedisStore.from_url(redis_url, redis_prefix), registry())
    await other.start()
    try:
        mover = await table.turn()
        in_group = len(line.to(table.group))
        _, _, echo = await _move_once(table, mover)
        token = await deliver(other, line, line.text(table.group, mover, echo))
        assert token and line.answered(token)
        (shown,) = line.to(table.group)[in_group:]
        session, state = await table.state()
        expected = views.table(session, bot.sessions.bundle(session), bot.capabilities)
        assert shown.via == "reply" and shown.text == plain(expected.text)

        game = bot.sessions.bundle(session).game
        for _ in range(200):  # until a move on the page ends the first round
            mover = await table.turn()
            in_group = len(line.to(table.group))
            _, _, echo = await _move_once(table, mover)
            session, state = await table.state()
            if game.view(state, None).round > 1:
                break
            await deliver(bot, line, line.text(table.group, mover, echo))  # as it parked it
        else:
            raise AssertionError("the first round did not end")
        await deliver(other, line, line.text(table.group, mover, echo))
        told = "\n".join(s.text for s in line.to(table.group)[in_group:])
        assert "Round 1 of 3 is over." in told, told
        assert all(s.via == "reply" for s in line.to(table.group)[in_group:])

        in_group = len(line.to(table.group))
        await deliver(other, line, line.text(table.group, mover, echo))  # the message again
        (again,) = line.to(table.group)[in_group:]
        expected = views.table(session, bot.sessions.bundle(session), bot.capabilities)
        assert again.via == "reply"  # (a long table is cut short to LINE's limit)
        assert plain(expected.text).startswith(again.text.removesuffix("…")), again.text
    finally:
        await other.stop()
    assert not line.pushes and not other.errors and not bot.errors


async def test_an_ego_pick_on_the_page_stays_secret_and_pushes_nothing(
    line: FakeLine, redis_url: str, redis_prefix: str
) -> None:
    """EGO's picks are the group table's buttons; made on the page, the page's line in the
    group says only that a pick was made, the confirmation stays on the page, and a refused
    pick is explained there too: nothing is pushed."""
    bot = line_bot(liff_settings(line), RedisStore.from_url(redis_url, redis_prefix), registry())
    await bot.start()
    try:
        ann, bob = line.user("Ann", "en"), line.user("Bob", "ja")
        group = line.group(ann, bob)
        await started(bot, line, group, ann, bob, game="ego")
        transport = httpx.ASGITransport(app=app(bot))
        async with httpx.AsyncClient(transport=transport, base_url="http://bot") as client:
            for user in (ann, bob):
                auth = {"Authorization": f"Bearer {line.id_token(user)}"}
                shown = await client.get("/liff/api/state", params={"game": group}, headers=auth)
                body = shown.json()
                assert body["areas"][0]["cards"][0]["face"] == "question"
                answer = next(c for c in body["choices"] if c["answer"])
                move = {"game": group, "act": answer["act"], "stamp": body["stamp"]}
                got = (await client.post("/liff/api/move", json=move, headers=auth)).json()
                assert got["moved"] and got["echo"] == f"{ECHO} 🤫", got
                assert got["said"], "the confirmation, on the page"
                stale = {"game": group, "act": answer["act"], "stamp": body["stamp"] - 1}
                refused = (await client.post("/liff/api/move", json=stale, headers=auth)).json()
                assert not refused["moved"] and refused["said"]
                await deliver(bot, line, line.text(group, user, got["echo"]))
        await bot.runner.delivery.flush()
        assert not line.pushes and not bot.errors
        said = [s.text for s in line.to(group)]
        assert not any("picked" in t for t in said), "no pick is told in the group"
    finally:
        await bot.stop()
