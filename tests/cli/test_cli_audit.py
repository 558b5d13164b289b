"""`journal checkpoint`, `journal verify --checkpoint`, `journal audit`, `journal key`, and what
`journal verify` now refuses: rows outside 1..N and values not stored in canonical form.

The attacks are the issue's: a verdict flipped with the whole chain recomputed by the project's
own code (plain `verify` cannot see it), and rows cut off the end. Checkpoints and receipts,
kept outside the journal, must catch both, naming what fails.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from adjudicator.hall.hall import Hall
from adjudicator.record.database.sqlite import SqliteDatabase
from adjudicator.record.journal import journal
from kiosk import create_app

from support.hall import SECRET_KEY, judged_by_api, ok, refused, spring_kiosks
from support.journal import rewrite_with_a_recomputed_chain
from support.receipts import independent_verify


@pytest.fixture
def judged(run, store, home, monkeypatch):
    """Six adjudications through the API: the 201 answers, in order."""
    token = spring_kiosks(run, store, monkeypatch, "table-1")["table-1"]
    client = create_app({"HALL": Hall(), "SECRET_KEY": SECRET_KEY}).test_client()
    plays = (["QI"], ["QX", "ZA"], ["CAT"], ["JO", "XI"], ["ZEBRA"], ["DOGX"])
    return [judged_by_api(client, token, words) for words in plays]


def receipts_file(folder: Path, answers, name="receipts.jsonl") -> Path:
    """Receipts as a kiosk downloads them: one JSON object a line."""
    path = folder / name
    path.write_text("".join(json.dumps(a["receipt"]) + "\n" for a in answers))
    return path


def checkpoint_file(run, folder: Path) -> Path:
    path = folder / "checkpoint.json"
    path.write_text(ok(run("journal", "checkpoint", "--json")))
    return path


def sql(home: Path, statement: str, params=()) -> None:
    with sqlite3.connect(home / "journal.sqlite3") as connection:
        connection.execute(statement, params)
    connection.close()


# --- the key and checkpoints --------------------------------------------------------------------


def test_a_checkpoint_is_signed_by_the_key_journal_key_prints(run, judged, home):
    public_pem = ok(run("journal", "key"))
    checkpoint = json.loads(ok(run("journal", "checkpoint", "--json")))
    last = judged[-1]["receipt"]
    assert (checkpoint["id"], checkpoint["row_hash"]) == (last["id"], last["row_hash"])
    assert checkpoint["type"] == "checkpoint" and checkpoint["journal"] == last["journal"]
    assert independent_verify(checkpoint, public_pem)
    assert not independent_verify({**checkpoint, "id": 5}, public_pem)
    for answer in judged:
        assert independent_verify(answer["receipt"], public_pem)


def test_the_printed_checkpoint_gives_a_line_to_note_by_hand(run, judged):
    text = ok(run("journal", "checkpoint"))
    last = judged[-1]["receipt"]
    assert f"Row {last['id']} {last['row_hash']}" in text
    assert f"To note by hand: row {last['id']} {last['row_hash'][:16]}" in text


def test_no_checkpoint_of_an_empty_or_broken_journal(run, judged, home):
    sql(home, "UPDATE adjudications SET verdict = 'ACCEPTABLE' WHERE id = 2")
    refused(run("journal", "checkpoint"), "No checkpoint made", "broken at row 2")
    sql(home, "DELETE FROM adjudications")
    refused(run("journal", "checkpoint", "--json"), "no rows yet")


def test_the_overview_keeps_the_last_checkpoint(run, judged, home):
    from adjudicator.record.backends import connect
    from adjudicator.record.proofs import checkpoints

    made = json.loads(ok(run("journal", "checkpoint", "--json")))
    assert checkpoints.last(connect()) == made


# --- the rewrite that verifies ------------------------------------------------------------------


def test_a_flipped_verdict_with_the_chain_recomputed_fails_checkpoint_and_audit(
    run, judged, home, tmp_path
):
    checkpoint = checkpoint_file(run, tmp_path)
    noted = tmp_path / "noted.txt"
    noted.write_text(f"row 6 {judged[-1]['receipt']['row_hash'][:16]}\n")
    receipts = receipts_file(tmp_path, judged)
    assert "Row 6 matches the signed checkpoint" in ok(
        run("journal", "verify", "--checkpoint", str(checkpoint), "--checkpoint", str(noted))
    )
    assert "held unchanged" in ok(run("journal", "audit", str(receipts)))

    assert judged[1]["verdict"] == "UNACCEPTABLE"
    rewrite_with_a_recomputed_chain(home / "journal.sqlite3", 2, verdict="ACCEPTABLE")
    db = SqliteDatabase(str(home / "journal.sqlite3"))
    assert journal.verify(db).ok  # the plain chain alone is fooled...
    db.close()
    for witnesses in ((), ("--checkpoint", str(checkpoint)), ("--checkpoint", str(noted))):
        outcome = run("journal", "verify", *witnesses)  # ... the keyed rows are not (issue 33)
        assert outcome.exit_code == 1 and outcome.stdout == ""
        assert "BROKEN at row 2: it is a FORK: row 2 carries no valid keyed hash" in outcome.stderr
        assert "never `journal accept-loss`" in outcome.stderr

    outcome = run("journal", "audit", str(receipts))
    assert outcome.exit_code == 1
    bad = [line for line in outcome.stdout.splitlines() if line.startswith("BAD")]
    assert [line.split(" (")[0] for line in bad] == [f"BAD line {n}" for n in range(2, 7)]
    assert "row 2, kiosk table-1" in bad[0] and "not the row the receipt was issued for" in bad[0]
    assert "6 receipt(s) checked: 1 held unchanged by the journal, 5 not." in outcome.stdout


def test_rows_cut_off_the_end_fail_checkpoint_and_audit(run, judged, home, tmp_path):
    checkpoint = checkpoint_file(run, tmp_path)
    receipts = receipts_file(tmp_path, judged)
    sql(home, "DELETE FROM adjudications WHERE id > 4")
    assert "Journal intact: 4 rows" in ok(run("journal", "verify"))
    outcome = run("journal", "verify", "--checkpoint", str(checkpoint))
    assert outcome.exit_code == 1
    assert "row 6, witnessed by a checkpoint, is missing" in outcome.stderr
    assert "cut off the end" in outcome.stderr
    outcome = run("journal", "audit", str(receipts))
    assert outcome.exit_code == 1
    assert "BAD line 5 (row 5, kiosk table-1" in outcome.stdout
    assert "BAD line 6 (row 6" in outcome.stdout and "no row 6" in outcome.stdout
    assert "BAD line 4" not in outcome.stdout


def test_a_forged_or_foreign_checkpoint_is_refused(run, judged, home, tmp_path, monkeypatch):
    checkpoint = json.loads(ok(run("journal", "checkpoint", "--json")))
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps({**checkpoint, "id": 4}))
    outcome = run("journal", "verify", "--checkpoint", str(forged))
    assert outcome.exit_code == 1 and "signature does not verify" in outcome.stderr

    # The same key, another journal: a checkpoint of one hall's journal proves nothing here.
    other_home = tmp_path / "other"
    monkeypatch.setenv("ADJUDICATOR_RECEIPT_KEY_FILE", str(home / "receipt_key.pem"))
    monkeypatch.setenv("ADJUDICATOR_HOME", str(other_home))
    ok(run("db", "upgrade"))
    foreign = tmp_path / "foreign.json"
    foreign.write_text(json.dumps(checkpoint))
    outcome = run("journal", "verify", "--checkpoint", str(foreign))
    assert outcome.exit_code == 1 and "made on another journal" in outcome.stderr


def test_a_checkpoint_file_that_is_not_one_is_named(run, judged, tmp_path):
    junk = tmp_path / "junk.txt"
    junk.write_text("hello\n")
    outcome = run("journal", "verify", "--checkpoint", str(junk))
    assert outcome.exit_code == 1 and "junk.txt: not a checkpoint" in outcome.stderr


# --- audit --------------------------------------------------------------------------------------


def test_audit_names_lines_that_are_not_receipts_and_forged_receipts(run, judged, tmp_path):
    forged = {**judged[0]["receipt"], "verdict": "UNACCEPTABLE"}
    path = tmp_path / "mixed.jsonl"
    path.write_text(
        json.dumps(judged[2])
        + "\n"  # a whole 201 answer holds a receipt too
        + "not json\n\n"
        + json.dumps(forged)
        + "\n"
        + json.dumps({"id": 3})
        + "\n"
    )
    outcome = run("journal", "audit", str(path))
    assert outcome.exit_code == 1
    lines = outcome.stdout.splitlines()
    assert "BAD line 2: not JSON" in lines
    assert any(line.startswith("BAD line 4 (row 1") and "signature" in line for line in lines)
    assert any(line.startswith("BAD line 5:") and "row_hash" in line for line in lines)
    assert "4 receipt(s) checked: 1 held unchanged by the journal, 3 not." in lines


def test_audit_with_only_the_public_key_elsewhere(run, judged, home, tmp_path, monkeypatch):
    public = tmp_path / "hall.pem"
    public.write_text(ok(run("journal", "key")))
    receipts = receipts_file(tmp_path, judged)
    (home / "receipt_key.pem").rename(tmp_path / "private-elsewhere.pem")
    refused(run("journal", "audit", str(receipts)), "No receipt key", "--key")
    assert "6 held unchanged" in ok(run("journal", "audit", str(receipts), "--key", str(public)))


def test_an_empty_receipts_file_audits_nothing_and_fails(run, judged, tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    outcome = run("journal", "audit", str(empty))
    assert outcome.exit_code == 1 and "nothing was audited" in outcome.stderr


def test_audit_fails_when_the_chain_is_broken_before_the_receipts(run, judged, tmp_path, home):
    receipts = receipts_file(tmp_path, judged[4:])  # rows 5 and 6 only
    sql(home, "UPDATE adjudications SET verdict = 'ACCEPTABLE' WHERE id = 2")
    outcome = run("journal", "audit", str(receipts))
    assert outcome.exit_code == 1
    assert "BAD journal: its chain is broken at row 2" in outcome.stdout


# --- verify: rows outside the chain, values not in canonical form --------------------------------


@pytest.mark.parametrize("row_id", [0, -5])
def test_a_row_outside_1_to_n_fails_verify_and_is_exported(run, judged, home, row_id):
    sql(
        home,
        "INSERT INTO adjudications SELECT ?, recorded_at, kind, refers_to, tournament, kiosk, "
        "lexicon_name, lexicon_fingerprint, lexicon_words, rule, words, word_count, verdict, "
        "consequence, table_no, round_no, challenger, player, actor, note, prev_hash, row_hash, "
        "penalty, flag, dictionary, flag_reasons, details, division, players, keyed_hash, install "
        "FROM adjudications WHERE id = 1",
        (row_id,),
    )
    outcome = run("journal", "verify")
    assert outcome.exit_code == 1
    assert f"BROKEN at row {row_id}: row {row_id} lies outside the chain" in outcome.stderr
    exported = json.loads(ok(run("journal", "export", "--format", "json")))
    assert [row["id"] for row in exported][0] == row_id  # the export hides nothing


@pytest.mark.parametrize(
    "column, value, stored_type",
    [
        ("lexicon_words", "{words}.5", "real"),  # int() would read it back as {words}
        ("lexicon_words", b"{words} ", "blob"),  # the '196601 ' (SQLite makes text
        # with a trailing space an integer again, so only a blob keeps it)
        ("lexicon_words", "{words} words", "text"),  # int() fails: once a traceback
        ("word_count", "{count}", "integer"),  # an honest integer stays canonical: control
        ("words", "QX  ZA", "text"),
        ("words", "QX ZA ", "text"),
    ],
)
def test_a_value_not_in_canonical_form_fails_verify(run, judged, home, column, value, stored_type):
    with sqlite3.connect(home / "journal.sqlite3") as connection:
        words, count = connection.execute(
            "SELECT lexicon_words, word_count FROM adjudications WHERE id = 2"
        ).fetchone()
        if isinstance(value, bytes):
            value = value.decode().format(words=words).encode()
        else:
            value = value.format(words=words, count=count)
        connection.execute(f"UPDATE adjudications SET {column} = ? WHERE id = 2", (value,))
        (typeof,) = connection.execute(
            f"SELECT typeof({column}) FROM adjudications WHERE id = 2"
        ).fetchone()
    connection.close()
    assert typeof == stored_type, "the test must store what it says it stores"
    outcome = run("journal", "verify")
    if column == "word_count":
        assert outcome.exit_code == 0, outcome.stderr
        return
    assert outcome.exit_code == 1
    assert "BROKEN at row 2: row 2 holds a value not in its canonical form" in outcome.stderr
    assert "Traceback" not in outcome.stderr
