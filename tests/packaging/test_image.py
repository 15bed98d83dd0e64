"""The image builds from the Dockerfile's own context (issue 34, item 1).

Without a container engine the Dockerfile's steps run here: its COPY lines, read from the
Dockerfile, copy the checkout's files (the links among them as links, as COPY does) into an
empty folder, and its `pip` commands run there against a fresh venv: the locked versions,
checked against their hashes, then the bot built from exactly those files. The venv's bot then
answers `python -m chatbot health` and plays a turn in Thai (a Dockerfile that does not copy
`locales/` leaves `chatbot/locales` a broken link: the wheel has no catalogues, and the turn
is shown in English). Where docker, podman or buildah has a working engine, the image itself
is built and its health command run in it; where none has, that test says why it is skipped.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path, PurePosixPath

import pytest

REPO = Path(__file__).resolve().parents[2]
WORKDIR = PurePosixPath("/app")
THAI = r"[\u0e00-\u0e7f]"


def instructions(text: str) -> list[tuple[str, str]]:
    """The Dockerfile's instructions as (KEYWORD, arguments), continuation lines joined and
    comments dropped."""
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    joined = re.sub(r"\\\n", " ", "\n".join(lines))
    out = []
    for line in joined.splitlines():
        if line.strip():
            keyword, _, args = line.strip().partition(" ")
            out.append((keyword.upper(), args.strip()))
    return out


def copies(text: str) -> list[tuple[list[str], str]]:
    """Each COPY's sources (in the context) and destination (absolute, in the image; ending
    in / when the sources go into it by name)."""
    workdir = WORKDIR
    found = []
    for keyword, args in instructions(text):
        if keyword == "WORKDIR":
            workdir = workdir / args
        if keyword != "COPY":
            continue
        words = [w for w in shlex.split(args) if not w.startswith("--")]
        assert not any(w.startswith("--from") for w in shlex.split(args)), "one stage only"
        *sources, dest = words
        folder = dest.endswith("/") or len(sources) > 1  # the sources go into it by name
        found.append((sources, str(workdir / dest) + ("/" if folder else "")))
    return found


def ignored(relative: str, patterns: list[str]) -> bool:
    """Whether .dockerignore keeps `relative` (a path in the context) out of the context: a
    pattern matches the path or a folder above it, `**/name` a part of it at any depth, and
    the last pattern that matches decides (`!` lets it back in)."""
    parts = relative.split("/")
    prefixes = ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]
    out = False
    for pattern in patterns:
        negate = pattern.startswith("!")
        pattern = pattern.removeprefix("!").strip("/")
        if pattern.startswith("**/"):
            hit = any(fnmatch.fnmatch(part, pattern.removeprefix("**/")) for part in parts)
        else:
            hit = any(fnmatch.fnmatch(prefix, pattern) for prefix in prefixes)
        if hit:
            out = not negate
    return out


def stage(context: Path, dockerfile: str, root: Path) -> Path:
    """The files the Dockerfile's COPY lines put in the image, under `root` (as /); the
    image's working directory under `root`."""
    patterns = [
        line.strip()
        for line in (context / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    for sources, dest in copies(dockerfile):
        target = root / dest.lstrip("/")
        for source in sources:
            path = context / source
            assert path.exists() or path.is_symlink(), f"COPY {source}: not in the context"
            assert not ignored(source, patterns), f"COPY {source}: .dockerignore leaves it out"
            if path.is_dir() and not path.is_symlink():
                # a folder's contents go into the destination, links kept as links
                for item in sorted(path.rglob("*")):
                    relative = item.relative_to(context).as_posix()
                    if ignored(relative, patterns) or (item.is_dir() and not item.is_symlink()):
                        continue
                    out = target / item.relative_to(path)
                    out.parent.mkdir(parents=True, exist_ok=True)
                    if item.is_symlink():
                        out.symlink_to(os.readlink(item))
                    else:
                        shutil.copy2(item, out)
            else:
                out = target / path.name if dest.endswith("/") else target
                out.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, out)
    workdir = WORKDIR
    for keyword, args in instructions(dockerfile):
        if keyword == "WORKDIR":
            workdir = workdir / args
    return root / str(workdir).lstrip("/")


def pip_steps(dockerfile: str) -> list[list[str]]:
    """The `pip install` commands of the Dockerfile's RUN lines, in order."""
    steps = []
    for keyword, args in instructions(dockerfile):
        if keyword == "RUN":
            for command in args.split("&&"):
                words = shlex.split(command)
                if words and words[0] == "pip":
                    steps.append(words[1:])
    return steps


def build(dockerfile: str, root: Path) -> tuple[Path, Path]:
    """The Dockerfile's steps outside Docker: its files staged under `root`, its pip commands
    run there by a fresh venv's pip; (the venv's python, the staged working directory)."""
    app = stage(REPO, dockerfile, root / "image")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    steps = pip_steps(dockerfile)
    assert steps, "the Dockerfile installs nothing with pip"
    for args in steps:
        run = subprocess.run(
            [str(python), "-m", "pip", *args],
            cwd=app,
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert run.returncode == 0, f"pip {' '.join(args)}:\n{run.stdout[-3000:]}{run.stderr}"
    return python, app


def _env() -> dict[str, str]:
    drop = ("EGOBOT_LOCALES", "PYTHONPATH", "TELEGRAM_TOKEN", "REDIS_URL")
    return {k: v for k, v in os.environ.items() if k not in drop}


def thai_turn(python: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(python), "-m", "chatbot", "console", "egonomy", "--lang", "th", "--seed", "1"],
        cwd=cwd,
        env=_env(),
        input="1\n",
        capture_output=True,
        text=True,
        timeout=120,
    )


def quick_install(dockerfile: str, root: Path) -> tuple[Path, set[str]]:
    """The wheel built from the files the COPY lines stage, installed alone (no dependencies)
    into a fresh venv that borrows the dependencies of the venv running the tests (appended
    after its own packages, so the bot comes from the wheel); (its python, the wheel's files).
    The next test installs the locked dependencies instead, as the image does (slow)."""
    app = stage(REPO, dockerfile, root / "image")
    wheels = root / "wheels"
    pip = [sys.executable, "-m", "pip"]  # the tests' own pip and setuptools: quicker
    build = [*pip, "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(wheels)]
    subprocess.run([*build, str(app)], check=True, timeout=600)
    (wheel,) = wheels.glob("*.whl")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    install = [*pip, "--python", str(python), "install", "-q", "--no-deps", "--no-compile"]
    subprocess.run([*install, str(wheel)], check=True, timeout=600)
    own = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    borrowed = sysconfig.get_path("purelib")  # a .pth appends it (the editable bot's own
    (Path(own) / "borrowed.pth").write_text(borrowed + "\n")  # finder is not run from there)
    return python, set(zipfile.ZipFile(wheel).namelist())


def test_the_wheel_of_the_files_the_dockerfile_copies_runs(tmp_path: Path) -> None:
    dockerfile = (REPO / "Dockerfile").read_text()
    app = stage(REPO, dockerfile, tmp_path / "staged")
    assert (app / "chatbot" / "locales").is_symlink(), "COPY keeps the link"
    assert not (app / "tests").exists(), "the image holds no tests"
    python, names = quick_install(dockerfile, tmp_path)
    for lang in ("th", "ja", "en"):
        for domain in ("messages", "ego_questions"):
            assert f"chatbot/locales/{lang}/LC_MESSAGES/{domain}.po" in names
    assert any(n.startswith("chatbot/store/lua/") for n in names), "the Lua scripts travel"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = subprocess.run(
        [str(python), "-c", "import chatbot; print(chatbot.__file__)"],
        cwd=elsewhere,
        env=_env(),
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(where.stdout.strip()).is_relative_to(tmp_path / "venv"), where.stdout
    health = subprocess.run(
        [str(python), "-m", "chatbot", "health"],
        cwd=elsewhere,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert health.returncode == 0 and health.stdout.startswith("ok"), health.stderr
    turn = thai_turn(python, elsewhere)
    assert turn.returncode == 0, turn.stderr
    assert len(re.findall(THAI, turn.stdout.partition("\n> ")[0])) > 50, turn.stdout


def test_a_dockerfile_without_the_catalogues_is_caught(tmp_path: Path) -> None:
    """The check above fails for the Dockerfile of issue 34 (no COPY of locales/): the link
    leads nowhere, the wheel has no catalogue, and the bot it installs has no Thai (its
    health check alone would still pass)."""
    dockerfile = (REPO / "Dockerfile").read_text()
    broken = re.sub(r"^COPY locales .*$", "", dockerfile, flags=re.MULTILINE)
    assert broken != dockerfile
    app = stage(REPO, broken, tmp_path / "staged")
    assert not (app / "chatbot" / "locales" / "messages.pot").exists()
    python, names = quick_install(broken, tmp_path)
    assert not [n for n in names if n.startswith("chatbot/locales/")]
    turn = thai_turn(python, tmp_path)
    assert turn.returncode != 0 and "--lang th: not available" in turn.stderr, turn.stderr


@pytest.mark.slow
def test_the_dockerfiles_steps_install_a_bot_that_runs(tmp_path: Path) -> None:
    python, app = build((REPO / "Dockerfile").read_text(), tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.rmtree(app)  # the installed bot stands on its own, as in the image
    health = subprocess.run(
        [str(python), "-m", "chatbot", "health"],
        cwd=elsewhere,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert health.returncode == 0 and health.stdout.startswith("ok"), health.stderr
    turn = thai_turn(python, elsewhere)
    assert turn.returncode == 0, turn.stderr
    prompt = turn.stdout.partition("\n> ")[0]
    assert len(re.findall(THAI, prompt)) > 50, f"not in Thai:\n{turn.stdout}"
    pinned = subprocess.run(
        [str(python), "-m", "pip", "freeze"], capture_output=True, text=True, check=True
    ).stdout
    lock = (REPO / "scripts" / "requirements.lock").read_text()
    for line in pinned.splitlines():
        name, _, version = line.partition("==")
        if version and name != "egobot":  # every package installed is the locked version
            name = re.sub(r"[-_.]+", "-", name).lower()
            assert re.search(rf"^{re.escape(name)}=={re.escape(version)} ", lock, re.M), line


def _engine() -> tuple[str | None, str]:
    """A container tool whose engine answers, else (None, why not)."""
    reasons = []
    for tool, probe in (("docker", ["info"]), ("podman", ["info"]), ("buildah", ["version"])):
        path = shutil.which(tool)
        if path is None:
            reasons.append(f"no {tool}")
            continue
        run = subprocess.run([path, *probe], capture_output=True, text=True, timeout=60)
        if run.returncode == 0:
            return path, ""
        said = (run.stderr or run.stdout).strip().splitlines() or ["no output"]
        reasons.append(f"{tool} is installed but its engine does not answer: {said[-1]}")
    return None, "; ".join(reasons)


ENGINE, NO_ENGINE = _engine()  # a container tool whose engine answers, or why there is none


@pytest.mark.slow
@pytest.mark.skipif(ENGINE is None, reason=f"cannot build the image here: {NO_ENGINE}")
def test_the_image_builds_and_its_health_check_passes(tmp_path: Path) -> None:
    tool = ENGINE
    assert tool is not None
    tag = f"egobot-test:{os.getpid()}"
    if tool.endswith("buildah"):
        subprocess.run([tool, "bud", "-t", tag, str(REPO)], check=True, timeout=1800)
        return  # buildah builds but does not run containers: the build is the check
    subprocess.run([tool, "build", "-t", tag, str(REPO)], check=True, timeout=1800)
    try:
        run = subprocess.run(
            [tool, "run", "--rm", tag, "python", "-m", "chatbot", "health"],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert run.returncode == 0 and run.stdout.startswith("ok"), run.stdout + run.stderr
        user = subprocess.run(
            [tool, "run", "--rm", tag, "id", "-u"], capture_output=True, text=True, timeout=300
        )
        assert user.stdout.strip() != "0", "the bot runs as a user of its own"
    finally:
        subprocess.run([tool, "rmi", "-f", tag], capture_output=True, timeout=300)
