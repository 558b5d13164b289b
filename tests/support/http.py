"""A minimal HTTP client for attacks on a real server: its own source address on the loopback
network (127.0.0.2, 127.0.0.3, ... are all this machine), cookies, forms with CSRF tokens, and
any header, spoofed ones included."""

from __future__ import annotations

import http.client
import json
import re
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from urllib.parse import urlencode, urlsplit

CSRF_INPUT = re.compile(r'name="csrf_token" value="([^"]+)"')


@dataclass
class Reply:
    status: int
    headers: http.client.HTTPMessage
    body: str

    def cookies(self) -> list[str]:
        """Every Set-Cookie header, as sent."""
        return self.headers.get_all("Set-Cookie") or []


def send_early_answered(
    connection: http.client.HTTPConnection, method: str, path: str, body, headers: dict
) -> None:
    """Send a request whose answer may come before its body is all sent: a server refusing a
    body too large from its head answers and closes, and the rest of the body then meets a
    broken pipe; the answer is already in this end's buffer, for getresponse() to read."""
    data = body.encode("utf-8") if isinstance(body, str) else body
    named = {name.lower() for name in headers}
    connection.putrequest(method, path, skip_accept_encoding="accept-encoding" in named)
    for name, value in headers.items():
        connection.putheader(name, value)
    if "content-length" not in named and (data is not None or method in ("POST", "PUT")):
        connection.putheader("Content-Length", str(len(data or b"")))
    connection.endheaders()
    if data:
        try:
            connection.sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # answered early: getresponse() reads the answer


@dataclass
class Client:
    """A browser-like client of `base_url` that connects from `source` (a loopback address)."""

    base_url: str
    source: str = "127.0.0.1"
    headers: dict = field(default_factory=dict)
    jar: dict = field(default_factory=dict)
    timeout: float = 30

    def request(self, method: str, path: str, body: bytes | None = None, **headers) -> Reply:
        parts = urlsplit(self.base_url)
        connection = http.client.HTTPConnection(
            parts.hostname, parts.port, timeout=self.timeout, source_address=(self.source, 0)
        )
        sent = {**self.headers, **{k.replace("_", "-"): v for k, v in headers.items()}}
        if self.jar:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.jar.items())
        try:
            send_early_answered(connection, method, path, body, sent)
            response = connection.getresponse()
            reply = Reply(
                response.status, response.headers, response.read().decode(errors="replace")
            )
        finally:
            connection.close()
        for raw in reply.cookies():
            cookie = SimpleCookie()
            cookie.load(raw)
            for name, morsel in cookie.items():
                if morsel["max-age"] == "0" or not morsel.value:
                    self.jar.pop(name, None)
                else:
                    self.jar[name] = morsel.value
        return reply

    def get(self, path: str, **headers) -> Reply:
        return self.request("GET", path, **headers)

    def csrf(self, page: str) -> str:
        """The CSRF token of the form on `page` (starting this client's session)."""
        match = CSRF_INPUT.search(self.get(page).body)
        assert match, f"no CSRF token on {page}"
        return match.group(1)

    def post_form(self, path: str, data: dict, token: str | None = None, **headers) -> Reply:
        """POST a form; with `token`, that CSRF token is sent with it."""
        fields = {**data, **({"csrf_token": token} if token else {})}
        return self.request(
            "POST",
            path,
            body=urlencode(fields).encode(),
            **{"Content-Type": "application/x-www-form-urlencoded", **headers},
        )

    def sign_in(self, name: str, password: str, login: str = "/director/login", **headers):
        """Open the sign-in form, then submit it: the reply to the POST."""
        token = self.csrf(login)
        return self.post_form(login, {"name": name, "password": password}, token, **headers)


def challenge_from(base_url: str, source: str, token: str, words=("QI", "ZA")) -> Reply:
    """A kiosk's challenge (its bearer `token`) sent from `source`, on a new connection."""
    return Client(base_url, source, timeout=60).request(
        "POST",
        "/api/v1/adjudications",
        body=json.dumps({"words": list(words)}).encode(),
        Authorization=f"Bearer {token}",
        Content_Type="application/json",
    )


DIRECTOR_PASSWORD = "director-secret-1"


def signed_in_director(server, home) -> Client:
    """The director of a real server's data home (`support.servers`), signed in over HTTP."""
    from support.servers import cli

    cli(
        home.path,
        "director",
        "set-password",
        "--password-stdin",
        env=home.env,
        stdin=DIRECTOR_PASSWORD + "\n",
    )
    client = Client(server.url)
    token = client.csrf("/director/login")
    reply = client.post_form(
        "/director/login", {"name": "director", "password": DIRECTOR_PASSWORD}, token
    )
    assert reply.status == 302, reply.body[-500:]
    return client
