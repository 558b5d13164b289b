"""Tournaments (or divisions): each binds one compiled lexicon edition and one challenge rule.

The tournament pins the lexicon's fingerprint when it is set, so a lexicon re-imported with
different words is refused at the kiosk ("call the director") rather than used silently; and
its pin (words/lexicon_pin.py: the words, the referral rule and the alphabet), so a lexicon
whose referral rule or alphabet changed is refused the same way until the director sets it
again (tournament_pins.py). It may name its rulebook (rulebooks.py: its lists, its rules and
its own procedures) and has a date, its first day: a catalogue edition not in force on that
date is accepted with a warning (`edition_warning`), since a club may choose an old list on
purpose, except under NASPA 1.3 and WESPA 1.2(b), which take only the edition in force then. A
list or rule the rulebook does not allow is refused, naming the clause, unless the director
gives the reason the event is off its rulebook: the reason is recorded and shown with the
tournament.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from datetime import UTC, date, datetime
from typing import Any

from adjudicator.errors import AdjudicatorError
from adjudicator.hall.languages import DEFAULT as DEFAULT_LANGUAGE
from adjudicator.hall.languages import check_language
from adjudicator.judging.rulebooks import OffRulebook, check_rulebook, get_rulebook, off_rulebook
from adjudicator.judging.rules import get_rule
from adjudicator.record.database.db import Database
from adjudicator.textcheck import TITLE_MAX, check_name, check_text
from adjudicator.words import catalogue, lexicon_pin
from adjudicator.words.lexicon import Manifest
from adjudicator.words.store import LexiconStore

_SLUG = re.compile(r"[a-z0-9][a-z0-9-]{0,62}")


class TournamentError(AdjudicatorError):
    """A tournament cannot be created, found or changed as asked."""


@dataclass(frozen=True)
class Tournament:
    slug: str
    title: str
    lexicon: str
    lexicon_fingerprint: str
    rule: str
    created_at: str
    updated_at: str
    rulebook: str | None = None  # rulebooks.RULEBOOKS, or None: no rulebook-only procedures
    event_date: str | None = None  # the event's first day, YYYY-MM-DD
    language: str = DEFAULT_LANGUAGE  # the kiosks' language (hall/languages.py)
    lexicon_pin: str | None = None  # the lexicon's pin when set; None: not recorded yet
    lexicon_pinned: str | None = None  # the values that pin covers (canonical JSON)
    off_rulebook: str | None = None  # why its list or rule is not its rulebook's (the director's)

    def to_api(self) -> dict[str, Any]:
        return {
            "slug": self.slug,
            "title": self.title,
            "lexicon": self.lexicon,
            "lexicon_fingerprint": self.lexicon_fingerprint,
            "lexicon_pin": self.lexicon_pin,
            "rule": self.rule,
            "language": self.language,
            "updated_at": self.updated_at,
            "rulebook": self.rulebook,
            "date": self.event_date,
            "off_rulebook": self.off_rulebook,
        }


_COLUMNS = tuple(f.name for f in fields(Tournament))


def _from_row(row: Any) -> Tournament:
    """A Tournament from a row of the tournaments table (columns it does not know are left)."""
    return Tournament(**{name: row[name] for name in _COLUMNS if name in row})


def check_date(text: str | None) -> str:
    """An event date as YYYY-MM-DD (default: today, the server's local day)."""
    if text is None or not str(text).strip():
        return date.today().isoformat()
    try:
        return date.fromisoformat(str(text).strip()).isoformat()
    except ValueError:
        raise TournamentError(
            f"Invalid date {text!r}: give the event's first day as YYYY-MM-DD, such as 2011-04-16."
        ) from None


def edition_warning(tournament: Tournament) -> str | None:
    """A warning when the tournament's lexicon is a catalogue edition that was not in force on
    the tournament's date, naming the editions of its family in force then; else None."""
    if not tournament.event_date:
        return None
    edition = catalogue.by_fingerprint(tournament.lexicon_fingerprint)
    if edition is None:
        return None
    warning = catalogue.not_in_force_warning(edition, tournament.event_date)
    return f"Tournament {tournament.slug}: {warning}" if warning else None


def check_slug(slug: str) -> str:
    """A slug is lower-case letters, digits and dashes, such as `spring-open-nwl`."""
    return check_name(
        slug,
        "tournament slug",
        63,
        _SLUG,
        "use lower-case letters, digits and dashes, such as spring-open-nwl.",
        TournamentError,
    )


def create(
    db: Database,
    store: LexiconStore,
    slug: str,
    lexicon: str,
    rule: str,
    title: str = "",
    *,
    rulebook: str | None = None,
    event_date: str | None = None,
    language: str = DEFAULT_LANGUAGE,
    off_rulebook: str | None = None,
) -> Tournament:
    """Create a tournament on a compiled lexicon and a rule (and a rulebook and date); its
    kiosks speak `language`. A list or rule the rulebook does not allow is refused unless
    `off_rulebook` gives the reason."""
    check_slug(slug)
    title = check_text(title, "tournament title", TITLE_MAX)
    get_rule(rule)
    rulebook = _check_rulebook(rulebook)
    event_date = check_date(event_date)
    language = check_language(language)
    manifest = store.open(lexicon).manifest
    reason = _off_rulebook_reason(
        slug, rulebook, manifest, rule, off_rulebook, changed=None, day=event_date
    )
    now = _now()
    with db.transaction() as cur:
        if cur.execute("SELECT slug FROM tournaments WHERE slug = ?", (slug,)).one():
            raise TournamentError(
                f"Tournament {slug} already exists: change it with `tournament set`."
            )
        cur.execute(
            "INSERT INTO tournaments (slug, title, lexicon, lexicon_fingerprint, rule, created_at, "
            "updated_at, rulebook, event_date) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                slug,
                title or slug,
                lexicon,
                manifest.fingerprint,
                rule,
                now,
                now,
                rulebook,
                event_date,
            ),
        )
        cur.execute(
            "UPDATE tournaments SET language = ?, off_rulebook = ? WHERE slug = ?",
            (language, reason, slug),
        )
        record_pin(cur, slug, manifest)
    return get(db, slug)


