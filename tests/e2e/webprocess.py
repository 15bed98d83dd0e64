"""Bot processes for tests: `python -m chatbot web` serving Telegram's webhook from the fake
Bot API server on a real Redis, updates posted to it as Telegram posts them."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from tests.e2e.fake_telegram import FakeTelegram
from tests.line.test_scale_out import free_port

REPO = Path(__file__).resolve().parents[2]
SECRET = "press-truth-secret"


def bot_process(
    platform: dict[str, str], redis_url: str, port: int, ops: int, log: Path, extra: dict[str, str]
) -> subprocess.Popen[bytes]:
    """`python -m chatbot web` for one platform (`platform`: its settings; the other's are
    left out) on `redis_url`, without the bot's delays, `extra` set over that; its errors go to
    `log`."""
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "LINE_"))},
        **platform,
        "REDIS_URL": redis_url,
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "METRICS_PORT": str(ops),
        "BOT_DELAY": "0",
        "TABLE_INTERVAL": "0",
        "THINK_WORKERS": "0",
        "PYTHONPATH": str(REPO),
        **extra,
    }
    return subprocess.Popen(
        [sys.executable, "-m", "chatbot", "web"],
        env=env,
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=log.open("ab"),
    )


def web_process(
    tg: FakeTelegram, redis_url: str, port: int, ops: int, log: Path, extra: dict[str, str]
) -> subprocess.Popen[bytes]:
    """The bot serving Telegram by webhook from the fake Bot API (no reminders)."""
    telegram = {
        "TELEGRAM_TOKEN": tg.token,
        "TELEGRAM_BASE_URL": f"http://127.0.0.1:{tg.port}",
        "TELEGRAM_WEBHOOK_URL": "https://bot.example/telegram/webhook",
        "TELEGRAM_WEBHOOK_SECRET": SECRET,
        "REMIND_AFTER": "3600",
        "TAKEOVER_AFTER": "3600",
    }
    return bot_process(telegram, redis_url, port, ops, log, extra)


class Web:
    """One bot process serving Telegram's webhook."""

    def __init__(
        self, tg: FakeTelegram, redis_url: str, log: Path, extra: dict[str, str] | None = None
    ) -> None:
        self.tg = tg
        self.port, self.ops = free_port(), free_port()
        self.proc = web_process(tg, redis_url, self.port, self.ops, log, extra or {})

    async def up(self, client: httpx.AsyncClient) -> None:
        deadline = time.monotonic() + 60
        while True:
            try:
                url = f"http://127.0.0.1:{self.ops}/healthz"
                if (await client.get(url)).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the web server did not start"
            await asyncio.sleep(0.1)

    async def post(self, client: httpx.AsyncClient, update: dict[str, Any]) -> None:
        """Deliver `update` as Telegram does; what the response asks is carried out."""
        response = await client.post(
            f"http://127.0.0.1:{self.port}/telegram/webhook",
            json=update,
            headers={"X-Telegram-Bot-Api-Secret-Token": SECRET},
        )
        self.tg.webhook_response(
            response.status_code, response.content, response.headers.get("content-type", "")
        )

    def end(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.kill()
            self.proc.wait(10)
