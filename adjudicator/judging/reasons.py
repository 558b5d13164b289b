"""The reason a director or judge gives for a ruling or a void: short, printable, recorded."""

from __future__ import annotations

from adjudicator.errors import AdjudicatorError
from adjudicator.textcheck import TextError, check_text

MIN_REASON, MAX_REASON = 3, 500


class ReasonRequired(AdjudicatorError):
    """A ruling or void came without a usable reason."""


def check_reason(reason: str | None, what: str) -> str:
    """`reason` with its spaces collapsed (line breaks typed in a box become spaces):
    MIN_REASON to MAX_REASON characters, none of them invisible (textcheck.py)."""
    text = " ".join((reason or "").split())
    try:
        check_text(text, "reason", MAX_REASON)
        problem = ""
    except TextError as exc:
        problem = f" {exc}"
    if problem or len(text) < MIN_REASON:
        raise ReasonRequired(
            f"Give the reason for the {what} ({MIN_REASON} to {MAX_REASON} characters); "
            f"it is recorded in the journal.{problem}"
        )
    return text
