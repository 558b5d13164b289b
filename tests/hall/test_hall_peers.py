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


def test_a_note_carrying_a_takeover_of_this_journal_stops_judging_at_once(staffed, home):
    """The laptop that took the hall over carries its signed takeover statement in its notes
    (a laptop that froze and resumed learns it so): this laptop holds itself, with the refusal
    a restart gives, naming the other laptop; a statement not signed with the hall's key, of
    another journal, of this laptop's own install, or older than its own, changes nothing."""
    from adjudicator.errors import AdjudicatorError
    from adjudicator.record.copies import one_hall, takeover
    from adjudicator.record.database import journal_health

    hall = staffed.app.extensions["hall"]
    key = hall.signing_key()
    client = staffed.app.test_client()
    staffed.challenge(["QI"])
    journal_id = journal_health.journal_id(hall.db)
    mine = writer.install_id()
    stranger = SigningKey(Ed25519PrivateKey.generate(), home / "stranger.pem")

    def by_b(journal: str, install: str, seq: int, signer: SigningKey = key) -> dict:
        """A takeover statement, as laptop B's `kit open` signs it."""
        found = takeover.statement(signer, journal, 1, "x", install, seq)
        fields = {k: v for k, v in found.items() if k != "signature"}
        return signer.sign({**fields, "host": "laptop-b"})

    def carrying(statement: dict) -> dict:
        found = hall_peers.note(key, "club", 8443, True, statement)
        return key.sign({**{k: v for k, v in found.items() if k != "signature"},
                         "install": "b" * 32, "host": "laptop-b"})  # fmt: skip

    harmless = [
        by_b(journal_id, "b" * 32, 5, stranger),  # not signed with the hall's key
        by_b("another-journal", "b" * 32, 5),  # another journal's (a drill's, say)
        by_b(journal_id, mine, 5),  # this laptop's own
        {**by_b(journal_id, "b" * 32, 5), "row": 0},  # edited after it was signed
    ]
    for statement in harmless:
        status, answer = post_note(client, carrying(statement))
        assert status == 200 and answer["judging"] is True, answer
    assert client.get("/healthz").status_code == 200
    one_hall.refuse_if_taken_over(hall.db, hall.key_path)  # nothing learned

    # This laptop took the journal back since (its own statement, seq 6): seq 5 is older.
    primary = one_hall.primary_path(hall.db)
    takeover.write([primary], takeover.statement(key, journal_id, 1, "x", mine, 6))
    status, answer = post_note(client, carrying(by_b(journal_id, "b" * 32, 5)))
    assert status == 200 and answer["judging"] is True, answer
    assert answer["takeover"]["install"] == mine  # what it carries itself

    status, answer = post_note(client, carrying(by_b(journal_id, "b" * 32, 7)))
    assert status == 200 and answer["judging"] is False, answer
    health = client.get("/healthz")
    assert health.status_code == 503 and "waits for the director" in health.get_json()["error"]
    bearer = {"Authorization": f"Bearer {staffed.setup.nwl.token}"}
    judged = client.post("/api/v1/adjudications", json={"words": ["QI"]}, headers=bearer)
    assert judged.status_code == 503 and "verdict" not in judged.get_json(), judged.get_json()
    polled = client.get("/api/v1/kiosk", headers=bearer)  # still paired: never 401
    assert polled.status_code == 200 and polled.get_json()["journal"]["ok"] is False
    try:
        one_hall.refuse_if_taken_over(hall.db, hall.key_path)  # what every later start finds
    except AdjudicatorError as exc:
        refusal = str(exc)
    else:
        raise AssertionError("the takeover learned was not kept")
    assert refusal.startswith("THIS HALL WAS TAKEN OVER: the laptop 'laptop-b' (install bbbbbbbb)")
    assert "`adjudicator kit open DIR`" in refusal
    held = one_hall.journal_holds.current(hall.db)
    assert held.kind == "taken-over" and held.detail.startswith("THIS HALL WAS TAKEN OVER")
    try:  # `journal confirm-alone` does not lift it: only this laptop's own `kit open`
        one_hall.confirm_alone(hall.db, "the other laptop is gone", "cli:test")
    except AdjudicatorError:
        pass
    assert one_hall.journal_holds.current(hall.db).kind == "taken-over"
    assert client.get("/healthz").status_code == 503
