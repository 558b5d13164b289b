"""Events that close: once the director closes a tournament, no challenge is judged for it.

`close` and `reopen` each record a statement signed with the hall's key, with no journal number
(like the takeover statement and the journal's begun statement), in `tournament_closings`: a
table of the journal's own database, so every process, both copies of a mirrored journal and
every backup hold it. A statement names the journal (its id), the tournament, its number among
that tournament's statements (`seq`), the newest row then (its number and hash), when, by whom
and why. A tournament's newest statement that the hall's key signed, for this journal, says
whether it is closed; a statement the key did not sign counts for nothing, so a row added by
hand to a copy of the journal neither closes nor reopens an event.

Each append checks it under the chain lock (`refuse_if_closed`), beside the holds: a closed
tournament gets no challenge (nor reissue), no challenge the director decides (placement,
exchange), no free challenge granted, and no second opinion except on a case still open (one
flagged for the director, or a referral waiting for the word judge's dictionary check). The
director's own corrections (rulings, voids, revocations, waivers) are still recorded: what was
open when the event closed can still be ruled.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from adjudicator.errors import AdjudicatorError
from adjudicator.record.database.db import Database
from adjudicator.record.journal.receipt_key import SigningKey, key_id, signature_ok
from adjudicator.wording import N_, Phrase

CLOSE, REOPEN = "close", "reopen"
TYPES = {CLOSE: "tournament-closed", REOPEN: "tournament-reopened"}
_NEWEST_FIRST = (
    "SELECT seq, action, statement FROM tournament_closings WHERE tournament = ? ORDER BY seq DESC"
)
# Rows that judge something new; a second opinion only on a case that is still open.
_JUDGED = ("challenge", "placement", "exchange", "free-challenge")

CLOSED_MESSAGE = N_(  # a kiosk says it in its tournament's language (babel.cfg)
    "This event is over: the director closed {tournament}, and no challenge is judged for it now."
)


class TournamentClosed(AdjudicatorError):
    """The tournament is closed: nothing new is judged for it (409). `phrase` is the message as
    a kiosk says it in its tournament's language."""

    def __init__(self, message: str, phrase: Phrase | None = None):
        super().__init__(message)
        self.phrase = phrase


class ClosingRefused(AdjudicatorError):
    """A tournament cannot be closed or reopened as asked (already so, no reason given)."""


@dataclass(frozen=True)
class Statement:
    """One signed statement that a tournament was closed or reopened."""

    tournament: str
    seq: int
    action: str  # CLOSE or REOPEN
    at: str
    by: str
    reason: str
    row: int  # the newest journal row when it was made (0: none yet)
    signed: dict[str, Any]

    @property
    def closed(self) -> bool:
        return self.action == CLOSE

    def to_api(self) -> dict[str, Any]:
        return {
            "closed": self.closed,
            "action": self.action,
            "at": self.at,
            "by": self.by,
            "reason": self.reason,
            "row": self.row,
            "seq": self.seq,
        }


_VERIFIED: dict[str, bool] = {}  # key, journal, statement -> its signature verifies (a process)
_VERIFIED_LOCK = threading.Lock()


def _valid(
    text: str, tournament: str, seq: int, action: str, public: Ed25519PublicKey, journal: str
) -> Statement | None:
    """The statement stored as `text`, if the key signed it for this journal, tournament,
    number and action; else None."""
    try:
        signed = json.loads(text)
    except (TypeError, ValueError):
        return None
    if not isinstance(signed, dict):
        return None
    expected = {
        "type": TYPES.get(action),
        "journal": journal,
        "tournament": tournament,
        "seq": seq,
    }
    if any(signed.get(name) != value for name, value in expected.items()):
        return None
    cache_key = f"{key_id(public)} {journal} {text}"  # verified with this key, for this journal
    with _VERIFIED_LOCK:
        known = _VERIFIED.get(cache_key)
    if known is None:
        known = signature_ok(signed, public)
        with _VERIFIED_LOCK:
            if len(_VERIFIED) > 4096:
                _VERIFIED.clear()
            _VERIFIED[cache_key] = known
    if not known:
        return None
    return Statement(
        tournament,
        seq,
        action,
        str(signed.get("at", "")),
        str(signed.get("by", "")),
        str(signed.get("reason", "")),
        signed.get("row") if isinstance(signed.get("row"), int) else 0,
        signed,
    )


PublicKey = Ed25519PublicKey | None | Callable[[], Ed25519PublicKey | None]


def newest(cur: Any, tournament: str, public: PublicKey, journal: str | None) -> Statement | None:
    """The tournament's newest statement the hall's key signed for this journal (inside a
    transaction); None when there is none, or no key or journal to hold them against.
    `public` may be a function giving the key, called only when there are statements."""
    rows = cur.execute(_NEWEST_FIRST, (tournament,)).tuples()
    if not rows or journal is None:
        return None
    if callable(public) and not isinstance(public, Ed25519PublicKey):
        public = public()
    if public is None:
        return None
    for seq, action, text in rows:
        found = _valid(text, tournament, seq, action, public, journal)
        if found is not None:
            return found
    return None


def state(
    db: Database, tournament: str, public: Ed25519PublicKey | None, journal: str | None
) -> Statement | None:
    """`newest` in a transaction of its own (a read)."""
    with db.transaction() as cur:
        return newest(cur, tournament, public, journal)


