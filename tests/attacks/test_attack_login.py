"""Sign-in and sessions attacked as a player on the hall's Wi-Fi would, against a real server
(gunicorn, two workers): guesses in parallel, from many addresses, with forged headers; and a
staff cookie copied before sign-out. The loopback network gives each client its own address
(127.0.0.2, 127.0.0.3, ...)."""

from __future__ import annotations

import base64
import json
import sqlite3
import threading
import zlib
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest

from support.attacks import (
    DIRECTOR_PASSWORD,
    JUDGE_PASSWORD,
    cheaply_staffed_home,
    module_home,
    signed_in,
    staffed_home,
)
from support.http import Client
from support.servers import PreparedHome, Server, cli

pytestmark = pytest.mark.slow  # real servers (gunicorn) attacked under load

GUESSER = "127.0.0.1"
DIRECTOR_DESK = "127.0.0.2"


def attempts_rows(home: PreparedHome) -> dict[tuple[str, str], int]:
    """The counted sign-in attempts: (address, name) -> count ('' = any name)."""
    with sqlite3.connect(home.path / "journal.sqlite3") as connection:
        rows = connection.execute(
            "SELECT address, name, failures FROM attempts WHERE scope = 'login'"
        ).fetchall()
    connection.close()
    return {(address, name): failures for address, name, failures in rows}


home = module_home("attack-login")
SERVER_WORKERS = 2  # `server` (tests/conftest.py) over this home


@pytest.fixture(scope="module")
def first_hashes(home) -> list:
    with sqlite3.connect(home.path / "journal.sqlite3") as connection:
        rows = connection.execute("SELECT password_hash, name FROM staff").fetchall()
    connection.close()
    return rows


@pytest.fixture(autouse=True)
def clean_slate(home, first_hashes):
    """Each test starts with no attempts counted, nobody signed in, and the first passwords."""
    with sqlite3.connect(home.path / "journal.sqlite3") as connection:
        connection.execute("DELETE FROM attempts")
        connection.execute("DELETE FROM staff_sessions")
        connection.executemany("UPDATE staff SET password_hash = ? WHERE name = ?", first_hashes)
    connection.close()


def test_thirty_parallel_guesses_count_as_thirty_and_the_director_still_signs_in(tmp_path):
    # The policy allows 10 checks: 9 free, and the 10th locks the address out (no timing in it).
    home = staffed_home(tmp_path / "home")
    with Server(home, env={"ADJUDICATOR_LOGIN_FREE_ATTEMPTS": "9"}) as server:
        thirty_at_once(home, server)


