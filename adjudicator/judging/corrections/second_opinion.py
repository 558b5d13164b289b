"""Second opinions (WESPA 3.10.11, NSA X.G, NASPA 1.2, MSA 12(ii)): a challenge judged again.

A word judge re-enters the words from the challenge slip; the verdict is computed by the same
function as every other (ruling.rule_on) against the lexicon edition and rule the original
used. The second opinion is refused from the station that gave the original verdict, and from
anyone who already judged that challenge (WESPA 3.10.11(b), NASPA 1.2, NSA Guideline 11g; under
MSA and the school rules, the hall's practice). Which opinion may follow which is the
rulebook's (opinion_chain.py). If the words or the verdict differ, the case is flagged and the
director records the final ruling (final_ruling.py); under NSA X.G, a third opinion after a
contrary second decides it instead, two of three (the director may still review it). A
referral (REFER) is closed by the word judge's dictionary check without a director step (NSA
I.B, school rule 10, MSA 15), and the record says so. Each message cites the tournament's own
rulebook. Everything is a journal row; nothing anywhere says which word was bad.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from adjudicator.errors import AdjudicatorError, LexiconError
from adjudicator.judging import director_points, free_challenges, game, grant_uses
from adjudicator.judging.corrections import correction_window, opinion_chain, voids
from adjudicator.judging.corrections.follow_up import follow_up_fields
from adjudicator.judging.corrections.opinion_chain import (
    TWO_OF_THREE,
    closes_referral,
    decides_two_of_three,
)
from adjudicator.judging.reasons import check_reason
from adjudicator.judging.rulebooks import Rulebook, rulebook_of
from adjudicator.judging.rules import (
    Rule,
    consequence,
    get_rule,
    with_improper_lookup,
)
from adjudicator.judging.ruling import rule_on
from adjudicator.judging.verdict import Verdict, closed_referral
from adjudicator.record.database.db import Database
from adjudicator.record.journal import journal
from adjudicator.record.journal.tallies import FLAGGED, flag_reasons_of, is_flagged
from adjudicator.words.lexicon import CompiledLexicon
from adjudicator.words.normalize import normalize_challenge
from adjudicator.words.store import LexiconStore

DICTIONARY = {"acceptable": Verdict.ACCEPTABLE, "unacceptable": Verdict.UNACCEPTABLE}
VERDICT_DIFFERS = "the verdict differs from the original's"


class SecondOpinionRefused(AdjudicatorError):
    """A second opinion or ruling cannot be given as asked; the message says why."""


@dataclass(frozen=True)
class SecondOpinion:
    entry: journal.Entry
    original: journal.Entry
    flag_reasons: tuple[str, ...]
    book: Rulebook | None = None  # the tournament's rulebook, whose clauses the messages cite
    awaits_director: bool = False  # an earlier opinion is flagged and still waits for a ruling

    @property
    def decides(self) -> bool:
        """A third opinion after a contrary second: two of three decide (NSA X.G)."""
        return decides_two_of_three(self.entry)

    @property
    def flagged(self) -> bool:
        return bool(self.flag_reasons)

    @property
    def agrees(self) -> bool:
        return self.entry.verdict == self.original.verdict

    @property
    def closes_referral(self) -> bool:
        """True when this word judge's dictionary check decided a referral (NSA I.B)."""
        return closes_referral(self.entry, self.original)


@dataclass
class Case:
    """An original adjudication with its second opinions and the director's ruling, if any."""

    original: journal.Entry
    opinions: list[journal.Entry] = field(default_factory=list)
    ruling: journal.Entry | None = None
    void: journal.Entry | None = None  # the void row or reissue that made it count for nothing

    @property
    def flagged(self) -> bool:
        """An opinion is flagged, and no third opinion decided it since (NSA X.G)."""
        flagged = False
        for opinion in self.opinions:
            flagged = (flagged or is_flagged(opinion)) and not decides_two_of_three(opinion)
        return flagged

    @property
    def open(self) -> bool:
        """Flagged and waiting for the director: not ruled on, not void (voids.py)."""
        return self.flagged and self.ruling is None and self.void is None


def recorded_flag_reasons(entry: journal.Entry) -> tuple[str, ...]:
    """Why a journalled second opinion was flagged: its row's `flag_reasons` (() if it was
    not flagged)."""
    return flag_reasons_of(entry) if entry.kind == "second-opinion" else ()


