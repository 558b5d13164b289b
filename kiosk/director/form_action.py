"""A director's form that changes something: do it, flash what happened, go back to a page.

The error flashed is the library's own message (what to fix); the success message is built
from what the action returned.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from flask import flash, redirect

from adjudicator.errors import AdjudicatorError

T = TypeVar("T")


def act_and_return(action: Callable[[], T], done: Callable[[T], str], back: str):
    """Run `action`; flash its AdjudicatorError as an error, else `done(result)` as ok; then
    redirect to the URL `back`."""
    try:
        result = action()
    except AdjudicatorError as exc:
        flash(str(exc), "error")
    else:
        flash(done(result), "ok")
    return redirect(back)
