"""`adjudicator kit seal` and `kit open` (issue 34): a second laptop takes the hall over from the
USB stick with the director's passphrase, and the stick alone gives nobody anything.

Laptop A is the test's `home` with its mirror on `stick/`; laptop B is another data home, fresh.
The CLI runs in this process (the `run` fixture); ADJUDICATOR_HOME says which laptop it is."""

from __future__ import annotations

import base64
import errno
import gc
import hashlib
import json
import os
import socket
import sqlite3
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from adjudicator.hall.kit import refresh, sealing
from adjudicator.hall.network import hall_tls
from adjudicator.record.backends import connect
from adjudicator.record.copies import takeover
from adjudicator.record.journal import receipt_key, split_walk
from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet

from support.kit import PASSPHRASE, Laptops, assert_no_secret_on, files_of, sealed_laptops
from support.servers import run_cli

pytestmark = pytest.mark.slow  # each seal and open derives a key over 256 MiB (Argon2id)


@pytest.fixture
def laptops(tmp_path, monkeypatch, run, tiny) -> Laptops:
    """A serving tournament `hall` (lexicon TINY) with three verdicts, its mirror on the stick,
    its CA and a server certificate made, and its kit sealed on the stick."""
    return sealed_laptops(tmp_path, monkeypatch, run)


def test_kit_open_on_a_fresh_data_home_restores_the_hall_and_continues_its_numbers(laptops):
    run = laptops.run
    key_a = run("journal", "key").stdout
    fingerprint_a = run("hall", "--fingerprint").stdout.strip()
    secret_a = (laptops.a / "secret_key").read_bytes()
    opened = laptops.open(laptops.b)
    assert opened.exit_code == 0, opened.stderr
    assert "3 rows copied from the stick" in opened.stdout
    assert "the next verdict is row 4" in opened.stdout
    assert f"ADJUDICATOR_JOURNAL_MIRROR={laptops.mirror} adjudicator hall" in opened.stdout
    # B is laptop A: the same key, the same CA, the same session secret, the same lexicon ...
    assert run("journal", "key").stdout == key_a
    assert run("hall", "--fingerprint").stdout.strip() == fingerprint_a
    assert (laptops.b / "secret_key").read_bytes() == secret_a
    listed = json.loads(run("lexicon", "list", "--json").stdout)
    assert [(x["name"], x["fingerprint"]) for x in listed] == [
        ("TINY", LexiconStore(laptops.a / "lexicons").manifest("TINY").fingerprint)
    ]
    # ... and it goes on from the next number, on both copies.
    judged = laptops.judge("ZA")
    assert judged.exit_code == 0 and "adjudication #4" in judged.stdout
    exported = json.loads(run("journal", "export", "--format", "json").stdout)
    assert [row["id"] for row in exported] == [1, 2, 3, 4]
    status = run("journal", "status")
    assert status.exit_code == 0, status.stdout
    assert "primary: " + str(laptops.b / "journal.sqlite3") in status.stdout
    # The signed takeover statement, beside both copies: B's install, at row 3; no number.
    public = receipt_key.load(laptops.b / "receipt_key.pem").public
    install_b = (laptops.b / "install-id").read_text()
    for copy in (laptops.b / "journal.sqlite3", laptops.mirror):
        statement = takeover.read(takeover.beside(str(copy)), public)
        assert statement is not None
        assert (statement["install"], statement["row"], statement["seq"]) == (install_b, 3, 1)
        assert takeover.kept_inside(str(copy), public) == [statement]  # and inside the copy
    # The laptop is named as every refusal names it: host name and install id (issue 44).
    assert f"taken over on this laptop, {socket.gethostname()!r} (install {install_b[:8]})" in (
        opened.stdout
    )