def history(
    db: Database, tournament: str, public: Ed25519PublicKey | None, journal: str | None
) -> list[tuple[int, str, Statement | None]]:
    """Every statement recorded for the tournament, oldest first: (seq, action, the statement
    if the key signed it, else None)."""
    with db.transaction() as cur:
        rows = cur.execute(_NEWEST_FIRST, (tournament,)).tuples()
    found = []
    for seq, action, text in reversed(rows):
        valid = (
            _valid(text, tournament, seq, action, public, journal)
            if public is not None and journal is not None
            else None
        )
        found.append((seq, action, valid))
    return found


def closed_tournaments(
    db: Database, public: Ed25519PublicKey | None, journal: str | None
) -> dict[str, Statement]:
    """Every closed tournament's closing statement, by slug (one read of a small table)."""
    with db.transaction() as cur:
        slugs = [
            row[0]
            for row in cur.execute("SELECT DISTINCT tournament FROM tournament_closings").tuples()
        ]
        found = {}
        for slug in slugs:
            latest = newest(cur, slug, public, journal)
            if latest is not None and latest.closed:
                found[slug] = latest
    return found


def record(
    db: Database, key: SigningKey, tournament: str, action: str, actor: str, reason: str
) -> Statement:
    """Sign and record that `tournament` is closed (CLOSE) or reopened (REOPEN), under the chain
    lock (no append passes it half-way); refused when it is already so."""
    with db.transaction(chain_lock=True) as cur:
        identity = cur.execute("SELECT journal_id FROM journal_identity").one()
        journal = identity["journal_id"] if identity else None
        if journal is None:
            raise ClosingRefused("The journal has no identity yet: run `adjudicator db upgrade`.")
        latest = newest(cur, tournament, key.public, journal)
        _refuse_if_already(tournament, action, latest)
        top = cur.execute(
            "SELECT MAX(seq) AS seq FROM tournament_closings WHERE tournament = ?", (tournament,)
        ).one()
        seq = int(top["seq"] or 0) + 1 if top else 1
        head = cur.execute("SELECT id, row_hash FROM adjudications ORDER BY id DESC LIMIT 1").one()
        signed = key.sign(
            {
                "type": TYPES[action],
                "journal": journal,
                "tournament": tournament,
                "seq": seq,
                "row": int(head["id"]) if head else 0,
                "row_hash": head["row_hash"] if head else "",
                "at": datetime.now(UTC).isoformat(timespec="seconds"),
                "by": actor,
                "reason": reason,
            }
        )
        text = json.dumps(signed, sort_keys=True)
        cur.execute(
            "INSERT INTO tournament_closings (tournament, seq, action, statement) "
            "VALUES (?, ?, ?, ?)",
            (tournament, seq, action, text),
        )
    made = _valid(text, tournament, seq, action, key.public, journal)
    assert made is not None
    return made


def _refuse_if_already(tournament: str, action: str, latest: Statement | None) -> None:
    if action == CLOSE and latest is not None and latest.closed:
        raise ClosingRefused(
            f"Tournament {tournament} is closed already (since {latest.at[:16].replace('T', ' ')}"
            f" UTC, by {latest.by})."
        )
    if action == REOPEN and (latest is None or not latest.closed):
        raise ClosingRefused(f"Tournament {tournament} is not closed: there is nothing to reopen.")


def refuse_if_closed(
    cur: Any,
    fields: dict[str, Any],
    public: PublicKey,
    journal: str,
    known: dict[str, Statement | None],
) -> None:
    """Under the chain lock, for a row about to be appended: TournamentClosed when it would
    judge something new for a closed tournament. `known` keeps each tournament's state for
    the rest of the batch (one indexed read per tournament)."""
    kind = fields.get("kind")
    if kind not in _JUDGED and kind != "second-opinion":
        return
    tournament = str(fields.get("tournament") or "")
    if tournament not in known:
        known[tournament] = newest(cur, tournament, public, journal)
    latest = known[tournament]
    if latest is None or not latest.closed:
        return
    if kind == "second-opinion" and _case_open(cur, fields.get("refers_to")):
        return
    when = latest.at[:16].replace("T", " ")
    raise TournamentClosed(
        f"Tournament {tournament} is closed (since {when} UTC, by {latest.by}): no challenge is "
        "judged for it now. Reopen it (`adjudicator tournament reopen "
        f"{tournament} --reason TEXT`) if the event is not over.",
        Phrase.of(CLOSED_MESSAGE, tournament=tournament),
    )


def _case_open(cur: Any, original: Any) -> bool:
    """True when the challenge `original` still waits: flagged for the director (its case is
    open), or a referral (REFER) not yet closed by a word judge's dictionary check."""
    if not isinstance(original, int):
        return False
    case = cur.execute("SELECT open FROM journal_cases WHERE original_id = ?", (original,)).one()
    if case and case["open"]:
        return True
    row = cur.execute(
        "SELECT verdict FROM adjudications WHERE id = ? AND kind = 'challenge'", (original,)
    ).one()
    if not row or row["verdict"] != "REFER":
        return False
    closed = cur.execute(
        "SELECT 1 FROM adjudications WHERE refers_to = ? AND kind = 'second-opinion' "
        "AND dictionary IS NOT NULL AND flag_reasons = '[]'",
        (original,),
    ).one()
    return closed is None
