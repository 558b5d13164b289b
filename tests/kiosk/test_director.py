"""The director's pages and the hardening around them: CSRF, sign-in throttling, sessions,
uploads, tournaments, kiosks, the journal view, rate limits, revocation and the audit chain."""

from __future__ import annotations

import html
import json
import os
import sqlite3
import stat
import urllib.parse
from datetime import UTC, datetime, timedelta

import pytest

from adjudicator.hall import kiosks, tournaments
from adjudicator.hall.people import staff
from adjudicator.hall.people.ratelimit import RateLimit
from adjudicator.hall.people.staff import LoginPolicy, LoginRefused
from adjudicator.record.journal import journal
from adjudicator.words.wordlist import WordSet

from support.director import (
    DIRECTOR_PASSWORD,
    build_staffed,
    csrf_token,
    login,
    post_form,
    press,
    upload_list,
)
from support.hall import CSW, NWL, build_setup, make_app, submit_pairing_code
from support.sessions import session_contents

pytestmark = pytest.mark.usefixtures("fast_hashes")  # cheap password hashes for the staff


# ---------- sessions, CSRF ----------


def test_a_form_post_without_the_csrf_token_is_refused(staffed):
    director = staffed.director()
    response = director.post("/director/kiosks", data={"name": "sneaky", "tournament": NWL})
    assert response.status_code == 400
    assert "did not come from this site" in response.get_data(as_text=True)
    assert "sneaky" not in [k.name for k in kiosks.list_all(staffed.db)]
    response = director.post(
        "/director/kiosks", data={"name": "sneaky", "tournament": NWL, "csrf_token": "forged"}
    )
    assert response.status_code == 400
    assert (
        post_form(director, "/director/kiosks", {"name": "fine", "tournament": NWL}).status_code
        == 200
    )
    anonymous = staffed.client()
    assert (
        anonymous.post("/director/login", data={"name": "director", "password": "x"}).status_code
        == 400
    )


def test_the_session_cookie_is_httponly_strict_and_secure_under_tls(tmp_path, monkeypatch):
    staffed = build_staffed(tmp_path)
    client = staffed.client()
    response = login(client, "director", DIRECTOR_PASSWORD)
    cookie = response.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Secure" not in cookie
    monkeypatch.setenv("ADJUDICATOR_SECURE_COOKIES", "on")
    secure = make_app(staffed.setup.hall).test_client()
    token = csrf_token(secure)
    response = secure.post(
        "/director/login",
        data={"name": "director", "password": DIRECTOR_PASSWORD, "csrf_token": token},
    )
    assert "Secure" in response.headers["Set-Cookie"]
    assert response.headers["Strict-Transport-Security"]


def test_a_tampered_session_cookie_signs_nobody_in(staffed):
    director = staffed.director()
    assert director.get("/director/").status_code == 200
    cookie = director.get_cookie("adjudicator_staff")
    value = cookie.value
    forged = value[:-3] + ("AAA" if not value.endswith("AAA") else "BBB")
    intruder = staffed.client()
    intruder.set_cookie("adjudicator_staff", forged)
    response = intruder.get("/director/")
    assert response.status_code == 302 and "/director/login?next=" in response.headers["Location"]
    # a cookie signed with another key is no better
    other = make_app(staffed.setup.hall, SECRET_KEY="another-key-" + "y" * 32).test_client()
    other.set_cookie("adjudicator_staff", value)
    assert other.get("/director/").status_code == 302


def test_changing_the_password_ends_old_sessions(staffed):
    director = staffed.director()
    staff.set_director_password(staffed.db, "a-new-password-2")
    assert director.get("/director/").status_code == 302


def test_a_judge_is_not_the_director(staffed):
    judge = staffed.judge()
    response = judge.get("/director/kiosks")
    assert response.status_code == 403 and "director only" in response.get_data(as_text=True)
    assert judge.get("/judge/").status_code == 200


def test_logout(staffed):
    director = staffed.director()
    assert post_form(director, "/director/logout").status_code == 302
    assert director.get("/director/").status_code == 302


