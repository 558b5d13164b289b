"""Each player's challenge figures as judged, kept beside the journal in each append's transaction.

`player_tallies` holds one row per tournament, division and player: what every challenge row,
every free challenge granted and every decision of the director on a placement or an exchange
(its `--points`, director_points.py) adds to that player's figures when it is written. A row never
changes once written, so neither does what it added: later rows that correct a challenge (a
void, a reissue, a second opinion, a ruling, a waiver, or a ruling that recounts the penalties
after it in its game) are not folded in here. Whoever reads the figures (judging's
`player_figures`) adds, for each corrected challenge only, what its effective outcome gives
less what it gave as judged, both through `contributions`: so the figures follow every
correction exactly as the game does, the stored tallies stay append-only like the journal, and
a change in how outcomes are decided changes the figures without rebuilding anything.

A player is named as TSH names them in a linked game (the row's `players`; the other player is
the one challenged), else by the `challenger` and `player` the challenge was recorded with; the
key compares names with case, spacing, '#' and the order of "Last, First" ignored.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from adjudicator.record.database.db import Database

# What each player's row counts (its columns, in this order everywhere).
FIGURES = (
    "challenges_made",  # not void
    "challenges_won",  # the play came off
    "challenges_lost",  # the play stood
    "challenges_undecided",  # a referral still waiting for the word judge's dictionary check
    "penalty_points",  # points the unsuccessful challenges cost (to the player, or lost)
    "penalty_turns",  # turns lost
    "penalty_seconds",  # seconds off the challenger's clock (a time rule)
    "plays_challenged",  # not void
    "plays_came_off",
    "plays_stood",
    "plays_undecided",
    "free_challenges_granted",  # granted by the director (NSA VI.C), or a penalty waived
    "free_challenges_used",  # an unsuccessful challenge that cost nothing for it
    "opinions_changed",  # a second (or third) opinion changed the verdict of one of their games
    "rulings_changed",  # the director's ruling changed the verdict of one of their games
    "voided",  # their challenges that count for nothing (only here)
    "plays_voided",  # challenges of their plays that count for nothing (only here)
    # The director's points to their score (negative: taken off), by hand (`ruling --points`,
    # `director-challenge --points`): given for their play or exchange challenged, so theirs;
    # never part of the challenger's penalty_points (migration 36).
    "director_points",
)
# The rows that add something as judged: a challenge, a grant, the director's decision.
COUNTED_KINDS = ("challenge", "free-challenge", "placement", "exchange")
ZERO = dict.fromkeys(FIGURES, 0)

Key = tuple[str, str, str]  # tournament, division ('' when none), player's key
Figures = dict[str, int]

_COLUMNS = ", ".join(FIGURES)
_UPSERT = (
    f"INSERT INTO player_tallies (tournament, division, player, name, {_COLUMNS}) "
    f"VALUES (?, ?, ?, ?, {', '.join('?' for _ in FIGURES)}) "
    "ON CONFLICT (tournament, division, player) DO UPDATE SET "
    # TSH's form of a name ("Last, First") is kept once seen: a grant may name "First Last"
    "name = CASE WHEN excluded.name LIKE '%,%' THEN excluded.name ELSE player_tallies.name END, "
    + ", ".join(f"{f} = player_tallies.{f} + excluded.{f}" for f in FIGURES)
)
SELECT = f"SELECT tournament, division, player, name, {_COLUMNS} FROM player_tallies"
_READ_ROWS = (  # the columns `rebuild` and `record` read of a row, in this order
    "id",
    "kind",
    "tournament",
    "division",
    "challenger",
    "player",
    "players",
    "verdict",
    "penalty",
)


@lru_cache(maxsize=65536)
def name_key(name: str) -> str:
    """How a name is compared: case, spacing and '#' ignored, "Last, First" as "First Last"."""
    plain = " ".join(str(name).split()).casefold().lstrip("#").strip()
    last, comma, first = plain.partition(",")
    return f"{first.strip()} {last.strip()}".strip() if comma else plain


def shown_name(name: str | None) -> str | None:
    """A name as recorded, its spacing collapsed (None when there is none)."""
    text = " ".join(str(name or "").split())
    return text or None


def sides(
    challenger: str | None, player: str | None, players: str | None
) -> tuple[str | None, str | None]:
    """(who challenged, whose play was challenged): in a linked game, TSH's two names (the
    challenger is one of them, the other is the player); else as the challenge recorded them."""
    if players:
        names = game_players(players)
        if challenger in names and len(names) == 2:
            return challenger, names[1 - names.index(challenger)]
    return shown_name(challenger), shown_name(player)


@lru_cache(maxsize=4096)
def game_players(players: str) -> tuple[str, ...]:
    """A row's `players` (TSH's two names, JSON) as a tuple; () if it cannot be read. Read once
    per game: every challenge of a game carries the same text."""
    try:
        found = json.loads(players)
    except ValueError:
        return ()
    return tuple(n for n in found if isinstance(n, str)) if isinstance(found, list) else ()


def contributions(
    *,
    division: str | None,
    challenger: str | None,
    player: str | None,
    verdict: str,
    penalty: dict[str, Any] | None,
    void: bool = False,
    changed_by: str | None = None,
    waivers: int = 0,
    points: int = 0,
) -> list[tuple[str, str, str, Figures]]:
    """What one challenge adds to its players' figures: (division, key, shown name, figures)
    for the challenger and for the player challenged (each when named). `verdict` is the
    challenge's (as judged, or effective), `penalty` its penalty object, `void` True when it
    counts for nothing; `changed_by` 'opinion' or 'ruling' when one changed its verdict;
    `waivers` the director's waivers of its penalty (each a free challenge granted); `points`
    the director's points in `penalty.points_to_player` (a ruling's `--points`): the player's,
    not the challenger's penalty."""
    division = division or ""
    found = []
    if challenger:
        mine = dict(ZERO)
        if void:
            mine["voided"] = 1
        else:
            mine["challenges_made"] = 1
            mine[_MADE.get(verdict, "challenges_undecided")] = 1
            numbers = penalty or {}
            mine["penalty_points"] = (
                _int(numbers.get("points_to_player"))
                - points
                - min(0, _int(numbers.get("points_to_challenger")))
            )
            mine["penalty_turns"] = int(bool(numbers.get("challenger_loses_turn")))
            mine["penalty_seconds"] = _int(numbers.get("seconds_to_challenger"))
            mine["free_challenges_granted"] = waivers
            mine["free_challenges_used"] = int(
                verdict == "ACCEPTABLE" and bool(numbers.get("waived"))
            )
            _changed(mine, changed_by)
        found.append((division, name_key(challenger), challenger, mine))
    if player:
        theirs = dict(ZERO)
        if void:
            theirs["plays_voided"] = 1
        else:
            theirs["plays_challenged"] = 1
            theirs[_PLAYED.get(verdict, "plays_undecided")] = 1
            theirs["director_points"] = points
            _changed(theirs, changed_by)
        found.append((division, name_key(player), player, theirs))
    return found


