"""Kiosks: the challenge computers and tablets enrolled for a tournament.

A kiosk has a bearer token for API clients and, for browsers, one-time pairing codes; a paired
browser holds a signed cookie naming the kiosk and the pairing's nonce. A token is 256 random
bits, kept as its SHA-256 (nothing to guess); a pairing code is short, so it is kept as a keyed
hash whose key is never in the journal (pairing_key.py). Both are compared in constant time.
Every code expires: a code made by hand after PAIRING_HOURS, a printed sheet's when the sheet
says. Revoking a kiosk locks out its token, its code and every paired browser at once; moving
it to another tournament ends its code and its paired browsers (its token goes on).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from adjudicator.errors import AdjudicatorError
from adjudicator.hall import tournaments
from adjudicator.hall.pairing_key import code_hash
from adjudicator.record.database.db import Database
from adjudicator.textcheck import check_name
from adjudicator.wording import natural_key

PAIRING_HOURS = 24  # a code made by hand (`kiosk add`, `kiosk pair`, the Kiosks page)
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._-]{0,39}")
# Pairing codes are typed on tablets: no 0/O or 1/I/L to misread.
_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 10
MAX_TABLE = 999
_FIELDS = "name, tournament, created_at, revoked_at, last_seen_at, session_nonce, table_no, access"
# How a kiosk shows its verdicts beyond the screen everyone reads (NASPA's special needs: a
# player who cannot reach or read the challenge computer), as the director sets it.
SPEAK = "speak"  # each verdict (its word and consequence) said aloud, in the tournament's language
LARGE = "large"  # a large, high-contrast screen
ACCESS = (SPEAK, LARGE)


class KioskError(AdjudicatorError):
    """A kiosk cannot be enrolled, found or paired as asked."""


class PairingExpired(KioskError):
    """A pairing code that was right, but is past its time: the card must be printed anew."""

    def __init__(self, expires_at: str):
        self.expires_at = expires_at
        super().__init__(
            f"This pairing code expired at {local_time(expires_at)}: "
            "ask the director for a new card."
        )


@dataclass(frozen=True)
class Kiosk:
    name: str
    tournament: str
    created_at: str
    revoked_at: str | None = None
    last_seen_at: str | None = None
    session_nonce: str | None = None
    table_no: int | None = None  # the table it sits at: every challenge there that names none
    access: str = ""  # the ACCESS words the director set, space-separated ("speak large")

    @property
    def active(self) -> bool:
        return self.revoked_at is None

    @property
    def speaks(self) -> bool:
        """Whether it says each verdict aloud."""
        return SPEAK in self.access.split()

    @property
    def large(self) -> bool:
        """Whether its screen is large and high-contrast."""
        return LARGE in self.access.split()

    @property
    def table(self) -> str | None:
        """The kiosk's table as a challenge records it (text, like a typed table), or None."""
        return None if self.table_no is None else str(self.table_no)


@dataclass(frozen=True)
class Enrolment:
    """What enrolling or re-pairing hands out once: never stored in the clear."""

    kiosk: Kiosk
    token: str | None
    pairing_code: str
    pairing_expires_at: str


def digest(secret: str) -> str:
    """SHA-256 of a token (256 random bits: nothing to guess, so no key is needed)."""
    return hashlib.sha256(secret.encode()).hexdigest()


def local_time(instant: str) -> str:
    """An ISO time as the hall's clock shows it: `YYYY-MM-DD HH:MM`, the hall's local time."""
    return datetime.fromisoformat(instant).astimezone().strftime("%Y-%m-%d %H:%M")


def pairing_link(base_url: str, code: str, language: str = "en") -> str:
    """The link that pairs a browser: the code follows '#', so no server or proxy log sees it;
    the pairing page speaks the tournament's `language` (`?lang=`, left out for English)."""
    asked = "" if language == "en" else f"?lang={language}"
    return f"{base_url.rstrip('/')}/pair{asked}#{code}"


def check_table(table: int | str | None) -> int | None:
    """A kiosk's table: a whole number from 1 to MAX_TABLE, or None for a kiosk of no table."""
    if table is None or (isinstance(table, str) and not table.strip()):
        return None
    text = str(table).strip()
    number = int(text) if text.isascii() and text.isdigit() else 0
    if isinstance(table, bool) or not 1 <= number <= MAX_TABLE:
        raise KioskError(
            f"Invalid table {text[:20]!r}: give the table's number, 1 to {MAX_TABLE} "
            "(or none, for a kiosk that serves several tables)."
        )
    return number


