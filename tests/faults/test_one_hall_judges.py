"""One hall judges (issue 40), on real servers: a laptop taken over never judges behind the
other's back, whatever its mirror setting says and whatever is deleted or edited on the stick
or in its own data home; a laptop that does not judge writes nothing to the stick; and while a
hall waits for the director its kiosks stay paired (503 saying why, never 401).

Laptop A serves with its journal mirrored to a folder that stands for the USB stick, and seals
the kit there; laptop B takes the hall over (`kit open`) and judges rows 2 and 3. Then A is
started again, every way a director (or a systemd unit, or someone with the stick) could.
"""

from __future__ import annotations

import hashlib
import http.cookiejar
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from support.kit import PASSPHRASE
from support.load import journal_rows
from support.servers import (
    PreparedHome,
    Server,
    cli,
    free_port,
    get,
    post,
    prepare_home,
    run_cli,
)

pytestmark = pytest.mark.slow

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
STARTS = 3  # each way A is started, it is started this many times: every time the same answer


@dataclass
class Takeover:
    """A, the stick (and A's kiosk paired by cookie), after B took the hall over and judged."""

    a: PreparedHome
    stick: Path
    env: dict
    b_install: str
    cookies: http.cookiejar.CookieJar
    b_cookies: http.cookiejar.CookieJar  # the tablet paired again while B served
    b_token: str  # a kiosk B added: A's journal never heard of it


class CookieKiosk:
    """A kiosk paired by the pairing page, as a tablet is: its cookie, nothing else."""

    def __init__(self, jar: http.cookiejar.CookieJar):
        self.jar = jar
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))

    def pair(self, url: str, code: str) -> None:
        page = self.opener.open(url + "/pair", timeout=10).read().decode()
        form = urllib.parse.urlencode({"code": code, "csrf_token": CSRF.search(page).group(1)})
        self.opener.open(url + "/pair", data=form.encode(), timeout=10).read()
        assert any(cookie.name == "kiosk_pairing" for cookie in self.jar), "not paired"

    def page(self, url: str) -> tuple[int, str]:
        try:
            with self.opener.open(url, timeout=10) as answer:
                return answer.status, answer.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    def call(self, url: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            url + path, data=data, headers={"Content-Type": "application/json"}
        )
        try:
            with self.opener.open(request, timeout=10) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")


