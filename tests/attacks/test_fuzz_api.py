"""Fuzzing the web app in-process: Hypothesis sends random methods, paths, headers and bodies,
JSON nested up to 20,000 deep and JSON objects that give a key twice among them.

Whatever arrives: never a 500, never a traceback in a response, and never a "verdict" key
unless the input was a valid challenge from a valid kiosk (then exactly the normalised words;
a key given twice is not a valid challenge). The staff's forms: tests/attacks/test_fuzz_staff.py.

The default run sends a few thousand requests; the long run with
    ADJUDICATOR_FUZZ_EXAMPLES=100000 .venv/bin/python -m pytest tests/attacks/test_fuzz_api.py
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adjudicator.errors import ChallengeInputError
from adjudicator.hall.hall import clean_details
from adjudicator.words.normalize import normalize_challenge

from support.fuzz import fuzz_home, fuzz_settings
from support.hall import build_setup, make_app

FUZZ = fuzz_settings(3000)
pytestmark = pytest.mark.slow  # fuzzing: thousands of examples

PATHS = (
    "/api/v1/adjudications",
    "/api/v1/adjudications",
    "/api/v1/adjudications",
    "/api/v1/kiosk",
    "/api/v1/spell",
    "/api/v1/spell",
    "/api/v1/lexicons",
    "/api/v1/tournaments",
    "/healthz",
    "/",
    "/pair",
    "/pair/ABCDEFGHJK",
    "/director",
    "/judges",
    "/login",
    "/static/kiosk.js",
)
METHODS = ("GET", "POST", "POST", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
DETAILS = ("table", "round", "challenger", "player")
TRACEBACK_SIGNS = ("Traceback (most recent call last)", 'File "/', "site-packages")

letters = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", max_size=17)
word_text = st.one_of(
    letters,
    st.sampled_from(["QI", "za", "ZZZ", "CAT DOG", "qi,za", "Ｑｉ", "QΙ", "é", "Q-I", "?", " "]),
    st.text(max_size=20),
)
any_id = st.one_of(  # a reissue's "replaces": ids in any digits, huge, negative
    st.text(alphabet=st.characters(categories=["Nd", "No"]), min_size=1, max_size=22),
    st.sampled_from(["1", "2", "\u0663", "\u00b2", "-1", "0", "9" * 20, str(2**31), " 1 "]),
)
json_scalar = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=30)
)
json_value = st.recursive(
    json_scalar,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=10), inner, max_size=5)
    ),
    max_leaves=12,
)
depth = st.one_of(st.sampled_from([999, 1000, 1001, 5_000, 10_000, 20_000]), st.integers(1, 20_000))
nested = st.tuples(depth, st.sampled_from(["[]", "{}", "w"])).map(
    lambda spec: (
        (b'{"words": ' + b"[" * spec[0] + b"]" * spec[0] + b"}")
        if spec[1] == "w"
        else (b"[" * spec[0] + b"]" * spec[0])
        if spec[1] == "[]"
        else (b'{"a":' * spec[0] + b"1" + b"}" * spec[0])
    )
)
# JSON objects written by hand, so that a key can come twice ({"words": [...], "words": [...]})
repeated_keys = st.lists(
    st.tuples(st.sampled_from(["words", "table", "round", "challenger", "player"]), json_value),
    min_size=1,
    max_size=6,
).map(lambda pairs: "{" + ",".join(f"{json.dumps(k)}:{json.dumps(v)}" for k, v in pairs) + "}")
challenge = st.fixed_dictionaries(
    {"words": st.one_of(st.lists(word_text, max_size=10), json_value)},
    optional={
        **{name: st.one_of(json_scalar, st.text(max_size=50)) for name in DETAILS},
        "replaces": st.one_of(json_scalar, any_id),
        "extra": json_value,
    },
)
body = st.one_of(
    challenge.map(lambda value: json.dumps(value).encode()),
    json_value.map(lambda value: json.dumps(value).encode()),
    nested,
    repeated_keys.map(str.encode),
    st.binary(max_size=200),
    st.text(max_size=200).map(lambda text: text.encode("utf-8", "surrogatepass")),
)
header_text = st.text(
    alphabet=st.characters(min_codepoint=32, max_codepoint=255, exclude_characters="\x7f"),
    max_size=60,
)
# A leading "//" would make the test client read a host name: one slash is what servers pass.
path_text = st.text(
    alphabet=st.characters(min_codepoint=33, max_codepoint=126, exclude_characters="?#%"),
    max_size=40,
)


@pytest.fixture(scope="module")
def hall_app(tmp_path_factory):
    with fuzz_home(tmp_path_factory, "fuzz") as folder:
        setup = build_setup(folder)
        yield setup, make_app(setup.hall)
        setup.hall.db.close()


def _unique_keys(pairs):
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError("a key given twice")
    return dict(pairs)


def well_formed_id(value) -> int | None:
    """A reissue's "replaces" as the API may take it: a whole number 1 .. 2**31 - 1, as a JSON
    integer or ASCII digits; None for anything else."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return None
    text = str(value).strip()
    if not (text.isascii() and text.isdigit()):
        return None
    return int(text) if 0 < int(text) < 2**31 else None


