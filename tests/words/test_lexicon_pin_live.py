"""Every field that decides a verdict is pinned (issue 27, item 4), against a real
`adjudicator serve` and the real first-edition OWL built with the shipped nsa-1998 recipe
(missing words of more than 9 letters go to a word judge).

The break: a manifest edited to `refer_longer_than: 4` and `refer_even_if_listed: true` passed
`lexicon verify`, and after a restart STREET went to a word judge (REFER) under the pinned
fingerprint. Now the forged rule is out of service while the hall serves, within one re-check
(an edit in place moves no folder time), and `lexicon verify` names the field; a re-import with
a new limit is a new lexicon the director must set on the tournament."""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import replace
from pathlib import Path

import pytest

from adjudicator.words.store import LexiconStore

from support.paths import SHARED_LEXICONS, present
from support.servers import Server, cli, post
from support.servers import run_cli as run

pytestmark = pytest.mark.slow

ENGLISH = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
RECHECK = 2  # seconds: ADJUDICATOR_LEXICON_RECHECK_SECONDS for these servers
NAME = "OWL-NSA1998"
LONG_MISSING = "ABDOMINOPLASTY"  # 14 letters, not in OWL: REFER under the 9-letter rule


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """A data home with the real OWL and the nsa-1998 recipe built on it (made once)."""
    owl = present(SHARED_LEXICONS / "zyzzyva" / "OWL.zyzzyva.txt")
    home = tmp_path_factory.mktemp("pin") / "home"
    cli(home, "lexicon", "import", str(owl), "--name", "OWL")
    cli(home, "lexicon", "import", "--recipe", "nsa-1998")
    return home


@pytest.fixture
def hall(built, tmp_path):
    """A copy of the built home with tournament `open` on OWL-NSA1998 and kiosk k1."""
    home = tmp_path / "home"
    shutil.copytree(built, home)
    cli(home, "tournament", "create", "open", "--lexicon", NAME, "--rule", "double")
    token = cli(home, "kiosk", "add", "k1", "--tournament", "open").strip().splitlines()[-1]
    return type("Home", (), {"path": home, "token": token, "env": {}})()


def serving(hall) -> Server:
    return Server(hall, workers=2, env={"ADJUDICATOR_LEXICON_RECHECK_SECONDS": str(RECHECK)})


def edit_in_place(path: Path, **changes) -> None:
    """Rewrite a manifest in the same file (no rename: the folder's times do not move)."""
    data = json.loads(path.read_text())
    data.update(changes)
    with open(path, "r+") as handle:
        handle.seek(0)
        handle.write(json.dumps(data, indent=2, sort_keys=True))
        handle.truncate()


def answers_within_recheck(server: Server, token: str, words: list[str]) -> list:
    """Challenges sent for a little more than two re-checks (each worker checks on its own)."""
    answers = []
    deadline = time.monotonic() + 2 * RECHECK + 3
    while time.monotonic() < deadline:
        answers.append(post(server.url, token, words))
        time.sleep(0.1)
    return answers


def verdicts(home: Path) -> list[tuple[list[str], str]]:
    rows = json.loads(cli(home, "journal", "export", "--format", "json"))
    return [(row["words"], row["verdict"]) for row in rows]


