"""`journal status`: where the journal is, on how many copies, and whether it records verdicts.

Read from the files and the marker files a serving process writes (copies/markers.py), so it tells
the truth about a running server from another process: "ok", "degraded: one copy" (naming the
lost copy and what to do), "disagree" (the two copies hold different chains), or the journal's
own health ("cannot write"). It holds the journal against the hall's signed statements as a
start would (journal_proof.hold: the marks in the data home and beside each copy, the begun
statement, the keyed rows), so before a start as after it never says "ok" of a journal they
contradict: "fork" (another history: never a loss to accept), or "rolled-back" (rows missing,
or a journal the key did not begin).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from adjudicator.record.backends import connect
from adjudicator.record.copies import file_modes, markers, one_hall, proof, standing, takeover
from adjudicator.record.copies.mirror import MIRROR, CopiesDisagree, MirroredDatabase
from adjudicator.record.database import journal_health
from adjudicator.record.database.db import DatabaseUnavailable
from adjudicator.record.journal import journal_holds, receipt_key, rollbacks, row_keys
from adjudicator.record.proofs import journal_proof

TAKEN_OVER = "TAKEN OVER by another laptop: this one does not judge"


@dataclass(frozen=True)
class CopyLine:
    role: str
    path: str
    rows: int | None  # None: cannot be read
    lost: str = ""  # why it is not written now
    proof: str = ""  # "" when whole (its chain verifies in full, it holds every proven row)
    fork: int | None = None  # the first row where it contradicts a signed statement


@dataclass(frozen=True)
class Report:
    state: str  # "ok", "degraded", "disagree", "cannot-write", "lost", "unavailable", "fork", ...
    summary: str
    detail: str = ""
    copies: list[CopyLine] = field(default_factory=list)
    backend: str = "sqlite"
    warnings: list[str] = field(default_factory=list)  # judging goes on, but look into it
    readable_by_others: list[str] = field(default_factory=list)  # copies on FAT, say

    def to_json(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "summary": self.summary,
            "detail": self.detail,
            "backend": self.backend,
            "copies": [vars(copy) for copy in self.copies],
            "warnings": self.warnings,
            "readable_by_others": self.readable_by_others,
        }

    def text(self) -> str:
        lines = [f"Journal: {self.summary}"]
        for copy in self.copies:
            held = "cannot be read" if copy.rows is None else f"{copy.rows:,} rows"
            lost = f", LOST: {copy.lost}" if copy.lost else ""
            proven = f"; NOT WHOLE: {copy.proof}" if copy.proof else "; whole: verified in full"
            proven = proven if copy.rows is not None else ""
            lines.append(f"  {copy.role}: {copy.path} ({held}{lost}{proven})")
        if self.detail:
            lines.append(self.detail)
        lines += [f"Warning: {warning}" for warning in self.warnings]
        lines += [file_modes.warning(path) for path in self.readable_by_others]
        return "\n".join(lines)


def read() -> Report:
    """The configured journal's status now, with the copies other users can read."""
    db = connect()
    report = _read(db)
    return replace(report, readable_by_others=file_modes.readable_copies(db))


def _read(db) -> Report:
    if not isinstance(db, MirroredDatabase):
        return _single(db)
    copies = []
    for role, path in db.paths.items():
        try:
            head = standing.head(path)
            rows = head.rows if head.exists else None
            lost = "" if head.exists else "the file is missing"
        except Exception as exc:  # noqa: BLE001 - a copy that cannot be read is reported
            rows, lost = None, f"cannot be read: {exc}"
        copies.append(CopyLine(role, path, rows, lost))
    try:
        db.check_copies()
    except takeover.TakenOver as exc:
        unexamined = [replace(c, proof="not examined: another laptop took it over") for c in copies]
        return Report("taken-over", TAKEN_OVER, str(exc), unexamined)
    except CopiesDisagree as exc:
        return Report("disagree", "the two copies DISAGREE: nothing is recorded", str(exc), copies)
    except DatabaseUnavailable as exc:
        return Report("unavailable", "cannot be read", str(exc), copies)
    health = journal_health.check(db)
    lost = db.lost_copy()
    withheld = MIRROR if db.withheld() is not None else None  # not this journal's: not opened
    examined = _examined(db, [c for c in copies if c.role != withheld])
    copies = [
        CopyLine(
            c.role,
            c.path,
            c.rows,
            lost.reason if lost is not None and c.role == lost.role else c.lost,
            examined[c.role].describe() if c.role in examined else "",
            examined[c.role].fork.row if c.role in examined and examined[c.role].fork else None,
        )
        for c in copies
    ]
    warnings = [markers.forged_warning(m, n) for m, n in db.forged_markers.items()]
    forks = [examined[c.role] for c in copies if c.fork is not None and not c.lost]
    if forks:
        what = forks[0].describe()
        detail = f"{what[0].upper()}{what[1:]}. {rollbacks.FORK_REMEDIES}"
        return Report(*_fork(detail), copies, warnings=warnings)
    rolled_back = _found(db) or _held(db)
    if rolled_back is not None:
        return Report(*rolled_back, copies, warnings=warnings)
    unproven = [c for c in copies if c.proof and not c.lost]
    if health.ok and unproven:
        detail = "; ".join(f"the {c.role}: {c.proof}" for c in unproven)
        return Report(
            "not-whole",
            "a copy is NOT WHOLE: restore it, or run `adjudicator journal resync`",
            f"{detail}. {health.detail}".strip(),
            copies,
            warnings=warnings,
        )
    return Report(health.state, _summary(health), health.detail, copies, warnings=warnings)


