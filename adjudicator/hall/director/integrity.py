"""What the director's overview says about the record's integrity, in one place.

The journal's health (lost, cannot write), kiosks' witness alarms, the last checkpoint, lexicons
out of service, the signing key's id and the journal's copies other users can read (on a file
system with no permissions): read together so any page can present them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from adjudicator.hall.hall import Hall
from adjudicator.record.copies import background_check, file_modes, markers
from adjudicator.record.copies.mirror import MirroredDatabase
from adjudicator.record.database.db import DatabaseUnavailable
from adjudicator.record.database.journal_health import Health
from adjudicator.record.journal.receipt_key import ReceiptKeyError
from adjudicator.record.proofs import checkpoints, witnesses


@dataclass(frozen=True)
class Integrity:
    """The overview's integrity section; `problems` lists what needs the director now."""

    journal: Health
    alarms: list[witnesses.Alarm] = field(default_factory=list)
    last_checkpoint: dict[str, Any] | None = None
    lexicons_out_of_service: dict[str, str] = field(default_factory=dict)
    key_id: str = ""
    unreadable: list[str] = field(default_factory=list)  # parts that could not be read now
    readable_copies: list[str] = field(default_factory=list)  # journal files others can read
    forged_markers: dict[str, str] = field(default_factory=dict)  # marker -> copy it names
    copies_verified_at: str | None = None  # a mirrored journal: both copies verified in full

    @property
    def warnings(self) -> list[str]:
        """What the director should look into, though judging goes on unchanged."""
        return [markers.forged_warning(m, names) for m, names in self.forged_markers.items()]

    @property
    def problems(self) -> list[str]:
        found = [] if self.journal.state == "ok" else [self.journal.detail]
        found += [
            f"Kiosk {a.kiosk} holds a signed receipt for row {a.row_id} that the journal does "
            f"not bear out: {a.problem}."
            for a in self.alarms
        ]
        found += [
            f"Lexicon {name} is out of service: {reason}"
            for name, reason in self.lexicons_out_of_service.items()
        ]
        return found + self.unreadable + self.warnings


def overview(hall: Hall) -> Integrity:
    """Everything the director should know about the record now (reads only)."""
    unreadable = []
    alarms: list[witnesses.Alarm] = []
    last = None
    key_id = ""
    try:
        alarms = witnesses.alarms(hall.db)
        last = checkpoints.last(hall.db)
    except DatabaseUnavailable as exc:
        unreadable.append(f"Alarms and checkpoints cannot be read: {exc}")
    try:
        key_id = hall.signing_key().id
    except ReceiptKeyError as exc:
        unreadable.append(str(exc))
    journal = hall.journal_health()
    return Integrity(
        journal=journal,
        alarms=alarms,
        last_checkpoint=last,
        lexicons_out_of_service=hall.store.out_of_service(),
        key_id=key_id,
        unreadable=unreadable,
        readable_copies=file_modes.readable_copies(hall.db),
        forged_markers=dict(getattr(hall.db, "forged_markers", {})),
        copies_verified_at=background_check.last_verified(hall.db)
        if isinstance(hall.db, MirroredDatabase)
        else None,
    )
