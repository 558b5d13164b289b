"""A real PostgreSQL for tests and benchmarks.

`postgres` (session fixture) uses the server named by ADJUDICATOR_TEST_POSTGRES_URL when set
(.ci/run starts one), else starts its own with initdb in a temporary folder, listening on a
loopback port, and stops it at the end. Without PostgreSQL binaries the tests that need it
are skipped, saying why. Each test takes a fresh database from `postgres.new_database()`.

`PostgresServer` is also used directly by the fault tests (which restart their own server)
and by benchmarks/load_kiosk.py.

Usage in a test module: `from .postgres import postgres  # noqa: F401`.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from .servers import free_port

ENV_URL = "ADJUDICATOR_TEST_POSTGRES_URL"
ENV_BIN = "ADJUDICATOR_TEST_POSTGRES_BIN"


def find_bin() -> Path | None:
    """The folder holding initdb, pg_ctl and postgres: $ADJUDICATOR_TEST_POSTGRES_BIN, Debian's
    /usr/lib/postgresql/<newest>/bin, or the PATH."""
    candidates = [os.environ.get(ENV_BIN, "")]
    candidates += sorted(
        glob.glob("/usr/lib/postgresql/*/bin"),
        key=lambda p: int(Path(p).parent.name) if Path(p).parent.name.isdigit() else 0,
        reverse=True,
    )
    which = shutil.which("pg_ctl")
    candidates.append(str(Path(which).parent) if which else "")
    for folder in filter(None, candidates):
        if all((Path(folder) / tool).exists() for tool in ("initdb", "pg_ctl", "postgres")):
            return Path(folder)
    return None


class PostgresServer:
    """A throwaway PostgreSQL cluster: initdb in a temp folder, loopback port, trust auth.

    Run as root, the cluster belongs to the `postgres` system user (PostgreSQL refuses to run
    as root). `durable=False` turns fsync off, for benchmarks that say so; tests keep it on.
    """

    def __init__(self, bin_dir: Path | None = None, port: int | None = None, durable: bool = True):
        self.bin = bin_dir or find_bin()
        if self.bin is None:
            raise RuntimeError("no PostgreSQL binaries (initdb, pg_ctl, postgres) found")
        self.port = port or free_port()
        self.durable = durable
        self.folder = Path(tempfile.mkdtemp(prefix="adjudicator-pg-"))
        self.data = self.folder / "data"
        self.log = self.folder / "postgres.log"
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        self._as_user: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
            self._as_user = ["runuser", "-u", "postgres", "--"]

    def _run(self, *args: str, timeout: float = 120) -> None:
        done = subprocess.run(
            [*self._as_user, *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=self.folder,
        )
        if done.returncode != 0:
            tail = self.log.read_text()[-2000:] if self.log.exists() else ""
            raise RuntimeError(f"{' '.join(args[:2])} failed: {done.stderr or done.stdout}\n{tail}")

    def init(self) -> PostgresServer:
        self._run(
            str(self.bin / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth=trust",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        )
        return self

    def start(self) -> PostgresServer:
        if not self.data.exists():
            self.init()
        options = [
            f"-p {self.port}",
            "-c listen_addresses=127.0.0.1",
            f"-k {self.folder}",
            "-c max_connections=300",
            "-c shared_buffers=64MB",
        ]
        if not self.durable:
            options += ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"]
        self._run(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.log),
            "-o",
            " ".join(options),
            "-w",
            "-t",
            "60",
            "start",
        )
        self.wait_ready()
        return self

    def wait_ready(self, timeout: float = 30) -> None:
        import psycopg

        deadline = time.monotonic() + timeout
        while True:
            try:
                psycopg.connect(self.url, connect_timeout=2).close()
                return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def stop(self, mode: str = "fast") -> None:
        if (self.data / "postmaster.pid").exists():
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def restart(self, mode: str = "fast") -> None:
        self.stop(mode)
        self.start()

    def remove(self) -> None:
        try:
            self.stop("immediate")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> PostgresServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.remove()


def database_url(server_url: str, name: str) -> str:
    """`server_url` with its database name replaced by `name`."""
    parts = urlsplit(server_url)
    return urlunsplit(parts._replace(path="/" + name))


def create_database(server_url: str, prefix: str = "t") -> str:
    """A fresh, empty database on the server; returns its URL."""
    import psycopg

    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    return database_url(server_url, name)


def drop_database(server_url: str, url: str) -> None:
    import psycopg

    name = urlsplit(url).path.lstrip("/")
    with psycopg.connect(server_url, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class Postgres:
    """What the fixture hands out: the server's URL and fresh databases on it."""

    def __init__(self, url: str, server: PostgresServer | None):
        self.url = url
        self.server = server
        self._created: list[str] = []

    def new_database(self) -> str:
        url = create_database(self.url)
        self._created.append(url)
        return url

    def drop_all(self) -> None:
        for url in self._created:
            try:
                drop_database(self.url, url)
            except Exception:  # noqa: BLE001 - the server may already be gone
                pass


def skip_reason() -> str | None:
    """Why PostgreSQL tests cannot run here, or None."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install -e '.[test]')"
    if not os.environ.get(ENV_URL) and find_bin() is None:
        return (
            f"no PostgreSQL: set {ENV_URL} or install the server "
            "(apt-get install postgresql) so initdb and pg_ctl are found"
        )
    return None


@pytest.fixture(scope="session")
def postgres():
    """A running PostgreSQL for the whole session (see the module docstring)."""
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    url = os.environ.get(ENV_URL)
    server = None
    if not url:
        server = PostgresServer().start()
        url = server.url
    handle = Postgres(url, server)
    try:
        yield handle
    finally:
        if server is None:
            handle.drop_all()  # a shared server: leave it as found
        else:
            server.remove()  # ours: the whole cluster goes


@pytest.fixture
def own_postgres():
    """A private PostgreSQL that the test may stop and restart (never the shared one)."""
    if find_bin() is None:
        pytest.skip("no PostgreSQL binaries (initdb, pg_ctl) to start a private server")
    server = PostgresServer().start()
    try:
        yield server
    finally:
        server.remove()
