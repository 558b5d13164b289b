"""The signed takeover statement: which laptop serves this journal since a takeover.

`adjudicator kit open` on a second laptop records, beside each copy of the journal
(`journal.sqlite3.takeover`, on the laptop's disk and on the USB stick) and inside each copy
(table `journal_takeovers`), a statement signed with the hall's key: the journal was taken over
at row N (its hash), by the data home with this install id (its host name shown), at this time,
the takeover's number `seq` (one more than the last one on the stick). It takes no journal
number. A laptop that finds, beside or inside any copy it could serve, a newer statement by
another install does not judge: it refuses to start, naming the laptop that took over (its host
name and install id) and when, until its own `kit open` takes the journal back. A statement the
hall's key did not sign counts for nothing.

The statement is not the only proof: rows another laptop wrote past this laptop's own prove the
takeover by themselves (written_after.py), so deleting or editing the statement on the stick
changes nothing once the other laptop has judged.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from adjudicator.durable import read_regular, write_whole
from adjudicator.record.copies import standing, written_after
from adjudicator.record.database.db import DatabaseUnavailable
from adjudicator.record.journal import row_keys, writer
from adjudicator.record.journal.receipt_key import SigningKey, signature_ok

TYPE = "takeover"
SUFFIX = ".takeover"
MOST_BYTES = 8192
INSERT_SQL = "INSERT INTO journal_takeovers (seq, statement) VALUES (?, ?)"
READ_SQL = "SELECT statement FROM journal_takeovers ORDER BY seq DESC LIMIT 8"


class TakenOver(DatabaseUnavailable):
    """Another laptop took this journal over: this one does not judge (nor write to it)."""


def install_id(create: bool = True) -> str | None:
    """This data home's install id: who a takeover statement names (journal/writer.py)."""
    return writer.install_id(create)


def host_name() -> str:
    return writer.host_name()


def beside(copy_path: str) -> Path:
    return Path(str(copy_path) + SUFFIX)


def statement(
    key: SigningKey, journal_id: str, row: int, row_hash: str, install: str, seq: int
) -> dict[str, Any]:
    """The key's signed statement that `install` took journal `journal_id` over at `row`."""
    return key.sign(
        {
            "type": TYPE,
            "journal": journal_id,
            "row": row,
            "row_hash": row_hash,
            "install": install,
            "host": host_name(),
            "at": datetime.now(UTC).isoformat(timespec="seconds"),
            "seq": seq,
        }
    )


def write(copies: Iterable[str], signed: dict[str, Any]) -> None:
    """Keep the statement beside each copy (written whole, synced, then renamed) and inside it
    (where its schema has the table: a start brings an older one up to date)."""
    body = json.dumps(signed, sort_keys=True)
    for copy in copies:
        write_whole(beside(copy), body.encode("utf-8"))
        try:
            connection = sqlite3.connect(f"file:{quote(str(copy))}?mode=rw", uri=True, timeout=10)
        except sqlite3.Error:
            continue
        try:
            connection.execute("PRAGMA synchronous=FULL")
            with connection:
                connection.execute(INSERT_SQL, (signed["seq"], body))
        except sqlite3.Error:
            pass  # an older schema: the side file says it until the copy is upgraded
        finally:
            connection.close()


def read(path: Path, public: Ed25519PublicKey | None) -> dict[str, Any] | None:
    """The statement in `path` if the hall's key signed it."""
    try:
        raw = read_regular(path, MOST_BYTES).decode("utf-8")  # a FIFO: refused
    except (OSError, UnicodeDecodeError):
        return None
    return parse(raw, public)


def parse(raw: str, public: Ed25519PublicKey | None) -> dict[str, Any] | None:
    """The statement in `raw` (JSON) if the hall's key signed it."""
    try:
        found = json.loads(raw)
    except ValueError:
        return None
    if public is None or not isinstance(found, dict) or found.get("type") != TYPE:
        return None
    if not isinstance(found.get("seq"), int) or not signature_ok(found, public):
        return None
    return found


