"""NSA VI.C's free challenge, granted by the director to a player for a challenge they make later.

NSA VI.C: for a player found recording the score before making the play, "An appropriate
penalty would be to give the opponent a free challenge." The director grants it to a player
(`grant`: a journal row of kind `free-challenge`, no words and no lexicon, naming the player
and, where given, the game). That player's next unsuccessful challenge (in that game, where
one is named) costs nothing: the row that records it unsuccessful (the challenge, or the
ruling or opinion that made it so) cites the grant in `details.free_challenge`, and its
consequence says so, citing the tournament's own clause (VI.C under nsa-1998; elsewhere the
director's discretion, as the rulebook gives it: waivers.py has the same clauses). Other
players' challenges are not affected. Which challenge a grant pays for, as the games now stand,
is grant_uses.py's: if the challenge that used it is void, reissued or ruled successful, the
grant passes to the player's next unsuccessful challenge. The challenge still counts as
unsuccessful for the rules that count them (as the director's waiver does): only its penalty is
free.

The hot path pays one seek in a partial index only grants write to, and only for an
unsuccessful challenge that names its challenger.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from adjudicator.errors import AdjudicatorError
from adjudicator.judging.corrections.follow_up import NO_WORDS
from adjudicator.judging.game import UNSUCCESSFUL_NOW, canonical, forms_of, same_player
from adjudicator.judging.reasons import check_reason
from adjudicator.judging.rulebooks import Rulebook
from adjudicator.record.database.db import Database
from adjudicator.record.journal import journal
from adjudicator.textcheck import TextError, check_text

KIND = "free-challenge"
GRANTED = "GRANTED"
USED = "free_challenge"  # the details key of the row that used a grant
MAX_NAME = 40


class FreeChallengeRefused(AdjudicatorError):
    """A free challenge cannot be granted as asked; the message says why."""


@dataclass(frozen=True)
class Grant:
    """A free challenge the director granted: to whom, for which game (None: any)."""

    id: int
    to: str
    round: str | None
    table: str | None
    ref: str
    named: bool

    @property
    def how(self) -> str:
        """The clause it rests on, as a consequence cites it (NSA VI.C, or the discretion)."""
        if self.named:
            return self.ref
        return "at the director's discretion" + (f", {self.ref}" if self.ref else "")

    @property
    def where(self) -> str:
        """' in round R at table N' (the game it is for), or '' (any game)."""
        return _where(self.round, self.table)

    def covers(self, challenger: str | None, round_no: Any, table: Any) -> bool:
        """True when a challenge by `challenger` at this round and table may use it."""
        if not challenger or not same_player(self.to, challenger):
            return False
        return self.covers_game(canonical(round_no), canonical(table))

    def covers_game(self, round_no: str | None, table: str | None) -> bool:
        """True when it may pay in the game at `round_no` and `table` (game.canonical forms)."""
        return (self.round is None or self._game[0] == round_no) and (
            self.table is None or self._game[1] == table
        )

    @cached_property
    def _game(self) -> tuple[str | None, str | None]:
        """Its round and table in game.canonical form (worked out once)."""
        return canonical(self.round), canonical(self.table)


class GrantIndex:
    """Grants by player: a challenge's grants are found by its challenger's name (the forms
    game.forms_of compares), in id order, rather than by trying every grant (Grant.covers)."""

    def __init__(self, grants: Sequence[Grant]):
        self._by_form: dict[str, list[Grant]] = {}
        for grant in sorted(grants, key=lambda g: g.id):
            for form in forms_of(grant.to):
                self._by_form.setdefault(form, []).append(grant)
        self._players: dict[str, list[Grant]] = {}  # by the challenger's name as written
        self._games: dict[tuple, list[Grant]] = {}  # by (challenger, round, table) as written

    def of_player(self, challenger: str | None) -> list[Grant]:
        """Every grant to `challenger` (game.same_player), for any game, in id order."""
        if not challenger:
            return []
        found = self._players.get(challenger)
        if found is None:
            merged = {g.id: g for form in forms_of(challenger) for g in self._by_form.get(form, ())}
            found = self._players[challenger] = [merged[key] for key in sorted(merged)]
        return found

    def covering(self, challenger: str | None, round_no: Any, table: Any) -> list[Grant]:
        """The grants that cover a challenge by `challenger` at `round_no` and `table`
        (Grant.covers), in id order."""
        key = (challenger, round_no, table)
        found = self._games.get(key)
        if found is None:
            found = grants = self.of_player(challenger)
            if grants:
                round_no, table = canonical(round_no), canonical(table)
                found = [g for g in grants if g.covers_game(round_no, table)]
            self._games[key] = found
        return found


def grant_text(book: Rulebook, to: str, round_no: str | None, table: str | None) -> str:
    """What a grant row says: to whom, for which challenge, on which clause."""
    where = _where(round_no, table)
    return (
        f"The director grants {to} a free challenge ({how(book)}): their next unsuccessful "
        f"challenge{where} costs nothing."
    )


def how(book: Rulebook) -> str:
    """'NSA VI.C', or 'at the director's discretion, CLAUSE' (the rulebook's own)."""
    return Grant(0, "", None, None, *book.grant_how).how


def _where(round_no: str | None, table: str | None) -> str:
    parts = [f"round {round_no}" if round_no else "", f"table {table}" if table else ""]
    given = " at ".join(p for p in parts if p)
    return f" in {given}" if given else ""


def check_name(name: str | None) -> str:
    """The player's name as the director typed it: short, printable, one line."""
    text = " ".join((name or "").split())
    try:
        check_text(text, "player's name", MAX_NAME)
    except TextError as exc:
        raise FreeChallengeRefused(f"Name the player who gets the free challenge: {exc}") from None
    if not text:
        raise FreeChallengeRefused(
            "Name the player who gets the free challenge (--to NAME), as challenges name them."
        )
    return text


