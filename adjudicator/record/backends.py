"""Which database backs the journal: SQLite by default, or PostgreSQL for a URL naming one."""

from __future__ import annotations

from adjudicator import settings
from adjudicator.record.db import Database


def database_url() -> str:
    """The configured database: ADJUDICATOR_DATABASE_URL, else journal.sqlite3 in the data home."""
    return settings.get("database_url") or str(settings.data_home() / "journal.sqlite3")


def connect(url: str | None = None) -> Database:
    """A Database for `url`, an SQLite path or a postgresql:// URL (only then is psycopg loaded)."""
    url = url or database_url()
    if url.startswith(("postgresql://", "postgres://")):
        from adjudicator.record.db_postgres import PostgresDatabase

        return PostgresDatabase(url)
    from adjudicator.record.db_sqlite import SqliteDatabase

    return SqliteDatabase(url.removeprefix("sqlite:///").removeprefix("sqlite://"))
