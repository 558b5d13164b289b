"""The hall: compiled lexicons, tournaments, kiosks and the journal, wired for adjudication.

`Hall.adjudicate` is the path every challenge takes, from the CLI, the API or the kiosk page:
normalise the input, rule on it once, record it durably, and only then return it.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from adjudicator import settings
from adjudicator.errors import AdjudicatorError, LexiconError
from adjudicator.hall import kiosks, tournament_pins, tournaments
from adjudicator.hall.people import sealed_hashes
from adjudicator.hall.people.ratelimit import KioskLimits, RateLimit
from adjudicator.hall.tsh import seating
from adjudicator.judging import free_challenges, game, grant_uses, lookups
from adjudicator.judging.corrections import reissues
from adjudicator.judging.rulebooks import get_rulebook
from adjudicator.judging.rules import consequence, get_rule
from adjudicator.judging.ruling import rule_on
from adjudicator.record.backends import connect
from adjudicator.record.database import journal_health, migrations
from adjudicator.record.database.db import Database
from adjudicator.record.journal import (
    hall_beat,
    journal,
    journal_holds,
    player_tallies,
    receipt_key,
    retries,
    rollbacks,
    row_keys,
)
from adjudicator.record.journal.group_commit import GroupCommitter
from adjudicator.record.proofs import high_water, journal_proof, receipts
from adjudicator.textcheck import TextError, check_text
from adjudicator.wording import N_, Phrase
from adjudicator.words.lexicon import CompiledLexicon
from adjudicator.words.normalize import normalize_challenge
from adjudicator.words.store import LexiconStore

DETAIL_FIELDS = ("table", "round", "challenger", "player")
# What a challenge may carry besides its words; final_play (true: the challenged play went out)
# only matters where the rulebook says so (school rule 12) and for the consequence's wording.
OPTIONAL_FIELDS = (*DETAIL_FIELDS, "replaces", "final_play", retries.FIELD, "alphabet")
MAX_DETAIL = 40


class LexiconUnavailable(AdjudicatorError):
    """The tournament's lexicon cannot be used; the director must fix it before judging.
    `phrase` is the message as a kiosk says it in its tournament's language; `detail`, when
    given, says to the director why and what to do (the overview shows it)."""

    def __init__(self, message: str, phrase: Phrase | None = None, detail: Phrase | None = None):
        super().__init__(message)
        self.phrase = phrase
        self.detail = detail


# What a kiosk says of it (babel.cfg extracts these for the kiosk's catalogues).
_UNAVAILABLE = N_("Lexicon unavailable for {title}: call the director.")
_CHANGED = N_(
    "Lexicon {lexicon} has changed since the director set it for {title}: call the director."
)


class AlphabetChanged(AdjudicatorError):
    """The kiosk read the words in another alphabet than the tournament's lexicon has now (the
    director changed it since the kiosk's last status): nothing is judged; the kiosk reads them
    again. `phrase`: the message as a kiosk says it."""

    def __init__(self, message: str, phrase: Phrase):
        super().__init__(message)
        self.phrase = phrase


_REREAD = N_(
    "{title} now uses the {alphabet} alphabet: the words were read in another. Nothing was "
    "judged: read them again and press JUDGE."
)


class DetailError(AdjudicatorError):
    """An optional field (table, round, challenger, player) is not usable."""


class Hall:
    """Everything one app server or CLI process needs to adjudicate."""

    def __init__(
        self,
        store: LexiconStore | None = None,
        db: Database | None = None,
        rate_limit: KioskLimits | RateLimit | None | str = "setting",
        key_path: Path | None = None,
    ):
        self.store = store or LexiconStore()
        self.db = db or connect()
        self.db_from_settings = db is None  # another process of the hall opens the same journal
        if key_path is not None and hasattr(self.db, "key_path"):
            self.db.key_path = key_path  # a mirrored journal signs its markers with it
        self.committer = GroupCommitter(self.db)
        self.key_path = key_path  # None: the configured receipt key file
        self._key: receipt_key.SigningKey | None = None
        self._high_water: high_water.HighWater | None = None
        self._key_lock = threading.Lock()
        self.row_keys = row_keys.of(self.db)
        self.row_keys.use(self.signing_key)  # rows are keyed with the key receipts are signed with
        sealed_hashes.use(self.db, self.signing_key, key_path)  # and staff hashes sealed with it
        # "setting": ADJUDICATOR_KIOSK_RATE_LIMIT; a RateLimit (or None) binds every kiosk
        if rate_limit == "setting":
            rate_limit = KioskLimits.of(settings.get("kiosk_rate_limit"))
        elif not isinstance(rate_limit, KioskLimits):
            rate_limit = KioskLimits.every(rate_limit)
        self.rate_limits = rate_limit

    def upgrade(self) -> list[int]:
        """Apply pending schema migrations; tournaments set before lexicon pins existed get
        their lexicon's pin (tournament_pins.record_missing_pins), and the players' figures
        count the rows from before they were kept (player_tallies.ensure_counted)."""
        applied = migrations.upgrade(self.db)
        tournament_pins.record_missing_pins(self.db, self.store)
        player_tallies.ensure_counted(self.db)
        return applied

    def signing_key(self) -> receipt_key.SigningKey:
        """The hall's receipt key, loaded (or made) once per process."""
        if self._key is None:
            with self._key_lock:
                if self._key is None:
                    self._key = receipt_key.load_or_create(self.key_path)
        return self._key

    def receipt(self, entry: journal.Entry) -> dict[str, Any]:
        """The signed receipt of a row this process recorded (and the high-water mark moved
        up to it: the highest number a receipt carries, kept beside the key)."""
        journal_id = journal_health.of(self.db).journal_id
        keyed_from = self.row_keys.keyed_from
        issued = receipts.issue(self.signing_key(), entry, journal_id, keyed_from)
        self.high_water().advance(journal_id, entry.id, entry.row_hash, issued, keyed_from)
        return issued

    def high_water(self) -> high_water.HighWater:
        if self._high_water is None:
            self._high_water = high_water.HighWater(
                self.signing_key(),
                self.key_path or receipt_key.key_path(),
                high_water.copy_paths(self.db),
            )
        return self._high_water

    def check_high_water(self) -> rollbacks.Rollback | None:
        """At a server's start: a rollback if the journal ends before the highest signed mark,
        contradicts a signed statement (a fork), or is not one the key began (journal_proof)."""
        return journal_proof.check(
            self.db, self.signing_key(), self.key_path or receipt_key.key_path()
        )

    def begin_journal(self, reason: str) -> dict[str, Any]:
        """`journal begin`: this new, empty journal begun under the hall's key, signed."""
        key_path = self.key_path or receipt_key.key_path()
        return high_water.begin_journal(self.db, self.signing_key(), key_path, reason)

    def adopt_journal(self, reason: str) -> None:
        """After an accepted loss: the journal begun under the hall's key, if it was not."""
        key_path = self.key_path or receipt_key.key_path()
        high_water.adopt(self.db, self.signing_key(), key_path, reason)

    def journal_health(self) -> journal_health.Health:
        """Whether verdicts can be recorded now, and if not, why (see journal_health)."""
        health = journal_health.check(self.db)
        if not health.ok:
            return health
        rolled_back = rollbacks.current(self.db)
        if rolled_back is not None:
            first, last = rolled_back.missing
            fork = rolled_back.fork is not None  # no rows to accept as lost: another history
            return journal_health.Health(
                "rolled-back",
                rollbacks.ROLLED_BACK_MESSAGE,
                rolled_back.detail(),
                rolled_back.found_at,
                row=None if fork else first,
                last=None if fork else last,
            )
        held = journal_holds.current(self.db)
        if held is not None:
            return journal_health.Health(
                "held", journal_holds.HELD_MESSAGE, held.detail, held.since
            )
        paused = hall_beat.paused_for()
        if paused is not None:
            return journal_health.Health("paused", hall_beat.PAUSED_MESSAGE, _paused(paused))
        return health

    def lexicon_for(self, tournament: tournaments.Tournament) -> CompiledLexicon:
        """The tournament's lexicon, refused if damaged or not the edition the director set."""
        try:
            lexicon = self.store.open(tournament.lexicon)
        except LexiconError:
            raise LexiconUnavailable(
                f"Lexicon unavailable for {tournament.title}: call the director.",
                Phrase.of(_UNAVAILABLE, title=tournament.title),
            ) from None
        changed = tournament_pins.pin_change(tournament, lexicon.manifest)
        if changed is not None or lexicon.manifest.fingerprint != tournament.lexicon_fingerprint:
            raise LexiconUnavailable(
                f"Lexicon {tournament.lexicon} has changed since the director set it for "
                f"{tournament.title}: call the director.",
                Phrase.of(_CHANGED, lexicon=tournament.lexicon, title=tournament.title),
                changed,
            )
        return lexicon

    def adjudicate(
        self,
        kiosk: kiosks.Kiosk,
        words: str | Iterable[str],
        replaces: int | None = None,
        **details: str | None,
    ) -> journal.Entry:
        """Judge a challenge from `kiosk` and return it once it is in the journal; a challenge
        that names no table is made at the kiosk's own table, if it has one."""
        if kiosk.table is not None and details.get("table") in (None, ""):
            details["table"] = kiosk.table
        return self.record_challenge(
            kiosk.tournament,
            kiosk.name,
            words,
            replaces=replaces,
            guard=self._rate_guard(kiosk),
            **details,
        )

    def record_challenge(
        self,
        tournament_slug: str,
        station: str,
        words: str | Iterable[str],
        *,
        actor: str | None = None,
        replaces: int | None = None,
        guard=None,
        final_play: Any = None,
        attempt: Any = None,
        alphabet: Any = None,
        **details: str | None,
    ) -> journal.Entry:
        """Judge a challenge for a tournament, made at `station` (a kiosk, or the command line),
        and return it once it is in the journal. The penalty is settled under the chain lock.
        The same `attempt` sent again gets the row it recorded, not a second (retries.py)."""
        clean = clean_details(details)
        replaces = check_replaces(replaces)
        final_play = check_final_play(final_play)
        attempt = retries.check_key(attempt)
        self.signing_key()  # a verdict that could not be signed is not recorded either
        tournament = tournaments.get(self.db, tournament_slug)
        clean = seating.seat_challenge(self.db, tournament.slug, clean)  # TSH's game, if linked
        lexicon = self.lexicon_for(tournament)
        check_alphabet(alphabet, lexicon, tournament)  # the one the words were read in
        normalised = normalize_challenge(words, lexicon.alphabet)  # read in the lexicon's tiles
        rule = get_rule(tournament.rule)
        clean = game.require_game(rule, clean)
        book = get_rulebook(tournament.rulebook)
        if replaces is not None:  # only where the rulebook has reissues: nothing is judged
            reissues.refuse_unless_offered(book, replaces)
        ruling = rule_on(lexicon, rule, normalised)
        manifest = ruling.lexicon.manifest
        # NASPA 6.2's look-up flags only under the naspa rulebook, and only where the table is
        # known (a shared computer's unrelated tables would flood the director).
        window = lookups.lookup_window_seconds() if book.improper_lookup else 0
        asked = {retries.FIELD: attempt} if attempt is not None else {}

        def settle(cur) -> dict:
            if attempt is not None:  # before any limit or count: a retry adds nothing
                retries.recorded(cur, station, attempt, ruling.words, clean)
            if guard is not None:
                guard(cur, clean)
            final = final_play
            if replaces is not None:  # the same turn's slip: its final play stays final
                replaced = reissues.check_reissue(
                    cur, replaces, tournament.slug, station, clean, book
                )
                final = final or bool(replaced.detail("final_play"))
            earlier = game.earlier_unsuccessful(
                cur,
                tournament.slug,
                *(clean.get(name) for name in game.GAME_FIELDS),
                replacing=replaces,
            )
            result = consequence(
                rule,
                ruling.verdict,
                ruling.word_count,
                earlier,
                final_play=final,
                final_play_free=book.final_play_free,
            )
            # NSA VI.C: a free challenge the director granted this challenger (one seek).
            result, grant = grant_uses.claim(
                cur, rule, result, tournament.slug, clean, book.final_play_free, leave_out=replaces
            )
            flag = lookups.separate_lookup(
                cur,
                station,
                clean.get("table"),
                clean.get("round"),
                window,
                tournament.slug,
                challenger=clean.get("challenger"),
            )
            completed = {"consequence": result.text, "penalty": result.penalty_json()}
            said = {**asked, "final_play": True} if final else dict(asked)
            if grant is not None:
                said[free_challenges.USED] = grant
            if said:
                completed["details"] = json.dumps(said)
            return {**completed, **(flag or {})}

        try:
            return self.committer.append(
                guard=settle,
                kind="challenge",
                refers_to=replaces,
                tournament=tournament.slug,
                kiosk=station,
                lexicon_name=manifest.name,
                lexicon_fingerprint=manifest.fingerprint,
                lexicon_words=manifest.words,
                rule=ruling.rule.name,
                words=ruling.words,
                word_count=ruling.word_count,
                verdict=ruling.verdict.value,
                consequence=ruling.consequence.text,
                actor=actor,
                details=json.dumps({"final_play": True}) if final_play else None,
                **clean,
            )
        except retries.AlreadyRecorded as before:
            return retries.read_back(self.db, before.row_id, station, attempt)

    def _rate_guard(self, kiosk: kiosks.Kiosk):
        """The kiosk's limit, checked under the chain lock: a kiosk at a table judges as one
        table, one of no table as the whole hall (KioskLimits)."""
        limit = self.rate_limits.for_kiosk(seated=kiosk.table is not None)
        if limit is None:
            return None

        def guard(cur, clean: dict) -> None:
            table = clean.get("table")
            counts = journal.recent_counts(
                cur, kiosk.name, limit.limit.count, limit.window_start(), table
            )
            limit.check(*counts, table)

        return guard


