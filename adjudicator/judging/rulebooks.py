"""Rulebooks: each names its word lists, its penalty rules and its own procedures, in one place.

A tournament may name its rulebook (`naspa`, `wespa`, `nsa-1998`, `school-2011`, `msa`, the texts
in ../shared/seeds). Each rulebook allows the word lists it names (rulebook_lists.py: by catalogue
family or recipe, never by a list's name), under NASPA 1.3 and WESPA 1.2(b) only the edition in
force on the event's date (the catalogue's dates), and the penalty rules it names; a tournament
with another is refused unless the director records why it is off its rulebook
(hall/tournaments.py). Each has its own corrections and nothing else:
- reissues (a slip that did not match the board) only under WESPA 3.10.12 and MSA 13; school
  rule 12, NSA X.D and NASPA 6.2 settle the slip before adjudication;
- the free challenge granted for a later challenge (free_challenges.py) is NSA VI.C's; the
  waiver of one challenge's penalty (waivers.py) is the director's discretion under NSA XII (or
  Guideline 2, for an undesignated blank); elsewhere both rest on the director's discretion,
  cited from that rulebook, as do the director's points (`--points N`);
- WESPA 3.10.13's confirmation of a correction after later turns only under WESPA;
- second and third opinions as each text gives them (opinion_chain.py): WESPA 3.10.11, NSA X.G
  (a third only after a contrary second, two of three, or the director's exception), NASPA 1.2
  (a third if the rulings differ, then the first director rules), MSA 12(ii) (the judges'
  discretion, the director's decision final: 20), the school rules' closing note;
- the original judge's own re-adjudication refused citing WESPA 3.10.11(b), NASPA 1.2 or NSA
  Guideline 11g; under MSA and the school rules it is the hall's practice;
- NASPA 6.2's penalty for improper separate look-ups only under NASPA; school rule 12's free
  challenge of the final play only under the school rules;
- the challenges the director decides (placement, exchange: director_challenges.py) cite
  WESPA 3.10.16 and 3.10.17, NASPA 4.7-4.8 and 4.11(a), or the rulebook's own clauses.
Every message cites the tournament's own rulebook. A tournament with no rulebook keeps every
correction, as before (reissues citing WESPA 3.10.12, confirmations after later turns citing
WESPA 3.10.13, the free challenge, second opinions, the original judge's refusal citing NSA
Guideline 11g), with no other clause cited; the procedures that are one rulebook's own (NASPA
6.2's look-up penalty, school rule 12's free final challenge, NSA X.G's third opinion, NASPA
1.2's limit of three) apply only under that rulebook.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from adjudicator.errors import AdjudicatorError
from adjudicator.judging.rulebook_lists import CatalogueFamily, ListKind, RecipeWords, recognise
from adjudicator.judging.rules import Rule
from adjudicator.words import catalogue

NWL = CatalogueFamily("NWL", "the NASPA Word List, every edition")
COLLINS = CatalogueFamily("CSW", "Collins Scrabble Words, CSW07 on", since="2007-01-01")
# WESPA 3.10.15(b): the standard penalties; any other may make the event non-ratable (d).
WESPA_STANDARD = ("single", "5-per-word", "5-per-turn", "10-per-word", "10-per-turn", "double")


@dataclass(frozen=True)
class Rulebook:
    name: str
    title: str
    improper_lookup: bool = False  # NASPA 6.2: improper separate look-ups cost 10 points
    final_play_free: bool = False  # school rule 12: no penalty for challenging the final play
    # The word lists it allows (empty: any) and the clause that names them.
    lists: tuple[ListKind, ...] = ()
    lists_clause: str = ""
    # The penalty rules it allows (empty: any) and the clause.
    rules: tuple[str, ...] = ()
    rules_clause: str = ""
    rated_rules: tuple[str, ...] = ()  # WESPA 3.10.15(b): others "may not be rated" (d)
    # Reissues: allowed (the clause that allows them) or refused (the clause that settles the
    # slip before adjudication).
    reissues: bool = True
    reissue_clause: str = ""
    # The director's waiver of a challenge's penalty (waivers.py): the clause it rests on
    # (`waiver_ref` as a consequence cites it), and whether that clause names it or it is the
    # director's discretion. NSA: XII (Guideline 2 for an undesignated blank: `blank_waiver_*`).
    waiver_clause: str = ""
    waiver_ref: str = ""
    waiver_named: bool = False
    blank_waiver_clause: str = ""
    blank_waiver_ref: str = ""
    # A free challenge granted for a later challenge (free_challenges.py): the clause that names
    # it (NSA VI.C); "" where it is the director's discretion, as the waiver is.
    grant_ref: str = ""
    # The director's points (`--points N`): the clause that lets the director assess them.
    points_clause: str = ""
    # WESPA 3.10.13: a correction after later turns needs the director's confirmation.
    confirms_corrections: bool = False
    confirm_clause: str = "WESPA 3.10.13"
    ruling_final_clause: str = ""  # a ruling is final
    opinion_final_clause: str = ""  # a re-adjudication that agrees is final ("": none says so)
    opinion_clause: str = ""  # what second-opinion messages cite (the rulebook's own clause)
    # How opinions follow one another (opinion_chain.py): "final-if-agrees" (WESPA 3.10.11(c),
    # and no rulebook), "x-g" (NSA X.G), "naspa-1-2" (NASPA 1.2), "discretion" (MSA 12(ii), the
    # school rules' closing note).
    opinions: str = "final-if-agrees"
    third_opinion_decides: bool = False  # NSA X.G: two of three
    # Who may not re-adjudicate: the original judge (the clause), or "" (the hall's practice).
    same_judge_clause: str = ""
    withdraw_clause: str = ""  # a challenge withdrawn over a misunderstood blank
    late_clause: str = ""  # how long a player has to challenge: a later challenge is void
    # NASPA 1.3, WESPA 1.2(b): only the catalogue edition in force on the event's date.
    in_force_only: bool = False
    in_force_clause: str = ""
    referral_clause: str = ""  # a word judge's dictionary check closes a referral
    result_clause: str = ""  # whether a signed result may still change
    # Which word of a challenge failed is never told (the report's --words waits for the close).
    secrecy_clause: str = ""

    @property
    def named(self) -> bool:
        return bool(self.name)

    @property
    def grant_how(self) -> tuple[str, bool]:
        """The clause a granted free challenge cites, and whether it names it (NSA VI.C)."""
        return (self.grant_ref, True) if self.grant_ref else (self.waiver_ref, self.waiver_named)

    def cite(self, clause: str) -> str:
        """' (CLAUSE)' for a message, or '' when the rulebook has no clause for it."""
        return f" ({clause})" if clause else ""

    def rule_note(self, rule: Rule) -> str | None:
        """A note for a rule the rulebook allows but may not rate: WESPA 3.10.15(d); with no
        rulebook, WESPA's note on its non-standard systems, as before."""
        if self.rated_rules and rule.name not in self.rated_rules:
            return (
                f"WESPA may not rate this event: {rule.name} is not one of the standard penalties "
                "of 3.10.15(b) (single, 5 or 10 points per word or per turn, double) (3.10.15(d))."
            )
        if not self.named and rule.non_standard:
            return "WESPA may treat an event under this rule as non-ratable (3.10.15(d))."
        return None