def kept_inside(copy: str, public: Ed25519PublicKey | None) -> list[dict[str, Any]]:
    """The signed statements kept inside the copy's file (none where it has none, or no such
    file: nothing is made)."""
    if public is None or not Path(copy).is_file():
        return []
    try:
        connection = standing.open_to_read(copy)
    except sqlite3.Error:
        return []
    try:
        rows = connection.execute(READ_SQL).fetchall()
    except sqlite3.Error:
        rows = []  # an older schema
    finally:
        connection.close()
    found = [parse(str(row[0])[:MOST_BYTES], public) for row in rows]
    return [each for each in found if each is not None]


def newest(copies: Iterable[str], public: Ed25519PublicKey | None) -> dict[str, Any] | None:
    """The newest signed statement beside or inside any of `copies` (the highest `seq`)."""
    signed = []
    for copy in copies:
        found = read(beside(copy), public)
        signed += ([found] if found is not None else []) + kept_inside(copy, public)
    return max(signed, key=lambda each: (each["seq"], str(each.get("at", "")))) if signed else None


def refuse_if_taken_over(
    copies: Sequence[str], key: SigningKey | None, install: str | None
) -> dict[str, Any] | None:
    """Raise TakenOver if another laptop took the journal over, as the copies show it: the
    newest statement names another install, or a copy holds rows past this laptop's own copy
    (`copies[0]`) that another install wrote or that do not prove themselves (written_after).
    Else the newest statement, if any. Reads only."""
    public = key.public if key is not None else None
    latest = newest(copies, public)
    if latest is not None and latest.get("install") != install:
        raise TakenOver(refusal(latest))
    if not copies:
        return latest
    own = copies[0]
    after = latest.get("row") if latest is not None else 0  # where this laptop took it over
    after = after if isinstance(after, int) and after >= 0 else 0
    secret = row_keys.secret(key) if key is not None else None
    journal_id = standing.head(own).journal_id
    for other in copies[1:]:
        found = written_after.first_foreign(own, other, install, journal_id, secret, after)
        if found is not None:
            raise TakenOver(rows_refusal(found, newest([other], public)))
    return latest


def laptop_of(latest: dict[str, Any]) -> str:
    """The laptop a statement names, by host name and install id."""
    return writer.laptop(str(latest.get("install", "")), str(latest.get("host", "")) or None)


def refusal(latest: dict[str, Any]) -> str:
    """What a laptop that was taken over tells the director."""
    return (
        f"THIS HALL WAS TAKEN OVER: the laptop {laptop_of(latest)} ran `adjudicator kit open` "
        f"at {str(latest.get('at', ''))[:19].replace('T', ' ')} UTC, after row "
        f"{latest.get('row')}, and judges from then on. This laptop "
        f"({writer.this_laptop_if_known()}) does not judge: two laptops must never issue the "
        f"same numbers. Leave the USB stick with {laptop_of(latest)}. {TAKE_BACK}"
    )


def rows_refusal(found: written_after.Foreign, statement: dict[str, Any] | None) -> str:
    """What a laptop tells the director when the journal's own rows show another laptop
    judged after it (the statement on the stick, if one is left, names that laptop)."""
    who = (
        laptop_of(statement)
        if statement is not None and found.install and statement.get("install") == found.install
        else writer.laptop(found.install)
        if found.install
        else "another laptop, or someone who changed the stick"
    )
    return (
        f"THIS HALL WAS TAKEN OVER: the journal on {found.path} goes on past this laptop's own "
        f"rows (they share rows 1 to {found.shared}), and {found.what()}: {who} judged the "
        f"hall after this laptop did. This laptop ({writer.this_laptop_if_known()}) does not "
        "judge: two laptops must never issue the same numbers. Deleting or editing a file on "
        f"the stick does not change this: the rows themselves say it. {TAKE_BACK}"
    )


TAKE_BACK = (
    "To judge on this laptop again (only once the other has stopped for good), run "
    "`adjudicator kit open DIR` here, with the stick."
)
