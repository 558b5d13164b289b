"""The kiosk's catalogues are complete: every message Babel extracts today (babel.cfg) has a
non-empty, non-fuzzy translation in every shipped language, with the same {fields}, and the
compiled .mo files say exactly what the .po files say."""

from __future__ import annotations

import re
from io import BytesIO
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po

from adjudicator.hall.languages import LANGUAGES

ROOT = Path(__file__).resolve().parents[2]
TRANSLATIONS = ROOT / "kiosk" / "translations"
SHIPPED = [code for code in LANGUAGES if code != "en"]
KEYWORDS = {"N_": None, "NP_": (1, 2), "_l": None, "_": None, "gettext": None,
            "ngettext": (1, 2), "lazy_gettext": None, "T": None, "TN": (1, 2)}  # fmt: skip
FIELD = re.compile(r"\{[a-z_]*\}|%\([a-z_]+\)s")


def _extracted() -> set[str]:
    """The msgids in the code and templates now, as `make translations` extracts them."""
    with open(ROOT / "babel.cfg") as config:  # its [extractors] too (the alphabets' titles)
        method_map, options_map = parse_mapping_cfg(config)
    found = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
        str(ROOT), method_map, options_map, keywords=KEYWORDS
    ):
        found.add(message[0] if isinstance(message, tuple) else message)
    return found


def _catalogue(code: str):
    with open(TRANSLATIONS / code / "LC_MESSAGES" / "messages.po", "rb") as po:
        return read_po(po, locale=code)


def test_the_languages_offered_are_the_catalogues_shipped():
    shipped = sorted(p.name for p in TRANSLATIONS.iterdir() if (p / "LC_MESSAGES").is_dir())
    assert shipped == sorted(SHIPPED)


def test_there_is_something_to_translate():
    messages = _extracted()
    assert {"ACCEPTABLE", "the play stands"} <= messages
    assert {"Catalan", "French", "Polish", "Spanish", "English"} <= messages  # alphabets' titles
    assert len(messages) > 20


@pytest.mark.parametrize("code", SHIPPED)
def test_every_message_has_a_translation(code):
    catalogue = _catalogue(code)
    problems = []
    for msgid in sorted(_extracted()):
        message = catalogue.get(msgid)
        if message is None:
            problems.append(f"missing: {msgid!r}")
            continue
        forms = message.string if isinstance(message.string, tuple) else (message.string,)
        if not all(form and form.strip() for form in forms):
            problems.append(f"empty: {msgid!r}")
        if message.fuzzy:
            problems.append(f"fuzzy: {msgid!r}")
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        wanted = set(FIELD.findall(ids[-1])) | set(FIELD.findall(ids[0]))
        for form in forms:
            if set(FIELD.findall(form or "")) - wanted or not (
                set(FIELD.findall(ids[0])) - {"{n}"} <= set(FIELD.findall(form or ""))
            ):
                problems.append(f"fields differ: {msgid!r} -> {form!r}")
    assert not problems, f"{code}: run `make translations`, then translate:\n" + "\n".join(problems)


@pytest.mark.parametrize("code", SHIPPED)
def test_the_compiled_catalogue_is_the_po_file(code):
    catalogue = _catalogue(code)
    compiled = BytesIO()
    write_mo(compiled, catalogue)
    with open(TRANSLATIONS / code / "LC_MESSAGES" / "messages.mo", "rb") as mo:
        shipped = read_mo(mo)
    compiled.seek(0)
    fresh = read_mo(compiled)
    assert _pairs(shipped) == _pairs(fresh), "run `make translations` to compile the .mo files"


def _pairs(catalogue) -> dict:
    return {
        tuple(m.id) if isinstance(m.id, (list, tuple)) else m.id: (
            tuple(m.string) if isinstance(m.string, (list, tuple)) else m.string
        )
        for m in catalogue
        if m.id
    }


@pytest.mark.parametrize("code", SHIPPED)
def test_plural_forms_follow_the_language(code):
    catalogue = _catalogue(code)
    assert catalogue.num_plurals == (3 if code == "pl" else 2)
    for message in catalogue:
        if message.id and isinstance(message.id, tuple):
            assert len(message.string) == catalogue.num_plurals, message.id
