"""`kit open` asks for the passphrase once the kit's files have passed their checks, with the
stick's journal already being copied and walked: the walk runs while the director types (a
season's journal is walked in seconds, which used to follow the typing), a kit that was altered
is refused before any passphrase is asked, and a takeover given up at the prompt leaves
nothing behind. The real command, its standard input held open as a director's keyboard is."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from support.kit import PASSPHRASE, Laptops, sealed_laptops

pytestmark = pytest.mark.slow  # each seal and open derives a key over 256 MiB (Argon2id)


@pytest.fixture
def laptops(tmp_path, monkeypatch, run, tiny) -> Laptops:
    return sealed_laptops(tmp_path, monkeypatch, run)


def kit_open(laptops: Laptops) -> subprocess.Popen:
    """`adjudicator kit open STICK` on laptop B, waiting for its passphrase on standard input."""
    return subprocess.Popen(
        [sys.executable, "-P", "-m", "adjudicator", "kit", "open", str(laptops.stick),
         "--passphrase-stdin"],
        env={**os.environ, "ADJUDICATOR_HOME": str(laptops.b)},
        # A terminal's Ctrl-C reaches it: a run started in the background ignores SIGINT, and
        # a child would inherit that (Python then installs no KeyboardInterrupt).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip


def private_copies(folder: Path) -> list[Path]:
    return sorted(folder.glob(".adjudicator-kit-open-*"))


def copy_taken_before_the_passphrase(folder: Path, child: subprocess.Popen) -> None:
    """Wait (no passphrase given) until `kit open` has copied the stick's journal into its
    private folder near laptop B's data home."""
    deadline = time.monotonic() + 60
    while not any(path.glob("journal.sqlite3") for path in private_copies(folder)):
        if child.poll() is not None:
            pytest.fail(f"kit open ended before its passphrase: {child.communicate()}")
        if time.monotonic() > deadline:
            child.kill()
            pytest.fail("no copy of the stick's journal was taken while the passphrase was asked")
        time.sleep(0.01)


def test_the_sticks_journal_is_copied_and_walked_while_the_passphrase_is_typed(
    laptops, tmp_path
):
    child = kit_open(laptops)
    copy_taken_before_the_passphrase(tmp_path, child)
    time.sleep(0.5)  # the director still typing
    out, err = child.communicate(PASSPHRASE + "\n", timeout=120)
    assert child.returncode == 0, err
    assert "3 rows copied from the stick" in out and "the next verdict is row 4" in out
    assert private_copies(tmp_path) == []
    assert "adjudication #4" in laptops.on(laptops.b).judge("QI").stdout


def test_an_altered_kit_is_refused_before_any_passphrase_is_asked(laptops):
    header = laptops.stick / "hall-kit" / "kit.json"
    found = json.loads(header.read_text())
    found["kdf"]["memory_kib"] = 64 * 1024 * 1024
    header.write_text(json.dumps(found))
    child = kit_open(laptops)
    try:
        child.wait(timeout=60)  # its standard input held open, and nothing typed
    except subprocess.TimeoutExpired:
        child.kill()
        pytest.fail("kit open waited for a passphrase before refusing an altered kit")
    finally:
        _, err = child.communicate()
    assert child.returncode == 2
    assert "The kit was altered" in err and "Traceback" not in err
    assert not laptops.b.exists()


@pytest.mark.parametrize("given_up", ["interrupted", "nothing typed"])
def test_a_takeover_given_up_at_the_prompt_leaves_nothing_behind(laptops, tmp_path, given_up):
    child = kit_open(laptops)
    copy_taken_before_the_passphrase(tmp_path, child)
    if given_up == "interrupted":
        child.send_signal(signal.SIGINT)  # Ctrl-C at the prompt (the keyboard stays open)
        child.wait(timeout=60)
        _, err = child.communicate()
        assert child.returncode == 1 and "Aborted" in err, err
    else:
        _, err = child.communicate("", timeout=60)  # the keyboard's end: no passphrase
        assert child.returncode == 2 and "passphrase" in err.lower(), err
    assert "Traceback" not in err
    assert private_copies(tmp_path) == [] and not laptops.b.exists()
