"""The director's Tournaments page takes any rule: N-per-word and N-per-turn for N from 1 to 50
(MSA 13(i), "x-point penalty challenge") and WESPA 3.10.15(c)'s dingle, 5-then-10, escalating."""

from __future__ import annotations

import pytest

from adjudicator.hall import tournaments

from support.director import post_form
from support.hall import NWL

pytestmark = pytest.mark.usefixtures("fast_hashes")  # cheap password hashes for the staff


def test_any_point_value_and_the_counting_rules_from_the_page(staffed):
    director = staffed.director()
    page = director.get("/director/tournaments").get_data(as_text=True)
    assert '<datalist id="rule-names">' in page and 'value="escalating"' in page
    post_form(
        director,
        "/director/tournaments",
        {"slug": "club", "lexicon": "TINY-CSW", "rule": "7-per-word", "title": "Club"},
        page="/director/tournaments",
    )
    assert tournaments.get(staffed.db, "club").rule == "7-per-word"
    confirm = post_form(
        director,
        f"/director/tournaments/{NWL}/confirm",
        {"lexicon": "TINY-NWL", "rule": "dingle"},
        page="/director/tournaments",
    )
    assert confirm.status_code == 200
    assert "dingle: Dingle: no penalty for a player" in confirm.get_data(as_text=True)


@pytest.mark.parametrize("rule", ["triple", "0-per-word", "51-per-turn"])
def test_an_unknown_rule_is_refused_with_the_choices(staffed, rule):
    director = staffed.director()
    done = post_form(
        director,
        f"/director/tournaments/{NWL}/confirm",
        {"lexicon": "TINY-NWL", "rule": rule},
        page="/director/tournaments",
        follow_redirects=True,
    )
    text = done.get_data(as_text=True)
    assert "Unknown challenge rule" in text and "N-per-word" in text
    assert tournaments.get(staffed.db, NWL).rule == "5-per-word"
