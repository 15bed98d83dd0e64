"""The game page's routes, for one platform's bot (its `Identity`):

- `GET <prefix>/page?game=<token>`: the page (page.html; page.js, page.css and the adapter's
  script from `<prefix>/static/`, the platform's SDK from its URL; no inline script).
- `GET <prefix>/api/state?game=<token>[&lock=<lock>]`: the game as the asker may see it (a
  seat's hand and choices, or a group member's watcher view); once it is over and gone, its
  result from its record (the deal's `lock` names it).
- `POST <prefix>/api/move` `{game, act, stamp, heard}`: a move, made as the press of its
  button (`service.moves`: the same unit of work, stamps and refusals); the answer, the line
  the page may post in the group (`echo`) and the game now.
- `POST <prefix>/api/unheard` `{game}`: the page could not post in the group: its updates go
  as if no page held them.
- `GET <prefix>/api/events?game=<token>&auth=<scheme credential>`: Server-Sent Events, the
  game's stored version each time any process saves it (Redis pub/sub), 0 when it is gone;
  the page then reads the game again.

Every call proves its user (`Authorization: <scheme> <credential>`, or `auth` for the event
stream, which cannot send headers): the platform checks it (`Identity.user`).
"""

from __future__ import annotations

import asyncio
import html
import logging
import uuid
from collections.abc import AsyncIterator
from importlib import resources
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import orjson
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from chatbot.bodies import TooLarge, bounded_body
from chatbot.core import buttons as b
from chatbot.core.model import Press, User
from chatbot.core.record import BadRecord, Record
from chatbot.core.render import deal_of_session
from chatbot.core.session import PLAYING, BadSession, Session
from chatbot.i18n import N_, Translator, negotiate, translator
from chatbot.page import drawing
from chatbot.page.identity import UNVERIFIED, Identity, Refusal
from engine.core import BadState

if TYPE_CHECKING:
    from chatbot.core.runner import Runner
    from chatbot.core.sessions import Sessions

log = logging.getLogger(__name__)
BODY_LIMIT = 4096  # bytes of a page's request read at most (a move is a few dozen)
AUTH_CHARS = 4096  # characters of a credential read at most (init data: about 600)
STREAM_SECONDS = 55.0  # an event stream ends after this long (the browser opens it again)
KEEP_ALIVE = 15.0  # seconds between a quiet stream's comments (proxies close idle streams)
FILES = {"page.js": "text/javascript", "page.css": "text/css"}
JSON = dict[str, Any]
NOT_OURS = N_("This button is no longer in use.")
NO_GAME = N_("No game is running here.")
NOT_PLAYING = N_("You are not playing in this game.")


