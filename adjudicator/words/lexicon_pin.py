"""A lexicon's pin: one SHA-256 over every field of its manifest that decides a verdict.

The pinned values are an object of five keys (docs/lexicon-pin.md):

    {"alphabet": {"name", "tiles", and "fold", "case", "language" when the alphabet has them},
     "fingerprint": the SHA-256 of the canonical words,
     "refer_even_if_listed": true | false,
     "refer_longer_than": 0 (no referral rule) or N,
     "version": 1}

and the pin is the SHA-256 (hex) of their canonical JSON, exactly as Python's
`json.dumps(values, sort_keys=True, separators=(",", ":"))` writes it (ASCII, non-ASCII
escaped), the form receipts are signed in. The alphabet's description and its `word_graph`
table are left out: neither changes how a typed challenge is read (a word graph is read at
import, and the words it gave are pinned by the fingerprint).

A manifest carries `pin` and `pinned` (the values it hashes), so a field that no longer matches
is named. A manifest written before pins existed carries neither: its fields are believed only
where something else vouches for them (`legacy_problem`).
"""

from __future__ import annotations

import hashlib
import json

from adjudicator.words.alphabet import Alphabet
from adjudicator.words.alphabet_files import builtin

TYPE_CHECKING = False  # the typing module costs `adjudicator judge` several ms to import
if TYPE_CHECKING:
    from typing import Any

PIN_VERSION = 1
ALPHABET_KEYS = ("name", "tiles", "fold", "case", "language")  # what reads a typed challenge
_ABSENT = object()


def alphabet_values(alphabet: Alphabet) -> dict[str, Any]:
    """The parts of an alphabet that decide how a challenge is read, as JSON data."""
    return {k: v for k, v in alphabet.to_dict().items() if k in ALPHABET_KEYS}


def values_of(
    fingerprint: str, refer_longer_than: int, refer_even_if_listed: bool, alphabet: Alphabet
) -> dict[str, Any]:
    """The values a pin covers."""
    return {
        "alphabet": alphabet_values(alphabet),
        "fingerprint": fingerprint,
        "refer_even_if_listed": refer_even_if_listed,
        "refer_longer_than": refer_longer_than,
        "version": PIN_VERSION,
    }


def canonical(values: dict[str, Any]) -> bytes:
    """The canonical JSON the pin hashes."""
    return json.dumps(values, sort_keys=True, separators=(",", ":")).encode("ascii")


def pin_of(values: dict[str, Any]) -> str:
    """The pin of `values`: SHA-256 (hex) of their canonical JSON."""
    return hashlib.sha256(canonical(values)).hexdigest()


def differences(now: dict[str, Any], then: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """(field, value now, value then) for each pinned field that differs; alphabet keys as
    `alphabet.fold` and so on."""
    found = []
    for key in sorted(set(now) | set(then)):
        new, old = now.get(key, _ABSENT), then.get(key, _ABSENT)
        if new == old:
            continue
        if isinstance(new, dict) and isinstance(old, dict):
            found += [(f"{key}.{k}", a, b) for k, a, b in differences(new, old)]
        else:
            found.append((key, new, old))
    return found


def show(value: Any) -> str:
    """A pinned value as a person reads it: 9, true, "english", a fingerprint's first 12."""
    if value is _ABSENT:
        return "absent"
    if isinstance(value, str) and len(value) == 64:
        return value[:12]
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def changes(now: dict[str, Any], then: dict[str, Any]) -> str:
    """What changed from `then` to `now`: 'refer_longer_than 9 -> 4; ...'."""
    found = differences(now, then)
    return "; ".join(f"{key} {show(old)} -> {show(new)}" for key, new, old in found)


def problem(manifest) -> str | None:
    """Why `manifest`'s verdict fields are not what its pin vouches for; None when they are.
    The first difference names the field: "refer_longer_than is 4 in the manifest, but the pin
    says 9"."""
    if not manifest.pin:
        return legacy_problem(manifest)
    pinned = manifest.pinned
    if not isinstance(pinned, dict) or not pinned:
        return "its pin has no pinned values beside it (the manifest was edited)"
    found = differences(manifest.verdict_values, pinned)
    if found:
        return "; ".join(
            f"{key} is {show(new)} in the manifest, but the pin says {show(old)}"
            for key, new, old in found
        )
    if pin_of(pinned) != manifest.pin:
        return (
            f"the values its pin covers were edited: they no longer hash to its pin "
            f"{show(manifest.pin)}"
        )
    return None


# --- manifests written before pins --------------------------------------------------------


def legacy_problem(manifest) -> str | None:
    """For a manifest written before pins: None when what else it records, and the program's
    own built-in alphabets, vouch for every verdict field; else the first that is not.

    The referral rule of a list imported on its own is none (only a recipe gives one); a
    recipe's is the one its recorded text says, and that text must match its recorded
    checksum. A built-in alphabet must be the program's own definition. The fingerprint is
    checked against the words at every open (the proof beside the compiled file, or the words
    read back where there is none: lexicon.py)."""
    found = _referral_problem(manifest) or _alphabet_problem(manifest)
    if found is None:
        return None
    return f"its manifest was written before lexicons had pins, and {found}"


def _referral_problem(manifest) -> str | None:
    recipe = manifest.recipe
    if not recipe:
        vouched: dict[str, Any] = {"refer_longer_than": 0, "refer_even_if_listed": False}
        source = "it was imported from a single list, which never has a referral rule"
    else:
        text = recipe.get("text")
        if not isinstance(text, str) or hashlib.sha256(text.encode()).hexdigest() != recipe.get(
            "sha256"
        ):
            return "the text of the recipe it records does not match the recipe's checksum"
        try:
            import tomllib

            data = tomllib.loads(text)
        except ValueError:
            return "the text of the recipe it records is not a readable recipe"
        vouched = {
            "refer_longer_than": data.get("refer_longer_than", 0),
            "refer_even_if_listed": data.get("refer_even_if_listed", False),
        }
        source = f"the recipe it was built from ({recipe.get('file', '?')}) says "
    for key, value in vouched.items():
        mine = getattr(manifest, key)
        if mine != value or type(mine) is not type(value):
            if recipe:
                return f"{key} is {show(mine)} in the manifest, but {source}{show(value)}"
            return f"{key} is {show(mine)} in the manifest, but {source}"
    return None


def _alphabet_problem(manifest) -> str | None:
    alphabet = manifest.get_alphabet()
    recorded = manifest.recipe.get("alphabet") if manifest.recipe else None
    if recorded is not None and recorded != alphabet.name:
        return (
            f"alphabet.name is {show(alphabet.name)} in the manifest, but the recipe it was "
            f"built from says {show(recorded)}"
        )
    program = builtin(alphabet.name)
    if program is None:
        return None  # a federation's own alphabet: the manifest is its only record
    found = differences(alphabet_values(alphabet), alphabet_values(program))
    if not found:
        return None
    key, new, old = found[0]
    return (
        f"alphabet.{key} is {show(new)} in the manifest, but the built-in {alphabet.name} "
        f"alphabet has {show(old)}"
    )