def original_of(db: Database, adjudication_id: int) -> journal.Entry:
    """The challenge `adjudication_id`, or a refusal saying what that id is instead."""
    entry = journal.get(db, adjudication_id)
    if entry is None:
        raise SecondOpinionRefused(
            f"No adjudication #{adjudication_id} in the journal: check the id."
        )
    if entry.kind != "challenge":
        raise SecondOpinionRefused(
            f"#{adjudication_id} is a {entry.kind}, not a challenge: give the id of the original "
            f"adjudication (#{entry.refers_to})."
        )
    return entry


def lexicon_of(
    store: LexiconStore, original: journal.Entry, pin: str | None = None
) -> CompiledLexicon:
    """The compiled lexicon the original was judged with, refused if it has changed since: its
    words (the row's fingerprint) or, when the caller knows it (`pin`: the one the original's
    tournament was set with), any field that decides a verdict."""
    try:
        lexicon = store.open(original.lexicon_name)
    except LexiconError:
        raise SecondOpinionRefused(
            f"Adjudication #{original.id} was judged with lexicon {original.lexicon_name}, which "
            "cannot be opened now: ask the director to restore it (`adjudicator lexicon verify`)."
        ) from None
    if lexicon.manifest.fingerprint != original.lexicon_fingerprint:
        raise SecondOpinionRefused(
            f"Adjudication #{original.id} was judged with {original.lexicon_name} "
            f"(fingerprint {original.lexicon_fingerprint[:12]}), but {original.lexicon_name} has "
            f"been re-imported since (fingerprint {lexicon.manifest.fingerprint[:12]}): a second "
            "opinion must use the same edition. Call the director."
        )
    if pin is not None and lexicon.manifest.current_pin != pin:
        raise SecondOpinionRefused(
            f"Adjudication #{original.id} was judged with {original.lexicon_name}, which has "
            "changed since the director set it for its tournament (its referral rule or "
            "alphabet): a second opinion must use the same rules. Call the director."
        )
    return lexicon


def give(
    db: Database,
    store: LexiconStore,
    adjudication_id: int,
    words: str | Iterable[str],
    *,
    actor: str,
    station: str,
    dictionary: str | None = None,
    confirm_correction: bool = False,
    pin: str | None = None,
    exception: str | None = None,
) -> SecondOpinion:
    """Re-adjudicate challenge `adjudication_id` from the words on the slip, and journal it.

    `station` is where the request comes from (a kiosk's name if made on a kiosk's screen);
    `dictionary` ('acceptable' or 'unacceptable') is the judge's dictionary check, used when
    the lexicon refers the words (REFER) and required when the original was REFER; `pin`, the
    lexicon pin the original's tournament was set with (see `lexicon_of`); `exception`, the
    director's reason for NSA X.G's exception (a third review after a mistake made twice).
    """
    original = original_of(db, adjudication_id)
    case = case_of(db, original)
    book = rulebook_of(db, original.tournament)
    if exception is not None:
        exception = check_reason(exception, "exception")
    correction_window.refuse_unless_offered(db, original, confirm_correction)
    _refuse_same_judge(case, actor, book)
    if station == original.kiosk:
        raise SecondOpinionRefused(opinion_chain.same_station(book, original.kiosk, original.id))
    if dictionary is not None and dictionary not in DICTIONARY:
        raise SecondOpinionRefused("The dictionary check is either 'acceptable' or 'unacceptable'.")
    if original.verdict == Verdict.REFER.value and dictionary is None:
        raise SecondOpinionRefused(
            f"Adjudication #{original.id} was referred for a dictionary check (REFER): look the "
            "words up in the dictionary and give its outcome (acceptable or unacceptable)."
        )
    lexicon = lexicon_of(store, original, pin)
    normalised = normalize_challenge(words, lexicon.alphabet)
    refuse_if_ruled(db, original.id)
    voids.refuse_if_void_now(db, original.id)
    _refuse_by_the_chain(case, book, exception)
    rule = get_rule(original.rule)
    ruling = rule_on(lexicon, rule, normalised)
    verdict, notes, checked = ruling.verdict, [], None
    if verdict is Verdict.REFER and dictionary is not None:
        checked = DICTIONARY[dictionary]
        keys = lexicon.alphabet.keys_of(normalised)
        limit = lexicon.manifest.refer_longer_than
        verdict = closed_referral(lexicon.trie, keys, limit, checked)
        notes.append(f"dictionary check: {dictionary}")
    reasons = flag_reasons(original, normalised, verdict, closed_by=closing_opinion(case))
    details: dict[str, object] = {}
    if opinion_chain.decides(book, original, case.opinions, normalised, verdict.value):
        reasons = ()  # two of three decide, whichever way this one goes (NSA X.G)
        details["decides"] = TWO_OF_THREE
        notes.append(f"third opinion: two of three decide{book.cite(book.opinion_clause)}")
    if exception is not None:
        details["exception"] = exception
        notes.append(f"the director's exception ({opinion_chain.EXCEPTION}): {exception}")
    confirmed = correction_window.require_confirmation(
        db, original, verdict.value != original.verdict, confirm_correction, "second opinion"
    )
    if confirmed:
        details["confirmed"] = True
    if reasons:
        notes.append(f"{FLAGGED}: {'; '.join(reasons)}")
    elif original.verdict == Verdict.REFER.value and not details.get("decides"):
        notes.append(_closes_referral_note(book))
    entry = append_follow_up(
        db,
        original,
        kind="second-opinion",
        station=station,
        actor=actor,
        rule=rule,
        words=normalised,
        verdict=verdict,
        note="; ".join(notes) or None,
        dictionary=checked.value if checked else None,
        flag_reasons=json.dumps(list(reasons)),
        details=json.dumps(details, sort_keys=True) if details else None,
        may_claim=not reasons,  # a flagged opinion decides nothing
    )
    awaits = not reasons and not details.get("decides") and case.flagged
    return SecondOpinion(entry, original, reasons, book, awaits)


