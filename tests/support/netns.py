"""A network of its own for the tests of the hall's network: Linux network namespaces joined by
veth pairs, so that mDNS, spoofers and "LAN" addresses never touch the machine's real network.

`HallNetwork` makes the namespaces (unique names, `ip netns add`), links and `lo` up in each,
multicast on, addresses from 192.0.2.0/24 (TEST-NET-1):

- `network.devices` (192.0.2.2 on its bridge, br0): the tablets, resolvers and other devices;
  a device that must be told apart (a spoofer) gets an address of its own there:
  `network.devices.add_address("192.0.2.66")`;
- `network.hall` (192.0.2.1 on its eth0): where `adjudicator hall` runs; its eth0 is a veth
  whose other end is on the devices' bridge;
- `network.add_machine("b", "192.0.2.12")`: another computer (a second laptop), joined to the
  bridge the same way.

Every veth is made with each end directly inside a namespace: no end is ever in the machine's
own. All the namespaces are deleted on leaving, whatever happened; namespaces left by a run that
was killed (their names carry its pid) are deleted by the next run.

Running things inside a namespace:
- a process: `namespace.command(*argv)` is `ip netns exec NAME argv...` (RunningHall and
  run_cli take `netns=`); `namespace.python(code, *args)` runs Python code there, its stdout;
- in-process code (HTTPS clients, zeroconf): `with namespace.entered(): ...` moves the calling
  thread into the namespace with setns(2) and back out at the end. A network namespace belongs
  to a thread, and a socket keeps the namespace it was made in, so a socket (or a Zeroconf
  object, or a thread) made inside stays there when used outside. `entered(None)` is a no-op,
  for helpers that take an optional namespace.

In a test, take the fixture `hall_network` (tests/conftest.py); a module-scoped fixture uses
`with HallNetwork() as network:` after `require_namespaces()`. Where namespaces cannot be made
(not root, no `ip`), those tests skip saying why, except under CI, where they fail.

Every test is also watched by `support.mdns_watch`: an mDNS datagram leaving the machine during
it fails it under CI (a warning elsewhere, where another program may have sent it).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import secrets
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

PREFIX = "adjt"  # every namespace the tests make: adjt-PID-HEX-ROLE
RUN_NETNS = Path("/run/netns")
CLONE_NEWNET = 0x40000000
HALL_ADDRESS = "192.0.2.1"
DEVICES_ADDRESS = "192.0.2.2"
BRIDGE = "br0"
PREFIX_LENGTH = 24


class NamespaceError(RuntimeError):
    """A namespace could not be made, entered or configured."""


def _ip(*args: str) -> None:
    done = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        raise NamespaceError(f"`ip {' '.join(args)}` failed: {done.stderr.strip()}")


@functools.cache
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _setns(fd: int) -> None:
    if _libc().setns(fd, CLONE_NEWNET) != 0:
        errno = ctypes.get_errno()
        raise NamespaceError(f"setns(CLONE_NEWNET) failed: {os.strerror(errno)}")


@dataclass
class Namespace:
    """One network namespace: its name, its end of the veth and its first address."""

    name: str
    interface: str
    address: str
    addresses: list[str] = field(default_factory=list)

    @property
    def path(self) -> Path:
        return RUN_NETNS / self.name

    def command(self, *argv: str) -> list[str]:
        """`argv` run inside this namespace (`ip netns exec`)."""
        return ["ip", "netns", "exec", self.name, *argv]

    def python(self, code: str, *args: str, timeout: float = 60) -> str:
        """Python `code` run in a child process inside this namespace (with `args` as
        sys.argv[1:]): its stdout, or an AssertionError with its stderr."""
        done = subprocess.run(
            self.command(sys.executable, "-c", code, *args),
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    @contextlib.contextmanager
    def entered(self) -> Iterator[Namespace]:
        """The calling thread inside this namespace for the block, then back where it was."""
        with open("/proc/thread-self/ns/net", "rb") as home, open(self.path, "rb") as target:
            _setns(target.fileno())
            try:
                yield self
            finally:
                _setns(home.fileno())

    def add_address(self, address: str) -> str:
        """Give this namespace's veth one more address (another device on the network)."""
        if address not in self.addresses:
            _ip("-n", self.name, "addr", "add", f"{address}/{PREFIX_LENGTH}", "dev", self.interface)
            self.addresses.append(address)
        return address