def test_a_forged_referral_rule_is_out_of_service_within_one_recheck(hall):
    manifest = hall.path / "lexicons" / f"{NAME}.json"
    with serving(hall) as server:
        assert post(server.url, hall.token, ["STREET"])[1]["verdict"] == "ACCEPTABLE"
        assert post(server.url, hall.token, [LONG_MISSING])[1]["verdict"] == "REFER"

        edit_in_place(manifest, refer_longer_than=4, refer_even_if_listed=True)
        answers = answers_within_recheck(server, hall.token, ["STREET"])
        assert all(status in (201, 503) for status, _ in answers), answers
        assert not any(body.get("verdict") == "REFER" for _, body in answers)
        status, body = answers[-1]
        assert status == 503 and "verdict" not in body
        assert "lexicon unavailable" in body["error"].lower()
    with serving(hall) as server:  # the restart that used to judge with the forged rule
        after_restart = post(server.url, hall.token, ["STREET"])
    assert after_restart[0] == 503 and "verdict" not in after_restart[1]
    assert ([LONG_MISSING], "REFER") in verdicts(hall.path)
    assert all(verdict != "REFER" for words, verdict in verdicts(hall.path) if words == ["STREET"])

    checked = run(hall.path, "lexicon", "verify", NAME)
    assert checked.returncode == 1, checked
    assert "refer_longer_than is 4 in the manifest, but the pin says 9" in checked.stderr
    assert "refer_even_if_listed is true in the manifest, but the pin says false" in checked.stderr
    out_of_service = LexiconStore(root=hall.path / "lexicons").out_of_service()
    assert "refer_longer_than is 4 in the manifest" in out_of_service[NAME]


def test_a_forgery_that_pins_itself_is_not_the_tournaments_lexicon(hall):
    """The forger recomputes the pin as well: the manifest is self-consistent, so `lexicon
    verify` passes, but it is not what the tournament was set with."""
    store = LexiconStore(root=hall.path / "lexicons")
    repinned = replace(store.manifest(NAME), refer_longer_than=4).with_pin()
    with serving(hall) as server:
        assert post(server.url, hall.token, ["STREET"])[1]["verdict"] == "ACCEPTABLE"
        edit_in_place(
            store.manifest_path(NAME),
            refer_longer_than=4,
            pin=repinned.pin,
            pinned=repinned.pinned,
        )
        answers = answers_within_recheck(server, hall.token, ["STREET"])
        status, body = answers[-1]
        assert status == 503 and "verdict" not in body
        assert "has changed since the director set it" in body["error"]
    assert run(hall.path, "lexicon", "verify", NAME).returncode == 0
    shown = run(hall.path, "tournament", "show", "open")
    assert "NOT IN SERVICE" in shown.stdout and "refer_longer_than 9 -> 4" in shown.stdout


def test_a_reimport_with_a_new_limit_waits_for_the_director(hall, tmp_path):
    recipe = tmp_path / "nsa-1998-strict.toml"
    recipe.write_text(
        f'name = "{NAME}"\nsources = ["OWL"]\nrefer_longer_than = 4\nrefer_even_if_listed = true\n'
    )
    with serving(hall) as server:
        assert post(server.url, hall.token, ["STREET"])[1]["verdict"] == "ACCEPTABLE"
        refused = run(hall.path, "lexicon", "import", "--recipe", str(recipe))
        assert refused.returncode == 2 and "--force" in refused.stderr
        imported = run(hall.path, "lexicon", "import", "--recipe", str(recipe), "--force")
        assert imported.returncode == 0, imported.stderr
        assert "tournament set open --lexicon OWL-NSA1998" in imported.stderr

        status, body = post(server.url, hall.token, ["STREET"])  # a rename: seen at once
        assert status == 503 and "has changed since the director set it" in body["error"]
        listed = json.loads(cli(hall.path, "tournament", "list", "--json"))
        assert (
            listed[0]["lexicon_pin"]
            != LexiconStore(hall.path / "lexicons").manifest(NAME).current_pin
        )

        cli(hall.path, "tournament", "set", "open", "--lexicon", NAME)
        status, body = post(server.url, hall.token, ["STREET"])
        assert status == 201 and body["verdict"] == "REFER"  # the new rule: listed, over 4
        assert post(server.url, hall.token, ["CAT"])[1]["verdict"] == "ACCEPTABLE"
    listed = json.loads(cli(hall.path, "tournament", "list", "--json"))
    assert listed[0]["lexicon_pin"] == LexiconStore(hall.path / "lexicons").manifest(NAME).pin


