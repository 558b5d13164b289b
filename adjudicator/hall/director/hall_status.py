"""What the director keeps an eye on all day: the hall's state, in one cheap read.

Each tournament with its lexicon (fingerprint, and whether kiosks can judge with it now), its
rule and its kiosks (online or offline, last seen); every compiled lexicon's integrity; the
second opinions waiting for a ruling; the journal's newest row; each tournament's challenges
today; each tournament's TSH link (and what failed, since when, if its last read failed). It
reads the tournaments and kiosks tables, the lexicon manifests, the TSH links, the tallies kept
beside the journal (tallies.py) and one journal row by its key, so it costs the same however
long the journal grows.

Other figures slot in beside these: the journal's health (checkpoint, verify state, alarms:
`JournalStatus`), and the hall's identity: its CA's fingerprint (as the printed sheets show it)
and any other device answering for its name (name_claims.py); and the client addresses whose
connections the server workers refuse, at their cap, with what they refused or closed of each
kind to keep room for the kiosks (connection_caps.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from adjudicator import settings
from adjudicator.errors import AdjudicatorError, LexiconError
from adjudicator.hall import kiosks, tournament_pins, tournaments
from adjudicator.hall.director import integrity, overview
from adjudicator.hall.hall import Hall, LexiconUnavailable
from adjudicator.hall.kit import refresh as kit_refresh
from adjudicator.hall.network import connection_caps, hall_tls, name_claims
from adjudicator.hall.tsh import links
from adjudicator.judging import director_flags
from adjudicator.judging.corrections import second_opinion
from adjudicator.judging.rules import get_rule
from adjudicator.record.journal import writer
from adjudicator.wording import Phrase
from adjudicator.words.lexicon import Manifest

# A paired kiosk asks for its status every 5 s and is recorded as seen at most once a minute
# (kiosk/api.py TOUCH_SECONDS): unseen for longer than this, it is offline.
ONLINE_SECONDS = 150


@dataclass(frozen=True)
class KioskStatus:
    name: str
    state: str  # "online", "offline" or "never seen"
    last_seen_at: str | None

    @property
    def online(self) -> bool:
        return self.state == "online"


@dataclass(frozen=True)
class TournamentStatus:
    tournament: tournaments.Tournament
    rule_title: str
    lexicon_words: int | None
    lexicon_problem: str | None  # why its kiosks cannot judge now; None when they can
    kiosks: tuple[KioskStatus, ...]
    challenges_today: int | None = None
    edition_warning: str | None = None  # the lexicon was not in force on the event's date
    lexicon_problem_phrase: Phrase | None = None  # the same, for a page to translate
    off_rulebook: tuple[str, ...] = ()  # what its rulebook does not allow (the reason: tournament)
    tsh: links.Link | None = None  # its TSH link, and how the last read of it went

    @property
    def kiosks_online(self) -> int:
        return sum(k.online for k in self.kiosks)


@dataclass(frozen=True)
class LexiconStatus:
    manifest: Manifest
    problem: str | None  # why it cannot be opened intact; None when it can
    used_by: tuple[str, ...]

    @property
    def catalogue(self) -> str:
        """How the list compares with the catalogue of published editions."""
        if self.manifest.verified:
            return "verified against the catalogue"
        if self.manifest.catalogue_name:
            return f"the catalogue's {self.manifest.catalogue_name}"
        return "not in the catalogue"


@dataclass(frozen=True)
class JournalStatus:
    rows: int  # the newest row's id: the chain has ids 1..N
    newest_at: str | None


@dataclass(frozen=True)
class HallStatus:
    checked_at: str
    tournaments: tuple[TournamentStatus, ...]
    lexicons: tuple[LexiconStatus, ...]
    open_flags: int
    journal: JournalStatus
    problems: tuple[str, ...] = field(default=())
    record: integrity.Integrity | None = None  # journal health, witness alarms, checkpoints
    other_flags: int = 0  # open look-up and changed-penalty flags (director_flags.py)
    ca_fingerprint: str | None = None  # the hall's CA (SHA-256, AB:CD:...); None without one
    name_warnings: tuple[Phrase, ...] = ()  # other devices answering for the hall's name
    problem_phrases: tuple[Phrase, ...] = field(default=())  # `problems`, for a page to translate
    kit: kit_refresh.KitStatus | None = None  # the takeover kit on the stick (None: no stick)
    connection_warnings: tuple[Phrase, ...] = ()  # client addresses at their connection cap
    laptop: str = ""  # this laptop, as refusals and warnings name one: 'vm' (install 1f97d271)
    connection_counts: tuple[Phrase, ...] = ()  # what the server workers refused or closed

    @property
    def kiosks(self) -> tuple[KioskStatus, ...]:
        return tuple(k for t in self.tournaments for k in t.kiosks)


def build(hall: Hall, now: datetime | None = None) -> HallStatus:
    """The hall's state now, for the director's overview."""
    now = now or datetime.now(UTC)
    every = tournaments.list_all(hall.db)
    by_tournament: dict[str, list[KioskStatus]] = {t.slug: [] for t in every}
    for kiosk in kiosks.list_all(hall.db):
        if kiosk.active and kiosk.tournament in by_tournament:
            by_tournament[kiosk.tournament].append(kiosk_status(kiosk, now))
    today = overview.challenges_today(hall.db, now)
    linked = {found.tournament: found for found in links.all_links(hall.db)}
    shown = tuple(
        _tournament_status(hall, t, by_tournament[t.slug], today.get(t.slug, 0), linked.get(t.slug))
        for t in every
    )
    lexicons = tuple(_lexicon_status(hall, m, every) for m in hall.store.manifests())
    said = [
        (f"{t.tournament.title}: {t.lexicon_problem}", t.lexicon_problem_phrase)
        for t in shown
        if t.lexicon_problem
    ] + [(f"Lexicon {x.manifest.name}: {x.problem}", None) for x in lexicons if x.problem]
    problems = [english for english, _ in said]
    return HallStatus(
        checked_at=now.isoformat(timespec="seconds"),
        tournaments=shown,
        lexicons=lexicons,
        open_flags=second_opinion.open_count(hall.db),
        other_flags=director_flags.open_count(hall.db),
        journal=_journal_status(hall),
        problems=tuple(problems),
        problem_phrases=tuple(phrase or Phrase(english) for english, phrase in said),
        record=integrity.overview(hall),
        ca_fingerprint=hall_tls.read_ca_fingerprint(),
        name_warnings=_name_warnings(),
        kit=kit_refresh.to_show(hall.db, hall.store),
        connection_warnings=connection_caps.phrases(settings.get_int("connections_per_address", 0)),
        laptop=writer.this_laptop_if_known() if writer.install_id(create=False) else "",
        connection_counts=connection_caps.count_phrases(),
    )


def _name_warnings() -> tuple[Phrase, ...]:
    return name_claims.phrases_now()


def kiosk_status(kiosk: kiosks.Kiosk, now: datetime) -> KioskStatus:
    """Online if seen within ONLINE_SECONDS of `now`. Seen further ahead of `now` than that, it
    was seen under a clock set back since, and not since: offline (a kiosk that polls is seen
    anew at once)."""
    if kiosk.last_seen_at is None:
        return KioskStatus(kiosk.name, "never seen", None)
    seen = datetime.fromisoformat(kiosk.last_seen_at)
    online = abs(now - seen) <= timedelta(seconds=ONLINE_SECONDS)
    return KioskStatus(kiosk.name, "online" if online else "offline", kiosk.last_seen_at)


def _tournament_status(
    hall: Hall,
    tournament,
    kiosk_list: list[KioskStatus],
    challenges_today: int,
    tsh: links.Link | None = None,
) -> TournamentStatus:
    phrase = None
    try:
        words = hall.lexicon_for(tournament).manifest.words
        problem = None
    except LexiconUnavailable as exc:  # the pin's detail, where there is one, says what to do
        words, problem, phrase = None, str(exc), exc.detail
        problem = tournament_pins.in_english(phrase) if phrase else problem
    except AdjudicatorError as exc:
        words, problem = None, str(exc)
    try:
        rule_title = get_rule(tournament.rule).title
    except AdjudicatorError:
        rule_title = tournament.rule
    return TournamentStatus(
        tournament=tournament,
        rule_title=rule_title,
        lexicon_words=words,
        lexicon_problem=problem,
        kiosks=tuple(kiosk_list),  # as kiosks.list_all gives them: table 2 before table 10
        challenges_today=challenges_today,
        edition_warning=tournaments.edition_warning(tournament),
        lexicon_problem_phrase=phrase,
        off_rulebook=tuple(map(str, tournaments.rulebook_problems(hall.store, tournament))),
        tsh=tsh,
    )


def _lexicon_status(hall: Hall, manifest: Manifest, every) -> LexiconStatus:
    try:
        hall.store.open(manifest.name)  # its compiled file against the manifest's checksum
        problem = None
    except LexiconError as exc:
        problem = str(exc)
    used_by = tuple(t.slug for t in every if t.lexicon == manifest.name)
    return LexiconStatus(manifest, problem, used_by)


def _journal_status(hall: Hall) -> JournalStatus:
    with hall.db.transaction() as cur:
        row = cur.execute(
            "SELECT id, recorded_at FROM adjudications ORDER BY id DESC LIMIT 1"
        ).one()
    if row is None:
        return JournalStatus(0, None)
    return JournalStatus(row["id"], row["recorded_at"])