def get(db: Database, slug: str) -> Tournament:
    """The tournament `slug`, or TournamentError naming the ones there are."""
    row = db.query_one("SELECT * FROM tournaments WHERE slug = ?", (slug,))
    if row is None:
        known = ", ".join(t.slug for t in list_all(db)) or "none yet"
        raise TournamentError(f"No tournament {slug!r} (tournaments: {known}).")
    return _from_row(row)


def list_all(db: Database) -> list[Tournament]:
    """Every tournament, by slug."""
    with db.transaction() as cur:
        rows = cur.execute("SELECT * FROM tournaments ORDER BY slug").all()
    return [_from_row(row) for row in rows]


def update(
    db: Database,
    store: LexiconStore,
    slug: str,
    *,
    lexicon: str | None = None,
    rule: str | None = None,
    title: str | None = None,
    rulebook: str | None = None,
    event_date: str | None = None,
    language: str | None = None,
    off_rulebook: str | None = None,
) -> Tournament:
    """Change a tournament's lexicon, rule, title, rulebook ('none' takes it away), date or
    language; kiosks use it from their next challenge (a language from their next page). A
    change that takes it off its rulebook needs `off_rulebook`, the reason; once it is back on
    its rulebook, the reason recorded before is cleared."""
    current = get(db, slug)
    if language is not None:
        language = check_language(language)
    book = current.rulebook
    if rulebook is not None:
        book = None if rulebook.strip().lower() == "none" else _check_rulebook(rulebook)
    day = check_date(event_date) if event_date is not None else current.event_date
    if title is not None:
        title = check_text(title, "tournament title", TITLE_MAX)
    new_rule = get_rule(rule).name if rule is not None else current.rule
    new_lexicon = lexicon or current.lexicon
    manifest = store.open(new_lexicon).manifest if lexicon else None  # set again: pinned anew
    fingerprint = manifest.fingerprint if manifest else current.lexicon_fingerprint
    changed = {
        name
        for name, given in (
            ("lexicon", lexicon),
            ("rule", rule),
            ("rulebook", rulebook),
            ("date", event_date),
        )
        if given is not None
    }
    reason = current.off_rulebook
    if changed or off_rulebook is not None:
        checked = manifest or _manifest_or_none(store, current.lexicon)
        if checked is not None:
            reason = _off_rulebook_reason(
                slug, book, checked, new_rule, off_rulebook, changed, current.off_rulebook, day
            )
    with db.transaction() as cur:
        cur.execute(
            "UPDATE tournaments SET title = ?, lexicon = ?, lexicon_fingerprint = ?, rule = ?, "
            "updated_at = ?, rulebook = ?, event_date = ?, off_rulebook = ? WHERE slug = ?",
            (
                title or current.title,
                new_lexicon,
                fingerprint,
                new_rule,
                _now(),
                book,
                day,
                reason,
                slug,
            ),
        )
        if manifest is not None:
            record_pin(cur, slug, manifest)
        if language is not None:
            cur.execute("UPDATE tournaments SET language = ? WHERE slug = ?", (language, slug))
    return get(db, slug)


