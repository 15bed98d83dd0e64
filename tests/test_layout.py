"""The house plan holds: modules import one way (no circles), and shared code names no game
and no platform (a game lives in its bundle, a platform in its adapter)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("chatbot", "engine")
PLATFORMS = ("telegram", "line")


def games() -> tuple[str, ...]:
    """Every hosted game's name, from the registry (a new game is checked the day it joins)."""
    from chatbot.games import registry

    return tuple(bundle.name for bundle in registry())


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, known: set[str]) -> set[str]:
    """The project modules `path` imports when it runs (not under TYPE_CHECKING)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return {m for m in found if m in known}


def graph() -> dict[str, set[str]]:
    paths = [p for pkg in PACKAGES for p in (REPO / pkg).rglob("*.py")]
    known = {module_name(p) for p in paths}
    return {module_name(p): imports(p, known) - {module_name(p)} for p in paths}


def test_no_import_circles() -> None:
    edges = graph()
    # a package importing its own submodules is its public face, not a circle
    for name, targets in edges.items():
        edges[name] = {t for t in targets if not t.startswith(name + ".")}
    state: dict[str, int] = {}
    stack: list[str] = []

    def walk(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for target in sorted(edges.get(node, ())):
            if state.get(target) == 1:
                return [*stack[stack.index(target) :], target]
            if target not in state and (cycle := walk(target)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state:
            cycle = walk(node)
            assert cycle is None, " → ".join(cycle)


def test_the_engine_imports_nothing_of_the_chat() -> None:
    for name, targets in graph().items():
        if name.startswith("engine"):
            assert not [t for t in targets if t.startswith("chatbot")], name


def test_shared_code_names_no_game_and_no_platform() -> None:
    shared = [
        *(REPO / "chatbot" / "core").glob("*.py"),
        *(REPO / "chatbot" / "store").glob("*.py"),
        REPO / "chatbot" / "web.py",  # it serves the routes of the adapters it is given
        *(REPO / "chatbot" / "page").glob("*.py"),  # the game page: drawn from each bundle
        *(REPO / "chatbot" / "page" / "static").glob("*.*"),
    ]
    names = games()
    assert len(names) >= 3
    words = re.compile(r"\b(" + "|".join(names + PLATFORMS) + r")\b", re.IGNORECASE)
    named_game = re.compile(r"\b(" + "|".join(names) + r")\b", re.IGNORECASE)
    for path in shared:
        text = path.read_text(encoding="utf-8")
        if path.suffix != ".py":  # ("line" is an English word there: LINE as LINE writes it)
            platform = re.search(r"\b([Tt]elegram|LINE|LIFF|liff)\b", text)
            named_in = named_game.search(text) or platform
            assert not named_in, f"{path.name} names {named_in}"
            continue
        tree = ast.parse(text)
        imported = {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | {
            a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
        }
        named = [m for m in imported if words.search(m.replace(".", " ")) or m == "chatbot.games"]
        assert not named, f"{path.name} imports {named}"
        # not even in a comment (a platform may be named where a comment explains a limit)
        assert not named_game.search(text), f"{path.name} names {named_game.search(text)}"


def test_the_wheel_finds_every_package_and_the_catalogues() -> None:
    """setuptools finds the packages (none is listed by name): every package of the checkout,
    and the catalogues at `chatbot/locales` (a link to the top-level `locales/`)."""
    import tomllib

    from setuptools import find_namespace_packages

    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    find = config["packages"]["find"]
    assert find["namespaces"] and "package-dir" not in config
    include, exclude = find["include"], find["exclude"]
    wheel = set(find_namespace_packages(str(REPO), exclude=exclude, include=include))
    found = {
        module_name(init) for package in PACKAGES for init in (REPO / package).rglob("__init__.py")
    }
    assert found <= wheel, found - wheel
    assert "chatbot.locales" in wheel and "chatbot.store" in wheel
    assert (REPO / "chatbot" / "locales" / "messages.pot").is_file()
    assert (REPO / "chatbot" / "locales").resolve() == REPO / "locales"


def test_every_shared_module_is_short_and_opens_with_its_job() -> None:
    """No module of chatbot/core is over 500 lines, and each opens with a docstring whose
    first line names its one job (a sentence of its own)."""
    for path in sorted((REPO / "chatbot" / "core").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        if path.name == "__init__.py" and not text.strip():
            continue
        assert len(text.splitlines()) <= 500, f"{path.name}: {len(text.splitlines())} lines"
        doc = ast.get_docstring(ast.parse(text), clean=False)
        assert doc, f"{path.name} has no docstring"
        first, *rest = doc.split("\n")
        assert first.rstrip().endswith((".", "?")), f"{path.name}: {first!r} goes on"
        assert not rest or not rest[0].strip(), f"{path.name}: its first line goes on"
