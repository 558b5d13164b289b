"""The fields a follow-up row copies from the challenge it refers to.

A void, a second opinion and a final ruling are each a journal row of their own kind that
refers to an original challenge: they carry its tournament, lexicon edition and game (table,
round, challenger, player) unchanged, and the station that recorded them, so every view of the
journal can show them beside the original.
"""

from __future__ import annotations

from adjudicator.record.journal import journal

# The fields of a row that judges no words and names no lexicon (a free challenge granted, a
# challenge the director decides): the journal's columns want a value, and these say "none".
NO_WORDS = {
    "lexicon_name": "",
    "lexicon_fingerprint": "",
    "lexicon_words": 0,
    "rule": "",
    "words": (),
    "word_count": 0,
}


def follow_up_fields(original: journal.Entry, station: str) -> dict:
    """The journal.append fields of a row recorded at `station` about `original`."""
    return {
        "refers_to": original.id,
        "tournament": original.tournament,
        "kiosk": station,
        "lexicon_name": original.lexicon_name,
        "lexicon_fingerprint": original.lexicon_fingerprint,
        "lexicon_words": original.lexicon_words,
        "table": original.table,
        "round": original.round,
        "challenger": original.challenger,
        "player": original.player,
    }
