"""JSON bodies read strictly: a key given twice, or nesting deeper than Python can follow, is
refused (400) instead of being judged with the last value, or crashing into a 500."""

from __future__ import annotations

import json
from typing import Any

from flask.json.provider import DefaultJSONProvider


class JsonRefused(ValueError):
    """The body is JSON, but not JSON the API accepts; the message says why and what to send."""

    def __init__(self, problem: str, advice: str):
        super().__init__(f"{problem}: {advice}.")
        self.problem = problem


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise JsonRefused(f"The JSON gives the field {key!r} twice", "send each field once")
        found[key] = value
    return found


class StrictJSONProvider(DefaultJSONProvider):
    """Flask's JSON, with duplicated keys and runaway nesting refused when reading."""

    sort_keys = False  # keep the API's field order as documented

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        kwargs.setdefault("object_pairs_hook", _no_duplicate_keys)
        try:
            return json.loads(s, **kwargs)
        except RecursionError:
            raise JsonRefused(
                "The JSON is nested too deeply", 'send an object such as {"words": ["QI"]}'
            ) from None
