"""Homes for attacks on a real server: the director's and a word judge's accounts beside the
served tournament and kiosk of tests/support/servers.py, and a signed-in director's client."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from argon2 import PasswordHasher

from adjudicator.hall.people import staff
from adjudicator.record.database.sqlite import SqliteDatabase

from .http import Client
from .servers import PreparedHome, cli, prepare_home

DIRECTOR_PASSWORD = "the-director-pw-1"
JUDGE_PASSWORD = "the-judge-pw-12"


def staffed_home(path, env: dict | None = None) -> PreparedHome:
    """A served home with the director's account and word judge alice (real argon2 hashes)."""
    home = prepare_home(path, env=env)
    cli(home.path, "director", "set-password", "--password-stdin", stdin=DIRECTOR_PASSWORD + "\n")
    cli(home.path, "judge-account", "add", "alice", "--password-stdin", stdin=JUDGE_PASSWORD + "\n")
    return home


def cheaply_staffed_home(path, env: dict | None = None) -> PreparedHome:
    """The same accounts hashed with cheap argon2 parameters (a check reads them from the hash),
    for tests that make many checks: the throttle is under test there, not argon2's cost."""
    home = prepare_home(path, env=env)
    db = SqliteDatabase(str(home.path / "journal.sqlite3"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ADJUDICATOR_HOME", str(home.path))  # its key seals the hashes (issue 41)
        patch.setattr(staff, "HASHER", PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
        staff.set_director_password(db, DIRECTOR_PASSWORD)
        staff.add_judge(db, "alice", JUDGE_PASSWORD)
    db.close()
    return home


def signed_in(reply) -> bool:
    """True for the answer to a director's successful sign-in."""
    return reply.status == 302 and reply.headers["Location"].endswith("/director/")


def director(url: str, source: str = "127.0.0.2") -> Client:
    """A client signed in as the director."""
    client = Client(url, source)
    assert signed_in(client.sign_in("director", DIRECTOR_PASSWORD))
    return client


def cli_run(home: PreparedHome, *args: str) -> subprocess.CompletedProcess:
    """Run the CLI on `home` as a person would; the outcome, whatever it is."""
    return subprocess.run(
        [sys.executable, "-m", "adjudicator", *args],
        env={**os.environ, "ADJUDICATOR_HOME": str(home.path)},
        capture_output=True,
        text=True,
        timeout=60,
    )


def module_home(name: str):
    """A module-scoped `home` fixture: cheaply_staffed_home in a folder named `name`."""

    @pytest.fixture(scope="module")
    def home(tmp_path_factory) -> PreparedHome:
        return cheaply_staffed_home(tmp_path_factory.mktemp(name) / "home")

    return home
