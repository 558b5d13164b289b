"""Benchmarks for the hall in a box (issue 21): the hall's certificates, the pairing sheet, and
`adjudicator hall` from launch to answering HTTPS.

Targets: a server start checks its certificates in under 50 ms (first run, making the CA and
the server certificate: under 1 s); a sheet of 20 tables (enrol, codes, 20 QR codes, the page)
in under 1 s; `adjudicator hall` answers HTTPS within 10 s of its launch.
"""

from __future__ import annotations

import os
import signal
import ssl
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from adjudicator.hall import pairing_sheet, sheet_page, tournaments
from adjudicator.hall.hall import Hall
from adjudicator.hall.network import hall_tls
from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet

ADDRESSES = ("192.168.1.20",)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ADJUDICATOR_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("ADJUDICATOR_DATABASE_URL", raising=False)
    return tmp_path / "home"


def test_first_run_makes_the_ca_and_server_certificate(benchmark, home):
    def fresh():
        for name in ("ca.crt", "ca.key", "server.crt", "server.key"):
            (home / "hall" / name).unlink(missing_ok=True)

    benchmark.pedantic(
        lambda: hall_tls.ensure("club", ADDRESSES), setup=fresh, rounds=20, iterations=1
    )


def test_a_start_checks_the_certificates(benchmark, home):
    hall_tls.ensure("club", ADDRESSES)
    result = benchmark(hall_tls.ensure, "club", ADDRESSES)
    assert result.made == ""


def test_a_sheet_of_twenty_tables(benchmark, home):
    LexiconStore().save("TINY", WordSet.of(["QI", "ZA"]))
    hall = Hall()
    hall.upgrade()
    tournaments.create(hall.db, hall.store, "open", "TINY", "double", "Club Open")
    numbers = list(range(1, 21))

    hall_tls.ensure("club", ADDRESSES)  # the sheet names the hall CA's fingerprint, as served
    ca_fingerprint = hall_tls.read_ca_fingerprint()

    def make() -> str:
        sheet = pairing_sheet.enrol_tables(hall.db, "open", numbers, "https://club.local:8443")
        return sheet_page.render(
            "Club Open", "open", sheet, "https://club.local:8443", fingerprint=ca_fingerprint
        )

    page = benchmark.pedantic(make, rounds=10, iterations=1)
    assert page.count("<svg") == 20 and "fingerprint-group" in page


def test_hall_from_launch_to_https(benchmark, home, tmp_path):
    """The hall in a network namespace of its own (it announces its name by mDNS there),
    reached on its LAN address from inside (tests/support/netns.py)."""
    from tests.support.netns import HallNetwork, require_namespaces

    require_namespaces()
    LexiconStore().save("TINY", WordSet.of(["QI", "ZA"]))
    port = 8443  # the hall's namespace has every port free

    def launch_and_wait(network: HallNetwork) -> float:
        argv = [sys.executable, "-m", "adjudicator", "hall", "--name", "bench", "--port", str(port)]
        process = subprocess.Popen(
            network.hall.command(*argv),
            env={**os.environ, "ADJUDICATOR_WORKERS": "1"},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + 30
            url = f"https://{network.hall.address}:{port}/healthz"
            while True:
                try:  # the CA file is there once the hall has made it
                    context = ssl.create_default_context(cafile=str(home / "hall" / "ca.crt"))
                    with network.hall.entered():
                        urllib.request.urlopen(url, timeout=1, context=context).close()
                    return time.monotonic()
                except OSError:
                    assert time.monotonic() < deadline
                    time.sleep(0.05)
        finally:
            os.kill(process.pid, signal.SIGTERM)
            process.wait(timeout=30)

    with HallNetwork() as network:
        benchmark.pedantic(launch_and_wait, args=(network,), rounds=3, iterations=1)