def reissue(raw: bytes) -> bool:
    """Whether `raw` is a JSON object naming a challenge it replaces (a reissue: whether it may
    replace that one depends on the journal, so such a challenge may be refused)."""
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return False
    return isinstance(value, dict) and value.get("replaces") not in (None, "")


def expected_words(raw: bytes):
    """The normalised words if `raw` is a valid challenge body, else None."""
    try:
        value = json.loads(raw, object_pairs_hook=_unique_keys)
    except (ValueError, RecursionError):  # not JSON, a key given twice, or nested too deep
        return None
    if not isinstance(value, dict) or not isinstance(value.get("words"), list):
        return None
    if set(value) - {"words", *DETAILS, "replaces"}:
        return None
    if reissue(raw) and well_formed_id(value["replaces"]) is None:
        return None
    try:
        clean_details({k: v for k, v in value.items() if k in DETAILS})
        return list(normalize_challenge(value["words"]))
    except (ChallengeInputError, Exception):  # noqa: BLE001 - any refusal means no verdict
        return None


@FUZZ
@given(
    method=st.sampled_from(METHODS),
    path=st.one_of(
        st.sampled_from(PATHS),
        path_text.map(lambda p: "/" + p.lstrip("/")),
        path_text.map(lambda p: "/api/v1/" + p.lstrip("/")),
    ),
    auth=st.one_of(
        st.none(),
        st.just("valid"),
        st.just("other"),
        header_text,
        header_text.map(lambda t: "Bearer " + t),
    ),
    content_type=st.one_of(st.none(), st.just("application/json"), header_text),
    extra=st.dictionaries(
        st.text(alphabet="abcdefghijklmnopqrstuvwxyz-", min_size=1, max_size=12),
        header_text,
        max_size=3,
    ),
    raw=body,
)
def test_random_requests_never_crash_or_leak_a_verdict(
    hall_app, method, path, auth, content_type, extra, raw
):
    setup, app = hall_app
    headers = {f"X-{name}": value for name, value in extra.items()}
    if auth == "valid":
        headers["Authorization"] = f"Bearer {setup.nwl.token}"
    elif auth == "other":
        headers["Authorization"] = f"Bearer {setup.csw.token}"
    elif auth is not None:
        headers["Authorization"] = auth
    if content_type is not None:
        headers["Content-Type"] = content_type
    client = app.test_client()
    response = client.open(path, method=method, headers=headers, data=raw)
    text = response.get_data(as_text=True)

    assert response.status_code < 500, (response.status_code, text[:300])
    for sign in TRACEBACK_SIGNS:
        assert sign not in text
    payload = response.get_json(silent=True) if response.is_json else None
    has_verdict = isinstance(payload, dict) and "verdict" in payload
    valid = (
        method == "POST"
        and path == "/api/v1/adjudications"
        and auth in ("valid", "other")
        and expected_words(raw) is not None
    )
    if has_verdict:
        assert valid, (path, method, raw[:200], payload)
        assert response.status_code == 201
        assert payload["words"] == expected_words(raw)
    if path.startswith("/api/") and method not in ("HEAD", "OPTIONS"):
        assert response.is_json, (path, method, response.status_code, text[:200])
    if valid and content_type == "application/json" and not reissue(raw):
        assert response.status_code == 201 and has_verdict, (raw[:200], text[:300])


@FUZZ
@given(
    raw=st.one_of(nested, repeated_keys.map(str.encode), challenge.map(json.dumps).map(str.encode))
)
def test_random_challenge_bodies_from_a_valid_kiosk(hall_app, raw):
    """The bodies that matter most, always sent as a kiosk's JSON challenge."""
    setup, app = hall_app
    response = app.test_client().post(
        "/api/v1/adjudications",
        data=raw,
        headers={"Authorization": f"Bearer {setup.nwl.token}", "Content-Type": "application/json"},
    )
    payload = response.get_json(silent=True)
    assert response.status_code < 500 and isinstance(payload, dict), response.status_code
    expected = expected_words(raw)
    if expected is None:
        assert response.status_code in (400, 413) and "verdict" not in payload, (raw[:200], payload)
    elif reissue(raw) and response.status_code in (400, 409):
        # a well-formed reissue the journal does not allow: no such challenge (400), or one that
        # conflicts with what came after it (409: a later challenge, a ruling, a second opinion)
        assert "verdict" not in payload and payload.get("error"), payload
    else:
        assert response.status_code == 201 and payload["words"] == expected
