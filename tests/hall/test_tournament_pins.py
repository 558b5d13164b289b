"""A tournament records its lexicon's pin (issue 27, item 4): a lexicon whose pin differs (a
referral rule or an alphabet changed, even with the same words) judges nothing for it until the
director sets it again; the overview says which fields changed and what to do, in the page's
language; tournaments set before pins get one at the upgrade (migration 15), only where nothing
contradicts the old manifest."""

from __future__ import annotations

import json

import pytest

from adjudicator.hall import tournament_pins, tournaments
from adjudicator.hall.director import hall_status
from adjudicator.hall.hall import Hall, LexiconUnavailable
from adjudicator.judging.corrections.second_opinion import SecondOpinionRefused
from adjudicator.record.backends import connect
from adjudicator.record.database import migrations
from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet

from support.director import give_opinion, post_form, upload_list
from support.hall import CSW, NWL, NWL_WORDS, ok

pytestmark = pytest.mark.usefixtures("fast_hashes")  # cheap password hashes for the staff


def same_words_new_rule(store: LexiconStore, name: str, limit: int) -> None:
    """Re-import `name` with the same words and another referral limit (as --force does)."""
    store.save(name, WordSet.of(store.open(name)), refer_longer_than=limit)


def test_a_tournament_records_the_pin_of_the_lexicon_it_was_set_with(staffed):
    nwl = tournaments.get(staffed.db, NWL)
    manifest = staffed.store.manifest("TINY-NWL")
    assert nwl.lexicon_pin == manifest.pin
    assert json.loads(nwl.lexicon_pinned) == manifest.pinned
    assert nwl.to_api()["lexicon_pin"] == manifest.pin


def test_the_same_words_with_another_referral_rule_judge_nothing_until_set_again(staffed):
    assert staffed.challenge(["QI", "ZZ"]).verdict == "UNACCEPTABLE"
    same_words_new_rule(staffed.store, "TINY-NWL", 1)
    nwl = tournaments.get(staffed.db, NWL)
    with pytest.raises(LexiconUnavailable, match="has changed since the director set it") as no:
        staffed.setup.hall.lexicon_for(nwl)
    detail = tournament_pins.in_english(no.value.detail)
    assert "(refer_longer_than 0 -> 1)" in detail
    assert f"adjudicator tournament set {NWL} --lexicon TINY-NWL" in detail
    with pytest.raises(LexiconUnavailable):
        staffed.challenge(["QI"])  # no verdict, nothing recorded

    tournaments.update(staffed.db, staffed.store, NWL, title="Renamed")  # not a lexicon change
    with pytest.raises(LexiconUnavailable):
        staffed.challenge(["QI"])
    tournaments.update(staffed.db, staffed.store, NWL, lexicon="TINY-NWL")  # the director
    assert staffed.challenge(["QI", "ZZ"]).verdict == "REFER"  # the new rule: ZZ missing, over 1
    assert tournaments.get(staffed.db, CSW).lexicon_pin == staffed.store.manifest("TINY-CSW").pin


def test_the_overview_names_the_change_and_what_to_do(staffed):
    same_words_new_rule(staffed.store, "TINY-NWL", 7)
    status = hall_status.build(staffed.setup.hall)
    nwl = next(t for t in status.tournaments if t.tournament.slug == NWL)
    assert "(refer_longer_than 0 -> 7)" in nwl.lexicon_problem
    assert status.problems == (f"Spring Open (NWL division): {nwl.lexicon_problem}",)
    page = staffed.director().get("/director/").get_data(as_text=True)
    assert "Lexicon TINY-NWL has changed since the director set it for Spring Open (NWL " in page
    assert "(refer_longer_than 0 -&gt; 7)" in page
    assert f"adjudicator tournament set {NWL} --lexicon TINY-NWL" in page
    french = staffed.director().get("/director/", headers={"Accept-Language": "fr"})
    text = french.get_data(as_text=True)
    assert "Le lexique TINY-NWL a changé depuis que le directeur l&#39;a choisi" in text
    assert "il ne juge plus rien pour ce tournoi" in text


