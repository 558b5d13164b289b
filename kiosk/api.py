"""The JSON API under /api/v1, and /healthz. The kiosk page uses the same endpoints."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from flask import Blueprint, Response, current_app, jsonify, request

from adjudicator.hall import kiosks, tournaments
from adjudicator.hall.hall import OPTIONAL_FIELDS as DETAILS
from adjudicator.hall.network import connection_caps, name_claims
from adjudicator.hall.people.ratelimit import (
    HALL_TABLES,
    RateLimit,
    RecentRequests,
    parse_rate_limit,
)
from adjudicator.record.database import journal_health
from adjudicator.record.database.db import DatabaseUnavailable
from adjudicator.record.journal.receipt_key import signature_ok
from adjudicator.record.proofs import receipts, witnesses
from adjudicator.wording import N_, Phrase
from adjudicator.words.spelling import spell_challenge
from kiosk import conditional, kiosk_poll
from kiosk.auth import current_kiosk, waiting_message
from kiosk.errors import ApiError, error_body
from kiosk.hall import get_hall
from kiosk.i18n import say, say_verdict, speak_as_asked
from kiosk.strict_json import JsonRefused

bp = Blueprint("api", __name__)
_SPELL_LIMITED = N_(
    "This kiosk has asked how words read too often just now: wait a moment, then type on."
)

TOUCH_SECONDS = 60  # last seen: recorded at most once a minute per kiosk
_TOUCH = timedelta(seconds=TOUCH_SECONDS)
SPELL_RATE_LIMIT = "120/minute"  # per kiosk and server process: a kiosk asks once a word or so
# (a kiosk of no table, the whole hall's computer, asks for HALL_TABLES tables: ten times that)


@bp.get("/healthz")
def healthz():
    """200 when the app can judge: the journal is the one opened and writable, the database
    answers, and at least one lexicon opens; `warnings` names any other device answering for
    the hall's name; `connections` counts, by kind, the connections and polls the server
    workers refused or closed to keep room for the kiosks (connection_caps.KINDS). Every
    check runs on every request; the answer is made once per distinct state (and process),
    and one the client holds (its ETag) is a 304."""
    hall = get_hall()
    warnings = tuple(name_claims.warnings_now())  # another device on the hall's name (a stat)
    health = hall.journal_health()
    if not health.ok:
        return _unhealthy(health.message, warnings)
    tournaments.list_all(hall.db)  # the database answers
    names = hall.store.names()
    if not names:
        raise ApiError(503, "No lexicon is installed: the director must import one.")
    hall.store.open(names[0])
    closed = tuple(connection_caps.totals().items())  # what the server workers refused
    state = (health.state, health.copy, health.row, health.copy_summary, warnings, closed)
    tag = conditional.etag(*state)
    if conditional.client_holds(tag):
        return conditional.not_modified(tag)
    if state not in _healthz_bodies:
        if len(_healthz_bodies) >= 64:  # the counts move under an attack: keep a few
            _healthz_bodies.clear()
        body = {**_healthz_body(health, warnings), "connections": dict(closed)}
        _healthz_bodies[state] = current_app.json.dumps(body) + "\n"
    answer = current_app.response_class(_healthz_bodies[state], mimetype="application/json")
    return conditional.tagged(answer, tag)


_healthz_bodies: dict[tuple, str] = {}  # by state: a few, made once each (kept while few)


def _unhealthy(message: str, warnings: tuple):
    """The 503 of a hall that does not judge, with the same `warnings` a judging one gives (a
    laptop held because another judges says which)."""
    body = error_body(503, message)
    if warnings:
        body["warnings"] = list(warnings)
    return jsonify(body), 503


def _healthz_body(health, warnings: tuple) -> dict:
    if health.state == "degraded":  # still judging, on one copy: which, what to do, no paths
        advice = (
            f"Run `adjudicator journal resync`: the {health.copy} is set aside and rebuilt."
            if health.row is not None
            else f"Put the {health.copy}'s disk back and run `adjudicator journal resync`."
        )
        return {
            "ok": True,
            "status": 200,
            "journal": f"degraded: one copy ({health.copy_summary})",
            "advice": advice,
            "warnings": list(warnings),
        }
    return {"ok": True, "status": 200, "journal": "ok", "warnings": list(warnings)}


@bp.get("/api/v1/lexicons")
def lexicons():
    """Every compiled lexicon's summary; the JSON is made once per change of the store."""
    global _lexicons_body
    summaries = get_hall().store.summaries()  # the same list for as long as nothing changed
    if _lexicons_body is None or _lexicons_body[0] is not summaries:
        _lexicons_body = (summaries, current_app.json.dumps(summaries) + "\n")
    return current_app.response_class(_lexicons_body[1], mimetype="application/json")


