"""`adjudicator report` and `adjudicator tournament close|reopen` (issue 46) through the CLI:
what is refused (exit 2, a message on stderr, nothing on stdout, nothing written), what each
rulebook's refusal of `--words` cites, and what the files hold once the event is closed."""

from __future__ import annotations

import csv
import io
import json

import pytest

from adjudicator.hall.director import study_list
from adjudicator.hall.tournaments import Tournament

from support.hall import ok, refused

SLUG = "club"


@pytest.fixture
def club(run, tiny):
    ok(run("tournament", "create", SLUG, "--lexicon", "TINY", "--rule", "double",
           "--date", "2025-03-01"))  # fmt: skip
    for words, challenger, player in ((["QI"], "Ann", "Bob"), (["CAT", "DOGX"], "Bob", "Ann")):
        judged = run("judge", "--tournament", SLUG, "--challenger", challenger, "--player",
                     player, "--round", "1", "--table", "1", *words)  # fmt: skip
        assert judged.exit_code in (0, 1), judged.stderr
    return run


def test_what_the_report_refuses(club, tmp_path):
    run = club
    refused(run("report"), "Give one event's SLUG, or --season FROM TO")
    refused(run("report", SLUG, "--season", "2025-01-01", "2025-12-31"), "not both")
    refused(run("report", "nowhere"), "nowhere")
    refused(run("report", SLUG, "--words"), "is told to no one while the event runs",
            study_list.HALL_PRACTICE)  # fmt: skip
    refused(run("report", SLUG, "--out", str(tmp_path / "out")), "director's alone")
    refused(run("report", SLUG, "--out"), "director's alone")
    refused(run("report", "--season", "2025-12-31", "2025-01-01"), "before it starts")
    refused(run("report", "--season", "2025-01-01", "2025-12-31", "--sort", "rating"), "Sort by")
    refused(run("report", "--season", "2025-01-01", "2025-12-31", "--out", str(tmp_path)),
            "club still open")  # fmt: skip
    refused(run("tournament", "reopen", SLUG, "--reason", "why not"), "not closed")
    assert not (tmp_path / "out").exists()


def test_once_closed_the_report_is_written_out(club, tmp_path):
    run = club
    ok(run("tournament", "close", SLUG))
    refused(run("tournament", "close", SLUG), "closed already")
    refused(run("judge", "--tournament", SLUG, "QI"), "is closed")
    refused(run("report", SLUG, "--out"), "not linked to TSH", "--out DIR")
    written = ok(run("report", SLUG, "--format", "csv", "--out", str(tmp_path / "web")))
    path = tmp_path / "web" / f"{SLUG}-challenges.csv"
    assert written.strip() == f"Written: {path}"
    assert oct(path.stat().st_mode & 0o777) == "0o644"  # a web server serves it
    rows = {r["name"]: r for r in csv.DictReader(io.StringIO(path.read_text()))}
    assert (rows["Ann"]["challenges_lost"], rows["Bob"]["challenges_won"]) == ("1", "1")
    shown = json.loads(ok(run("report", SLUG, "--format", "json", "--words")))
    lines = [c for r in shown["rounds"] for c in r["challenges"]]
    assert [c["not_in_lexicon"] for c in lines] == [[], ["DOGX"]]
    assert shown["tournament"]["closed"]["closed"] is True
    season = ok(run("report", "--season", "2025-01-01", "2025-12-31", "--out", str(tmp_path)))
    assert "season-2025-01-01-to-2025-12-31.html" in season
    refused(run("tournament", "reopen", SLUG), "Missing option '--reason'")
    ok(run("tournament", "reopen", SLUG, "--reason", "a game to replay"))
    assert "not_in_lexicon" not in ok(run("report", SLUG, "--format", "json"))


@pytest.mark.parametrize(
    "rulebook, cited",
    [
        ("wespa", "WESPA 3.10.7(b)"),
        ("nsa-1998", "NSA X.E"),
        ("msa", "MSA 13(ii)"),
        ("naspa", study_list.HALL_PRACTICE),
        ("school-2011", study_list.HALL_PRACTICE),
        (None, study_list.HALL_PRACTICE),
    ],
)
def test_the_refusal_cites_the_tournaments_own_clause(rulebook, cited):
    event = Tournament("open", "Open", "L", "f" * 64, "double", "", "", rulebook=rulebook)
    assert cited in study_list.refusal(event)
    with pytest.raises(study_list.WordsRefused, match="told to no one"):
        study_list.refuse_unless_closed(event, None)