def entered(namespace: Namespace | None) -> contextlib.AbstractContextManager:
    """`namespace.entered()`, or nothing at all for None (the machine's own network)."""
    return namespace.entered() if namespace is not None else contextlib.nullcontext()


class HallNetwork:
    """The devices' namespace with its bridge, and the hall's joined to it (see the module's
    docstring); `add_machine` joins more."""

    def __init__(self) -> None:
        self.tag = f"{PREFIX}-{os.getpid()}-{secrets.token_hex(3)}"
        self.devices = Namespace(f"{self.tag}-dev", BRIDGE, DEVICES_ADDRESS)
        self.hall = Namespace(f"{self.tag}-hall", "eth0", HALL_ADDRESS)
        self.namespaces: list[Namespace] = []  # made so far, the devices' first

    def __enter__(self) -> HallNetwork:
        remove_stale_namespaces()
        try:
            devices = self._add(self.devices)
            _ip("-n", devices.name, "link", "add", BRIDGE, "type", "bridge")
            self._up(devices)
            self._join(self.hall)
        except BaseException:
            self.remove()
            raise
        return self

    def add_machine(self, role: str, address: str) -> Namespace:
        """Another computer on the hall's network: a namespace of its own (named for `role`,
        a few letters), its eth0 at `address` joined to the devices' bridge."""
        return self._join(Namespace(f"{self.tag}-{role}", "eth0", address))

    def _add(self, namespace: Namespace) -> Namespace:
        _ip("netns", "add", namespace.name)
        self.namespaces.append(namespace)
        return namespace

    def _join(self, namespace: Namespace) -> Namespace:
        """`namespace`, made, its eth0 a veth whose other end is on the devices' bridge."""
        self._add(namespace)
        port = f"port{len(self.namespaces) - 1}"  # the other end, in the devices' namespace
        _ip(
            "link", "add", namespace.interface, "netns", namespace.name,
            "type", "veth", "peer", "name", port, "netns", self.devices.name,
        )  # fmt: skip
        _ip("-n", self.devices.name, "link", "set", port, "master", BRIDGE, "up")
        self._up(namespace)
        return namespace

    @staticmethod
    def _up(namespace: Namespace) -> None:
        _ip("-n", namespace.name, "link", "set", "lo", "up")
        _ip("-n", namespace.name, "link", "set", namespace.interface, "multicast", "on", "up")
        namespace.add_address(namespace.address)

    def __exit__(self, *exc) -> None:
        self.remove()

    def remove(self) -> None:
        """Delete every namespace made (and with them the veths and the bridge)."""
        for namespace in reversed(self.namespaces):
            if namespace.path.exists():
                subprocess.run(["ip", "netns", "del", namespace.name], capture_output=True)
        self.namespaces.clear()


def remove_stale_namespaces() -> None:
    """Delete the namespaces of test runs that are gone (killed before they could)."""
    if not RUN_NETNS.is_dir():
        return
    for entry in RUN_NETNS.iterdir():
        parts = entry.name.split("-")
        if len(parts) < 3 or parts[0] != PREFIX or not parts[1].isdigit():
            continue
        if not Path(f"/proc/{parts[1]}").exists():
            subprocess.run(["ip", "netns", "del", entry.name], capture_output=True)


@functools.cache
def missing_reason() -> str | None:
    """Why network namespaces cannot be made here, or None when they can (asked once)."""
    if shutil.which("ip") is None:
        return "no `ip` command (iproute2) to make network namespaces"
    if os.geteuid() != 0:
        return "network namespaces need root (`ip netns add`)"
    try:
        with HallNetwork() as network, network.devices.entered():
            pass
    except (NamespaceError, OSError) as exc:
        return f"network namespaces cannot be made here: {exc}"
    return None


def require_namespaces() -> None:
    """Skip the test when namespaces cannot be made here, saying why; under CI, fail."""
    reason = missing_reason()
    if reason is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"CI must run the hall's network tests, but {reason}")
    pytest.skip(reason)


@pytest.fixture
def hall_network() -> Iterator[HallNetwork]:
    """The hall's namespace and the devices' namespace, joined by a veth pair (deleted after)."""
    require_namespaces()
    with HallNetwork() as network:
        yield network
