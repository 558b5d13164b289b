"""The JSON API under /api/v1, and /healthz. The kiosk page uses the same endpoints."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from flask import Blueprint, current_app, jsonify, request

from adjudicator import kiosks, tournaments
from adjudicator.hall import DETAIL_FIELDS as DETAILS
from adjudicator.hall import LexiconUnavailable
from adjudicator.rules import RULES
from kiosk.auth import current_kiosk
from kiosk.errors import ApiError
from kiosk.hall import get_hall
from kiosk.strict_json import JsonRefused

bp = Blueprint("api", __name__)

TOUCH_SECONDS = 60  # last seen: recorded at most once a minute per kiosk


@bp.get("/healthz")
def healthz():
    """200 when the app can judge: the database answers and at least one lexicon opens."""
    hall = get_hall()
    tournaments.list_all(hall.db)
    names = hall.store.names()
    if not names:
        raise ApiError(503, "No lexicon is installed: the director must import one.")
    hall.store.open(names[0])
    return jsonify(ok=True, status=200)


@bp.get("/api/v1/lexicons")
def lexicons():
    return jsonify([m.summary() for m in get_hall().store.manifests()])


@bp.get("/api/v1/tournaments")
def tournament_list():
    return jsonify([t.to_api() for t in tournaments.list_all(get_hall().db)])


@bp.get("/api/v1/kiosk")
def kiosk_status():
    """What a paired kiosk shows at all times: its tournament, lexicon and rule."""
    kiosk = _require_kiosk()
    hall = get_hall()
    _touch(hall, kiosk)
    tournament = tournaments.get(hall.db, kiosk.tournament)
    manifest = hall.store.manifest(tournament.lexicon)
    rule = RULES[tournament.rule]
    return jsonify(
        ok=True,
        kiosk=kiosk.name,
        tournament={"slug": tournament.slug, "title": tournament.title},
        lexicon={
            "name": manifest.name,
            "description": manifest.description,
            "words": manifest.words,
            "fingerprint": tournament.lexicon_fingerprint,
            "short_fingerprint": tournament.lexicon_fingerprint[:12],
            "available": _lexicon_available(hall, tournament),
        },
        rule={"name": rule.name, "title": rule.title},
        verdict_seconds=current_app.config["VERDICT_SECONDS"],
        clear_seconds=current_app.config["CLEAR_SECONDS"],
        request_timeout_seconds=current_app.config["REQUEST_TIMEOUT_SECONDS"],
    )


@bp.post("/api/v1/adjudications")
def adjudicate():
    """Judge the kiosk's challenge; 201 only once the verdict is in the journal."""
    kiosk = _require_kiosk()
    body = _json_body()
    if not isinstance(body, dict):
        raise ApiError(400, 'Send a JSON object such as {"words": ["QI", "ZA"]}.')
    words = body.get("words")
    if not isinstance(words, list):  # one documented shape: "QI ZA" vs ["QI ZA"] is ambiguous
        raise ApiError(400, 'Give the challenged words as "words": a list such as ["QI", "ZA"].')
    unknown = sorted(set(body) - {"words", *DETAILS})
    if unknown:
        raise ApiError(
            400,
            f"Unknown field(s) {', '.join(map(repr, unknown))}: "
            f"send words, and optionally {', '.join(DETAILS)}.",
        )
    entry = get_hall().adjudicate(kiosk, words, **{k: body[k] for k in DETAILS if k in body})
    response = jsonify(entry.to_api())
    response.status_code = 201
    return response


@bp.route("/api/v1/adjudications", methods=["GET", "PUT", "PATCH", "DELETE"])
def adjudications_other_methods():
    raise ApiError(405, "Only POST is allowed here: send the challenged words to judge them.")


@bp.route("/api/<path:rest>", methods=["GET", "POST", "PUT", "PATCH", "DELETE"])
def api_not_found(rest: str):
    raise ApiError(404, f"No such API endpoint: /api/{rest}.")


def _touch(hall, kiosk) -> None:
    """Record that the kiosk was seen now, unless it was within the last minute."""
    seen = kiosk.last_seen_at
    cutoff = datetime.now(UTC) - timedelta(seconds=TOUCH_SECONDS)
    if seen is None or datetime.fromisoformat(seen) < cutoff:
        kiosks.touch(hall.db, kiosk.name)


def _lexicon_available(hall, tournament) -> bool:
    """Whether a challenge could be judged now: the pinned edition, opening intact."""
    try:
        hall.lexicon_for(tournament)
    except LexiconUnavailable:
        return False
    return True


def _json_body():
    """The request's JSON, None if it is not JSON; ApiError if it is JSON the API refuses."""
    if not request.is_json:
        return None
    try:
        return current_app.json.loads(request.get_data())
    except JsonRefused as refused:
        raise ApiError(400, str(refused)) from None
    except ValueError:
        return None


def _require_kiosk():
    kiosk = current_kiosk()
    if kiosk is None:
        raise ApiError(
            401,
            "This device is not a paired kiosk: pair it with the link or code "
            "from the director, or send a valid kiosk token.",
        )
    return kiosk