def test_a_forged_alphabet_name_is_out_of_service_within_one_recheck(hall):
    manifest = hall.path / "lexicons" / f"{NAME}.json"
    with serving(hall) as server:
        assert post(server.url, hall.token, ["STREET"])[1]["verdict"] == "ACCEPTABLE"
        edit_in_place(manifest, alphabet={"name": "english-club", "tiles": list(ENGLISH)})
        status, body = answers_within_recheck(server, hall.token, ["STREET"])[-1]
        assert status == 503 and "lexicon unavailable" in body["error"].lower()
    checked = run(hall.path, "lexicon", "verify", NAME)
    assert checked.returncode == 1
    assert 'alphabet.name is "english-club" in the manifest, but the pin says "english"' in (
        checked.stderr
    )


SWEDISH = """name = "swedish-club"
tiles = ["A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M", "N", "O", "P", "R",
         "S", "T", "U", "V", "X", "Y", "Z", "Å", "Ä", "Ö"]
"""


def test_a_federations_alphabet_file_edited_is_a_new_lexicon(tmp_path):
    """The manifest records the alphabet as imported: the file edited on disk changes nothing
    until it is imported again, and then the tournament waits for the director."""
    home = tmp_path / "home"
    alphabet, words = tmp_path / "swedish.toml", tmp_path / "words.txt"
    alphabet.write_text(SWEDISH, encoding="utf-8")
    words.write_text("ÅR\nÖL\nVÅR\n", encoding="utf-8")
    importing = ("lexicon", "import", str(words), "--name", "SE", "--alphabet", str(alphabet))
    cli(home, *importing)
    cli(home, "tournament", "create", "club", "--lexicon", "SE", "--rule", "double")
    token = cli(home, "kiosk", "add", "k1", "--tournament", "club").strip().splitlines()[-1]
    club = type("Home", (), {"path": home, "token": token, "env": {}})()
    with serving(club) as server:
        status, body = post(server.url, token, ["WÅR"])
        assert status == 400 and "verdict" not in body  # W is no tile of this alphabet
        alphabet.write_text(SWEDISH + 'fold = { "W" = "V" }\n', encoding="utf-8")
        time.sleep(RECHECK + 1)
        assert post(server.url, token, ["WÅR"])[0] == 400  # the file alone changes nothing
        assert run(home, "lexicon", "verify", "SE").returncode == 0

        refused = run(home, *importing)
        assert refused.returncode == 2 and "reads challenges differently" in refused.stderr
        again = run(home, *importing, "--force")
        assert again.returncode == 0 and "tournament set club --lexicon SE" in again.stderr
        status, body = post(server.url, token, ["VÅR"])
        assert status == 503 and "has changed since the director set it" in body["error"]

        cli(home, "tournament", "set", "club", "--lexicon", "SE")
        status, body = post(server.url, token, ["WÅR"])
        assert status == 201 and body["verdict"] == "ACCEPTABLE" and body["words"] == ["VÅR"]
    assert [verdict for _, verdict in verdicts(home)] == ["ACCEPTABLE"]


def test_an_old_nsa_1998_manifest_is_believed_only_as_its_recipe_says(hall):
    """A manifest written before pins: the shipped recipe's recorded text vouches for 9."""
    store = LexiconStore(root=hall.path / "lexicons")
    path = store.manifest_path(NAME)
    old = json.loads(path.read_text())
    del old["pin"], old["pinned"]
    path.write_text(json.dumps(old))
    assert LexiconStore(root=store.root).manifest(NAME).pin_problem is None
    path.write_text(json.dumps({**old, "refer_longer_than": 4, "refer_even_if_listed": True}))
    checked = run(hall.path, "lexicon", "verify", NAME)
    assert checked.returncode == 1
    assert (
        "written before lexicons had pins, and refer_longer_than is 4 in the manifest, but the "
        "recipe it was built from (nsa-1998.toml) says 9" in checked.stderr
    )
