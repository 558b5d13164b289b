"""A tournament's link to its TSH event, and the event's games as the hall keeps them.

`link` reads the source whole and checks it before anything is stored: input that is not
TSH's, is cut short, or names a division the event lacks changes nothing, and the previous link
stays. The games are kept in the journal's database (`tsh_games`), replaced whole in one
transaction at each good read, so every server process reads the same pairings, and a kiosk's
game is one indexed query (games.py). Without TSH's tables map a tournament
links one division: boards are numbered within each division, so two divisions' board 1 would
be one table. Writes take the journal's write lock (`chain_lock`): they are rare and short, and a
read followed by a write in one transaction then never meets a writer that came between.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from adjudicator.hall import tournaments
from adjudicator.hall.tsh import games
from adjudicator.hall.tsh import source as sources
from adjudicator.hall.tsh.event import (
    Division,
    Event,
    Game,
    TshError,
    check_one_game_a_table,
    current_round,
    rounds_paired,
)
from adjudicator.hall.tsh.event import games as division_games
from adjudicator.record.database.db import Database

_LINK_FIELDS = (
    "tournament, source, kind, divisions, event_name, linked_at, read_at, checked_at, stamp, "
    "content_hash, failure, failed_since"
)


@dataclass(frozen=True)
class Link:
    """A tournament's TSH link and how its last read went."""

    tournament: str
    source: str
    kind: str
    divisions: tuple[str, ...]
    event_name: str
    linked_at: str
    read_at: str  # the last good read
    checked_at: str  # the last claim's mark (claim)
    stamp: str | None
    content_hash: str
    failure: str | None = None  # what the last read failed with; None: it was good
    failed_since: str | None = None

    @property
    def unfinished(self) -> bool:
        """A claimed read that stored neither games nor a failure (its process died, or the
        database refused the write): the next check must read it again."""
        return self.failure is None and self.checked_at.split("~", 1)[0] > self.read_at

    def to_api(self) -> dict[str, Any]:
        return {
            "tournament": self.tournament,
            "source": self.source,
            "divisions": list(self.divisions),
            "event": self.event_name,
            "linked_at": self.linked_at,
            "read_at": self.read_at,
            "failure": self.failure,
            "failed_since": self.failed_since,
        }


@dataclass(frozen=True)
class DivisionSummary:
    name: str
    players: int
    rounds_paired: int
    current_round: int | None


@dataclass(frozen=True)
class Summary:
    """What `tsh link` prints: the event, each linked division, and how many games."""

    event_name: str
    source: str
    divisions: tuple[DivisionSummary, ...]
    games: int


def choose_divisions(event: Event, asked: Sequence[str] = ()) -> tuple[Division, ...]:
    """The divisions to link: those asked for (every one if none), or TshError if one is not
    in the event, or if several are asked for and TSH maps no tables for one of them."""
    chosen: list[Division] = []
    for name in asked or [division.name for division in event.divisions]:
        division = event.division(name)
        if division not in chosen:
            chosen.append(division)
    unmapped = [division.name for division in chosen if division.tables is None]
    if len(chosen) > 1 and unmapped:
        raise TshError(
            f"The event has {len(chosen)} divisions ({', '.join(d.name for d in chosen)}) and "
            f"TSH maps no tables for {', '.join(unmapped)}: boards are numbered within each "
            "division, so their board 1 would be one table. Link one division (--division "
            f"{chosen[0].name}), or give TSH a tables map (`config tables` in config.tsh)."
        )
    return tuple(chosen)


def event_games(divisions: Sequence[Division]) -> list[Game]:
    """Every game of the linked divisions, checked: one game a table in each round."""
    found = [game for division in divisions for game in division_games(division)]
    check_one_game_a_table(found)
    return found


def link(db: Database, slug: str, source_text: str, divisions: Sequence[str] = ()) -> Summary:
    """Link tournament `slug` to a TSH event, replacing any previous link, or TshError (and
    the previous link as it was) if the source cannot be linked."""
    tournaments.get(db, slug)
    source = sources.parse(source_text)
    reading = sources.read(source)
    assert reading.event is not None  # a first read is never "not modified"
    chosen = choose_divisions(reading.event, divisions)
    found = event_games(chosen)
    now = _now()
    names = tuple(division.name for division in chosen)
    rows = _game_rows(found)
    with db.transaction(chain_lock=True) as cur:
        cur.execute("DELETE FROM tsh_links WHERE tournament = ?", (slug,))
        cur.execute(
            f"INSERT INTO tsh_links ({_LINK_FIELDS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                slug,
                source.text,
                source.kind,
                json.dumps(names),
                reading.event.name,
                now,
                now,
                _claim_time(now),
                reading.stamp,
                _content_hash(reading.event.name, rows),
                None,
                None,
            ),
        )
        _replace_games(cur, slug, rows)
    return _summary(reading.event.name, source.text, chosen, found)