def record_grant(
    db: Database,
    book: Rulebook,
    tournament: str,
    to: str,
    reason: str,
    *,
    actor: str,
    station: str,
    game: dict[str, Any],
) -> journal.Entry:
    """Journal the director's grant of a free challenge to player `to` at `tournament` (its
    rulebook `book`); `game`: round, table and, for a linked game, division and players."""
    reason = check_reason(reason, "free challenge")
    round_no, table = game.get("round"), game.get("table")
    return journal.append(
        db,
        kind=KIND,
        tournament=tournament,
        kiosk=station,
        **NO_WORDS,
        verdict=GRANTED,
        consequence=grant_text(book, to, round_no, table),
        actor=actor,
        note=reason,
        challenger=to,
        round=round_no,
        table=table,
        division=game.get("division"),
        players=game.get("players"),
        details=json.dumps(_grant_details(book), sort_keys=True),
    )


def _grant_details(book: Rulebook) -> dict[str, Any]:
    """What a grant row keeps of the clause it rests on (the consequences that use it cite it)."""
    ref, named = book.grant_how
    return {"ref": ref, "named": named}


def grants_to(cur: Any, tournament: str, challenger: str) -> list[Grant]:
    """The tournament's grants to the player `challenger` names, oldest first (inside a
    transaction): one seek in the grants' partial index, which is empty for most events."""
    return _grants(cur, tournament, forms=forms_of(challenger))


def maybe_open(db: Database, tournament: str) -> list[Grant]:
    """The tournament's grants that no challenge recorded as using them pays with now, oldest
    first (two indexed reads: the kiosks' status asks it at each poll). A grant given back may
    have passed to a challenge recorded since (grant_uses.py knows, at a cost): it is listed."""
    with db.transaction() as cur:
        grants = _grants(cur, tournament)
        if not grants:
            return []
        spent = _spent(cur, tournament, grants[0].id)
    return [g for g in grants if g.id not in spent]


def grants_of(cur: Any, tournament: str) -> list[Grant]:
    """Every grant of the tournament, oldest first (inside a transaction)."""
    return _grants(cur, tournament)


def _grants(
    cur: Any, tournament: str, before: int | None = None, forms: frozenset[str] | None = None
) -> list[Grant]:
    """The tournament's grants (before row `before`; only those to the player whose name
    `forms` are, when given), oldest first: the partial index."""
    bound, params = ("AND id < ?", (tournament, before)) if before else ("", (tournament,))
    rows = cur.execute(
        "SELECT id, challenger, round_no, table_no, details FROM adjudications "
        f"WHERE tournament = ? AND kind = '{KIND}' {bound} ORDER BY id",
        params,
    ).tuples()
    found = []
    for grant_id, to, round_no, table, details in rows:
        if forms is not None and not forms & forms_of(to or ""):
            continue
        said = json.loads(details) if details else {}
        ref, named = str(said.get("ref") or ""), bool(said.get("named"))
        found.append(Grant(grant_id, to or "", round_no, table, ref, named))
    return found


def _spent(cur: Any, tournament: str, first: int, leave_out: int | None = None) -> set[int]:
    """The grants (from row `first` on) used by a challenge that counts now as unsuccessful,
    `leave_out` aside (the challenge being judged again)."""
    rows = cur.execute(
        "SELECT id, kind, refers_to, details FROM adjudications WHERE tournament = ? "
        f"""AND details LIKE '%"{USED}"%' AND id > ? ORDER BY id""",
        (tournament, first),
    ).all()
    users: dict[int, set[int]] = {}
    for row in rows:
        grant_id = json.loads(row["details"]).get(USED)
        challenge = row["id"] if row["kind"] == "challenge" else row["refers_to"]
        if isinstance(grant_id, int) and challenge is not None and challenge != leave_out:
            users.setdefault(challenge, set()).add(grant_id)
    if not users:
        return set()
    marks = ", ".join("?" for _ in users)
    counted = cur.execute(
        f"SELECT c.id FROM adjudications AS c WHERE c.id IN ({marks}) "
        f"AND c.kind = 'challenge' AND {UNSUCCESSFUL_NOW}",
        tuple(users),
    ).tuples()
    return {grant_id for (challenge,) in counted for grant_id in users[challenge]}
