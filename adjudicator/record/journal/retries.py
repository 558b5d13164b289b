"""A challenge sent again after its answer was lost: found by its attempt key, never recorded twice.

The kiosk page gives each challenge a random attempt key and sends the same key when it sends
the same challenge again (the hall's Wi-Fi dropped the answer, the player pressed JUDGE again).
The key is kept in the row's `details`, which the row's hash covers. Under the chain lock, before
anything is judged or counted, the kiosk's newest challenges are searched for the key: a retry
of a recorded challenge gets that row back, not a second row (a second row would count as an
earlier unsuccessful challenge of the game, and twice in the players' record). A key sent again
with other words or other game details is refused: it is not the same challenge. So is one whose
challenge was acted on since (voided, reissued, given a second opinion, a ruling or a waiver):
the kiosk never shows a first verdict the record may have moved on from.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from adjudicator.errors import AdjudicatorError
from adjudicator.record.database.db import Database, DatabaseUnavailable
from adjudicator.record.journal import journal
from adjudicator.record.journal.journal_entry import Entry
from adjudicator.wording import N_, Phrase

FIELD = "attempt"  # the details key, and the API's field
# A retry comes before its kiosk has recorded this many other challenges: the page sends the
# same key only for the challenge still on its screen, so nothing of its own comes between.
# One index seek and this many rows, however long the journal (about 1 us a row).
NEWEST = 8
_KEY = re.compile(r"[A-Za-z0-9]{16,64}")
# The challenge's own fields: a retry must send the same ones to get the recorded row back
# (its words, then its game's details, as the columns and the challenge name them).
GAME = ("table", "round", "challenger", "player")
_NEWEST_SQL = (  # the key is matched in Python: SQLite's LIKE over these rows cost 80 us
    "SELECT id, details, words, table_no, round_no, challenger, player FROM adjudications "
    f"WHERE kiosk = ? AND kind = 'challenge' ORDER BY id DESC LIMIT {NEWEST}"
)


class AttemptError(AdjudicatorError):
    """The attempt key is not one a kiosk page makes."""


class RetryMismatch(AdjudicatorError):
    """The attempt key was recorded for another challenge (other words or game details).
    `phrase`: the message as a kiosk says it."""

    def __init__(self, message: str, phrase: Phrase):
        super().__init__(message)
        self.phrase = phrase


_MISMATCH = N_("This attempt was already judged as another challenge: judge it as a new one.")


class RetryCorrected(RetryMismatch):
    """The challenge was recorded under this attempt key and has a row about it since (a void,
    a reissue, a second opinion, a ruling, a waiver): its first verdict alone may no longer be
    the outcome, so the kiosk does not show it."""


_CORRECTED = N_(
    "This challenge was judged, and the director or a word judge has acted on it since: ask "
    "the director for its outcome."
)
_FOLLOWED_SQL = "SELECT id FROM adjudications WHERE refers_to = ? LIMIT 1"  # an index seek


class AlreadyRecorded(AdjudicatorError):
    """The challenge was recorded before under this attempt key: the row's id (not an error to
    the player; the caller reads the recorded row once the chain lock is let go)."""

    def __init__(self, row_id: int):
        super().__init__(f"recorded before as row {row_id}")
        self.row_id = row_id


def check_key(value: Any) -> str | None:
    """The attempt key as sent, or None when there is none; AttemptError when it is malformed."""
    if value is None or value == "":
        return None
    if not isinstance(value, str) or not _KEY.fullmatch(value):
        raise AttemptError(
            "attempt must be 16 to 64 letters and digits (the kiosk page makes one for each "
            "challenge), or left out."
        )
    return value


def recorded(
    cur: Any, kiosk: str, key: str, words: Sequence[str], details: dict[str, str | None]
) -> None:
    """Raise AlreadyRecorded if this kiosk recorded the challenge (`words`, its game `details`)
    under `key` (inside the append transaction, under the chain lock); RetryMismatch if the
    key names another challenge; RetryCorrected if a row about the challenge followed it."""
    rows = cur.execute(_NEWEST_SQL, (kiosk,)).tuples()
    for row_id, stored_details, *stored in rows:
        if not stored_details or key not in stored_details:
            continue
        if _details(stored_details).get(FIELD) != key:
            continue
        asked = [" ".join(words), *(details.get(name) for name in GAME)]
        if stored != asked:
            raise RetryMismatch(_MISMATCH, Phrase(_MISMATCH))
        if cur.execute(_FOLLOWED_SQL, (row_id,)).tuples():
            raise RetryCorrected(_CORRECTED, Phrase(_CORRECTED))
        raise AlreadyRecorded(int(row_id))


def read_back(db: Database, row_id: int, kiosk: str, key: str) -> Entry:
    """The row a retry found, read once its batch has ended: if that batch's commit failed, the
    row is not there (or another took its number), and the retry is not judged either."""
    entry = journal.get(db, row_id)
    if entry is None or entry.kiosk != kiosk or entry.detail(FIELD) != key:
        raise DatabaseUnavailable("The journal could not be written: judge the challenge again.")
    return entry


def _details(text: str | None) -> dict[str, Any]:
    try:
        found = json.loads(text) if text else {}
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}
