"""What the kiosk status (GET /api/v1/kiosk) tells the page, for issue 36's papercuts 1 and 7:
whether its tournament is linked to TSH and its own table (so a kiosk of an unlinked tournament,
or with no table, never asks /api/v1/table), and the lexicon's description in the kiosk's
language, or nothing where there is no translation of it."""

from __future__ import annotations

from adjudicator.hall import kiosks, tournaments
from adjudicator.hall.tsh import links
from adjudicator.words.wordlist import WordSet

from support import tsh_files
from support.hall import NWL

SPANISH = "Spanish words from Debian's wspanish (not an official tournament list)"


def status(client, setup, enrolment=None) -> dict:
    answer = client.get("/api/v1/kiosk", headers=setup.headers(enrolment))
    assert answer.status_code == 200
    return answer.get_json()


def test_the_status_says_whether_tsh_pairs_the_kiosks_tournament_and_its_table(
    client, setup, tmp_path
):
    db = setup.hall.db
    first = status(client, setup)
    assert first["tournament"]["tsh_linked"] is False and first["table"] is None
    event = tsh_files.make_event({"A": 8}, 2, 1)
    links.link(db, NWL, str(tsh_files.write_tourney_js(tmp_path / "tourney.js", event)))
    assert status(client, setup)["tournament"]["tsh_linked"] is True
    kiosks.set_table(db, "table-1", 3)
    assert status(client, setup)["table"] == "3"
    links.unlink(db, NWL)
    assert status(client, setup)["tournament"]["tsh_linked"] is False


def test_a_description_is_shown_in_the_kiosks_language_or_not_at_all(client, setup):
    db, store = setup.hall.db, setup.store
    english = status(client, setup)["lexicon"]
    assert english["shown_description"] == english["description"] == "tiny NWL-like list"
    tournaments.update(db, store, NWL, language="fr")
    french = status(client, setup)["lexicon"]
    assert french["description"] == "tiny NWL-like list"  # the API's English, unchanged
    assert french["shown_description"] == ""  # no translation: the name says it

    store.save("ES-T", WordSet.of(["QI", "ZA"]), description=SPANISH)  # a shipped recipe's
    tournaments.create(db, store, "madrid", "ES-T", "double", "Open de Madrid", language="es")
    spanish = kiosks.add(db, "mesa-1", "madrid")
    said = status(client, setup, spanish)["lexicon"]
    assert said["shown_description"] == (
        "Palabras españolas del wspanish de Debian (no es una lista oficial de torneo)"
    )
    tournaments.update(db, store, "madrid", language="en")
    assert status(client, setup, spanish)["lexicon"]["shown_description"] == SPANISH