def stick_files(folder: Path) -> dict[str, str]:
    """Every file under `folder` (SQLite's shared-memory index aside: a reader's, never data),
    by path, with the SHA-256 of its bytes."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.name.endswith("-shm")
    }


def taken_over(tmp_path: Path) -> Takeover:
    stick = tmp_path / "stick"
    stick.mkdir()
    env = {"ADJUDICATOR_JOURNAL_MIRROR": str(stick / "journal.sqlite3")}
    a = prepare_home(tmp_path / "a", env=env)
    sealed = run_cli(a.path, "kit", "seal", str(stick), "--passphrase-stdin", env=env,
                     stdin=PASSPHRASE + "\n")  # fmt: skip
    assert sealed.returncode == 0, sealed.stderr
    jar = http.cookiejar.CookieJar()
    with Server(a, env=env) as server:
        CookieKiosk(jar).pair(server.url, a.pairing_code)  # the tablet, paired on A
        assert server.adjudicate(["QI"])[:1] == (201,)
    opened = run_cli(tmp_path / "b", "kit", "open", str(stick), "--passphrase-stdin", env=env,
                     stdin=PASSPHRASE + "\n")  # fmt: skip
    assert opened.returncode == 0, opened.stderr
    b = PreparedHome(tmp_path / "b", a.token, a.pairing_code, env)
    b_jar = http.cookiejar.CookieJar()
    with Server(b, env=env) as server:
        assert [server.adjudicate(["ZA"])[1]["id"] for _ in range(2)] == [2, 3]
        code = re.search(r"#([A-Z0-9]+)", cli(b.path, "kiosk", "pair", "k1", env=env)).group(1)
        CookieKiosk(b_jar).pair(server.url, code)  # the tablet, paired again on B
        added = cli(b.path, "kiosk", "add", "k9", "--tournament", "hall", env=env)
    b_install = (tmp_path / "b" / "install-id").read_text().strip()
    assert journal_rows(a.path, {}).keys() == {1}
    b_token = added.strip().splitlines()[-1]
    return Takeover(a, stick, env, b_install, jar, b_jar, b_token)


def assert_waits_and_kiosks_stay_paired(server: Server, taken: Takeover, why: str) -> None:
    """A serves but does not judge: /healthz says it waits (naming what is missing), and its
    kiosk, by token and by cookie, is told so in its status and at JUDGE: never 401."""
    health = get(server.url + "/healthz")
    assert health[0] == 503 and "waits for the director" in health[1]["error"], health
    tablet = CookieKiosk(taken.cookies)
    for status, body in (get(server.url + "/api/v1/kiosk", token=taken.a.token),
                         tablet.call(server.url, "/api/v1/kiosk")):  # fmt: skip
        assert status == 200 and body["kiosk"] == "k1", (status, body)
        assert body["journal"]["ok"] is False, body
        assert "Call the director" in body["journal"]["shown_message"], body
    judged = tablet.call(server.url, "/api/v1/adjudications", {"words": ["QI"]})
    for status, body in (post(server.url, taken.a.token, ["QI"]), judged):
        assert status == 503 and "verdict" not in body, (status, body)
        assert "waits for the director" in body["shown_error"], body
    # A kiosk paired again, or added, while B served: A's journal cannot know it, and says it
    # waits, never "not paired" (a 401 would send the tablet to the pairing page).
    stranger = CookieKiosk(taken.b_cookies)
    answers = (
        get(server.url + "/api/v1/kiosk", token=taken.b_token),
        stranger.call(server.url, "/api/v1/kiosk"),
        post(server.url, taken.b_token, ["QI"]),
        stranger.call(server.url, "/api/v1/adjudications", {"words": ["QI"]}),
    )
    for status, body in answers:
        assert status == 503 and "verdict" not in body, (status, body)
        assert "waits for the director" in body["shown_error"], body
    page = stranger.page(server.url + "/")
    assert page[0] == 503 and "waits for the director" in page[1], page
    assert "pairing code" not in page[1].lower()
    assert why in server.read_log(), server.read_log()[-3000:]


def start_refused(taken: Takeover, env: dict) -> str:
    """Start `serve` on A: it must exit 2, naming B by its install id (and its host name);
    what it said. One that serves instead is stopped, and the test fails."""
    port = free_port()
    argv = [sys.executable, "-m", "adjudicator", "serve", "--bind", f"127.0.0.1:{port}"]
    env = {**os.environ, "ADJUDICATOR_HOME": str(taken.a.path), **env}
    process = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, start_new_session=True)  # fmt: skip
    try:
        out, err = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        raise AssertionError(f"A was not refused: it serves. {err[-2000:]}") from None
    assert process.returncode == 2, (out, err)
    assert "THIS HALL WAS TAKEN OVER" in err and "Traceback" not in err, err
    assert f"install {taken.b_install[:8]}" in err, err
    return err


def test_a_taken_over_laptop_away_from_its_stick_waits_and_its_kiosks_stay_paired(tmp_path):
    """A restarted after the takeover with its stick away (the systemd unit brings it back by
    itself): the stick absent, the mirror unset, the mirror at another path, and files deleted
    in A's own data home (its side files, its install id). Every time: it serves, does not
    judge, says what is missing, its kiosks are told so (never 401), and nothing is written to
    the stick or to the other path."""
    taken = taken_over(tmp_path)
    away = tmp_path / "stick-away"
    taken.stick.rename(away)
    before = stick_files(away)
    other = tmp_path / "another-folder"
    other.mkdir()
    ways = [
        ("stick absent", taken.env, "is missing: this journal was written to it"),
        ("mirror unset", {"ADJUDICATOR_JOURNAL_MIRROR": ""}, "MIRROR is not set"),
        ("mirror at another path", {"ADJUDICATOR_JOURNAL_MIRROR": str(other / "journal.sqlite3")},
         "which is not this journal's mirror"),
    ]  # fmt: skip
    for name, env, why in ways:
        for _ in range(STARTS):
            server = Server(taken.a, env=env).start(judging=False)
            try:
                assert_waits_and_kiosks_stay_paired(server, taken, why)
            finally:
                server.stop()
        assert journal_rows(taken.a.path, {}).keys() == {1}, name
    # What A's own data home keeps beside its journal, deleted: the journal itself remembers.
    for side in taken.a.path.glob("journal.sqlite3.*"):
        side.unlink()
    (taken.a.path / "install-id").unlink()
    server = Server(taken.a, env={"ADJUDICATOR_JOURNAL_MIRROR": ""}).start(judging=False)
    try:
        assert_waits_and_kiosks_stay_paired(server, taken, "ADJUDICATOR_JOURNAL_MIRROR is not set")
    finally:
        server.stop()
    assert journal_rows(taken.a.path, {}).keys() == {1}
    assert stick_files(away) == before  # not a byte on the stick
    assert list(other.iterdir()) == []  # nothing made at the other path either


def edit_statement(stick: Path, install: str) -> None:
    """The takeover statement, beside the stick's copy and inside it, claims another laptop."""
    side = stick / "journal.sqlite3.takeover"
    body = json.loads(side.read_text())
    side.write_text(json.dumps({**body, "install": install}))
    with sqlite3.connect(stick / "journal.sqlite3") as connection:
        for seq, text in connection.execute(
            "SELECT seq, statement FROM journal_takeovers"
        ).fetchall():
            edited = json.dumps({**json.loads(text), "install": install})
            connection.execute("UPDATE journal_takeovers SET statement = ? WHERE seq = ?",
                               (edited, seq))  # fmt: skip
    connection.close()


