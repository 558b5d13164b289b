"""Each player's challenge figures, following every correction exactly as the game does.

The journal keeps, beside each append, what every challenge gave its players as judged
(`record.journal.player_tallies`), and what the director's decisions on a placement or an
exchange gave them (their points). A challenge whose effective outcome may differ from its row
gives what that outcome says instead, decided as the export decides it (`outcomes.effective_rows`,
the truth): its corrections (a void, a reissue, a second or third opinion, a ruling and its
points, a waiver: `outcomes.outcome_of`), the free challenges as they now pay (`outcomes.paid`
over `outcomes.grant_holders`: a grant given back passes to the player's next unsuccessful
challenge that would cost something, even one already recorded and referred to by no row),
and under a rule that counts the challenger's earlier challenges in the game, every challenge
of a corrected game recounted (`outcomes.recount_game`, the grants paid first). So the figures
read here are the stored tallies plus, for those challenges only, what their outcome gives less
what they gave as judged. They are found through the follow-ups' partial index and the grants'
(`grant_uses.holders` reads whole only a grant player's challenge that a grant pays for or that
its row cannot judge alone): the cost follows the corrections and the grants, not the journal's
size.

All of it is read in one snapshot of the journal (a repeatable read on PostgreSQL), so a row
appended meanwhile is counted whole or not at all.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from adjudicator.judging import outcomes, recount
from adjudicator.judging.corrections import opinion_chain
from adjudicator.judging.rulebooks import get_rulebook
from adjudicator.record.database.db import Database
from adjudicator.record.journal import journal, player_tallies
from adjudicator.record.journal.player_tallies import ZERO

CHUNK = 500
GAMES_PER_QUERY = 50


@dataclass
class PlayerFigures:
    """One player's figures in one tournament and division (or, summed, over a season)."""

    name: str
    key: str
    division: str = ""
    tournament: str = ""
    figures: dict[str, int] = field(default_factory=lambda: dict(ZERO))
    tournaments: set[str] = field(default_factory=set)
    played: int = 0  # over a season: in how many of its tournaments

    @property
    def tournament_count(self) -> int:
        return self.played or len(self.tournaments)

    def add(self, figures: dict[str, int]) -> None:
        for name, value in figures.items():
            self.figures[name] += value

    def to_api(self) -> dict[str, Any]:
        return {"name": self.name, "division": self.division, **self.figures}


def snapshot(db: Database):
    """A read transaction that sees one state of the journal throughout."""
    transaction = db.transaction()
    return _Snapshot(transaction, db.backend)


class _Snapshot:
    def __init__(self, transaction, backend: str):
        self._transaction, self._backend = transaction, backend

    def __enter__(self):
        cur = self._transaction.__enter__()
        if self._backend.startswith("postgres"):
            cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        return cur

    def __exit__(self, *exc):
        return self._transaction.__exit__(*exc)


def _read(db: Database, slugs: Iterable[str], tallies) -> tuple[dict, list[Delta]]:
    """The stored tallies of `slugs` (as `tallies(cur, slugs)` reads them) and the corrections'
    deltas, in one snapshot; nothing for no tournament."""
    slugs = sorted(set(slugs))
    if not slugs:
        return {}, []
    player_tallies.ensure_counted(db)
    free = _final_play_free(db, slugs)
    with snapshot(db) as cur:
        return tallies(cur, slugs), corrections(cur, slugs, free)


def of_tournaments(db: Database, slugs: Iterable[str]) -> list[PlayerFigures]:
    """Every player's figures in each of `slugs`, by tournament and division: the tallies as
    judged, with each corrected challenge counted by its effective outcome."""
    stored, deltas = _read(db, slugs, player_tallies.read)
    totals: dict[player_tallies.Key, PlayerFigures] = {}
    for key, (name, figures) in stored.items():
        totals[key] = PlayerFigures(name, key[2], key[1], key[0], dict(figures), {key[0]})
    for (tournament, division, key), name, figures in deltas:
        found = totals.get((tournament, division, key))
        if found is None:
            found = totals[(tournament, division, key)] = PlayerFigures(
                name, key, division, tournament, dict(ZERO), {tournament}
            )
        elif "," in name:
            found.name = name
        found.add(figures)
    _fold_undivided(totals)
    return [found for found in totals.values() if any(found.figures.values())]


def of_season(db: Database, slugs: Iterable[str]) -> list[PlayerFigures]:
    """Every player's figures summed over `slugs` (a season) by name: the tallies summed by the
    database (a few rows a player), then each corrected challenge counted as it now stands."""
    stored, deltas = _read(db, slugs, player_tallies.by_player)
    merged = {
        key: PlayerFigures(name, key, figures=figures, played=played)
        for key, (name, played, figures) in stored.items()
    }
    for (tournament, _, key), name, figures in deltas:
        found = merged.get(key)
        if found is None:
            found = merged[key] = PlayerFigures(name, key, tournaments={tournament})
        elif "," in name and "," not in found.name:
            found.name = name
        found.add(figures)
    return [found for found in merged.values() if any(found.figures.values())]


