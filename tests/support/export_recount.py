"""Each player's figures counted straight from `journal export --format json`: every challenge by
its `effective` outcome, every grant and waiver by its row, every decision of the director by the
points it carries. Written apart from the program's own counting (player_tallies, player_figures),
so that a test comparing the two compares two ways of counting, not one way with itself.

What each figure means is issue 46's (the JSON's `players`), with the director's points of issue
43: a ruling's `--points` go to the player whose play was challenged (the row's `details.points`,
in its effective penalty's `points_to_player` beside the rule's), never to the challenger's
penalty; a placement or exchange decision's `--points` (its `penalty.points_to_player`) too.
"""

from __future__ import annotations

import io
import json
from collections import defaultdict
from typing import Any

from adjudicator.hall.director import export
from adjudicator.record.journal.player_tallies import FIGURES, name_key

Key = tuple[str, str, str]  # tournament, division, player's key


def exported(db, tournament: str | None = None) -> list[dict[str, Any]]:
    """The journal (or one tournament's rows) as `journal export --format json` writes it."""
    out = io.StringIO()
    export.write(db, out, "json", tournament)
    return json.loads(out.getvalue())


def _name(text: Any) -> str | None:
    found = " ".join(str(text or "").split())
    return found or None


def _sides(row: dict) -> tuple[str | None, str | None]:
    """(who challenged, whose play): TSH's two names where the game is linked, else as typed."""
    players = row.get("players") or []
    challenger = row.get("challenger")
    if len(players) == 2 and challenger in players:
        return challenger, players[1 - players.index(challenger)]
    return _name(challenger), _name(row.get("player"))


def _points(row: dict | None) -> int:
    """The director's points a ruling or an opinion carries (its `details.points`)."""
    if row is None or row["kind"] not in ("ruling", "second-opinion"):
        return 0
    points = (row.get("details") or {}).get("points")
    return points if isinstance(points, int) else 0


def _started_from(row: dict, follow_ups: list[dict]) -> str | None:
    """The verdict a correction may change: the challenge's own, or for a referral (REFER) that
    of the word judge's dictionary check that closed it (None while none has)."""
    if row["verdict"] != "REFER":
        return row["verdict"]
    for later in follow_ups:
        details = later.get("details") or {}
        if (
            later["kind"] == "second-opinion"
            and later.get("dictionary") is not None
            and not later.get("flag_reasons")
            and details.get("decides") != "two of three"
        ):
            return later["verdict"]
    return None


def recount(rows: list[dict[str, Any]]) -> dict[Key, dict[str, Any]]:
    """{(tournament, division, player's key): {"name": ..., figure: value, ...}} from exported
    rows, players with every figure zero left out."""
    by_id = {row["id"]: row for row in rows}
    follow_ups: dict[int, list[dict]] = defaultdict(list)
    for row in rows:
        if row["refers_to"] is not None:
            follow_ups[row["refers_to"]].append(row)
    found: dict[Key, dict[str, Any]] = {}

    def add(row: dict, name: str | None, **figures: int) -> None:
        if not name:
            return
        key = (row["tournament"], row.get("division") or "", name_key(name))
        slot = found.setdefault(key, {"name": name, **dict.fromkeys(FIGURES, 0)})
        if "," in name:
            slot["name"] = name
        for figure, value in figures.items():
            slot[figure] += value

    for row in rows:
        if row["kind"] == "free-challenge":
            add(row, _name(row["challenger"]), free_challenges_granted=1)
        elif row["kind"] in ("placement", "exchange"):
            _, whose = _sides(row)
            add(row, whose, director_points=(row["penalty"] or {}).get("points_to_player") or 0)
        elif row["kind"] == "challenge":
            _count_challenge(row, by_id, follow_ups[row["id"]], add)
    _fold_undivided(found)
    return {key: slot for key, slot in found.items() if any(slot[f] for f in FIGURES)}


def _count_challenge(row: dict, by_id: dict, follow_ups: list[dict], add) -> None:
    effective = row["effective"]
    verdict, penalty = effective["verdict"], effective["penalty"] or {}
    who, whose = _sides(row)
    if verdict == "VOID":
        add(row, who, voided=1)
        add(row, whose, plays_voided=1)
        return
    deciding = by_id.get(effective["decided_by"])
    points = _points(deciding)
    changed: dict[str, int] = {}
    started = _started_from(row, follow_ups)
    if deciding is not None and deciding["id"] != row["id"] and started not in (None, verdict):
        figure = {"ruling": "rulings_changed", "second-opinion": "opinions_changed"}
        if deciding["kind"] in figure:
            changed[figure[deciding["kind"]]] = 1
    made = {"UNACCEPTABLE": "challenges_won", "ACCEPTABLE": "challenges_lost"}
    played = {"UNACCEPTABLE": "plays_came_off", "ACCEPTABLE": "plays_stood"}
    to_challenger = penalty.get("points_to_challenger") or 0
    add(
        row,
        who,
        challenges_made=1,
        **{made.get(verdict, "challenges_undecided"): 1},
        penalty_points=(penalty.get("points_to_player") or 0) - points - min(0, to_challenger),
        penalty_turns=int(bool(penalty.get("challenger_loses_turn"))),
        penalty_seconds=penalty.get("seconds_to_challenger") or 0,
        free_challenges_granted=sum(1 for later in follow_ups if later["kind"] == "waiver"),
        free_challenges_used=int(verdict == "ACCEPTABLE" and bool(penalty.get("waived"))),
        **changed,
    )
    add(
        row,
        whose,
        plays_challenged=1,
        **{played.get(verdict, "plays_undecided"): 1},
        director_points=points,
        **changed,
    )


def _fold_undivided(found: dict[Key, dict[str, Any]]) -> None:
    """A row naming no division (a grant outside any game) counts in the player's division when
    they have exactly one in that tournament."""
    divisions: dict[tuple[str, str], list[str]] = defaultdict(list)
    for tournament, division, key in found:
        if division:
            divisions[(tournament, key)].append(division)
    for tournament, division, key in list(found):
        into = divisions.get((tournament, key), [])
        if division or len(into) != 1:
            continue
        slot = found.pop((tournament, division, key))
        target = found[(tournament, into[0], key)]
        for figure in FIGURES:
            target[figure] += slot[figure]


def by_season(counted: dict[Key, dict[str, Any]]) -> dict[str, dict[str, int]]:
    """The recount summed over tournaments and divisions, by player's key."""
    found: dict[str, dict[str, int]] = {}
    for (_, _, key), slot in counted.items():
        into = found.setdefault(key, dict.fromkeys(FIGURES, 0))
        for figure in FIGURES:
            into[figure] += slot[figure]
    return found
