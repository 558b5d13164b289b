"""What the rulebook tests of issue 43 ask of every message and row: that a message at one event
cites no other rulebook, the effective outcome of a row, the CLI as a named person."""

from __future__ import annotations

import json
import re

from adjudicator.judging import outcomes
from adjudicator.record.journal import journal

# A rulebook's clause cited in a message; a message at one event cites none of the others'.
NAMES = {
    "naspa": r"NASPA \d",
    "wespa": r"WESPA \d",
    "nsa-1998": r"\bNSA [IVX]|\bNSA Guideline|\bVI\.C\b",
    "school-2011": r"school rules? \d",
    "msa": r"\bMSA \d",
}


def cites_only(book: str | None, text: str) -> str:
    """`text`, asserting it names no rulebook but `book` (none at all for None)."""
    for other, pattern in NAMES.items():
        if other != book:
            assert not re.search(pattern, text), f"a {book} event cites {other}: {text}"
    return text


def effect(hall, entry_id: int) -> outcomes.Outcome:
    """The effective outcome of challenge `entry_id`, as every page and export gives it."""
    ((_, found),) = outcomes.with_outcomes(hall.db, [journal.get(hall.db, entry_id)])
    return found


def as_person(monkeypatch, cli, who: str, *args: str):
    """The CLI run by login `who` (its rows say `cli:WHO`)."""
    monkeypatch.setenv("LOGNAME", who)
    monkeypatch.setenv("USER", who)
    return cli(*args)


def row_id(out: str, marker: str = "#") -> int:
    """The first journal number after `marker` in a command's output."""
    return int(out.split(marker, 1)[1].split()[0].rstrip(".,):"))


def exported(cli) -> list[dict]:
    """`journal export --format json`, parsed."""
    return json.loads(cli("journal", "export", "--format", "json").stdout)


def refused(out, *said: str) -> str:
    """A command refused as a user error: exit 2, nothing on stdout, no traceback, saying
    `said`."""
    assert out.exit_code == 2, (out.exit_code, out.stdout, out.stderr)
    assert out.stdout == "" and "Traceback" not in out.stderr
    for text in said:
        assert text in " ".join(out.stderr.split()), (text, out.stderr)
    return out.stderr
