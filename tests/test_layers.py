"""Layers call downward only (docs/architecture.md): the contracts in setup.cfg hold, and no
module of the library or the web app imports, however indirectly, one that imports it back."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]
TOP_LEVEL_LIMIT = 8  # the shared leaves, __init__ and __main__: the rest lives in a wing


def cycles(graph) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), imports inside
    functions included."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    sys.setrecursionlimit(10_000)
    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return found


def test_the_import_contracts_hold():
    result = subprocess.run(
        [str(Path(sys.executable).with_name("lint-imports")), "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_import_cycle_in_the_library_or_the_web_app():
    assert cycles(grimp.build_graph("adjudicator", "kiosk", cache_dir=None)) == []


def test_a_cycle_is_found_when_there_is_one(tmp_path, monkeypatch):
    package = tmp_path / "looped"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("def f():\n    from looped import b\n")
    (package / "b.py").write_text("from looped import a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert cycles(grimp.build_graph("looped", cache_dir=None)) == [["looped.a", "looped.b"]]


def test_the_top_level_keeps_only_the_shared_leaves():
    top = sorted(path.name for path in (ROOT / "adjudicator").glob("*.py"))
    assert len(top) <= TOP_LEVEL_LIMIT, top
    wings = {path.parent.name for path in (ROOT / "adjudicator").glob("*/__init__.py")}
    assert {"words", "judging", "record", "hall", "cli"} <= wings


FOLDER_LIMIT = 20  # modules side by side in one package (issue 37): more, and it is cut by job


def packages() -> list[Path]:
    """Every package of the library and the web app."""
    return sorted(
        init.parent
        for top in ("adjudicator", "kiosk")
        for init in (ROOT / top).rglob("__init__.py")
        if "translations" not in init.parts
    )


def test_no_package_holds_more_than_twenty_modules_side_by_side():
    crowded = {
        str(package.relative_to(ROOT)): count
        for package in packages()
        if (count := len([p for p in package.glob("*.py") if p.name != "__init__.py"]))
        > FOLDER_LIMIT
    }
    assert crowded == {}


def test_every_package_says_what_it_holds_and_what_it_may_import():
    import ast

    silent = []
    for package in packages():
        doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text())) or ""
        if "May import:" not in doc or doc.startswith("TODO"):
            silent.append(str(package.relative_to(ROOT)))
    assert silent == []
