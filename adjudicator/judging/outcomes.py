"""The effective outcome of each challenge: what stands once voids, reissues and rulings count.

A challenge's own row never changes (the journal is append-only); later rows that refer to it
decide what it finally means, in the order deciding.py gives (a void, a reissue, the director's
ruling, a final second opinion, else the challenge as judged). A `waiver` (the director's free
challenge, waivers.py) then takes the penalty off an unsuccessful challenge, whatever decided
it, and a free challenge granted for later pays for the challenge it now pays for (grant_uses.py:
a grant given back passes to the player's next one). Under a rule that counts the game's earlier
challenges, the penalty is then recounted from the game as it now stands (recount.py), so it
follows every later ruling and void, a final play's included. The director's points
(director_points.py) stay through all of it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from adjudicator.judging import director_points, free_challenges, grant_uses, recount
from adjudicator.judging.deciding import AS_JUDGED, VOID, Outcome, decided  # noqa: F401 (outcomes.VOID)
from adjudicator.judging.rulebooks import rulebook_of
from adjudicator.judging.rules import UnknownRule, get_rule, waived_consequence
from adjudicator.record.database.db import Database
from adjudicator.record.journal import journal

CHUNK = 500
_KIND, _VERDICT, _CONSEQUENCE, _RULE, _TOURNAMENT, _ROUND, _TABLE, _CHALLENGER = map(
    journal.FIELDS.index,
    ("kind", "verdict", "consequence", "rule", "tournament", "round", "table", "challenger"),
)


def outcome_of(challenge: journal.Entry, follow_ups: Sequence[journal.Entry]) -> Outcome:
    """The effective outcome of `challenge` given every row that refers to it."""
    found = decided(challenge, follow_ups)
    waiver = next((row for row in follow_ups if row.kind == "waiver"), None)
    if waiver is None or found.verdict != "ACCEPTABLE":
        return found
    return _waived(challenge, found, waiver)


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


class Games:
    """Each game's challenges with their penalties recounted (recount.py), read once per game
    for as long as this object lives (one export, one page): two indexed queries a game."""

    def __init__(self, db: Database, whole_journal: bool = False):
        self.db = db
        self._games: dict[recount.GameKey, dict[int, Outcome]] = {}
        self._final_play_free: dict[str, bool] = {}  # by tournament: school rule 12
        self._corrected: set[tuple] | None = None
        self._grants: dict[str, tuple[dict, dict]] = {}  # by tournament: grant_uses.holders
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

    def final_play_free(self, tournament: str) -> bool:
        """School rule 12 at `tournament` (read once a tournament)."""
        if tournament not in self._final_play_free:
            self._final_play_free[tournament] = rulebook_of(self.db, tournament).final_play_free
        return self._final_play_free[tournament]

    def holders(self, tournament: str) -> tuple[dict, dict]:
        """The tournament's free challenges as they now pay (grant_uses.holders), read once:
        one seek in the grants' partial index, nothing more where none was granted."""
        if tournament not in self._grants:
            free = self.final_play_free(tournament)
            with self.db.transaction() as cur:
                self._grants[tournament] = grant_holders(cur, tournament, free)
        return self._grants[tournament]

    def touched(self, tournament: str, challenge_id: int) -> bool:
        """True when a grant's player made the challenge after the grant (its outcome is read
        with the grants)."""
        return challenge_id in self.holders(tournament)[1]

    def granted(self, challenge: journal.Entry, outcome: Outcome) -> Outcome:
        """`outcome` as the free challenges now pay for the game (grant_uses.effective)."""
        return paid(self.holders(challenge.tournament), challenge, outcome)

    def grant_changes(self, tournament: str) -> list[tuple[int, Outcome]]:
        """The challenges of the tournament's grant holders whose penalty, as shown to the
        players, the grants (and recounts) have changed since."""
        _, uses = self.holders(tournament)
        found = []
        for use in uses.values():
            outcome = self.effective(use.entry, outcome_of(use.entry, use.follow_ups))
            if outcome.penalty_changed and outcome.verdict != VOID:
                found.append((use.entry.id, outcome))
        return found

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
        return recount_game(challenges, follow_ups, self.final_play_free(key[0]), self.granted)

    def effective(self, challenge: journal.Entry, outcome: Outcome) -> Outcome:
        """`outcome` of `challenge` as the free challenges pay, recounted if its rule counts the
        game's challenges."""
        if recount.counting_rule(challenge.rule) is None:
            return self.granted(challenge, outcome)
        key = recount.game_key(
            challenge.tournament, challenge.round, challenge.table, challenge.challenger
        )
        if key is None or (self.whole_journal and not self.corrected(key)):
            return self.granted(challenge, outcome)
        return self.recounted(key).get(challenge.id, outcome)


def grant_holders(cur: Any, tournament: str, final_play_free: bool) -> tuple[dict, dict]:
    """The tournament's free challenges as they now pay (grant_uses.holders), read inside a
    transaction: one seek in the grants' partial index, nothing more where none was granted."""
    grants = free_challenges.grants_of(cur, tournament)
    return grant_uses.holders(cur, tournament, grants, final_play_free)


def paid(holders: tuple[dict, dict], challenge: journal.Entry, outcome: Outcome) -> Outcome:
    """`outcome` of `challenge` as the free challenges `holders` (grant_holders) pay for it."""
    held, uses = holders
    use = uses.get(challenge.id)
    if use is None:
        return outcome
    return grant_uses.effective(use, held.get(challenge.id), outcome)


def recount_game(
    challenges: Sequence[journal.Entry],
    follow_ups: dict[int, list[journal.Entry]] | dict[int, Sequence[journal.Entry]],
    final_play_free: bool,
    granted: Callable[[journal.Entry, Outcome], Outcome] | None = None,
) -> dict[int, Outcome]:
    """{challenge id: effective outcome} for one game's challenges by one challenger (id
    order), each penalty recounted from the game as it now stands where its rule counts
    (recount.py); `follow_ups` holds every row referring to each of them, and `granted` pays
    what the free challenges pay (Games.granted) before the recount."""
    found: dict[int, Outcome] = {}
    earlier = 0
    for challenge in challenges:
        outcome = outcome_of(challenge, follow_ups.get(challenge.id, ()))
        if granted is not None:
            outcome = granted(challenge, outcome)
        rule = recount.counting_rule(challenge.rule)
        if rule is not None:  # a final play's too (WESPA 3.10.15(c)(ii))
            final = bool(challenge.detail("final_play"))
            outcome = recount.recount(rule, outcome, earlier, final, final and final_play_free)
        found[challenge.id] = outcome
        earlier += outcome.verdict == "ACCEPTABLE"
    return found


def follow_ups_of(db: Database, ids: Sequence[int]) -> dict[int, list[journal.Entry]]:
    """Every row referring to one of `ids`, by the id it refers to (one indexed query)."""
    with db.transaction() as cur:
        return journal.follow_ups_of(cur, ids)


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
        granted = games.touched(row[_TOURNAMENT], row[0])
        if not counted and not granted and row[0] not in follow_ups:
            yield (*row, row[_VERDICT], row[_CONSEQUENCE], row[0], AS_JUDGED, row[penalty])
            continue
        entry = journal.from_values(row)
        found = outcome_of(entry, follow_ups.get(row[0], ()))
        if counted:
            found = games.recounted(key).get(row[0], found)
        else:
            found = games.granted(entry, found)
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
