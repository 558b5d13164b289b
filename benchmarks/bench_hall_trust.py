"""Trust in the hall (issue 26, items 2-4): what the name watch and the fingerprint add.

/healthz and the director's overview read what the supervising `adjudicator hall` found about
its name from a file it shares with the workers (name_claims.current): a stat per read, the file
parsed again only when it changed. Measured: that read with no file (every hall with no other
device answering, and every `serve`), with a file (another device answering), and /healthz
in-process without and with one; the overview's fingerprint read (hall_tls.read_ca_fingerprint);
and the start-up cost of a CA with name constraints against one made before them.
"""

from __future__ import annotations

import os

import pytest

from adjudicator.hall.network import hall_tls, name_claims


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def claims_with(*addresses: str) -> name_claims.NameClaims:
    heard = {a: (1_700_000_000.0, 1_700_000_060.0) for a in addresses}
    found = name_claims.others_from(heard, frozenset())
    return name_claims.NameClaims("club", False, "https://192.0.2.2:8443", found, os.getpid())


def test_read_with_no_other_device_floor(benchmark, home):
    assert benchmark(name_claims.current) is None


def test_read_with_another_device_answering(benchmark, home):
    name_claims.write(claims_with("192.0.2.77"))
    assert benchmark(name_claims.current).others


def test_healthz_with_no_other_device(benchmark, home):
    client = _app(home).test_client()
    assert benchmark(lambda: client.get("/healthz").get_json())["warnings"] == []


def test_healthz_with_another_device_answering(benchmark, home):
    client = _app(home).test_client()
    name_claims.write(claims_with("192.0.2.77"))
    assert benchmark(lambda: client.get("/healthz").get_json())["warnings"]


def test_the_overviews_fingerprint_read(benchmark, home):
    hall_tls.ensure("club", ["192.168.1.20"], own_networks=[])
    assert len(benchmark(hall_tls.read_ca_fingerprint)) == 95


def test_a_start_checks_a_constrained_ca(benchmark, home):
    hall_tls.ensure("club", ["192.168.1.20"], own_networks=[])
    assert benchmark(hall_tls.ensure, "club", ["192.168.1.20"], own_networks=[]).made == ""


def _app(home):
    from adjudicator.hall.hall import Hall
    from adjudicator.words.store import LexiconStore
    from adjudicator.words.wordlist import WordSet
    from kiosk import create_app

    LexiconStore().save("TINY", WordSet.of(["QI", "ZA"]), description="tiny")
    hall = Hall()
    hall.upgrade()
    return create_app({"TESTING": True, "HALL": hall, "SECRET_KEY": "bench"})
