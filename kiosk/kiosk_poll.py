"""The kiosks' status poll (GET /api/v1/kiosk), made cheap: the state a tournament's kiosks are
shown is made once per change and process, each answer carries an ETag, and a poll that
already holds it gets an empty 304, held open on the event loop until something changes.

- `shared(hall, slug)`: what every kiosk of a tournament is shown (its lexicon, rule, the
  journal's health, ...) in the tournament's language, with a digest of it, and its TSH link's
  contents. What it is made of is read at each poll (a few small indexed reads, and the checks
  the journal and the lexicon store keep cheap); it is made again (translated, laid out) only
  when that changed, once per process.
- `status_tag(kiosk, shared)`: the kiosk's ETag: the shared part, its name, its table's game
  (`game_version`: what GET /api/v1/table would answer, None where it would answer nothing), and
  whether it asks who challenges (`asks_challenger`: a free challenge, NSA VI.C, or a grant that
  may be open for its table).
- `unchanged(kiosk, tag)`: the 304. With `?wait=N` and a server that can hold a poll (the
  loop worker says so in the environ), it asks to be held up to N seconds (HOLD_SECONDS at
  most): the bridge (`kiosk.server.loop_holds`) keeps only its connection, asks `Polls.changed`
  once a second which held polls' kiosks now have another ETag (or another credential: a
  revoked kiosk, a new pairing), or which witnessed rows the journal no longer holds (a poll
  carries the kiosk's newest receipt, X-Kiosk-Witness), and runs those polls again (a 200, a
  401, or the witness's alarm raised), the others answered 304 at the end of their time.
Every poll is still authenticated and still records the kiosk as seen before any of this.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from flask import Flask, current_app, request

from adjudicator.hall import event_close, kiosks, tournaments
from adjudicator.hall.hall import Hall, LexiconUnavailable
from adjudicator.hall.tsh import links
from adjudicator.judging import free_challenges
from adjudicator.judging.game import canonical
from adjudicator.judging.rulebooks import get_rulebook
from adjudicator.judging.rules import get_rule
from adjudicator.record.journal.closings import CLOSED_MESSAGE
from adjudicator.record.proofs import witnesses
from adjudicator.wording import Phrase
from kiosk import conditional
from kiosk.hall import get_hall
from kiosk.i18n import say, say_alphabet, say_description, say_rule, speak
from kiosk.server.loop_holds import CAN_HOLD, HOLD_HEADER

# The longest a poll is held open waiting for a change: the server ends each at a random time
# between 15 and 25 s (kiosk.server.loop_holds.SPREAD), 20 s on average.
HOLD_SECONDS = 25
EXTENSION = "kiosk_polls"  # app.extensions: this app's Polls
WITNESS_HEADER = "X-Kiosk-Witness"  # a GET poll's witness: base64url of the receipt's JSON


@dataclass(frozen=True)
class Shared:
    """What every kiosk of one tournament is shown, and what it was made from."""

    slug: str
    inputs: tuple  # the tournament, the journal's health, its lexicon, its TSH link's contents
    body: dict[str, Any]
    digest: str

    @property
    def journal_ok(self) -> bool:
        return self.body["journal"]["ok"]

    @property
    def tsh(self) -> str | None:
        """The TSH link's contents (their hash); None: not linked."""
        return self.inputs[-1]

    def asks_challenger(self, kiosk: kiosks.Kiosk) -> bool:
        """True when `kiosk` asks who challenges, so that a free challenge is used: the
        rulebook names free challenges (NSA VI.C), or a grant may be open for a game at the
        kiosk's table (any grant, for a kiosk of no table)."""
        tournament, grants = self.inputs[0], self.inputs[-2]
        if get_rulebook(tournament.rulebook).grant_ref:
            return True
        return any(
            table is None or kiosk.table is None or canonical(table) == canonical(kiosk.table)
            for _, table in grants
        )


def shared(hall: Hall, slug: str) -> Shared:
    """The tournament's shared status, in its language (which the rest of the request speaks):
    its inputs read (a few indexed reads and the checks the journal and the store keep
    cheap), the status made again only when they changed."""
    tournament = tournaments.get(hall.db, slug)
    manifest = hall.store.manifest(tournament.lexicon)
    link = links.get(hall.db, slug)
    inputs = (
        tournament,
        hall.journal_health(),
        _lexicon_available(hall, tournament),
        manifest,
        event_close.closing(hall, slug),  # one indexed read: the event may be over
        _grant_games(hall, slug),
        link and link.content_hash,
    )
    speak(tournament.language)
    known = current_app.extensions[EXTENSION].shared
    found = known.get(slug)
    if found is None or found.inputs != inputs:
        found = known[slug] = _make_shared(slug, inputs)
    return found


