"""Kiosks as witnesses: each tells the server the newest receipt it was shown, with its polls.

A receipt that verifies but that the journal no longer holds unchanged raises an alarm for the
director, naming the kiosk and the row, and goes in the log; and judging stops: a row it
proves missing is a rollback, a row the journal holds with another hash a fork (rollbacks.py),
unless that number's loss was accepted (`journal accept-loss`). A drill's receipt (`kit open
--drill`: a journal of its own, journal_begun.is_drill) is practice: ignored. The newest
receipt each kiosk reported is kept, so the director can download them for `journal audit`.
A receipt that does not verify is ignored (and logged): a player cannot raise false alarms by
sending junk.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from adjudicator.record.database.db import Database
from adjudicator.record.journal import journal, rollbacks
from adjudicator.record.journal.receipt_key import signature_ok
from adjudicator.record.proofs import journal_begun, receipts

log = logging.getLogger("adjudicator.witness")


@dataclass(frozen=True)
class Alarm:
    """A kiosk's receipt that the journal no longer bears out."""

    kiosk: str
    row_id: int
    row_hash: str
    problem: str
    raised_at: str
    acknowledged_at: str | None = None
    acknowledged_by: str | None = None


def report(
    db: Database, kiosk: str, value: Any, public: Ed25519PublicKey, journal_id: str | None
) -> Alarm | None:
    """Check the receipt `kiosk` reports against the journal; the alarm it raises, if any."""
    return witness(db, kiosk, value, public, journal_id)[0]


def witness(
    db: Database, kiosk: str, value: Any, public: Ed25519PublicKey, journal_id: str | None
) -> tuple[Alarm | None, tuple[int, str] | None]:
    """`report`, and the row (id, hash) the receipt proves when the journal bears it out (None
    otherwise): what a poll held open may keep watching."""
    try:
        receipt = receipts.parse(value)
    except receipts.ReceiptError as exc:
        log.warning("kiosk %s sent a witness that is not a receipt: %s", kiosk, exc)
        return None, None
    if not signature_ok(receipt, public):
        log.warning("kiosk %s sent a receipt for row %s that does not verify", kiosk, receipt["id"])
        return None, None
    if receipt.get("kiosk") != kiosk:  # only its own receipts witness for a kiosk
        log.warning(
            "kiosk %s sent a receipt for row %s issued to another station (%s): ignored",
            kiosk,
            receipt["id"],
            receipt.get("kiosk"),
        )
        return None, None
    problem = receipts.journal_problem(db, receipt, journal_id)
    if problem:
        head = journal.newest_id(db)
        named = receipt.get("journal")
        if journal_begun.is_drill(named) and named != journal_id:
            log.info("kiosk %s sent a receipt of a drill (journal %s): ignored", kiosk, named)
            return None, None
        if named in (journal_id, None, ""):
            if receipt["id"] > head:
                # A number this journal issued, signed, and now missing: never issue it again.
                rollbacks.found(
                    db, receipt["id"], receipt["row_hash"], f"kiosk {kiosk}'s receipt", head
                )
            elif not _lost(db, receipt["id"]):
                # A row this journal holds, but not the one the hall signed: another history.
                rollbacks.found(
                    db,
                    receipt["id"],
                    f"{rollbacks.FORK}{receipt['id']}",
                    f"kiosk {kiosk}'s receipt for row {receipt['id']} names another row there",
                    head,
                )
        elif _earlier_journal(db, receipt, public):
            return None, None  # a receipt of an event before this journal began
        else:
            # Signed by this hall's key for a journal this one does not follow (its id changed
            # by hand?): whatever it names, a row it proves may be missing. Judging stops.
            rollbacks.found(
                db,
                receipt["id"],
                receipt["row_hash"],
                f"kiosk {kiosk}'s receipt (of journal {str(named)[:8]})",
                head,
            )
        return _raise(db, kiosk, receipt, problem), None
    _keep_newest(db, kiosk, receipt)
    return None, (receipt["id"], receipt["row_hash"])