def test_a_wrong_passphrase_writes_nothing(laptops):
    before = files_of(laptops.stick)
    refused = laptops.open(laptops.b, "not the passphrase at all")
    assert refused.exit_code == 2
    assert "Wrong passphrase: the kit did not open (nothing was written)" in refused.stderr
    assert "Traceback" not in refused.stderr and refused.stdout == ""
    assert not laptops.b.exists()
    assert files_of(laptops.stick) == before
    # The stick's chain, walked beside the passphrase's Argon2id, stopped with the refusal.
    assert not [thread for thread in threading.enumerate() if thread.name == "stick-chain"]


@pytest.fixture
def on_both_cores(monkeypatch) -> list:
    """The stick's walk split across two processes even for three rows: the children started."""
    started = []
    start = split_walk._start
    monkeypatch.setattr(split_walk, "SPLIT_FROM", 2)
    monkeypatch.setattr(
        split_walk, "_start", lambda *args: started.append(start(*args)) or started[-1]
    )
    return started


def test_the_stick_walked_on_both_cores_is_taken_over_as_walked_on_one(laptops, on_both_cores):
    opened = laptops.open(laptops.b)
    assert opened.exit_code == 0, opened.stderr
    assert "3 rows copied from the stick" in opened.stdout
    assert [child.returncode for child in on_both_cores] == [0]
    judged = laptops.judge("ZA")
    assert judged.exit_code == 0 and "adjudication #4" in judged.stdout


@pytest.mark.parametrize("row", [1, 2, 3])
def test_a_stick_row_altered_is_refused_and_named_when_the_walk_is_split(
    laptops, on_both_cores, row
):
    _stick_rows(laptops, "UPDATE adjudications SET words = 'QI ZAX' WHERE id = ?", (row,))
    refused = laptops.open(laptops.b)
    assert refused.exit_code == 2
    assert "cannot be taken over" in refused.stderr and f"row {row}" in refused.stderr
    assert not laptops.b.exists()
    assert on_both_cores and all(child.poll() is not None for child in on_both_cores)


def test_a_stick_row_changed_after_the_stick_was_read_never_comes_across(laptops, monkeypatch):
    """The stick is read once: its copy is walked, proven and put in place. A row changed on
    the stick after that (here: once the proof is done, before the journal is put in place) is
    not taken over; the laptop's journal holds the rows as proven, and its chain verifies."""
    from adjudicator.hall.kit import stick_copy

    as_proven = _rows(laptops.mirror)
    real_verify = stick_copy.verify

    def verify_then_change(*args, **kwargs):
        proven = real_verify(*args, **kwargs)
        _stick_rows(laptops, "UPDATE adjudications SET words = 'QI ZAX' WHERE id = ?", (2,))
        return proven

    monkeypatch.setattr(stick_copy, "verify", verify_then_change)
    opened = laptops.open(laptops.b)
    assert opened.exit_code == 0, opened.stderr
    primary = laptops.b / "journal.sqlite3"
    assert _rows(primary) == as_proven != _rows(laptops.mirror)
    monkeypatch.setenv("ADJUDICATOR_DATABASE_URL", str(primary))
    monkeypatch.setenv("ADJUDICATOR_JOURNAL_MIRROR", "")
    checked = laptops.run("journal", "verify")
    assert checked.exit_code == 0 and "Journal intact" in checked.stdout, checked.stdout


def test_a_refused_kit_open_leaves_a_stick_with_an_unfolded_log_as_it_was(laptops):
    """Laptop A died with rows in the stick's write-ahead log (never folded into the file): a
    kit open refused (a wrong passphrase; a process of its own, as a director runs it) reads the
    stick, taking its copy, and writes nothing to it, not even the log folded in."""
    script = (
        "import os, sqlite3, sys\n"
        "c = sqlite3.connect(sys.argv[1])\n"
        "c.execute('PRAGMA wal_autocheckpoint=0')\n"
        "with c:\n"  # the row's page rewritten, its content as it was (a no-op writes nothing)
        "    c.execute(\"UPDATE adjudications SET words = words || ' ' WHERE id = 1\")\n"
        "    c.execute('UPDATE adjudications SET words = rtrim(words) WHERE id = 1')\n"
        "os._exit(0)\n"  # dies as A did: no checkpoint, the log left behind
    )
    subprocess.run([sys.executable, "-c", script, str(laptops.mirror)], check=True, timeout=60)
    wal = Path(f"{laptops.mirror}-wal")
    assert wal.exists() and wal.stat().st_size > 0
    before = files_of(laptops.stick)
    refused = run_cli(laptops.b, "kit", "open", str(laptops.stick), "--passphrase-stdin",
                      stdin="not the passphrase at all\n")  # fmt: skip
    assert refused.returncode == 2 and "Wrong passphrase" in refused.stderr, refused.stderr
    assert files_of(laptops.stick) == before and not laptops.b.exists()
    opened = laptops.open(laptops.b)  # and with the right one, taken over, log and all
    assert opened.exit_code == 0, opened.stderr
    assert "3 rows copied from the stick" in opened.stdout