_lexicons_body: tuple[list, str] | None = None


@bp.get("/api/v1/tournaments")
def tournament_list():
    return jsonify([t.to_api() for t in tournaments.list_all(get_hall().db)])


@bp.route("/api/v1/kiosk", methods=["GET", "POST"])
def kiosk_status():
    """What a paired kiosk shows at all times: its tournament, lexicon and rule, whether the
    journal can record verdicts, and a version of its table's game (`table_game`). A POST may
    carry the kiosk's newest receipt as a witness, `{"witness": receipt}`, checked against the
    journal. A GET that holds the answer's ETag gets a 304, held open with `?wait=N`
    (kiosk_poll); the kiosk is authenticated and recorded as seen all the same."""
    kiosk = _require_kiosk()
    hall = get_hall()
    state = kiosk_poll.shared(hall, kiosk.tournament)
    witnessed = None
    if state.journal_ok:
        _touch(hall, kiosk)
        witnessed = _witness(hall, kiosk)
    tag = kiosk_poll.status_tag(kiosk, state)
    if request.method == "GET" and conditional.client_holds(tag):
        return kiosk_poll.unchanged(kiosk, tag, witnessed)
    return conditional.tagged(jsonify(kiosk_poll.body(kiosk, state)), tag)


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
    hall = get_hall()
    entry = hall.adjudicate(kiosk, words, **{k: body[k] for k in DETAILS if k in body})
    _touch(hall, kiosk)  # a kiosk judging with its API token, never polling, is seen too
    answer = entry.to_api()
    answer["receipt"] = hall.receipt(entry)
    speak_as_asked()  # the kiosk page asks in its own language
    answer["shown"] = say_verdict(entry)
    response = jsonify(answer)
    response.status_code = 201
    return response


@bp.post("/api/v1/kiosk/receipt-qr")
def receipt_qr():
    """The docket's QR code (SVG) of a receipt this kiosk was given, sent back as JSON."""
    kiosk = _require_kiosk()
    hall = get_hall()
    try:
        receipt = receipts.parse(request.get_json(silent=True))
    except receipts.ReceiptError as exc:
        raise ApiError(400, f"Send the receipt from the verdict: {exc}.") from None
    if not signature_ok(receipt, hall.signing_key().public):
        raise ApiError(400, "That receipt's signature does not verify: send it unchanged.")
    if receipt.get("kiosk") != kiosk.name:
        raise ApiError(403, "Only the kiosk that made an adjudication may print its receipt.")
    return Response(receipts.qr_svg(receipt), mimetype="image/svg+xml")


@bp.post("/api/v1/spell")
def spell():
    """How the kiosk's typed words read as tiles: for the players to check before JUDGE.

    Only the tournament's alphabet is used, never its lexicon: the answer is the same whether or
    not a word is valid, and nothing is recorded. Limited per kiosk (SPELL_RATE_LIMIT).
    """
    kiosk = _require_kiosk()
    limiter = _spell_limiter(seated=kiosk.table is not None)
    if limiter is not None and not limiter.allow(kiosk.name):
        limit = limiter.limit
        raise ApiError(
            429,
            f"This kiosk has asked how words read as tiles {limit.count} times in the last "
            f"{limit.describe_period()}: wait a moment, then type on.",
            {"Retry-After": str(limit.seconds)},
            Phrase(_SPELL_LIMITED),
        )
    words = _typed_words()
    hall = get_hall()
    tournament = tournaments.get(hall.db, kiosk.tournament)
    alphabet = hall.store.manifest(tournament.lexicon).get_alphabet()
    spelled = spell_challenge(words, alphabet)
    speak_as_asked()  # the kiosk page asks in its own language
    return jsonify(ok=True, alphabet=alphabet.name, words=[_spelled(word) for word in spelled])


