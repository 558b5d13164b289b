"""Signed receipts: every 201 carries one, signed exactly as ARCHITECTURE.md documents, by the key
`journal key` prints; the key file is made once (0600), shared by name, refused when exposed.

Signatures are checked by `independent_verify` below, written from the documented message
format (canonical JSON: sort_keys, compact separators, ASCII; base64url signature), never with
the project's own verify function.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import stat

import pytest

from adjudicator.hall.hall import Hall
from adjudicator.record.journal import journal, receipt_key
from adjudicator.record.proofs import receipts

from support.hall import make_app, pair_browser
from support.receipts import independent_verify


def judge(client, setup, words, **details):
    return client.post(
        "/api/v1/adjudications", json={"words": words, **details}, headers=setup.headers()
    )


def test_every_verdict_carries_a_receipt_signed_by_the_halls_key(setup):
    client = make_app(setup.hall).test_client()
    public_pem = setup.hall.signing_key().public_pem()
    assert public_pem.startswith("-----BEGIN PUBLIC KEY-----")
    for words in (["QI", "ZA"], ["QX"], ["CAT", "DOG", "FOX"]):
        body = judge(client, setup, words, table="7").get_json()
        receipt = body["receipt"]
        row = journal.get(setup.hall.db, body["id"])
        assert receipt["id"] == row.id and receipt["row_hash"] == row.row_hash
        assert receipt["verdict"] == body["verdict"] == row.verdict
        assert receipt["words"] == body["words"] and receipt["kiosk"] == "table-1"
        assert receipt["type"] == "receipt" and len(receipt["journal"]) == 32
        assert independent_verify(receipt, public_pem)


def test_a_receipt_changed_in_any_field_no_longer_verifies(setup):
    client = make_app(setup.hall).test_client()
    public_pem = setup.hall.signing_key().public_pem()
    receipt = judge(client, setup, ["QX", "ZA"]).get_json()["receipt"]
    assert receipt["verdict"] == "UNACCEPTABLE"
    for name, value in (
        ("verdict", "ACCEPTABLE"),
        ("id", receipt["id"] + 1),
        ("row_hash", "0" * 64),
        ("words", ["QI", "ZA"]),
        ("kiosk", "table-2"),
    ):
        assert not independent_verify({**receipt, name: value}, public_pem), name
    other = Hall(setup.store, setup.hall.db, key_path=setup.db_path.parent / "other.pem")
    assert not independent_verify(receipt, other.signing_key().public_pem())


def test_the_key_is_made_once_with_mode_0600_and_journal_key_prints_it(run, home):
    printed = run("journal", "key")
    assert printed.exit_code == 0, printed.stderr
    path = home / "receipt_key.pem"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert printed.stdout.startswith("-----BEGIN PUBLIC KEY-----")
    assert "PRIVATE" not in printed.stdout
    again = run("journal", "key")
    assert again.stdout == printed.stdout  # made once, then read
    assert receipt_key.load(path).public_pem().strip() == printed.stdout.strip()


def _make_key(path: str, results) -> None:
    results.put(receipt_key.load_or_create(receipt_key.Path(path)).id)


def test_processes_starting_at_once_agree_on_one_key(tmp_path):
    path = tmp_path / "shared" / "key.pem"
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    workers = [context.Process(target=_make_key, args=(str(path), results)) for _ in range(6)]
    for worker in workers:
        worker.start()
    ids = {results.get(timeout=30) for _ in workers}
    for worker in workers:
        worker.join(10)
    assert len(ids) == 1
    assert not [p for p in path.parent.iterdir() if p.name != "key.pem"]  # no temp files left


def test_a_key_file_named_by_the_setting_is_shared_by_two_halls(tmp_path, monkeypatch):
    shared = tmp_path / "keys" / "hall.pem"
    monkeypatch.setenv("ADJUDICATOR_RECEIPT_KEY_FILE", str(shared))
    monkeypatch.setenv("ADJUDICATOR_HOME", str(tmp_path / "server-1"))
    first = receipt_key.load_or_create()
    monkeypatch.setenv("ADJUDICATOR_HOME", str(tmp_path / "server-2"))
    second = receipt_key.load_or_create()
    assert first.id == second.id and first.path == second.path == shared
    assert not (tmp_path / "server-2" / "receipt_key.pem").exists()


def test_a_key_readable_by_others_is_refused_and_nothing_is_judged(setup):
    key = setup.db_path.parent / "receipt_key.pem"
    setup.hall.signing_key()
    os.chmod(key, 0o644)
    fresh = Hall(setup.store, setup.hall.db, key_path=key, rate_limit=None)
    response = judge(make_app(fresh).test_client(), setup, ["QI"])
    assert response.status_code == 503
    body = response.get_json()
    assert "verdict" not in body and "signing key" in body["error"]
    assert str(key) not in body["error"]  # no file names for the public
    assert list(journal.entries(setup.hall.db)) == []  # not recorded either
    with pytest.raises(receipt_key.ReceiptKeyError, match="chmod 600"):
        receipt_key.load(key)


def test_a_damaged_key_file_is_refused_with_a_clear_message(tmp_path):
    key = tmp_path / "receipt_key.pem"
    key.write_text("not a key\n")
    os.chmod(key, 0o600)
    with pytest.raises(receipt_key.ReceiptKeyError, match="not a readable PEM private key"):
        receipt_key.load(key)


def test_the_qr_code_is_only_for_the_kiosk_that_made_the_adjudication(setup):
    app = make_app(setup.hall)
    nwl, csw = pair_browser(app, setup.nwl), pair_browser(app, setup.csw)
    receipt = nwl.post("/api/v1/adjudications", json={"words": ["QI"]}).get_json()["receipt"]
    own = nwl.post("/api/v1/kiosk/receipt-qr", json=receipt)
    assert own.status_code == 200 and own.mimetype == "image/svg+xml"
    assert own.get_data(as_text=True).lstrip().startswith(("<?xml", "<svg"))
    assert csw.post("/api/v1/kiosk/receipt-qr", json=receipt).status_code == 403
    forged = nwl.post("/api/v1/kiosk/receipt-qr", json={**receipt, "verdict": "UNACCEPTABLE"})
    assert forged.status_code == 400 and "does not verify" in forged.get_json()["error"]
    assert nwl.post("/api/v1/kiosk/receipt-qr", json={"id": 1}).status_code == 400
    assert app.test_client().post("/api/v1/kiosk/receipt-qr", json=receipt).status_code == 401


def test_a_second_opinion_is_signed_too(run, home):
    from adjudicator.hall import kiosks
    from adjudicator.words.store import LexiconStore
    from adjudicator.words.wordlist import WordSet

    LexiconStore().save("T", WordSet.of(["QI", "ZA", "CAT"]))
    assert run("tournament", "create", "t", "--lexicon", "T", "--rule", "double").exit_code == 0
    assert run("kiosk", "add", "k1", "--tournament", "t").exit_code == 0
    hall = Hall(rate_limit=None)
    original = hall.adjudicate(kiosks.get(hall.db, "k1"), ["QI", "ZA"])
    out = run("second-opinion", str(original.id), "QI", "ZAX", "--json")
    assert out.exit_code == 1, out.stderr
    receipt = json.loads(out.stdout)["receipt"]
    row = journal.get(hall.db, receipt["id"])
    assert (receipt["kind"], receipt["row_hash"], receipt["verdict"]) == (
        "second-opinion",
        row.row_hash,
        "UNACCEPTABLE",
    )
    assert independent_verify(receipt, run("journal", "key").stdout)
    other = hall.adjudicate(kiosks.get(hall.db, "k1"), ["CAT"])  # NSA Guideline 11g: no second
    text = run("second-opinion", str(other.id), "CAT")  # look at the same one by the same judge
    assert f"Receipt: {receipts.code(receipt)}" not in text.stdout  # another row, another code
    assert re.search(r"^Receipt: [0-9A-F]{4}-[0-9A-F]{4}$", text.stdout, re.M)


def test_the_judges_page_shows_the_second_opinions_receipt_code(tmp_path, monkeypatch):
    from support.director import build_staffed, csrf_token

    monkeypatch.setenv("ADJUDICATOR_HOME", str(tmp_path / "home"))
    staffed = build_staffed(tmp_path)
    original = staffed.challenge(["QI", "ZA"])
    judge = staffed.judge()
    page = judge.post(
        "/judge/second-opinion",
        data={"id": original.id, "words": "QI ZA", "csrf_token": csrf_token(judge, "/judge/")},
    )
    assert page.status_code == 201
    row = journal.get(staffed.db, original.id + 1)
    assert row.kind == "second-opinion"
    head = row.row_hash[:8].upper()
    assert f'<code id="receipt-code">{head[:4]}-{head[4:]}</code>' in page.get_data(as_text=True)


def test_serve_will_not_start_with_a_key_others_can_read(tmp_path):
    import subprocess
    import sys

    from support.servers import free_port

    home = tmp_path / "home"
    key = receipt_key.load_or_create(home / "receipt_key.pem")
    os.chmod(key.path, 0o640)
    done = subprocess.run(
        [sys.executable, "-m", "adjudicator", "serve", "--bind", f"127.0.0.1:{free_port()}"],
        env={**os.environ, "ADJUDICATOR_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert f"chmod 600 {key.path}" in done.stderr and "Traceback" not in done.stderr
