"""A real `adjudicator hall` for the tests: the process, HTTPS clients that trust only its CA,
NAME.local resolved by mDNS, and a device on the network that claims the hall's name.

Anything here that touches more than loopback takes `netns=`, a namespace of the test's own
network (support.netns): the hall runs in `hall_network.hall`, and the clients, resolvers and
spoofers in `hall_network.devices`. Never run them on the machine's own network."""

from __future__ import annotations

import http.client
import os
import re
import secrets
import signal
import socket
import ssl
import subprocess
import sys
import time
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode

import pytest

from adjudicator.hall.network import lan

from .netns import Namespace, entered

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


def resolve_by_mdns(host: str, netns: Namespace, timeout_ms: int = 3000) -> list[str]:
    """NAME.local's IPv4 addresses, asked by zeroconf's own resolver from `netns`."""
    from zeroconf import AddressResolverIPv4, IPVersion, Zeroconf

    with netns.entered():
        addresses = lan.hall_addresses().addresses
        zc = Zeroconf(interfaces=list(addresses), ip_version=IPVersion.V4Only)
    try:
        resolver = AddressResolverIPv4(host + ".")
        if not resolver.request(zc, timeout_ms):
            return []
        return resolver.parsed_addresses()
    finally:
        zc.close()


class TlsClient:
    """HTTPS to `address`, checking the certificate names `host`, trusting only the hall's CA;
    connecting from `netns` when given (a tablet on the hall's network), else from here."""

    def __init__(
        self, address: str, port: int, host: str, cafile: Path, netns: Namespace | None = None
    ):
        self.address, self.port, self.host, self.netns = address, port, host, netns
        self.context = ssl.create_default_context(cafile=str(cafile))
        self.jar: dict[str, str] = {}

    def request(
        self,
        method: str,
        path: str,
        fields: dict | None = None,
        body: bytes | None = None,
        content_type: str | None = None,
    ):
        """Send one request on a new connection: (status, headers, body bytes). `fields` is
        sent as a form; else `body` as it is, with `content_type`."""
        with entered(self.netns):
            raw = socket.create_connection((self.address, self.port), timeout=15)
        tls = self.context.wrap_socket(raw, server_hostname=self.host)  # verifies name and chain
        connection = http.client.HTTPSConnection(self.host, self.port, context=self.context)
        connection.sock = tls
        headers = {"Host": f"{self.host}:{self.port}"}
        if content_type:
            headers["Content-Type"] = content_type
        if fields is not None:
            body = urlencode(fields).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        if self.jar:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.jar.items())
        try:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            data = response.read()
        finally:
            connection.close()
        for line in response.headers.get_all("Set-Cookie") or []:
            assert "Secure" in line, f"a cookie sent without Secure over the hall's HTTPS: {line}"
            cookie = SimpleCookie()
            cookie.load(line)
            self.jar.update({name: morsel.value for name, morsel in cookie.items()})
        return response.status, response.headers, data

    def csrf(self, path: str) -> str:
        """The CSRF token of the form on `path` (starting this client's session)."""
        status, _, page = self.request("GET", path)
        return CSRF.search(page.decode()).group(1)

    def sign_in(self, name: str, password: str, login: str = "/director/login") -> None:
        """Sign in through the form, as a person would (CSRF token and all)."""
        status, _, page = self.request("GET", login)
        token = CSRF.search(page.decode()).group(1)
        fields = {"name": name, "password": password, "csrf_token": token}
        status, headers, _ = self.request("POST", login, fields)
        assert status == 302 and headers["Location"].endswith("/director/"), status

    def pair(self, code: str) -> tuple[int, str]:
        status, _, page = self.request("GET", "/pair")
        token = CSRF.search(page.decode()).group(1)
        status, headers, page = self.request("POST", "/pair", {"code": code, "csrf_token": token})
        if status == 302:
            status, _, page = self.request("GET", headers["Location"])
        return status, page.decode()


class RunningHall:
    """`adjudicator hall` in its own process group, inside the namespace `netns` (the hall's
    network: it announces NAME.local there); `env` adds settings to its environment;
    `http_port` is its plain-HTTP trust page's (0, none, unless a test asks: halls started side
    by side in one namespace would all want the default 8080; None: the default)."""

    def __init__(
        self,
        home: Path,
        name: str,
        port: int,
        env: dict | None = None,
        http_port: int | None = 0,
        *,
        netns: Namespace,
    ):
        self.home, self.name, self.port, self.extra_env = home, name, port, env or {}
        self.http_port, self.netns = http_port, netns
        self.log = home / f"hall-{port}.log"
        self.errors = home / f"hall-{port}.err"
        self.process: subprocess.Popen | None = None

    def env(self) -> dict:
        return {
            **os.environ,
            "ADJUDICATOR_HOME": str(self.home),
            "ADJUDICATOR_WORKERS": "1",
            **self.extra_env,
        }

    def command(self) -> list[str]:
        """What starts it: `adjudicator hall --name NAME --port PORT [--http-port P]`, inside
        its namespace."""
        argv = [sys.executable, "-m", "adjudicator", "hall", "--name", self.name]
        argv += ["--port", str(self.port)]
        if self.http_port is not None:
            argv += ["--http-port", str(self.http_port)]
        return self.netns.command(*argv)

    def start(self) -> RunningHall:
        self.process = subprocess.Popen(
            self.command(),
            env=self.env(),
            stdout=open(self.log, "wb"),
            stderr=open(self.errors, "wb"),
            start_new_session=True,
        )
        deadline = time.monotonic() + 60
        while "Ctrl-C stops" not in self.output():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.kill()
                raise AssertionError(f"the hall did not start: {self.output()}{self.stderr()}")
            time.sleep(0.2)
        return self

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def stderr(self) -> str:
        return self.errors.read_text(errors="replace")

    def kill(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


def run_cli(
    home: Path, *args: str, cwd: Path | None = None, netns: Namespace | None = None
) -> subprocess.CompletedProcess:
    """`python -m adjudicator ARGS` with ADJUDICATOR_HOME=home, inside `netns` when given."""
    argv = [sys.executable, "-m", "adjudicator", *args]
    return subprocess.run(
        netns.command(*argv) if netns is not None else argv,
        env={**os.environ, "ADJUDICATOR_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
    )


class Spoofer:
    """Another device on the hall's network answering for NAME.local with its own `address`
    (one of `netns`'s, given with `netns.add_address`): python-zeroconf announcing a service of
    its own whose host is NAME.local (the attack: a tablet that asks for NAME.local may get
    `address`). Use as a context manager; it says goodbye."""

    def __init__(self, host: str, address: str, netns: Namespace):
        self.host, self.address, self.netns = host, address, netns
        self.zeroconf = self.info = None

    def __enter__(self) -> Spoofer:
        from zeroconf import IPVersion, ServiceInfo, Zeroconf

        with self.netns.entered():
            self.zeroconf = Zeroconf(interfaces=[self.address], ip_version=IPVersion.V4Only)
        self.info = ServiceInfo(
            "_http._tcp.local.",
            f"spoof-{self.host.split('.')[0]}._http._tcp.local.",
            port=443,
            addresses=[socket.inet_aton(self.address)],
            server=f"{self.host}.",
        )
        self.zeroconf.register_service(self.info)
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.zeroconf.unregister_service(self.info)
        finally:
            self.zeroconf.close()


@pytest.fixture
def hall_name() -> str:
    return f"adj-test-{secrets.token_hex(3)}"
