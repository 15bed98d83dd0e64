"""A plain `pip install .` (no checkout, no EGOBOT_LOCALES) carries the catalogues with it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _tracked_copy(dest: Path) -> Path:
    """The repository's tracked files (what a fresh clone holds) copied under `dest`."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():
            target = dest / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return dest


@pytest.mark.slow
def test_a_plain_install_shows_thai_for_lang_th(tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.fail("git is needed to list the repository's files")
    source = _tracked_copy(tmp_path / "src")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "."], cwd=source, check=True, timeout=600
    )
    shutil.rmtree(source)  # the installed package must stand on its own
    env = {k: v for k, v in os.environ.items() if k not in ("EGOBOT_LOCALES", "PYTHONPATH")}
    env.pop("TELEGRAM_TOKEN", None)
    run = subprocess.run(
        [str(python), "-m", "chatbot", "console", "--lang", "th", "--seed", "1"],
        cwd=tmp_path,
        env=env,
        input="",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "ผู้เล่น: คุณ " in run.stdout, run.stdout + run.stderr  # the player is "you" in Thai
    assert "You" not in run.stdout
