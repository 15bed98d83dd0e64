"""Start-up errors (issue 21, item 8): what keeps the bot from starting is one line on stderr,
never a traceback, never a whole secret (a refused token shows the bot's number only, a
Redis URL its password as ***). Real processes: `python -m chatbot` and the fake Bot API."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import _free_port
from tests.e2e.fake_telegram import FakeTelegram

REPO = Path(__file__).resolve().parents[2]
URL = "https://bot.example/telegram/webhook"


def started(mode: str, env: dict[str, str], cwd: Path) -> tuple[int, str]:
    """Exit status and stderr of `python -m chatbot <mode>` with `env` (and nothing else of
    the bot's set in the environment)."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "LINE_"))}
    base.pop("REDIS_URL", None)
    done = subprocess.run(
        [sys.executable, "-m", "chatbot", mode],
        env={**base, "PYTHONPATH": str(REPO), "PORT": str(_free_port()), **env},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done.returncode, done.stderr


def one_line(err: str) -> str:
    assert "Traceback" not in err, err
    assert err.count("\n") == 1, err
    return err


@pytest.mark.parametrize("mode", ["telegram", "web"])
@pytest.mark.parametrize(
    "url", ["notaurl", "localhost:6379", "redis://:hunter2-secret@localhost:port/0", "http://x"]
)
def test_a_redis_url_that_cannot_be_right_is_one_line_without_its_password(
    mode: str, url: str, tmp_path: Path
) -> None:
    env = {"TELEGRAM_TOKEN": "1:x", "TELEGRAM_WEBHOOK_URL": URL, "REDIS_URL": url}
    code, err = started(mode, env, tmp_path)
    assert code == 2
    assert "REDIS_URL must be a URL such as redis://" in one_line(err)
    assert "hunter2-secret" not in err


@pytest.mark.parametrize("mode", ["telegram", "web"])
async def test_a_refused_token_is_one_line_with_the_bots_number_only(
    mode: str, tg: FakeTelegram, tmp_path: Path
) -> None:
    env = {
        "TELEGRAM_TOKEN": "123456:the-secret-part",
        "TELEGRAM_BASE_URL": f"http://127.0.0.1:{tg.port}",
        "TELEGRAM_WEBHOOK_URL": URL,
    }
    code, err = await asyncio.to_thread(started, mode, env, tmp_path)
    assert code == 2
    assert "Telegram refused TELEGRAM_TOKEN (123456:…)" in one_line(err)
    assert "the-secret-part" not in err


async def test_a_port_in_use_is_one_line(tg: FakeTelegram, tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        env = {
            "TELEGRAM_TOKEN": tg.token,
            "TELEGRAM_BASE_URL": f"http://127.0.0.1:{tg.port}",
            "TELEGRAM_WEBHOOK_URL": URL,
            "HOST": "127.0.0.1",
            "PORT": str(taken.getsockname()[1]),
        }
        code, err = await asyncio.to_thread(started, "web", env, tmp_path)
    assert code == 2 and "Traceback" not in err, err
    assert err.strip().splitlines()[-1].startswith("cannot listen: "), err


def test_ports_that_collide_are_refused_by_name(tmp_path: Path) -> None:
    env = {"TELEGRAM_TOKEN": "1:x", "PORT": "9000", "METRICS_PORT": "9000"}
    code, err = started("telegram", env, tmp_path)
    assert code == 2 and "METRICS_PORT must differ from PORT" in one_line(err)
