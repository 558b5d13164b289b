"""Fuzzing every staff form in-process: Hypothesis fills the director's and word judges' forms
and query strings with random text (control and bidi characters, non-ASCII digits in ids,
numbers past any integer column, huge strings), signed in as the director.

Whatever arrives: never a 500, never a traceback; a second opinion (201) only for words that
are a valid challenge; nothing stored with a control or bidi character in a name or title.
CSRF is off here (it has its own tests); sign-out is left out (it would end the session).

    ADJUDICATOR_FUZZ_EXAMPLES=100000 .venv/bin/python -m pytest tests/attacks/test_fuzz_staff.py
"""

from __future__ import annotations

import unicodedata
from urllib.parse import urlencode

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adjudicator.errors import ChallengeInputError
from adjudicator.hall import kiosks, tournaments
from adjudicator.words.normalize import normalize_challenge

from support.director import build_staffed
from support.fuzz import fuzz_home, fuzz_settings

pytestmark = [
    pytest.mark.slow,  # fuzzing: thousands of examples
    pytest.mark.usefixtures("fast_hashes"),  # cheap password hashes for the staff
]

TRACEBACK_SIGNS = ("Traceback (most recent call last)", 'File "/', "site-packages")
REFUSED = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})

nasty_text = st.one_of(
    st.text(max_size=40),
    st.text(max_size=400),
    st.sampled_from(
        [
            "Spring\u202e(LWN) nepO",
            "a\x00b",
            "\x1b[31mred\x1b[0m",
            "zero\u200bwidth",
            '=HYPERLINK("http://x")',
            "x" * 5000,
            "",
            " ",
            "spring-nwl",
            "table-1",
            "TINY-NWL",
            "double",
            "QI ZA",
            "ACCEPTABLE",
            "UNACCEPTABLE",
            "a fair reason",
        ]
    ),
)
any_digits = st.text(alphabet=st.characters(categories=["Nd", "No", "Nl"]), min_size=1, max_size=25)
an_id = st.one_of(
    any_digits,
    any_digits.map(lambda d: "#" + d),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.sampled_from(["1", "2", "0", "-1", "9223372036854775807", "9223372036854775808", ""]),
)
path_segment = st.one_of(
    st.sampled_from(["spring-nwl", "spring-csw", "table-1", "table-2", "nobody"]),
    st.text(
        alphabet=st.characters(min_codepoint=33, max_codepoint=0x2FFF, exclude_characters="/?#%"),
        min_size=1,
        max_size=30,
    ),
)
FORMS = {
    "/director/tournaments": ("slug", "lexicon", "rule", "title"),
    "/director/tournaments/{seg}/confirm": ("lexicon", "rule", "title"),
    "/director/tournaments/{seg}/apply": ("lexicon", "fingerprint", "pin", "rule", "title"),
    "/director/lexicons/import": ("name", "format", "description", "force", "skip_invalid"),
    "/director/lexicons/verify": (),
    "/director/kiosks": ("name", "tournament"),
    "/director/kiosks/{seg}/pair": (),
    "/director/kiosks/{seg}/revoke": ("confirm",),
    "/director/kiosks/{seg}/move": ("tournament",),
    "/director/flags/{id}/ruling": ("verdict", "reason", "words", "improper_lookup"),
    "/director/ruling": ("id", "verdict", "reason", "words", "improper_lookup"),
    "/director/journal/{id}/void": ("reason",),
    "/director/alarms/acknowledge": ("kiosk", "row_id"),
    "/director/checkpoint": (),
    "/judge/second-opinion": ("id", "words", "dictionary"),
    "/director/login": ("name", "password"),
    "/judge/login": ("name", "password"),
    "/pair": ("code",),
}
QUERIES = {
    "/judge/case": ("id",),
    "/director/journal": ("tournament", "kiosk", "kind", "since", "until"),
    "/director/journal.csv": ("tournament", "kiosk", "kind", "since", "until"),
    "/director/": (),
    "/director/overview": (),
    "/director/flags": (),
    "/director/tournaments": (),
    "/director/kiosks": (),
    "/director/lexicons": (),
    "/director/checkpoint.json": (),
    "/director/receipts.jsonl": (),
    "/judge/": (),
}


@pytest.fixture(scope="module")
def staff_app(tmp_path_factory):
    with fuzz_home(tmp_path_factory, "fz") as folder:
        staffed = build_staffed(folder, WTF_CSRF_ENABLED=False)
        original = staffed.challenge(["QI", "ZA"])
        yield staffed, staffed.director(), original.id
        staffed.db.close()


@st.composite
def staff_request(draw):
    """(method, path, form or None): a staff form or page, its fields filled at random."""
    if draw(st.booleans()):
        template = draw(st.sampled_from(sorted(FORMS)))
        fields = FORMS[template]
        method = "POST"
    else:
        template = draw(st.sampled_from(sorted(QUERIES)))
        fields = QUERIES[template]
        method = "GET"
    path = template.replace("{seg}", draw(path_segment)).replace("{id}", draw(an_id) or "1")
    values = {}
    for name in fields:
        if draw(st.integers(0, 4)) == 0:
            continue  # a field left out
        values[name] = draw(an_id if name in ("id", "row_id") else nasty_text)
    if draw(st.integers(0, 9)) == 0:
        values[draw(st.text(min_size=1, max_size=10))] = draw(nasty_text)  # a field not asked
    return method, path, values


def valid_words(text: str) -> bool:
    try:
        normalize_challenge(text)
    except (ChallengeInputError, Exception):  # noqa: BLE001 - any refusal means no verdict
        return False
    return True


def shows_truly(text: str) -> bool:
    return not any(unicodedata.category(char) in REFUSED for char in text)


@fuzz_settings(2000)
@given(request=staff_request())
def test_random_staff_forms_never_crash(staff_app, request):
    staffed, director, _ = staff_app
    method, path, values = request
    if method == "POST":
        response = director.post(path, data=values)
    else:
        response = director.get(path + ("?" + urlencode(values) if values else ""))
    text = response.get_data(as_text=True)
    assert response.status_code < 500, (method, path, values, response.status_code, text[:300])
    for sign in TRACEBACK_SIGNS:
        assert sign not in text
    if path == "/judge/second-opinion" and response.status_code == 201:
        assert valid_words(values.get("words", ""))
    assert all(
        shows_truly(t.title) and shows_truly(t.slug) for t in tournaments.list_all(staffed.db)
    )
    assert all(shows_truly(k.name) for k in kiosks.list_all(staffed.db))
    for kind, note in new_rows(staffed.db):  # a ruling or void only with a reason that shows
        assert note is None or shows_truly(note), (kind, note)
        if kind in ("ruling", "void"):
            assert len(note or "") >= 3, (kind, note)


_last_seen = [0]


def new_rows(db) -> list[tuple[str, str | None]]:
    """(kind, note) of the journal rows added since the last call (cost flat as it grows)."""
    with db.transaction() as cur:
        rows = cur.execute(
            "SELECT id, kind, note FROM adjudications WHERE id > ? ORDER BY id", (_last_seen[0],)
        ).tuples()
    if rows:
        _last_seen[0] = rows[-1][0]
    return [(kind, note) for _, kind, note in rows]