def _final_play_free(db: Database, slugs: Sequence[str]) -> dict[str, bool]:
    """Each tournament's school rule 12 (a final play's challenge is free), in one read."""
    with db.transaction() as cur:
        rows = cur.execute("SELECT slug, rulebook FROM tournaments").tuples()
    books = dict(rows)
    return {slug: get_rulebook(books.get(slug)).final_play_free for slug in slugs}


def _fold_undivided(totals: dict[player_tallies.Key, PlayerFigures]) -> None:
    """A row naming no division (a free challenge granted outside any game) counts in the
    player's division when they play in exactly one in that tournament."""
    divisions: dict[tuple[str, str], list[str]] = {}
    for tournament, division, key in totals:
        if division:
            divisions.setdefault((tournament, key), []).append(division)
    for tournament, division, key in list(totals):
        found = divisions.get((tournament, key), [])
        if division or len(found) != 1:
            continue
        into = totals[(tournament, found[0], key)]
        into.add(totals.pop((tournament, division, key)).figures)


Delta = tuple[player_tallies.Key, str, dict[str, int]]


def corrections(cur: Any, slugs: Sequence[str], final_play_free: dict[str, bool]) -> list[Delta]:
    """For each challenge of `slugs` whose effective outcome may differ from its row, what that
    outcome gives its players less what it gave as judged (inside a transaction): a challenge
    a later row refers to, one of a grant's player that a grant pays for now or paid for when
    recorded (`grant_uses.holders`), and every challenge of a corrected game whose rule counts
    earlier challenges. Each outcome is decided as `outcomes.effective_rows` decides it."""
    follow_ups = _follow_ups(cur, slugs)
    holders = {
        slug: outcomes.grant_holders(cur, slug, final_play_free.get(slug, False)) for slug in slugs
    }
    # The grants' players' challenges the holders read whole (grant_candidates.Use): not again.
    uses = {found: use for _, read in holders.values() for found, use in read.items()}
    challenges = _rows(cur, sorted(set(follow_ups) - set(uses)))
    challenges += [use.entry for use in uses.values()]
    if not challenges:
        return []

    def granted(challenge: journal.Entry, outcome: outcomes.Outcome) -> outcomes.Outcome:
        return outcomes.paid(holders[challenge.tournament], challenge, outcome)

    # The games a row corrects (each follow-up copies its challenge's game; a reissue has its
    # own): those whose rule counts earlier challenges are recounted whole (Games.corrected).
    corrected = {
        recount.game_key(row.tournament, row.round, row.table, row.challenger)
        for rows in follow_ups.values()
        for row in rows
    }
    reissues = [row for rows in follow_ups.values() for row in rows if row.kind == "challenge"]
    games: dict[recount.GameKey, list[journal.Entry]] = {}
    for challenge in (*challenges, *reissues):
        key = _counted_game(challenge)
        if key is not None and key in corrected:
            games.setdefault(key, [])
    for challenge in _games(cur, list(games)):
        key = recount.game_key(
            challenge.tournament, challenge.round, challenge.table, challenge.challenger
        )
        games[key].append(challenge)  # type: ignore[index]
    effective: dict[int, tuple[journal.Entry, outcomes.Outcome]] = {}
    for key, game in games.items():
        game.sort(key=lambda entry: entry.id)
        free = final_play_free.get(key[0], False)
        recounted = outcomes.recount_game(game, follow_ups, free, granted)
        for entry in game:
            effective[entry.id] = (entry, recounted[entry.id])
    for challenge in challenges:
        if challenge.id in effective:
            continue
        rows = follow_ups.get(challenge.id, ())
        use = uses.get(challenge.id)
        if use is not None and not rows:  # nothing refers to it: as judged, but for the grants
            found = granted(challenge, use.outcome)  # use.outcome: outcome_of with no rows
            if found is use.outcome:
                continue  # no grant pays for it otherwise than when it was recorded
        else:
            found = granted(challenge, outcomes.outcome_of(challenge, rows))
        effective[challenge.id] = (challenge, found)
    deltas: list[Delta] = []
    for entry, outcome in effective.values():
        deltas.extend(_delta(entry, outcome, follow_ups.get(entry.id, ())))
    return deltas


def _delta(
    challenge: journal.Entry, outcome: outcomes.Outcome, follow_ups: Sequence[journal.Entry]
) -> list[Delta]:
    """What the challenge's effective outcome gives its players, less what it gave as judged."""
    if (
        outcome.decided_by == challenge.id
        and outcome.verdict == challenge.verdict
        and outcome.penalty == challenge.penalty_numbers()
        and not any(row.kind == "waiver" for row in follow_ups)
    ):
        return []  # as judged (an opinion that agreed; a game recounted to the same penalty)
    judged = player_tallies.as_judged(
        "challenge",
        challenge.division,
        challenge.challenger,
        challenge.player,
        challenge.players,
        challenge.verdict,
        challenge.penalty,
    )
    now = effective_contributions(challenge, outcome, follow_ups)
    found: list[Delta] = []
    for sign, items in ((-1, judged), (1, now)):
        for division, key, name, figures in items:
            scaled = {name_: sign * value for name_, value in figures.items() if value}
            if scaled:
                found.append(((challenge.tournament, division, key), name, scaled))
    return found


