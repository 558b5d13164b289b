"""A mirror that is read-only (issue 22, item 2): as an unprivileged user (root ignores a file's
permissions), a journal whose mirror file cannot be written records on the primary alone,
says "degraded: one copy" naming the mirror, and `journal resync` brings it back once it is
writable. Real processes, real files."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from support.servers import NOBODY, as_nobody_argv

pytestmark = pytest.mark.slow

SCRIPT = """
import sys
from adjudicator.record.journal import journal
from adjudicator.record.database import migrations
from adjudicator.record.copies.mirror import MirroredDatabase
db = MirroredDatabase(sys.argv[1], sys.argv[2])
migrations.upgrade(db)
for _ in range(int(sys.argv[3])):
    journal.append(db, kind="challenge", tournament="t", kiosk="k", lexicon_name="L",
        lexicon_fingerprint="f", lexicon_words=1, rule="single", words=["QI"], word_count=1,
        verdict="ACCEPTABLE", consequence="The play stands.")
lost = db.lost_copy()
print(journal.newest_id(db), lost.role if lost else "-", lost.reason if lost else "")
"""


def as_nobody(*argv: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        as_nobody_argv(*argv),
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


@pytest.fixture
def folder():
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        pytest.skip("needs root and setpriv to act as another user")
    made = Path(tempfile.mkdtemp(prefix="adjudicator-ro-mirror-"))
    for sub in ("disk", "usb"):
        (made / sub).mkdir()
        os.chown(made / sub, NOBODY, NOBODY)
    made.chmod(0o755)
    yield made
    shutil.rmtree(made, ignore_errors=True)


def test_a_read_only_mirror_is_dropped_and_resynced(folder):
    primary, mirror = folder / "disk" / "journal.sqlite3", folder / "usb" / "journal.sqlite3"
    home = {"ADJUDICATOR_HOME": str(folder / "disk")}  # the hall's key, which signs the markers
    first = as_nobody(sys.executable, "-c", SCRIPT, str(primary), str(mirror), "3", env=home)
    assert first.returncode == 0, first.stderr
    assert first.stdout.split()[:2] == ["3", "-"]  # both copies written

    mirror.chmod(0o444)  # the stick's write-protect switch
    second = as_nobody(sys.executable, "-c", SCRIPT, str(primary), str(mirror), "2", env=home)
    assert second.returncode == 0, second.stderr
    newest, lost, *reason = second.stdout.split()
    assert (newest, lost) == ("5", "mirror") and "read-only" in " ".join(reason)
    env = {
        "ADJUDICATOR_HOME": str(folder / "disk"),
        "ADJUDICATOR_DATABASE_URL": str(primary),
        "ADJUDICATOR_JOURNAL_MIRROR": str(mirror),
    }
    status = as_nobody(sys.executable, "-m", "adjudicator", "journal", "status", env=env)
    assert status.returncode == 1 and "degraded: one copy" in status.stdout
    assert "mirror" in status.stdout and "read-only" in status.stdout

    mirror.chmod(0o644)
    resync = as_nobody(sys.executable, "-m", "adjudicator", "journal", "resync", env=env)
    assert resync.returncode == 0, resync.stderr
    assert "rebuilt from the primary: both copies now hold 5 rows" in resync.stdout
    again = as_nobody(sys.executable, "-c", SCRIPT, str(primary), str(mirror), "1", env=home)
    assert again.stdout.split()[:2] == ["6", "-"], again.stderr
