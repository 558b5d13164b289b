"""The TSH link on each journal backend (SQLite, then PostgreSQL): link, a table's current
round, a rewritten file followed, the journal's player filter, a linked challenge recorded and
verified, unlink."""

from __future__ import annotations

from adjudicator.hall import tournaments
from adjudicator.hall.director import journal_review
from adjudicator.hall.hall import Hall
from adjudicator.hall.tsh import follow, games, links
from adjudicator.record.journal import journal
from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet

from support import tsh_files


def test_the_link_on_each_backend(migrated_db, tmp_path):
    store = LexiconStore(root=tmp_path / "lexicons")
    store.save("TINY", WordSet.of(("QI", "ZA")), description="tiny")
    tournaments.create(migrated_db, store, "open", "TINY", "dingle")
    made = tsh_files.make_event({"A": 6}, 3, 2)
    path = tsh_files.write_tourney_js(tmp_path / "html" / "tourney.js", made)
    assert links.link(migrated_db, "open", str(path)).games == 9
    assert games.current_game(migrated_db, "open", "2").round == 3
    first, second = tsh_files.seated(made, "A", 3, 2)
    hall = Hall(store, migrated_db, rate_limit=None, key_path=tmp_path / "key.pem")
    entry = hall.record_challenge("open", "cli", ["QI"], table="2", challenger=second)
    again = hall.record_challenge("open", "cli", ["QI"], table="2", challenger=second.lower())
    assert (entry.round, entry.challenger, entry.player_names()) == ("3", second, [first, second])
    assert again.penalty_numbers()["challenger_loses_turn"] is True  # dingle: the second
    assert journal.verify(migrated_db).ok
    tsh_files.score_round(made, "A", 3)
    tsh_files.pair_round(made, "A")
    tsh_files.write_tourney_js(path, made)
    assert follow.Follower(migrated_db, 1, 30).run_once() == {"open": "updated"}
    assert games.current_game(migrated_db, "open", "2").round == 4
    mine = journal_review.page(migrated_db, journal_review.Filters(player=first))
    assert [row.id for row in mine.rows] == [again.id, entry.id]
    assert links.unlink(migrated_db, "open") and games.show(migrated_db, "open") == []
