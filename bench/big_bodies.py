"""The web server's memory under oversized webhook requests (issue 21, item 1).

Starts the real server (`python -m chatbot web`: uvicorn, the Starlette app, LINE and
Telegram by webhook) as its own process on a real Redis, pointed at the local fake Bot API
and LINE servers, which run in this process. Then sends, six at once, unauthenticated 50 MB
POSTs to both webhooks: Telegram without its secret, LINE without a signature; each with its
length declared (a usual client) and sent in chunks with no length (a body the server must
read to refuse); and the same to Telegram with its secret (a body read until it is too
long). Prints the answers and the server's resident memory (VmRSS) before and after
each round, and its peak (VmHWM). A body is read at most to MAX_BODY bytes: the memory should
hardly grow.

Usage: python bench/big_bodies.py [--requests N] [--megabytes M] [--redis-url URL]
(without --redis-url a throwaway redis-server is started on a free port).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import sys
from collections.abc import AsyncIterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx
from telegram_presses import start_redis  # beside this file
from webhook_presses import SECRET as TELEGRAM_SECRET
from webhook_presses import Telegram, WatchedTelegram, free_port, server, until_up

from chatbot.telegram.bot import SECRET_HEADER
from tests.line.fake_line import ACCESS_TOKEN, SECRET, FakeLine

CHUNK = 64 * 1024
SENDERS: tuple[tuple[str, str, dict[str, str]], ...] = (  # (who, path, headers)
    ("Telegram", "/telegram/webhook", {}),
    ("LINE", "/line/webhook", {}),
    ("Telegram, its secret", "/telegram/webhook", {SECRET_HEADER: TELEGRAM_SECRET}),
)


def memory_mb(pid: int) -> tuple[float, float]:
    """The process's resident memory now and at its peak (MB; Linux)."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        fields[name] = value
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


async def chunks(size: int) -> AsyncIterator[bytes]:
    """`size` bytes in chunks, with no length declared (sent chunked)."""
    block = b"x" * CHUNK
    for _ in range(size // CHUNK):
        yield block
        await asyncio.sleep(0)


async def post(
    client: httpx.AsyncClient, path: str, headers: dict[str, str], size: int, declared: bool
) -> str:
    """One POST of `size` bytes: the status the server answered, or how the connection ended
    (a server that refuses early may close it while the body is sent)."""
    body = b"x" * size if declared else chunks(size)
    try:
        response = await client.post(path, content=body, headers=headers)
    except httpx.TransportError as exc:
        return type(exc).__name__
    return str(response.status_code)


async def run(args: argparse.Namespace, url: str) -> None:
    tg = WatchedTelegram()
    await tg.start()
    try:
        async with FakeLine.running() as line:
            port, ops = free_port(), free_port()
            env = {
                "LINE_CHANNEL_SECRET": SECRET,
                "LINE_CHANNEL_ACCESS_TOKEN": ACCESS_TOKEN,
                "LINE_API_BASE_URL": line.base_url,
            }
            proc = server(tg, url, port, ops, env=env)
            try:
                async with httpx.AsyncClient(
                    base_url=f"http://127.0.0.1:{port}", timeout=60, trust_env=False
                ) as client:
                    await until_up(Telegram(tg, client), proc, ops)
                    await measure(client, proc.pid, args.requests, args.megabytes * 1_000_000)
            finally:
                proc.terminate()
                proc.wait(timeout=30)
    finally:
        await tg.stop()


async def measure(client: httpx.AsyncClient, pid: int, requests: int, size: int) -> None:
    rss, peak = memory_mb(pid)
    print(f"server (pid {pid}) at rest: RSS {rss:.1f} MB, peak {peak:.1f} MB")
    print(f"{requests} POSTs of {size / 1e6:g} MB at once (no secret or signature but the last):")
    for declared in (True, False):
        for platform, path, headers in SENDERS:
            answers = await asyncio.gather(
                *(post(client, path, headers, size, declared) for _ in range(requests))
            )
            rss, peak = memory_mb(pid)
            told = ", ".join(f"{n}× {a}" for a, n in collections.Counter(answers).items())
            how = "length declared" if declared else "chunked, no length"
            print(
                f"  {platform:20} {how:18}  answers: {told:10}"
                f"  RSS after {rss:6.1f} MB, peak {peak:6.1f} MB"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=6)
    parser.add_argument("--megabytes", type=int, default=50)
    parser.add_argument("--redis-url")
    args = parser.parse_args()
    redis = None
    url = args.redis_url
    if url is None:
        redis, url = start_redis()
    try:
        asyncio.run(run(args, url))
    finally:
        if redis is not None:
            redis.terminate()


if __name__ == "__main__":
    main()