def effective_contributions(
    challenge: journal.Entry, outcome: outcomes.Outcome, follow_ups: Sequence[journal.Entry]
) -> list[tuple[str, str, str, dict[str, int]]]:
    """What a challenge gives its players by its effective outcome (player_tallies): the
    director's points of the row that decides it (a ruling's `--points`) to the player whose
    play was challenged, not in the challenger's penalty."""
    who, whose = player_tallies.sides(challenge.challenger, challenge.player, challenge.players)
    void = outcome.verdict == outcomes.VOID
    return player_tallies.contributions(
        division=challenge.division,
        challenger=who,
        player=whose,
        verdict=outcome.verdict,
        penalty=outcome.penalty,
        void=void,
        changed_by=changed_by(challenge, outcome, follow_ups),
        waivers=sum(1 for row in follow_ups if row.kind == "waiver"),
        points=0 if void else outcome.points,
    )


_CHANGED = {"ruling": "ruling", "second-opinion": "opinion"}


def changed_by(
    challenge: journal.Entry, outcome: outcomes.Outcome, follow_ups: Sequence[journal.Entry]
) -> str | None:
    """'ruling' or 'opinion' when the row that decides the challenge now is a ruling or a
    second (or third) opinion whose verdict differs from the one the chain of opinions starts
    from (opinion_chain.standing): the challenge's own, or for a referral the word judge's
    dictionary check that closed it; else None. A referral decided while still open (no check
    had closed it) had no verdict to change."""
    if outcome.decided_by == challenge.id:
        return None
    deciding = next((row for row in follow_ups if row.id == outcome.decided_by), None)
    changed = _CHANGED.get(deciding.kind) if deciding is not None else None
    if changed is None:
        return None
    opinions = [row for row in follow_ups if row.kind == "second-opinion"]
    standing = opinion_chain.standing(challenge, opinions)
    if standing is None or outcome.verdict == standing.first.verdict:
        return None
    return changed


def _counted_game(challenge: journal.Entry) -> recount.GameKey | None:
    """The challenge's game, when its rule counts the game's challenges (else None)."""
    if recount.counting_rule(challenge.rule) is None:
        return None
    return recount.game_key(
        challenge.tournament, challenge.round, challenge.table, challenge.challenger
    )


def _follow_ups(cur: Any, slugs: Sequence[str]) -> dict[int, list[journal.Entry]]:
    """Every row that refers to a challenge of `slugs`, by the id it refers to, in id order:
    one tournament's by its index, several by the follow-ups' partial index."""
    if len(slugs) == 1:
        rows = cur.execute(
            f"{journal.SELECT} WHERE tournament = ? AND refers_to IS NOT NULL ORDER BY id",
            (slugs[0],),
        ).tuples()
    else:  # no ORDER BY: SQLite would walk the table in id order rather than sort this index's
        rows = cur.execute(f"{journal.SELECT} WHERE refers_to IS NOT NULL").tuples()
    wanted = set(slugs)
    tournament = journal.FIELDS.index("tournament")
    found: dict[int, list[journal.Entry]] = {}
    for row in sorted(rows):  # by id
        if row[tournament] in wanted:
            entry = journal.from_values(row)
            found.setdefault(entry.refers_to, []).append(entry)
    return found


def _rows(cur: Any, ids: Sequence[int]) -> list[journal.Entry]:
    """The challenges among `ids`, in id order (one query a chunk)."""
    found: list[journal.Entry] = []
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        marks = ", ".join("?" for _ in chunk)
        rows = cur.execute(
            f"{journal.SELECT} WHERE id IN ({marks}) AND kind = 'challenge' ORDER BY id",
            tuple(chunk),
        ).tuples()
        found.extend(journal.from_values(row) for row in rows)
    return found


def _games(cur: Any, keys: list[recount.GameKey]) -> list[journal.Entry]:
    """Every challenge of the games `keys` (tournament, round, table, challenger): each game a
    seek in the games' index, GAMES_PER_QUERY games a query."""
    found: list[journal.Entry] = []
    for start in range(0, len(keys), GAMES_PER_QUERY):
        chunk = keys[start : start + GAMES_PER_QUERY]
        terms = " OR ".join(
            "(tournament = ? AND round_no = ? AND table_no = ? AND challenger = ?)" for _ in chunk
        )
        params = tuple(value for key in chunk for value in key)
        rows = cur.execute(
            f"{journal.SELECT} WHERE kind = 'challenge' AND challenger IS NOT NULL AND ({terms})",
            params,
        ).tuples()
        found.extend(journal.from_values(row) for row in rows)
    return found