RULEBOOKS: dict[str, Rulebook] = {
    book.name: book
    for book in (
        Rulebook(
            "naspa",
            "NASPA Official Tournament Rules",
            improper_lookup=True,
            lists=(NWL, COLLINS),
            lists_clause="NASPA 1.3: the NASPA Word List (NWL) and Collins Scrabble Words (CSW)",
            rules_clause="NASPA 1.3: directors may sanction tournaments with different challenge "
            "rules",
            reissues=False,
            reissue_clause="NASPA 6.2: words may be added to or removed from a challenge only "
            '"before the play is adjudicated"',
            waiver_ref="NASPA 1.2",
            waiver_clause="NASPA 1.2: where the rules are silent, the director decides what is "
            "fair",
            points_clause="NASPA 1.2: \"If a situation isn't covered by the rules, the Director "
            'decides what is fair"',
            ruling_final_clause="NASPA 1.2: the director makes the final ruling",
            opinion_clause="NASPA 1.2",
            opinions="naspa-1-2",
            same_judge_clause="NASPA 1.2: a second opinion comes from another Director",
            withdraw_clause="NASPA 4.10",
            late_clause='NASPA 4.6 and 7.3: "Your opponent has 15 seconds to hold or challenge '
            'the play"; "Give your opponent 15 seconds to hold or challenge"',
            in_force_only=True,
            in_force_clause='NASPA 1.3: "whichever versions of the NASPA Word List (NWL) and the '
            'Collins Scrabble Words (CSW) lexicons are in effect at the time"',
            result_clause="NASPA 7.8: submitted results are adjusted only when the scores were "
            "misentered, never for counting errors",
        ),
        Rulebook(
            "wespa",
            "WESPA Rules",
            lists=(COLLINS,),
            lists_clause="WESPA 1.2 and Appendix 2: the official word source, Collins (the 2007 "
            "edition on: 1.2(a), it may change)",
            rules_clause="WESPA 3.10.15",
            rated_rules=WESPA_STANDARD,
            reissue_clause="WESPA 3.10.12",
            waiver_ref="WESPA 6.1.2(e)",
            waiver_clause="WESPA 6.1.2(e): the director's wide discretion in dealing with "
            "improper conduct",
            points_clause='WESPA 6.1.2(e): "In dealing with improper conduct, the Tournament '
            'Director has a wide discretion"',
            confirms_corrections=True,
            ruling_final_clause="WESPA 3.10.11(c)",
            opinion_final_clause="WESPA 3.10.11(c)",
            opinion_clause="WESPA 3.10.11(c)",
            same_judge_clause="WESPA 3.10.11(b): the original adjudicator should not perform the "
            "re-adjudication",
            late_clause='WESPA 3.10.1(c): "Accepting a turn waives the right to challenge that '
            'turn"',
            in_force_only=True,
            in_force_clause='WESPA 1.2(b): tournaments "must not deviate from the official word '
            'source"',
            result_clause="WESPA 5.4.1: a result sheet signed by both players is final, unless "
            "both players agree to correct it before it is handed in, or petition the director "
            "before the next game starts",
            secrecy_clause="WESPA 3.10.7(b): runners and adjudicators must not reveal to players "
            "the acceptability of individual words",
        ),
        Rulebook(
            "nsa-1998",
            "NSA Official Tournament Rules, 1998",
            lists=(
                RecipeWords(
                    "nsa-1998", "the 1998 OWL, with MW10 beyond 9 letters", "OWL", 9, False
                ),
            ),
            lists_clause="NSA I.A and I.B: OWL for words of 2 to 9 letters, MW10 beyond",
            rules=("double",),
            rules_clause="NSA X.F: an unsuccessful challenger loses the turn",
            reissues=False,
            reissue_clause="NSA X.D: the word judge checks the slip against the board before "
            "adjudicating, and hands back a slip that does not match",
            waiver_ref="NSA XII",
            waiver_clause='NSA XII: the Director makes "reasonable decisions pertaining to any '
            'situations not specifically described"',
            blank_waiver_ref="NSA Guideline 2",
            blank_waiver_clause='NSA Guideline 2: for an undesignated blank, "the Director shall '
            'have the power to overrule the penalty for this particular challenge"',
            grant_ref="NSA VI.C",
            points_clause='NSA XII: the Director makes "reasonable decisions pertaining to any '
            'situations not specifically described"',
            ruling_final_clause="NSA X.G",
            opinion_final_clause="NSA X.G",
            opinion_clause="NSA X.G",
            opinions="x-g",
            third_opinion_decides=True,
            same_judge_clause="NSA Guideline 11g: whoever researched the initial challenge has "
            "another person research the second opinion",
            withdraw_clause="NSA IV.I.2",
            late_clause='NSA X.A: the opponent "has 20 seconds to decide to challenge or hold '
            'the play"',
            referral_clause="NSA I.B",
            result_clause="NSA VII.H: once the players sign each other's score cards no other "
            "scoring adjustment is made, unless both agree, before the last round ends, that "
            "the score is wrong",
            secrecy_clause="NSA X.E: the Word Judge will not specify which word(s) are "
            "unacceptable",
        ),
        Rulebook(
            "school-2011",
            "National School Scrabble Championship rules, 2011",
            final_play_free=True,
            lists=(
                RecipeWords(
                    "school",
                    "OSPD4 with every word over 8 letters to MW11, and the event's Official "
                    "Adjustments",
                    "OSPD4",
                    8,
                    True,
                    adjustments=True,
                ),
            ),
            lists_clause="school rule 10: OSPD4, MW11 for words of more than 8 letters, and the "
            '"Official Adjustments to OSPD4" sheet',
            rules=("double",),
            rules_clause="school rule 12: if all the words challenged are acceptable, the "
            "challenger loses their turn",
            reissues=False,
            reissue_clause='school rule 12: "Only the words written down will be used to '
            'determine the result of the challenge"',
            waiver_ref="school rules, closing note",
            waiver_clause="the school rules' closing note: final decisions on all rulings are at "
            "the director's discretion",
            points_clause='school rule 36: "Penalty points may be assessed by the Director for '
            'the violation of these rules"',
            ruling_final_clause="the school rules' closing note: final decisions on all rulings "
            "are at the director's discretion",
            opinion_clause="the school rules' closing note: final decisions on all rulings are "
            "at the director's discretion",
            opinions="discretion",
            referral_clause="school rule 10",
            late_clause='school rule 11: "After one minute, if a challenge has not been issued '
            "and the clock stopped, the hold is automatically withdrawn, and the play can no "
            'longer be challenged"',
            result_clause="school rule 13: games are not recounted later; a score may be "
            "corrected only before the game ends",
        ),
        Rulebook(
            "msa",
            "Malaysia Scrabble Association rules",
            lists=(
                RecipeWords(
                    "msa",
                    "the union of OSWI and the 1998 OWL, with Chambers or MW10 beyond 9 letters",
                    "OSWI",  # OSWI holds every word of the 1998 OWL: the union is OSWI's words
                    9,
                    False,
                ),
            ),
            lists_clause="MSA 15: OSW (4th edition) and OSPD (2nd edition), Chambers (1998) and "
            "MW10 beyond",
            rules_clause="MSA 13(i): the tournament announces its penalty challenge system",
            reissue_clause="MSA 13",
            waiver_ref="MSA 20",
            waiver_clause="MSA 20: matters in doubt or dispute go to the director, whose "
            "decision is final",
            points_clause='MSA 20: "All matters in doubt or dispute shall be referred to the '
            'Tournament Director whose decision is FINAL"',
            ruling_final_clause="MSA 20: the director's decision is final",
            opinion_clause='MSA 12(ii): re-adjudication "at the discretion of the judges"',
            opinions="discretion",
            referral_clause="MSA 15",
            late_clause='MSA 12(i): "HOLD" may be called "within 10 seconds" of the opponent\'s '
            "end of turn",
            result_clause="MSA 3.2: a score may be corrected until both players have signed the "
            "result slip",
            secrecy_clause="MSA 13(ii): the word judges must not indicate whether any particular "
            "word is acceptable",
        ),
    )
}
# No rulebook named: every correction is offered, as before (see the module's docstring).
NONE = Rulebook(
    "",
    "no rulebook named",
    reissue_clause="WESPA 3.10.12",
    confirms_corrections=True,
    same_judge_clause="NSA Guideline 11g",
)


