"""Template filters for the staff pages: right plurals, the one time form (wording.py), and
whether a tournament's edition was in force on its date (tournaments.edition_warning)."""

from __future__ import annotations

import re

from flask import Flask
from markupsafe import Markup, escape

from adjudicator import wording
from adjudicator.hall.sheet_page import fingerprint_html
from adjudicator.hall.tournaments import edition_warning
from adjudicator.judging.rulebooks import RULEBOOKS


def init_app(app: Flask) -> None:
    """`{{ n|plural("kiosk") }}` -> '2 kiosks'; `{{ iso|utc }}` -> '2024-05-01 14:03:22'."""
    app.add_template_filter(wording.plural, "plural")
    app.add_template_filter(wording.utc_time, "utc")
    app.add_template_filter(code, "code")
    app.add_template_filter(commands, "commands")
    app.add_template_filter(fingerprint, "fingerprint")
    app.add_template_filter(edition_warning, "edition_warning")  # `{{ t|edition_warning }}`
    app.jinja_env.globals.update(rulebooks=RULEBOOKS)
    app.jinja_env.globals.update(time_form=wording.TIME_FORM, time_example=wording.TIME_EXAMPLE)


def code(text: str) -> Markup:
    """`{{ "adjudicator kiosk add"|code }}`: a command inside a translated sentence, escaped."""
    return Markup("<code>{}</code>").format(text)


_BACKTICKED = re.compile(r"`([^`]+)`")


def commands(text: str) -> Markup:
    """`{{ say(phrase)|commands }}`: a message of the library, which names each command in
    backticks for the terminal, on a page: escaped, each `command` shown as code."""
    return Markup(_BACKTICKED.sub(r"<code>\1</code>", str(escape(text))))


def fingerprint(value: str) -> Markup:
    """`{{ ca|fingerprint }}`: eight groups of four pairs on two lines, as the terminal and the
    printed sheet show them; a narrow screen breaks only between groups."""
    return Markup(fingerprint_html(value))
