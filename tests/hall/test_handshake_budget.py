"""How many new connections a server process takes into a TLS handshake each second, from one
address and in all (adjudicator/hall/network/handshake_budget.py), on a clock the test turns."""

from __future__ import annotations

import pytest

from adjudicator.hall.network import handshake_budget
from adjudicator.hall.network.handshake_budget import HandshakeBudget


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def taken(budget: HandshakeBudget, address: str, tries: int) -> int:
    return sum(budget.take(address) for _ in range(tries))


def test_one_address_gets_its_burst_then_its_rate():
    clock = Clock()
    budget = HandshakeBudget(per_address=32, per_address_burst=64, in_all=1000, clock=clock)
    assert taken(budget, "10.0.0.9", 500) == 64
    assert budget.wait("10.0.0.9") == pytest.approx(1 / 32)
    clock.now += 1.0
    assert taken(budget, "10.0.0.9", 500) == 32
    assert taken(budget, "10.0.0.2", 10) == 10  # another address has its own


def test_every_address_together_gets_the_process_budget():
    clock = Clock()
    budget = HandshakeBudget(
        per_address=32, per_address_burst=64, in_all=160, in_all_burst=160, clock=clock
    )
    got = sum(taken(budget, f"10.0.1.{n}", 64) for n in range(20))
    assert got == 160
    assert budget.wait("10.0.2.1") == pytest.approx(1 / 160)
    clock.now += 0.5
    assert sum(taken(budget, f"10.0.3.{n}", 64) for n in range(20)) == 80


def test_a_refused_try_spends_nothing():
    """An address past its own rate spends none of the process's budget trying."""
    clock = Clock()
    budget = HandshakeBudget(
        per_address=1, per_address_burst=1, in_all=10, in_all_burst=10, clock=clock
    )
    assert taken(budget, "10.0.0.9", 100) == 1
    assert taken(budget, "10.0.0.2", 100) == 1
    assert taken(budget, f"10.0.0.{3}", 1) == 1
    assert budget.all.tokens == pytest.approx(7)


def test_no_count_by_address_when_addresses_are_not_capped():
    clock = Clock()
    budget = HandshakeBudget(per_address=0, in_all=100, in_all_burst=100, clock=clock)
    assert taken(budget, "10.0.0.9", 500) == 100
    assert budget.buckets == {}


def test_quiet_addresses_are_forgotten_and_a_flood_of_addresses_is_bounded(monkeypatch):
    monkeypatch.setattr(handshake_budget, "MOST_ADDRESSES", 8)
    clock = Clock()
    budget = HandshakeBudget(
        per_address=1, per_address_burst=2, in_all=1e9, in_all_burst=1e9, clock=clock
    )
    for n in range(8):
        budget.take(f"10.0.0.{n}")
    clock.now += 5  # all eight have filled again
    budget.take("10.0.1.1")
    assert set(budget.buckets) == {"10.0.1.1"}
    for n in range(40):  # none fills again: the oldest half goes each time
        budget.take(f"10.0.2.{n}")
        assert len(budget.buckets) <= 8


def test_the_server_processes_share_the_budget_in_all():
    """Two workers on one laptop's cores begin no more handshakes a second in all than one:
    each takes half of IN_ALL (its address's budget stays whole in each)."""
    shares = [HandshakeBudget.share(2) for _ in range(2)]
    addresses = [f"10.0.3.{n}" for n in range(1, 21)]
    got = sum(taken(share, address, 64) for share in shares for address in addresses)
    assert got == handshake_budget.IN_ALL_BURST
    one = HandshakeBudget.share(1)
    assert sum(taken(one, address, 64) for address in addresses) == handshake_budget.IN_ALL_BURST
    assert taken(HandshakeBudget.share(2), "10.0.4.1", 500) == handshake_budget.PER_ADDRESS_BURST
    unlimited = HandshakeBudget.share(2, by_address=False)
    assert taken(unlimited, "10.0.4.2", 500) == handshake_budget.IN_ALL_BURST / 2