def add(
    db: Database,
    name: str,
    tournament: str,
    hours: int = PAIRING_HOURS,
    now: datetime | None = None,
    table: int | None = None,
) -> Enrolment:
    """Enrol a kiosk for a tournament: a new token and a one-time pairing code that expires
    `hours` after `now` (a printed sheet's codes last longer than one made by hand); `table`
    is the table it sits at, given to every challenge made there that names none."""
    table = check_table(table)
    check_name(
        name,
        "kiosk name",
        40,
        _NAME,
        "use up to 40 letters, digits, spaces, '.', '-' or '_'.",
        KioskError,
    )
    tournaments.get(db, tournament)
    token = "k_" + secrets.token_urlsafe(32)
    code, expires = _new_code(hours, now)
    with db.transaction() as cur:
        if cur.execute("SELECT name FROM kiosks WHERE name = ?", (name,)).one():
            raise KioskError(f"Kiosk {name!r} already exists: pair it again with `kiosk pair`.")
        cur.execute(
            "INSERT INTO kiosks (name, tournament, token_hash, pairing_hash, pairing_expires_at, "
            "created_at, table_no) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (name, tournament, digest(token), code_hash(code), expires, _now(), table),
        )
    return Enrolment(get(db, name), token, code, expires)


def new_pairing(
    db: Database, name: str, hours: int = PAIRING_HOURS, now: datetime | None = None
) -> Enrolment:
    """A fresh one-time pairing code for an existing, active kiosk (it replaces the one
    before, which then no longer works); `hours` and `now` as for `add`."""
    kiosk = get(db, name)
    if not kiosk.active:
        raise KioskError(f"Kiosk {name!r} was revoked; enrol a new kiosk instead.")
    code, expires = _new_code(hours, now)
    with db.transaction() as cur:
        cur.execute(
            "UPDATE kiosks SET pairing_hash = ?, pairing_expires_at = ? WHERE name = ?",
            (code_hash(code), expires, name),
        )
    return Enrolment(kiosk, None, code, expires)


def redeem_pairing(db: Database, code: str) -> tuple[Kiosk, str] | None:
    """Use a pairing code once: returns the kiosk and a new session nonce, or None for a code
    that is not (or no longer) any kiosk's; PairingExpired for one past its time."""
    code = (code or "").strip().upper().replace("-", "").replace(" ", "")
    if not code or len(code) > 64:
        return None
    nonce = secrets.token_urlsafe(16)
    wanted = code_hash(code)
    with db.transaction() as cur:
        row = cur.execute(
            "SELECT name, pairing_hash, pairing_expires_at FROM kiosks "
            "WHERE pairing_hash = ? AND revoked_at IS NULL",
            (wanted,),
        ).one()
        if row is None or not hmac.compare_digest(row["pairing_hash"], wanted):
            return None
        live = (row["pairing_expires_at"] or "") >= _now()
        if live:
            cur.execute(
                "UPDATE kiosks SET pairing_hash = NULL, pairing_expires_at = NULL, "
                "session_nonce = ? WHERE name = ?",
                (nonce, row["name"]),
            )
    if not live:
        raise PairingExpired(row["pairing_expires_at"] or _now())
    return get(db, row["name"]), nonce


def by_token(db: Database, token: str) -> Kiosk | None:
    """The active kiosk whose token this is, or None."""
    if not token or len(token) > 200:
        return None
    wanted = digest(token)
    row = db.query_one(
        f"SELECT {_FIELDS}, token_hash FROM kiosks WHERE token_hash = ? AND revoked_at IS NULL",
        (wanted,),
    )
    if row is None or not hmac.compare_digest(row.pop("token_hash"), wanted):
        return None
    return Kiosk(**row)


def live_credentials(db: Database) -> tuple[dict[str, str], dict[str, str]]:
    """Every active kiosk's credentials, as a server worker checks them without the database:
    its token's digest (by digest) and its paired browsers' nonce (by kiosk name), each naming
    the kiosk. One read of the kiosks."""
    tokens: dict[str, str] = {}
    nonces: dict[str, str] = {}
    with db.transaction() as cur:
        rows = cur.execute(
            "SELECT name, token_hash, session_nonce FROM kiosks WHERE revoked_at IS NULL"
        ).all()
    for row in rows:
        if row["token_hash"]:
            tokens[row["token_hash"]] = row["name"]
        if row["session_nonce"]:
            nonces[row["name"]] = row["session_nonce"]
    return tokens, nonces


