"""The languages a hall's kiosks speak: one gettext catalogue each under kiosk/translations/.

A tournament's `language` (ARCHITECTURE.md, "Languages") is one of these codes; English needs
no catalogue. A test keeps this list and the shipped catalogues the same.
"""

from __future__ import annotations

from adjudicator.errors import AdjudicatorError

DEFAULT = "en"
LANGUAGES: dict[str, str] = {  # code -> the language's own name, for the switch on a page
    "en": "English",
    "ca": "Català",
    "es": "Español",
    "fr": "Français",
    "pl": "Polski",
}


class UnknownLanguage(AdjudicatorError):
    """A language the kiosk has no catalogue for."""


def check_language(code: str) -> str:
    """`code` when the kiosk speaks it, else UnknownLanguage listing the ones it speaks."""
    code = (code or "").strip().lower()
    if code not in LANGUAGES:
        raise UnknownLanguage(
            f"No kiosk translation for language {code!r}: choose one of "
            f"{', '.join(f'{c} ({name})' for c, name in LANGUAGES.items())}."
        )
    return code