def _grant_games(hall: Hall, slug: str) -> tuple:
    """The games of the free challenges that may be open (round, table): one seek in the
    grants' partial index, empty for most events."""
    return tuple((g.round, g.table) for g in free_challenges.maybe_open(hall.db, slug))


def _make_shared(slug: str, inputs: tuple) -> Shared:
    tournament, health, available, manifest, closing, _, _ = inputs
    rule = get_rule(tournament.rule)
    alphabet = manifest.get_alphabet()
    body = {
        "tournament": {
            "slug": tournament.slug,
            "title": tournament.title,
            "language": tournament.language,
            # the kiosk asks for its game (/api/v1/table) only where TSH pairs its tournament
            "tsh_linked": inputs[-1] is not None,
        },
        "lexicon": {
            "name": manifest.name,
            "description": manifest.description,
            # in the tournament's language, or "" where there is no translation of it
            "shown_description": say_description(manifest.description),
            "words": manifest.words,
            "fingerprint": tournament.lexicon_fingerprint,
            "short_fingerprint": tournament.lexicon_fingerprint[:12],
            "available": available,
            # its name in the tournament's language too (`shown_title`: "català")
            "alphabet": {**alphabet.summary(), "shown_title": say_alphabet(alphabet)},
        },
        "rule": {
            "name": rule.name,
            "title": rule.title,
            "shown_title": say_rule(rule),  # in the tournament's language
            # the kiosk then asks for round, table and challenger (WESPA 3.10.15(c))
            "needs_game": rule.counts_earlier_challenges,
            # the kiosk then asks whether the challenged play went out (school rule 12)
            "asks_final_play": get_rulebook(tournament.rulebook).final_play_free,
        },
        "rulebook": tournament.rulebook,
        "journal": _journal(health),
        "closed": _closed(closing),
        "verdict_seconds": current_app.config["VERDICT_SECONDS"],
        "clear_seconds": current_app.config["CLEAR_SECONDS"],
        "request_timeout_seconds": current_app.config["REQUEST_TIMEOUT_SECONDS"],
    }
    return Shared(slug, inputs, body, conditional.etag(body))


def _journal(health) -> dict:
    """The journal's health as the API gives it, with its message as the kiosk shows it in the
    tournament's language (`shown_message`; the English `message` is unchanged)."""
    answer = health.to_api()
    if answer["message"]:
        answer["shown_message"] = say(Phrase(answer["message"]))
    return answer


def _closed(closing) -> dict | None:
    """The event's close, as the kiosk shows it (None: the event runs): no challenge is judged."""
    if closing is None:
        return None
    said = Phrase.of(CLOSED_MESSAGE, tournament=closing.tournament)
    return {"at": closing.at, "message": said.render(_english, _english_plural),
            "shown_message": say(said)}  # fmt: skip


def _english(text: str) -> str:
    return text


def _english_plural(one: str, many: str, n: int) -> str:
    return one if n == 1 else many


def _lexicon_available(hall: Hall, tournament) -> bool:
    """Whether a challenge could be judged now: the pinned edition, opening intact."""
    try:
        hall.lexicon_for(tournament)
    except LexiconUnavailable:
        return False
    return True


def game_version(kiosk: kiosks.Kiosk, state: Shared) -> str | None:
    """A version of what GET /api/v1/table answers this kiosk (its table's game): it changes
    when that answer may; None when the kiosk has no table or its tournament no TSH link, and
    that answer would be a 404 (the kiosk then asks nothing)."""
    if kiosk.table is None or state.tsh is None:
        return None
    return conditional.etag(state.tsh, kiosk.tournament, kiosk.table)[:16]


def status_tag(kiosk: kiosks.Kiosk, state: Shared) -> str:
    """The ETag of this kiosk's status: equal tags, equal answers."""
    return conditional.etag(
        state.digest,
        kiosk.name,
        kiosk.table,
        kiosk.access,
        game_version(kiosk, state),
        state.asks_challenger(kiosk),
    )