def delete_statement(stick: Path) -> None:
    """The takeover statement, deleted beside the stick's copy and inside it."""
    (stick / "journal.sqlite3.takeover").unlink()
    with sqlite3.connect(stick / "journal.sqlite3") as connection:
        connection.execute("DELETE FROM journal_takeovers")
    connection.close()


@pytest.mark.parametrize("statement", ["deleted", "edited"])
def test_the_stick_back_in_a_with_its_takeover_statement_gone_a_does_not_judge(tmp_path, statement):
    """The stick goes back to A with the takeover statement deleted, or edited to name A: B's
    rows 2 and 3 say by themselves who wrote them. A, started with the mirror set, unset, or at
    the path the stick is mounted at now, refuses to start every time, naming B; and writes
    not one byte to the stick."""
    taken = taken_over(tmp_path)
    a_install = (taken.a.path / "install-id").read_text().strip()
    if statement == "deleted":
        delete_statement(taken.stick)
    else:
        edit_statement(taken.stick, a_install)
    before = stick_files(taken.stick)
    mounted = tmp_path / "media" / "usb1"  # the same stick, mounted elsewhere
    for env in (taken.env, {"ADJUDICATOR_JOURNAL_MIRROR": ""}):
        for _ in range(STARTS):
            said = start_refused(taken, env)
            assert "row 2 was written by another laptop" in said, said
        assert stick_files(taken.stick) == before
    mounted.parent.mkdir()
    shutil.move(taken.stick, mounted)
    for _ in range(STARTS):
        start_refused(taken, {"ADJUDICATOR_JOURNAL_MIRROR": str(mounted / "journal.sqlite3")})
    assert stick_files(mounted) == before
    assert journal_rows(taken.a.path, {}).keys() == {1}
    there = {"ADJUDICATOR_JOURNAL_MIRROR": str(mounted / "journal.sqlite3")}
    status = run_cli(taken.a.path, "journal", "status", env=there)
    assert "Journal: TAKEN OVER" in status.stdout, status.stdout
    alone = run_cli(taken.a.path, "journal", "confirm-alone", "--reason", "lost", env=there)
    assert alone.returncode == 2 and "THIS HALL WAS TAKEN OVER" in alone.stderr, alone.stderr
    assert stick_files(mounted) == before


