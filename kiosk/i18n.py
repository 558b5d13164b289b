"""The pages' language: Flask-Babel over the gettext catalogues in kiosk/translations/.

A kiosk speaks its tournament's language (`speak(tournament.language)` before a page or an
answer is made). Any other page (pairing, the director's and the judges' pages) follows the
language chosen with the switch on the page (a cookie), else the browser's Accept-Language
where a catalogue exists, else English. Catalogues: `make translations` extracts the messages
(babel.cfg), updates each language's .po and compiles the .mo files shipped in the package.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlsplit

from babel.support import Translations
from flask import Blueprint, Flask, g, redirect, request
from flask_babel import Babel, format_number, get_locale, get_translations, refresh
from werkzeug.datastructures import LanguageAccept
from werkzeug.http import parse_accept_header

from adjudicator.hall.languages import DEFAULT, LANGUAGES
from adjudicator.judging.rules import Rule, UnknownRule, get_rule
from adjudicator.judging.verdict_wording import rule_phrase, verdict_phrases
from adjudicator.wording import Phrase

TRANSLATIONS = Path(__file__).with_name("translations")
COOKIE = "language"
YEAR = 365 * 24 * 3600
bp = Blueprint("language", __name__)


def init_app(app: Flask) -> None:
    app.config.setdefault("BABEL_DEFAULT_LOCALE", DEFAULT)
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", str(TRANSLATIONS))
    Babel(app, locale_selector=_select)
    app.register_blueprint(bp)
    app.add_template_filter(number, "number")  # `{{ m.words|number }}`: "279 496" in Polish

    @app.context_processor
    def languages() -> dict:
        return {
            "page_language": language,
            "languages": LANGUAGES,
            "say_rule": say_rule,
            "say": say,
            "say_alphabet": say_alphabet,
            "rule_title": rule_title,
        }


def speak(code: str) -> None:
    """Make the rest of this request speak `code` (a tournament's language)."""
    g.language = code if code in LANGUAGES else DEFAULT
    refresh()


def language() -> str:
    """The language this request speaks, such as `pl` (for `<html lang>`)."""
    return str(get_locale() or DEFAULT)


def say(phrase: Phrase, translations=None) -> str:
    """A library phrase in this request's language, its numbers written as the language does."""
    translations = translations or get_translations()
    return phrase.render(translations.gettext, translations.ngettext, number)


def said_in(asked: str, phrase: Phrase) -> str:
    """`phrase` in the language an Accept-Language header asks for (English when none of ours),
    outside any request of the app: what the server in front of it answers by itself (a kiosk
    page sends its own language with every request)."""
    translations = _catalogue(_asked(asked))
    return phrase.render(translations.gettext, translations.ngettext)


@lru_cache(maxsize=len(LANGUAGES) + 1)
def _catalogue(code: str) -> Translations:
    return Translations.load(str(TRANSLATIONS), [code])


def number(value) -> str:
    """A number as this request's language writes it, by Babel: "279,496" in English,
    "279 496" in Polish (a no-break space), "279.496" in Spanish; '' for none."""
    if value is None or value == "":
        return ""
    return format_number(value)


def say_verdict(entry) -> dict[str, str]:
    """A challenge row's verdict word, gloss and consequence, as the kiosk shows them; the same
    row shape in the same language is said once per process (a verdict pays a dict look-up)."""
    spoken = g.get("language") or language()
    key = (entry.verdict, entry.rule, entry.word_count, entry.penalty, entry.consequence)
    return dict(_said(spoken, *key))


@lru_cache(maxsize=4096)
def _said(spoken: str, verdict, rule, word_count, penalty, consequence) -> tuple:
    row = _Row(verdict, rule, word_count, penalty, consequence)
    phrases = verdict_phrases(row)
    translations = get_translations()
    return (
        ("word", say(phrases["word"], translations)),
        ("gloss", say(phrases["gloss"], translations)),
        ("consequence", " ".join(say(p, translations) for p in phrases["consequence"])),
    )


@dataclass(frozen=True)
class _Row:
    """What verdict_phrases reads of a journal row."""

    verdict: str
    rule: str
    word_count: int
    penalty: str | None
    consequence: str

    def penalty_numbers(self):
        return json.loads(self.penalty) if self.penalty else None


def say_rule(rule: Rule) -> str:
    """A rule's title in this request's language."""
    return say(rule_phrase(rule))


def say_description(description: str) -> str:
    """A lexicon's description in this request's language: its translation where the
    catalogue has one (a shipped recipe's), itself in English, else "" (the name says it).
    Said once per process, language and description: a status poll pays a dict look-up."""
    if not description:
        return ""
    return _description(g.get("language") or language(), description)


@lru_cache(maxsize=256)
def _description(spoken: str, description: str) -> str:
    said = get_translations().gettext(description)
    return said if said != description or spoken == DEFAULT else ""


def say_alphabet(alphabet) -> str:
    """An alphabet's name in this request's language ("français"; a federation's own title, or
    its name, as its file gives it)."""
    return say(Phrase(alphabet.shown_name))


def rule_title(name: str) -> str:
    """The title of the rule called `name` in this request's language (the name itself if no
    rule has it: a page never fails over an old row)."""
    try:
        return say_rule(get_rule(name))
    except UnknownRule:
        return name


def speak_as_asked() -> None:
    """Speak the language the request asks for (the kiosk page sends its own as
    Accept-Language), else English: an API answer never depends on a staff cookie."""
    speak(_asked(request.headers.get("Accept-Language", "")))


@lru_cache(maxsize=256)
def _asked(header: str) -> str:
    """The language an Accept-Language header asks for, of ours, else English: read once per
    process and header (a kiosk page sends the same one with every challenge)."""
    asked = parse_accept_header(header, LanguageAccept).best_match(list(LANGUAGES), DEFAULT)
    return asked or DEFAULT


def _select() -> str:
    chosen = g.get("language")
    if chosen:
        return chosen
    cookie = request.cookies.get(COOKIE, "")
    if cookie in LANGUAGES:
        return cookie
    return request.accept_languages.best_match(list(LANGUAGES), default=DEFAULT) or DEFAULT


@bp.get("/language/<code>")
def switch(code: str):
    """The switch on the staff pages: remember the language, go back to the page."""
    back = request.args.get("next", "/")
    parts = urlsplit(back)
    if parts.scheme or parts.netloc or not back.startswith("/") or back[1:2] in ("/", "\\"):
        back = "/"  # only a page of this site: never an open redirect
    response = redirect(back)
    if code in LANGUAGES:
        response.set_cookie(COOKIE, code, max_age=YEAR, samesite="Lax", httponly=True)
    return response
