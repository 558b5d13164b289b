"""The word lists a rulebook allows, recognised by what they judge, never by their name.

A compiled lexicon is known by its manifest: the fingerprint of its words (checked against the
compiled words whenever the lexicon is opened), its referral rule, and the record of the recipe
it was built from (each list by its fingerprint). So a list belongs to:
- a **catalogue family** (NWL, Collins) when its words are one of the family's catalogued
  editions and it refers nothing to a dictionary (the edition as published);
- a **rulebook's recipe** when it gives the recipe's words and referral rule: the 1998 OWL with
  MW10 beyond 9 letters (NSA I), OSWI with the 1998 OWL (OSWI holds every OWL word, so the union
  is OSWI's words) with Chambers or MW10 beyond 9 letters (MSA 15), or OSPD4 with every word
  over 8 letters to MW11 (school rule 10). The school recipe may add or remove the event's
  "Official Adjustments": its base is then read from its recipe record, OSPD4 itself or TWL06
  less the 317 words of the shipped ospd4-removals.txt, each by fingerprint.
A list imported as CSW24 whose words are not CSW24's, or a recipe named OWL-NSA1998 built on
other words, is neither.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from adjudicator.words import catalogue
from adjudicator.words.recipe import adjustment_fingerprint
from adjudicator.words.recipe_file import load_recipe


@dataclass(frozen=True)
class CatalogueFamily:
    """The catalogued editions of one family (from `since` on), each as published."""

    family: str
    title: str
    since: str = ""  # the first edition's first day in force: "2007-01-01" is CSW07 on

    def editions(self) -> tuple[catalogue.Edition, ...]:
        """The family's editions this allows, oldest last (catalogue order)."""
        return tuple(
            e
            for e in catalogue.editions()
            if e.family == self.family and e.in_force_from and e.in_force_from >= self.since
        )

    def recognise(self, manifest: Any) -> str | None:
        """The edition `manifest`'s words are, if one of these and judged as published."""
        if manifest.refer_longer_than:
            return None
        found = catalogue.by_fingerprint(manifest.fingerprint)
        return found.name if found is not None and found in self.editions() else None

    def describe(self) -> str:
        return f"{self.title} ({', '.join(e.name for e in reversed(self.editions()))})"

    def in_force(self, day: str) -> tuple[catalogue.Edition, ...]:
        """The family's editions this allows that were in force on `day` (the catalogue's
        dates: at most one, none in a gap)."""
        return tuple(e for e in self.editions() if e.in_force_on(day))


@dataclass(frozen=True)
class RecipeWords:
    """A rulebook's recipe: the words of catalogue edition `words`, with its referral rule."""

    recipe: str  # the shipped recipe that builds it (`lexicon import --recipe NAME`)
    title: str
    words: str  # the catalogue edition whose words the recipe gives
    refer_longer_than: int
    refer_even_if_listed: bool = False
    adjustments: bool = False  # the event's own additions and removals (school rule 10's sheet)

    def recognise(self, manifest: Any) -> str | None:
        """'the NAME recipe' when `manifest` judges as the recipe does, else None."""
        if (manifest.refer_longer_than, bool(manifest.refer_even_if_listed)) != (
            self.refer_longer_than,
            self.refer_even_if_listed,
        ):
            return None
        edition = catalogue.by_name(self.words)
        if edition is not None and manifest.fingerprint == edition.fingerprint:
            return f"the {self.recipe} recipe"
        if self.adjustments and _adjusted_base(manifest.recipe or {}) == self.words:
            return f"the {self.recipe} recipe, with the event's adjustments"
        return None

    def describe(self) -> str:
        return f"{self.title} (`lexicon import --recipe {self.recipe}`)"


ListKind = CatalogueFamily | RecipeWords


def _adjusted_base(record: dict[str, Any]) -> str | None:
    """The catalogue edition a school recipe build started from, read from its recipe record:
    OSPD4 itself, or TWL06 less the shipped list of OSPD4's 317 removals (by fingerprints)."""
    if not isinstance(record, dict):
        return None
    sources = [_fingerprint(source) for source in _entries(record, "sources")]
    removed = {_fingerprint(entry) for entry in _entries(record, "remove")}
    ospd4, twl06 = catalogue.by_name("OSPD4"), catalogue.by_name("TWL06")
    if ospd4 is not None and sources == [ospd4.fingerprint]:
        return ospd4.name
    if ospd4 is not None and twl06 is not None and sources == [twl06.fingerprint]:
        if ospd4_removals_fingerprint() in removed:
            return ospd4.name
    return None


def _entries(record: dict[str, Any], name: str) -> list[Any]:
    """A list field of a recipe record, or none if a hand-edited manifest made it another shape."""
    value = record.get(name, [])
    return value if isinstance(value, list) else []


def _fingerprint(entry: Any) -> str:
    return str(entry.get("fingerprint", "")) if isinstance(entry, dict) else ""


@cache
def ospd4_removals_fingerprint() -> str:
    """The fingerprint of the 317 words the shipped school recipe takes out of TWL06."""
    return adjustment_fingerprint(load_recipe("school"), "ospd4-removals.txt")


def recognise(kinds: tuple[ListKind, ...], manifest: Any) -> str | None:
    """What `manifest` is among `kinds` (an edition's or recipe's name), or None."""
    return next((found for kind in kinds if (found := kind.recognise(manifest))), None)