@pytest.mark.parametrize(
    "target",
    [
        "//evil.example/x",
        "https://evil.example/x",
        "/%5Cevil.example/x",  # '/\evil.example': browsers read a backslash as a slash
        "/%09/evil.example/x",  # browsers drop tabs and line breaks from a URL: '//evil...'
        "/%0A/evil.example/x",
    ],
)
def test_next_never_leaves_the_site(staffed, target):
    client = staffed.client()
    token = csrf_token(client)
    response = client.post(
        f"/director/login?next={target}",
        data={"name": "director", "password": DIRECTOR_PASSWORD, "csrf_token": token},
    )
    assert response.headers["Location"] == "/director/"


# ---------- growing delays, then a lock-out (more in test_attempts, test_attack_login) ----------


def test_the_login_page_says_when_to_retry(staffed, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_LOGIN_FREE_ATTEMPTS", "1")
    client = staffed.client()
    first = login(client, "director", "wrong-password")
    assert first.status_code == 401 and "Wrong name or password." in first.get_data(as_text=True)
    second = login(client, "director", "wrong-password")
    assert second.status_code == 429 and second.headers["Retry-After"] == "2"
    assert "Wait 2 seconds, then try again" in second.get_data(as_text=True)
    third = login(client, "director", DIRECTOR_PASSWORD)  # the right one, too soon
    assert third.status_code == 429 and "Too many wrong passwords" in third.get_data(as_text=True)


def test_set_password_clears_the_lock_out(staffed):
    policy = LoginPolicy(free_attempts=0, lockout_after=1, lockout_seconds=900)
    with pytest.raises(LoginRefused, match="locked"):
        staff.authenticate(staffed.db, "alice", "nope", "10.0.0.1", policy=policy)
    staff.set_password(staffed.db, "alice", "alice-secret-99")
    assert staff.authenticate(staffed.db, "alice", "alice-secret-99", "10.0.0.2", policy=policy)


def test_passwords_are_stored_as_argon2_hashes_only_and_those_sealed(staffed):
    """Issue 41: no copy of the database (the USB stick's mirror) holds a hash to guess
    against; the hall's key opens each, for its own account only."""
    from adjudicator.hall.people import sealed_hashes

    with sqlite3.connect(staffed.setup.db_path) as connection:
        rows = connection.execute("SELECT name, password_hash FROM staff").fetchall()
    assert len(rows) == 3
    key = sealed_hashes.key_of(staffed.db)
    for name, stored in rows:
        assert stored.startswith("sealed:v1:") and "argon2" not in stored
        assert "secret" not in stored
        assert sealed_hashes.unseal(key, name, stored).startswith("$argon2id$")
        other = next(other for other, _ in rows if other != name)
        assert sealed_hashes.unseal(key, other, stored) is None  # not another account's


# ---------- uploads ----------


_upload = upload_list


def _uploads_left(staffed) -> list:
    from adjudicator import settings

    folder = settings.data_home() / "uploads"
    return list(folder.iterdir()) if folder.exists() else []


def test_an_upload_in_another_alphabet(staffed, home):
    director = staffed.director()
    form = director.get("/director/lexicons").get_data(as_text=True)
    assert '<select id="alphabet" name="alphabet"><option value="english">English (english)' in form
    response = _upload(director, "żółw\ngęś\n".encode(), name="PL", alphabet="polish")
    page = response.get_data(as_text=True)
    assert response.status_code == 201 and "alphabet:    polish (A Ą B" in page
    assert staffed.store.manifest("PL").get_alphabet().name == "polish"
    assert '<td data-label="Alphabet">Polish</td>' in page  # each lexicon's alphabet
    polish_page = director.get("/director/lexicons", headers={"Accept-Language": "pl"})
    assert '<td data-label="Alfabet">polski</td>' in polish_page.get_data(as_text=True)
    refused = _upload(director, "żółw\n".encode(), name="PL2")  # english by default
    assert refused.status_code == 400 and "--alphabet NAME" in refused.get_data(as_text=True)
    unknown = _upload(director, b"qi\n", name="X", alphabet="klingon")
    assert unknown.status_code == 400 and "Unknown alphabet" in unknown.get_data(as_text=True)


def test_an_upload_is_imported_with_the_clis_summary_and_not_kept(staffed, home):
    director = staffed.director()
    response = _upload(director, b"qi\nza\ncat\n")
    page = response.get_data(as_text=True)
    assert response.status_code == 201 and "Imported NEW from words.txt" in page
    assert "words:       3" in page
    assert staffed.store.manifest("NEW").words == 3
    assert _uploads_left(staffed) == []


def test_a_bad_upload_is_refused_with_the_clis_message_and_changes_nothing(staffed, home):
    director = staffed.director()
    before = staffed.store.manifest("TINY-NWL")
    response = _upload(director, b"QI\nZA9\nCAT\n", name="TINY-NWL")
    page = response.get_data(as_text=True)
    assert response.status_code == 400
    assert "words.txt: 1 line is not words" in page and "--skip-invalid" in page
    assert "uploads" not in page  # the temporary folder is not shown
    response = _upload(director, b"QI\nZA\n", name="TINY-NWL")
    assert response.status_code == 400 and "Use --force to replace it" in response.get_data(
        as_text=True
    )
    assert staffed.store.manifest("TINY-NWL") == before
    assert _uploads_left(staffed) == []


def test_a_50_mb_upload_is_refused_cleanly(staffed, home):
    director = staffed.director()
    before = {m.name: m.fingerprint for m in staffed.store.manifests()}
    big = b"QI\n" * (50 * 1024 * 1024 // 3)
    response = _upload(director, big, name="HUGE")
    page = response.get_data(as_text=True)
    assert response.status_code == 413
    assert "larger than the upload limit of 20 MB" in page and "lexicons are unchanged" in page
    assert "Traceback" not in page
    assert {m.name: m.fingerprint for m in staffed.store.manifests()} == before
    assert _uploads_left(staffed) == []


def test_the_api_keeps_its_small_limit(staffed):
    response = staffed.client().post(
        "/api/v1/adjudications",
        data=b"{" + b" " * 200_000 + b"}",
        headers={**staffed.setup.headers(), "Content-Type": "application/json"},
    )
    assert response.status_code == 413 and response.is_json


# ---------- tournaments ----------


def test_changing_a_tournaments_lexicon_needs_a_confirmation(staffed):
    director = staffed.director()
    response = post_form(
        director, f"/director/tournaments/{NWL}/confirm", {"lexicon": "TINY-CSW", "rule": "double"}
    )
    page = response.get_data(as_text=True)
    csw = staffed.store.manifest("TINY-CSW")
    assert response.status_code == 200
    assert csw.fingerprint in page and f'id="new-lexicon-words">{csw.words:,}<' in page
    assert tournaments.get(staffed.db, NWL).lexicon == "TINY-NWL"  # nothing changed yet
    done = post_form(
        director,
        f"/director/tournaments/{NWL}/apply",
        {
            "lexicon": "TINY-CSW",
            "fingerprint": csw.fingerprint,
            "pin": csw.current_pin,
            "rule": "double",
            "title": "X",
        },
        follow_redirects=True,
    )
    assert f'id="new-lexicon-pin">{csw.current_pin}<' in page
    assert "now judges with TINY-CSW" in done.get_data(as_text=True)
    changed = tournaments.get(staffed.db, NWL)
    assert (changed.lexicon, changed.lexicon_fingerprint, changed.rule) == (
        "TINY-CSW",
        csw.fingerprint,
        "double",
    )


def test_a_lexicon_reimported_after_the_confirmation_is_not_applied(staffed):
    director = staffed.director()
    stale = staffed.store.manifest("TINY-CSW").fingerprint
    staffed.store.save("TINY-CSW", WordSet.of(["AA", "QI"]))
    done = post_form(
        director,
        f"/director/tournaments/{NWL}/apply",
        {"lexicon": "TINY-CSW", "fingerprint": stale, "rule": "double"},
        follow_redirects=True,
    )
    assert "changed after you confirmed" in done.get_data(as_text=True)
    assert tournaments.get(staffed.db, NWL).lexicon == "TINY-NWL"


def test_a_referral_rule_changed_after_the_confirmation_is_not_applied(staffed):
    """The same words with another referral rule: the pin the director confirmed is not the
    lexicon's any more."""
    director = staffed.director()
    confirmed = staffed.store.manifest("TINY-CSW")
    words = WordSet.of(staffed.store.open("TINY-CSW"))
    staffed.store.save("TINY-CSW", words, refer_longer_than=4)
    assert staffed.store.manifest("TINY-CSW").fingerprint == confirmed.fingerprint
    done = post_form(
        director,
        f"/director/tournaments/{NWL}/apply",
        {
            "lexicon": "TINY-CSW",
            "fingerprint": confirmed.fingerprint,
            "pin": confirmed.current_pin,
            "rule": "double",
        },
        follow_redirects=True,
    )
    assert "changed after you confirmed" in done.get_data(as_text=True)
    assert tournaments.get(staffed.db, NWL).lexicon == "TINY-NWL"


def test_creating_a_tournament(staffed):
    director = staffed.director()
    post_form(
        director,
        "/director/tournaments",
        {"slug": "autumn", "lexicon": "TINY-CSW", "rule": "5-per-word", "title": "Autumn"},
    )
    assert tournaments.get(staffed.db, "autumn").rule == "5-per-word"
    bad = post_form(
        director,
        "/director/tournaments",
        {"slug": "Bad Slug", "lexicon": "TINY-CSW", "rule": "double"},
        follow_redirects=True,
    )
    assert "Invalid tournament slug" in bad.get_data(as_text=True)


def test_the_tournaments_page_creates_a_tournament_in_a_language_and_changes_it(staffed):
    director = staffed.director()
    created = {"slug": "otono", "lexicon": "TINY-CSW", "rule": "double", "language": "es"}
    post_form(director, "/director/tournaments", created)
    assert tournaments.get(staffed.db, "otono").language == "es"
    page = press(director, "/director/tournaments", f"/director/tournaments/{NWL}/language",
                 {"language": "pl"})  # fmt: skip
    assert tournaments.get(staffed.db, NWL).language == "pl"
    assert f"Tournament {NWL}: its kiosks now speak Polski (pl)." in page
    assert '<option value="pl" selected>Polski (pl)</option>' in page
    assert (
        staffed.kiosk_browser()
        .get("/")
        .get_data(as_text=True)
        .startswith('<!doctype html>\n<html lang="pl"')
    )  # its kiosk's next page speaks Polish
    refused = press(director, "/director/tournaments", f"/director/tournaments/{NWL}/language",
                    {"language": "tlh"})  # fmt: skip
    assert "No kiosk translation for language &#39;tlh&#39;" in refused
    assert tournaments.get(staffed.db, NWL).language == "pl"  # unchanged


# ---------- kiosks ----------


def test_enrol_a_kiosk_with_a_pairing_code_and_qr(staffed):
    director = staffed.director()
    response = post_form(director, "/director/kiosks", {"name": "table-7", "tournament": CSW})
    page = response.get_data(as_text=True)
    assert response.status_code == 200 and 'id="pairing-code"' in page
    code = page.split('id="pairing-code">')[1].split("<")[0]
    assert f"/pair#{code}" in page  # after '#': the server never sees it in a URL
    qr = page.split('id="pairing-qr"')[0].rsplit('src="data:image/svg+xml;charset=utf-8,', 1)[1]
    svg = urllib.parse.unquote(html.unescape(qr.split('"')[0]))
    assert svg.startswith("<svg") and "viewBox='0 0 " in svg  # drawn by segno, scaled by size
    assert code not in svg  # an image, not text
    assert code not in json.dumps(session_contents(staffed.app, director))  # nor in the cookie
    # the code pairs a browser
    browser = staffed.client()
    assert submit_pairing_code(browser, code).status_code == 302
    assert browser.get("/api/v1/kiosk").json["kiosk"] == "table-7"


def test_kiosks_are_listed_by_their_numbers_on_every_page(staffed):
    for name in ("table-10", "table-3", "table-20", "table-11"):
        kiosks.add(staffed.db, name, NWL)
    in_order = ["table-1", "table-2", "table-3", "table-10", "table-11", "table-20"]
    director = staffed.director()
    page = director.get("/director/kiosks").get_data(as_text=True)
    assert _order(page, [f'id="kiosk-{name}"' for name in in_order]) == in_order
    journal_page = director.get("/director/journal").get_data(as_text=True)
    assert _order(journal_page, [f'<option value="{name}"' for name in in_order]) == in_order
    hall = director.get(f"/director/hall?tournament={NWL}").get_data(as_text=True)
    nwl_kiosks = [name for name in in_order if name != "table-2"]  # table-2 is CSW's
    assert _order(hall, [f'data-kiosk="{name}"' for name in nwl_kiosks]) == nwl_kiosks


def _order(page: str, marks: list[str]) -> list[str]:
    """The names whose marks the page holds, in the order the page shows them."""
    found = sorted((page.index(mark), mark) for mark in marks)
    return [mark.split('"')[1].removeprefix("kiosk-") for _, mark in found]


def test_revoke_is_immediate_for_token_and_paired_browser(staffed):
    director = staffed.director()
    browser = staffed.kiosk_browser()
    token = staffed.setup.headers()
    assert browser.get("/api/v1/kiosk").status_code == 200
    refused = post_form(director, "/director/kiosks/table-1/revoke", {}, follow_redirects=True)
    assert "Tick the box" in refused.get_data(as_text=True)
    post_form(director, "/director/kiosks/table-1/revoke", {"confirm": "1"})
    assert browser.get("/api/v1/kiosk").status_code == 401
    assert (
        staffed.client()
        .post("/api/v1/adjudications", json={"words": ["QI"]}, headers=token)
        .status_code
        == 401
    )
    assert "revoked" in director.get("/director/kiosks").get_data(as_text=True)


def test_move_a_kiosk(staffed):
    director = staffed.director()
    post_form(director, "/director/kiosks/table-1/move", {"tournament": CSW})
    assert kiosks.get(staffed.db, "table-1").tournament == CSW


def test_last_seen_is_recorded_from_the_status_poll_at_most_once_a_minute(staffed):
    browser = staffed.kiosk_browser()
    assert kiosks.get(staffed.db, "table-1").last_seen_at is None
    browser.get("/api/v1/kiosk")
    first = kiosks.get(staffed.db, "table-1").last_seen_at
    assert first is not None
    browser.get("/api/v1/kiosk")
    assert kiosks.get(staffed.db, "table-1").last_seen_at == first
    assert first[:16] in staffed.director().get("/director/kiosks").get_data(as_text=True).replace(
        " ", "T"
    )


def test_kiosk_tokens_are_stored_hashed(staffed):
    with sqlite3.connect(staffed.setup.db_path) as connection:
        hashes = [row[0] for row in connection.execute("SELECT token_hash FROM kiosks")]
    assert staffed.setup.nwl.token not in hashes and len(hashes[0]) == 64


# ---------- the journal view ----------


def test_journal_filters_csv_and_bursts(staffed, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_BURST_CHALLENGES", "3")
    for _ in range(4):
        staffed.challenge(["QI"])
    staffed.challenge(["ZA"], enrolment=staffed.setup.csw)
    director = staffed.director()
    page = director.get(f"/director/journal?tournament={NWL}").get_data(as_text=True)
    assert page.count("<tr class=") == 4
    assert 'id="bursts"' in page and "Kiosk <strong>table-1</strong>: 4 challenges" in page
    page = director.get("/director/journal?kiosk=table-2").get_data(as_text=True)
    assert page.count("<tr class=") == 1 and 'id="no-bursts"' in page
    future = (datetime.now(UTC) + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M")
    page = director.get(f"/director/journal?since={future}").get_data(as_text=True)
    assert page.count("<tr class=") == 0
    bad = director.get("/director/journal?since=yesterday", follow_redirects=True)
    assert "is not a time" in bad.get_data(as_text=True)
    csv = director.get(f"/director/journal.csv?tournament={NWL}")
    assert csv.mimetype == "text/csv" and "attachment" in csv.headers["Content-Disposition"]
    lines = csv.get_data(as_text=True).splitlines()
    assert lines[0].startswith("id,recorded_at,kind") and len(lines) == 5


# ---------- rate limit, audit chain, secrets ----------


def test_the_kiosk_rate_limit_gives_429_with_a_polite_message(tmp_path):
    setup = build_setup(tmp_path, rate_limit=RateLimit(2, 60))
    client = make_app(setup.hall).test_client()
    for _ in range(2):
        assert (
            client.post(
                "/api/v1/adjudications", json={"words": ["QI"]}, headers=setup.headers()
            ).status_code
            == 201
        )
    response = client.post("/api/v1/adjudications", json={"words": ["QI"]}, headers=setup.headers())
    assert response.status_code == 429 and response.headers["Retry-After"] == "60"
    assert "please wait a moment" in response.json["error"] and "verdict" not in response.json


def test_a_tampered_journal_row_is_caught_by_journal_verify(staffed, run, home, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_DATABASE_URL", str(staffed.setup.db_path))
    original = staffed.challenge(["QI", "ZAX"])
    from adjudicator.judging.corrections import second_opinion

    second_opinion.give(
        staffed.db, staffed.store, original.id, ["QI", "ZA"], actor="alice", station="judge:alice"
    )
    assert run("journal", "verify").exit_code == 0
    with sqlite3.connect(staffed.setup.db_path) as connection:
        connection.execute(
            "UPDATE adjudications SET verdict = 'ACCEPTABLE' WHERE id = ?", (original.id,)
        )
    connection.close()
    out = run("journal", "verify")
    assert out.exit_code != 0 and f"row {original.id} was altered" in out.stderr
    assert journal.verify(staffed.db).first_bad_id == original.id


def test_the_secret_key_file_is_readable_by_its_owner_only(home):
    from kiosk.secret_key import load_or_create_secret_key, secret_key_path

    key = load_or_create_secret_key()
    assert len(key) == 64
    mode = stat.S_IMODE(os.stat(secret_key_path()).st_mode)
    assert mode == 0o600


def test_serve_sets_secure_cookies_for_its_workers_under_tls(home, monkeypatch, tmp_path):
    from adjudicator.cli import serve_cmd

    captured = {}
    monkeypatch.setattr(serve_cmd.os, "execv", lambda exe, argv: captured.update(argv=argv))
    monkeypatch.delenv("ADJUDICATOR_SECURE_COOKIES", raising=False)
    monkeypatch.setenv("ADJUDICATOR_HTTP_PORT", "8080")  # serve sets it for its workers: undone
    cert, key = tmp_path / "c.pem", tmp_path / "k.pem"
    cert.write_text("x")
    key.write_text("x")
    from click.testing import CliRunner

    from adjudicator.cli import cli

    result = CliRunner().invoke(cli, ["serve", "--certfile", str(cert), "--keyfile", str(key)])
    assert result.exit_code == 0, result.output
    assert "--certfile" in captured["argv"]
    assert os.environ.pop("ADJUDICATOR_SECURE_COOKIES") == "on"


def test_serve_under_tls_serves_no_port_as_the_halls_plain_trust_port(home, monkeypatch, tmp_path):
    """`serve --certfile ... --bind 0.0.0.0:8080`: every port is served over TLS, whatever
    ADJUDICATOR_HTTP_PORT (the port `adjudicator hall` serves the trust page on) says."""
    from click.testing import CliRunner

    from adjudicator.cli import cli, serve_cmd

    monkeypatch.setattr(serve_cmd.os, "execv", lambda exe, argv: None)
    monkeypatch.setenv("ADJUDICATOR_HTTP_PORT", "8080")
    cert, key = tmp_path / "c.pem", tmp_path / "k.pem"
    cert.write_text("x")
    key.write_text("x")
    args = ["serve", "--bind", "0.0.0.0:8080", "--certfile", str(cert), "--keyfile", str(key)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert os.environ["ADJUDICATOR_HTTP_PORT"] == "0"  # what its workers inherit
    os.environ.pop("ADJUDICATOR_SECURE_COOKIES", None)