def _closes_referral_note(book: Rulebook) -> str:
    """The note of a dictionary check that closed a referral, citing the rulebook's clause."""
    return (
        "closes the referral: the word judge's dictionary check decides"
        f"{book.cite(book.referral_clause)}"
    )


def _refuse_same_judge(case: Case, actor: str, book: Rulebook) -> None:
    """Whoever judged a challenge does not give its next opinion (WESPA 3.10.11(b), NASPA 1.2,
    NSA Guideline 11g; elsewhere the hall's practice)."""
    earlier = [case.original, *case.opinions]
    if any(entry.actor == actor for entry in earlier):
        raise SecondOpinionRefused(opinion_chain.same_judge(book, actor, case.original.id))


def _refuse_by_the_chain(case: Case, book: Rulebook, exception: str | None) -> None:
    """Refused where the rulebook's chain gives no further opinion (opinion_chain.py)."""
    refused = opinion_chain.refusal(book, case.original, case.opinions, exception)
    if refused:
        raise SecondOpinionRefused(refused)


def closing_opinion(case: Case) -> journal.Entry | None:
    """The second opinion whose dictionary check closed a referral (REFER), if any."""
    return next((o for o in case.opinions if closes_referral(o, case.original)), None)


def flag_reasons(
    original: journal.Entry,
    words: tuple[str, ...],
    verdict: Verdict,
    closed_by: journal.Entry | None = None,
) -> tuple[str, ...]:
    """Why the director must decide: different words, or a different verdict from the
    original's (for a referral, from the dictionary check that closed it, if one did)."""
    reasons = []
    if Counter(words) != Counter(original.words):
        reasons.append("the words differ from the original's")
    if original.verdict != Verdict.REFER.value:
        if verdict.value != original.verdict:
            reasons.append(VERDICT_DIFFERS)
    elif closed_by is not None and verdict.value != closed_by.verdict:
        reasons.append(f"the verdict differs from the dictionary check #{closed_by.id}")
    return tuple(reasons)


