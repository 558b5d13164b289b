"""A challenge sent again after its answer was lost (the hall's Wi-Fi dropped it, the player
pressed JUDGE again): its attempt key gets back the verdict recorded, never a second row, on
SQLite and PostgreSQL; another challenge under the same key, or a key no page makes, is refused
with no verdict."""

from __future__ import annotations

import threading

import pytest

from adjudicator.hall import kiosks, tournaments
from adjudicator.hall.hall import Hall
from adjudicator.hall.people.ratelimit import RateLimit
from adjudicator.record.backends import connect
from adjudicator.record.journal import journal, retries

from support.hall import NWL, Setup, build_setup, build_store, make_app

KEY = "a1B2c3D4e5F6a7B8c9D0"
GAME = {"round": "3", "table": "7", "challenger": "Ann Smith"}


def post(client, setup, body):
    return client.post("/api/v1/adjudications", json=body, headers=setup.headers())


@pytest.fixture(params=["sqlite", "postgres"])
def hall_setup(request, tmp_path, monkeypatch):
    """The in-process hall (support.hall.build_setup) on each journal backend."""
    monkeypatch.setenv("ADJUDICATOR_HOME", str(tmp_path / "home"))
    if request.param == "sqlite":
        return build_setup(tmp_path)
    postgres = request.getfixturevalue("postgres")
    store = build_store(tmp_path / "lexicons")
    db = connect(postgres.new_database())
    hall = Hall(store, db, rate_limit=None, key_path=tmp_path / "receipt_key.pem")
    hall.upgrade()
    tournaments.create(db, store, NWL, "TINY-NWL", "5-per-word", "Spring Open (NWL division)")
    nwl = kiosks.add(db, "table-1", NWL)
    return Setup(hall, store, tmp_path / "unused.sqlite3", nwl, nwl)


def test_a_retry_gets_the_verdict_recorded_and_counts_nothing_twice(hall_setup):
    """Under the escalating rule (5, 5, 10, ... points a player's unsuccessful challenges in a
    game) a second row would count: the game's next challenge would draw 10, not 5. The retry
    gets the first answer back, receipt and all."""
    setup = hall_setup
    client = make_app(setup.hall).test_client()
    tournaments.update(setup.hall.db, setup.store, NWL, rule="escalating")
    challenge = {"words": ["QI"], **GAME, "attempt": KEY}
    first = post(client, setup, challenge)
    again = post(client, setup, challenge)
    assert first.status_code == again.status_code == 201
    assert again.get_json() == first.get_json()  # the same row, verdict, penalty and receipt
    assert first.get_json()["verdict"] == "ACCEPTABLE"  # an unsuccessful challenge
    rows = list(journal.entries(setup.hall.db))
    assert [row.id for row in rows] == [first.get_json()["id"]]
    assert rows[0].detail(retries.FIELD) == KEY  # kept in the hashed details
    assert journal.verify(setup.hall.db).ok
    # the next challenge (a key of its own) is the game's second unsuccessful one
    second = post(client, setup, {**challenge, "attempt": KEY[::-1]}).get_json()
    assert second["id"] == first.get_json()["id"] + 1
    assert first.get_json()["penalty"]["points_to_player"] == 5
    assert second["penalty"]["points_to_player"] == 5  # the game's second, not its third


@pytest.mark.parametrize(
    "change",
    [{"words": ["QI"]}, {"words": ["QX", "ZA"]}, {"table": "8"}, {"challenger": "Bo Lee"}],
)
def test_the_same_key_for_another_challenge_is_refused_with_no_verdict(client, setup, change):
    tournaments.update(setup.hall.db, setup.store, NWL, rule="escalating")
    challenge = {"words": ["QX"], **GAME, "attempt": KEY}
    assert post(client, setup, challenge).status_code == 201
    refused = post(client, setup, {**challenge, **change})
    body = refused.get_json()
    assert refused.status_code == 409 and body["ok"] is False
    assert body["error"] == (
        "This attempt was already judged as another challenge: judge it as a new one."
    )
    assert "verdict" not in body and "ACCEPTABLE" not in refused.get_data(as_text=True)
    assert len(list(journal.entries(setup.hall.db))) == 1


