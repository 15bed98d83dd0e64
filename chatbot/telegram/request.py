"""The Bot API connection: python-telegram-bot's request interface on aiohttp's client.

PTB's own HTTPXRequest (httpx over httpcore) costs more processor time a call, and about
twice as much when calls overlap, as ours do (a press's answer and each chat's messages go
out at once): httpcore's pool hands one idle connection to every request that arrives in
the same moment, all but one find it taken and go round again, and each round checks every
idle connection's socket. aiohttp's pool gives each request a connection of its own.
bench/telegram_presses.py with `--bare-request ours|ptb` measures both (docs/performance.md).
aiohttp is already here for the LINE SDK. A call's parameters go as one JSON body (the Bot API
takes JSON for every call without files): PTB's own request form-encodes them, each value
JSON-encoded and then URL-quoted, which cost about 60 µs a call against 2 µs for this (a
press makes about three calls); a call with files goes as a multipart form.

Proxies come from the environment once, when the request is made (aiohttp's `trust_env`
would read the environment and ~/.netrc again in a worker thread for every call: a fifth of
the bot's processor time under load, bench/capacity.py)."""

from __future__ import annotations

import urllib.request
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import aiohttp
import orjson
from aiohttp.helpers import proxies_from_env
from aiohttp.payload import BytesPayload
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

if TYPE_CHECKING:
    from telegram._utils.types import ODVInput

_UNSET = type(BaseRequest.DEFAULT_NONE)  # a timeout the caller left to the default
JSON_BODY = "application/json"


KEEP_IDLE = 4.0  # seconds an idle connection is kept: under the servers' usual 5 s, since a
# call is never retried (a POST) and one sent as the server closes the connection is lost


class Proxies:
    """HTTP_PROXY/HTTPS_PROXY/NO_PROXY as read once (aiohttp's rules for `trust_env`: http://
    proxies only, ALL_PROXY ignored, a proxy's credentials in its URL or ~/.netrc), and the
    proxy for a URL by them."""

    def __init__(self) -> None:
        self._by_scheme = proxies_from_env()
        self._bypass = {"no": urllib.request.getproxies_environment().get("no", "")}
        self._for: dict[tuple[str, str], dict[str, Any]] = {}

    def __bool__(self) -> bool:
        return bool(self._by_scheme)

    def of(self, url: str) -> dict[str, Any]:
        """aiohttp's request options for `url`: the proxy and its credentials (in the request
        itself to an http:// URL, in the tunnel's request to an https:// one), or none."""
        parts = urlsplit(url)
        key = (parts.scheme, parts.netloc)
        if key not in self._for:
            info = self._by_scheme.get(parts.scheme)
            options: dict[str, Any] = {}
            if info is not None and not _bypass(parts.hostname or "", self._bypass):
                options["proxy"] = str(info.proxy)
                if info.proxy_auth is not None:
                    auth = {"Proxy-Authorization": info.proxy_auth.encode()}
                    options["headers" if parts.scheme == "http" else "proxy_headers"] = auth
            self._for[key] = options
        return self._for[key]


class AiohttpRequest(BaseRequest):
    """Bot API calls over one aiohttp session: at most `pool_size` connections at once (each
    with Nagle's algorithm off). With `trust_env`, an http:// proxy in HTTP_PROXY/HTTPS_PROXY
    (NO_PROXY honoured; ALL_PROXY and https:// proxy addresses are not), read from the
    environment here, once. Waiting for a free connection counts against the connect timeout
    plus the pool timeout together."""

    def __init__(
        self,
        pool_size: int = 64,
        read_timeout: float | None = 5.0,
        write_timeout: float | None = 5.0,
        connect_timeout: float | None = 5.0,
        pool_timeout: float | None = 1.0,
        media_write_timeout: float | None = 20.0,
        trust_env: bool = True,
    ) -> None:
        self._pool_size = pool_size
        self._read_timeout = read_timeout
        self._write_timeout = write_timeout
        self._connect_timeout = connect_timeout
        self._pool_timeout = pool_timeout
        self._media_write_timeout = media_write_timeout
        self._proxies = Proxies() if trust_env else None
        self._session: aiohttp.ClientSession | None = None

    @property
    def read_timeout(self) -> float | None:
        return self._read_timeout

    async def initialize(self) -> None:
        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(
                limit=self._pool_size, limit_per_host=0, keepalive_timeout=KEEP_IDLE
            )
            self._session = aiohttp.ClientSession(
                connector=connector,
                trust_env=False,  # the environment was read once, in __init__
                headers={"User-Agent": self.USER_AGENT},
                skip_auto_headers=("Accept-Encoding",),  # answers are small: not compressed
            )

    async def shutdown(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()

    @staticmethod
    def parse_json_payload(payload: bytes) -> Any:
        """Telegram's answer as JSON: by orjson (a fifth of the standard library's time), or
        where orjson refuses it (a lone surrogate, a number past 64 bits) as PTB reads it."""
        try:
            return orjson.loads(payload)
        except orjson.JSONDecodeError:
            return BaseRequest.parse_json_payload(payload)

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        """One call: (HTTP status, body). Timeouts raise TimedOut, other failures
        NetworkError, as PTB expects of a request."""
        session = self._session
        if session is None or session.closed:
            raise RuntimeError("This AiohttpRequest is not initialized!")
        files = request_data.multipart_data if request_data else None
        data: Any = None
        if files:
            form = aiohttp.FormData()
            for name, value in request_data.json_parameters.items():  # type: ignore[union-attr]
                form.add_field(name, value)
            for name, (filename, content, mime) in files.items():
                form.add_field(name, content, filename=filename, content_type=mime)
            data = form
        elif request_data is not None:
            data = BytesPayload(orjson.dumps(request_data.parameters), content_type=JSON_BODY)
        read = _given(read_timeout, self._read_timeout)
        write = _given(write_timeout, self._media_write_timeout if files else self._write_timeout)
        connect = _given(connect_timeout, self._connect_timeout)
        pool = _given(pool_timeout, self._pool_timeout)
        # aiohttp has no write timeout of its own: the whole call gets the sum of them all.
        parts = (pool, connect, write, read)
        timeout = aiohttp.ClientTimeout(
            total=None if None in parts else sum(parts),  # type: ignore[arg-type]
            connect=None if connect is None or pool is None else connect + pool,
            sock_connect=connect,
            sock_read=read,
        )
        options = self._proxies.of(url) if self._proxies else {}
        try:
            async with session.request(
                method, url, data=data, timeout=timeout, **options
            ) as response:
                return response.status, await response.read()
        except TimeoutError as exc:
            raise TimedOut from exc
        except aiohttp.ClientError as exc:
            raise NetworkError(f"aiohttp.{exc.__class__.__name__}: {exc}") from exc


def _bypass(host: str, proxies: dict[str, str]) -> bool:
    """NO_PROXY's verdict on `host`, by the standard library's rules (as aiohttp's)."""
    verdict = urllib.request.proxy_bypass_environment(host, proxies)  # type: ignore[attr-defined]
    return bool(verdict)


def _given(value: ODVInput[float], default: float | None) -> float | None:
    return default if isinstance(value, _UNSET) else value  # type: ignore[return-value]