def by_session(db: Database, name: str, nonce: str) -> Kiosk | None:
    """The active kiosk a paired browser's cookie names, if its nonce is still current."""
    try:
        kiosk = get(db, name)
    except KioskError:
        return None
    if not kiosk.active or not kiosk.session_nonce or not nonce:
        return None
    return kiosk if hmac.compare_digest(kiosk.session_nonce, nonce) else None


def get(db: Database, name: str) -> Kiosk:
    """The kiosk `name`, or KioskError."""
    with db.transaction() as cur:
        row = cur.execute(
            f"SELECT {_FIELDS} FROM kiosks WHERE name = ?",
            (name,),
        ).one()
    if row is None:
        raise KioskError(f"No kiosk named {name!r}.")
    return Kiosk(**row)


def named(db: Database, names: set[str]) -> dict[str, Kiosk]:
    """The kiosks of these names, by name (those there are)."""
    found: dict[str, Kiosk] = {}
    wanted = sorted(names)
    with db.transaction() as cur:
        for start in range(0, len(wanted), 500):  # within any backend's limit on parameters
            part = wanted[start : start + 500]
            marks = ", ".join("?" for _ in part)
            rows = cur.execute(f"SELECT {_FIELDS} FROM kiosks WHERE name IN ({marks})", part)
            found.update((row["name"], Kiosk(**row)) for row in rows.all())
    return found


def list_all(db: Database) -> list[Kiosk]:
    """Every kiosk, by name as people count ('table 2' before 'table 10')."""
    with db.transaction() as cur:
        rows = cur.execute(f"SELECT {_FIELDS} FROM kiosks").all()
    return sorted((Kiosk(**row) for row in rows), key=lambda kiosk: natural_key(kiosk.name))


def revoke(db: Database, name: str) -> Kiosk:
    """Lock a kiosk out at once: its token, pairing code and paired browsers stop working."""
    get(db, name)
    with db.transaction() as cur:
        cur.execute(
            "UPDATE kiosks SET revoked_at = ?, session_nonce = NULL, pairing_hash = NULL "
            "WHERE name = ?",
            (_now(), name),
        )
    return get(db, name)


def move(db: Database, name: str, tournament: str) -> Kiosk:
    """Assign a kiosk to another tournament: its pairing code and its paired browsers stop
    working (a card printed for the old tournament no longer pairs); its token goes on."""
    kiosk = get(db, name)
    tournaments.get(db, tournament)
    if kiosk.tournament == tournament:
        raise KioskError(f"Kiosk {name!r} already judges for {tournament}: nothing to move.")
    with db.transaction() as cur:
        cur.execute(
            "UPDATE kiosks SET tournament = ?, pairing_hash = NULL, pairing_expires_at = NULL, "
            "session_nonce = NULL WHERE name = ?",
            (tournament, name),
        )
    return get(db, name)


def set_table(db: Database, name: str, table: int | str | None) -> Kiosk:
    """Seat a kiosk at another table (None: no table of its own)."""
    table = check_table(table)
    get(db, name)
    with db.transaction() as cur:
        cur.execute("UPDATE kiosks SET table_no = ? WHERE name = ?", (table, name))
    return get(db, name)


def set_access(
    db: Database, name: str, speak: bool | None = None, large: bool | None = None
) -> Kiosk:
    """Turn a kiosk's spoken verdict (`speak`) and its large, high-contrast screen (`large`) on
    or off (None: as it was); its paired screen follows at its next status poll."""
    kiosk = get(db, name)
    wanted = {SPEAK: kiosk.speaks if speak is None else speak}
    wanted[LARGE] = kiosk.large if large is None else large
    access = " ".join(word for word in ACCESS if wanted[word])
    with db.transaction() as cur:
        cur.execute("UPDATE kiosks SET access = ? WHERE name = ?", (access, name))
    return get(db, name)


def touch(db: Database, name: str) -> None:
    """Record that the kiosk was seen now."""
    with db.transaction() as cur:
        cur.execute("UPDATE kiosks SET last_seen_at = ? WHERE name = ?", (_now(), name))


def _new_code(hours: int, now: datetime | None) -> tuple[str, str]:
    code = "".join(secrets.choice(_CODE_ALPHABET) for _ in range(CODE_LENGTH))
    expires = ((now or datetime.now(UTC)) + timedelta(hours=hours)).astimezone(UTC)
    return code, expires.isoformat(timespec="microseconds")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")
