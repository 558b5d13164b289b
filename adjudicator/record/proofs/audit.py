"""`journal audit`: hold the journal against receipts kept outside it (kiosks, dockets, API).

Every receipt must carry the hall's signature and name a row the journal still holds with the
same hash and content; the chain itself must verify, since a receipt's row hash vouches for the
rows before it only through the chain.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from adjudicator.record.database.db import Database
from adjudicator.record.journal import journal
from adjudicator.record.proofs import checkpoints, receipts


@dataclass
class AuditResult:
    """How many receipts were checked, which failed and why, and the chain's own check."""

    checked: int = 0
    failures: list[tuple[str, str]] = field(default_factory=list)  # (which receipt, why)
    held: list[str] = field(default_factory=list)  # each receipt the journal holds: what it says
    chain: journal.VerifyResult | None = None

    @property
    def ok(self) -> bool:
        return self.checked > 0 and not self.failures and bool(self.chain and self.chain.ok)


def audit(db: Database, lines: Iterable[str], public: Ed25519PublicKey) -> AuditResult:
    """Check each receipt in `lines` (JSON, one a line) against the journal, then the chain."""
    result = AuditResult()
    journal_id = checkpoints.journal_id(db)
    for line in receipts.read_lines(lines):
        result.checked += 1
        if line.receipt is None:
            result.failures.append((f"line {line.number}", line.error))
            continue
        problem = receipts.problem(db, line.receipt, public, journal_id)
        name = f"line {line.number} ({receipts.describe(line.receipt)})"
        if problem:
            result.failures.append((name, problem))
        else:  # the verdict and words as the signed receipt (and so the journal) holds them
            words = " ".join(str(word) for word in line.receipt.get("words", []))
            result.held.append(f"{name}: {line.receipt.get('verdict')} {words}".rstrip())
    result.chain = journal.verify(db)
    return result