def test_the_tournaments_page_marks_it_and_setting_it_again_confirms_the_new_pin(staffed):
    same_words_new_rule(staffed.store, "TINY-NWL", 7)
    director = staffed.director()
    page = director.get("/director/tournaments").get_data(as_text=True)
    row = page.split(f'id="tournament-{NWL}"')[1].split("</tr>")[0]
    assert "changed since set" in row
    manifest = staffed.store.manifest("TINY-NWL")
    confirm = post_form(director, f"/director/tournaments/{NWL}/confirm", {"lexicon": "TINY-NWL"})
    assert f'id="new-lexicon-pin">{manifest.pin}<' in confirm.get_data(as_text=True)
    done = post_form(
        director,
        f"/director/tournaments/{NWL}/apply",
        {"lexicon": "TINY-NWL", "fingerprint": manifest.fingerprint, "pin": manifest.pin},
        follow_redirects=True,
    )
    assert "now judges with TINY-NWL" in done.get_data(as_text=True)
    assert tournaments.get(staffed.db, NWL).lexicon_pin == manifest.pin
    assert staffed.challenge(["QI", "ZZ"]).verdict == "UNACCEPTABLE"  # ZZ: 2 letters, not over 7
    assert staffed.challenge(["QI", "ZZZZZZZZ"]).verdict == "REFER"


def test_the_cli_shows_the_pin_and_why_it_is_out_of_service(run, home):
    store = LexiconStore(home / "lexicons")
    store.save("TINY-NWL", WordSet.of(NWL_WORDS))
    ok(run("tournament", "create", "open", "--lexicon", "TINY-NWL", "--rule", "double"))
    pin = store.manifest("TINY-NWL").pin
    listed = json.loads(ok(run("tournament", "list", "--json")))
    assert listed[0]["lexicon_pin"] == pin
    assert json.loads(ok(run("tournament", "show", "open", "--json")))["lexicon_pin"] == pin
    assert f"  pin:     {pin[:12]} (words, referral rule, alphabet, as set)" in ok(
        run("tournament", "show", "open")
    )
    same_words_new_rule(store, "TINY-NWL", 9)
    shown = ok(run("tournament", "show", "open"))
    assert "  NOT IN SERVICE: Lexicon TINY-NWL has changed since the director set it" in shown
    assert "(refer_longer_than 0 -> 9)" in shown
    again = ok(run("tournament", "set", "open", "--lexicon", "TINY-NWL"))
    assert "NOT IN SERVICE" not in again
    assert (
        json.loads(ok(run("tournament", "list", "--json")))[0]["lexicon_pin"]
        == (store.manifest("TINY-NWL").pin)
        != pin
    )


