"""Counts and times as people read them: right plurals, and one time form for every locale.

Times are shown and typed as `2024-05-01 14:03` (UTC, 24-hour, year first): no browser's or
country's date format, so a director in any hall reads and types the same thing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

TYPE_CHECKING = False  # the typing module costs `adjudicator judge` ms to import
if TYPE_CHECKING:
    from typing import Any

TIME_FORM = "YYYY-MM-DD HH:MM"
TIME_EXAMPLE = "2024-05-01 14:00"
_DIGITS = re.compile(r"([0-9]+)")


def plural(count: int, noun: str, plural_noun: str | None = None) -> str:
    """'1 kiosk', '2 kiosks', '1,204 rows' ('second opinion' -> 'second opinions')."""
    word = noun if count == 1 else (plural_noun or noun + "s")
    return f"{count:,} {word}"


def natural_key(name: str) -> tuple:
    """A sort key that reads the numbers in a name as numbers: 'table 2' before 'table 10'
    (then case-blind, and the name itself to break ties)."""
    parts = _DIGITS.split(name)  # text, number, text, number, ..., text
    return (
        tuple(int(part) if index % 2 else part.casefold() for index, part in enumerate(parts)),
        name,
    )


def utc_time(iso: str | None, seconds: bool = True) -> str:
    """An ISO time from the journal as '2024-05-01 14:03:22' (UTC); '' for none."""
    if not iso:
        return ""
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        return iso
    return moment.strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")


# --- messages a web page translates (kiosk/i18n.py) --------------------------------------------


def N_(text: str) -> str:
    """Mark `text` as a message for the catalogues; it is translated where it is shown."""
    return text


def NP_(singular: str, plural: str) -> tuple[str, str]:
    """Mark a message with a plural form for the catalogues."""
    return singular, plural


@dataclass(frozen=True)
class Phrase:
    """A message: its English msgid (and plural, chosen by `n`), and its named fields."""

    msgid: str
    plural: str | None = None
    n: int = 1
    fields: tuple[tuple[str, Any], ...] = ()

    def render(self, gettext, ngettext, number=str) -> str:
        """The phrase in the language of `gettext` and `ngettext` (English: the identity), its
        whole numbers written by `number` (the language's digit grouping); a field that is
        itself a Phrase (an alphabet's name) is said in the same language."""
        text = ngettext(self.msgid, self.plural, self.n) if self.plural else gettext(self.msgid)
        if not self.fields:
            return text
        return text.format(
            **{name: _said(value, gettext, ngettext, number) for name, value in self.fields}
        )

    @classmethod
    def of(cls, msgid: str, **fields: Any) -> Phrase:
        return cls(msgid, fields=tuple(fields.items()))

    @classmethod
    def counted(cls, marked: tuple[str, str], n: int, **fields: Any) -> Phrase:
        return cls(marked[0], marked[1], n, (("n", n), *fields.items()))


def _said(value: Any, gettext, ngettext, number) -> Any:
    """A phrase's field as the phrase says it."""
    if isinstance(value, Phrase):
        return value.render(gettext, ngettext, number)
    if isinstance(value, int) and not isinstance(value, bool):
        return number(value)
    return value
