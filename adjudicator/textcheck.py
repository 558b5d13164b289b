"""The one check for text a person sets: names, titles, descriptions, reasons, table numbers.

Such text is shown on kiosks, pages, terminals and exports, so it must show what it says:
no control characters (NUL, ANSI escapes, line breaks), no invisible formatting characters
(bidi overrides such as U+202E, which make "Spring\u202e(LWN) nepO" display as "Spring Open
(NWL)"; zero-width characters), no surrogates, private-use or unassigned code points, and a
length cap.
"""

from __future__ import annotations

import re
import unicodedata

from adjudicator.errors import AdjudicatorError

# Unicode categories refused: Cc control, Cf format (bidi, zero-width), Cs surrogate,
# Co private use, Cn unassigned, Zl line separator, Zp paragraph separator.
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})

TITLE_MAX = 100
DESCRIPTION_MAX = 200
REASON_MAX = 500


class TextError(AdjudicatorError):
    """A name, title or reason holds characters that would not show as typed, or is too long."""


def check_text(value: object, what: str, max_length: int, *, required: bool = False) -> str:
    """`value` stripped of surrounding spaces, or TextError naming `what` and the problem."""
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise TextError(f"The {what} must be text.")
    text = value.strip()
    bad = next((char for char in text if unicodedata.category(char) in _REFUSED_CATEGORIES), None)
    if bad is not None:
        raise TextError(
            f"The {what} holds an invisible or control character (U+{ord(bad):04X}"
            f"{_char_name(bad)}): type it again with letters, digits, spaces and punctuation only."
        )
    if len(text) > max_length:
        raise TextError(f"The {what} is {len(text)} characters long: use at most {max_length}.")
    if required and not text:
        raise TextError(f"Give the {what}.")
    return text


def check_name(
    value: str,
    what: str,
    max_length: int,
    pattern: re.Pattern[str],
    shape: str,
    error: type[AdjudicatorError],
) -> str:
    """`value` if it is text (check_text) of the whole `pattern`; else `error` saying
    "Invalid {what}" and, for a value of another shape, `shape` (what to type instead)."""
    try:
        check_text(value, what, max_length)
    except TextError as exc:
        raise error(f"Invalid {what}: {exc}") from None
    if not pattern.fullmatch(value or ""):
        raise error(f"Invalid {what} {value!r}: {shape}")
    return value


def _char_name(char: str) -> str:
    name = unicodedata.name(char, "")
    return f" {name}" if name else ""
