"""Which opinion may follow which, as each rulebook's text gives it (the seeds in ../shared/seeds).

- WESPA 3.10.11: "Either player may request the re-adjudication of a challenge"; "the original
  adjudicator should not perform the re-adjudication" (b); it "is final unless it differs from
  the original adjudication, in which case the Tournament Director will provide a final
  adjudication" (c). A tournament with no rulebook keeps this chain, citing nothing.
- NSA X.G: the review, "if it substantiates the original decision ... should be final"; "if the
  'second opinion' is contrary to the original ruling, then either player may ask and receive a
  third opinion" (two of three then decide: second_opinion.py); otherwise "the Director may make
  an exception and review the challenge for the third time if further information suggests that
  a mistake has been made twice" (`--exception REASON`, the director's, recorded).
- NASPA 1.2: "a second opinion from another Director, and a third if the rulings differ. The
  first Director will consider this input in making the final ruling."
- MSA 12(ii): re-adjudication "at the discretion of the judges"; the director's decision is
  final (MSA 20, cited by the ruling, not here). The school rules name no re-adjudication: it is
  at the director's discretion (the closing note).
A referral (REFER) is closed by the word judges' dictionary checks (NSA I.B and their like),
outside these chains. Each function returns what to say; second_opinion.py raises it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from adjudicator.judging.rulebooks import Rulebook
from adjudicator.record.journal.tallies import is_flagged

TWO_OF_THREE = "two of three"  # NSA X.G: a third opinion after a contrary second decides
EXCEPTION = "NSA X.G"  # the director's exception: a third review after a mistake made twice


def decides_two_of_three(entry: Any) -> bool:
    """True for a third opinion that decided its challenge, two of three (NSA X.G)."""
    return entry.kind == "second-opinion" and entry.detail("decides") == TWO_OF_THREE


def refusal(
    book: Rulebook, original: Any, opinions: Sequence[Any], exception: str | None = None
) -> str | None:
    """Why the rulebook gives no further opinion on `original` after `opinions` (None: it
    does). `exception` is the director's reason for NSA X.G's exception."""
    if exception is not None and book.opinions != "x-g":
        return (
            "The director's exception (a third review after a mistake made twice) is NSA X.G's: "
            f"tournament {original.tournament} is not under the nsa-1998 rulebook. Leave out "
            "--exception."
        )
    if book.opinions == "x-g":
        return _nsa_x_g(book, original, opinions, exception)
    if book.opinions == "naspa-1-2":
        return _naspa_1_2(book, original, opinions)
    if book.opinions == "discretion":
        return None
    final = next((o for o in opinions if not is_flagged(o)), None)
    if final is None:
        return None
    return (
        f"Second opinion #{final.id} agreed with adjudication #{original.id}, so it is "
        f"final{book.cite(book.opinion_final_clause)}: only the director can rule on it now."
    )


def _nsa_x_g(
    book: Rulebook, original: Any, opinions: Sequence[Any], exception: str | None
) -> str | None:
    decided = next((o for o in opinions if decides_two_of_three(o)), None)
    if decided is not None:
        return (
            f"Third opinion #{decided.id} decided adjudication #{original.id}, two of three"
            f"{book.cite(book.opinion_clause)}: only the director can review it now."
        )
    if not opinions:
        if exception is not None:
            return _exception_not_needed(original, "the second opinion")
        return None
    if len(opinions) >= 2:
        return (
            f"Adjudication #{original.id} has had its second and third opinions"
            f"{book.cite(book.opinion_clause)}: only the director can review it now."
        )
    second = opinions[0]
    if second.verdict != original.verdict:  # contrary: either player may ask a third
        if exception is not None:
            return _exception_not_needed(original, "a third opinion after a contrary second")
        return None
    if exception is not None:
        return None
    exception_said = (
        "A third opinion is given only if the second is contrary to the original ruling; the "
        "director may make an exception if further information suggests that a mistake has "
        f"been made twice: second-opinion {original.id} WORD... --exception REASON."
    )
    if not is_flagged(second):
        return (
            f"Second opinion #{second.id} agreed with adjudication #{original.id}, so it is "
            f"final{book.cite(book.opinion_clause)}: only the director can rule on it now. "
            + exception_said
        )
    return (
        f"Second opinion #{second.id} gave the same verdict as adjudication #{original.id} "
        f"({original.verdict}) on other words: it is not contrary to the original ruling, so "
        f"the director rules on the words{book.cite(book.opinion_clause)}. " + exception_said
    )


def _exception_not_needed(original: Any, what: str) -> str:
    return (
        f"No exception is needed for {what} on #{original.id} (NSA X.G gives it): leave out "
        "--exception."
    )


def _naspa_1_2(book: Rulebook, original: Any, opinions: Sequence[Any]) -> str | None:
    if not opinions:
        return None
    if len(opinions) >= 2:
        return (
            f"Adjudication #{original.id} has had a second opinion and a third"
            f"{book.cite(book.opinion_clause)}: the first director now makes the final ruling."
        )
    second = opinions[0]
    if second.verdict != original.verdict:
        return None
    return (
        f"Second opinion #{second.id} gave the same ruling as adjudication #{original.id} "
        f"({original.verdict}): a third opinion is given only if the rulings differ"
        f"{book.cite(book.opinion_clause)}. The first director makes the final ruling."
    )


def agreeing_status(book: Rulebook) -> str:
    """What an opinion that agrees with the original (and is not flagged) means."""
    if book.opinions == "naspa-1-2":
        return (
            f"This second opinion agrees with the original{book.cite(book.opinion_clause)}: a "
            "third opinion is given only if the rulings differ, and the first director makes "
            "the final ruling."
        )
    if book.opinions == "discretion":
        return f"This second opinion agrees with the original{book.cite(book.opinion_clause)}."
    return f"This second opinion is final{book.cite(book.opinion_final_clause)}."


def same_judge(book: Rulebook, actor: str, original_id: int) -> str:
    """The refusal of a next opinion by someone who already judged the challenge."""
    if book.same_judge_clause:
        why = book.cite(book.same_judge_clause)
    else:
        why = " (the hall's practice: this rulebook sets no such clause)"
    return (
        f"{actor} already judged adjudication #{original_id}: another person gives the next "
        f"opinion{why}."
    )


def same_station(book: Rulebook, kiosk: str, original_id: int) -> str:
    """The refusal of a next opinion from the kiosk that gave the original verdict."""
    why = (
        book.cite(book.same_judge_clause) if book.same_judge_clause else (" (the hall's practice)")
    )
    return (
        f"Adjudication #{original_id} was judged on kiosk {kiosk}: the original adjudicator "
        f"should not give the second opinion{why}. Use another station."
    )
