"""A real `adjudicator hall` for tests and load runs, and an HTTPS client that trusts only the
hall's own CA (and checks the name on its certificate)."""

from __future__ import annotations

import http.client
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import time
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


class TlsClient:
    """HTTPS to `address`, checking the certificate names `host`, trusting only the hall's CA."""

    def __init__(self, address: str, port: int, host: str, cafile: Path):
        self.address, self.port, self.host = address, port, host
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

    def pair(self, code: str) -> tuple[int, str]:
        status, _, page = self.request("GET", "/pair")
        token = CSRF.search(page.decode()).group(1)
        status, headers, page = self.request("POST", "/pair", {"code": code, "csrf_token": token})
        if status == 302:
            status, _, page = self.request("GET", headers["Location"])
        return status, page.decode()


class RunningHall:
    """`adjudicator hall` in its own process group, with its output in files under `home`."""

    def __init__(self, home: Path, name: str, port: int, env: dict | None = None):
        self.home, self.name, self.port, self.extra_env = home, name, port, env or {}
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

    def start(self) -> RunningHall:
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "adjudicator",
                "hall",
                "--name",
                self.name,
                "--port",
                str(self.port),
            ],
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