_MADE = {"UNACCEPTABLE": "challenges_won", "ACCEPTABLE": "challenges_lost"}
_PLAYED = {"UNACCEPTABLE": "plays_came_off", "ACCEPTABLE": "plays_stood"}


def _changed(figures: Figures, changed_by: str | None) -> None:
    if changed_by == "opinion":
        figures["opinions_changed"] = 1
    elif changed_by == "ruling":
        figures["rulings_changed"] = 1


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def as_judged(
    kind: str,
    division: str | None,
    challenger: str | None,
    player: str | None,
    players: str | None,
    verdict: str,
    penalty: str | None,
) -> list[tuple[str, str, str, Figures]]:
    """What a row adds as it is written: a challenge by its own verdict and penalty, a free
    challenge granted to the player it names, the director's decision on a placement or an
    exchange its points to the player whose play or exchange was challenged (it is never
    corrected: only a challenge can be); any other row nothing."""
    if kind in ("placement", "exchange"):
        _, whose = sides(challenger, player, players)
        points = _int((_penalty(penalty) or {}).get("points_to_player"))
        if not (whose and points):
            return []
        return [(division or "", name_key(whose), whose, {**ZERO, "director_points": points})]
    if kind == "free-challenge":
        name = shown_name(challenger)
        if not name:
            return []
        return [(division or "", name_key(name), name, {**ZERO, "free_challenges_granted": 1})]
    if kind != "challenge":
        return []
    who, whose = sides(challenger, player, players)
    numbers = _penalty(penalty)
    return contributions(
        division=division, challenger=who, player=whose, verdict=verdict, penalty=numbers
    )


def _penalty(text: str | None) -> dict[str, Any] | None:
    try:
        found = json.loads(text) if text else None
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


def record(cur: Any, entries: Iterable[Any]) -> None:
    """Add what `entries` (rows just inserted, in this transaction) give as judged: one row a
    player written as it comes (the upsert adds two rows for one player in a batch together)."""
    rows = []
    for entry in entries:
        if entry.kind not in COUNTED_KINDS:
            continue
        found = as_judged(
            entry.kind,
            entry.division,
            entry.challenger,
            entry.player,
            entry.players,
            entry.verdict,
            entry.penalty,
        )
        for division, key, name, figures in found:
            rows.append((entry.tournament, division, key, name, *figures.values()))  # FIGURES
    if len(rows) == 1:
        cur.execute(_UPSERT, rows[0])
    elif rows:
        cur.executemany(_UPSERT, rows)