def unlink(db: Database, slug: str) -> bool:
    """Take the tournament's TSH link away (its games with it); False if it had none."""
    with db.transaction(chain_lock=True) as cur:
        cur.execute("DELETE FROM tsh_games WHERE tournament = ?", (slug,))
        cur.execute("DELETE FROM tsh_links WHERE tournament = ?", (slug,))
        return cur.rowcount > 0


def get(db: Database, slug: str) -> Link | None:
    """The tournament's TSH link, or None."""
    row = db.query_one(f"SELECT {_LINK_FIELDS} FROM tsh_links WHERE tournament = ?", (slug,))
    return _link(row) if row else None


def all_links(db: Database) -> list[Link]:
    """Every TSH link, by tournament."""
    with db.transaction() as cur:
        rows = cur.execute(f"SELECT {_LINK_FIELDS} FROM tsh_links ORDER BY tournament").all()
    return [_link(row) for row in rows]


def claim(db: Database, found: Link, stamp: str | None) -> str | None:
    """Take the next read of a link for this process: the claim's mark, or None if another
    process (or a new `tsh link`) took it first. A read stored under an older claim is
    dropped (`store_reading`)."""
    mark = _claim_time()
    with db.transaction(chain_lock=True) as cur:
        cur.execute(
            "UPDATE tsh_links SET checked_at = ?, stamp = ? WHERE tournament = ? "
            "AND linked_at = ? AND checked_at = ?",
            (
                mark,
                stamp if stamp is not None else found.stamp,
                found.tournament,
                found.linked_at,
                found.checked_at,
            ),
        )
        return mark if cur.rowcount == 1 else None


def store_reading(db: Database, found: Link, mark: str, reading: sources.Reading) -> str:
    """Store a claimed read: the games if they changed, and the read as good. Returns what
    happened ('unchanged', 'updated', or 'superseded' when a newer claim or link came)."""
    rows = None
    if reading.event is not None:
        chosen = choose_divisions(reading.event, found.divisions)
        rows = _game_rows(event_games(chosen))
        digest = _content_hash(reading.event.name, rows)
        if digest == found.content_hash:
            rows = None
    now = _now()
    with db.transaction(chain_lock=True) as cur:
        if not _still_claimed(cur, found, mark):
            return "superseded"
        if rows is not None and reading.event is not None:
            _replace_games(cur, found.tournament, rows)
            cur.execute(
                "UPDATE tsh_links SET content_hash = ?, event_name = ? WHERE tournament = ?",
                (digest, reading.event.name, found.tournament),
            )
        cur.execute(
            "UPDATE tsh_links SET read_at = ?, stamp = ?, failure = NULL, failed_since = NULL "
            "WHERE tournament = ?",
            (now, reading.stamp, found.tournament),
        )
    return "updated" if rows is not None else "unchanged"


def store_failure(db: Database, found: Link, mark: str, message: str) -> None:
    """Record that a claimed read failed: the last good games stay; the overview says what
    failed and since when (the first failure since the last good read)."""
    with db.transaction(chain_lock=True) as cur:
        if _still_claimed(cur, found, mark):
            cur.execute(
                "UPDATE tsh_links SET failure = ?, failed_since = COALESCE(failed_since, ?) "
                "WHERE tournament = ?",
                (message[:500], _now(), found.tournament),
            )


def _still_claimed(cur, found: Link, mark: str) -> bool:
    row = cur.execute(
        "SELECT checked_at, linked_at FROM tsh_links WHERE tournament = ?", (found.tournament,)
    ).one()
    return row is not None and row["checked_at"] == mark and row["linked_at"] == found.linked_at


def _summary(name: str, source: str, chosen: Sequence[Division], found: list[Game]) -> Summary:
    parts = tuple(
        DivisionSummary(
            division.name,
            len(division.players),
            rounds_paired(division),
            current_round([game for game in found if game.division == division.name]),
        )
        for division in chosen
    )
    return Summary(name, source, parts, len(found))


def _game_rows(found: Sequence[Game]) -> list[tuple]:
    return [
        (
            game.division,
            game.round,
            game.table,
            game.board,
            json.dumps([seat.to_api() for seat in game.seats], sort_keys=True),
            1 if game.scored else 0,
        )
        for game in found
    ]


def _replace_games(cur, slug: str, rows: list[tuple]) -> None:
    cur.execute("DELETE FROM tsh_games WHERE tournament = ?", (slug,))
    if rows:
        cur.executemany(
            f"INSERT INTO tsh_games (tournament, {games.FIELDS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(slug, *row) for row in rows],
        )


def _content_hash(event_name: str, rows: list[tuple]) -> str:
    text = json.dumps([event_name, [list(row) for row in rows]], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def _link(row: dict[str, Any]) -> Link:
    return Link(**{**row, "divisions": tuple(json.loads(row["divisions"]))})


def _claim_time(now: str | None = None) -> str:
    """A claim's mark: the time, and a random tail so two claims never carry the same mark."""
    return f"{now or _now()}~{secrets.token_hex(4)}"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")