def thirty_at_once(home: PreparedHome, server: Server) -> None:
    clients = [Client(server.url, GUESSER) for _ in range(30)]
    tokens = [client.csrf("/director/login") for client in clients]
    start = threading.Barrier(len(clients))
    replies = [None] * len(clients)

    def guess(index: int) -> None:
        start.wait()
        replies[index] = clients[index].post_form(
            "/director/login", {"name": "director", "password": f"guess-{index}"}, tokens[index]
        )

    threads = [threading.Thread(target=guess, args=(i,)) for i in range(len(clients))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    checked = [r for r in replies if "Wrong name or password." in r.body]
    unchecked = [r for r in replies if r not in checked]
    # exactly 10 passwords checked (the 10th locks the address out); 20 refused unchecked
    assert len(checked) == 10, Counter(r.status for r in replies)
    assert Counter(r.status for r in checked) == {401: 9, 429: 1}
    assert all(r.status == 429 and int(r.headers["Retry-After"]) > 0 for r in unchecked)
    assert attempts_rows(home)[(GUESSER, "director")] == 30  # none lost to the race
    # the guessing address is locked out, even with the right password...
    locked = Client(server.url, GUESSER).sign_in("director", DIRECTOR_PASSWORD)
    assert locked.status == 429 and "locked" in locked.body
    assert int(locked.headers["Retry-After"]) > 14 * 60
    # ...but the director, at another address, signs in at once
    director = Client(server.url, DIRECTOR_DESK)
    assert signed_in(director.sign_in("director", DIRECTOR_PASSWORD))
    assert director.get("/director/journal").status == 200


def test_guesses_from_many_addresses_never_lock_the_director_out(home, server):
    def hammer(address: str) -> None:
        client = Client(server.url, address)
        for n in range(12):
            client.sign_in("director", f"wrong-{n}")

    guessers = [f"127.0.0.{n}" for n in range(10, 16)]
    threads = [threading.Thread(target=hammer, args=(a,)) for a in guessers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    rows = attempts_rows(home)
    assert all(rows[(address, "director")] == 12 for address in guessers)
    assert signed_in(Client(server.url, DIRECTOR_DESK).sign_in("director", DIRECTOR_PASSWORD))


def test_forged_forwarded_for_is_ignored_without_a_configured_proxy(home, server):
    guesser = Client(server.url, GUESSER)
    for n in range(12):
        # a different forged address on each try, and the director's own among them
        forged = DIRECTOR_DESK if n % 2 else f"10.9.{n}.1"
        guesser.sign_in("director", f"wrong-{n}", X_Forwarded_For=forged)
    rows = attempts_rows(home)
    assert rows[(GUESSER, "director")] == 12
    assert not any(address in (DIRECTOR_DESK,) or address.startswith("10.") for address, _ in rows)
    assert signed_in(Client(server.url, DIRECTOR_DESK).sign_in("director", DIRECTOR_PASSWORD))


def test_behind_a_trusted_proxy_the_address_it_forwards_is_counted(tmp_path):
    home = cheaply_staffed_home(tmp_path / "home")
    with Server(home, env={"ADJUDICATOR_TRUSTED_PROXIES": "1"}) as server:
        proxy = Client(server.url, GUESSER)  # the test plays the reverse proxy
        for n in range(10):
            proxy.sign_in("director", f"wrong-{n}", X_Forwarded_For="10.1.1.1")
        # the guesser forges an address: the proxy appends the one it saw, which is counted
        forged = proxy.sign_in("director", DIRECTOR_PASSWORD, X_Forwarded_For="10.1.1.2, 10.1.1.1")
        assert forged.status == 429 and "locked" in forged.body
        assert attempts_rows(home)[("10.1.1.1", "director")] == 11
        director = Client(server.url, GUESSER)  # same proxy, another client behind it
        assert signed_in(
            director.sign_in("director", DIRECTOR_PASSWORD, X_Forwarded_For="10.1.1.2")
        )


def test_a_judge_at_the_guessing_address_is_not_locked_out_by_guesses_at_the_director(home, server):
    station = Client(server.url, GUESSER)  # the judges' station, where a player guessed
    for n in range(10):
        station.sign_in("director", f"wrong-{n}")
    assert station.sign_in("director", DIRECTOR_PASSWORD).status == 429
    judge = Client(server.url, GUESSER).sign_in("alice", JUDGE_PASSWORD, "/judge/login")
    assert judge.status == 302 and judge.headers["Location"].endswith("/judge/")


def test_set_password_lifts_every_lock_on_the_director(home, server):
    for address in (GUESSER, DIRECTOR_DESK):
        client = Client(server.url, address)
        for n in range(10):
            client.sign_in("director", f"wrong-{n}")
        assert client.sign_in("director", DIRECTOR_PASSWORD).status == 429
    cli(home.path, "director", "set-password", "--password-stdin", stdin="a-new-director-pw\n")
    assert attempts_rows(home) == {}
    assert signed_in(Client(server.url, DIRECTOR_DESK).sign_in("director", "a-new-director-pw"))


# ---------- sessions ----------


def cookie_contents(value: str) -> dict:
    """What anyone who copies the staff cookie can read in it (no key needed)."""
    payload = value.split(".")[1] if value.startswith(".") else value.split(".")[0]
    data = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
    return json.loads(zlib.decompress(data) if value.startswith(".") else data)


def test_a_cookie_copied_before_sign_out_opens_nothing_after(home, server):
    director = Client(server.url, DIRECTOR_DESK)
    assert signed_in(director.sign_in("director", DIRECTOR_PASSWORD))
    copied = dict(director.jar)
    assert set(cookie_contents(copied["adjudicator_staff"])) <= {"sid", "csrf_token", "_permanent"}
    thief = Client(server.url, GUESSER, jar=dict(copied))
    assert thief.get("/director/journal").status == 200  # a live session is a live session
    token = director.csrf("/director/")
    assert director.post_form("/director/logout", {}, token).status == 302
    for path in ("/director/journal", "/director/", "/director/journal.csv"):
        reply = Client(server.url, GUESSER, jar=dict(copied)).get(path)
        assert reply.status == 302 and "/director/login" in reply.headers["Location"], path


def test_sign_out_everywhere_and_a_new_password_end_every_session(home, server):
    laptop, tablet = Client(server.url, DIRECTOR_DESK), Client(server.url, "127.0.0.3")
    for device in (laptop, tablet):
        assert signed_in(device.sign_in("director", DIRECTOR_PASSWORD))
    token = laptop.csrf("/director/")
    done = laptop.post_form("/director/logout-everywhere", {}, token)
    assert done.status == 302
    assert tablet.get("/director/").status == 302 and laptop.get("/director/").status == 302
    judge = Client(server.url, "127.0.0.4")
    assert judge.sign_in("alice", JUDGE_PASSWORD, "/judge/login").status == 302
    assert judge.get("/judge/").status == 200
    cli(home.path, "judge-account", "set-password", "alice", "--password-stdin", stdin="x" * 12)
    assert judge.get("/judge/").status == 302


def test_a_flood_from_many_addresses_is_told_busy_and_the_kiosks_judge_on(tmp_path):
    """200 wrong passwords at once from 40 addresses (real argon2 hashes): only a few checks
    wait for the CPU, the rest are told at once that sign-in is busy (uncounted: nothing was
    checked), so no server thread is held by a waiting sign-in; the kiosks judge throughout,
    and the director signs in."""
    home = staffed_home(tmp_path / "home")
    with Server(home) as server:
        done = threading.Event()
        kiosks = Counter()

        def kiosk() -> None:
            while not done.is_set():
                kiosks[server.adjudicate(["QI"], timeout=60)[0]] += 1

        def guess(address: str):
            return Client(server.url, address, timeout=120).sign_in("director", "wrong-pw")

        judging = threading.Thread(target=kiosk)
        judging.start()
        try:
            addresses = [f"127.0.1.{n}" for n in range(1, 41) for _ in range(5)]
            with ThreadPoolExecutor(len(addresses)) as pool:
                replies = list(pool.map(guess, addresses))
        finally:
            done.set()
            judging.join(60)
        busy = [r for r in replies if "Sign-in is busy" in r.body]
        assert busy and all(r.status == 429 and r.headers["Retry-After"] == "3" for r in busy)
        assert set(kiosks) == {201} and kiosks[201] >= 3, kiosks
        counted = sum(n for (_, name), n in attempts_rows(home).items() if name == "director")
        assert counted == len(replies) - len(busy)
        for _ in range(10):  # the flood is over: at most a short wait
            reply = Client(server.url, DIRECTOR_DESK).sign_in("director", DIRECTOR_PASSWORD)
            if signed_in(reply):
                break
        assert signed_in(reply)
        assert "Traceback" not in server.read_log()
