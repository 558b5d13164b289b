"""Layers call downward only (ARCHITECTURE.md): the web app never imports the CLI, the library
imports neither, and the database backends do not import each other."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, at any depth (lazy imports inside functions count)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def files(package: str, exclude: str | None = None) -> list[Path]:
    return [
        path
        for path in sorted((ROOT / package).rglob("*.py"))
        if exclude is None or exclude not in path.relative_to(ROOT).parts
    ]


def offenders(paths: list[Path], forbidden: tuple[str, ...]) -> list[str]:
    return [
        f"{path.relative_to(ROOT)} imports {module}"
        for path in paths
        for module in sorted(imported_modules(path))
        if module.startswith(forbidden)
    ]


def test_the_web_app_never_imports_the_cli():
    assert offenders(files("kiosk"), ("adjudicator.cli",)) == []


def test_the_library_imports_neither_the_cli_nor_the_web_app():
    library = [p for p in files("adjudicator", exclude="cli") if p.name != "__main__.py"]
    assert offenders(library, ("adjudicator.cli", "kiosk", "flask", "gunicorn")) == []


def test_database_backends_do_not_import_each_other():
    base = ROOT / "adjudicator" / "db.py"
    assert offenders([base], ("adjudicator.db_", "adjudicator.backends")) == []
    sqlite = ROOT / "adjudicator" / "db_sqlite.py"
    postgres = ROOT / "adjudicator" / "db_postgres.py"
    assert offenders([sqlite], ("adjudicator.db_postgres", "psycopg")) == []
    assert offenders([postgres], ("adjudicator.db_sqlite",)) == []
