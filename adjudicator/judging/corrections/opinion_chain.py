"""The chain of opinions, one model per rulebook: who may give the next opinion, when an opinion
decides, and who rules last, as each text gives them (the seeds in ../shared/seeds).

- WESPA 3.10.11: "Either player may request the re-adjudication of a challenge" (a); "the
  original adjudicator should not perform the re-adjudication" (b); it "is final unless it
  differs from the original adjudication, in which case the Tournament Director will provide a
  final adjudication" (c). One re-adjudication, then the Tournament Director: no third opinion.
- NSA X.G: the review, "if it substantiates the original decision ... should be final"; "if the
  'second opinion' is contrary to the original ruling, then either player may ask and receive a
  third opinion", which then decides, two of three; otherwise "the Director may make an
  exception and review the challenge for the third time if further information suggests that a
  mistake has been made twice" (`--exception REASON`, the director's, recorded). No fourth.
- NASPA 1.2: "a second opinion from another Director, and a third if the rulings differ. The
  first Director will consider this input in making the final ruling": the final ruling is the
  first Director's, whose decision was appealed (the first ruling on the challenge: a person's
  `judge`, or the dictionary check that closed a referral; a kiosk's verdict is no Director's).
- MSA 12(ii): re-adjudication "at the discretion of the judges"; the director's decision is
  final (20). The school rules name no re-adjudication: "Final decisions on all rulings are at
  the discretion of the official School SCRABBLE® Capitol Cup Director" (the closing note).
- No rulebook named: the hall's practice, as before: a second opinion that agrees is final; after
  one that differs, more opinions may be given while the case waits for the director's ruling.
A referral (REFER) is first closed by a word judge's dictionary check (NSA I.B and their like);
until then the checks are the word judges' own, outside the chain. The check that closed it is
the ruling the chain starts from (X.G's "original ruling"): a contrary check after it may be
followed by a third that decides, and no further one.

Each function returns what to say; second_opinion.py and final_ruling.py raise it. `describe`
gives each rulebook's chain as the manual's table shows it (docs/generate.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from adjudicator.judging.rulebooks import Rulebook
from adjudicator.record.journal.tallies import is_flagged

TWO_OF_THREE = "two of three"  # NSA X.G: a third opinion after a contrary second decides
EXCEPTION = "NSA X.G"  # the director's exception: a third review after a mistake made twice
REFER = "REFER"
# NSA I.B and X.J (school rule 10 alike): a word judge's dictionary check decides a long word.
# The note of a row from before schema 7 said so in these words (closes_referral reads them).
CLOSES_REFERRAL = "closes the referral: the word judge's dictionary check decides (NSA I.B)"
HALLS_PRACTICE = "the hall's practice"


def decides_two_of_three(entry: Any) -> bool:
    """True for a third opinion that decided its challenge, two of three (NSA X.G)."""
    return entry.kind == "second-opinion" and entry.detail("decides") == TWO_OF_THREE


def closes_referral(entry: Any, original: Any) -> bool:
    """True when `entry` is a word judge's dictionary check that closed the referral of
    `original` (REFER) without a flag: read from the row's fields, never from its note. A third
    opinion that decided, two of three (NSA X.G), closed nothing: it decided a contest."""
    if entry.kind != "second-opinion" or original.verdict != REFER:
        return False
    if entry.flag_reasons is None:  # a row from before schema 7
        return CLOSES_REFERRAL in (entry.note or "")
    return (
        entry.dictionary is not None and not is_flagged(entry) and not decides_two_of_three(entry)
    )


@dataclass(frozen=True)
class Standing:
    """The ruling a challenge's chain starts from, and the opinions given on it since."""

    original: Any  # the challenge
    first: Any  # the original, or the dictionary check that closed its referral
    later: tuple[Any, ...]  # the opinions given after `first`

    @property
    def name(self) -> str:
        """'adjudication #N' or 'dictionary check #N': the ruling the chain starts from."""
        what = "adjudication" if self.first is self.original else "dictionary check"
        return f"{what} #{self.first.id}"


def standing(original: Any, opinions: Sequence[Any]) -> Standing | None:
    """Where the chain stands: None while a referral is open (no check has closed it yet)."""
    if original.verdict != REFER:
        return Standing(original, original, tuple(opinions))
    for index, opinion in enumerate(opinions):
        if closes_referral(opinion, original):
            return Standing(original, opinion, tuple(opinions[index + 1 :]))
    return None


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
    found = standing(original, opinions)
    if found is None:  # the word judges' dictionary checks close a referral first
        if exception is not None:
            return (
                f"Adjudication #{original.id} was referred: the word judges' dictionary checks "
                "close it, and no exception is needed. Leave out --exception."
            )
        return None
    if book.opinions == "x-g":
        return _nsa_x_g(book, found, exception)
    if book.opinions == "naspa-1-2":
        return _naspa_1_2(book, found)
    if book.opinions == "discretion":
        return None
    return _final_if_agrees(book, found)