def test_reimporting_warns_of_each_tournament_left_behind(run, home, tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("\n".join(NWL_WORDS))
    recipe = tmp_path / "r.toml"
    recipe.write_text('name = "R"\nsources = ["words.txt"]\nrefer_longer_than = 9\n')
    ok(run("lexicon", "import", "--recipe", str(recipe)))
    ok(run("tournament", "create", "open", "--lexicon", "R", "--rule", "double"))
    recipe.write_text('name = "R"\nsources = ["words.txt"]\nrefer_longer_than = 7\n')
    again = run("lexicon", "import", "--recipe", str(recipe), "--force")
    assert again.exit_code == 0
    assert "Warning: tournament open was set with another pin of R" in again.stderr
    assert "adjudicator tournament set open --lexicon R" in again.stderr
    ok(run("tournament", "set", "open", "--lexicon", "R"))
    quiet = run("lexicon", "import", "--recipe", str(recipe), "--force")  # the same pin
    assert quiet.exit_code == 0 and quiet.stderr == ""


def test_a_new_lexicon_name_makes_no_journal(run, home, tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("\n".join(NWL_WORDS))
    ok(run("lexicon", "import", str(words), "--name", "FRESH"))
    assert not (home / "journal.sqlite3").exists()


# ---------- migration 15: tournaments set before pins ----------


@pytest.fixture
def before_pins(tmp_path, monkeypatch, db_url):
    """A journal at the schema before migration 15 (on SQLite, then PostgreSQL), with tournament
    `old` on TINY-NWL whose manifest carries no pin (both as an older program left them)."""
    store = LexiconStore(root=tmp_path / "lexicons")
    manifest = store.save("TINY-NWL", WordSet.of(NWL_WORDS))
    path = store.manifest_path("TINY-NWL")
    data = json.loads(path.read_text())
    del data["pin"], data["pinned"]
    path.write_text(json.dumps(data))
    database = connect(db_url)
    everything = migrations.MIGRATIONS
    monkeypatch.setattr(migrations, "MIGRATIONS", tuple(m for m in everything if m[0] != 15))
    migrations.upgrade(database)
    with database.transaction() as cur:
        cur.execute(
            "INSERT INTO tournaments (slug, title, lexicon, lexicon_fingerprint, rule, created_at,"
            " updated_at) VALUES ('old', 'Old', 'TINY-NWL', ?, 'double', 'then', 'then')",
            (manifest.fingerprint,),
        )
    monkeypatch.setattr(migrations, "MIGRATIONS", everything)
    yield store, database
    database.close()


def test_an_old_tournament_gets_its_lexicons_pin_at_the_upgrade(before_pins):
    store, database = before_pins
    hall = Hall(LexiconStore(store.root), database, rate_limit=None)
    assert 15 in hall.upgrade()
    old = tournaments.get(database, "old")
    assert old.lexicon_pin == store.manifest("TINY-NWL").current_pin
    assert hall.lexicon_for(old).manifest.words == len(NWL_WORDS)


def test_an_old_tournament_on_a_forged_old_manifest_is_left_unpinned(before_pins):
    store, database = before_pins
    path = store.manifest_path("TINY-NWL")
    path.write_text(json.dumps({**json.loads(path.read_text()), "refer_longer_than": 4}))
    hall = Hall(LexiconStore(store.root), database, rate_limit=None)
    hall.upgrade()
    old = tournaments.get(database, "old")
    assert old.lexicon_pin is None
    with pytest.raises(LexiconUnavailable):
        hall.lexicon_for(old)  # the forged manifest itself is refused, naming the field
    assert "refer_longer_than is 4 in the manifest" in hall.store.out_of_service()["TINY-NWL"]
    # the director imports the list again (a pin of its own) and sets it: judging resumes
    hall.store.save("TINY-NWL", WordSet.of(NWL_WORDS))
    with pytest.raises(LexiconUnavailable) as no:
        hall.lexicon_for(old)
    assert "has no pin recorded for lexicon TINY-NWL" in tournament_pins.in_english(no.value.detail)
    tournaments.update(database, hall.store, "old", lexicon="TINY-NWL")
    assert hall.lexicon_for(tournaments.get(database, "old"))


def test_an_old_tournament_whose_lexicon_has_other_words_is_left_unpinned(before_pins):
    store, database = before_pins
    store.save("TINY-NWL", WordSet.of([*NWL_WORDS, "ZZZ"]))
    hall = Hall(LexiconStore(store.root), database, rate_limit=None)
    hall.upgrade()
    assert tournaments.get(database, "old").lexicon_pin is None


def test_a_forced_upload_on_the_lexicons_page_names_the_tournaments_left_behind(staffed, home):
    director = staffed.director()
    words = "\n".join([*NWL_WORDS, "ZZZ"]).encode()
    response = upload_list(director, words, name="TINY-NWL", force="1")
    page = response.get_data(as_text=True)
    assert response.status_code == 201
    assert f"Tournament {NWL} was set with another pin of this lexicon" in page
    assert f"Tournament {CSW} was set" not in page
    with pytest.raises(LexiconUnavailable):
        staffed.challenge(["QI"])


def test_no_second_opinion_from_a_lexicon_out_of_service_for_its_tournament(staffed):
    """The word judge's re-adjudication uses the rules of the tournament's lexicon as set."""
    original = staffed.challenge(["QI", "ZZ"])
    same_words_new_rule(staffed.store, "TINY-NWL", 1)
    pin = tournament_pins.pin_for(staffed.db, original.id)
    assert pin == tournaments.get(staffed.db, NWL).lexicon_pin
    with pytest.raises(SecondOpinionRefused, match="a second opinion must use the same rules"):
        give_opinion(staffed, original.id, ["QI", "ZZ"], pin=pin)
    tournaments.update(staffed.db, staffed.store, NWL, lexicon="TINY-NWL")
    pin = tournament_pins.pin_for(staffed.db, original.id)
    opinion = give_opinion(staffed, original.id, ["QI", "ZZ"], pin=pin, dictionary="unacceptable")
    assert opinion.entry.verdict == "UNACCEPTABLE"
    assert tournament_pins.pin_for(staffed.db, 999) is None


def test_the_overview_names_a_forged_field(staffed):
    path = staffed.store.manifest_path("TINY-NWL")
    path.write_text(json.dumps({**json.loads(path.read_text()), "refer_longer_than": 4}))
    with pytest.raises(LexiconUnavailable, match="Lexicon unavailable for Spring Open"):
        staffed.challenge(["QI"])
    page = staffed.director().get("/director/").get_data(as_text=True)
    assert "Lexicon TINY-NWL is out of service: Lexicon TINY-NWL does not match its pin: " in page
    assert "refer_longer_than is 4 in the manifest, but the pin says 0" in page