def test_a_laptop_whose_stick_is_mounted_elsewhere_judges_on_it(tmp_path):
    """The journal knows its mirror by identity, not by path: the same stick mounted at another
    path is the mirror, and the hall judges on both copies; a copy of the laptop's own journal
    put at the mirror's path is not, and the hall waits."""
    stick = tmp_path / "stick"
    stick.mkdir()
    env = {"ADJUDICATOR_JOURNAL_MIRROR": str(stick / "journal.sqlite3")}
    a = prepare_home(tmp_path / "a", env=env)
    with Server(a, env=env) as server:
        assert server.adjudicate(["QI"])[1]["id"] == 1
    mounted = tmp_path / "media" / "usb1"
    mounted.parent.mkdir()
    shutil.move(stick, mounted)
    elsewhere = {"ADJUDICATOR_JOURNAL_MIRROR": str(mounted / "journal.sqlite3")}
    with Server(a, env=elsewhere) as server:
        assert server.adjudicate(["ZA"])[1]["id"] == 2
    assert journal_rows(a.path, {}).keys() == {1, 2}
    assert journal_rows(
        a.path, {"ADJUDICATOR_DATABASE_URL": str(mounted / "journal.sqlite3")}
    ).keys() == {1, 2}

    copied = tmp_path / "copied"  # the laptop's own journal, copied where a stick would be
    copied.mkdir()
    shutil.copyfile(a.path / "journal.sqlite3", copied / "journal.sqlite3")
    before = stick_files(copied)
    there = {"ADJUDICATOR_JOURNAL_MIRROR": str(copied / "journal.sqlite3")}
    server = Server(a, env=there)
    server.start(judging=False)
    try:
        health = get(server.url + "/healthz")
        assert health[0] == 503 and "waits for the director" in health[1]["error"], health
        assert "is another copy" in server.read_log(), server.read_log()[-2000:]
        assert server.adjudicate(["QI"])[0] == 503
    finally:
        server.stop()
    status = run_cli(a.path, "journal", "status", env=there)
    assert status.returncode == 1 and "HELD" in status.stdout, status.stdout
    assert "not this journal's mirror" in status.stdout
    assert stick_files(copied) == before


def test_a_laptop_that_waits_writes_no_kit_refresh_to_the_stick(tmp_path):
    """The stick is in, but the hall was started without the mirror set: it waits, and its kit
    refresh (which would seal the hall's changed record to the stick) writes nothing there;
    started with the mirror set, the same refresh brings the kit up to date."""
    stick = tmp_path / "stick"
    stick.mkdir()
    env = {"ADJUDICATOR_JOURNAL_MIRROR": str(stick / "journal.sqlite3")}
    a = prepare_home(tmp_path / "a", env=env)
    sealed = run_cli(a.path, "kit", "seal", str(stick), "--passphrase-stdin", env=env,
                     stdin=PASSPHRASE + "\n")  # fmt: skip
    assert sealed.returncode == 0, sealed.stderr
    with Server(a, env=env) as server:
        assert server.adjudicate(["QI"])[0] == 201
    record = a.path / "hall" / "hall.json"
    record.parent.mkdir(exist_ok=True)
    record.write_text(json.dumps({"url": "https://spring.local:8443", "name": "spring",
                                  "port": 8443, "addresses": [], "mdns": True}))  # fmt: skip
    before = stick_files(stick)
    server = Server(a, env={"ADJUDICATOR_JOURNAL_MIRROR": ""}).start(judging=False)
    try:
        assert get(server.url + "/healthz")[0] == 503
    finally:
        server.stop()
    assert stick_files(stick) == before
    item = "hall-kit/items/hall.json"
    with Server(a, env=env) as server:
        assert server.adjudicate(["ZA"])[1]["id"] == 2
    assert stick_files(stick).get(item) not in (None, before.get(item))  # sealed now
