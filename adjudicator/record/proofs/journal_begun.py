"""The journals this hall's key has begun: a signed step at the start of each journal.

A journal's identity row keeps, beside its random id, the key's signed statement that it
began it (`journal_identity.begun`): the journal's id, the key, when, why, and `after`, the head
of the journal before it (its id, newest row and hash) if the key had signed rows of one.
Beginning a new journal under the same key for a next event is that step
(`adjudicator journal begin --reason TEXT`), so the event begins afresh while every earlier
mark stays accounted for. The statement names the id it begins, so a copy whose
`journal_identity.journal_id` was changed by hand no longer matches it.

At a server's start (`check`), against every high-water mark the key signed (high_water.py):
- a journal begun by the key is served; a mark of another journal must be one it follows
  (`after`) or older than it, else a newer journal exists and this one is a snapshot;
- a journal the key never began is adopted only if the key never signed a row of another
  journal: the first start ever, a fresh data home, or a journal from before this step
  existed. Otherwise it is refused: the rows the newest mark proves are missing (a rollback),
  until a backup is restored, the loss is accepted, or the director begins a new journal.

A drill's journal (`kit open --drill`: `begin_drill`) is a copy begun under an identity of its
own, `drill-...`, after the journal it copies: a receipt that names one is practice, never a
statement about the hall's journal (`is_drill`; witnesses.py ignores it).
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from adjudicator.errors import AdjudicatorError
from adjudicator.record.database.db import Database
from adjudicator.record.journal import chain_walk, row_keys
from adjudicator.record.journal.receipt_key import SigningKey, signature_ok
from adjudicator.record.journal.rollbacks import KEY_SOURCE as SOURCE_PREFIX

TYPE = "journal-begun"
DRILL = "drill-"  # the start of a drill journal's id


class CannotBegin(AdjudicatorError):
    """A new journal cannot be begun here (it holds rows already)."""


def identity(db: Database) -> tuple[str | None, dict[str, Any] | None]:
    """The journal's id and its begun statement as stored (not yet checked)."""
    with db.transaction() as cur:
        row = cur.execute("SELECT journal_id, begun FROM journal_identity").one()
    if row is None:
        return None, None
    try:
        begun = json.loads(row["begun"]) if row["begun"] else None
    except ValueError:
        begun = None
    return row["journal_id"], begun if isinstance(begun, dict) else None


def statement(
    key: SigningKey, journal_id: str, after: dict[str, Any] | None, reason: str
) -> dict[str, Any]:
    """The key's signed statement that it begins `journal_id` after `after`."""
    return key.sign(
        {
            "type": TYPE,
            "journal": journal_id,
            "id": 0,
            "row_hash": "0" * 64,
            "key": key.id,
            "begun_at": _now(),
            "after": after,
            "reason": reason,
        }
    )


def store(db: Database, signed: dict[str, Any]) -> None:
    with db.transaction() as cur:
        cur.execute(
            "UPDATE journal_identity SET begun = ? WHERE journal_id = ?",
            (json.dumps(signed, sort_keys=True), signed["journal"]),
        )


def begun_by(signed: dict[str, Any] | None, key: SigningKey, journal_id: str) -> bool:
    """Whether `signed` is the key's statement that it began `journal_id`."""
    return _begun(signed, key.public, journal_id)


def _begun(signed: dict[str, Any] | None, public, journal_id: str) -> bool:
    return (
        signed is not None
        and signed.get("type") == TYPE
        and signed.get("journal") == journal_id
        and signature_ok(signed, public)
    )


def mark_time(mark: dict[str, Any]) -> str:
    """When a mark was signed: a receipt's row time, a mark's own, a statement's."""
    return str(mark.get("recorded_at") or mark.get("at") or mark.get("begun_at") or "")


def follows(signed: dict[str, Any], mark: dict[str, Any]) -> bool:
    """Whether the journal `signed` began comes after the one `mark` names: that journal
    was its `after` (and the mark is not past the head recorded then), or it is older."""
    after = signed.get("after") or {}
    if after.get("journal") == mark.get("journal"):
        return int(mark.get("id", 0)) <= int(after.get("id", 0))
    when = mark_time(mark)
    return bool(when) and when < str(signed.get("begun_at", ""))


