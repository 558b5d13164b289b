"""The director's final ruling on any adjudication, with a reason, as a journal row.

WESPA 3.10.11(c): when a second opinion differs from the original, the director decides.
NSA X.G: the director may review any challenge again. WESPA 3.10.13: a misadjudication may
be corrected. So a ruling may be given on any challenge (flagged or not), once; it is final.
Its consequence counts the words ruled on: those given with the ruling, else the original's;
when a second opinion was given with other words, the director must name them. With
`improper_lookup`, it also records NASPA 6.2's 10-point penalty for a play whose words were
looked up separately; with `points`, the director's points to the player (director_points.py).
(The free challenge is no ruling: waivers.py.) Under NASPA 1.2 the final ruling on a challenge
that had second opinions is the first Director's (opinion_chain.ruling_refusal).
Under WESPA, a ruling that changes the outcome after a later challenge at that table needs the
director's confirmation (correction_window.py, WESPA 3.10.13).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable

from adjudicator.errors import LexiconError
from adjudicator.judging import director_points, outcomes
from adjudicator.judging.corrections import correction_window, opinion_chain, voids
from adjudicator.judging.corrections.second_opinion import (
    SecondOpinionRefused,
    append_follow_up,
    case_of,
    original_of,
    refuse_if_ruled,
)
from adjudicator.judging.reasons import check_reason
from adjudicator.judging.rulebooks import rulebook_of
from adjudicator.judging.rules import get_rule
from adjudicator.judging.verdict import Verdict
from adjudicator.record.database.db import Database
from adjudicator.record.journal import journal
from adjudicator.words.alphabet import ENGLISH, Alphabet
from adjudicator.words.normalize import normalize_challenge
from adjudicator.words.store import LexiconStore

FINAL_VERDICTS = (Verdict.ACCEPTABLE.value, Verdict.UNACCEPTABLE.value)


def record_ruling(
    db: Database,
    adjudication_id: int,
    verdict: str,
    reason: str,
    *,
    actor: str,
    station: str,
    words: str | Iterable[str] | None = None,
    improper_lookup: bool = False,
    store: LexiconStore | None = None,
    confirm_correction: bool = False,
    points: int | str | None = None,
) -> journal.Entry:
    """Journal the director's final ruling on challenge `adjudication_id`.

    `words` are read in the tiles of the original's lexicon, found in `store` (English without);
    `points`, the director's points to the player (director_points.py), negative for a
    deduction.
    """
    points = director_points.check_points(points)
    original = original_of(db, adjudication_id)
    verdict = (verdict or "").strip().upper()
    if verdict not in FINAL_VERDICTS:
        raise SecondOpinionRefused("The final ruling is ACCEPTABLE or UNACCEPTABLE.")
    reason = check_reason(reason, "ruling")
    correction_window.refuse_unless_offered(db, original, confirm_correction)
    if improper_lookup and not rulebook_of(db, original.tournament).improper_lookup:
        raise SecondOpinionRefused(
            f"The improper look-up penalty is NASPA 6.2's: tournament {original.tournament} is "
            "not under the naspa rulebook (`tournament set SLUG --rulebook naspa`), so it has "
            "no such penalty."
        )
    if improper_lookup and verdict != Verdict.UNACCEPTABLE.value:
        raise SecondOpinionRefused(
            "The improper look-up penalty (NASPA 6.2) applies only when the play is "
            "unacceptable: rule UNACCEPTABLE, or leave the penalty out."
        )
    refuse_if_ruled(db, original.id)
    voids.refuse_if_void_now(db, original.id)
    book = rulebook_of(db, original.tournament)
    case = case_of(db, original)
    refused = opinion_chain.ruling_refusal(book, original, case.opinions, actor)
    if refused:
        raise SecondOpinionRefused(refused)
    ruled_words = _words_ruled_on(db, store, original, words)
    current = next(iter(outcomes.with_outcomes(db, [original])))[1]
    confirmed = correction_window.require_confirmation(
        db,
        original,
        current is not None and current.verdict != verdict,
        confirm_correction,
        "ruling",
    )
    details: dict[str, object] = {"confirmed": True} if confirmed else {}
    if points:
        details[director_points.DETAIL] = points
    if improper_lookup and any(row.kind == "waiver" for row in journal.follow_ups(db, original.id)):
        raise SecondOpinionRefused(
            f"The penalty of #{original.id} was waived (a free challenge), which charges nobody: "
            "leave out the improper look-up penalty."
        )
    note = reason
    if improper_lookup:
        note = f"{reason} [improper separate look-ups, NASPA 6.2]"
    return append_follow_up(
        db,
        original,
        kind="ruling",
        station=station,
        actor=actor,
        rule=get_rule(original.rule),
        words=ruled_words,
        verdict=Verdict(verdict),
        note=note,
        improper_lookup=improper_lookup,
        points=points,
        details=json.dumps(details, sort_keys=True) if details else None,
    )


def _alphabet_of(store: LexiconStore | None, original: journal.Entry) -> Alphabet:
    if store is None:
        return ENGLISH
    try:
        return store.manifest(original.lexicon_name).get_alphabet()
    except LexiconError:
        raise SecondOpinionRefused(
            f"Adjudication #{original.id} was judged with lexicon {original.lexicon_name}, which "
            "is no longer in the store: the words ruled on cannot be read in its tiles."
        ) from None


def _words_ruled_on(
    db: Database,
    store: LexiconStore | None,
    original: journal.Entry,
    words: str | Iterable[str] | None,
) -> tuple[str, ...]:
    """The words given with the ruling, else the latest second opinion's, else the original's."""
    given = (words.strip() if isinstance(words, str) else list(words)) if words else None
    if given:
        return normalize_challenge(given, _alphabet_of(store, original))
    opinions = case_of(db, original).opinions
    if any(Counter(o.words) != Counter(original.words) for o in opinions):
        raise SecondOpinionRefused(
            f"A second opinion on #{original.id} was given with other words than the "
            f"original's ({' '.join(original.words)}): name the words you rule on "
            "(ruling ID --words WORD...), so the penalty counts the right ones."
        )
    return original.words