@pytest.mark.parametrize(
    "key",
    ["short", "a" * 65, "has_an_underscore_x", "with%percent%sign", "tiles ÄÖÜ abcdefghijkl", 12],
)
def test_a_key_no_kiosk_page_makes_is_refused_saying_what_to_send(client, setup, key):
    response = post(client, setup, {"words": ["QI"], "attempt": key})
    body = response.get_json()
    assert response.status_code == 400
    assert body["error"] == (
        "attempt must be 16 to 64 letters and digits (the kiosk page makes one for each "
        "challenge), or left out."
    )
    assert list(journal.entries(setup.hall.db)) == []


def test_a_retry_at_the_kiosks_rate_limit_still_gets_its_verdict(tmp_path, monkeypatch):
    """The retry is found before the limit is counted: it records nothing, so it is not
    refused as one challenge too many."""
    monkeypatch.setenv("ADJUDICATOR_HOME", str(tmp_path / "home"))
    setup = build_setup(tmp_path, rate_limit=RateLimit(1, 60))
    client = make_app(setup.hall).test_client()
    first = post(client, setup, {"words": ["QI"], "attempt": KEY})
    assert first.status_code == 201
    assert post(client, setup, {"words": ["ZA"]}).status_code == 429  # the limit is real
    again = post(client, setup, {"words": ["QI"], "attempt": KEY})
    assert again.status_code == 201 and again.get_json()["id"] == first.get_json()["id"]
    assert len(list(journal.entries(setup.hall.db))) == 1