def append_follow_up(
    db: Database,
    original: journal.Entry,
    *,
    kind: str,
    station: str,
    actor: str,
    rule: Rule,
    words: tuple[str, ...],
    verdict: Verdict,
    note: str | None,
    improper_lookup: bool = False,
    may_claim: bool = True,
    points: int | None = None,
    **extra: str | None,
) -> journal.Entry:
    """Journal a second opinion or ruling on `original`, unless the director has ruled or the
    challenge is void. Under a rule that counts earlier challenges, the consequence counts the
    challenger's unsuccessful challenges before the original, under the chain lock. A row that
    decides (`may_claim`) and leaves the challenge unsuccessful uses the free challenge that
    pays for it as the game now stands (grant_uses.py). The
    director's `points` to the player (director_points.py) are added last: no grant frees them."""

    book = rulebook_of(db, original.tournament)
    free = book.final_play_free  # school rule 12

    def settle(cur) -> dict:
        refuse_if_ruled(cur, original.id)
        voids.refuse_if_void(cur, original.id)
        earlier = game.earlier_unsuccessful(
            cur,
            original.tournament,
            original.round,
            original.table,
            original.challenger,
            before_id=original.id,
        )
        result = consequence(
            rule,
            verdict,
            len(words),
            earlier,
            final_play=bool(original.detail("final_play")),
            final_play_free=free,
        )
        if improper_lookup:
            result = with_improper_lookup(result)
        grant = _grant_for(cur, original, rule, result, free) if may_claim else None
        completed = {}
        if grant is not None:
            result, used = grant
            details = json.loads(extra.get("details") or "{}")
            details[free_challenges.USED] = used
            completed["details"] = json.dumps(details, sort_keys=True)
        result = director_points.with_points(result, points, book.points_clause)
        return {**completed, "consequence": result.text, "penalty": result.penalty_json()}

    return journal.append(
        db,
        guard=settle,
        kind=kind,
        **follow_up_fields(original, station),
        rule=rule.name,
        words=tuple(words),
        word_count=len(words),
        verdict=verdict.value,
        consequence="",
        actor=actor,
        note=note,
        **extra,
    )


def _grant_for(cur, original: journal.Entry, rule: Rule, result, final_play_free: bool):
    """(consequence, grant id) when the row leaves `original` an unsuccessful challenge that
    a free challenge pays for, as grant_uses.py allocates them; else None."""
    game_of = {"challenger": original.challenger, "round": original.round, "table": original.table}
    granted, grant = grant_uses.claim(
        cur, rule, result, original.tournament, game_of, final_play_free, challenge_id=original.id
    )
    return (granted, grant) if grant is not None else None


def case_of(db: Database, original: journal.Entry) -> Case:
    """The original with every row that refers to it (read through the refers_to index)."""
    case = Case(original)
    for entry in journal.follow_ups(db, original.id):
        _add_to_case(case, entry)
    return case


def cases(
    db: Database, *, open_only: bool = False, closed_only: bool = False, limit: int | None = None
) -> list[Case]:
    """Cases with a second opinion or ruling, newest first (at most `limit`); `open_only`:
    flagged, not yet ruled and not void; `closed_only`: the others. Read from journal_cases
    (kept in each append's transaction: tallies.py), no scan."""
    where = "open = 1" if open_only else "open = 0" if closed_only else "open IN (0, 1)"
    tail = f" LIMIT {int(limit)}" if limit is not None else ""
    with db.transaction() as cur:
        rows = cur.execute(
            f"SELECT original_id FROM journal_cases WHERE {where} ORDER BY original_id DESC{tail}"
        ).tuples()
    ids = tuple(original_id for (original_id,) in rows)
    if not ids:
        return []
    marks = ", ".join("?" for _ in ids)  # three reads in all, however many cases are shown
    originals = {e.id: Case(e) for e in journal.select(db, f"id IN ({marks})", ids)}
    for entry in journal.select(db, f"refers_to IN ({marks})", ids, "ORDER BY id"):
        if entry.refers_to in originals:
            _add_to_case(originals[entry.refers_to], entry)
    return [originals[original_id] for original_id in ids if original_id in originals]


def open_count(db: Database) -> int:
    """How many cases wait for the director's ruling, void ones left out (an index range)."""
    with db.transaction() as cur:
        row = cur.execute("SELECT COUNT(*) AS n FROM journal_cases WHERE open = 1").one()
    return int(row["n"]) if row else 0


def _add_to_case(case: Case, entry: journal.Entry) -> None:
    if entry.kind == "second-opinion":
        case.opinions.append(entry)
    elif entry.kind == "ruling":
        case.ruling = entry
    elif entry.kind in ("void", "challenge") and case.void is None:
        case.void = entry
    elif entry.kind == "revocation" and case.void is not None and case.void.kind == "void":
        case.void = None


def refuse_if_ruled(db_or_cur, adjudication_id: int) -> None:
    sql = "SELECT id FROM adjudications WHERE kind = 'ruling' AND refers_to = ?"
    if isinstance(db_or_cur, Database):
        with db_or_cur.transaction() as cur:
            row = cur.execute(sql, (adjudication_id,)).one()
    else:
        row = db_or_cur.execute(sql, (adjudication_id,)).one()
    if row:
        raise SecondOpinionRefused(
            f"The director has already given the final ruling on #{adjudication_id} "
            f"(journal row #{row['id']}): it is final."
        )
