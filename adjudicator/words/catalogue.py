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

    @property
    def in_force(self) -> str:
        """The dates in force as text, such as '2024-01-01 on'."""
        if not self.in_force_from:
            return "-"
        if not self.in_force_to:
            return f"{self.in_force_from} on"
        return f"{self.in_force_from} to {self.in_force_to}"


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
