"""The built wheel stands on its own (issue 21, item 9): installed into a fresh venv (its
dependencies from the package index), run from another directory with the checkout removed
and no EGOBOT_LOCALES or PYTHONPATH, every game plays a turn in Thai and in Japanese with
its texts translated: the prompts and the table from `messages`, EGO's questions from
`ego_questions` (a wheel without that domain shows them in English without a word)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from chatbot.games import registry

REPO = Path(__file__).resolve().parents[2]
LANGS = ("th", "ja")
SCRIPT = {"th": r"[\u0e00-\u0e7f]", "ja": r"[\u3040-\u30ff\u4e00-\u9fff]"}
FRAGMENT = 18  # English text this long, from a msgid, shown in th/ja: a missing catalogue


def _tracked_copy(dest: Path) -> Path:
    """The repository's tracked files (what a fresh clone holds) copied under `dest`."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source, target = REPO / name, dest / name
        if source.is_symlink():  # (chatbot/locales: a link to the top-level locales/)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(os.readlink(source))
        elif source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return dest


def _catalogue(lang: str, domain: str) -> list[tuple[str, str]]:
    with (REPO / "locales" / lang / "LC_MESSAGES" / f"{domain}.po").open("rb") as fp:
        catalog = read_po(fp, locale=lang)
    out = []
    for m in catalog:
        if m.id and isinstance(m.id, str) and isinstance(m.string, str):
            out.append((m.id, m.string))
    return out


def _english_fragments(domain: str) -> set[str]:
    """Stretches of the msgids' own text (between placeholders and tags) long enough that
    seeing one means English was shown."""
    found = set()
    for msgid, _ in _catalogue("en", domain):
        for part in re.split(r"\{[^}]*\}|<[^>]*>|\n", msgid):
            part = part.strip(" .,:;!?()\"'")
            if len(part) >= FRAGMENT and re.search(r"[a-z]{3} [a-z]{3}", part):
                found.add(part)
    return found


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The python of a fresh venv holding the wheel built from a clean copy, the copy gone."""
    if shutil.which("git") is None:
        pytest.fail("git is needed to list the repository's files")
    root = tmp_path_factory.mktemp("install")
    source = _tracked_copy(root / "src")
    wheels = root / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(source)],
        check=True,
        timeout=600,
    )
    (wheel,) = wheels.glob("*.whl")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", str(wheel)], check=True, timeout=900)
    shutil.rmtree(source)  # the installed package must stand on its own
    return python


def _env() -> dict[str, str]:
    drop = ("EGOBOT_LOCALES", "PYTHONPATH", "TELEGRAM_TOKEN", "REDIS_URL")
    return {k: v for k, v in os.environ.items() if k not in drop}


@pytest.mark.slow
def test_the_wheel_is_imported_from_the_venv_not_the_checkout(
    installed: Path, tmp_path: Path
) -> None:
    run = subprocess.run(
        [str(installed), "-c", "import chatbot, engine; print(chatbot.__file__, engine.__file__)"],
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
        check=True,
    )
    venv = installed.parent.parent
    assert all(Path(p).is_relative_to(venv) for p in run.stdout.split()), run.stdout


@pytest.mark.slow
def test_the_game_pages_files_are_in_the_wheel(installed: Path, tmp_path: Path) -> None:
    """The game page's static files and each platform's script for it travel as package
    data, each as in the checkout."""
    files = [
        ("chatbot.page", "static/page.html"),
        ("chatbot.page", "static/page.js"),
        ("chatbot.page", "static/page.css"),
        ("chatbot.line", "page_line.js"),
        ("chatbot.telegram", "page_telegram.js"),
    ]
    code = (
        "from importlib import resources; import sys;"
        f" [sys.stdout.write(str(len((resources.files(p) / n).read_bytes())) + ' ')"
        f" for p, n in {files!r}]"
    )
    run = subprocess.run(
        [str(installed), "-c", code], cwd=tmp_path, env=_env(), capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    sizes = [(REPO / p.replace(".", "/") / n).stat().st_size for p, n in files]
    assert run.stdout.split() == [str(n) for n in sizes]


@pytest.mark.slow
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("game", registry().names)
def test_every_game_plays_a_turn_translated(
    installed: Path, tmp_path: Path, game: str, lang: str
) -> None:
    run = subprocess.run(
        [str(installed), "-m", "chatbot", "console", game, "--lang", lang, "--seed", "1"],
        cwd=tmp_path,
        env=_env(),
        input="1\n",  # the first choice offered: a turn played
        capture_output=True,
        text=True,
        timeout=120,
    )
    out = run.stdout
    assert run.returncode == 0 and "Traceback" not in run.stderr, out + run.stderr
    prompt, _, after = out.partition("\n> ")
    assert after.strip(), f"no turn was played:\n{out}"
    assert len(re.findall(SCRIPT[lang], prompt)) > 50, f"the prompt is not in {lang}:\n{out}"
    shown = out.replace("\n", " ")
    english = [f for f in _english_fragments("messages") if f in shown]
    assert not english, f"English shown in {lang}: {english[:5]}"
    if game == "ego":
        questions = _english_fragments("ego_questions")
        assert not [f for f in questions if f in shown], "EGO's questions in English"
        translated = {s for _, s in _catalogue(lang, "ego_questions") if s}
        asked = [line for line in out.splitlines() if line.startswith("❓")]
        assert asked, out
        assert all(line.removeprefix("❓").strip() in translated for line in asked), asked