def newest_other(marks: list[dict[str, Any]], journal_id: str) -> dict[str, Any] | None:
    """The most recent mark of another journal (then the highest row), if any."""
    others = [mark for mark in marks if mark.get("journal") != journal_id]
    return max(others, key=lambda m: (mark_time(m), m.get("id", 0))) if others else None


def not_followed(
    journal_id: str, signed: dict[str, Any] | None, key: SigningKey, marks: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The marks of other journals that `journal_id` does not come after: for a journal the
    key began, those it does not follow; for one it never began, every other journal's."""
    return _not_followed(journal_id, signed, key.public, marks)


def _not_followed(
    journal_id: str, signed: dict[str, Any] | None, public, marks: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    others = [mark for mark in marks if mark.get("journal") != journal_id]
    if not _begun(signed, public, journal_id):
        return others
    assert signed is not None
    return [mark for mark in others if not follows(signed, mark)]


@dataclass(frozen=True)
class Refusal:
    """A journal the key does not serve: the rollback a start records (the rows the newest
    mark proves), and whether it is only an earlier journal (the key began a newer one after
    it: a record of an earlier event, whole in itself)."""

    row: int
    hash: str
    source: str
    head: int
    journal: str  # the journal whose rows the refusal proves (a copy must not contradict them)
    earlier: bool = False

    def rollback(self) -> tuple[int, str, str, int]:
        """The parameters of rollbacks.found."""
        return self.row, self.hash, self.source, self.head


def refusal(db: Database, public, marks: list[dict[str, Any]]) -> Refusal | None:
    """Whether the key serves this journal (a read: nothing is written): None if it does, or
    would adopt it at a start; else why not (see the module's docstring)."""
    journal_id, signed = identity(db)
    if journal_id is None:
        return None  # no identity yet (an unmigrated journal): the migrations make one
    if _begun(signed, public, journal_id):
        newer = _not_followed(journal_id, signed, public, marks)
        if not newer:
            return None
        return _refusal(db, newer, journal_id, "a journal the key began after this one", True)
    other = newest_other(marks, journal_id)
    changed = signed is not None and signed.get("type") == TYPE and signature_ok(signed, public)
    if other is None and not changed:
        return None  # adopted at the start: the key signed no row of another journal
    if changed:
        assert signed is not None
        why = f"its id was changed by hand, the key began it as {str(signed['journal'])[:8]}"
        if other is None:  # no mark at all: the statement's own journal is the proof
            source = f"{SOURCE_PREFIX} ({why})"
            return Refusal(1, "0" * 64, source, _head(db), str(signed["journal"]))
        return _refusal(db, [other], journal_id, why)
    return _refusal(db, [other], journal_id, "the key never signed it as begun")


def check(
    db: Database, key: SigningKey, marks: list[dict[str, Any]]
) -> tuple[int, str, str, int] | None:
    """At start: None if the journal may be served (adopting it if it may be); else the
    rollback to record, (row, hash, source, head): the rows the newest mark proves."""
    found = refusal(db, key.public, marks)
    if found is not None:
        return found.rollback()
    journal_id, signed = identity(db)
    if journal_id is not None and not begun_by(signed, key, journal_id):
        store(db, statement(key, journal_id, None, "first start of this journal under this key"))
    return None


def _refusal(
    db: Database, marks: list[dict[str, Any]], journal_id: str, why: str, earlier: bool = False
) -> Refusal:
    mark = max(marks, key=lambda m: (mark_time(m), m.get("id", 0)))
    source = (
        f"{SOURCE_PREFIX} (it signed row {mark['id']} of journal {str(mark['journal'])[:8]}; "
        f"this journal, {journal_id[:8]}, is not one it began after that: {why})"
    )
    row, row_hash = max(1, int(mark["id"])), str(mark["row_hash"])
    return Refusal(row, row_hash, source, _head(db), str(mark["journal"]), earlier)


def _head(db: Database) -> int:
    with db.transaction() as cur:
        row = cur.execute("SELECT MAX(id) AS head FROM adjudications").one()
    return int(row["head"] or 0) if row else 0


def begin(
    db: Database, key: SigningKey, marks: list[dict[str, Any]], reason: str
) -> dict[str, Any]:
    """`journal begin`: the key begins this (empty) journal after the newest one it signed
    rows of; the statement, to be kept as the mark in every place too."""
    journal_id, signed = identity(db)
    if journal_id is None:
        raise CannotBegin("The journal has no identity yet: run `adjudicator db upgrade` first.")
    rows = _head(db)
    if rows:
        raise CannotBegin(
            f"This journal holds {rows:,} rows: a new journal is begun only on an empty one, "
            "for a next event. Move this journal away (keep it: it is that event's record), "
            "start the hall once to make a new one, and run this again."
        )
    if not reason.strip():
        raise CannotBegin("Say why with --reason (the event it is for).")
    other = newest_other(marks, journal_id)
    after = None
    if other is not None:
        after = {"journal": other["journal"], "id": other["id"], "row_hash": other["row_hash"]}
    made = statement(key, journal_id, after, reason.strip())
    store(db, made)
    with db.transaction() as cur:  # the refusal this step answers, if one was recorded
        cur.execute(
            "UPDATE journal_rollbacks SET resolved_at = ?, resolution = ? "
            "WHERE resolved_at IS NULL AND source LIKE ?",
            (_now(), f"a new journal begun: {reason.strip()}", SOURCE_PREFIX + "%"),
        )
    return made


def adopt(db: Database, key: SigningKey, marks: list[dict[str, Any]], reason: str) -> None:
    """Begin the journal after the newest other journal the key signed rows of, unless the
    key began it already (after `journal accept-loss` on a journal refused at start)."""
    journal_id, signed = identity(db)
    if journal_id is None or begun_by(signed, key, journal_id):
        return
    other = newest_other(marks, journal_id)
    after = None
    if other is not None:
        after = {"journal": other["journal"], "id": other["id"], "row_hash": other["row_hash"]}
    store(db, statement(key, journal_id, after, reason))


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def is_drill(journal_id: object) -> bool:
    """Whether a journal's id is a drill's (`kit open --drill`)."""
    return isinstance(journal_id, str) and journal_id.startswith(DRILL)


def begin_drill(db: Database, key: SigningKey, after: dict[str, Any]) -> str:
    """Make the copy in `db` a drill's journal: an id of its own, begun by the key after
    `after` (the head of the journal it copies), its keyed rows keyed again under the new id;
    the drill's id."""
    old_id, _ = identity(db)
    drill_id = DRILL + secrets.token_hex(16)
    keyed_rows = chain_walk.has_keyed_hash(db)
    with db.transaction() as cur:
        stated = cur.execute(row_keys.READ_SQL).one()
        first = row_keys.keyed_from(
            row_keys.parse(stated["keyed"]) if stated else None, key.public, str(old_id)
        )
        if first is not None and keyed_rows:
            secret = row_keys.secret(key)
            rows = cur.execute(
                "SELECT id, row_hash FROM adjudications WHERE id >= ?", (first,)
            ).tuples()
            cur.executemany(
                "UPDATE adjudications SET keyed_hash = ? WHERE id = ?",
                [(row_keys.keyed_hash(secret, drill_id, n, h), n) for n, h in rows],
            )
        keyed = row_keys.statement(key, drill_id, first) if first is not None else None
        begun = statement(key, drill_id, after, "a takeover drill (kit open --drill)")
        cur.execute(
            "UPDATE journal_identity SET journal_id = ?, begun = ?, keyed = ?",
            (
                drill_id,
                json.dumps(begun, sort_keys=True),
                json.dumps(keyed, sort_keys=True) if keyed else None,
            ),
        )
    return drill_id