class GamePage:
    """The game page and its API, for one platform's bot."""

    def __init__(self, identity: Identity, runner: Runner) -> None:
        self.identity = identity
        self.runner = runner
        self.sessions: Sessions = runner.service.sessions
        folder = resources.files(__package__ or "chatbot.page") / "static"
        self.html = (folder / "page.html").read_text("utf-8")
        self.files = {name: (folder / name).read_text("utf-8") for name in FILES}
        self.files[identity.glue] = identity.glue_source
        self.types = FILES | {identity.glue: "text/javascript"}
        self.closing = asyncio.Event()

    def routes(self) -> list[Route]:
        p = self.identity.prefix
        return [
            Route(f"{p}/page", self.page, methods=["GET"]),
            Route(f"{p}/static/{{name}}", self.static, methods=["GET"]),
            Route(f"{p}/api/state", self.state, methods=["GET"]),
            Route(f"{p}/api/move", self.move, methods=["POST"]),
            Route(f"{p}/api/unheard", self.unheard, methods=["POST"]),
            Route(f"{p}/api/events", self.events, methods=["GET"]),
        ]

    # --- the page and its files -------------------------------------------------------------

    async def page(self, request: Request) -> HTMLResponse:
        tr = translator(_accepted(request))
        p = self.identity.prefix
        filled = {
            "{{lang}}": tr.locale,
            "{{sdk}}": html.escape(self.identity.sdk),
            "{{glue}}": html.escape(f"{p}/static/{self.identity.glue}"),
            "{{static}}": html.escape(f"{p}/static"),
            "{{api}}": html.escape(f"{p}/api"),
            "{{loading}}": html.escape(tr.gettext("Loading your hand…")),
        }
        page = self.html
        for mark, value in filled.items():
            page = page.replace(mark, value)
        headers = {"cache-control": "no-store", "content-security-policy": self.policy()}
        return HTMLResponse(page, headers=headers)

    def policy(self) -> str:
        """The page's Content-Security-Policy: its own files and API, the platform's script
        and the sites it talks to; no inline script (the web server adds who may frame it)."""
        sdk = urlsplit(self.identity.sdk)
        origin = f"{sdk.scheme}://{sdk.netloc}" if sdk.scheme and sdk.netloc else ""
        sites = " ".join(filter(None, (origin, self.identity.sites)))
        return (
            f"default-src 'self'; script-src 'self' {origin}; connect-src 'self' {sites}; "
            f"img-src 'self' data: {sites}; style-src 'self' 'unsafe-inline'; "
            f"frame-src 'self' {sites}; object-src 'none'; base-uri 'none'; form-action 'self'"
        )

    async def static(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in self.files:
            return Response("not found", status_code=404)
        return Response(self.files[name], media_type=self.types[name])

    # --- the API ----------------------------------------------------------------------------

    async def state(self, request: Request) -> JSONResponse:
        try:
            user, chat = await self._asker(request, request.query_params.get("game"))
            return JSONResponse(await self._shown(user, chat, request.query_params.get("lock")))
        except Refusal as refusal:
            return self._refused(request, refusal)

    async def move(self, request: Request) -> JSONResponse:
        try:
            body = await _body(request)
            user, chat = await self._asker(request, body.get("game"))
            act, stamp = body.get("act"), body.get("stamp")
            if not isinstance(act, str) or not isinstance(stamp, int) or isinstance(stamp, bool):
                raise Refusal(400, NOT_OURS)
            session = await self._session(chat)
            if session is None or session.phase != PLAYING:
                raise Refusal(409, NO_GAME)
            seat = session.seat_of(user.id)
            if seat is None:
                raise Refusal(403, NOT_PLAYING)
            bundle = self.sessions.bundle(session)
            said = self._said(session, seat, act)
            press = self._press(user, chat, act, stamp, bundle.private_hands, body)
            answer = await self.runner.handle(press)
            after = await self._session(chat)
            moved = after is None or after.moves != session.moves
            told = [answer.text] if answer is not None and answer.text else []
            shown = await self._shown(user, chat, deal_of_session(session, bundle).commitment)
            echo = self.identity.echo(said) if moved and said else None
            reply = {"said": drawing.plain("\n".join(told)), "moved": moved, "echo": echo}
            return JSONResponse(reply | shown)
        except Refusal as refusal:
            return self._refused(request, refusal)

    async def unheard(self, request: Request) -> JSONResponse:
        try:
            body = await _body(request)
            user, chat = await self._asker(request, body.get("game"))
            session = await self._session(chat)
            seat = None if session is None else session.seat_of(user.id)
            if session is None or seat is None:
                raise Refusal(403, NOT_PLAYING)
            tr = translator(session.seats[seat].language)
            await self.runner.delivery.release(chat, None)
            return JSONResponse({"said": tr.gettext(drawing.WORDS["unheard"])})
        except Refusal as refusal:
            return self._refused(request, refusal)

    async def events(self, request: Request) -> Response:
        """The game's versions as Server-Sent Events, each time any process saves it."""
        try:
            scheme, _, credential = request.query_params.get("auth", "").partition(" ")
            game = request.query_params.get("game")
            user, chat = await self._check(scheme, credential, game, _client(request))
            session = await self._session(chat)
            if session is None or session.seat_of(user.id) is None:
                await self._watcher(user, chat)
        except Refusal as refusal:
            return self._refused(request, refusal)
        return StreamingResponse(
            self._stream(chat),
            media_type="text/event-stream",
            headers={"cache-control": "no-store", "x-accel-buffering": "no"},
        )

    async def _stream(self, chat: str) -> AsyncIterator[str]:
        loop = asyncio.get_running_loop()
        ends = loop.time() + STREAM_SECONDS
        async with self.sessions.watch(chat) as queue:
            yield "retry: 1000\n\n"
            while not self.closing.is_set() and loop.time() < ends:
                wait = min(KEEP_ALIVE, ends - loop.time())
                try:
                    async with asyncio.timeout(wait):
                        version = await queue.get()
                except TimeoutError:
                    yield ": still here\n\n"
                    continue
                yield f"data: {version}\n\n"

    # --- who asks, and what they see --------------------------------------------------------

    async def _asker(self, request: Request, game: Any) -> tuple[User, str]:
        scheme, _, credential = request.headers.get("authorization", "").partition(" ")
        return await self._check(scheme, credential, game, _client(request))

    async def _check(
        self, scheme: str, credential: str, game: Any, client: str
    ) -> tuple[User, str]:
        """The verified user and the game's chat, or Refusal."""
        credential = credential.strip()
        if not credential or len(credential) > AUTH_CHARS:
            raise Refusal(401, UNVERIFIED)
        chat = self.identity.chat(game) if isinstance(game, str) and len(game) <= 100 else None
        if chat is None:
            raise Refusal(400, NO_GAME)
        user = await self.identity.user(scheme, credential, game, client)
        return user, chat

    async def _shown(self, user: User, chat: str, lock: Any) -> JSON:
        """What the user sees of the game of `chat`: their seat, else a watcher's view (a
        member of the group), else the result of the game that `lock` names."""
        session = await self._session(chat)
        if session is None or session.phase != PLAYING:
            return await self._result(user, chat, lock)
        seat = session.seat_of(user.id)
        if seat is None:
            await self._watcher(user, chat)
        tr = await self._translator(user, session)
        try:
            return drawing.table(session, self.sessions.bundle(session), seat, tr)
        except (BadSession, BadState, KeyError) as exc:
            log.error("unreadable session in %s: %r", chat, exc)
            raise Refusal(409, N_("This game could not be read: /stop ends it.")) from exc

    async def _watcher(self, user: User, chat: str) -> None:
        """Refusal unless the user is a member of the group."""
        if not await self.sessions.people.is_member(chat, user.id):
            raise Refusal(403, NOT_PLAYING)

    async def _result(self, user: User, chat: str, lock: Any) -> JSON:
        tr = await self._translator(user, None)
        if not isinstance(lock, str) or not lock.isalnum() or len(lock) > 64:
            raise Refusal(404, NO_GAME)
        await self._watcher(user, chat)
        doc = await self.sessions.record(chat, lock)
        if doc is None:
            raise Refusal(404, NO_GAME)
        try:
            shown = drawing.result(Record.loads(doc.data), self.sessions.games, tr)
        except BadRecord as exc:
            log.error("unreadable record in %s: %r", chat, exc)
            shown = None
        if shown is None:
            raise Refusal(404, NO_GAME)
        return shown

    def _said(self, session: Session, seat: int, act: str) -> str:
        """How the group may read the move `act` of `seat` ("" for a move not offered)."""
        bundle = self.sessions.bundle(session)
        try:
            tr = translator(session.seats[seat].language)
            drawn = drawing.table(session, bundle, seat, tr)
        except (BadSession, BadState, KeyError):
            return ""
        return next((str(c.get("said", "")) for c in drawn["choices"] if c["act"] == act), "")

    def _press(
        self, user: User, chat: str, act: str, stamp: int, private: bool, body: JSON
    ) -> Press:
        """The press of the move's button: on the seat's hand (its own chat, answered on the
        page) where hands are private, else on the group's table."""
        update = f"page:{uuid.uuid4().hex}"
        unheard = body.get("heard") is False
        try:
            if private:
                data = b.encode(b.MOVE, chat, act, stamp=stamp)
            else:
                data = b.encode(b.GROUP_MOVE, act, stamp=stamp)
        except ValueError:
            raise Refusal(400, NOT_OURS) from None
        if stamp < 0:
            raise Refusal(400, NOT_OURS)
        where = user.id if private else chat
        return Press(
            chat=where,
            private=private,
            user=user,
            data=data,
            update_id=update,
            aside=True,
            unheard=unheard,
        )

    async def _session(self, chat: str) -> Session | None:
        try:
            return (await self.sessions.load(chat))[0]
        except BadSession:
            return None

    async def _translator(self, user: User, session: Session | None) -> Translator:
        seat = session.seat_of(user.id) if session is not None else None
        if session is not None and seat is not None:
            return translator(session.seats[seat].language)
        people = self.sessions.people
        return translator(await people.user_language(user.id, user.language))

    def _refused(self, request: Request, refusal: Refusal) -> JSONResponse:
        tr = translator(_accepted(request))
        text = refusal.text if refusal.translated else tr.gettext(refusal.text)
        body = {"error": text, "words": drawing.words(tr)}
        return JSONResponse(body, status_code=refusal.status)

    async def close(self) -> None:
        self.closing.set()
        await self.identity.close()


def _accepted(request: Request) -> str:
    """The browser's first language (negotiated among the bot's)."""
    first = request.headers.get("accept-language", "").split(",")[0].split(";")[0].strip()
    return negotiate(first or None)


async def _body(request: Request) -> JSON:
    """The request's JSON object, read no further than BODY_LIMIT bytes."""
    try:
        body = orjson.loads(await bounded_body(request, BODY_LIMIT))
    except TooLarge:
        raise Refusal(413, NOT_OURS) from None
    except ValueError:
        raise Refusal(400, NOT_OURS) from None
    if not isinstance(body, dict):
        raise Refusal(400, NOT_OURS)
    return body


def _client(request: Request) -> str:
    """The requester's address (what limits its calls to the platform)."""
    return request.client.host if request.client is not None else ""