def _spelled(word) -> dict:
    """A spelled word for the kiosk; a problem also as the kiosk says it (`shown_problem`)."""
    answer = word.to_api()
    if word.problem_phrase is not None:
        answer["shown_problem"] = say(word.problem_phrase)
    return answer


@bp.route("/api/v1/adjudications", methods=["GET", "PUT", "PATCH", "DELETE"])
def adjudications_other_methods():
    raise ApiError(405, "Only POST is allowed here: send the challenged words to judge them.")


@bp.route("/api/<path:rest>", methods=["GET", "POST", "PUT", "PATCH", "DELETE"])
def api_not_found(rest: str):
    raise ApiError(404, f"No such API endpoint: /api/{rest}.")


def _touch(hall, kiosk) -> None:
    """Record that the kiosk was seen now, unless it was within the last minute (so a kiosk
    costs one write a minute at most, however often it polls or judges); only where the
    journal records (its status poll, a verdict recorded), never on a hall that waits. A time
    ahead of the clock (a laptop clock set back since) is recorded anew too."""
    seen = kiosk.last_seen_at
    now = datetime.now(UTC)
    recent = seen is not None and timedelta(0) <= now - datetime.fromisoformat(seen) <= _TOUCH
    if not recent:
        try:
            kiosks.touch(hall.db, kiosk.name)
        except DatabaseUnavailable:
            pass  # "last seen" can wait: the status still tells the kiosk what is wrong


def _witness(hall, kiosk) -> tuple[int, str] | None:
    """Check the receipt a kiosk sent with its poll (if any: a POST's `witness`, or a GET's
    X-Kiosk-Witness header, base64url JSON) against the journal; the row it proves, if the
    journal bears it out (a poll held open keeps watching it: kiosk_poll)."""
    if request.method == "POST":
        body = request.get_json(silent=True)
        value = body.get("witness") if isinstance(body, dict) else None
    else:
        value = kiosk_poll.header_witness()
    if value is None:
        return None
    return witnesses.witness(
        hall.db,
        kiosk.name,
        value,
        hall.signing_key().public,
        journal_health.journal_id(hall.db),
    )[1]


SPELL_SHAPE = '{"words": ["chico", "[c][h]at"]}'


def _typed_words() -> list:
    """The list a spelling request sends; ApiError 400 saying what to fix when it is not one."""
    if not request.is_json:
        raise ApiError(
            400, f"Send the typed words as JSON (Content-Type: application/json): {SPELL_SHAPE}."
        )
    try:
        body = current_app.json.loads(request.get_data(cache=True))
    except JsonRefused as exc:  # nested too deeply, or a field given twice
        raise ApiError(400, f"{exc.problem}: send {SPELL_SHAPE}.") from None
    except ValueError:  # not JSON, or not UTF-8
        raise ApiError(400, f"The body is not valid JSON: send {SPELL_SHAPE}.") from None
    if not isinstance(body, dict) or not isinstance(body.get("words"), list):
        raise ApiError(400, f"Send the typed words as a list: {SPELL_SHAPE}.")
    unknown = sorted(set(body) - {"words"})
    if unknown:
        raise ApiError(400, f"Unknown field(s) {', '.join(map(repr, unknown))}: send only words.")
    return body["words"]


def _spell_limiter(seated: bool) -> RecentRequests | None:
    """This process's count of spelling requests per kiosk (None: not limited): a kiosk at a
    table's, or the whole hall's computer's (HALL_TABLES tables' worth)."""
    key = "spell_limiter" if seated else "hall_spell_limiter"
    if key not in current_app.extensions:
        limit = parse_rate_limit(current_app.config.get("SPELL_RATE_LIMIT", SPELL_RATE_LIMIT))
        if limit is not None and not seated:
            limit = RateLimit(limit.count * HALL_TABLES, limit.seconds)
        current_app.extensions[key] = limit and RecentRequests(limit)
    return current_app.extensions[key]


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
        waiting = waiting_message()
        if waiting is not None:  # never the pairing page while the hall waits: 503, and why
            raise ApiError(503, waiting, phrase=Phrase(waiting))
        raise ApiError(
            401,
            "This device is not a paired kiosk: pair it with the link or code "
            "from the director, or send a valid kiosk token.",
        )
    return kiosk
