"""The hall at a glance: one tile per table, for the director's map (/director/hall).

A tournament's tables are those its kiosks sit at and, with a TSH link, those each division's
current round pairs (event.current_round). A tile holds the table's game as its kiosk sees it
(games.current_game's rule: the earliest round paired there with no score, else the latest),
the state of the table's kiosk (online, offline for so many minutes, never seen, or no kiosk),
the challenges recorded in that game (today's at the table, where it has no game), and what waits
for the director there (table_marks). A kiosk of no table gets no tile: the map lists it apart.

`version` says, cheaply, whether the map may have changed: it reads what the map is made of
(the newest journal row, the dismissed flags, the TSH links' contents, the tournaments and the
kiosks), never the map itself, so a refresh that finds nothing new costs a few small reads.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from adjudicator.hall import kiosks, tournaments
from adjudicator.hall.director import hall_status, overview, table_marks
from adjudicator.hall.tsh import games, links
from adjudicator.hall.tsh.event import Game, current_round
from adjudicator.judging.game import canonical
from adjudicator.record.database.db import Database
from adjudicator.record.journal import journal
from adjudicator.wording import natural_key

ONLINE, OFFLINE, NEVER, NO_KIOSK = "online", "offline", "never", "none"
_STATES = {"online": ONLINE, "offline": OFFLINE, "never seen": NEVER}
_RANK = {ONLINE: 0, OFFLINE: 1, NEVER: 2}  # a table with two kiosks shows the better one


@dataclass(frozen=True)
class KioskState:
    """A kiosk as the map shows it."""

    name: str
    state: str  # ONLINE, OFFLINE or NEVER
    minutes: int | None = None  # offline for so many whole minutes


@dataclass(frozen=True)
class Tile:
    """One table: its game, its kiosks, its challenges and what waits there."""

    table: str
    game: Game | None
    kiosks: tuple[KioskState, ...]
    challenges: int  # in the game's round; today's when the table has no game
    waiting: tuple[str, ...] = ()  # table_marks.WAITING_KINDS found here, in that order

    @property
    def state(self) -> str:
        """The table's kiosk: ONLINE, OFFLINE, NEVER, or NO_KIOSK."""
        return self._best.state if self.kiosks else NO_KIOSK

    @property
    def minutes(self) -> int | None:
        """How long the table's kiosk has been offline, in whole minutes (None unless offline)."""
        return self._best.minutes if self.kiosks else None

    @property
    def _best(self) -> KioskState:
        return min(self.kiosks, key=lambda k: (_RANK[k.state], k.minutes or 0))


@dataclass(frozen=True)
class TournamentMap:
    tournament: tournaments.Tournament
    linked: bool
    tiles: tuple[Tile, ...]  # in number order: table 2 before table 10
    unseated: tuple[KioskState, ...]  # kiosks of no table, by name as people count


@dataclass(frozen=True)
class HallMap:
    checked_at: str
    tournaments: tuple[TournamentMap, ...]
    today_from: str  # the server's local midnight (UTC, ISO): a table with no game counts since


def build(db: Database, tournament: str | None = None, now: datetime | None = None) -> HallMap:
    """The map of every tournament (or of `tournament` alone, TournamentError if none)."""
    now = now or datetime.now(UTC)
    chosen = [tournaments.get(db, tournament)] if tournament else tournaments.list_all(db)
    active = [k for k in kiosks.list_all(db) if k.active]
    linked = {link.tournament for link in links.all_links(db)}
    marks = table_marks.waiting(db)
    return HallMap(
        now.isoformat(timespec="seconds"),
        tuple(
            _tournament_map(
                db, t, [k for k in active if k.tournament == t.slug], t.slug in linked, marks, now
            )  # fmt: skip
            for t in chosen
        ),
        overview.start_of_today(now).isoformat(timespec="seconds"),
    )


def _tournament_map(db, tournament, its_kiosks, linked: bool, marks, now) -> TournamentMap:
    slug = tournament.slug
    at: dict[str, list[KioskState]] = {}
    unseated = []
    for kiosk in its_kiosks:
        if kiosk.table is None:
            unseated.append(kiosk_state(kiosk, now))
        else:
            at.setdefault(kiosk.table, []).append(kiosk_state(kiosk, now))
    current, paired = current_games(games.show(db, slug)) if linked else ({}, set())
    tables = sorted(set(at) | paired, key=natural_key)
    shown = {table: current.get(table) for table in tables}
    in_round = table_marks.challenges_in_games(db, slug, [g for g in shown.values() if g])
    today = table_marks.challenges_today(db, slug, now) if None in shown.values() else {}
    tiles = tuple(
        Tile(
            table,
            game,
            tuple(at.get(table, ())),
            in_round.get((str(game.round), table), 0) if game else today.get(table, 0),
            tuple(k for k in table_marks.WAITING_KINDS if k in marks.get((slug, table), ())),
        )
        for table, game in shown.items()
    )
    return TournamentMap(tournament, linked, tiles, tuple(unseated))


def current_games(found: Iterable[Game]) -> tuple[dict[str, Game], set[str]]:
    """Each table's game in its current round (as games.current_game finds it), and the tables
    each division's current round pairs."""
    by_table: dict[str, list[Game]] = {}
    by_division: dict[str, list[Game]] = {}
    for game in found:
        by_division.setdefault(game.division, []).append(game)
        if game.table:
            by_table.setdefault(canonical(game.table), []).append(game)
    current = {}
    for table, here in by_table.items():
        wanted = current_round(here)
        current[table] = next(game for game in here if game.round == wanted)
    paired = set()
    for here in by_division.values():
        wanted = current_round(here)
        paired |= {canonical(g.table) for g in here if g.round == wanted and g.table}
    return current, paired


def kiosk_state(kiosk: kiosks.Kiosk, now: datetime) -> KioskState:
    """Online if seen within hall_status.ONLINE_SECONDS, else offline (for how many whole
    minutes), or never seen."""
    state = _STATES[hall_status.kiosk_status(kiosk, now).state]
    if state != OFFLINE:
        return KioskState(kiosk.name, state)
    seen = datetime.fromisoformat(kiosk.last_seen_at or now.isoformat())
    return KioskState(kiosk.name, state, max(0, int((now - seen).total_seconds() // 60)))


def version(db: Database, tournament: str | None = None, now: datetime | None = None) -> str:
    """A short digest of everything the map is made of: equal digests, equal maps (to the
    minute). Reads a few small tables and the journal's newest id, never the map itself."""
    now = now or datetime.now(UTC)
    with db.transaction() as cur:
        dismissed = cur.execute("SELECT COUNT(*) FROM flag_dismissals").tuples()
        tsh = cur.execute("SELECT tournament, content_hash FROM tsh_links").tuples()
    parts = [
        tournament,
        journal.newest_id(db),
        dismissed,
        sorted(tsh),
        [(t.slug, t.title, t.updated_at) for t in tournaments.list_all(db)],
        [
            (k.name, k.tournament, k.table, k.active, kiosk_state(k, now))
            for k in kiosks.list_all(db)
        ],
        overview.start_of_today(now).isoformat(),  # today's counts start again at midnight
    ]
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:32]
