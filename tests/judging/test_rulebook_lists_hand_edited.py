"""A manifest edited by hand into another shape is simply not the school recipe: the rulebook
check on the tournaments and status pages says so instead of failing."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from adjudicator.judging.rulebook_lists import recognise
from adjudicator.judging.rulebooks import RULEBOOKS

SCHOOL = RULEBOOKS["school-2011"]


@pytest.mark.parametrize(
    "recipe",
    [
        "not a record",
        ["a", "list"],
        {"sources": ["a string, not an object"], "remove": 5},
        {"sources": "OSPD4", "remove": [None, 3]},
        {"sources": [{"fingerprint": None}], "remove": [{"fingerprint": ["x"]}]},
    ],
)
def test_a_recipe_record_of_another_shape_is_not_recognised(recipe):
    manifest = SimpleNamespace(
        refer_longer_than=8, refer_even_if_listed=True, fingerprint="0" * 64, recipe=recipe
    )
    assert recognise(SCHOOL.lists, manifest) is None
