"""Rulebooks: which rulebook-only procedures a tournament's events have.

A tournament may name its rulebook (`naspa`, `wespa`, `nsa-1998`, `school-2011`, `msa`). Each
rulebook's own procedures are offered only under it, so one rulebook's penalty never leaks into
another's events: NASPA 6.2's 10-point penalty for improper separate look-ups (and the flags
that find them) only under `naspa`; school rule 12 (no penalty for challenging the final play)
only under `school-2011`. A tournament without a rulebook has none of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from adjudicator.errors import AdjudicatorError


@dataclass(frozen=True)
class Rulebook:
    name: str
    title: str
    improper_lookup: bool = False  # NASPA 6.2: improper separate look-ups cost 10 points
    final_play_free: bool = False  # school rule 12: no penalty for challenging the final play


RULEBOOKS: dict[str, Rulebook] = {
    book.name: book
    for book in (
        Rulebook("naspa", "NASPA Official Tournament Rules", improper_lookup=True),
        Rulebook("wespa", "WESPA Rules"),
        Rulebook("nsa-1998", "NSA Official Tournament Rules, 1998"),
        Rulebook(
            "school-2011", "National School Scrabble Championship rules, 2011", final_play_free=True
        ),
        Rulebook("msa", "Malaysia Scrabble Association rules"),
    )
}
NONE = Rulebook("", "no rulebook named")


class UnknownRulebook(AdjudicatorError):
    """No rulebook has that name."""


def check_rulebook(name: str | None) -> str | None:
    """A rulebook's name as stored (None for none), or UnknownRulebook listing the names."""
    name = (name or "").strip().lower()
    if not name:
        return None
    if name not in RULEBOOKS:
        raise UnknownRulebook(
            f"Unknown rulebook {name!r}: choose one of {', '.join(RULEBOOKS)} (or leave it out)."
        )
    return name


def get_rulebook(name: str | None) -> Rulebook:
    """The rulebook called `name`; NONE (no rulebook-only procedures) for None."""
    return RULEBOOKS.get(name or "", NONE)


def rulebook_name(db: Any, tournament: str) -> str | None:
    """The name of tournament `tournament`'s rulebook as stored (None if it names none)."""
    row = db.query_one("SELECT rulebook FROM tournaments WHERE slug = ?", (tournament,))
    return row["rulebook"] if row else None


def rulebook_of(db: Any, tournament: str) -> Rulebook:
    """The rulebook of tournament `tournament` as stored (NONE if it names none)."""
    return get_rulebook(rulebook_name(db, tournament))
