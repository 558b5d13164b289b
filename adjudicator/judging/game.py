"""One game (tournament + round + table) in the journal: what the rules that count need from it.

The non-standard penalty systems of WESPA 3.10.15(c) (dingle, 5-then-10, escalating) charge an
unsuccessful challenge by how many unsuccessful challenges the same challenger made earlier in
the same game. That count is read from the journal, inside the append transaction under the
chain lock, so it survives restarts, holds across several servers, and two challenges
recorded at once in one game are counted one after the other, never both as the first.

A challenge counts by its effective outcome, the one the rulebooks give it:
- a void challenge (withdrawn, rescinded, entered by mistake: NSA IV.I.2, NASPA 4.10 and 5.4)
  was never adjudicated, so it is no unsuccessful challenge (unless the void was revoked: every
  void but the latest was, when there are as many revocations as voids);
- a challenge reissued because the slip did not match the board (WESPA 3.10.12, MSA 13) counts
  once, as the reissued challenge;
- a ruling (WESPA 3.10.11(c), 3.10.13; NSA X.G) replaces the original adjudication, and a word
  judge's dictionary check closes a referral (NSA I.B): the challenge counts as so decided;
- a flagged second opinion changes nothing until the director rules.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from adjudicator.errors import AdjudicatorError
from adjudicator.judging.rules import Rule

GAME_FIELDS = ("round", "table", "challenger")

# A second opinion is waiting for the director when its flag_reasons are not '[]' (schema 7);
# a row from before schema 7 said so in its note (second_opinion.FLAGGED).
_FLAGGED_NOTE = "%flagged for the director%"

# A challenge `c` that counts now as an unsuccessful challenge: not reissued, not void (every
# void revoked), and ACCEPTABLE as the latest ruling, else the latest final second opinion,
# else the challenge itself decides it (outcomes.py gives the same order).
UNSUCCESSFUL_NOW = f"""
  NOT EXISTS (
    SELECT 1 FROM adjudications AS v WHERE v.refers_to = c.id AND v.kind = 'challenge')
  AND (SELECT COUNT(*) FROM adjudications AS v WHERE v.refers_to = c.id AND v.kind = 'void')
    <= (SELECT COUNT(*) FROM adjudications AS v
        WHERE v.refers_to = c.id AND v.kind = 'revocation')
  AND COALESCE(
    (SELECT r.verdict FROM adjudications AS r
     WHERE r.refers_to = c.id AND r.kind = 'ruling' ORDER BY r.id DESC LIMIT 1),
    (SELECT s.verdict FROM adjudications AS s
     WHERE s.refers_to = c.id AND s.kind = 'second-opinion'
       AND CASE WHEN s.flag_reasons IS NOT NULL THEN s.flag_reasons = '[]'
           ELSE (s.note IS NULL OR s.note NOT LIKE '{_FLAGGED_NOTE}') END
     ORDER BY s.id DESC LIMIT 1),
    c.verdict) = 'ACCEPTABLE'
"""
# {bound} narrows the rows: "AND c.id < ?" (before a row), "AND c.id <> ?" (all but one), "".
_EARLIER_UNSUCCESSFUL = f"""
SELECT COUNT(*) AS n FROM adjudications AS c
WHERE c.tournament = ? AND c.round_no = ? AND c.table_no = ? AND c.challenger = ?
  AND c.kind = 'challenge' {{bound}}
  AND {UNSUCCESSFUL_NOW}
"""


class GameDetailsRequired(AdjudicatorError):
    """The rule counts earlier challenges in a game; the round, table or challenger is missing."""


def canonical(value: str | None) -> str | None:
    """A round, table or challenger as compared within a game: spaces collapsed, upper case,
    a plain number without leading zeros ('07' is '7', 'ann  lee' is 'ANN LEE')."""
    if value is None:
        return None
    text = " ".join(str(value).split()).upper()
    return str(int(text)) if text.isdecimal() else text  # isdigit() would let '²' through


def require_game(rule: Rule, details: dict[str, str | None]) -> dict[str, str | None]:
    """For a rule that counts earlier challenges: the details with round, table and challenger
    in canonical form (a challenger TSH named, in a linked game, as TSH names them), or
    GameDetailsRequired naming what is missing. Other rules: unchanged."""
    if not rule.counts_earlier_challenges:
        return details
    missing = [name for name in GAME_FIELDS if not details.get(name)]
    if missing:
        raise GameDetailsRequired(
            f"This tournament's challenge rule ({rule.name}) depends on the challenger's earlier "
            f"challenges in the game: give the {', '.join(missing)} (round, table and "
            "challenger are needed). Nothing was judged."
        )
    linked = details.get("players") is not None  # TSH's game: its names as TSH has them
    return {
        **details,
        **{
            name: canonical(details[name])
            for name in GAME_FIELDS
            if not (linked and name == "challenger")
        },
    }


def earlier_unsuccessful(
    cur: Any,
    tournament: str,
    round_no: str | None,
    table_no: str | None,
    challenger: str | None,
    before_id: int | None = None,
    replacing: int | None = None,
) -> int:
    """The challenger's unsuccessful challenges in this game before row `before_id` (else all),
    each by its effective outcome, leaving out the challenge a reissue is `replacing`.
    Run inside the append transaction; one index seek."""
    if not (round_no and table_no and challenger):
        return 0
    params: tuple = (tournament, round_no, table_no, challenger)
    if before_id is not None:
        bound, params = "AND c.id < ?", (*params, before_id)
    elif replacing is not None:  # a reissue: every row so far but the one it replaces
        bound, params = "AND c.id <> ?", (*params, replacing)
    else:  # a new challenge: every row so far is earlier
        bound = ""
    row = cur.execute(_EARLIER_UNSUCCESSFUL.format(bound=bound), params).one()
    return int(row["n"]) if row else 0


def same_player(a: str, b: str) -> bool:
    """True when two names are one player's: case, spacing and '#' ignored, "Last, First" is
    "First Last" (TSH's names), '07' is '7'."""
    return bool(forms_of(a) & forms_of(b))


@lru_cache(maxsize=4096)
def forms_of(name: str) -> frozenset[str]:
    """The forms a player's name is compared in (cached: each grant's name is read per
    challenge)."""
    plain = " ".join(str(name).split()).casefold().lstrip("#")
    plain = re.sub(r"\s*,\s*", ", ", plain)
    if plain.isdecimal():
        return frozenset({str(int(plain))})
    last, comma, first = plain.partition(", ")
    return frozenset({plain, f"{first} {last}"} if comma else {plain})