def test_retries_racing_each_other_record_one_row(hall_setup):
    """Eight requests with one key at once (the group commit puts several in one batch): each
    gets the one row, and the journal holds it once."""
    setup = hall_setup
    hall = setup.hall
    kiosk = kiosks.by_token(hall.db, setup.nwl.token)
    barrier = threading.Barrier(8)
    found: list[int] = []
    failed: list[BaseException] = []

    def judge() -> None:
        try:
            barrier.wait()
            found.append(hall.adjudicate(kiosk, ["QI", "ZA"], attempt=KEY).id)
        except BaseException as exc:  # noqa: BLE001 - reported below
            failed.append(exc)

    threads = [threading.Thread(target=judge) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failed, failed
    rows = list(journal.entries(hall.db))
    assert len(rows) == 1 and found == [rows[0].id] * 8


def test_a_retry_whose_row_was_never_committed_is_not_judged_either(client, setup, monkeypatch):
    """The retry found its row in the same batch, and that batch's commit failed (or another
    row took the number since): it reads the row back after the batch, finds it is not the
    one, and answers 503 with no verdict, like the request it repeated."""
    first = post(client, setup, {"words": ["QI"], "attempt": KEY}).get_json()
    ghost = first["id"] + 1  # a number no committed row of this attempt has

    def found_uncommitted(*_):
        raise retries.AlreadyRecorded(ghost)  # read when called: each case below sets it

    monkeypatch.setattr(retries, "recorded", found_uncommitted)
    response = post(client, setup, {"words": ["QI"], "attempt": KEY[::-1]})
    body = response.get_json()
    assert response.status_code == 503 and "verdict" not in body
    assert body["error"].startswith("NOT JUDGED: the verdict could not be recorded.")
    # a number another attempt's row holds is not the retry's either
    ghost = first["id"]
    response = post(client, setup, {"words": ["QI"], "attempt": KEY[::-1]})
    assert response.status_code == 503 and "verdict" not in response.get_json()
    assert [row.id for row in journal.entries(setup.hall.db)] == [first["id"]]


def test_another_kiosks_key_finds_nothing_of_this_kiosk(client, setup):
    """A key is looked up among the sending kiosk's own challenges only: another kiosk sending
    it (guessed, or copied off a screen) is judged afresh and is never given this one's row."""
    first = post(client, setup, {"words": ["QI"], "attempt": KEY}).get_json()
    other = client.post(
        "/api/v1/adjudications",
        json={"words": ["QI"], "attempt": KEY},
        headers=setup.headers(setup.csw),
    )
    assert other.status_code == 201
    assert other.get_json()["id"] == first["id"] + 1
    assert other.get_json()["receipt"]["kiosk"] != first["receipt"]["kiosk"]
    assert len(list(journal.entries(setup.hall.db))) == 2


def test_a_retry_is_found_among_the_kiosks_newest_challenges_only(client, setup):
    """The look-up reads a bounded number of the kiosk's rows (retries.NEWEST), whatever the
    journal's length: a key older than that is a new challenge (the page never sends one)."""
    first = post(client, setup, {"words": ["QI"], "attempt": KEY}).get_json()
    for n in range(retries.NEWEST - 1):
        assert post(client, setup, {"words": ["ZA"], "attempt": f"{KEY}{n:04d}"}).status_code == 201
    assert post(client, setup, {"words": ["QI"], "attempt": KEY}).get_json()["id"] == first["id"]
    assert post(client, setup, {"words": ["ZA"]}).status_code == 201
    late = post(client, setup, {"words": ["QI"], "attempt": KEY}).get_json()
    assert late["id"] == first["id"] + retries.NEWEST + 1


def test_the_same_key_for_another_challenge_is_said_in_the_kiosks_language(client, setup):
    assert post(client, setup, {"words": ["QI"], "attempt": KEY}).status_code == 201
    refused = client.post(
        "/api/v1/adjudications",
        json={"words": ["ZA"], "attempt": KEY},
        headers={**setup.headers(), "Accept-Language": "es"},
    )
    assert refused.status_code == 409
    assert refused.get_json()["shown_error"] == (
        "Este intento ya se juzgó como otra impugnación: júzguela como una nueva."
    )


CORRECTED = (
    "This challenge was judged, and the director or a word judge has acted on it since: ask "
    "the director for its outcome."
)


def correct(setup, kind: str, row_id: int) -> None:
    """The director acts on challenge `row_id` (its answer never shown on the kiosk)."""
    from adjudicator.judging.corrections import final_ruling, voids

    staff = {"actor": "director", "station": "laptop"}
    if kind == "void":
        voids.void(setup.hall.db, row_id, "The kiosk said NOT JUDGED.", **staff)
    else:
        final_ruling.record_ruling(
            setup.hall.db, row_id, "UNACCEPTABLE", "The players asked me.", **staff
        )


@pytest.mark.parametrize("kind", ["void", "ruling"])
def test_a_retry_of_a_challenge_acted_on_since_never_shows_its_first_verdict(hall_setup, kind):
    """Lost answer, retry (the same row), then the director voids or rules on the challenge:
    the kiosk's next retry under the key is refused (409, in the kiosk's language), nothing is
    recorded; JUDGE again is a new challenge, and its own retry gets its own row back."""
    setup = hall_setup
    client = make_app(setup.hall).test_client()
    challenge = {"words": ["QI"], **GAME, "attempt": KEY}
    first = post(client, setup, challenge).get_json()
    assert post(client, setup, challenge).get_json() == first  # the answer lost: a retry
    correct(setup, kind, first["id"])
    rows = len(list(journal.entries(setup.hall.db)))
    refused = client.post(
        "/api/v1/adjudications",
        json=challenge,
        headers={**setup.headers(), "Accept-Language": "es"},
    )
    body = refused.get_json()
    assert refused.status_code == 409 and body["error"] == CORRECTED
    assert body["shown_error"].startswith("Esta impugnación ya se juzgó")
    assert "verdict" not in body and "ACCEPTABLE" not in str(body)
    assert len(list(journal.entries(setup.hall.db))) == rows  # nothing recorded
    anew = {**challenge, "attempt": KEY[::-1]}  # the page's next JUDGE: a new key
    second = post(client, setup, anew)
    assert second.status_code == 201 and second.get_json()["id"] == rows + 1
    assert post(client, setup, anew).get_json() == second.get_json()  # its own retry
    assert journal.verify(setup.hall.db).ok
