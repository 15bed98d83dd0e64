"""Request bodies read with a limit: a request is refused before more than the limit is read
(the webhooks, the hand page's API)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import PlainTextResponse


class TooLarge(Exception):
    """A request body longer than the limit (the rest is not read)."""


async def bounded_body(request: Request, limit: int) -> bytes:
    """The request's body, read chunk by chunk; TooLarge as soon as it passes `limit` bytes
    (a declared Content-Length past it: before anything is read)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise TooLarge
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise TooLarge
        chunks.append(chunk)
    return b"".join(chunks)


def too_large() -> PlainTextResponse:
    """A webhook's answer to a body past its limit."""
    return PlainTextResponse("body too large", status_code=413)
