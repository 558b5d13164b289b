"""Real servers for tests and load runs: a data home with a tiny lexicon, a tournament and a
kiosk, and `adjudicator serve` (gunicorn) started as its own process group on a free port."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet

if TYPE_CHECKING:
    from .netns import Namespace

SERVER_WORDS = ("AA", "AB", "QI", "ZA", "JO", "XI", "CAT", "DOG", "FOX", "ZEBRA", "QUIXOTIC")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


NOBODY = 65534  # the unprivileged user the read-only tests run as


def as_nobody_argv(*argv: str) -> list[str]:
    """`argv` run as NOBODY: it may read and search anything (the Python under /root), and
    never write past the files' permissions."""
    return [
        "setpriv",
        f"--reuid={NOBODY}",
        f"--regid={NOBODY}",
        "--clear-groups",
        "--inh-caps=-all,+dac_read_search",
        "--ambient-caps=+dac_read_search",
        *argv,
    ]


def run_cli(
    home: Path,
    *args: str,
    env: dict | None = None,
    stdin: str | None = None,
    netns: Namespace | None = None,
) -> subprocess.CompletedProcess:
    """Run `python -m adjudicator ARGS` with ADJUDICATOR_HOME=home (inside the network namespace
    `netns`, if given: support.netns): its exit code and output."""
    argv = [sys.executable, "-m", "adjudicator", *args]
    return subprocess.run(
        netns.command(*argv) if netns is not None else argv,
        env={**os.environ, "ADJUDICATOR_HOME": str(home), **(env or {})},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def cli(home: Path, *args: str, env: dict | None = None, stdin: str | None = None) -> str:
    """Run `python -m adjudicator ARGS` with ADJUDICATOR_HOME=home; return stdout, fail loudly."""
    done = run_cli(home, *args, env=env, stdin=stdin)
    if done.returncode != 0:
        raise RuntimeError(f"adjudicator {' '.join(args)} failed: {done.stderr}")
    return done.stdout


@dataclass
class PreparedHome:
    """A data home; Server needs only its `path` and `env` (and `token` to adjudicate)."""

    path: Path
    token: str
    pairing_code: str
    env: dict = field(default_factory=dict)


def prepare_home(
    path: Path, words=SERVER_WORDS, rule: str = "double", env: dict | None = None
) -> PreparedHome:
    """A data home with lexicon TINY, tournament `hall`, and kiosk `k1` (token, pairing code)."""
    path.mkdir(parents=True, exist_ok=True)
    LexiconStore(root=path / "lexicons").save(
        "TINY", WordSet.of(words), description="tiny test lexicon"
    )
    cli(
        path,
        "tournament",
        "create",
        "hall",
        "--lexicon",
        "TINY",
        "--rule",
        rule,
        "--title",
        "Test Hall",
        env=env,
    )
    out = cli(path, "kiosk", "add", "k1", "--tournament", "hall", env=env)
    code = re.search(r"/pair(?:\?lang=[a-z]+)?#([A-Z0-9]+)", out).group(1)
    return PreparedHome(path, out.strip().splitlines()[-1], code, env or {})


class Server:
    """`adjudicator serve` in its own process group; `kill()` sends SIGKILL to all of it."""

    def __init__(
        self,
        home: PreparedHome,
        workers: int = 2,
        env: dict | None = None,
        port: int | None = None,
        tls: tuple[Path, Path] | None = None,
    ):
        self.home = home
        self.port = port or free_port()
        self.tls = tls  # (certfile, keyfile): `serve` over HTTPS
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{self.port}"
        self.log_path = home.path / f"serve-{self.port}.log"
        self.env = {
            **os.environ,
            "ADJUDICATOR_HOME": str(home.path),
            "ADJUDICATOR_KIOSK_RATE_LIMIT": "off",
            **home.env,
            **(env or {}),
        }
        self.workers = workers
        self.process: subprocess.Popen | None = None

    def command(self) -> list[str]:
        """What starts the server: `adjudicator serve` on this port."""
        tls = ["--certfile", str(self.tls[0]), "--keyfile", str(self.tls[1])] if self.tls else []
        return [
            sys.executable,
            "-m",
            "adjudicator",
            "serve",
            "--bind",
            f"127.0.0.1:{self.port}",
            "--workers",
            str(self.workers),
            *tls,
        ]

    def start(self, timeout: float = 20, judging: bool = True, poll: float = 0.1) -> Server:
        """Start it and wait until /healthz says it judges (or, `judging` False, until it
        answers at all: a hall that serves 503 on purpose), asking every `poll` seconds."""
        log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            self.command(),
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited: {self.log_path.read_text()[-2000:]}")
            if self.is_up() if judging else self.answers():
                return self
            time.sleep(poll)
        self.kill()
        raise RuntimeError(
            f"server did not answer in {timeout} s: {self.log_path.read_text()[-2000:]}"
        )

    def is_up(self) -> bool:
        """Whether the server is up: /healthz answers 200 (judging)."""
        unchecked = ssl._create_unverified_context() if self.tls else None  # up, not trusted
        try:
            with urllib.request.urlopen(
                self.url + "/healthz", timeout=1, context=unchecked
            ) as response:
                return response.status == 200
        except OSError:
            return False

    def answers(self) -> bool:
        """Whether /healthz answers at all (200, or 503 saying why it does not judge)."""
        return get(self.url + "/healthz", timeout=1)[0] is not None

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.process and self.process.poll() is None:
            try:
                os.killpg(self.process.pid, sig)
            except ProcessLookupError:
                pass
            self.process.wait(timeout=10)

    def stop(self) -> None:
        """SIGTERM to gunicorn and its workers; SIGKILL if they have not gone in 10 s."""
        try:
            self.kill(signal.SIGTERM)
        except subprocess.TimeoutExpired:
            self.kill()

    def read_log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def __enter__(self) -> Server:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.kill()

    def adjudicate(self, words, timeout: float = 10, **details) -> tuple[int | None, dict]:
        """POST a challenge with the kiosk's token: (status, JSON body); status None when
        no HTTP answer came back (connection refused or cut)."""
        return post(self.url, self.home.token, words, timeout, **details)


class StoppedServer(Server):
    """A server that is up once /healthz answers at all (it may answer 503: not judging)."""

    def is_up(self) -> bool:
        return get(self.url + "/healthz", timeout=1)[0] is not None


def post(url: str, token: str, words, timeout: float = 10, **details) -> tuple[int | None, dict]:
    """POST one challenge; (status, JSON body), or (None, {"error": ...}) with no HTTP answer."""
    request = urllib.request.Request(
        url + "/api/v1/adjudications",
        data=json.dumps({"words": list(words), **details}).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        raw = error.read() or b"{}"
        try:
            return error.code, json.loads(raw)
        except ValueError:
            return error.code, {"raw": raw.decode(errors="replace")}
    except (OSError, http.client.HTTPException) as error:  # refused, reset, cut mid-answer
        return None, {"error": repr(error)}


def get(url: str, token: str | None = None, timeout: float = 10) -> tuple[int | None, dict]:
    """GET a JSON endpoint (with a kiosk's token if given): (status, body)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")
    except (OSError, http.client.HTTPException) as error:
        return None, {"error": repr(error)}
