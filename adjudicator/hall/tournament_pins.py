"""Which tournaments a lexicon serves: the pin each tournament recorded when its lexicon was set
(tournaments.record_pin) against the pin the lexicon has now (words/lexicon_pin.py).

A lexicon whose pin differs from its tournament's judges nothing for that tournament, whatever
changed (a referral rule, an alphabet, the words): a deliberate change is a new import, set on
the tournament by the director (`tournament set SLUG --lexicon NAME` records the new pin).
Tournaments set before pins existed are given their lexicon's pin when the hall is opened
after the upgrade (`record_missing_pins`), only where nothing contradicts it.
"""

from __future__ import annotations

import json

from adjudicator.errors import LexiconError
from adjudicator.hall import tournaments
from adjudicator.hall.tournaments import Tournament, TournamentError
from adjudicator.record.database.db import Database
from adjudicator.record.journal import journal
from adjudicator.wording import N_, Phrase
from adjudicator.words import lexicon_pin
from adjudicator.words.lexicon import Manifest
from adjudicator.words.store import LexiconStore

# What the director's overview says of a tournament whose lexicon is not the one it was set
# with (babel.cfg extracts these for the catalogues).
_PIN_CHANGED = N_(
    "Lexicon {lexicon} has changed since the director set it for {title} ({changes}): it "
    "judges nothing for this tournament. If the change is deliberate, set the lexicon again on "
    "the Tournaments page, or run: adjudicator tournament set {slug} --lexicon {lexicon}"
)
_NOT_PINNED = N_(
    "{title} has no pin recorded for lexicon {lexicon}: it could not be pinned when the hall "
    "was upgraded, so it judges nothing for this tournament. Check that it is the edition you "
    "mean, then set it again on the Tournaments page, or run: "
    "adjudicator tournament set {slug} --lexicon {lexicon}"
)


def pin_change(tournament: Tournament, manifest: Manifest) -> Phrase | None:
    """Why `manifest` is not the lexicon `tournament` was set with (its pin differs, or none
    was recorded), as the director reads it; None when it is. Says which pinned fields
    changed: 'refer_longer_than 9 -> 4'."""
    names = {"lexicon": tournament.lexicon, "title": tournament.title, "slug": tournament.slug}
    if tournament.lexicon_pin is None:
        return Phrase.of(_NOT_PINNED, **names)
    if manifest.current_pin == tournament.lexicon_pin:
        return None
    try:
        then = json.loads(tournament.lexicon_pinned or "")
    except ValueError:
        then = None
    changes = lexicon_pin.changes(manifest.verdict_values, then) if isinstance(then, dict) else ""
    changes = changes or f"pin {tournament.lexicon_pin[:12]} -> {manifest.current_pin[:12]}"
    return Phrase.of(_PIN_CHANGED, changes=changes, **names)


def in_english(phrase: Phrase) -> str:
    """A phrase as the command line and the logs say it."""
    return phrase.render(lambda text: text, lambda one, many, n: one if n == 1 else many)


def record_missing_pins(db: Database, store: LexiconStore) -> list[str]:
    """Give each tournament with no pin (set before pins existed) the current pin of its
    lexicon, where its manifest is vouched for (lexicon_pin.legacy_problem) and still names the
    words the tournament was set with; returns the slugs pinned now. The others stay unpinned
    and judge nothing until the director sets their lexicon again."""
    with db.transaction() as cur:
        rows = cur.execute(
            "SELECT slug, lexicon, lexicon_fingerprint FROM tournaments WHERE lexicon_pin IS NULL"
        ).all()
    pinned = []
    for row in rows:
        try:
            manifest = store.manifest(row["lexicon"])
        except LexiconError:
            continue
        if manifest.pin_problem or manifest.fingerprint != row["lexicon_fingerprint"]:
            continue
        with db.transaction() as cur:
            tournaments.record_pin(cur, row["slug"], manifest, only_if_missing=True)
        pinned.append(row["slug"])
    return pinned


def pin_for(db: Database, adjudication_id: int) -> str | None:
    """The pin a second opinion on `adjudication_id` must find: its tournament's, while that
    tournament is still on the lexicon the row names; None when nobody recorded one (the row's
    fingerprint is then all there is to check)."""
    entry = journal.get(db, adjudication_id)
    if entry is None:
        return None
    try:
        tournament = tournaments.get(db, entry.tournament)
    except TournamentError:
        return None
    return tournament.lexicon_pin if tournament.lexicon == entry.lexicon_name else None


def set_with_another_pin(db: Database, lexicon: str, pin: str) -> list[Tournament]:
    """Tournaments on `lexicon` set with another pin than `pin` (after a re-import: they judge
    nothing until the director sets the lexicon again)."""
    return [t for t in tournaments.list_all(db) if t.lexicon == lexicon and t.lexicon_pin != pin]