def rows_gone(db: Database, rows: set[tuple[int, str]]) -> set[tuple[int, str]]:
    """Of the rows (id, hash) receipts proved, those the journal no longer holds with that hash
    (removed, cut off the end, or rewritten): one indexed read per 500."""
    wanted = sorted(rows)
    held: set[tuple[int, str]] = set()
    with db.transaction() as cur:
        for start in range(0, len(wanted), 500):
            ids = sorted({row_id for row_id, _ in wanted[start : start + 500]})
            marks = ", ".join("?" for _ in ids)
            found = cur.execute(
                f"SELECT id, row_hash FROM adjudications WHERE id IN ({marks})", ids
            ).tuples()
            held.update((int(row_id), row_hash) for row_id, row_hash in found)
    return set(wanted) - held


def _lost(db: Database, row_id: int) -> bool:
    """Whether the row is the void row of a loss the director accepted (lost_rows.py)."""
    entry = journal.get(db, row_id)
    return entry is not None and (entry.kind, entry.consequence) == ("void", rollbacks.LOST_TEXT)


def _earlier_journal(db: Database, receipt: dict[str, Any], public: Ed25519PublicKey) -> bool:
    """Whether the receipt is of a journal that the key began this one after (or before it)."""
    journal_id, signed = journal_begun.identity(db)
    if signed is None or signed.get("journal") != journal_id or not signature_ok(signed, public):
        return False
    return journal_begun.follows(signed, receipt)


def _raise(db: Database, kiosk: str, receipt: dict[str, Any], problem: str) -> Alarm:
    alarm = Alarm(kiosk, receipt["id"], receipt["row_hash"], problem, _now())
    with db.transaction() as cur:
        cur.execute(
            "INSERT INTO witness_alarms (kiosk, row_id, row_hash, problem, raised_at) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (kiosk, row_id, row_hash) DO NOTHING",
            (alarm.kiosk, alarm.row_id, alarm.row_hash, alarm.problem, alarm.raised_at),
        )
        new = cur.rowcount == 1
    if new:
        log.error(
            "WITNESS ALARM: kiosk %s holds a signed receipt for journal row %s (hash %s) "
            "that the journal does not bear out: %s",
            kiosk,
            alarm.row_id,
            alarm.row_hash[:16],
            problem,
        )
    return alarm


def _keep_newest(db: Database, kiosk: str, receipt: dict[str, Any]) -> None:
    with db.transaction() as cur:
        row = cur.execute("SELECT row_id FROM kiosk_witnesses WHERE kiosk = ?", (kiosk,)).one()
    if row is not None and row["row_id"] >= receipt["id"]:
        return  # a write only when the kiosk's newest receipt is newer than the one kept
    with db.transaction() as cur:
        cur.execute(
            "INSERT INTO kiosk_witnesses (kiosk, row_id, receipt, reported_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (kiosk) DO UPDATE SET row_id = excluded.row_id, "
            "receipt = excluded.receipt, reported_at = excluded.reported_at "
            "WHERE excluded.row_id > kiosk_witnesses.row_id",
            (kiosk, receipt["id"], json.dumps(receipt, sort_keys=True), _now()),
        )


def alarms(db: Database, *, include_acknowledged: bool = False) -> list[Alarm]:
    """Alarms raised by kiosks' receipts, newest first."""
    where = "" if include_acknowledged else "WHERE acknowledged_at IS NULL"
    with db.transaction() as cur:
        rows = cur.execute(
            "SELECT kiosk, row_id, row_hash, problem, raised_at, acknowledged_at, "
            f"acknowledged_by FROM witness_alarms {where} ORDER BY raised_at DESC, row_id DESC"
        ).all()
    return [Alarm(**row) for row in rows]


def acknowledge(db: Database, kiosk: str, row_id: int, by: str) -> int:
    """The director has seen the alarms of `kiosk` on row `row_id`; how many were open."""
    if not 0 < row_id <= journal.MAX_ID:  # no row has it, and the database cannot compare it
        return 0
    with db.transaction() as cur:
        cur.execute(
            "UPDATE witness_alarms SET acknowledged_at = ?, acknowledged_by = ? "
            "WHERE kiosk = ? AND row_id = ? AND acknowledged_at IS NULL",
            (_now(), by, kiosk, row_id),
        )
        return cur.rowcount


def newest_receipts(db: Database) -> list[dict[str, Any]]:
    """The newest receipt each kiosk reported, for `journal audit`."""
    with db.transaction() as cur:
        rows = cur.execute("SELECT receipt FROM kiosk_witnesses ORDER BY kiosk").all()
    return [json.loads(row["receipt"]) for row in rows]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