def _add(totals: dict[Key, list], tournament: str, found: list) -> None:
    for division, key, name, figures in found:
        slot = totals.setdefault((tournament, division, key), [name, dict(ZERO)])
        if "," in name:
            slot[0] = name
        for figure, value in figures.items():
            slot[1][figure] += value


def write(cur: Any, totals: dict[Key, list]) -> None:
    """Add `totals` ({key: [name, figures]}) to the stored tallies."""
    rows = [(*key, name, *(figures[f] for f in FIGURES)) for key, (name, figures) in totals.items()]
    if len(rows) == 1:
        cur.execute(_UPSERT, rows[0])
    elif rows:
        cur.executemany(_UPSERT, rows)


def ensure_counted(db: Database) -> bool:
    """Count the rows the journal held before the table existed (migration 32 makes it empty),
    once: under the chain lock, so no append is counted twice or missed. True if it counted
    them now. One read of a one-row table when they are counted already."""
    with db.transaction() as cur:
        if cur.execute(_COUNTED).one() is not None:
            return False
    with db.transaction(chain_lock=True) as cur:
        if cur.execute(_COUNTED).one() is not None:  # another process counted them meanwhile
            return False
        rebuild(cur)
        cur.execute(
            "INSERT INTO player_tallies_counted (counted_at) VALUES (?)",
            (datetime.now(UTC).isoformat(timespec="seconds"),),
        )
    return True


_COUNTED = "SELECT counted_at FROM player_tallies_counted"


def rebuild(cur: Any, batch: int = 20_000) -> None:
    """Count every challenge, grant and decision of the director in the journal afresh (inside
    a transaction holding the chain lock): read by id in batches, written once."""
    cur.execute("DELETE FROM player_tallies")
    totals: dict[Key, list] = {}
    last = 0
    while True:
        rows = cur.execute(
            f"SELECT {', '.join(_READ_ROWS)} FROM adjudications WHERE id > ? "
            f"AND kind IN ({', '.join('?' for _ in COUNTED_KINDS)}) ORDER BY id "
            f"LIMIT {int(batch)}",
            (last, *COUNTED_KINDS),
        ).tuples()
        if not rows:
            break
        for row_id, kind, tournament, *fields in rows:
            _add(totals, tournament, as_judged(kind, *fields))
            last = row_id
    write(cur, totals)


def read(cur: Any, tournaments: Iterable[str]) -> dict[Key, list]:
    """The stored tallies of `tournaments`: {key: [name, figures]}."""
    wanted = sorted(set(tournaments))
    found: dict[Key, list] = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        marks = ", ".join("?" for _ in chunk)
        rows = cur.execute(f"{SELECT} WHERE tournament IN ({marks})", tuple(chunk)).tuples()
        for tournament, division, player, name, *values in rows:
            found[(tournament, division, player)] = [name, dict(zip(FIGURES, values, strict=True))]
    return found


def by_player(cur: Any, tournaments: Iterable[str]) -> dict[str, tuple[str, int, Figures]]:
    """The stored tallies of `tournaments` summed by player, by the database: {key: (name, how
    many of the tournaments they played in, figures)}; TSH's form of a name kept where one has
    it. (A player is counted in a tournament by a row of it, which every challenge naming them
    writes: a correction never adds a tournament.)"""
    wanted = sorted(set(tournaments))
    found: dict[str, tuple[str, int, Figures]] = {}
    sums = ", ".join(f"SUM({f})" for f in FIGURES)
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        marks = ", ".join("?" for _ in chunk)
        rows = cur.execute(
            "SELECT player, MAX(CASE WHEN name LIKE '%,%' THEN name END), MAX(name), "
            f"COUNT(DISTINCT tournament), {sums} FROM player_tallies "
            f"WHERE tournament IN ({marks}) GROUP BY player",
            tuple(chunk),
        ).tuples()
        for key, tsh_name, other_name, played, *values in rows:
            figures = dict(zip(FIGURES, map(int, values), strict=True))
            known = found.get(key)
            if known is not None:  # the same player in another chunk of tournaments
                figures = {f: figures[f] + known[2][f] for f in FIGURES}
                played += known[1]
            name = tsh_name or (known[0] if known and "," in known[0] else None) or other_name
            found[key] = (name, int(played), figures)
    return found
