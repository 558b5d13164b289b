"""Signed checkpoints: the director's own witness of the journal's newest row.

A checkpoint names the newest row (its id and hash, which chains every row before it) and is
signed by the hall's key. The director prints it, or notes down its row and first hash digits;
`journal verify --checkpoint FILE` later fails if that row is missing or changed, so rows
rewritten or cut off the end are found even when the chain was recomputed. A copy is kept in the
database only to show the last one on the director's overview: the copy that counts is the
director's.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from adjudicator.errors import AdjudicatorError
from adjudicator.record.database.db import Database
from adjudicator.record.journal import row_keys
from adjudicator.record.journal.receipt_key import SigningKey, signature_ok
from adjudicator.record.proofs import journal_proof

_NOTED = re.compile(r"(?:row\s+)?(\d+)\s+([0-9a-fA-F]{8,64})")


class CheckpointError(AdjudicatorError):
    """A checkpoint cannot be made, or a checkpoint file cannot be read."""


def journal_id(db: Database) -> str:
    """The journal's random id (made by its first migration to version 4)."""
    with db.transaction() as cur:
        row = cur.execute("SELECT journal_id FROM journal_identity").one()
    return row["journal_id"] if row else ""


def make(db: Database, key: SigningKey) -> dict[str, Any]:
    """Verify the chain and hold it against the key's statements (no fork, no row missing),
    then sign its newest row and keep a copy for the overview."""
    held = journal_proof.hold(db, key.public, row_keys.secret(key), key.path, full=True)
    judged, rollback = held.judged, held.rollback()
    if judged is not None and judged.broken and judged.fork is None:
        raise CheckpointError(
            f"No checkpoint made: the journal is broken at row {judged.broken_at} "
            f"({judged.broken}). Find out why before vouching for it."
        )
    if judged is not None and not judged.rows:
        raise CheckpointError("No checkpoint made: the journal has no rows yet.")
    if rollback is not None or judged is None:
        what = rollback.what() if rollback is not None else "it has no identity yet."
        raise CheckpointError(f"No checkpoint made: {what} Find out why before vouching for it.")
    fields: dict[str, Any] = {
        "type": "checkpoint",
        "id": judged.verified_to,
        "row_hash": judged.last_hash,
        "journal": journal_id(db),
        "made_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "key": key.id,
    }
    if held.statements is not None and held.statements.keyed_from is not None:
        fields["keyed_from"] = held.statements.keyed_from  # said once more (row_keys.py)
    checkpoint = key.sign(fields)
    with db.transaction() as cur:
        cur.execute(
            "INSERT INTO checkpoints (made_at, row_id, body) VALUES (?, ?, ?)",
            (checkpoint["made_at"], checkpoint["id"], json.dumps(checkpoint, sort_keys=True)),
        )
    return checkpoint


def last(db: Database) -> dict[str, Any] | None:
    """The newest checkpoint made on this journal, as kept for the overview."""
    with db.transaction() as cur:
        row = cur.execute(
            "SELECT body FROM checkpoints ORDER BY made_at DESC, row_id DESC LIMIT 1"
        ).one()
    return json.loads(row["body"]) if row else None


def text(checkpoint: dict[str, Any]) -> str:
    """The checkpoint as the director prints or notes it down."""
    return (
        f"Journal checkpoint made {checkpoint['made_at']}\n"
        f"Row {checkpoint['id']} {checkpoint['row_hash']}\n"
        f"Journal {checkpoint['journal']}, key {checkpoint['key']}\n"
        f"Signature {checkpoint['signature']}\n"
        f"To note by hand: row {checkpoint['id']} {checkpoint['row_hash'][:16]}\n"
    )


@dataclass(frozen=True)
class Witnessed:
    """A row a checkpoint vouches for: its id and hash (or the hash's first digits)."""

    id: int
    row_hash: str
    signed: bool
    source: str


def read(content: str, source: str, public: Ed25519PublicKey, current_journal: str) -> Witnessed:
    """A checkpoint from a file: `checkpoint --json` output (its signature must verify), or a
    line noted by hand, `row ID HASH` (the hash or at least its first 8 hex digits)."""
    stripped = content.strip()
    if stripped.startswith("{"):
        try:
            data = json.loads(stripped)
        except ValueError:
            raise CheckpointError(f"{source}: not a checkpoint (unreadable JSON).") from None
        return _signed(data, source, public, current_journal)
    match = _NOTED.search(stripped)
    if not match:
        raise CheckpointError(
            f"{source}: not a checkpoint: give `journal checkpoint --json` output, or a line "
            "'row ID HASH' as noted from the printed checkpoint."
        )
    return Witnessed(int(match.group(1)), match.group(2).lower(), False, source)


def _signed(data: Any, source: str, public: Ed25519PublicKey, current_journal: str) -> Witnessed:
    if not isinstance(data, dict) or data.get("type") != "checkpoint":
        raise CheckpointError(f'{source}: not a checkpoint (no "type": "checkpoint").')
    row_id, row_hash = data.get("id"), data.get("row_hash")
    if isinstance(row_id, bool) or not isinstance(row_id, int) or not isinstance(row_hash, str):
        raise CheckpointError(f"{source}: not a checkpoint (no id and row_hash).")
    if not signature_ok(data, public):
        raise CheckpointError(
            f"{source}: the checkpoint's signature does not verify with this hall's key: "
            "it was edited, forged, or made by another hall."
        )
    if current_journal and data.get("journal") != current_journal:
        raise CheckpointError(
            f"{source}: the checkpoint was made on another journal (id {data.get('journal')}), "
            f"not this one ({current_journal}): the journal was replaced."
        )
    return Witnessed(row_id, row_hash, True, source)