def _final_if_agrees(book: Rulebook, found: Standing) -> str | None:
    """WESPA 3.10.11(c) (and the hall's practice with no rulebook): one re-adjudication."""
    if not found.later:
        return None
    second = found.later[0]
    if not is_flagged(second):
        return (
            f"Second opinion #{second.id} agreed with {found.name}, so it is "
            f"final{book.cite(book.opinion_final_clause)}: only the director can rule on it now."
        )
    if not book.named:  # the hall's practice: more opinions while the case waits
        return None
    return (
        f'Second opinion #{second.id} differs from {found.name}: "the Tournament Director '
        f'will provide a final adjudication" ({book.opinion_final_clause}), and no third '
        f"opinion is given. The director rules on it: adjudicator ruling {found.original.id}."
    )


def _nsa_x_g(book: Rulebook, found: Standing, exception: str | None) -> str | None:
    first, later = found.first, found.later
    decided = next((o for o in later if decides_two_of_three(o)), None)
    if decided is not None:
        return (
            f"Third opinion #{decided.id} decided {found.name}, two of three"
            f"{book.cite(book.opinion_clause)}: only the director can review it now."
        )
    if not later:
        if exception is not None:
            return _exception_not_needed(found, "the second opinion")
        return None
    if len(later) >= 2:
        return (
            f"{found.name[0].upper()}{found.name[1:]} has had its second and third opinions"
            f"{book.cite(book.opinion_clause)}: only the director can review it now."
        )
    second = later[0]
    if second.verdict != first.verdict:  # contrary: either player may ask a third
        if exception is not None:
            return _exception_not_needed(found, "a third opinion after a contrary second")
        return None
    if exception is not None:
        return None
    exception_said = (
        "A third opinion is given only if the second is contrary to the original ruling; the "
        "director may make an exception if further information suggests that a mistake has "
        f"been made twice: second-opinion {found.original.id} WORD... --exception REASON."
    )
    if not is_flagged(second):
        return (
            f"Second opinion #{second.id} agreed with {found.name}, so it is "
            f"final{book.cite(book.opinion_clause)}: only the director can rule on it now. "
            + exception_said
        )
    return (
        f"Second opinion #{second.id} gave the same verdict as {found.name} "
        f"({first.verdict}) on other words: it is not contrary to the original ruling, so "
        f"the director rules on the words{book.cite(book.opinion_clause)}. " + exception_said
    )


def _exception_not_needed(found: Standing, what: str) -> str:
    return (
        f"No exception is needed for {what} on #{found.original.id} (NSA X.G gives it): leave "
        "out --exception."
    )


def _naspa_1_2(book: Rulebook, found: Standing) -> str | None:
    if not found.later:
        return None
    who = first_director(found)
    named = f" ({who})" if who else ""
    if len(found.later) >= 2:
        return (
            f"{found.name[0].upper()}{found.name[1:]} has had a second opinion and a third"
            f"{book.cite(book.opinion_clause)}: the first director{named} now makes the final "
            "ruling."
        )
    second = found.later[0]
    if second.verdict != found.first.verdict:
        return None
    return (
        f"Second opinion #{second.id} gave the same ruling as {found.name} "
        f"({found.first.verdict}): a third opinion is given only if the rulings differ"
        f"{book.cite(book.opinion_clause)}. The first director{named} makes the final ruling."
    )


def decides(
    book: Rulebook, original: Any, opinions: Sequence[Any], words: Sequence[str], verdict: str
) -> bool:
    """NSA X.G: "if the second opinion is contrary to the original ruling, then either player
    may ask and receive a third opinion". True for that third opinion when it reads the slip as
    the original ruling or the contrary second did (the same words, so the same verdict): two of
    the three then agree, and decide. A third reading of its own goes to the director. The
    original ruling of a referral is the dictionary check that closed it."""
    if not book.third_opinion_decides or verdict == REFER:
        return False
    found = standing(original, opinions)
    if found is None or len(found.later) != 1:
        return False
    second = found.later[0]
    if second.verdict == found.first.verdict:  # not contrary: no third, or the exception
        return False
    return Counter(words) in (Counter(found.first.words), Counter(second.words))


def first_director(found: Standing) -> str | None:
    """NASPA 1.2's "first Director": whoever gave the first ruling on the challenge, the
    decision appealed (the original's judge; for a referral, the word judge whose dictionary
    check closed it). None when a kiosk judged it: no Director's decision was appealed."""
    return found.first.actor or None


