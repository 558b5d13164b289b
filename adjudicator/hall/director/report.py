"""An event's challenge report: each player's figures, every challenge round by round, the
event's totals, and, once the event is closed and only when asked, the words not in the lexicon.

The players' figures are the judging's (`player_figures`: the tallies kept at each append, each
corrected challenge counted by its effective outcome). The rounds walk the event's challenges
with their effective outcomes (`outcomes.outcome_of`, recounted in their game where the rule
counts: `outcomes.Games`), naming every row that corrected each; the totals count the same walk.
Each challenge has one verdict, that of the whole play; which of its words were not in the
lexicon (`not_in_lexicon`, study_list.py) is told only after the close, with `words=True`.
Before the close the report is the director's alone (report_files.publish refuses to write it).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from adjudicator.hall import event_close, tournaments
from adjudicator.hall.director import study_list
from adjudicator.judging import outcomes, player_figures
from adjudicator.judging.player_figures import PlayerFigures
from adjudicator.record.journal import journal, player_tallies
from adjudicator.record.journal.closings import Statement
from adjudicator.wording import N_, Phrase, natural_key

# What a challenge finally did to the play (the whole play: one verdict).
RESULTS = {
    "UNACCEPTABLE": N_("came off"),
    "ACCEPTABLE": N_("stood"),
    "REFER": N_("awaiting the word judge"),
    outcomes.VOID: N_("void"),
}
# Each row that corrected a challenge, as the report names it (never its words).
_OPINION = N_("second opinion #{id}: {verdict}")
_OPINION_FLAGGED = N_("second opinion #{id}: {verdict}, flagged for the director")
_RULING = N_("ruling #{id}: {verdict}")
_VOID = N_("void #{id}: {reason}")
_REVOKED = N_("void revoked #{id}")
_REISSUED = N_("reissued as #{id}")
_REISSUES = N_("reissues #{id}")
_WAIVED = N_("penalty waived #{id}")
_RECOUNTED = N_("penalty recounted after later corrections in the game")
_PENDING = N_("awaiting the director's ruling")
# The event's totals: the figures a challenge gives its challenger, and those no one made.
TOTALS = (
    "challenges_made",
    "challenges_won",
    "challenges_lost",
    "challenges_undecided",
    "penalty_points",
    "penalty_turns",
    "penalty_seconds",
    "free_challenges_granted",
    "free_challenges_used",
    "opinions_changed",
    "rulings_changed",
    "voided",
    "director_points",  # the players': a ruling's and a placement's or exchange's `--points`
    "unnamed",  # challenges that named no challenger: counted here, for no player
)


@dataclass
class ChallengeLine:
    """One challenge as the report shows it."""

    id: int
    round: str | None
    table: str | None
    division: str | None
    players: list[str]
    challenger: str | None
    player: str | None  # whose play was challenged
    words: tuple[str, ...]
    verdict: str  # effective: ACCEPTABLE, UNACCEPTABLE, REFER or VOID
    consequence: str
    penalty: dict[str, Any] | None
    corrections: list[Phrase]
    recorded_at: str
    pending: bool = False
    decided_words: tuple[str, ...] = ()  # the words of the row that decides it (study_list)
    not_in_lexicon: list[str] | None = None
    lexicon: tuple[str, str] = ("", "")  # name and fingerprint it was judged with
    changed_by: str | None = None  # 'ruling' or 'opinion' when one changed its verdict
    points: int = 0  # the director's points in `penalty` (the deciding ruling's `--points`)

    @property
    def result(self) -> str:
        return RESULTS.get(self.verdict, RESULTS["REFER"])

    def to_api(self) -> dict[str, Any]:
        found = {
            "id": self.id,
            "round": self.round,
            "table": self.table,
            "division": self.division,
            "players": self.players,
            "challenger": self.challenger,
            "player": self.player,
            "words": list(self.words),
            "verdict": self.verdict,
            "result": self.result,
            "consequence": self.consequence,
            "penalty": self.penalty,
            "pending": self.pending,
            "corrections": [said.render(_same, _same_plural) for said in self.corrections],
            "recorded_at": self.recorded_at,
        }
        if self.not_in_lexicon is not None:
            found["not_in_lexicon"] = self.not_in_lexicon
        return found


@dataclass
class Report:
    """An event's challenge report."""

    tournament: tournaments.Tournament
    closing: Statement | None
    players: list[PlayerFigures]
    rounds: list[tuple[str | None, list[ChallengeLine]]]
    totals: dict[str, int]
    divisions: dict[str, dict[str, int]] = field(default_factory=dict)
    words: bool = False  # not_in_lexicon given (closed events only)

    @property
    def voided(self) -> list[ChallengeLine]:
        return [line for _, lines in self.rounds for line in lines if line.verdict == "VOID"]

    def to_api(self) -> dict[str, Any]:
        t = self.tournament
        return {
            "tournament": {
                "slug": t.slug,
                "title": t.title,
                "lexicon": t.lexicon,
                "rule": t.rule,
                "rulebook": t.rulebook,
                "date": t.event_date,
                "closed": self.closing.to_api() if self.closing else None,
            },
            "figures": list(player_tallies.FIGURES),
            "players": [each.to_api() for each in self.players],
            "divisions": [
                {"name": name, "totals": totals} for name, totals in self.divisions.items()
            ],
            "totals": self.totals,
            "rounds": [
                {"round": name, "challenges": [line.to_api() for line in lines]}
                for name, lines in self.rounds
            ],
            "voided": [
                {
                    "id": line.id,
                    "round": line.round,
                    "table": line.table,
                    "challenger": line.challenger,
                    "player": line.player,
                    "corrections": line.to_api()["corrections"],
                }
                for line in self.voided
            ],  # fmt: skip
            "words": self.words,
        }


