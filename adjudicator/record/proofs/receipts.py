"""Signed receipts: what a kiosk, a player's docket or an API client keeps of each verdict.

A receipt names the journal row (its id and hash, which chains every row before it), the
verdict and the words, and is signed by the hall's key (receipt_key). Held outside the journal,
receipts are witnesses: a journal rewritten by someone who can write its database, even with
the chain recomputed, no longer holds the rows its receipts name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from adjudicator.errors import AdjudicatorError
from adjudicator.record.database.db import Database
from adjudicator.record.journal import journal
from adjudicator.record.journal.receipt_key import SigningKey, signature_ok

# The row's fields a receipt repeats, so a receipt alone says what the player was shown.
ROW_FIELDS = ("kind", "tournament", "kiosk", "verdict", "recorded_at")
_HASH = re.compile(r"[0-9a-f]{64}")


class ReceiptError(AdjudicatorError):
    """Something offered as a receipt is not one."""


def issue(
    key: SigningKey, entry: journal.Entry, journal_id: str | None, keyed_from: int | None = None
) -> dict[str, Any]:
    """The signed receipt of a journal row; `keyed_from`, the journal's first keyed row, is
    repeated in it (row_keys.py: a copy stripped of its keyed hashes still contradicts it)."""
    fields: dict[str, Any] = {
        "type": "receipt",
        "id": entry.id,
        "row_hash": entry.row_hash,
        "journal": journal_id or "",
        **{name: getattr(entry, name) for name in ROW_FIELDS},
        "words": list(entry.words),
        "key": key.id,
    }
    if keyed_from is not None:
        fields["keyed_from"] = keyed_from
    return key.sign(fields)


def code(receipt: dict[str, Any]) -> str:
    """The short code a kiosk shows: the row hash's first 8 hex digits, as ABCD-1234."""
    head = str(receipt.get("row_hash", ""))[:8].upper()
    return f"{head[:4]}-{head[4:]}"


def qr_svg(receipt: dict[str, Any]) -> bytes:
    """The whole receipt as a QR code (SVG, sized by its viewBox), for the player's docket."""
    import io

    import segno

    text = json.dumps(receipt, sort_keys=True, separators=(",", ":"))
    drawn = io.BytesIO()
    segno.make(text, error="m").save(drawn, kind="svg", scale=4, omitsize=True)
    return drawn.getvalue()


def parse(value: Any) -> dict[str, Any]:
    """A receipt from a JSON value: the receipt itself, or a 201 answer that carries one."""
    if isinstance(value, dict) and isinstance(value.get("receipt"), dict):
        value = value["receipt"]
    if not isinstance(value, dict):
        raise ReceiptError("not a receipt: expected a JSON object with id, row_hash, signature")
    if value.get("type", "receipt") != "receipt":
        raise ReceiptError(f"not a receipt but a {value.get('type')!r}")
    row_id = value.get("id")
    if isinstance(row_id, bool) or not isinstance(row_id, int):
        raise ReceiptError("not a receipt: its id is not a whole number")
    if not isinstance(value.get("row_hash"), str) or not _HASH.fullmatch(value["row_hash"]):
        raise ReceiptError("not a receipt: its row_hash is not 64 hex digits")
    if not isinstance(value.get("signature"), str):
        raise ReceiptError("not a receipt: it has no signature")
    return value


@dataclass(frozen=True)
class Line:
    """One line of a receipts file: its number, and the receipt or why it is not one."""

    number: int
    receipt: dict[str, Any] | None
    error: str = ""


class _DuplicateKey(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for name, value in pairs:
        if name in seen:
            raise _DuplicateKey(name)
        seen[name] = value
    return seen


def read_lines(lines: Iterable[str]) -> Iterator[Line]:
    """Receipts, one JSON object a line (blank lines skipped); each bad line says why. A line
    that names a key twice is refused, never read as its last value."""
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            yield Line(number, parse(json.loads(text, object_pairs_hook=_no_duplicates)))
        except _DuplicateKey as exc:
            yield Line(number, None, f"not a receipt: it names the key {str(exc)!r} twice")
        except ValueError:
            yield Line(number, None, "not JSON")
        except ReceiptError as exc:
            yield Line(number, None, str(exc))


def describe(receipt: dict[str, Any]) -> str:
    """How a report names a receipt: its row, kiosk and time."""
    parts = [f"row {receipt.get('id')}"]
    if receipt.get("kiosk"):
        parts.append(f"kiosk {receipt['kiosk']}")
    if receipt.get("recorded_at"):
        parts.append(str(receipt["recorded_at"]))
    return ", ".join(parts)


def problem(
    db: Database, receipt: dict[str, Any], public: Ed25519PublicKey, journal_id: str | None
) -> str | None:
    """Why the journal does not bear this receipt out, or None if it does."""
    if not signature_ok(receipt, public):
        return (
            "its signature does not verify with this hall's key (forged, edited, or another hall's)"
        )
    return journal_problem(db, receipt, journal_id)


def journal_problem(db: Database, receipt: dict[str, Any], journal_id: str | None) -> str | None:
    """Why the journal does not hold the row this (verified) receipt names, or None."""
    if journal_id and receipt.get("journal") not in (journal_id, None):
        return "it was issued by another journal, not this one (the journal was replaced?)"
    row_id = receipt["id"]
    entry = journal.get(db, row_id)
    if entry is None:
        return f"the journal has no row {row_id} (removed or cut off the end)"
    if entry.row_hash != receipt["row_hash"] or entry.compute_hash() != entry.row_hash:
        return f"the journal's row {row_id} is not the row the receipt was issued for"
    if list(entry.words) != receipt.get("words", list(entry.words)) or any(
        receipt.get(name, getattr(entry, name)) != getattr(entry, name) for name in ROW_FIELDS
    ):
        return f"the receipt does not describe the journal's row {row_id}"
    return None
