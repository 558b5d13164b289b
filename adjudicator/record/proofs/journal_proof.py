"""The journal held against what the hall's key says of it, before a start as after.

Three things must hold: the key began this journal (journal_begun.py), no signed statement
contradicts it (it is no fork: fork_check.py), and it holds every row the statements prove
recorded (the signed high-water marks in the data home and beside each copy, the receipts and
checkpoints it keeps). `hold` only reads: it says what a start would find, so `journal status`
and `journal verify` tell the truth before a start too. `check` is the start's: it adopts a
journal the key may begin, and records what `hold` found as a rollback (judging stops).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from adjudicator.record.database import journal_health
from adjudicator.record.database.db import Database
from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.record.journal import rollbacks, row_keys
from adjudicator.record.journal.receipt_key import SigningKey
from adjudicator.record.proofs import fork_check, high_water, journal_begun, signed_statements
from adjudicator.record.proofs.fork_check import Judgement, Statements


@dataclass(frozen=True)
class Held:
    """What the journal was found to be: refused by the key, or judged against its statements."""

    refusal: journal_begun.Refusal | None = None
    judged: Judgement | None = None
    statements: Statements | None = None

    def rollback(self) -> rollbacks.Rollback | None:
        """The rollback a start records for it (judging stops), None when it may be served: a
        fork first, then a journal the key does not serve, then rows missing."""
        now = datetime.now(UTC).isoformat(timespec="seconds")
        judged = self.judged
        if judged is not None and judged.fork is not None:
            fork = judged.fork
            source = f"the journal's {fork.against}"
            return rollbacks.Rollback(
                fork.row, f"{rollbacks.FORK}{fork.row}", source, judged.rows, now
            )
        if self.refusal is not None:
            return rollbacks.Rollback(*self.refusal.rollback(), found_at=now)
        if judged is None:
            return None
        if judged.missing:
            proof = max(judged.missing, key=lambda p: p.row)
            return rollbacks.Rollback(proof.row, proof.hash, proof.source, judged.rows, now)
        return None


def statements(
    db: Database, journal_id: str, public, secret: row_keys.RowSecret | None, key_path: Path
) -> Statements:
    """Every signed statement about the journal `db` holds: the marks in the data home and
    beside each SQLite copy, and what each copy (or the database) keeps."""
    copies = high_water.copy_paths(db)
    places = high_water.places(key_path, copies)
    stores: list[signed_statements.Store] = list(copies) or [db]
    return signed_statements.gather(journal_id, stores, places, public, secret)


def hold(
    db: Database, public, secret: row_keys.RowSecret | None, key_path: Path, full: bool = False
) -> Held:
    """Hold the journal against the key's statements (a read: nothing is written). `full`
    walks the whole chain; otherwise the statements' rows are looked up (fork_check)."""
    refused, about = _about(db, public, secret, key_path)
    if not about.journal:
        return Held(refused)
    return Held(refused, fork_check.judge(db, about, full=full), about)


def _about(
    db: Database, public, secret: row_keys.RowSecret | None, key_path: Path
) -> tuple[journal_begun.Refusal | None, Statements]:
    """Whether the key serves the journal, and every statement it signed about it.

    A journal the key does not serve is held against the journal whose rows it would stand for
    (its id changed by hand, or its begun statement gone): accepting it as that journal with
    rows lost must never adopt another history. One the key began is an earlier event's: held
    against its own."""
    copies = high_water.copy_paths(db)
    marks = high_water.all_marks(high_water.places(key_path, copies), public)
    refused = journal_begun.refusal(db, public, marks)
    journal_id = journal_health.journal_id(db) or ""
    if refused is not None and not refused.earlier:
        journal_id = refused.journal
    if not journal_id:
        return refused, Statements("")
    return refused, statements(db, journal_id, public, secret, key_path)


def check(db: Database, key: SigningKey, key_path: Path) -> rollbacks.Rollback | None:
    """At a server's start: is the journal one this key began, no fork, and does it hold every
    row the statements prove? If not, a rollback is recorded (judging stops until a backup is
    restored, a loss accepted or a next event begun); a journal the key may begin is begun."""
    held = hold(db, key.public, row_keys.secret(key), key_path)
    if held.refusal is None:
        journal_begun.check(db, key, [])  # a journal the key may begin: begun now
    found = held.rollback()
    if found is None:
        return None
    rollbacks.found(db, found.row_id, found.row_hash, found.source, found.head)
    return rollbacks.current(db)


@dataclass(frozen=True)
class Verified:
    """`journal verify`: each copy judged in full against the key's statements."""

    refusal: journal_begun.Refusal | None
    copies: list[tuple[str, Judgement]]  # ("the journal", ...) or ("the primary", ...), ...
    statements: Statements | None


def verify(
    db: Database,
    public,
    secret: row_keys.RowSecret | None,
    key_path: Path,
    witnessed: list[fork_check.Proof] | None = None,
) -> Verified:
    """Judge every copy of the journal in full (fork_check.judge), against the key's signed
    statements when its public key is known (`public`), and `witnessed` (checkpoints given by
    the director). Without `secret` (the hall's private key) keyed rows go unchecked."""
    refused, about = None, None
    if public is not None:
        refused, about = _about(db, public, secret, key_path)
    given = about or Statements(journal_health.journal_id(db) or "")
    given = replace(given, proofs=given.proofs + tuple(witnessed or ()))
    judged = []
    for name, copy, mine in _copies(db):
        try:
            judged.append((name, fork_check.judge(copy, given)))
        finally:
            if mine:
                copy.close()
    return Verified(refused, judged, about)


def _copies(db: Database) -> list[tuple[str, Database, bool]]:
    """Each copy of the journal, named, and whether it was opened here (to close): both files
    of a mirrored journal that are there, else the journal itself."""
    paths = getattr(db, "paths", None)
    if not isinstance(paths, dict):
        return [("the journal", db, False)]
    return [
        (f"the {role}", SqliteDatabase(path, create_folder=False), True)
        for role, path in paths.items()
        if Path(path).is_file()
    ]
