"""Receipts as bad input: another kiosk's receipt sent as a witness, signatures that are not
the one canonical base64url text, a receipt line naming a key twice; and `journal audit`
printing the verdict and words of each receipt it holds the journal against."""

from __future__ import annotations

import base64
import json

import pytest

from adjudicator.hall.hall import Hall
from adjudicator.record.journal import receipt_key
from adjudicator.record.proofs import witnesses
from kiosk import create_app

from support.hall import SECRET_KEY, judged_by_api, spring_kiosks


@pytest.fixture
def answers(run, store, home, monkeypatch):
    """Two kiosks' 201 answers: {kiosk: [answer, ...]}, and the app."""
    tokens = spring_kiosks(run, store, monkeypatch, "k1", "k2")
    hall = Hall()
    client = create_app({"HALL": hall, "SECRET_KEY": SECRET_KEY}).test_client()
    given = {}
    for name, words in (("k1", ["QI", "ZA"]), ("k2", ["CAT"]), ("k1", ["QX"])):
        given.setdefault(name, []).append(judged_by_api(client, tokens[name], words))
    return given, client, tokens, hall


def test_a_kiosk_cannot_witness_with_another_kiosks_receipt(answers):
    given, client, tokens, hall = answers
    k1_newest = given["k1"][-1]["receipt"]
    response = client.post(
        "/api/v1/kiosk",
        json={"witness": k1_newest},
        headers={"Authorization": f"Bearer {tokens['k2']}"},
    )
    assert response.status_code == 200
    assert witnesses.newest_receipts(hall.db) == []  # not kept as k2's newest
    own = client.post(
        "/api/v1/kiosk",
        json={"witness": given["k2"][0]["receipt"]},
        headers={"Authorization": f"Bearer {tokens['k2']}"},
    )
    assert own.status_code == 200
    assert [r["kiosk"] for r in witnesses.newest_receipts(hall.db)] == ["k2"]


def test_only_the_canonical_base64url_signature_verifies(answers):
    given, _, _, hall = answers
    receipt = given["k1"][0]["receipt"]
    public = hall.signing_key().public
    assert receipt_key.signature_ok(receipt, public)
    text = receipt["signature"]
    standard = base64.b64encode(base64.urlsafe_b64decode(text)).decode()
    variants = [
        text[:10] + "!" + text[10:],  # a junk character
        text[:10] + " " + text[10:],
        text.rstrip("="),  # padding dropped
        text + "\n",
    ]
    if standard != text:
        variants.append(standard)  # '+' and '/' of the standard alphabet
    else:  # this signature happens to have neither: force one in
        variants.append(text.replace("A", "+", 1) if "A" in text else "+" + text[1:])
    for variant in variants:
        assert not receipt_key.signature_ok({**receipt, "signature": variant}, public), variant


def test_audit_refuses_a_duplicate_key_and_prints_what_each_receipt_says(answers, run, tmp_path):
    given, _, _, _ = answers
    good = given["k1"][0]["receipt"]
    line = json.dumps(good)
    duplicated = line[:-1] + ', "verdict": "UNACCEPTABLE"}'
    path = tmp_path / "receipts.jsonl"
    path.write_text(line + "\n" + duplicated + "\n")
    done = run("journal", "audit", str(path))
    assert done.exit_code == 1
    outcome = done.stdout
    assert "line 2" in outcome and "names the key 'verdict' twice" in outcome
    assert f"OK line 1 (row {good['id']}, kiosk k1" in outcome
    assert f": {good['verdict']} QI ZA" in outcome
