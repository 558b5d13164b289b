"""A private network for a test: a Linux network namespace with its loopback up and a veth pair
whose two ends are both inside it, each with an address of 10.x.y.0/24. A hall started in it
finds two LAN addresses, serves and announces on them, and nothing it sends (mDNS's UDP 5353
included) leaves the namespace, let alone the machine. Needs root and `ip` (iproute2); the
tests that use it skip, saying why, where either is missing.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass


def netns_missing_reason() -> str | None:
    """Why a private network cannot be made here, or None when it can."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    if shutil.which("ip") is None:
        return "`ip` (iproute2) is missing"
    return None


@dataclass(frozen=True)
class PrivateLan:
    """A namespace `name` whose veth ends hold `addresses` (the hall's LAN, as it sees it)."""

    name: str
    addresses: tuple[str, str]

    def argv(self, *command: str) -> list[str]:
        """`command` run inside the namespace."""
        return ["ip", "netns", "exec", self.name, *command]

    def python(self, code: str, *args: str, env: dict | None = None, timeout: float = 60) -> str:
        """Run Python `code` (with `args` as sys.argv[1:]) inside the namespace; its stdout,
        or an AssertionError with its stderr."""
        done = subprocess.run(
            self.argv(sys.executable, "-c", code, *args),
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=30)


@contextmanager
def private_lan() -> Iterator[PrivateLan]:
    """A fresh namespace with lo up and a veth pair inside it; deleted at the end (every
    process the test started in it must have ended by then)."""
    name = f"adj-{secrets.token_hex(4)}"
    subnet = f"10.{secrets.randbelow(200) + 20}.{secrets.randbelow(250) + 1}"
    addresses = (f"{subnet}.1", f"{subnet}.2")
    _ip("netns", "add", name)
    try:
        inside = ("-n", name)
        _ip(*inside, "link", "set", "lo", "up")
        _ip(*inside, "link", "add", "hall0", "type", "veth", "peer", "name", "hall1")
        for device, address in zip(("hall0", "hall1"), addresses, strict=True):
            _ip(*inside, "addr", "add", f"{address}/24", "dev", device)
            _ip(*inside, "link", "set", device, "up")
        # multicast (mDNS) has a route inside, and only inside
        _ip(*inside, "route", "add", "224.0.0.0/4", "dev", "hall0")
        yield PrivateLan(name, addresses)
    finally:
        subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=30)
