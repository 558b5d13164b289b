"""The library's log lines on the command line: each said once, and never beside the command's
own message saying the same.

The library logs what a server's log must hold: a copy of the journal lost ("journal degraded
to one copy: ..."), the mirror withheld, judging held. A command is not a server: left to
Python's last-resort handler, each of those lines reached stderr beside the command's own
message saying the same thing ("Degraded: one copy. ..."). So, for the commands (installed by
`adjudicator.cli.main`):

- the journal's lines (its state: logger JOURNAL) are kept while the command runs, and said at
  its end, once each, as warnings ("Warning: journal degraded to one copy: ..."), unless the
  command ended in an error (its message says why it could not do what was asked) or said the
  journal's state itself (`said_by_command`: `journal status`, a server's start);
- while a hall serves (`live`), they are its log: each said as it comes, once;
- every other line of the library (a warning, an error) is said as it comes, once.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterator

JOURNAL = "adjudicator.record.journal.journal"
_KEPT, _SAID, _LIVE = "kept", "said", "live"


class _Lines(logging.Handler):
    """Prints the library's lines on stderr, once each, as the module's docstring says."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.mode = _KEPT
        self.kept: list[str] = []
        self.shown: set[str] = set()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
        except (TypeError, ValueError):
            text = str(record.msg)
        if record.name == JOURNAL and self.mode == _SAID:
            return
        if record.name == JOURNAL and self.mode == _KEPT:
            if text not in self.kept:
                self.kept.append(text)
            return
        self.show(text)

    def show(self, text: str) -> None:
        if text in self.shown:
            return
        self.shown.add(text)
        print(text, file=sys.stderr, flush=True)


_lines: _Lines | None = None


def install() -> None:
    """The command line's handler for the library's lines (Python's last resort no longer
    prints them)."""
    global _lines
    if _lines is not None:
        return
    _lines = _Lines()
    logger = logging.getLogger("adjudicator")
    logger.addHandler(_lines)
    logger.propagate = False


@contextlib.contextmanager
def said_by_command() -> Iterator[None]:
    """The command says the journal's state itself meanwhile: its lines are not said."""
    if _lines is None:
        yield
        return
    before, _lines.mode = _lines.mode, _SAID
    try:
        yield
    finally:
        _lines.mode = before


def said_already() -> None:
    """The command said the journal's state itself (its report): nothing kept is said."""
    if _lines is not None:
        _lines.kept.clear()


def live() -> None:
    """From now on the command's stderr is a serving hall's log: each line said as it comes."""
    if _lines is not None:
        said_already()
        _lines.mode = _LIVE


def finish(exit_code: object) -> None:
    """At the command's end: the journal's lines kept, said once each as warnings, unless the
    command ended in an error (exit 2: its message says why)."""
    if _lines is None or not _lines.kept:
        return
    kept, _lines.kept = _lines.kept, []
    if exit_code in (None, 0, 1, 3):  # done (a verdict's codes included), not refused
        for text in kept:
            _lines.show(f"Warning: {text}")