def _examined(db: MirroredDatabase, copies: list[CopyLine]) -> dict[str, proof.Examined]:
    """Each copy's chain verified in full and held against the signed statements."""
    journal_ids = {standing.head(c.path).journal_id for c in copies if c.rows is not None}
    about = {str(j): proof.for_journal(db, str(j)) for j in journal_ids if j}
    return {
        copy.role: proof.examine(copy.role, copy.path, about)
        for copy in copies
        if copy.rows is not None
    }


def _rolled_back(db) -> tuple[str, str, str] | None:
    """An open rollback: rows proven recorded are missing (or a fork), nothing is judged."""
    try:
        found = rollbacks.current(db)
    except DatabaseUnavailable:
        return None
    return _reported(found) if found is not None else None


def _reported(found: rollbacks.Rollback) -> tuple[str, str, str]:
    if found.fork is not None:
        return _fork(found.detail())
    first, last = found.missing
    return (
        "rolled-back",
        f"ROLLED BACK: rows {first} to {last} are missing; no verdict can be recorded",
        found.detail(),
    )


def _held(db) -> tuple[str, str, str] | None:
    """The hall does not judge until the director acts: another laptop took the journal over,
    or the stick it was written to is gone (held at a start, or it would be now)."""
    try:
        one_hall.refuse_if_taken_over(db)
    except takeover.TakenOver as exc:
        return "taken-over", TAKEN_OVER, str(exc)
    try:
        held = journal_holds.current(db)
    except DatabaseUnavailable:
        held = None
    found = one_hall.waiting(db)
    if held is None and found is None:
        return None
    detail = found.detail() if found is not None else held.detail
    if held is not None and held.kind != journal_holds.MIRROR_MISSING:  # said first, then why
        detail = held.detail + (f"\n{found.detail()}" if found is not None else "")
    return "held", "HELD: no verdict can be recorded until the director acts", detail


def _fork(detail: str) -> tuple[str, str, str]:
    return (
        "fork",
        "FORK: the journal is not the record the hall kept; no verdict can be recorded",
        detail,
    )


def _found(db) -> tuple[str, str, str] | None:
    """What stops judging: a fork a start would find first, else an open rollback, else what
    a start would record."""
    pending = _pending(db)
    if pending is not None and pending[0] == "fork":
        return pending
    return _rolled_back(db) or pending


def _pending(db) -> tuple[str, str, str] | None:
    """What a start would record (a read, before a start as after): the journal held against
    the hall's signed statements, if its key is here."""
    key = receipt_key.existing(getattr(db, "key_path", None))
    if key is None:
        return None
    try:
        held = journal_proof.hold(db, key.public, row_keys.secret(key), key.path)
    except DatabaseUnavailable:
        return None
    found = held.rollback()
    return _reported(found) if found is not None else None


def _single(db) -> Report:
    try:
        health = journal_health.check(db)
    except DatabaseUnavailable as exc:
        return Report("unavailable", "cannot be read", str(exc), backend=db.backend)
    note = (
        "One copy only: set ADJUDICATOR_JOURNAL_MIRROR to a file on another disk to keep a "
        "second, and run `adjudicator journal backup DEST` to keep copies apart."
        if db.backend == "sqlite"
        else "PostgreSQL keeps its own copies: use its streaming replication and pg_basebackup."
    )
    detail = f"{health.detail}\n{note}".strip() if health.detail else note
    rolled_back = _found(db) or _held(db)
    if rolled_back is not None and health.ok:
        state, summary, what = rolled_back
        return Report(state, summary, f"{what}\n{note}", backend=db.backend)
    return Report(health.state, _summary(health), detail, backend=db.backend)


def _summary(health: journal_health.Health) -> str:
    return {
        "ok": "ok: recording verdicts",
        "degraded": f"degraded: one copy ({health.copy_summary})",
        "cannot-write": "CANNOT WRITE: no verdict can be recorded",
        "lost": "LOST: no verdict can be recorded",
    }.get(health.state, health.state)