def record_pin(cur, slug: str, manifest: Manifest, only_if_missing: bool = False) -> None:
    """Record the pin of `manifest`'s verdict fields as the tournament's, in the caller's
    transaction (tournament_pins.py checks it); `only_if_missing`: unless one is recorded."""
    pinned = lexicon_pin.canonical(manifest.verdict_values).decode()
    cur.execute(
        "UPDATE tournaments SET lexicon_pin = ?, lexicon_pinned = ? WHERE slug = ?"
        + (" AND lexicon_pin IS NULL" if only_if_missing else ""),
        (manifest.current_pin, pinned, slug),
    )


def _check_rulebook(name: str | None) -> str | None:
    try:
        return check_rulebook(name)
    except AdjudicatorError as exc:
        raise TournamentError(str(exc)) from None


OFF_RULEBOOK_MAX = 500


def _off_rulebook_reason(
    slug: str,
    book_name: str | None,
    manifest: Any,
    rule: str,
    given: str | None,
    changed: set[str] | None,
    recorded: str | None = None,
    day: str | None = None,
) -> str | None:
    """The off-rulebook reason to store: None when the lexicon and rule are the rulebook's;
    `given` when something is off; the one `recorded` before when nothing newly off came with
    this change (`changed`: the fields changed, None for a new tournament). Refused, naming
    the clause, when something is newly off and no reason is given, and when a reason is
    given for nothing off. `day`, the event's date: NASPA 1.3 and WESPA 1.2(b) take only the
    edition in force then."""
    book = get_rulebook(book_name)
    found = off_rulebook(book, manifest, get_rule(rule), day)
    reason = _check_reason(given) if given is not None else None
    if not found:
        if reason and not book.named:
            raise TournamentError(
                f"Tournament {slug} names no rulebook, so nothing is off it: leave out the "
                "off-the-rulebook reason."
            )
        if reason:
            raise TournamentError(
                f"Tournament {slug}: nothing is off the {book.name} rulebook here (its lexicon "
                "and rule are allowed): leave out the off-the-rulebook reason."
            )
        return None
    newly = (
        changed is None
        or "rulebook" in changed
        or any(field in changed for p in found for field in p.changed_by)
    )
    if reason:
        return reason
    if not newly and recorded:
        return recorded
    raise TournamentError(refusal(slug, book.name, found))


def refusal(slug: str, book: str, found: tuple[OffRulebook, ...]) -> str:
    """The message refusing tournament `slug` its list or rule under rulebook `book`."""
    return (
        f"Tournament {slug} is refused under the {book} rulebook: {'; and '.join(map(str, found))}."
        " Choose what it allows, or give the reason this event is off its rulebook (--off-rulebook"
        ' "REASON"; on the Tournaments page, "Off the rulebook"): it is recorded and shown with '
        "the tournament."
    )


def _check_reason(text: str) -> str:
    reason = " ".join(check_text(text, "off-the-rulebook reason", OFF_RULEBOOK_MAX).split())
    if len(reason) < 3:
        raise TournamentError(
            "Give the reason this event is off its rulebook (3 to 500 characters): it is "
            "recorded and shown with the tournament."
        )
    return reason


def rulebook_problems(store: LexiconStore, tournament: Tournament) -> tuple[OffRulebook, ...]:
    """What of the tournament its rulebook does not allow, as it stands (() when the lexicon
    is missing: the kiosks say so)."""
    manifest = _manifest_or_none(store, tournament.lexicon)
    if manifest is None:
        return ()
    return off_rulebook(
        get_rulebook(tournament.rulebook),
        manifest,
        get_rule(tournament.rule),
        tournament.event_date,
    )


def _manifest_or_none(store: LexiconStore, name: str) -> Any:
    try:
        return store.manifest(name)
    except AdjudicatorError:
        return None


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")