class UnknownRulebook(AdjudicatorError):
    """No rulebook has that name."""


@dataclass(frozen=True)
class OffRulebook:
    """Something a tournament has that its rulebook does not allow: what, and why not."""

    what: str  # "lexicon", "rule" or "edition" (a list of the rulebook's, not in force then)
    text: str

    @property
    def changed_by(self) -> tuple[str, ...]:
        """The tournament's fields whose change makes this newly off its rulebook."""
        return ("lexicon", "date") if self.what == "edition" else (self.what,)

    def __str__(self) -> str:
        return self.text


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
    """The rulebook called `name`; NONE (every correction offered) for None."""
    return RULEBOOKS.get(name or "", NONE)


def rulebook_name(db: Any, tournament: str) -> str | None:
    """The name of tournament `tournament`'s rulebook as stored (None if it names none)."""
    row = db.query_one("SELECT rulebook FROM tournaments WHERE slug = ?", (tournament,))
    return row["rulebook"] if row else None


def rulebook_of(db: Any, tournament: str) -> Rulebook:
    """The rulebook of tournament `tournament` as stored (NONE if it names none)."""
    return get_rulebook(rulebook_name(db, tournament))


def off_rulebook(
    book: Rulebook, manifest: Any, rule: Rule, day: str | None = None
) -> tuple[OffRulebook, ...]:
    """What of a lexicon (its manifest) and a rule the rulebook does not allow, each naming
    the clause; () when both are allowed (or no rulebook is named). With the event's `day`,
    under NASPA 1.3 and WESPA 1.2(b) an edition not in force that day is off too."""
    found = []
    known = recognise(book.lists, manifest) if book.lists else None
    if book.lists and known is None:
        allowed = "; ".join(kind.describe() for kind in book.lists)
        found.append(
            OffRulebook(
                "lexicon",
                f"lexicon {manifest.name} is not a list the {book.name} rulebook allows "
                f"({book.lists_clause}): it allows {allowed}",
            )
        )
    elif known is not None and day and book.in_force_only:
        found.extend(_not_in_force(book, manifest, day))
    if book.rules and rule.name not in book.rules:
        found.append(
            OffRulebook(
                "rule",
                f"rule {rule.name} is not a penalty the {book.name} rulebook allows "
                f"({book.rules_clause}): it allows {', '.join(book.rules)}",
            )
        )
    return tuple(found)


