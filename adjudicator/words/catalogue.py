"""The catalogue of known lexicon editions (lexicons/catalogue.toml): names, dates, fingerprints."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources


@dataclass(frozen=True)
class Edition:
    name: str
    title: str
    body: str
    words: int
    fingerprint: str
    in_force_from: str = ""
    in_force_to: str = ""
    tournament: bool = True
    family: str = ""  # editions that succeed one another: NWL, CSW, school

    @property
    def in_force(self) -> str:
        """The dates in force as text, such as '2024-01-01 on'."""
        if not self.in_force_from:
            return "-"
        if not self.in_force_to:
            return f"{self.in_force_from} on"
        return f"{self.in_force_from} to {self.in_force_to}"

    def in_force_on(self, day: str) -> bool:
        """True when the edition was in force on `day` (an ISO date, YYYY-MM-DD)."""
        if not self.in_force_from:
            return False
        return self.in_force_from <= day and (not self.in_force_to or day <= self.in_force_to)


@cache
def editions() -> tuple[Edition, ...]:
    """Every edition in the catalogue, in file order."""
    text = resources.files("lexicons").joinpath("catalogue.toml").read_text()
    return tuple(Edition(**entry) for entry in tomllib.loads(text)["edition"])


def by_name(name: str) -> Edition | None:
    """The catalogue edition called `name` (case-insensitive), if any."""
    wanted = name.upper()
    return next((e for e in editions() if e.name.upper() == wanted), None)


def by_fingerprint(fingerprint: str) -> Edition | None:
    """The catalogue edition whose word set has this fingerprint, if any."""
    return next((e for e in editions() if e.fingerprint == fingerprint), None)


def in_force_on(family: str, day: str) -> tuple[Edition, ...]:
    """The editions of `family` in force on `day` (ISO date), in catalogue order."""
    return tuple(e for e in editions() if e.family == family and e.in_force_on(day))


def not_in_force_warning(edition: Edition, day: str) -> str | None:
    """A warning when `edition` was not in force on `day`, naming the editions of its family
    that were (a club may choose an old list on purpose: a warning, never a refusal)."""
    if not edition.family or edition.in_force_on(day):
        return None
    current = in_force_on(edition.family, day)
    named = ", ".join(f"{e.name} ({e.in_force})" for e in current) or "none in the catalogue"
    return (
        f"{edition.name} was not in force on {day} (it was in force {edition.in_force}); "
        f"in force then: {named}."
    )