def check_replaces(value) -> int | None:
    """The id of the challenge a reissued challenge replaces: a positive whole number, or None."""
    if value is None or value == "":
        return None
    text = str(value).strip()
    if isinstance(value, bool) or not isinstance(value, (int, str)) or not _ascii_digits(text):
        raise DetailError("replaces must be the number of the challenge this one replaces.")
    number = int(text)
    if not 0 < number < 2**31:
        raise DetailError("replaces must be the number of the challenge this one replaces.")
    return number


def check_alphabet(value: Any, lexicon: CompiledLexicon, tournament) -> None:
    """`alphabet`, the name of the one a kiosk read the words in (or left out): AlphabetChanged
    when the tournament's lexicon has another now, so that no word read in tiles it does not
    have is judged (and recorded as other words than the kiosk showed)."""
    if value is None or value == "":
        return
    if not isinstance(value, str) or len(value) > MAX_DETAIL:
        raise DetailError("alphabet must be the name of the alphabet the words were read in.")
    current = lexicon.alphabet
    if value != current.name:
        said = Phrase.of(_REREAD, title=tournament.title, alphabet=Phrase(current.shown_name))
        raise AlphabetChanged(said.render(str, None), said)  # the name sent is never echoed


def check_final_play(value: Any) -> bool:
    """final_play: true or false (a JSON boolean), or left out (false)."""
    if value is None or value is False:
        return False
    if value is True:
        return True
    raise DetailError("final_play must be true or false: was the challenged play the last one?")


