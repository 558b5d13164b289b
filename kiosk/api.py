"""The JSON API under /api/v1, and /healthz. The kiosk page uses the same endpoints."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from flask import Blueprint, Response, current_app, jsonify, request

from adjudicator.hall import kiosks, name_claims, tournaments
from adjudicator.hall.hall import OPTIONAL_FIELDS as DETAILS
from adjudicator.hall.hall import LexiconUnavailable
from adjudicator.hall.ratelimit import RecentRequests, parse_rate_limit
from adjudicator.hall.tsh import links
from adjudicator.judging.rulebooks import get_rulebook
from adjudicator.judging.rules import get_rule
from adjudicator.record import journal_health, receipts, witnesses
from adjudicator.record.db import DatabaseUnavailable
from adjudicator.record.receipt_key import signature_ok
from adjudicator.wording import N_, Phrase
from adjudicator.words.spelling import spell_challenge
from kiosk.auth import current_kiosk
from kiosk.errors import ApiError
from kiosk.hall import get_hall
from kiosk.i18n import (
    say,
    say_alphabet,
    say_description,
    say_rule,
    say_verdict,
    speak,
    speak_as_asked,
)
from kiosk.strict_json import JsonRefused

bp = Blueprint("api", __name__)
_SPELL_LIMITED = N_(
    "This kiosk has asked how words read too often just now: wait a moment, then type on."
)

TOUCH_SECONDS = 60  # last seen: recorded at most once a minute per kiosk
SPELL_RATE_LIMIT = "120/minute"  # per kiosk and server process: a kiosk asks once a word or so


@bp.get("/healthz")
def healthz():
    """200 when the app can judge: the journal is the one opened and writable, the database
    answers, and at least one lexicon opens; `warnings` names any other device answering for
    the hall's name."""
    hall = get_hall()
    health = hall.journal_health()
    if not health.ok:
        raise ApiError(503, health.message)
    tournaments.list_all(hall.db)
    names = hall.store.names()
    if not names:
        raise ApiError(503, "No lexicon is installed: the director must import one.")
    hall.store.open(names[0])
    claims = name_claims.current()  # another device answering for the hall's name (a stat)
    warnings = claims.warnings() if claims is not None else []
    if health.state == "degraded":  # still judging, on one copy: which, what to do, no paths
        advice = (
            f"Run `adjudicator journal resync`: the {health.copy} is set aside and rebuilt."
            if health.row is not None
            else f"Put the {health.copy}'s disk back and run `adjudicator journal resync`."
        )
        return jsonify(
            ok=True,
            status=200,
            journal=f"degraded: one copy ({health.copy_summary})",
            advice=advice,
            warnings=warnings,
        )
    return jsonify(ok=True, status=200, journal="ok", warnings=warnings)


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
    """What a paired kiosk shows at all times: its tournament, lexicon and rule, and whether
    the journal can record verdicts. A POST may carry the kiosk's newest receipt as a witness,
    `{"witness": receipt}`, checked against the journal."""
    kiosk = _require_kiosk()
    hall = get_hall()
    health = hall.journal_health()
    if health.ok:
        _touch(hall, kiosk)
        _witness(hall, kiosk)
    tournament = tournaments.get(hall.db, kiosk.tournament)
    manifest = hall.store.manifest(tournament.lexicon)
    rule = get_rule(tournament.rule)
    speak(tournament.language)
    alphabet = manifest.get_alphabet()
    return jsonify(
        ok=True,
        kiosk=kiosk.name,
        table=kiosk.table,  # the kiosk's own table (None: it has none)
        tournament={
            "slug": tournament.slug,
            "title": tournament.title,
            "language": tournament.language,
            # the kiosk asks for its game (/api/v1/table) only where TSH pairs its tournament
            "tsh_linked": links.get(hall.db, tournament.slug) is not None,
        },
        lexicon={
            "name": manifest.name,
            "description": manifest.description,
            # in the tournament's language, or "" where there is no translation of it
            "shown_description": say_description(manifest.description),
            "words": manifest.words,
            "fingerprint": tournament.lexicon_fingerprint,
            "short_fingerprint": tournament.lexicon_fingerprint[:12],
            "available": _lexicon_available(hall, tournament),
            # its name in the tournament's language too (`shown_title`: "català")
            "alphabet": {**alphabet.summary(), "shown_title": say_alphabet(alphabet)},
        },
        rule={
            "name": rule.name,
            "title": rule.title,
            "shown_title": say_rule(rule),  # in the tournament's language
            # the kiosk then asks for round, table and challenger (WESPA 3.10.15(c))
            "needs_game": rule.counts_earlier_challenges,
            # the kiosk then asks whether the challenged play went out (school rule 12)
            "asks_final_play": get_rulebook(tournament.rulebook).final_play_free,
        },
        rulebook=tournament.rulebook,
        journal=_journal(health),
        verdict_seconds=current_app.config["VERDICT_SECONDS"],
        clear_seconds=current_app.config["CLEAR_SECONDS"],
        request_timeout_seconds=current_app.config["REQUEST_TIMEOUT_SECONDS"],
    )


def _journal(health) -> dict:
    """The journal's health as the API gives it, with its message as the kiosk shows it in the
    tournament's language (`shown_message`; the English `message` is unchanged)."""
    answer = health.to_api()
    if answer["message"]:
        answer["shown_message"] = say(Phrase(answer["message"]))
    return answer


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
    limiter = _spell_limiter()
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
    """Record that the kiosk was seen now, unless it was within the last minute."""
    seen = kiosk.last_seen_at
    cutoff = datetime.now(UTC) - timedelta(seconds=TOUCH_SECONDS)
    if seen is None or datetime.fromisoformat(seen) < cutoff:
        try:
            kiosks.touch(hall.db, kiosk.name)
        except DatabaseUnavailable:
            pass  # "last seen" can wait: the status still tells the kiosk what is wrong


def _witness(hall, kiosk) -> None:
    """Check the receipt a kiosk sent with its poll (if any) against the journal."""
    body = request.get_json(silent=True) if request.method == "POST" else None
    if not isinstance(body, dict) or body.get("witness") is None:
        return
    witnesses.report(
        hall.db,
        kiosk.name,
        body["witness"],
        hall.signing_key().public,
        journal_health.journal_id(hall.db),
    )


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


def _spell_limiter() -> RecentRequests | None:
    """This process's count of spelling requests per kiosk (None: not limited)."""
    if "spell_limiter" not in current_app.extensions:
        limit = parse_rate_limit(current_app.config.get("SPELL_RATE_LIMIT", SPELL_RATE_LIMIT))
        current_app.extensions["spell_limiter"] = limit and RecentRequests(limit)
    return current_app.extensions["spell_limiter"]


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
