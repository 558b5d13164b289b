"""The reason a director or judge gives for a ruling or a void: short, printable, recorded."""

from __future__ import annotations

from adjudicator.errors import AdjudicatorError

MIN_REASON, MAX_REASON = 3, 500


class ReasonRequired(AdjudicatorError):
    """A ruling or void came without a usable reason."""


def check_reason(reason: str | None, what: str) -> str:
    """`reason` with its spaces collapsed: MIN_REASON to MAX_REASON printable characters."""
    text = " ".join((reason or "").split())
    if not MIN_REASON <= len(text) <= MAX_REASON or not text.isprintable():
        raise ReasonRequired(
            f"Give the reason for the {what} ({MIN_REASON} to {MAX_REASON} characters); "
            "it is recorded in the journal."
        )
    return text
