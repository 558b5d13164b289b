"""Polls held on the event loop: an answer the app marks with HOLD_HEADER ("<seconds> <key>")
is not written at once. The request waits here, holding only its connection (a file
descriptor, no thread), until what it waits on changes or its seconds are up. Then the app is
asked again (it answers anew: the new state, or a refusal), or the answer held is written (the
304 of nothing new).

What changed is the app's to say: once a second, while anything is held, `check` is called
in a thread with every key held, and returns those that changed (kiosk.kiosk_poll.Polls
.changed: one read for all of them). A stop releases every held poll at once, answered.

A hold asked for N seconds ends at a random time between 0.6 N and N (SPREAD): polls that
began together (a thousand kiosks woken by one change, or started at once) drift apart at
every round, so their next polls never arrive in a burst. N is the most a poll is held; a
client asks again when it is answered, whenever that is. (The kiosk asks for 25 s: its polls
end between 15 and 25 s, 20 s on average, as often as when each lasted 20 s.)
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass

HOLD_HEADER = "X-Adjudicator-Hold"
CAN_HOLD = "adjudicator.hold"  # in the environ when the app may ask to hold its answer
CHECK_SECONDS = 1.0  # how often the app is asked which held polls changed
MOST_SECONDS = 60.0  # no poll is held longer, whatever the app asks
SPREAD = 0.4  # a hold of N seconds ends between N * (1 - SPREAD) and N, uniformly

log = logging.getLogger("kiosk.server.loop_holds")


@dataclass(frozen=True)
class Hold:
    until: float  # time.monotonic()
    key: str


def take_hold(headers: list[tuple[str, str]]) -> tuple[list[tuple[str, str]], Hold | None]:
    """The answer's headers without HOLD_HEADER, and the hold it asked for (None: none, or one
    that cannot be read)."""
    kept, asked = [], None
    for name, value in headers:
        if name.lower() == HOLD_HEADER.lower():
            asked = value
        else:
            kept.append((name, value))
    if asked is None:
        return kept, None
    seconds, _, key = asked.partition(" ")
    try:
        wait = min(float(seconds), MOST_SECONDS)
    except ValueError:
        return kept, None
    if not key or not wait > 0:
        return kept, None
    wait *= 1 - SPREAD * random.random()  # spread over the window: no bursts of re-polls
    return kept, Hold(time.monotonic() + wait, key)


def holder_of(hold: Hold) -> str:
    """Whose poll `hold` is: what its key ends with, after its second space (kiosk_poll's
    hold_key: the kiosk's name), or the whole key."""
    parts = hold.key.split(" ", 2)
    return parts[2] if len(parts) == 3 else hold.key


class Holds:
    """The polls held in one worker, by key, and the check that wakes them."""

    def __init__(self, check: Callable[[list[str]], set[str]], executor: Executor):
        self.check, self.executor = check, executor
        self.waiting: dict[str, set[asyncio.Future]] = {}
        self.watcher: asyncio.Task | None = None
        self.stopping = False

    @property
    def held(self) -> int:
        return sum(map(len, self.waiting.values()))

    async def wait(self, hold: Hold) -> bool:
        """Wait until the app says `hold.key` changed (True), or its time is up or the worker
        stops (False)."""
        if self.stopping:
            return False
        loop = asyncio.get_running_loop()
        woken = loop.create_future()
        self.waiting.setdefault(hold.key, set()).add(woken)
        timer = loop.call_later(max(0.0, hold.until - time.monotonic()), _settle, woken, False)
        if self.watcher is None:
            self.watcher = asyncio.create_task(self._watch())
        try:
            return await woken
        finally:
            timer.cancel()
            held = self.waiting.get(hold.key)
            if held is not None:
                held.discard(woken)
                if not held:
                    del self.waiting[hold.key]

    def release_all(self) -> None:
        """A stop: every held poll is answered now, and none is held from now on."""
        self.stopping = True
        for held in list(self.waiting.values()):
            for woken in list(held):
                _settle(woken, False)

    async def _watch(self) -> None:
        """Ask the app once a second which held polls changed, and wake those, while any is
        held; a check that fails wakes none (each is answered when its time is up)."""
        loop = asyncio.get_running_loop()
        try:
            while self.waiting and not self.stopping:
                await asyncio.sleep(CHECK_SECONDS)
                keys = list(self.waiting)
                if not keys:
                    break
                try:
                    changed = await loop.run_in_executor(self.executor, self.check, keys)
                except Exception:
                    log.exception("Checking the held polls failed: they wait out their time")
                    continue
                for key in changed:
                    for woken in list(self.waiting.get(key, ())):
                        _settle(woken, True)
        finally:
            self.watcher = None


def _settle(woken: asyncio.Future, changed: bool) -> None:
    if not woken.done():
        woken.set_result(changed)
