"""Schema versions are reserved by work done in parallel and may land out of order: a database
gets every version it lacks, lower or higher than its newest, on SQLite and PostgreSQL."""

from __future__ import annotations

from adjudicator.record.backends import connect
from adjudicator.record.database import migrations

LATE = (3, "a version that landed after a higher one", ("CREATE TABLE landed_late (x INTEGER)",))


def applied_versions(database) -> list[int]:
    with database.transaction() as cur:
        rows = cur.execute("SELECT version FROM schema_migrations ORDER BY version").tuples()
    return [int(version) for (version,) in rows]


def test_a_database_at_version_2_gets_every_later_version(db_url, monkeypatch):
    database = connect(db_url)
    everything = migrations.MIGRATIONS
    monkeypatch.setattr(migrations, "MIGRATIONS", everything[:2])
    assert migrations.upgrade(database) == [1, 2]
    monkeypatch.setattr(migrations, "MIGRATIONS", everything)
    later = [version for version, _, _ in everything if version > 2]
    assert 5 in later
    assert migrations.upgrade(database) == later
    assert applied_versions(database) == [1, 2, *later]
    with database.transaction() as cur:  # version 5's tables are there
        cur.execute("SELECT COUNT(*) FROM staff_sessions").one()
        cur.execute("SELECT COUNT(*) FROM attempts").one()


def test_a_version_landing_below_the_newest_applied_is_still_applied(db_url, monkeypatch):
    database = connect(db_url)
    shipped = tuple(m for m in migrations.MIGRATIONS if m[0] != LATE[0])
    monkeypatch.setattr(migrations, "MIGRATIONS", shipped)
    migrations.upgrade(database)
    assert LATE[0] not in applied_versions(database)
    monkeypatch.setattr(migrations, "MIGRATIONS", tuple(sorted((*shipped, LATE))))
    assert migrations.upgrade(database) == [LATE[0]]
    assert migrations.upgrade(database) == []
    assert LATE[0] in applied_versions(database)
    with database.transaction() as cur:
        assert cur.execute("SELECT COUNT(*) AS n FROM landed_late").one()["n"] == 0
