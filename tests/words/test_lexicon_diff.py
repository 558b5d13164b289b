"""Edition diffs: words added and removed between two compiled lexicons."""

from __future__ import annotations

import pytest

from adjudicator.words.lexicon_diff import diff_lexicons
from adjudicator.words.lexicon_import import import_lexicon
from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet

from support.paths import SHARED_LEXICONS

EDITIONS = ("NWL2018", "NWL2020", "CSW19", "CSW21")


def test_added_and_removed_are_sorted(store: LexiconStore):
    store.save("OLD", WordSet.of(["QI", "ZA", "CAT", "DOG", "ZZZ"]))
    store.save("NEW", WordSet.of(["QI", "ZA", "OK", "EW", "AB"]))
    diff = diff_lexicons(store.open("OLD"), store.open("NEW"))
    assert diff.added == ("AB", "EW", "OK")
    assert diff.removed == ("CAT", "DOG", "ZZZ")
    assert (diff.old.name, diff.new.name) == ("OLD", "NEW")
    back = diff_lexicons(store.open("NEW"), store.open("OLD"))
    assert (back.added, back.removed) == (diff.removed, diff.added)


def test_same_words_give_an_empty_diff(store: LexiconStore):
    store.save("A", WordSet.of(["QI", "ZA"]))
    store.save("B", WordSet.of(["ZA", "QI"]))
    diff = diff_lexicons(store.open("A"), store.open("B"))
    assert diff.added == () and diff.removed == ()
    assert diff.as_dict() == {
        "old": {"name": "A", "words": 2, "fingerprint": store.manifest("A").fingerprint},
        "new": {"name": "B", "words": 2, "fingerprint": store.manifest("B").fingerprint},
        "added": 0,
        "removed": 0,
    }


def test_as_dict_lists_words_only_when_asked(store: LexiconStore):
    store.save("A", WordSet.of(["QI", "ZA"]))
    store.save("B", WordSet.of(["QI", "OK"]))
    diff = diff_lexicons(store.open("A"), store.open("B"))
    assert "added_words" not in diff.as_dict()
    data = diff.as_dict(with_words=True)
    assert (data["added"], data["added_words"], data["removed_words"]) == (1, ["OK"], ["ZA"])


@pytest.fixture(scope="module")
def editions(tmp_path_factory: pytest.TempPathFactory) -> LexiconStore:
    """NWL2018, NWL2020, CSW19 and CSW21 compiled once for the module."""
    missing = [n for n in EDITIONS if not (SHARED_LEXICONS / f"{n}.txt").exists()]
    if missing:
        pytest.skip(f"real word lists not found in {SHARED_LEXICONS}: {', '.join(missing)}")
    store = LexiconStore(tmp_path_factory.mktemp("editions") / "lexicons")
    for name in EDITIONS:
        import_lexicon(store, SHARED_LEXICONS / f"{name}.txt", name)
    return store


def test_nwl2018_to_nwl2020_removed_259(editions: LexiconStore):
    diff = diff_lexicons(editions.open("NWL2018"), editions.open("NWL2020"))
    assert (len(diff.added), len(diff.removed)) == (0, 259)
    assert list(diff.removed) == sorted(diff.removed)
    old = set(editions.open("NWL2018"))
    new = editions.open("NWL2020")
    assert all(word in old and word not in new for word in diff.removed)


def test_csw19_to_csw21_removed_419(editions: LexiconStore):
    diff = diff_lexicons(editions.open("CSW19"), editions.open("CSW21"))
    assert (len(diff.added), len(diff.removed)) == (0, 419)
    assert diff.old.words - len(diff.removed) == diff.new.words


def test_reverse_direction_adds_what_was_removed(editions: LexiconStore):
    forward = diff_lexicons(editions.open("CSW19"), editions.open("CSW21"))
    back = diff_lexicons(editions.open("CSW21"), editions.open("CSW19"))
    assert (back.added, back.removed) == (forward.removed, ())
