"""Kiosks' rate limits, such as `6/minute`: a kiosk is for challenges, not word study. A kiosk
at a table is limited as that table, the hall's one challenge computer (a kiosk at no table) as
the whole hall, and a limit the director sets binds every kiosk (KioskLimits)."""

from __future__ import annotations

import re
import threading
import time
from collections import deque
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from adjudicator.errors import AdjudicatorError, SettingError
from adjudicator.wording import NP_, Phrase

_PERIODS = {"second": 1, "minute": 60, "hour": 3600}
_SPEC = re.compile(r"\s*(\d+)\s*/\s*(second|minute|hour)s?\s*")


# What a kiosk serves, and so how it is limited (KioskLimit.kind).
AT_TABLE = "table"  # seated at a table (`kiosk add --table N`): that table's challenges
OF_HALL = "hall"  # no table: the whole hall's challenge computer
HALL_TABLE = "hall-table"  # the hall's computer, counting the challenges of one table it names
SET = "set"  # ADJUDICATOR_KIOSK_RATE_LIMIT, set by the director: every kiosk alike


class RateLimited(AdjudicatorError):
    """The kiosk has made as many adjudications as its limit allows for now."""

    def __init__(self, limit: RateLimit, kind: str = SET, table: str | None = None):
        said = {
            AT_TABLE: (
                f"This table's kiosk has judged {limit.count} challenges in the last "
                f"{limit.describe_period()}: please wait a moment, or call the director. "
                "Director: a kiosk that several tables share is seated at no table "
                "(adjudicator kiosk table NAME none), and then judges as the whole hall does."
            ),
            OF_HALL: (
                f"This kiosk has judged {limit.count} challenges in the last "
                f"{limit.describe_period()}, as many as a whole hall makes: please wait a "
                "moment, or call the director. Director: ADJUDICATOR_KIOSK_RATE_LIMIT (such as "
                f"{2 * limit.count}/minute) sets the limit of every kiosk."
            ),
            HALL_TABLE: (
                f"This kiosk has judged {limit.count} challenges from table {table} in the last "
                f"{limit.describe_period()}: please wait a moment, or call the director."
            ),
            SET: (
                f"This kiosk has judged {limit.count} challenges in the last "
                f"{limit.describe_period()}, the limit the director set: please wait a moment, "
                "or call the director. Director: ADJUDICATOR_KIOSK_RATE_LIMIT sets it."
            ),
        }
        super().__init__(said[kind])
        self.retry_after = limit.seconds
        self.kind = kind
        fields = {"table": table} if kind == HALL_TABLE else {}
        self.phrase = Phrase.counted(_LIMITED[kind], limit.count, **fields)  # as a kiosk says it


# What a kiosk says (babel.cfg extracts them for the kiosk's catalogues), by what it serves.
_LIMITED = {
    AT_TABLE: NP_(
        "This table's kiosk has judged {n} challenge in a short time: please wait a moment, or "
        "call the director. Director: a kiosk that several tables share is seated at no table "
        "(adjudicator kiosk table NAME none), and then judges as the whole hall does.",
        "This table's kiosk has judged {n} challenges in a short time: please wait a moment, "
        "or call the director. Director: a kiosk that several tables share is seated at no "
        "table (adjudicator kiosk table NAME none), and then judges as the whole hall does.",
    ),
    OF_HALL: NP_(
        "This kiosk has judged {n} challenge in a short time, as many as a whole hall makes: "
        "please wait a moment, or call the director. Director: ADJUDICATOR_KIOSK_RATE_LIMIT "
        "sets the limit of every kiosk.",
        "This kiosk has judged {n} challenges in a short time, as many as a whole hall makes: "
        "please wait a moment, or call the director. Director: ADJUDICATOR_KIOSK_RATE_LIMIT "
        "sets the limit of every kiosk.",
    ),
    HALL_TABLE: NP_(
        "This kiosk has judged {n} challenge from table {table} in a short time: please wait "
        "a moment, or call the director.",
        "This kiosk has judged {n} challenges from table {table} in a short time: please wait "
        "a moment, or call the director.",
    ),
    SET: NP_(
        "This kiosk has judged {n} challenge in a short time, the limit the director set: "
        "please wait a moment, or call the director. Director: ADJUDICATOR_KIOSK_RATE_LIMIT "
        "sets it.",
        "This kiosk has judged {n} challenges in a short time, the limit the director set: "
        "please wait a moment, or call the director. Director: ADJUDICATOR_KIOSK_RATE_LIMIT "
        "sets it.",
    ),
}


@dataclass(frozen=True)
class RateLimit:
    count: int
    seconds: int

    def window_start(self, now: datetime | None = None) -> str:
        """The ISO time from which adjudications count against the limit."""
        now = now or datetime.now(UTC)
        return (now - timedelta(seconds=self.seconds)).isoformat(timespec="microseconds")

    def describe_period(self) -> str:
        for name, seconds in _PERIODS.items():
            if seconds == self.seconds:
                return name
        return f"{self.seconds} seconds"


