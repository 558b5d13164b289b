"""Which database backs the journal: SQLite by default, or PostgreSQL for a URL naming one."""

from __future__ import annotations

from adjudicator import settings
from adjudicator.errors import AdjudicatorError
from adjudicator.record.database.db import Database


class MirrorRefused(AdjudicatorError):
    """A mirror was set where it cannot work (a PostgreSQL journal)."""


def database_url() -> str:
    """The configured database: ADJUDICATOR_DATABASE_URL, else journal.sqlite3 in the data home."""
    return settings.get("database_url") or str(settings.data_home() / "journal.sqlite3")


def connect(url: str | None = None) -> Database:
    """A Database for `url`, an SQLite path or a postgresql:// URL (only then is psycopg loaded)."""
    configured = url is None
    url = url or database_url()
    mirror = settings.get("journal_mirror").strip() if configured else ""
    if url.startswith(("postgresql://", "postgres://")):
        if mirror:
            raise MirrorRefused(
                "ADJUDICATOR_JOURNAL_MIRROR is set, but the journal is in PostgreSQL: a mirror "
                "only copies an SQLite journal. Use PostgreSQL's own streaming replication and "
                "backups (pg_basebackup), and unset ADJUDICATOR_JOURNAL_MIRROR."
            )
        from adjudicator.record.database.postgres import PostgresDatabase

        return PostgresDatabase(url)
    path = url.removeprefix("sqlite:///").removeprefix("sqlite://")
    if mirror:
        from adjudicator.record.copies.mirror import MirroredDatabase

        return MirroredDatabase(path, mirror)
    from adjudicator.record.database.sqlite import SqliteDatabase

    return SqliteDatabase(path)