def _ascii_digits(text: str) -> bool:
    return text.isascii() and text.isdigit()  # not '٣' or '²', which str.isdecimal() lets by


def clean_details(details: dict[str, str | int | None]) -> dict[str, str | None]:
    """Table, round, challenger and player: optional short text, checked like input."""
    clean: dict[str, str | None] = {}
    for name, value in details.items():
        if name not in DETAIL_FIELDS:
            raise DetailError(
                f"Unknown field {name!r}: the optional fields are {', '.join(DETAIL_FIELDS)}."
            )
        if value is None or value == "":
            clean[name] = None
            continue
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise DetailError(f"{name} must be text or a number.")
        try:
            clean[name] = check_text(str(value), name, MAX_DETAIL) or None
        except TextError as exc:
            raise DetailError(str(exc)) from None
    return clean


def _paused(seconds: float) -> str:
    """For the director: why a hall's server judges nothing while its beat is old."""
    since = (
        "has written no beat" if seconds == float("inf") else f"has not beaten for {seconds:.0f} s"
    )
    return (
        f"The hall process {since} (hall_beat): the laptop was paused (asleep, "
        "or its processes stopped) and looks at the network for another laptop of the hall "
        "before it judges again, which takes a few seconds; if this lasts, `adjudicator hall` "
        "no longer runs: stop its server and start the hall again."
    )
