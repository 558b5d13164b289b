"""One error handler: JSON `{"ok": false, "status", "error"}` under /api, a plain page elsewhere.

No error carries a verdict, a traceback, or anything about the validity of a word.
"""

from __future__ import annotations

import logging

from flask import Flask, jsonify, render_template, request
from flask_babel import gettext
from werkzeug.exceptions import HTTPException

from adjudicator.errors import AdjudicatorError, ChallengeInputError
from adjudicator.hall.director.journal_review import FilterError
from adjudicator.hall.hall import AlphabetChanged, DetailError, LexiconUnavailable
from adjudicator.hall.kiosks import KioskError
from adjudicator.hall.people.ratelimit import RateLimited
from adjudicator.hall.people.staff import StaffError
from adjudicator.hall.tournaments import TournamentError
from adjudicator.hall.tsh.seating import NotSeated
from adjudicator.judging.corrections.correction_window import (
    ConfirmationNeeded,
    ConfirmationNotOffered,
)
from adjudicator.judging.corrections.second_opinion import SecondOpinionRefused
from adjudicator.judging.corrections.voids import ReissueRefused, VoidRefused
from adjudicator.judging.director_flags import DismissRefused
from adjudicator.judging.game import GameDetailsRequired
from adjudicator.judging.reasons import ReasonRequired
from adjudicator.judging.rules import UnknownRule
from adjudicator.record.copies.takeover import TakenOver
from adjudicator.record.database.db import DatabaseUnavailable
from adjudicator.record.database.journal_health import JournalLost
from adjudicator.record.journal.closings import ClosingRefused, TournamentClosed
from adjudicator.record.journal.hall_beat import PAUSED_MESSAGE, HallPaused
from adjudicator.record.journal.journal_holds import HELD_MESSAGE, JournalHeld
from adjudicator.record.journal.receipt_key import ReceiptKeyError
from adjudicator.record.journal.retries import AttemptError, RetryMismatch
from adjudicator.textcheck import TextError
from adjudicator.wording import N_, Phrase
from kiosk.i18n import say, speak_as_asked

log = logging.getLogger("kiosk")

NOT_JUDGED = N_("NOT JUDGED: the verdict could not be recorded. Try again, or call the director.")
# What the public is told instead of the exception's text (which may name files); a kiosk shows
# the same in its language (`shown_error`: the catalogues have each, marked N_).
_LOST = N_(
    "NOT JUDGED: The journal is not the one this server opened: no verdict can be recorded. "
    "Call the director."
)
PUBLIC_MESSAGES = (
    (JournalLost, Phrase(_LOST)),
    # The hall waits for the director (the stick set is not the journal's, or another laptop
    # took the hall over): the kiosk says so in its language, never "not paired".
    (JournalHeld, Phrase(HELD_MESSAGE)),
    (TakenOver, Phrase(HELD_MESSAGE)),
    (HallPaused, Phrase(PAUSED_MESSAGE)),  # the laptop slept: it looks at the network first
    (DatabaseUnavailable, Phrase(NOT_JUDGED)),
    (
        ReceiptKeyError,
        Phrase(N_("NOT JUDGED: the hall's signing key cannot be used. Call the director.")),
    ),
)
INTERNAL = N_("Internal error: no verdict was given. Call the director.")

# Errors about what was sent are 400 (an unknown tournament or kiosk in a URL, a bad filter, a
# name that lies); any other (the journal, a lexicon, a setting) is 503: not judged.
STATUS_FOR = (
    (ChallengeInputError, 400),
    (DetailError, 400),
    (NotSeated, 400),
    (FilterError, 400),
    (TextError, 400),
    (TournamentError, 400),
    (KioskError, 400),
    (StaffError, 400),
    (SecondOpinionRefused, 400),
    (ConfirmationNeeded, 409),  # the table played on: the director confirms (WESPA 3.10.13)
    (ConfirmationNotOffered, 400),  # given where the rulebook has no such step
    (DismissRefused, 400),
    (UnknownRule, 400),
    (GameDetailsRequired, 400),
    (AttemptError, 400),
    (AlphabetChanged, 409),  # the kiosk's words read in another alphabet: it reads them again
    (RetryMismatch, 409),  # a retry's key, sent with another challenge: it conflicts
    (ReissueRefused, 409),  # a ruling, a second opinion or a later turn: it conflicts
    (VoidRefused, 400),
    (ReasonRequired, 400),
    (RateLimited, 429),
    (TournamentClosed, 409),  # the director closed the event: nothing new is judged for it
    (ClosingRefused, 400),
    (LexiconUnavailable, 503),
    (DatabaseUnavailable, 503),
)


