"""The players' study list: which words of each challenge that came off are not in the lexicon.

The one place anything is said word by word, and only for an event the director has closed
(its signed closing statement is required here, not only by the caller). While an event runs,
no page, file or answer tells it: its rulebook's clause where it has one (WESPA 3.10.7(b),
NSA X.E, MSA 13(ii)), else the hall's practice (no rulebook speaks of the time after the event:
once it is closed the games are over, and the list harms no one).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from adjudicator.errors import AdjudicatorError, LexiconError
from adjudicator.judging.rulebooks import get_rulebook
from adjudicator.record.journal.closings import Statement

HALL_PRACTICE = "the hall's practice: no clause of this event's rulebook speaks of it"


class WordsRefused(AdjudicatorError):
    """Which words were not in the lexicon is told only once the event is closed."""


def refusal(tournament: Any) -> str:
    """Why the words are not told before the close, citing the tournament's own clause."""
    clause = get_rulebook(tournament.rulebook).secrecy_clause or HALL_PRACTICE
    return (
        f"Tournament {tournament.slug} is not closed: which words of a challenge were not in the "
        f"lexicon is told to no one while the event runs ({clause}). Once the games are over, "
        f"close it (`adjudicator tournament close {tournament.slug}`) and ask again."
    )


def refuse_unless_closed(tournament: Any, closing: Statement | None) -> None:
    """WordsRefused unless `closing` is the signed statement that closed the tournament."""
    if closing is None or not closing.closed or closing.tournament != tournament.slug:
        raise WordsRefused(refusal(tournament))


def mark(store: Any, tournament: Any, closing: Statement | None, lines: Iterable[Any]) -> None:
    """Give each challenge line that came off (UNACCEPTABLE) its `not_in_lexicon`: the words of
    the row that decided it that are not in the lexicon it was judged with; other lines get an
    empty list. Refused unless the tournament is closed."""
    refuse_unless_closed(tournament, closing)
    opened: dict[tuple[str, str], Any] = {}
    for line in lines:
        if line.verdict != "UNACCEPTABLE":
            line.not_in_lexicon = []
            continue
        lexicon = opened.get(line.lexicon)
        if lexicon is None:
            lexicon = opened[line.lexicon] = _open(store, *line.lexicon)
        line.not_in_lexicon = [w for w in dict.fromkeys(line.decided_words) if w not in lexicon]


def _open(store: Any, name: str, fingerprint: str) -> Any:
    """The lexicon a challenge was judged with, refused if it cannot be opened or has changed."""
    try:
        lexicon = store.open(name)
    except LexiconError:
        raise WordsRefused(
            f"Lexicon {name}, which the event's challenges were judged with, cannot be opened: "
            "restore it (`adjudicator lexicon verify`) and ask again."
        ) from None
    if lexicon.manifest.fingerprint != fingerprint:
        raise WordsRefused(
            f"Lexicon {name} has been re-imported since the event's challenges were judged with "
            f"it (fingerprint {fingerprint[:12]}, now {lexicon.manifest.fingerprint[:12]}): its "
            "words would not be the ones the verdicts used."
        )
    return lexicon
