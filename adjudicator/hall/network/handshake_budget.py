"""How many new connections a server process takes into a TLS handshake each second: from one
client address, and in all.

A TLS handshake costs a server process most of a millisecond of its CPU, before any request
shows who sent it. A laptop on the hall's Wi-Fi that reopens connections as fast as they are
refused or answered (a thousand a second and more) would spend a core of the hall's laptop on
them, and the kiosks' verdicts would wait. So each process hands new connections to TLS within
a budget: a token bucket for each client address (PER_ADDRESS a second, PER_ADDRESS_BURST at
once) and one for the process (its share of the server's IN_ALL a second and IN_ALL_BURST at
once: the laptop's cores are the same however many processes share them). A connection beyond the
budget waits its turn, holding only its socket (kiosk.server.admission), or is closed at once
when its address already has enough waiting. Connections already open (a paired kiosk's, kept
alive) are not counted: they do no new handshake.
"""

from __future__ import annotations

import time
from collections.abc import Callable

PER_ADDRESS = 32.0  # new TLS connections a second from one address, in one server process
PER_ADDRESS_BURST = 64.0  # from one address at once (forty tablets behind a NAT starting up)
IN_ALL = 96.0  # new TLS connections a second in all the server's processes, from every address
IN_ALL_BURST = 160.0
MOST_ADDRESSES = 4096  # buckets kept before the full ones (addresses quiet a while) are dropped


class _Bucket:
    __slots__ = ("tokens", "stamp")

    def __init__(self, tokens: float, stamp: float):
        self.tokens = tokens
        self.stamp = stamp


class HandshakeBudget:
    """Token buckets of new connections, by address and in all (`per_address` 0: none by
    address, as with ADJUDICATOR_CONNECTIONS_PER_ADDRESS=0)."""

    @classmethod
    def share(cls, processes: int, by_address: bool = True) -> HandshakeBudget:
        """One of `processes` server processes' budget: the in-all one shared among them."""
        processes = max(1, processes)
        return cls(
            per_address=PER_ADDRESS if by_address else 0,
            in_all=IN_ALL / processes,
            in_all_burst=IN_ALL_BURST / processes,
        )

    def __init__(
        self,
        per_address: float = PER_ADDRESS,
        per_address_burst: float = PER_ADDRESS_BURST,
        in_all: float = IN_ALL,
        in_all_burst: float = IN_ALL_BURST,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.per_address = per_address
        self.per_address_burst = per_address_burst
        self.in_all = in_all
        self.in_all_burst = in_all_burst
        self.clock = clock
        self.buckets: dict[str, _Bucket] = {}
        self.all = _Bucket(in_all_burst, clock())

    def take(self, address: str) -> bool:
        """Whether a new connection from `address` may begin its handshake now (if so, it is
        counted)."""
        now = self.clock()
        self._fill(self.all, self.in_all, self.in_all_burst, now)
        if self.all.tokens < 1:
            return False
        mine = self._bucket(address, now)
        if mine is not None:
            if mine.tokens < 1:
                return False
            mine.tokens -= 1
        self.all.tokens -= 1
        return True

    def wait(self, address: str) -> float:
        """Seconds until a connection from `address` may begin its handshake."""
        now = self.clock()
        self._fill(self.all, self.in_all, self.in_all_burst, now)
        waits = [(1 - self.all.tokens) / self.in_all]
        mine = self._bucket(address, now)
        if mine is not None:
            waits.append((1 - mine.tokens) / self.per_address)
        return max(0.0, *waits)

    def _bucket(self, address: str, now: float) -> _Bucket | None:
        if not self.per_address:
            return None
        mine = self.buckets.get(address)
        if mine is None:
            if len(self.buckets) >= MOST_ADDRESSES:
                self._forget_full(now)
            mine = self.buckets[address] = _Bucket(self.per_address_burst, now)
            return mine
        self._fill(mine, self.per_address, self.per_address_burst, now)
        return mine

    def _forget_full(self, now: float) -> None:
        """Drop the buckets that have filled again (their addresses went quiet); if none has,
        the oldest half (a flood from thousands of addresses: each then starts full)."""
        for address, bucket in list(self.buckets.items()):
            self._fill(bucket, self.per_address, self.per_address_burst, now)
            if bucket.tokens >= self.per_address_burst:
                del self.buckets[address]
        if len(self.buckets) >= MOST_ADDRESSES:
            for address in list(self.buckets)[: MOST_ADDRESSES // 2]:
                del self.buckets[address]

    @staticmethod
    def _fill(bucket: _Bucket, rate: float, burst: float, now: float) -> None:
        bucket.tokens = min(burst, bucket.tokens + (now - bucket.stamp) * rate)
        bucket.stamp = now
