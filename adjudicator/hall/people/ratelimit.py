"""The per-kiosk rate limit, such as `6/minute`: a kiosk is for challenges, not word study."""

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


class RateLimited(AdjudicatorError):
    """The kiosk has made as many adjudications as the limit allows for now."""

    def __init__(self, limit: RateLimit):
        super().__init__(
            f"This kiosk has judged {limit.count} challenges "
            f"in the last {limit.describe_period()}: "
            "please wait a moment, or call the director."
        )
        self.retry_after = limit.seconds
        self.phrase = Phrase.counted(_LIMITED, limit.count)  # as a kiosk says it


# What a kiosk says (babel.cfg extracts it for the kiosk's catalogues).
_LIMITED = NP_(
    "This kiosk has judged {n} challenge in a short time: please wait a moment, or call the "
    "director.",
    "This kiosk has judged {n} challenges in a short time: please wait a moment, or call the "
    "director.",
)


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