def body(kiosk: kiosks.Kiosk, state: Shared) -> dict[str, Any]:
    """The kiosk's status as GET /api/v1/kiosk answers it."""
    return {
        "ok": True,
        "kiosk": kiosk.name,
        "table": kiosk.table,  # the kiosk's own table (None: it has none)
        # the verdict said aloud, a large high-contrast screen: as the director set this kiosk
        "access": {"speak": kiosk.speaks, "large": kiosk.large},
        **state.body,
        "table_game": game_version(kiosk, state),
        # the kiosk then asks who challenges (optional): a free challenge is the challenger's
        "asks_challenger": state.asks_challenger(kiosk),
    }


def header_witness() -> Any:
    """The receipt a GET poll carries as a witness (X-Kiosk-Witness: base64url of its JSON), or
    None; one that cannot be read is handed on as it is, for the witness check to refuse."""
    value = request.headers.get(WITNESS_HEADER, "")
    if not value:
        return None
    try:
        return json.loads(base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)))
    except ValueError:
        return value


def unchanged(kiosk: kiosks.Kiosk, tag: str, witnessed: tuple[int, str] | None = None):
    """The 304 for a poll that holds the kiosk's current ETag; held open (`?wait=N`, N up to
    HOLD_SECONDS) where the server can hold it, watching the row its witness proves too."""
    response = conditional.not_modified(tag)
    wait = request.args.get("wait", "")
    if wait.isdigit() and int(wait) > 0 and request.environ.get(CAN_HOLD):
        seconds = min(int(wait), HOLD_SECONDS)
        response.headers[HOLD_HEADER] = f"{seconds} {hold_key(kiosk, tag, witnessed)}"
    return response


def hold_key(kiosk: kiosks.Kiosk, tag: str, witnessed: tuple[int, str] | None = None) -> str:
    """What a held poll waits on: a digest of its ETag and of the credential it was let in
    with (a revoked kiosk, or one paired again, must be asked again), the journal row its
    witness proves ("-": none), and the kiosk's name last."""
    row = f"{witnessed[0]}.{witnessed[1]}" if witnessed else "-"
    return f"{_credential(kiosk, tag)} {row} {kiosk.name}"


def _credential(kiosk: kiosks.Kiosk, tag: str) -> str:
    seal = (tag, kiosk.revoked_at, kiosk.session_nonce, kiosk.tournament, kiosk.table_no)
    return hashlib.sha256(repr(seal).encode()).hexdigest()[:24]


class Polls:
    """An app's polls: its tournaments' shared states (made by `shared`), and which held polls
    must be asked again (`changed`, for the loop worker's bridge, which calls it once a second
    from a thread with every held key)."""

    def __init__(self, app: Flask):
        self.app = app
        self.shared: dict[str, Shared] = {}  # by tournament

    def changed(self, keys: list[str]) -> set[str]:
        """The keys whose kiosk now has another ETag or credential (or is gone), or whose
        witnessed row the journal no longer holds as the receipt proved it."""
        held = [_parse_key(key) for key in keys]
        with self.app.test_request_context("/api/v1/kiosk"):
            hall = get_hall()
            now = kiosks.named(hall.db, {name for _, _, name in held})
            gone = witnesses.rows_gone(hall.db, {row for _, row, _ in held if row})
            states: dict[str, Shared] = {}  # each tournament's, read once a check
            found = set()
            for key, (seal, row, name) in zip(keys, held, strict=True):
                kiosk = now.get(name)
                if kiosk is None or not kiosk.active or row in gone:
                    found.add(key)
                    continue
                if kiosk.tournament not in states:
                    states[kiosk.tournament] = shared(hall, kiosk.tournament)
                tag = status_tag(kiosk, states[kiosk.tournament])
                if _credential(kiosk, tag) != seal:
                    found.add(key)
            return found


def _parse_key(key: str) -> tuple[str, tuple[int, str] | None, str]:
    """A hold key's digest, witnessed row and kiosk name."""
    seal, _, rest = key.partition(" ")
    row, _, name = rest.partition(" ")
    row_id, _, row_hash = row.partition(".")
    return seal, (int(row_id), row_hash) if row_id.isdigit() else None, name


def init_app(app: Flask) -> None:
    """The app's Polls, whose `changed` the loop worker finds at app.extensions["kiosk_polls"]."""
    app.extensions[EXTENSION] = Polls(app)