def build(hall, slug: str, *, words: bool = False) -> Report:
    """Tournament `slug`'s report; with `words`, each challenge that came off names its words
    not in the lexicon, refused (study_list.WordsRefused, citing the rulebook) before the close."""
    tournament = tournaments.get(hall.db, slug)
    closing = event_close.closing(hall, tournament.slug)
    if words:
        study_list.refuse_unless_closed(tournament, closing)
    players = sorted(
        player_figures.of_tournaments(hall.db, [tournament.slug]),
        key=lambda p: (natural_key(p.division), natural_key(p.name)),
    )
    lines = list(challenge_lines(hall.db, tournament.slug))
    if words:
        study_list.mark(hall.store, tournament, closing, lines)
    rounds: dict[str | None, list[ChallengeLine]] = {}
    for line in lines:
        rounds.setdefault(line.round, []).append(line)
    ordered = sorted(rounds.items(), key=lambda item: (item[0] is None, natural_key(item[0] or "")))
    totals, divisions = _totals(players, lines)
    return Report(tournament, closing, players, ordered, totals, divisions, words)


def challenge_lines(db, slug: str) -> Iterator[ChallengeLine]:
    """Every challenge of the tournament, in id order, with its effective outcome and the
    rows that corrected it (one query a chunk of challenges for their follow-ups)."""
    games = outcomes.Games(db, whole_journal=True)
    batch: list[journal.Entry] = []
    for entry in journal.entries(db, slug, kind="challenge"):
        batch.append(entry)
        if len(batch) >= outcomes.CHUNK:
            yield from _lines(db, batch, games)
            batch = []
    yield from _lines(db, batch, games)


