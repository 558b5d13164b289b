"""Requests with a NUL character in the path, the query or a form field are refused (400)
before any view runs: no name, code, id or filter holds one, and PostgreSQL cannot store or
even compare text that does (it would answer an error that looks like the journal failing)."""

from __future__ import annotations

from flask import Flask, request

from kiosk.errors import error_response

MESSAGE = "The request holds a NUL character (U+0000): send the text again without it."
# The bodies Werkzeug reads as form fields; any other (a kiosk's JSON) has none, so it is not
# parsed for them (asking `request.form` of a JSON request builds an empty one, per request),
# nor is an empty query string.
FORMS = frozenset({"application/x-www-form-urlencoded", "multipart/form-data"})


def _holds_nul() -> bool:
    if "\x00" in request.path:
        return True
    sent = [request.args] if request.query_string else []
    if request.mimetype in FORMS:
        sent.append(request.form)
    for fields in sent:
        for key, value in fields.items(multi=True):
            if "\x00" in key or "\x00" in value:
                return True
    return False


def init_app(app: Flask) -> None:
    """Register the check; after staff_web's, so an anonymous upload is refused unread first."""

    @app.before_request
    def refuse_nul():
        if _holds_nul():
            return error_response(400, MESSAGE)
        return None