def _not_in_force(book: Rulebook, manifest: Any, day: str) -> tuple[OffRulebook, ...]:
    """The edition the lexicon is, when it was not in force on `day`: naming the rulebook's
    editions in force then, or saying the catalogue has none for that day."""
    edition = catalogue.by_fingerprint(manifest.fingerprint)
    if edition is None or edition.in_force_on(day):
        return ()
    families = [kind for kind in book.lists if isinstance(kind, CatalogueFamily)]
    current = [e for kind in families for e in kind.in_force(day)]
    missing = [kind.family for kind in families if not kind.in_force(day)]
    said = (
        [f"in force then: {', '.join(f'{e.name} ({e.in_force})' for e in current)}"]
        if current
        else []
    )
    if missing:
        said.append(f"the catalogue has no {' or '.join(missing)} edition in force on {day}")
    then = "; ".join(said)
    return (
        OffRulebook(
            "edition",
            f"lexicon {manifest.name} is {edition.name}, which was not in force on {day} (it was "
            f"in force {edition.in_force}), and the {book.name} rulebook takes only the edition "
            f"in force on the event's date ({book.in_force_clause}): {then}",
        ),
    )


def allowed_as(book: Rulebook, manifest: Any) -> str | None:
    """What the lexicon is among the rulebook's lists ('CSW24', 'the school recipe'), if any."""
    return recognise(book.lists, manifest) if book.lists else None