def _lines(db, batch: list[journal.Entry], games: outcomes.Games) -> Iterator[ChallengeLine]:
    follow_ups = outcomes.follow_ups_of(db, [entry.id for entry in batch])
    for entry in batch:
        rows = follow_ups[entry.id]
        found = games.effective(entry, outcomes.outcome_of(entry, rows))
        who, whose = player_tallies.sides(entry.challenger, entry.player, entry.players)
        deciding = next((row for row in rows if row.id == found.decided_by), entry)
        yield ChallengeLine(
            id=entry.id,
            round=entry.round,
            table=entry.table,
            division=entry.division,
            players=list(player_tallies.game_players(entry.players) if entry.players else ())
            or [name for name in (who, whose) if name],
            challenger=who,
            player=whose,
            words=entry.words,
            verdict=found.verdict,
            consequence=found.consequence,
            penalty=found.penalty,
            corrections=corrections_of(entry, rows, found),
            recorded_at=entry.recorded_at,
            pending=found.pending,
            decided_words=deciding.words or entry.words,
            lexicon=(entry.lexicon_name, entry.lexicon_fingerprint),
            changed_by=player_figures.changed_by(entry, found, rows),
            points=0 if found.verdict == outcomes.VOID else found.points,
        )


def corrections_of(
    entry: journal.Entry, rows: Sequence[journal.Entry], found: outcomes.Outcome
) -> list[Phrase]:
    """Each row that corrected the challenge, named with its verdict (never its words)."""
    said: list[Phrase] = []
    if entry.refers_to is not None:
        said.append(Phrase.of(_REISSUES, id=str(entry.refers_to)))
    for row in rows:
        number = str(row.id)
        if row.kind == "second-opinion":
            flagged = bool(row.flag_reasons and row.flag_reasons != "[]")
            said.append(
                Phrase.of(_OPINION_FLAGGED if flagged else _OPINION, id=number, verdict=row.verdict)
            )
        elif row.kind == "ruling":
            said.append(Phrase.of(_RULING, id=number, verdict=row.verdict))
        elif row.kind == "void":
            said.append(Phrase.of(_VOID, id=number, reason=row.note or ""))
        elif row.kind == "revocation":
            said.append(Phrase.of(_REVOKED, id=number))
        elif row.kind == "challenge":
            said.append(Phrase.of(_REISSUED, id=number))
        elif row.kind == "waiver":
            said.append(Phrase.of(_WAIVED, id=number))
    if found.pending:
        said.append(Phrase(_PENDING))
    if found.penalty_changed or found.how.endswith(outcomes.recount.RECOUNTED):
        said.append(Phrase(_RECOUNTED))
    return said


def _totals(players: list[PlayerFigures], lines: list[ChallengeLine]) -> tuple[dict, dict]:
    """The event's totals and each division's, counted from its challenge lines; the free
    challenges granted and the director's points are the players' (a grant names its player,
    a waiver its challenger, the director's points the player whose play or exchange was
    challenged: a placement or an exchange is no challenge line)."""
    totals = dict.fromkeys(TOTALS, 0)
    divisions: dict[str, dict[str, int]] = {}
    for line in lines:
        made = player_tallies.contributions(  # what it gives a challenger: the same figures
            division="",
            challenger="*",
            player=None,
            verdict=line.verdict,
            penalty=line.penalty,
            void=line.verdict == outcomes.VOID,
            changed_by=line.changed_by,
            waivers=sum(1 for said in line.corrections if said.msgid == _WAIVED),
            points=line.points,
        )[0][3]
        figures = {name: made[name] for name in TOTALS if name in made}
        figures["director_points"] = 0  # the player's: counted with their figures below
        figures["unnamed"] = int(line.challenger is None)
        if line.challenger is not None:  # counted with the player's figures below
            figures["free_challenges_granted"] = 0
        for into in (totals, divisions.setdefault(line.division or "", dict.fromkeys(TOTALS, 0))):
            for name, value in figures.items():
                into[name] += value
    for player in players:
        for name in ("free_challenges_granted", "director_points"):
            totals[name] += player.figures[name]
            if player.division in divisions:
                divisions[player.division][name] += player.figures[name]
    if list(divisions) == [""]:
        divisions = {}
    return totals, dict(sorted(divisions.items(), key=lambda item: natural_key(item[0])))


def _same(text: str) -> str:
    return text


def _same_plural(one: str, many: str, n: int) -> str:
    return one if n == 1 else many
