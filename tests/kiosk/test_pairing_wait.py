"""The pairing page's "try again in ..." wait, said in each language (a 429, never a 500: a
`num=` keyword to Flask-Babel's ngettext once made every throttled pairing answer 500)."""

from __future__ import annotations

import pytest

from kiosk import pages
from kiosk.i18n import speak

WAITS = {
    "en": ("1 second", "45 seconds", "3 minutes"),
    "pl": ("1 sekundę", "45 sekund", "3 minuty"),
    "fr": ("1 seconde", "45 secondes", "3 minutes"),
}


@pytest.mark.parametrize("language", sorted(WAITS))
def test_the_wait_is_said_in_the_pages_language(app, language):
    with app.test_request_context("/pair"):
        speak(language)
        said = tuple(pages._duration(seconds) for seconds in (1, 45, 150))
    assert said == WAITS[language]
