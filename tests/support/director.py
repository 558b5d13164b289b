"""Helpers for the staff pages' tests: staff accounts, signed-in clients, CSRF tokens.

Passwords are hashed with cheap argon2 parameters here (the real ones take ~0.25 s a login).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from argon2 import PasswordHasher
from flask import Flask
from flask.testing import FlaskClient

from adjudicator.hall import kiosks
from adjudicator.hall.people import staff
from adjudicator.judging import outcomes
from adjudicator.judging.corrections import second_opinion
from adjudicator.record.journal import journal

from .hall import CSRF_INPUT, Setup, build_setup, make_app, pair_browser

DIRECTOR_PASSWORD = "director-secret-1"
JUDGE = "alice"
JUDGE_PASSWORD = "alice-secret-12"
OTHER_JUDGE = "bob"


@pytest.fixture
def fast_hashes(monkeypatch: pytest.MonkeyPatch):
    """Cheap password hashes for the staff (a module asks: usefixtures("fast_hashes"))."""
    monkeypatch.setattr(
        staff, "HASHER", PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
    )


@dataclass
class Staffed:
    setup: Setup
    app: Flask

    @property
    def db(self):
        return self.setup.hall.db

    @property
    def store(self):
        return self.setup.store

    def client(self) -> FlaskClient:
        return self.app.test_client()

    def director(self) -> FlaskClient:
        return signed_in(self.client(), "director", DIRECTOR_PASSWORD, "/director/login")

    def judge(self, name: str = JUDGE) -> FlaskClient:
        password = JUDGE_PASSWORD if name == JUDGE else name + "-secret-12"
        return signed_in(self.client(), name, password, "/judge/login")

    def kiosk_browser(self, enrolment: kiosks.Enrolment | None = None) -> FlaskClient:
        return pair_browser(self.app, enrolment or self.setup.nwl)

    def challenge(self, words, enrolment: kiosks.Enrolment | None = None, **details):
        """A challenge from a kiosk (default: the NWL kiosk) through the hall: its journal entry."""
        kiosk = kiosks.get(self.db, (enrolment or self.setup.nwl).kiosk.name)
        return self.setup.hall.adjudicate(kiosk, words, **details)


def outcome(staffed: Staffed, entry_id: int) -> outcomes.Outcome:
    """The journal row's outcome as it stands, after every later ruling and void."""
    ((_, found),) = outcomes.with_outcomes(staffed.db, [journal.get(staffed.db, entry_id)])
    return found


def give_opinion(staffed: Staffed, entry_id: int, words, judge: str = JUDGE, **details):
    """A second opinion on the row by `judge` at the judge's station (second_opinion.give)."""
    return second_opinion.give(
        staffed.db, staffed.store, entry_id, words, actor=judge, station=f"judge:{judge}", **details
    )


def build_staffed(tmp_path: Path, **config) -> Staffed:
    setup = build_setup(tmp_path)
    staff.set_director_password(setup.hall.db, DIRECTOR_PASSWORD)
    staff.add_judge(setup.hall.db, JUDGE, JUDGE_PASSWORD)
    staff.add_judge(setup.hall.db, OTHER_JUDGE, OTHER_JUDGE + "-secret-12")
    return Staffed(setup, make_app(setup.hall, **config))


def csrf_token(client: FlaskClient, path: str = "/director/login") -> str:
    """The CSRF token of this client's session, read from a page's form."""
    page = client.get(path).get_data(as_text=True)
    match = CSRF_INPUT.search(page)
    assert match, f"no CSRF token on {path}"
    return match.group(1)


def signed_in(client: FlaskClient, name: str, password: str, login_path: str) -> FlaskClient:
    response = login(client, name, password, login_path)
    assert response.status_code == 302, response.get_data(as_text=True)
    return client


def login(
    client: FlaskClient, name: str, password: str, login_path: str = "/director/login", **environ
):
    token = csrf_token(client, login_path)
    return client.post(
        login_path,
        data={"name": name, "password": password, "csrf_token": token},
        environ_base=environ,
    )


def post_form(
    client: FlaskClient, path: str, data: dict | None = None, page: str = "/director/", **kwargs
):
    """POST a form with this session's CSRF token (read from `page`)."""
    return client.post(
        path, data={**(data or {}), "csrf_token": csrf_token(client, page)}, **kwargs
    )


def page_after(
    client: FlaskClient, path: str, data: dict | None = None, page: str = "/director/"
) -> str:
    """POST a form as post_form does, follow the redirect, and return the page it shows."""
    return post_form(client, path, data, page, follow_redirects=True).get_data(as_text=True)


def press(client: FlaskClient, page: str, action: str, data: dict | None = None) -> str:
    """Open `page`, check it offers the form that posts to `action`, submit that form with
    `data`, and return the page shown after the redirect."""
    assert f'action="{action}"' in client.get(page).get_data(as_text=True)
    return page_after(client, action, data, page)


def ruling(run, adjudication, verdict: str, reason: str, *words: str, flags: tuple = ()):
    """`adjudicator ruling ID --verdict V --reason R [FLAGS] --words W...` through `run`."""
    words_args = ("--words", *words) if words else ()
    return run(
        "ruling", str(adjudication), "--verdict", verdict, "--reason", reason, *flags, *words_args
    )


def upload_list(client: FlaskClient, body: bytes, name: str = "NEW", **extra):
    """Upload a word list on the director's Lexicons page (`extra`: more form fields)."""
    from io import BytesIO

    data = {"file": (BytesIO(body), "words.txt"), "name": name, "format": "auto", **extra}
    return post_form(
        client,
        "/director/lexicons/import",
        data,
        page="/director/lexicons",
        content_type="multipart/form-data",
    )