def test_a_copy_taken_on_another_file_system_is_copied_into_place(laptops, monkeypatch):
    """The private folder on another file system than the data home (a /tmp in memory): the
    copy proven cannot be renamed into place, so it is copied there from this laptop's disk."""
    from adjudicator.record.copies import resync

    real_replace, crossed = os.replace, []

    def replace(source, target):
        if "adjudicator-kit-open-" in str(source):
            crossed.append(source)
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        return real_replace(source, target)

    monkeypatch.setattr(resync.os, "replace", replace)
    as_proven = _rows(laptops.mirror)
    opened = laptops.open(laptops.b)
    assert opened.exit_code == 0, opened.stderr
    assert crossed and _rows(laptops.b / "journal.sqlite3") == as_proven
    judged = laptops.judge("ZA")
    assert judged.exit_code == 0 and "adjudication #4" in judged.stdout


def test_without_a_temporary_folder_the_stick_is_proven_and_copied_as_it_stands(
    laptops, monkeypatch
):
    from adjudicator.hall.kit import stick_copy

    def full(**kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(stick_copy.tempfile, "mkdtemp", full)
    as_proven = _rows(laptops.mirror)
    opened = laptops.open(laptops.b)
    assert opened.exit_code == 0, opened.stderr
    assert _rows(laptops.b / "journal.sqlite3") == as_proven


def _rows(path: Path) -> list[tuple]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute(
            "SELECT id, words, row_hash FROM adjudications ORDER BY id"
        ).fetchall()
    finally:
        connection.close()


def test_a_wrong_passphrase_ends_the_split_walk(laptops, on_both_cores):
    refused = laptops.open(laptops.b, "not the passphrase at all")
    assert refused.exit_code == 2 and not laptops.b.exists()
    assert on_both_cores and all(child.poll() is not None for child in on_both_cores)


def test_a_passphrase_under_16_characters_is_refused_before_anything_is_sealed(
    tmp_path, monkeypatch, run, tiny
):
    stick = tmp_path / "stick"
    stick.mkdir()
    refused = run("kit", "seal", str(stick), "--passphrase-stdin", input="fifteen chars!!\n")
    assert refused.exit_code == 2
    assert "The passphrase is too short: use at least 16 characters." in refused.stderr
    assert list(stick.iterdir()) == []


def test_the_stick_holds_no_secret_in_clear(laptops):
    on_stick = files_of(laptops.stick)
    assert {"hall-kit/kit.json", "hall-kit/items/ca.json", "hall-kit/items/secret.json",
            "hall-kit/items/server.json", "journal.sqlite3"} <= set(on_stick)  # fmt: skip
    assert_no_secret_on(laptops.stick, laptops.a)


def test_kit_open_refuses_the_data_home_of_another_hall(laptops):
    laptops.on(laptops.b).run("journal", "key")  # B is a hall of its own: its own key
    own_key = (laptops.b / "receipt_key.pem").read_bytes()
    refused = laptops.open(laptops.b)
    assert refused.exit_code == 2
    assert "belongs to another hall" in refused.stderr and "nothing was written" in refused.stderr
    assert (laptops.b / "receipt_key.pem").read_bytes() == own_key
    assert not (laptops.b / "journal.sqlite3").exists()
    assert not (laptops.b / "hall" / "ca.key").exists()


def _stick_rows(laptops: Laptops, sql: str, params=()) -> None:
    connection = sqlite3.connect(laptops.mirror)
    with connection:
        connection.execute(sql, params)
    connection.close()


def test_a_stick_copy_cut_short_is_refused_and_nothing_is_written(laptops):
    _stick_rows(laptops, "DELETE FROM adjudications WHERE id = 3")  # the newest verdict, gone
    refused = laptops.open(laptops.b)
    assert refused.exit_code == 2
    assert "cannot be taken over" in refused.stderr and "row 3" in refused.stderr
    assert "Nothing was" in refused.stderr
    assert not laptops.b.exists()


def test_a_stick_copy_rewritten_with_its_chain_recomputed_is_refused(laptops):
    """Row 2 flipped and every hash after it recomputed with the program's own hash (each row
    keeping the keyed hash it had): the keyed hash, under a secret of the hall's key that is
    never on the stick, no longer matches row 2: a fork, named."""
    from adjudicator.record.journal.journal_entry import SELECT, from_values, new_entry

    connection = sqlite3.connect(laptops.mirror)
    rows = [from_values(row) for row in connection.execute(f"{SELECT} ORDER BY id")]
    previous = rows[0].row_hash
    with connection:
        for entry in rows[1:]:
            fields = {name: getattr(entry, name) for name in entry.__dataclass_fields__}
            if entry.id == 2:
                flipped = {"ACCEPTABLE": "UNACCEPTABLE", "UNACCEPTABLE": "ACCEPTABLE"}
                fields["verdict"] = flipped[entry.verdict]
            fields.pop("row_hash", None)
            remade = new_entry({**fields, "prev_hash": previous})
            connection.execute(
                "UPDATE adjudications SET verdict = ?, prev_hash = ?, row_hash = ? WHERE id = ?",
                (remade.verdict, remade.prev_hash, remade.row_hash, entry.id),
            )
            previous = remade.row_hash
    connection.close()
    refused = laptops.open(laptops.b)
    assert refused.exit_code == 2
    assert "cannot be taken over: the stick's copy is a FORK at row 2" in refused.stderr
    assert not laptops.b.exists()


def edit(path: Path, change) -> dict:
    """Change a JSON file on the stick by hand, as whoever holds it could; its new body."""
    body = json.loads(path.read_text())
    change(body)
    path.write_text(json.dumps(body))
    return body


def header_of(laptops: Laptops) -> dict:
    return json.loads((laptops.stick / "hall-kit" / "kit.json").read_text())


def test_an_item_not_sealed_by_the_hall_is_refused(laptops):
    """Whoever holds the stick can seal an item to the kit's public half (it is on the stick),
    say their own session secret; without the hall's key they cannot sign it."""
    header = header_of(laptops)
    mine = json.dumps({"files": {"secret_key": base64.b64encode(b"0" * 64).decode()}}).encode()
    public, aad = base64.b64decode(header["public"]), refresh.item_aad(header["kit"], "secret")
    edit(
        laptops.stick / "hall-kit" / "items" / "secret.json",
        lambda item: item.update(sealed=sealing.seal_to(public, mine, aad)),
    )
    refused = laptops.open(laptops.b)
    assert refused.exit_code == 2
    assert "items/secret.json was replaced" in refused.stderr  # not the file the manifest lists
    assert not laptops.b.exists()


def test_a_kit_that_asks_for_64_gb_of_memory_is_altered_not_obeyed(laptops):
    edit(
        laptops.stick / "hall-kit" / "kit.json",
        lambda header: header["kdf"].update(memory_kib=64 * 1024 * 1024),
    )
    refused = laptops.open(laptops.b)
    assert refused.exit_code == 2
    assert "The kit was altered: its key derivation's cost memory_kib=67108864" in refused.stderr
    assert "Wrong passphrase" not in refused.stderr
    assert not laptops.b.exists()


def test_a_fifo_in_place_of_the_kit_is_refused_not_waited_on(laptops):
    header_path = laptops.stick / "hall-kit" / "kit.json"
    header_path.unlink()
    os.mkfifo(header_path)
    done = run_cli(
        laptops.b, "kit", "open", str(laptops.stick), "--passphrase-stdin", stdin=PASSPHRASE + "\n"
    )  # fmt: skip (60 s timeout: a hang fails the test)
    assert done.returncode == 2
    assert "is not readable" in done.stderr
    assert stat.S_ISFIFO(header_path.stat().st_mode)


def test_the_running_hall_keeps_the_kit_current_without_the_passphrase(laptops, run):
    hall = connect()
    store = LexiconStore()
    assert refresh.status(hall, store).state == "current"
    # A new lexicon a tournament starts using: not on the stick yet, until the hall refreshes.
    store.save("TINY2", WordSet.of(["AA", "QI", "XU"]), description="another")
    run("tournament", "create", "open", "--lexicon", "TINY2", "--rule", "single")
    stale = refresh.status(hall, store)
    assert (stale.state, stale.stale) == ("stale", ("lexicons",))
    stale_text = run("journal", "status").stdout
    assert "is not current yet (lexicons)" in stale_text and "nothing needs doing" in stale_text
    key = receipt_key.load(laptops.a / "receipt_key.pem")
    assert refresh.bring_up_to_date(hall, store, key) == ["lexicons"]
    assert refresh.status(hall, store).state == "current"
    assert "holds a current takeover kit" in run("journal", "status").stdout
    hall.close()
    opened = laptops.open(laptops.b)
    assert opened.exit_code == 0, opened.stderr
    assert "lexicons: TINY, TINY2" in opened.stdout


def test_a_public_half_swapped_on_the_stick_is_never_sealed_to(laptops):
    """The hall seals only to the public half it keeps in the data home: a stick whose header
    names the holder's own key gets nothing, and the status says to seal again."""
    _, theirs = sealing.new_key_pair()
    edit(
        laptops.stick / "hall-kit" / "kit.json",
        lambda header: header.update(public=base64.b64encode(theirs).decode()),
    )
    hall, store = connect(), LexiconStore()
    for name in ("server.crt", "server.key"):  # a certificate made anew: an item to refresh
        (laptops.a / "hall" / name).unlink()
    hall_tls.ensure("hall", ("127.0.0.1",), own_networks=[])
    before = files_of(laptops.stick)
    key = receipt_key.load(laptops.a / "receipt_key.pem")
    assert refresh.bring_up_to_date(hall, store, key) == []
    assert files_of(laptops.stick) == before
    assert refresh.status(hall, store).state == "other"
    hall.close()


def test_hall_fingerprint_makes_the_ca_once_and_prints_it(run, home):
    first = run("hall", "--fingerprint")
    assert first.exit_code == 0
    fingerprint = hall_tls.read_ca_fingerprint()
    assert len(fingerprint.split(":")) == 32 and all(len(p) == 2 for p in fingerprint.split(":"))
    assert first.stdout == "\n".join(hall_tls.fingerprint_lines(fingerprint)) + "\n"
    assert run("hall", "--fingerprint").stdout == first.stdout


def test_the_first_laptop_does_not_judge_after_a_takeover_until_its_own_kit_open(laptops):
    assert laptops.open(laptops.b).exit_code == 0
    assert laptops.judge("QI").exit_code == 0  # B judges row 4
    # B's command ran in this process: its connections close now, as its own process's would
    # at exit (one collected later, during A's commands, would checkpoint the stick's WAL then)
    gc.collect()
    # A, with the stick back: nothing it runs writes to the journal, or judges.
    laptops.on(laptops.a)
    before = files_of(laptops.stick)
    refused = laptops.judge("ZA")
    assert refused.exit_code == 2
    assert "THIS HALL WAS TAKEN OVER" in refused.stderr
    install_b = (laptops.b / "install-id").read_text()
    assert f"(install {install_b[:8]})" in refused.stderr and "after row 3" in refused.stderr
    status = laptops.run("journal", "status")
    assert status.exit_code == 1 and "TAKEN OVER by another laptop" in status.stdout
    assert files_of(laptops.stick) == before
    # A takes the hall back with its own kit open: its journal only behind the stick's.
    opened = laptops.open(laptops.a)
    assert opened.exit_code == 0, opened.stderr
    assert "4 rows copied" in opened.stdout
    judged = laptops.judge("ZA")
    assert judged.exit_code == 0 and "adjudication #5" in judged.stdout
    # Now B is the laptop taken over.
    assert "THIS HALL WAS TAKEN OVER" in laptops.on(laptops.b).judge("QI").stderr


def test_kit_open_keeps_a_laptop_journal_that_holds_rows_the_stick_does_not(laptops):
    """The first laptop judged alone after the stick left, as its director confirmed (rows the
    stick lacks): its own kit open refuses to overwrite them."""
    away = laptops.stick.with_name("stick-away")
    laptops.stick.rename(away)  # the stick leaves the hall laptop
    assert laptops.on(laptops.a).judge("QI").exit_code == 2  # held: the stick it wrote to is gone
    confirmed = laptops.run("journal", "confirm-alone", "--reason", "the stick went home")
    assert confirmed.exit_code == 0, confirmed.stderr
    assert "adjudication #4" in laptops.judge("QI").stdout
    away.rename(laptops.stick)
    before = hashlib.sha256((laptops.a / "journal.sqlite3").read_bytes()).hexdigest()
    refused = laptops.open(laptops.a)
    assert refused.exit_code == 2
    assert "is not only behind the stick's" in refused.stderr
    assert hashlib.sha256((laptops.a / "journal.sqlite3").read_bytes()).hexdigest() == before


@pytest.mark.parametrize(
    "header, says",
    [
        (b"", "damaged"),
        (b"\x00\xff" * 64, "damaged"),
        (b'{"format": 2, "kit": "x", "mirror": "journal.sqlite3"}', "altered"),
        (b'{"format": 1, "kit": "x", "mirror": "journal.sqlite3"}', "without a manifest"),
    ],
)
def test_a_kit_header_that_is_not_one_is_refused_and_nothing_is_written(laptops, header, says):
    (laptops.stick / "hall-kit" / "kit.json").write_bytes(header)
    refused = laptops.open(laptops.b)
    assert refused.exit_code == 2 and says in refused.stderr, refused.stderr
    assert "Traceback" not in refused.stderr
    assert not laptops.b.exists()


def test_kit_seal_into_a_folder_that_is_not_there_is_refused(run, home, tiny, tmp_path):
    refused = run("kit", "seal", str(tmp_path / "no-stick"), "--passphrase-stdin",
                  input=PASSPHRASE + "\n")  # fmt: skip
    assert refused.exit_code == 2
    assert "is not a folder: give the USB stick's folder" in refused.stderr
    assert not (tmp_path / "no-stick").exists()


def test_kit_open_takes_each_proof_from_the_kit_and_reads_no_word(laptops, monkeypatch):
    """The kit's signed list of lexicons carries each one's proof (issue 45): `kit open`
    installs TINY without fingerprinting its words, and its proof stands beside it on B."""
    from adjudicator.words import lexicon

    listing = json.loads((laptops.stick / "hall-kit" / "lexicons.json").read_text())
    compiled = LexiconStore(laptops.a / "lexicons").manifest("TINY").compiled_file
    assert set(listing["proofs"]) == {compiled}
    read_back: list[str] = []
    original = lexicon.CompiledLexicon.check_fingerprint
    monkeypatch.setattr(lexicon.CompiledLexicon, "check_fingerprint",
                        lambda self: read_back.append(self.name) or original(self))  # fmt: skip
    opened = laptops.open(laptops.b)
    assert opened.exit_code == 0, opened.stderr
    assert "lexicons: TINY" in opened.stdout and read_back == []
    proof = (laptops.b / "lexicons" / f"{compiled}.proof").read_text()
    assert proof == listing["proofs"][compiled]