class ApiError(Exception):
    """An error raised by a view with its HTTP status and message."""

    def __init__(
        self, status: int, message: str, headers: dict | None = None, phrase: Phrase | None = None
    ):
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers
        self.phrase = phrase  # the message as a kiosk says it in its language (`shown_error`)


def error_response(
    status: int,
    message: str,
    headers: dict | None = None,
    *,
    advice: str = "",
    link: tuple[str, str] = ("/", N_("Back to the start")),
    shown: str = "",
):
    """The error as JSON (API, health check, JSON requests) or as a page with `advice`, `link`;
    `shown` is the error as a kiosk says it in the language the request asks for."""
    if request.path.startswith("/director"):
        message = for_the_director(message)
    if status == 405:
        headers = (
            {**(headers or {}), "Allow": "POST"} if request.path.startswith("/api/") else headers
        )
    if answers_in_json(request.path) or request.is_json:
        body = error_body(status, f"{message} {advice}".strip())
        if shown:
            body["shown_error"] = shown
        response = jsonify(body)
    else:
        response = render_template(  # a page: in the page's language where the catalogue has it
            "error.html",
            status=status,
            message=gettext(message) if message else message,
            advice=gettext(advice) if advice else "",
            link=(link[0], gettext(link[1])),
        )
    return response, status, headers or {}


def answers_in_json(path: str) -> bool:
    """Whether an error at `path` is answered in JSON: the API's and the health check's."""
    return path.startswith("/api/") or path == "/healthz"


def error_body(status: int, message: str) -> dict:
    """An error as JSON says it: `{"ok": false, "status", "error"}`."""
    return {"ok": False, "status": status, "error": message}


DIRECTOR_INTERNAL = N_(
    "Internal error: the server hit a fault it did not expect, and logged it. The terminal "
    "running `adjudicator hall` or `adjudicator serve` (or `journalctl -u adjudicator-hall`) "
    "shows what went wrong. Reload the page to see what was saved, then try again; if it "
    "happens again, report it with that log."
)


def for_the_director(message: str) -> str:
    """The director is whom everyone else calls: never tell the director to call the director."""
    if "call the director" not in message.lower():
        return message
    for said in ("Call the director.", "call the director.", "call the director"):
        message = message.replace(said, "see the server's log for why.")
    return message


def init_app(app: Flask) -> None:
    @app.errorhandler(ApiError)
    def api_error(exc: ApiError):
        if exc.phrase is not None and request.path.startswith("/api/"):
            speak_as_asked()
            return error_response(exc.status, exc.message, exc.headers, shown=say(exc.phrase))
        return error_response(exc.status, exc.message, exc.headers)

    @app.errorhandler(AdjudicatorError)
    def adjudicator_error(exc: AdjudicatorError):
        status = next((code for kind, code in STATUS_FOR if isinstance(exc, kind)), 503)
        public = next((m for kind, m in PUBLIC_MESSAGES if isinstance(exc, kind)), None)
        message = public.render(_same, None) if public is not None else str(exc)
        if status >= 500:
            log.error("no verdict given: %s: %s", type(exc).__name__, exc)
        headers = {"Retry-After": str(exc.retry_after)} if isinstance(exc, RateLimited) else None
        phrase = public or getattr(exc, "phrase", None)
        if phrase is not None and request.path.startswith("/api/"):
            speak_as_asked()
            return error_response(status, message, headers, shown=say(phrase))
        return error_response(status, message, headers)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        messages = {
            404: N_("Not found."),
            405: N_("That method is not allowed here."),
            413: N_("The request is too large."),
            400: N_('The request could not be read: send JSON such as {"words": ["QI"]}.'),
        }
        return error_response(exc.code or 500, messages.get(exc.code, exc.description or exc.name))

    @app.errorhandler(Exception)
    def unexpected(exc: Exception):
        log.exception("unexpected error; no verdict given")
        if request.path.startswith("/director"):
            return error_response(500, DIRECTOR_INTERNAL, link=("/director/", N_("The overview")))
        if request.path.startswith("/api/"):
            speak_as_asked()
            return error_response(500, INTERNAL, shown=say(Phrase(INTERNAL)))
        return error_response(500, INTERNAL)


def _same(text: str) -> str:
    """English: a message is its own msgid."""
    return text
