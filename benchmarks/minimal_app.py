"""The floor for an HTTP adjudication: a minimal Flask app with the same route, reading the same
JSON body and answering 201 with a small JSON object, served by the same gunicorn settings."""

from __future__ import annotations

from flask import Flask, jsonify, request

app = Flask(__name__)


@app.post("/api/v1/adjudications")
def adjudicate():
    body = request.get_json(silent=True) or {}
    response = jsonify(ok=True, words=body.get("words"))
    response.status_code = 201
    return response


STATUS = (  # about the size of a kiosk's status: the floor of a status poll (load_polls.py)
    b'{"ok": true, "kiosk": "kiosk-1", "tournament": {"slug": "hall", "title": "Test Hall"}, '
    + b'"padding": "'
    + b"x" * 1200
    + b'"}\n'
)


@app.get("/api/v1/kiosk")
def status():
    return app.response_class(STATUS, mimetype="application/json")
