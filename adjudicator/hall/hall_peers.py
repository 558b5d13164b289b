"""Two laptops of one hall hear each other: the note one sends the other, signed with the hall's
key, checked where it arrives, and what the laptop that sent it does with the answer.

A laptop that hears another answer for the hall's name with the hall's CA (network/
hall_process.py) sends it `note(...)` (network/peers.py carries it). The laptop told checks it
(`receive`: signed with this hall's own key, of a recent time), keeps it for /healthz, the
overview and the log, and answers, signed too, whether it judges now. Only a laptop with the
hall's key can make either: a player on the Wi-Fi can neither raise the warning nor silence it.
The laptop that judged first keeps judging: one that hears, as it starts, another that judges
does not start judging (`hold_for`: held in its journal, kind "another-laptop", until the
director runs `adjudicator journal confirm-alone --reason TEXT` there).
"""

from __future__ import annotations

import logging
import secrets
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from adjudicator.errors import AdjudicatorError
from adjudicator.hall.network import peers
from adjudicator.record.database.db import DatabaseUnavailable
from adjudicator.record.journal import journal_holds, writer
from adjudicator.record.journal.receipt_key import SigningKey, signature_ok

log = logging.getLogger("adjudicator.hall.peers")

NOTE = "hall-peer"
ANSWER = "hall-peer-answer"
MOST_SKEW = timedelta(minutes=10)  # two laptops' clocks, and a note's way across the hall


class NoteRefused(AdjudicatorError):
    """A note that is not one of this hall's laptops wrote, now."""


def note(key: SigningKey, name: str, port: int, judging: bool) -> dict[str, Any]:
    """What this laptop tells another of the hall's laptops, signed."""
    return key.sign(
        {
            "type": NOTE,
            "name": name,
            "port": port,
            "install": writer.install_id(create=False) or "",
            "host": writer.host_name(),
            "judging": judging,
            "at": _now(),
            "nonce": secrets.token_hex(8),
        }
    )


def receive(key: SigningKey, body: Any, address: str, judging: bool) -> dict[str, Any]:
    """Check a note another laptop sent from `address`, keep it (logged the first time that
    laptop is heard), and answer, signed, whether this laptop judges now."""
    _check(key, body, NOTE)
    laptop = writer.laptop(str(body.get("install", "")), str(body.get("host", "")) or None)
    if peers.heard(address, str(body.get("install", "")), str(body.get("host", "")),
                   body.get("judging") is True):  # fmt: skip
        log.warning("WARNING: %s", told_text(address, laptop, body.get("judging") is True))
    return key.sign(
        {
            "type": ANSWER,
            "nonce": str(body.get("nonce", "")),
            "install": writer.install_id(create=False) or "",
            "host": writer.host_name(),
            "judging": judging,
            "at": _now(),
        }
    )


def ask(key: SigningKey, address: str, port: int, ca_cert: Path, sent: dict[str, Any]):
    """Tell the laptop at `address` (`sent`: a `note`); its checked answer, or None."""
    found = peers.tell(address, port, ca_cert, sent)
    if found is None:
        return None
    try:
        _check(key, found, ANSWER)
    except NoteRefused:
        return None
    return found if found.get("nonce") == sent.get("nonce") else None


def _check(key: SigningKey, body: Any, kind: str) -> None:
    if not isinstance(body, dict) or body.get("type") != kind:
        raise NoteRefused("Not a note of this hall's laptops.")
    if not signature_ok(body, key.public):
        raise NoteRefused("The note is not signed with this hall's key.")
    try:
        at = datetime.fromisoformat(str(body.get("at")))
    except ValueError:
        raise NoteRefused("The note has no time.") from None
    if at.tzinfo is None or abs(datetime.now(UTC) - at) > MOST_SKEW:
        raise NoteRefused("The note is not of now.")


def told_text(address: str, laptop: str, judging: bool) -> str:
    """What the laptop told says, in its log."""
    doing = "and judges" if judging else "but does not judge"
    return (
        f"Another laptop, {laptop} at {address}, serves this hall with its own key and "
        f"certificate authority, {doing}: two laptops may be serving this hall, and only one "
        "may judge. Stop the one that should not: a laptop that was taken over judges again "
        "only through its own `adjudicator kit open`."
    )


def hold_for(db, address: str, answer: dict[str, Any]) -> str:
    """This laptop starts while another judges the hall: it does not judge (held in its
    journal until the director confirms it is alone). What the director is told."""
    laptop = writer.laptop(str(answer.get("install", "")), str(answer.get("host", "")) or None)
    detail = (
        f"Another laptop, {laptop} at {address}, serves this hall with its key and certificate "
        "authority, and was judging before this one started: this laptop does not judge (two "
        "laptops must never issue the same numbers). Leave the hall to that laptop, or stop it; "
        "once it has stopped for good, run `adjudicator journal confirm-alone --reason TEXT` "
        "here."
    )
    try:
        journal_holds.hold(db, journal_holds.ANOTHER_LAPTOP, detail)
    except DatabaseUnavailable:
        pass  # a journal that cannot be written judges nothing either
    return detail


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
