"""The effective outcome of each challenge: what stands once voids, reissues and rulings count.

A challenge's own row never changes (the journal is append-only); later rows that refer to it
decide what it finally means. In order of precedence:
1. a `void` row (withdrawn, rescinded, entered by mistake): VOID, no penalty to anyone, unless
   a later `revocation` row revoked it (a void given on the wrong row);
2. a challenge that names it as the one it replaces (a reissued slip): VOID, reissued;
3. the director's ruling: its verdict and consequence;
4. a second opinion that is final (it agrees, a word judge's dictionary check closed a
   referral, or a third opinion decided two of three: NSA X.G): its verdict and consequence;
5. otherwise the challenge as judged (pending while a flagged second opinion awaits a ruling).
A `waiver` (the director's free challenge, waivers.py) then takes the penalty off an unsuccessful
challenge, whatever decided it. `game.earlier_unsuccessful` counts challenges by the same order,
in SQL. Under a rule that counts the game's earlier challenges, the penalty is then recounted from
the game as it now stands (recount.py), so it follows every later ruling and void, a final play's
included.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from adjudicator.judging import director_points, recount
from adjudicator.judging.corrections.opinion_chain import decides_two_of_three
from adjudicator.judging.rulebooks import rulebook_of
from adjudicator.judging.rules import UnknownRule, get_rule, void_consequence, waived_consequence
from adjudicator.record.database.db import Database
from adjudicator.record.journal import journal
from adjudicator.record.journal.tallies import is_flagged

VOID = "VOID"
AS_JUDGED = "as judged"
AWAITING = "awaiting the director's ruling"
CHUNK = 500
_KIND, _VERDICT, _CONSEQUENCE, _RULE, _TOURNAMENT, _ROUND, _TABLE, _CHALLENGER = map(
    journal.FIELDS.index,
    ("kind", "verdict", "consequence", "rule", "tournament", "round", "table", "challenger"),
)


@dataclass(frozen=True)
class Outcome:
    """What a challenge finally means, and which row says so."""

    verdict: str  # ACCEPTABLE, UNACCEPTABLE, REFER (a referral still open) or VOID
    consequence: str
    penalty: dict[str, Any] | None
    decided_by: int  # the row that gives this outcome (the challenge itself if nothing else)
    how: str  # "as judged", "ruling #20", "void #15: <reason>", "reissued as #16", ...
    pending: bool = False  # a flagged second opinion waits for the director's ruling
    word_count: int = 0  # the words the deciding row counted (a per-word penalty's)
    shown_penalty: dict[str, Any] | None = None  # set when a recount changed what was shown
    points: int = 0  # the director's points to the player in `penalty` (director_points.py)

    def to_api(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "consequence": self.consequence,
            "penalty": self.penalty,
            "decided_by": self.decided_by,
            "how": self.how,
            "pending": self.pending,
        }

    @property
    def penalty_changed(self) -> bool:
        """True when a recount changed the penalty the deciding row recorded (and showed)."""
        return self.shown_penalty is not None


def outcome_of(challenge: journal.Entry, follow_ups: Sequence[journal.Entry]) -> Outcome:
    """The effective outcome of `challenge` given every row that refers to it."""
    found = _decided(challenge, follow_ups)
    waiver = next((row for row in follow_ups if row.kind == "waiver"), None)
    if waiver is None or found.verdict != "ACCEPTABLE":
        return found
    return _waived(challenge, found, waiver)


def _decided(challenge: journal.Entry, follow_ups: Sequence[journal.Entry]) -> Outcome:
    """The outcome the voids, reissues, rulings and opinions give, before any waiver."""
    latest: dict[str, journal.Entry] = {}
    final_opinion = None
    pending = False
    for row in sorted(follow_ups, key=lambda e: e.id):
        if row.kind == "second-opinion":
            if is_flagged(row):
                pending = True
            else:
                final_opinion = row
                pending = pending and not decides_two_of_three(row)  # NSA X.G
        elif row.kind == "challenge":
            latest.setdefault("challenge", row)  # the first reissue decides
        elif row.kind == "void":
            latest.setdefault("void", row)  # the void in effect, until revoked
        elif row.kind == "revocation":
            latest.pop("void", None)
        elif row.kind == "ruling":
            latest["ruling"] = row
    if "void" in latest:
        void = latest["void"]
        return Outcome(
            VOID,
            void.consequence,
            void.penalty_numbers(),
            void.id,
            f"void #{void.id}: {void.note}",
            word_count=0,
        )
    if "challenge" in latest:
        reissue = latest["challenge"]
        replaced = void_consequence(f"Reissued as #{reissue.id}: this one counts for nothing.")
        return Outcome(
            VOID, replaced.text, replaced.penalty(), reissue.id, f"reissued as #{reissue.id}"
        )
    if "ruling" in latest:
        ruling = latest["ruling"]
        return _from(ruling, f"ruling #{ruling.id} by {ruling.actor}")
    majority = final_opinion is not None and decides_two_of_three(final_opinion)
    if final_opinion is not None and final_opinion.verdict != challenge.verdict:
        what = "third opinion" if majority else "second opinion"
        how = f"{what} #{final_opinion.id} by {final_opinion.actor}"
        how += ", two of three (NSA X.G)" if majority else ""
        if pending:  # a later opinion contests it: it stands until the director rules
            how += f"; {AWAITING}"
        return _from(final_opinion, how, pending)
    how = AWAITING if pending else AS_JUDGED
    if majority and not pending:
        how = f"as judged: third opinion #{final_opinion.id} agreed, two of three (NSA X.G)"
    return Outcome(
        challenge.verdict,
        challenge.consequence,
        challenge.penalty_numbers(),
        challenge.id,
        how,
        pending,
        challenge.word_count,
    )


def _waived(challenge: journal.Entry, found: Outcome, waiver: journal.Entry) -> Outcome:
    """`found`, an unsuccessful challenge, with its penalty waived by `waiver` (the director's
    points, a decision apart, stay)."""
    try:
        rule = get_rule(challenge.rule)
    except UnknownRule:
        return found
    free = waived_consequence(rule, str(waiver.detail("ref") or ""), bool(waiver.detail("named")))
    text, penalty = director_points.kept(
        free.text, free.penalty(), found.points, director_points.sentence_in(found.consequence)
    )
    return Outcome(
        found.verdict,
        text,
        penalty,
        found.decided_by,
        f"{found.how}; penalty waived #{waiver.id}",
        found.pending,
        found.word_count,
        points=found.points,
    )


def _from(row: journal.Entry, how: str, pending: bool = False) -> Outcome:
    points = row.detail(director_points.DETAIL)
    return Outcome(
        row.verdict,
        row.consequence,
        row.penalty_numbers(),
        row.id,
        how,
        pending,
        word_count=row.word_count,
        points=points if isinstance(points, int) else 0,
    )


class Games:
    """Each game's challenges with their penalties recounted (recount.py), read once per game
    for as long as this object lives (one export, one page): two indexed queries a game."""

    def __init__(self, db: Database, whole_journal: bool = False):
        self.db = db
        self._games: dict[recount.GameKey, dict[int, Outcome]] = {}
        self._final_play_free: dict[str, bool] = {}  # by tournament: school rule 12
        self._corrected: set[tuple] | None = None
        # An export reads the set of corrected games once and recounts only those; a page
        # (a few rows) recounts the games it shows instead of reading that set.
        self.whole_journal = whole_journal

    def corrected(self, key: recount.GameKey) -> bool:
        """True when a row of the game corrects one of its challenges (a ruling, void, reissue,
        second opinion or revocation: each copies its challenge's game). A game without one keeps
        the penalties recorded, which already counted its challenges as they stood. The set is
        read once (the follow-ups' index: as many entries as corrections, not rows)."""
        if self._corrected is None:
            with self.db.transaction() as cur:
                rows = cur.execute(
                    "SELECT DISTINCT tournament, round_no, table_no, challenger "
                    "FROM adjudications WHERE refers_to IS NOT NULL"
                ).tuples()
            self._corrected = {tuple(row) for row in rows}
        return key in self._corrected

    def recounted(self, key: recount.GameKey) -> dict[int, Outcome]:
        """{challenge id: effective outcome, penalty recounted} for every challenge of the game."""
        if key not in self._games:
            self._games[key] = self._recount(key)
        return self._games[key]

    def _recount(self, key: recount.GameKey) -> dict[int, Outcome]:
        challenges = journal.select(
            self.db,
            "tournament = ? AND round_no = ? AND table_no = ? AND challenger = ? "
            "AND kind = 'challenge'",
            key,
            "ORDER BY id",
        )
        follow_ups = follow_ups_of(self.db, [c.id for c in challenges])
        if key[0] not in self._final_play_free:  # read once a tournament
            self._final_play_free[key[0]] = rulebook_of(self.db, key[0]).final_play_free
        free = self._final_play_free[key[0]]
        found: dict[int, Outcome] = {}
        earlier = 0
        for challenge in challenges:
            outcome = outcome_of(challenge, follow_ups[challenge.id])
            rule = recount.counting_rule(challenge.rule)
            if rule is not None:  # a final play's too (WESPA 3.10.15(c)(ii))
                final = bool(challenge.detail("final_play"))
                outcome = recount.recount(rule, outcome, earlier, final, final and free)
            found[challenge.id] = outcome
            earlier += outcome.verdict == "ACCEPTABLE"
        return found

    def effective(self, challenge: journal.Entry, outcome: Outcome) -> Outcome:
        """`outcome` of `challenge`, recounted if its rule counts the game's challenges."""
        if recount.counting_rule(challenge.rule) is None:
            return outcome
        key = recount.game_key(
            challenge.tournament, challenge.round, challenge.table, challenge.challenger
        )
        if key is None or (self.whole_journal and not self.corrected(key)):
            return outcome
        return self.recounted(key).get(challenge.id, outcome)


def follow_ups_of(db: Database, ids: Sequence[int]) -> dict[int, list[journal.Entry]]:
    """Every row referring to one of `ids`, by the id it refers to (one indexed query)."""
    found: dict[int, list[journal.Entry]] = {entry_id: [] for entry_id in ids}
    if not ids:
        return found
    marks = ", ".join("?" for _ in ids)
    with db.transaction() as cur:
        rows = cur.execute(
            f"SELECT * FROM adjudications WHERE refers_to IN ({marks}) ORDER BY id", tuple(ids)
        ).all()
    for row in rows:
        entry = journal.from_row(row)
        found[entry.refers_to].append(entry)
    return found


def with_outcomes(
    db: Database,
    entries: Iterable[journal.Entry],
    chunk: int = CHUNK,
    games: Games | None = None,
) -> Iterator[tuple[journal.Entry, Outcome | None]]:
    """Each entry with its effective outcome (None for rows that are not challenges), read
    chunk by chunk: constant memory, one query a chunk, whatever the journal's size (and two
    a game for the games whose rule counts earlier challenges)."""
    games = games or Games(db)
    batch: list[journal.Entry] = []
    for entry in entries:
        batch.append(entry)
        if len(batch) >= chunk:
            yield from _resolve(db, batch, games)
            batch = []
    yield from _resolve(db, batch, games)


def effective_rows(
    db: Database, rows: Sequence[tuple], games: Games | None = None
) -> Iterator[tuple]:
    """Stored rows (journal.FIELDS order, ascending ids), each followed by its effective
    verdict, consequence, deciding row, how and penalty (JSON) (None for rows that are not
    challenges). `games` keeps recounted games across batches.

    The follow-ups of the whole batch are read at once, by their index, as one range of
    `refers_to`; a challenge nothing refers to (nearly all) stands as judged, with no object
    made for it, so an export costs about what reading its rows does.
    """
    if not rows:
        return
    games = games or Games(db)
    follow_ups: dict[int, list[journal.Entry]] = {}
    for entry in journal.select(
        db, "refers_to BETWEEN ? AND ?", (rows[0][0], rows[-1][0]), "ORDER BY id"
    ):
        follow_ups.setdefault(entry.refers_to, []).append(entry)
    penalty = journal.FIELDS.index("penalty")
    for row in rows:
        if row[_KIND] != "challenge":
            yield (*row, None, None, None, None, None)
            continue
        key = recount.game_key(row[_TOURNAMENT], row[_ROUND], row[_TABLE], row[_CHALLENGER])
        counted = (
            key is not None
            and recount.counting_rule(row[_RULE]) is not None
            and games.corrected(key)
        )
        if not counted and row[0] not in follow_ups:
            yield (*row, row[_VERDICT], row[_CONSEQUENCE], row[0], AS_JUDGED, row[penalty])
            continue
        found = outcome_of(journal.from_values(row), follow_ups.get(row[0], ()))
        if counted:
            found = games.recounted(key).get(row[0], found)
        shown = json.dumps(found.penalty, sort_keys=True, separators=(",", ":"))
        yield (*row, found.verdict, found.consequence, found.decided_by, found.how, shown)


def _resolve(
    db: Database, batch: list[journal.Entry], games: Games
) -> Iterator[tuple[journal.Entry, Outcome | None]]:
    challenges = [entry.id for entry in batch if entry.kind == "challenge"]
    follow_ups = follow_ups_of(db, challenges)
    for entry in batch:
        if entry.kind != "challenge":
            yield entry, None
        else:
            yield entry, games.effective(entry, outcome_of(entry, follow_ups[entry.id]))