TABLE_LIMIT = RateLimit(6, 60)  # a table's kiosk: a table's challenges, not word study
HALL_TABLES = 10  # a hall's computer judges as many as ten tables' kiosks would ...
HALL_LIMIT = RateLimit(TABLE_LIMIT.count * HALL_TABLES, TABLE_LIMIT.seconds)  # ... 60 a minute


@dataclass(frozen=True)
class KioskLimit:
    """The limit one kiosk judges under: `limit` in all, and `per_table` for the challenges of
    any one table it names (the hall's computer); `kind` says what the kiosk serves."""

    limit: RateLimit
    kind: str
    per_table: RateLimit | None = None

    def window_start(self) -> str:
        """The ISO time from which challenges count (the same window for `per_table`)."""
        return self.limit.window_start()

    def check(self, recent: int, at_table: int, table: str | None) -> None:
        """Raise RateLimited if one more challenge (naming `table`, or None) is over the limit,
        given how many of the kiosk's challenges since window_start() there are (`recent`,
        counting no further than limit.count) and how many of them named `table`."""
        if recent >= self.limit.count:
            raise RateLimited(self.limit, self.kind)
        if self.per_table is not None and table and at_table >= self.per_table.count:
            raise RateLimited(self.per_table, HALL_TABLE, table)

    def describe(self) -> str:
        """The limit in words: "6 challenges a minute", "60 a minute, 6 from any one table"."""
        said = f"{self.limit.count} challenges a {self.limit.describe_period()}"
        if self.per_table is not None:
            said += f", {self.per_table.count} from any one table it names"
        return said


@dataclass(frozen=True)
class KioskLimits:
    """How many challenges each kiosk may judge. Left to the program: a kiosk seated at a table
    TABLE_LIMIT (its table's challenges); a kiosk of no table, the whole hall's computer,
    HALL_LIMIT in all and TABLE_LIMIT for any one table its challenges name. A limit the
    director sets (ADJUDICATOR_KIOSK_RATE_LIMIT) binds every kiosk alike; `off` none."""

    set_limit: RateLimit | None = None
    set_by_director: bool = False

    @classmethod
    def of(cls, spec: str) -> KioskLimits:
        """From the setting: empty (unset) leaves each kiosk its own; `off`, or a limit such as
        `6/minute` for every kiosk (SettingError for anything else)."""
        if not spec.strip():
            return cls()
        return cls(parse_rate_limit(spec), True)

    @classmethod
    def every(cls, limit: RateLimit | None) -> KioskLimits:
        """One limit for every kiosk (None: no limit)."""
        return cls(limit, True)

    def describe(self, seated: bool) -> str:
        """What a kiosk seated at a table (`seated`), or of no table, may judge, in a line."""
        limit = self.for_kiosk(seated)
        if limit is None:
            return "It judges without a limit (ADJUDICATOR_KIOSK_RATE_LIMIT is off)."
        if limit.kind == SET:
            return (
                f"It judges up to {limit.describe()}, as every kiosk does "
                "(ADJUDICATOR_KIOSK_RATE_LIMIT)."
            )
        if seated:
            return f"It serves its table: up to {limit.describe()}."
        return f"It serves the whole hall: up to {limit.describe()}."

    def for_kiosk(self, seated: bool) -> KioskLimit | None:
        """The limit of a kiosk seated at a table (`seated`), or of the whole hall; None: none."""
        if self.set_by_director:
            return None if self.set_limit is None else KioskLimit(self.set_limit, SET)
        if seated:
            return KioskLimit(TABLE_LIMIT, AT_TABLE)
        return KioskLimit(HALL_LIMIT, OF_HALL, TABLE_LIMIT)


def parse_rate_limit(spec: str) -> RateLimit | None:
    """`6/minute` -> RateLimit(6, 60); `off` -> None; anything else is a SettingError."""
    if spec.strip().lower() in ("off", "none", "0", ""):
        return None
    match = _SPEC.fullmatch(spec.lower())
    if not match or int(match.group(1)) < 1:
        raise SettingError(
            f"ADJUDICATOR_KIOSK_RATE_LIMIT must look like 6/minute, 100/hour or off, not {spec!r}."
        )
    return RateLimit(int(match.group(1)), _PERIODS[match.group(2)])


class RecentRequests:
    """A sliding-window count of requests per key in this process: a cheap guard for requests
    that record nothing (the journal counts adjudications across processes)."""

    def __init__(self, limit: RateLimit, clock=time.monotonic):
        self.limit = limit
        self._clock = clock
        self._times: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def allow(self, key: str) -> bool:
        """Count a request for `key`; False when `key` is over the limit (not counted then)."""
        now = self._clock()
        with self._lock:
            times = self._times.setdefault(key, deque())
            while times and times[0] <= now - self.limit.seconds:
                times.popleft()
            if len(times) >= self.limit.count:
                return False
            times.append(now)
            return True
