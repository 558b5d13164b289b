"""Each rulebook's lists (and others) built from the real lists in ../shared/lexicons, and a hall
over them: issue 28's tests of what each rulebook allows.

`build(root)` compiles, once per session (seconds each), the catalogue editions NWL2023, CSW24,
CSW07, TWL06, OSWI, OSPD4, NSWL2023 and the 1998 OWL, and the shipped recipes built on them:
OWL-NSA1998 (nsa-1998), SCHOOL-OSPD (school), MSA-UNION (msa), and SCHOOL-EVENT, the school
recipe with an event's "Official Adjustments" sheet. `RulebookHall` is a hall over that store
(read only) with a journal of its own, where each test makes the events it needs.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from flask import Flask

from adjudicator.hall import kiosks, tournaments
from adjudicator.hall.hall import Hall
from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.words.lexicon_import import import_lexicon
from adjudicator.words.recipe import import_recipe
from adjudicator.words.recipe_file import load_recipe
from adjudicator.words.store import LexiconStore

from support.director import DIRECTOR_PASSWORD, JUDGE, JUDGE_PASSWORD, OTHER_JUDGE
from support.hall import make_app, pair_browser
from support.paths import SHARED_LEXICONS

EDITIONS = ("NWL2023", "CSW24", "CSW07", "TWL06", "OSWI", "OSPD4", "NSWL2023")
OWL_TEXT = SHARED_LEXICONS / "zyzzyva" / "OWL.zyzzyva.txt"
# Each rulebook's event in the tests of issue 35: a list it allows (in force today) and a rule;
# None is a tournament that names no rulebook.
EVENTS: dict[str | None, tuple[str, str]] = {
    "naspa": ("NWL2023", "double"),
    "wespa": ("CSW24", "5-per-word"),
    "nsa-1998": ("OWL-NSA1998", "double"),
    "school-2011": ("SCHOOL-OSPD", "double"),
    "msa": ("MSA-UNION", "5-per-word"),
    None: ("NWL2023", "double"),
}
# The event's sheet: two words OSPD4 lacks (they came with OSPD4.1) added, one taken out.
SHEET_ADDS = ("GEOCACHE", "GEOCACHED")
SHEET_REMOVES = ("ZAX",)


def build(root: Path) -> LexiconStore:
    """The real lists and the rulebooks' recipes, compiled under `root` (skipped, saying which
    list is missing, when ../shared/lexicons lacks one)."""
    wanted = [SHARED_LEXICONS / f"{name}.txt" for name in EDITIONS] + [OWL_TEXT]
    missing = [str(path) for path in wanted if not path.is_file()]
    if missing:
        pytest.skip(f"the real lists are not all there: {', '.join(missing)}")
    store = LexiconStore(root=root / "lexicons")
    for name in EDITIONS:
        import_lexicon(store, SHARED_LEXICONS / f"{name}.txt", name)
    import_lexicon(store, OWL_TEXT, "OWL")
    for recipe in ("nsa-1998", "school", "msa"):
        import_recipe(store, recipe)
    import_recipe(store, school_event_recipe(root / "school-event"), "SCHOOL-EVENT")
    return store


def school_event_recipe(folder: Path) -> Path:
    """A copy of the shipped school recipe beside an event's filled-in adjustment sheets."""
    shipped = load_recipe("school")
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(shipped.path, folder / "school.toml")
    shutil.copy(shipped.folder / "ospd4-removals.txt", folder / "ospd4-removals.txt")
    (folder / "school-additions.txt").write_text("\n".join(SHEET_ADDS) + "\n")
    (folder / "school-removals.txt").write_text("\n".join(SHEET_REMOVES) + "\n")
    return folder / "school.toml"


@dataclass
class RulebookHall:
    """A hall over the shared store of real lists, with a journal, staff and app of its own."""

    hall: Hall
    app: Flask

    @property
    def db(self):
        return self.hall.db

    @property
    def store(self) -> LexiconStore:
        return self.hall.store

    def event(
        self, slug: str, book: str | None, lexicon: str, rule: str, off: str | None = None
    ) -> kiosks.Enrolment:
        """Tournament `slug` under rulebook `book` on `lexicon` and `rule` (off its rulebook
        with reason `off`), and a kiosk for it: its enrolment."""
        tournaments.create(
            self.db, self.store, slug, lexicon, rule, rulebook=book, off_rulebook=off
        )
        return kiosks.add(self.db, f"kiosk-{slug}", slug)

    def challenge(self, enrolment: kiosks.Enrolment, words, **details):
        """A challenge from the event's kiosk through the hall: its journal entry."""
        return self.hall.adjudicate(kiosks.get(self.db, enrolment.kiosk.name), words, **details)

    def kiosk_browser(self, enrolment: kiosks.Enrolment):
        return pair_browser(self.app, enrolment)

    def director(self):
        from support.director import signed_in

        return signed_in(self.app.test_client(), "director", DIRECTOR_PASSWORD, "/director/login")


def rulebook_hall(store: LexiconStore, folder: Path) -> RulebookHall:
    """A hall over `store` with a fresh SQLite journal, the director and two judges."""
    from adjudicator.hall.people import staff

    db = SqliteDatabase(str(folder / "journal.sqlite3"))
    hall = Hall(store, db, rate_limit=None, key_path=folder / "receipt_key.pem")
    hall.upgrade()
    staff.set_director_password(db, DIRECTOR_PASSWORD)
    staff.add_judge(db, JUDGE, JUDGE_PASSWORD)
    staff.add_judge(db, OTHER_JUDGE, OTHER_JUDGE + "-secret-12")
    return RulebookHall(hall, make_app(hall))
