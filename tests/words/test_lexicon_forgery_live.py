"""The lexicon a verdict names is the lexicon that judged (issue 22, item 6), with a real
server and the real NWL2020 and NWL2023: a manifest forged in the data home, naming NWL2020's
compiled file, checksum and count under NWL2023's name and fingerprint, must take NWL2023 out
of service (503 "call the director"), never judge ABDOMINOPLASTY (NWL2023 only) UNACCEPTABLE
under NWL2023's fingerprint."""

from __future__ import annotations

import json
import shutil

import pytest

from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet

from support.paths import SHARED_LEXICONS, present
from support.servers import Server, cli, post

pytestmark = pytest.mark.slow


def real(name: str) -> WordSet:
    path = present(SHARED_LEXICONS / f"{name}.txt")
    return WordSet.of(w.strip().upper() for w in path.read_text().splitlines() if w.strip())


def test_a_forged_manifest_takes_the_lexicon_out_of_service(tmp_path):
    home = tmp_path / "home"
    store = LexiconStore(root=home / "lexicons")
    old = store.save("NWL2020", real("NWL2020"))
    new = store.save("NWL2023", real("NWL2023"))
    cli(home, "tournament", "create", "hall", "--lexicon", "NWL2023", "--rule", "double")
    token = cli(home, "kiosk", "add", "k1", "--tournament", "hall").strip().splitlines()[-1]
    home_env = type("Home", (), {"path": home, "token": token, "env": {}})()
    with Server(home_env, workers=2, env={"ADJUDICATOR_LEXICON_RECHECK_SECONDS": "2"}) as server:
        status, body = post(server.url, token, ["ABDOMINOPLASTY"])
        assert status == 201 and body["verdict"] == "ACCEPTABLE"

        # The forgery: NWL2020's file, checksum and count under NWL2023's name and fingerprint.
        forged_file = store.root / ("forged-" + old.compiled_file)
        shutil.copyfile(store.root / old.compiled_file, forged_file)
        manifest = json.loads(store.manifest_path("NWL2023").read_text())
        manifest.update(
            compiled_file=forged_file.name, compiled_sha256=old.compiled_sha256, words=old.words
        )
        assert manifest["fingerprint"] == new.fingerprint
        store.manifest_path("NWL2023").write_text(json.dumps(manifest))

        answers = [post(server.url, token, ["ABDOMINOPLASTY"]) for _ in range(20)]
    assert {status for status, _ in answers} == {503}, answers
    for _, body in answers:
        assert "verdict" not in body and "call the director" in body["error"]
    assert "NWL2023" in LexiconStore(root=home / "lexicons").out_of_service()
    rows = json.loads(cli(home, "journal", "export", "--format", "json"))
    assert [row["verdict"] for row in rows] == ["ACCEPTABLE"]  # nothing judged by the forgery
