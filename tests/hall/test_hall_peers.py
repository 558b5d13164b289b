"""Another laptop of this hall tells this one it serves too (issue 40): `POST /hall/peer`, a note
signed with the hall's key, kept and shown in /healthz's warnings and on the overview (in the
page's language), answered with whether this laptop judges; a note anyone else made changes
nothing. (On a real network, in namespaces: test_two_laptops.py.)"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from adjudicator.hall import hall_peers
from adjudicator.hall.network import peers
from adjudicator.record.journal import writer
from adjudicator.record.journal.receipt_key import SigningKey, signature_ok


def post_note(client, body) -> tuple[int, dict]:
    answer = client.post("/hall/peer", data=json.dumps(body), content_type="application/json",
                         environ_base={"REMOTE_ADDR": "192.0.2.11"})  # fmt: skip
    return answer.status_code, answer.get_json()


def test_a_signed_note_is_kept_shown_and_answered(staffed, home):
    key = staffed.app.extensions["hall"].signing_key()
    client = staffed.app.test_client()
    writer.install_id()  # this laptop's, shown on the overview
    note = hall_peers.note(key, "club", 8443, True)
    note = key.sign({**{k: v for k, v in note.items() if k != "signature"}, "install": "b" * 32,
                     "host": "laptop-b"})  # fmt: skip
    status, answer = post_note(client, note)
    assert status == 200, answer
    assert answer["type"] == "hall-peer-answer" and answer["nonce"] == note["nonce"]
    assert answer["judging"] is True and signature_ok(answer, key.public)

    warnings = client.get("/healthz").get_json()["warnings"]
    assert len(warnings) == 1, warnings
    assert (
        "Another laptop (192.0.2.11, 'laptop-b' (install bbbbbbbb)) told this one" in (warnings[0])
    )
    assert "and judges" in warnings[0]
    director = staffed.director()
    overview = director.get("/director/").get_data(as_text=True)
    assert "told this one that it serves this hall too" in overview
    assert f"This laptop: {writer.this_laptop_if_known()}".replace("'", "&#39;") in overview
    director.set_cookie("language", "es")
    spanish = director.get("/director/").get_data(as_text=True)
    assert "avisó a este de que también sirve esta sala" in spanish

    # Told again: still one laptop, first heard kept, last heard now.
    assert post_note(client, hall_peers.note(key, "club", 8443, False))[0] == 200
    assert len(peers.current()) == 1 and peers.current()[0].judging is False


def test_a_note_anyone_else_made_is_refused_and_changes_nothing(staffed, home):
    key = staffed.app.extensions["hall"].signing_key()
    client = staffed.app.test_client()
    stranger = SigningKey(Ed25519PrivateKey.generate(), home / "stranger.pem")
    genuine = hall_peers.note(key, "club", 8443, True)
    stale = key.sign(
        {
            **{k: v for k, v in genuine.items() if k != "signature"},
            "at": (datetime.now(UTC) - timedelta(hours=1)).isoformat(timespec="seconds"),
        }
    )
    edited = {**genuine, "host": "someone-else"}
    answer = {**hall_peers.note(key, "club", 8443, True), "type": "hall-peer-answer"}
    for body in (hall_peers.note(stranger, "club", 8443, True), stale, edited, answer,
                 {"type": "hall-peer"}, ["a", "list"], "text"):  # fmt: skip
        status, said = post_note(client, body)
        assert status == 400 and "Not a note of this hall's laptops" in said["error"], said
    bad = client.post("/hall/peer", data=b"{not json", content_type="application/json")
    assert bad.status_code == 400
    assert client.get("/healthz").get_json()["warnings"] == []
    assert not peers.state_path().exists()


def test_a_laptop_that_starts_while_another_judges_holds_itself(staffed):
    """What `adjudicator hall` does when the laptop it tells answers that it judges."""
    hall = staffed.app.extensions["hall"]
    said = hall_peers.hold_for(hall.db, "192.0.2.11", {"install": "b" * 32, "host": "laptop-b"})
    assert "'laptop-b' (install bbbbbbbb) at 192.0.2.11" in said
    assert "adjudicator journal confirm-alone --reason TEXT" in said
    health = staffed.app.test_client().get("/healthz")
    assert health.status_code == 503 and "waits for the director" in health.get_json()["error"]
