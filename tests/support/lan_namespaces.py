"""A hall's network of its own for a test: Linux network namespaces joined by a bridge, every
interface inside them (nothing on this machine's own interfaces; no mDNS leaves the machine).
Several laptops, each in a namespace of its own with its own address, and a tablet: where
support.netns's one private network (one machine, two addresses) is not enough.

`HallLan` makes a bridge namespace (which is also the tablet's: br0, 192.0.2.254/24) and, per
laptop, a namespace whose eth0 (192.0.2.N/24) is a veth whose peer is on the bridge. Commands
run inside with `ip netns exec`. `tablet(...)` runs one of this module's tablet actions in the
tablet's namespace, in a child process, and returns what it found (JSON). Needs root and `ip`.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support.running_hall import RunningHall

TESTS = Path(__file__).resolve().parents[1]
TABLET = "192.0.2.254"


def skip_unless_possible() -> None:
    """Skip (saying why) where namespaces cannot be made; CI must be able to."""
    why = None
    if os.geteuid() != 0:
        why = "network namespaces need root"
    elif shutil.which("ip") is None:
        why = "no `ip` command (iproute2) to make network namespaces"
    if why:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run the hall's network tests: {why}")
        pytest.skip(why)


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=30)


class HallLan:
    """The bridge (and tablet) namespace and one namespace per laptop."""

    def __init__(self) -> None:
        self.tag = secrets.token_hex(3)
        self.bridge = f"adj{self.tag}-lan"
        self.members: dict[str, str] = {}  # laptop -> its namespace
        _ip("netns", "add", self.bridge)
        _ip("-n", self.bridge, "link", "add", "br0", "type", "bridge")
        _ip("-n", self.bridge, "addr", "add", f"{TABLET}/24", "dev", "br0")
        for link in ("lo", "br0"):
            _ip("-n", self.bridge, "link", "set", link, "up")

    def laptop(self, name: str, address: str) -> str:
        """A laptop's namespace, its eth0 at `address`/24 on the bridge."""
        namespace = f"adj{self.tag}-{name}"
        peer = f"p{len(self.members)}{self.tag}"
        _ip("netns", "add", namespace)
        _ip("-n", namespace, "link", "add", "eth0", "type", "veth", "peer", "name", peer,
            "netns", self.bridge)  # fmt: skip
        _ip("-n", self.bridge, "link", "set", peer, "master", "br0")
        _ip("-n", namespace, "addr", "add", f"{address}/24", "dev", "eth0")
        for link in ("lo", "eth0"):
            _ip("-n", namespace, "link", "set", link, "up")
        _ip("-n", self.bridge, "link", "set", peer, "up")
        self.members[name] = namespace
        return namespace

    def close(self) -> None:
        for namespace in [*self.members.values(), self.bridge]:
            subprocess.run(["ip", "netns", "del", namespace], capture_output=True, timeout=30)

    def tablet(self, action: str, **arguments) -> dict:
        """Run tablet action `action` (a function below) in the tablet's namespace."""
        done = subprocess.run(
            ["ip", "netns", "exec", self.bridge, sys.executable, "-c",
             f"import sys; sys.path.insert(0, {str(TESTS)!r}); "
             "from support.lan_namespaces import tablet_main; tablet_main()",
             action, json.dumps(arguments)],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        if done.returncode != 0:
            raise AssertionError(f"the tablet's {action} failed: {done.stderr}")
        return json.loads(done.stdout)


class LaptopHall(RunningHall):
    """`adjudicator hall ARGS` on one laptop: in its namespace, on its data home (no plain-HTTP
    trust page: the tablet here trusts the CA it was given)."""

    def __init__(self, lan: HallLan, laptop: str, home: Path, env: dict, *args: str):
        super().__init__(home, laptop, 0, env)
        self.namespace, self.args = lan.members[laptop], args

    def command(self) -> list[str]:
        return ["ip", "netns", "exec", self.namespace, sys.executable, "-m", "adjudicator",
                "hall", *self.args, "--http-port", "0"]  # fmt: skip


# ---------- what the tablet does, in its namespace (a child process) ----------


def resolve(host: str) -> dict:
    """NAME.local's addresses, asked on the hall's network (a fresh resolver: no cache)."""
    from support.running_hall import resolve_by_mdns

    return {"addresses": resolve_by_mdns(host, timeout_ms=4000)}


def request(address: str, port: int, host: str, cafile: str, method: str, path: str,
            jar: dict | None = None, token: str | None = None, body: dict | None = None,
            code: str | None = None) -> dict:  # fmt: skip
    """One HTTPS request, trusting only `cafile` and checking the certificate names `host`:
    with a kiosk's cookies (`jar`) or token; `code` pairs first (the jar comes back)."""
    from support.running_hall import TlsClient

    client = TlsClient(address, port, host, Path(cafile))
    client.jar.update(jar or {})
    if code:
        status, page = client.pair(code)
        assert status == 200, page
    headers_body = json.dumps(body).encode() if body is not None else None
    if token:
        import http.client
        import socket

        raw = socket.create_connection((address, port), timeout=15)
        tls = client.context.wrap_socket(raw, server_hostname=host)
        connection = http.client.HTTPSConnection(host, port, context=client.context)
        connection.sock = tls
        connection.request(method, path, body=headers_body, headers={
            "Authorization": f"Bearer {token}", "Content-Type": "application/json"})  # fmt: skip
        response = connection.getresponse()
        status, data = response.status, response.read()
        connection.close()
    else:
        kind = "application/json" if body else None
        status, _, data = client.request(method, path, body=headers_body, content_type=kind)
    try:
        parsed = json.loads(data)
    except ValueError:
        parsed = {"raw": data.decode(errors="replace")[:2000]}
    return {"status": status, "body": parsed, "jar": client.jar}


def tablet_main() -> None:
    action, arguments = sys.argv[1], json.loads(sys.argv[2])
    print(json.dumps({"resolve": resolve, "request": request}[action](**arguments)))
