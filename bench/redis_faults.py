"""How long the bot's store takes to report a Redis fault, and whether it recovers at once.

Starts a throwaway redis-server (append-only file synced at every write), then with the
store's production settings (Settings(): REDIS_TIMEOUT etc. at their defaults) prints:
seconds until a load fails with StoreUnavailable while Redis is frozen (SIGSTOP) and while it
is down (killed), and how many of N loads right after a restart on the same port fail (the
pooled connections Redis closed by restarting).

Usage: python bench/redis_faults.py [--loads N]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from chatbot.settings import Settings
from chatbot.store.base import StoreUnavailable
from chatbot.store.redis import RedisStore


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start(port: int, workdir: str) -> subprocess.Popen[bytes]:
    server = shutil.which("redis-server") or sys.exit("redis-server is not on PATH")
    args = [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", workdir]
    args += ["--appendonly", "yes", "--appendfsync", "always"]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    time.sleep(0.3)
    return proc


async def failing_load(store: RedisStore) -> float:
    """Seconds until a load fails (it must)."""
    started = time.monotonic()
    try:
        await store.load("game:x")
    except StoreUnavailable:
        return time.monotonic() - started
    raise AssertionError("the load succeeded")


async def main(loads: int) -> None:
    settings = Settings()
    port = free_port()
    with tempfile.TemporaryDirectory() as workdir:
        proc = start(port, workdir)
        store = RedisStore.from_url(f"redis://127.0.0.1:{port}/0", "bench:", settings)
        try:
            await asyncio.gather(*(store.load("warm") for _ in range(loads)))  # a full pool
            proc.send_signal(signal.SIGSTOP)
            frozen = await failing_load(store)
            proc.send_signal(signal.SIGCONT)
            proc.kill()
            proc.wait()
            down = await failing_load(store)
            proc = start(port, workdir)
            await asyncio.gather(*(store.load("warm") for _ in range(loads)))
            proc.kill()
            proc.wait()
            proc = start(port, workdir)
            results = await asyncio.gather(
                *(store.load("game:x") for _ in range(loads)), return_exceptions=True
            )
            failed = sum(isinstance(r, BaseException) for r in results)
        finally:
            await store.close()
            proc.kill()
            proc.wait()
    print(f"REDIS_TIMEOUT {settings.redis_timeout} s, REDIS_RETRIES {settings.redis_retries}")
    print(f"Redis frozen: a load fails after {frozen:.2f} s")
    print(f"Redis down:   a load fails after {down:.3f} s")
    print(f"Redis restarted: {failed} of {loads} loads on pooled connections failed")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=25)
    asyncio.run(main(parser.parse_args().loads))
