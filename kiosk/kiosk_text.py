"""The kiosk scripts' messages in a language, sent with the kiosk page.

The scripts (kiosk/static/kiosk*.js) write their messages as T("English") and
TN("one", "many", n); Babel extracts them into the same catalogues as the pages (babel.cfg).
The page carries, as JSON, each message's translation, each plural message's forms, and which
form each count from 0 to 99 takes in the language, so the scripts need no plural rules and no
second translation system. Built once per language and process.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from flask_babel import get_translations
from jinja2.utils import htmlsafe_json_dumps
from markupsafe import Markup

STATIC = Path(__file__).with_name("static")
KEYWORDS = {"T": None, "TN": (1, 2)}
COUNTS = 100


@cache
def script_messages() -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """The messages (plain, plural) the kiosk's scripts use, as Babel extracts them."""
    from babel.messages.extract import extract_javascript

    plain, plural = [], []
    for path in sorted(STATIC.glob("kiosk*.js")):
        with open(path, "rb") as source:
            for _line, funcname, message, _comments in extract_javascript(
                source, KEYWORDS.keys(), [], {}
            ):
                if isinstance(message, str):
                    message = (message,)  # T("text") alone; T("text", {...}) is a tuple
                if funcname == "TN" and len(message) >= 2 and message[0] and message[1]:
                    plural.append((message[0], message[1]))
                elif funcname == "T" and message[0]:
                    plain.append(message[0])
    return tuple(dict.fromkeys(plain)), tuple(dict.fromkeys(plural))


def for_page(language: str) -> Markup:
    """What the kiosk page sends its scripts for `language` (this request's language), as the
    JSON of its data block, made once per language and process."""
    return _json(language, get_translations())


@cache
def _json(language: str, translations) -> Markup:
    return htmlsafe_json_dumps(_for_language(language, translations))


def _for_language(language: str, translations) -> dict:
    plain, plural = script_messages()
    if language == "en":
        return {"messages": {}, "plurals": {}, "plural_index": [], "number": numbers(language)}
    forms = getattr(translations, "plural", lambda n: int(n != 1))
    largest = max((forms(n) for n in range(COUNTS)), default=1)
    return {
        "messages": {text: translations.gettext(text) for text in plain},
        "plurals": {
            one: [_form(translations, one, many, index) for index in range(largest + 1)]
            for one, many in plural
        },
        "plural_index": [forms(n) for n in range(COUNTS)],
        "number": numbers(language),
    }


def numbers(language: str) -> dict:
    """How the language writes whole numbers, from Babel (as the pages write them with
    format_number): the group separator and the sizes of the groups (3 then 3 in most)."""
    from babel import Locale
    from babel.numbers import get_group_symbol, get_minus_sign_symbol

    primary, secondary = Locale.parse(language).decimal_formats[None].grouping
    return {
        "group": get_group_symbol(language),
        "grouping": [primary, secondary],
        "minus": get_minus_sign_symbol(language),
    }


def _form(translations, one: str, many: str, index: int) -> str:
    """The catalogue's plural form number `index` of a message (English when untranslated)."""
    catalog = getattr(translations, "_catalog", {})
    return catalog.get((one, index)) or (one if index == 0 else many)
