"""What `kit open` proved of the journal, so that the start after it need not prove it again.

A takeover walks the chain once: `kit open` walks the stick's copy in full against every signed
statement (hall/kit/stick_copy.py) and copies it to the laptop's disk; it then keeps, beside the
laptop's copy (`journal.sqlite3.proven`), the head it proved (the journal's id, its newest row
and that row's hash), sealed with a MAC only the hall's key can make. The next start
(at_start.py) takes the note (once: it is removed) and, for each copy whose head is that head,
looks up the rows the signed statements name instead of walking the chain again: the same
refusals (a fork, rows missing), at the cost of a few indexed reads. A copy whose head differs,
or a note that does not verify, is walked in full as at every start; the background check
(background_check.py) walks both copies again later, as it always does.
"""

from __future__ import annotations

import hmac
import json
from dataclasses import dataclass
from hashlib import sha256
from pathlib import Path

from adjudicator.durable import read_regular, remove_if_there, write_whole
from adjudicator.record.copies.standing import CopyHead
from adjudicator.record.journal.receipt_key import SigningKey, canonical

SUFFIX = ".proven"
PURPOSE = "journal-proven"  # the derived secret's purpose (no other MAC shares it)
MOST_BYTES = 4096


@dataclass(frozen=True)
class Proven:
    journal: str
    rows: int
    last_hash: str

    def is_head_of(self, head: CopyHead) -> bool:
        """Whether `head` is the copy this note proved (the same journal, row and hash)."""
        return head.exists and (head.journal_id, head.rows, head.last_hash) == (
            self.journal,
            self.rows,
            self.last_hash,
        )


def beside(primary: str) -> Path:
    return Path(primary + SUFFIX)


def keep(key: SigningKey, primary: str, head: CopyHead) -> None:
    """Note, beside the laptop's copy, that the copy with `head` was proven whole."""
    body = {"journal": head.journal_id, "rows": head.rows, "last_hash": head.last_hash}
    write_whole(beside(primary), json.dumps({**body, "mac": _mac(key, body)}).encode("utf-8"))


def take(key: SigningKey, primary: str) -> Proven | None:
    """The note kept beside `primary`, if the hall's key sealed it; removed either way."""
    path = beside(primary)
    try:
        found = json.loads(read_regular(path, MOST_BYTES).decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        found = None
    remove_if_there(path)
    if not isinstance(found, dict):
        return None
    body = {name: found.get(name) for name in ("journal", "rows", "last_hash")}
    mac = found.get("mac")
    if not isinstance(mac, str) or not hmac.compare_digest(mac, _mac(key, body)):
        return None
    if not isinstance(body["journal"], str) or not isinstance(body["rows"], int):
        return None
    return Proven(body["journal"], body["rows"], str(body["last_hash"]))


def _mac(key: SigningKey, body: dict) -> str:
    return hmac.new(key.derived(PURPOSE), canonical(body), sha256).hexdigest()