def same_person(actor: str, other: str) -> bool:
    """True when two actors are one person: a staff account and the same name at the command
    line (`alice` and `cli:alice`) are."""
    return actor.removeprefix("cli:") == other.removeprefix("cli:")


def ruling_refusal(
    book: Rulebook, original: Any, opinions: Sequence[Any], actor: str
) -> str | None:
    """Why `actor` may not give the final ruling (None: they may). NASPA 1.2: after a second
    opinion, "The first Director will consider this input in making the final ruling"."""
    if book.opinions != "naspa-1-2":
        return None
    found = standing(original, opinions)
    if found is None or not found.later:
        return None  # nothing was appealed: any director rules
    first = first_director(found)
    if first is None or same_person(first, actor):
        return None
    gave = [o.id for o in found.later if same_person(o.actor or "", actor)]
    said = f"{actor} gave opinion #{gave[0]}" if gave else f"{actor} is not that Director"
    return (
        f"The final ruling on #{original.id} is {first}'s, the Director whose decision was "
        f'appealed ({book.opinion_clause}: "The first Director will consider this input in '
        f'making the final ruling"): {said}. {first} gives it: adjudicator ruling '
        f"{original.id} --verdict V --reason TEXT."
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
        why = f" ({HALLS_PRACTICE}: this rulebook sets no such clause)"
    return (
        f"{actor} already judged adjudication #{original_id}: another person gives the next "
        f"opinion{why}."
    )


def same_station(book: Rulebook, kiosk: str, original_id: int) -> str:
    """The refusal of a next opinion from the kiosk that gave the original verdict."""
    why = book.cite(book.same_judge_clause) if book.same_judge_clause else f" ({HALLS_PRACTICE})"
    return (
        f"Adjudication #{original_id} was judged on kiosk {kiosk}: the original adjudicator "
        f"should not give the second opinion{why}. Use another station."
    )


@dataclass(frozen=True)
class Described:
    """One rulebook's chain as the manual's table gives it, each cell quoting its clause."""

    next_opinion: str  # who may give the next opinion, and when
    decides: str  # when an opinion decides
    rules_last: str  # who rules last


def describe(book: Rulebook) -> Described:
    """The rulebook's chain of opinions in words (docs/director.md and docs/penalties.md)."""
    return _DESCRIBED.get(book.name, _DESCRIBED[""])


_DESCRIBED = {
    "wespa": Described(
        '"Either player may request the re-adjudication of a challenge" (3.10.11(a)); '
        '"the original adjudicator should not perform the re-adjudication" (3.10.11(b)). One '
        "re-adjudication: no third opinion (3.10.11(c))",
        'the re-adjudication "is final unless it differs from the original adjudication" '
        "(3.10.11(c))",
        'the Tournament Director, when it differs: "the Tournament Director will provide a '
        'final adjudication" (3.10.11(c))',
    ),
    "nsa-1998": Described(
        '"The challenger or player may request a review" (X.G), researched by "another '
        "person\" (Guideline 11g); a third only \"if the 'second opinion' is contrary to the "
        'original ruling" (X.G), or as the Director\'s exception "if further information '
        'suggests that a mistake has been made twice" (X.G: `--exception REASON`); no fourth',
        'a review that "substantiates the original decision ... should be final"; a third '
        "opinion after a contrary second decides, two of three (X.G). A referral's original "
        "ruling is the dictionary check that closed it (I.B)",
        "the Director, who may review the challenge again (X.G); in a situation the rules do "
        'not describe, the Director makes "reasonable decisions" (XII)',
    ),
    "naspa": Described(
        '"a second opinion from another Director, and a third if the rulings differ" (1.2); '
        "no fourth",
        'none: "The first Director will consider this input in making the final ruling" (1.2)',
        'the first Director, whose decision was appealed: "The first Director will consider '
        'this input in making the final ruling" (1.2)',
    ),
    "msa": Described(
        '"Either player may query the decision and ask that the slip be returned for '
        're-adjudication at the discretion of the judges" (12(ii))',
        "the judges' re-adjudication, when it agrees with the original; one that differs goes "
        'to the director: "All matters in doubt or dispute shall be referred to the Tournament '
        'Director" (20)',
        'the Tournament Director, "whose decision is FINAL" (20)',
    ),
    "school-2011": Described(
        "the rules name no second opinion: at the director's discretion (the closing note), "
        "by another person (the hall's practice)",
        "one that agrees with the original; one that differs goes to the director (the "
        "closing note)",
        '"Final decisions on all rulings are at the discretion of the official School '
        'SCRABBLE® Capitol Cup Director" (the closing note)',
    ),
    "": Described(
        "the hall's practice: a second opinion, by another person; after one that differs, "
        "more while the case waits for the director",
        "the hall's practice: a second opinion that agrees with the original",
        "the hall's practice: the director, when an opinion differs",
    ),
}
