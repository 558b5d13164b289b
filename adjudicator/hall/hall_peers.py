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

A laptop that took the hall over serves on while the first one may come back (it froze, and
resumed): each note and each answer carries the newest takeover statement the laptop holds
(record/copies/learned_takeover.py), and `heed` makes the laptop told, or answered, stop judging
at once when the statement shows it was taken over (the refusal a restart gives). One whose
USB stick left it while it served, and that hears another laptop of the hall judging (or not
answering) without such a statement, holds itself too (kind "another-laptop"): the stick gone
and another laptop serving the hall with its key is what a takeover looks like, and a wrong
guess costs one `journal confirm-alone`, where two laptops judging would issue one number twice.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from adjudicator.errors import AdjudicatorError
from adjudicator.hall.network import peers
from adjudicator.record.copies import learned_takeover
from adjudicator.record.database.db import DatabaseUnavailable
from adjudicator.record.journal import journal_holds, writer
from adjudicator.record.journal.receipt_key import SigningKey, signature_ok

log = logging.getLogger("adjudicator.hall.peers")

NOTE = "hall-peer"
ANSWER = "hall-peer-answer"
MOST_SKEW = timedelta(minutes=10)  # two laptops' clocks, and a note's way across the hall


class NoteRefused(AdjudicatorError):
    """A note that is not one of this hall's laptops wrote, now."""


def note(
    key: SigningKey, name: str, port: int, judging: bool, statement: dict | None = None
) -> dict[str, Any]:
    """What this laptop tells another of the hall's laptops, signed (with `statement`, the
    newest takeover statement it holds, if any: learned_takeover.to_tell)."""
    fields = {
        "type": NOTE,
        "name": name,
        "port": port,
        "install": writer.install_id(create=False) or "",
        "host": writer.host_name(),
        "judging": judging,
        "at": _now(),
        "nonce": secrets.token_hex(8),
    }
    return key.sign({**fields, "takeover": statement} if statement else fields)


def receive(db, key: SigningKey, body: Any, address: str, judging: Callable[[], bool]):
    """Check a note another laptop sent from `address`, keep it (logged the first time that
    laptop is heard), heed it (it may show this laptop was taken over), and answer, signed,
    whether this laptop judges now, with the newest takeover statement it holds."""
    _check(key, body, NOTE)
    heed(db, key, address, body)
    return _answer(key, body, address, judging(), learned_takeover.to_tell(db, key))


def _answer(
    key: SigningKey, body: dict[str, Any], address: str, judging: bool, statement: dict | None
) -> dict[str, Any]:
    laptop = writer.laptop(str(body.get("install", "")), str(body.get("host", "")) or None)
    if peers.heard(address, str(body.get("install", "")), str(body.get("host", "")),
                   body.get("judging") is True):  # fmt: skip
        log.warning("WARNING: %s", told_text(address, laptop, body.get("judging") is True))
    fields = {
        "type": ANSWER,
        "nonce": str(body.get("nonce", "")),
        "install": writer.install_id(create=False) or "",
        "host": writer.host_name(),
        "judging": judging,
        "at": _now(),
    }
    return key.sign({**fields, "takeover": statement} if statement else fields)


def heed(db, key: SigningKey, address: str, told: dict[str, Any] | None) -> str | None:
    """What another laptop of the hall told this one (its checked note, or its answer to this
    one's; None: it did not answer) changes whether this one judges (see the module's
    docstring)? The hold's text, the first time this laptop holds itself for it; else None."""
    statement = told.get("takeover") if told is not None else None
    refusal = learned_takeover.heed(db, key, statement)
    if refusal is not None:
        return refusal
    if told is not None and told.get("judging") is not True:
        return None  # it does not judge: the laptop that judged first (this one) judges on
    try:
        if journal_holds.current(db) is not None or not learned_takeover.stick_left(db):
            return None  # held already (for this, or anything else), or the stick is here
    except DatabaseUnavailable:
        return None  # a journal that cannot be read judges nothing either
    laptop = (
        writer.laptop(str(told.get("install", "")), str(told.get("host", "")) or None)
        if told is not None
        else "that laptop"
    )
    doing = "judges" if told is not None else "did not answer this one's note"
    detail = (
        f"The USB stick this journal is mirrored to has left this laptop, and another laptop "
        f"of this hall, {laptop} at {address}, serves the hall with its key and certificate "
        f"authority and {doing}: it may have taken the hall over with the kit, so this laptop "
        "does not judge (two laptops must never issue the same numbers). Leave the hall to "
        "that laptop. If it did not take the hall over, and has stopped for good, run "
        "`adjudicator journal confirm-alone --reason TEXT` here."
    )
    try:
        news = journal_holds.hold(db, journal_holds.ANOTHER_LAPTOP, detail)
    except DatabaseUnavailable:
        return None  # a journal that cannot be written judges nothing either
    return detail if news else None


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
