"""Password checks run at the lowest CPU priority, on their own threads, fewest failures first,
and only a few may wait.

An argon2 check is built to be costly (64 MiB and about half a second of CPU on the hall
laptop, spread over 4 threads). A flood of sign-ins from many addresses, each spending the few
checks the throttle allows, would otherwise take the CPU from the threads that judge the
kiosks' challenges. So checks run on SLOTS threads per process that have lowered their own
priority to nice 19 (Linux: per thread; the argon2 threads they start inherit it); the
request thread waits for the answer.

A waiting check holds a server thread, so at most MAX_WAITING may wait per process: past that a
sign-in is answered "busy, try again" at once (Busy) and the threads stay free for the kiosks.
Waiting checks are taken in order of `priority` (the caller's count of recent attempts from
that address for that name), then of arrival, and a better one displaces the worst waiting:
the director's first try at the desk goes ahead of a guessing address's later guesses.
"""

from __future__ import annotations

import bisect
import itertools
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

SLOTS = 2  # checks at once per process
MAX_WAITING = 8  # checks waiting per process (each holds a server thread)
LOWEST = 19


class Busy(Exception):
    """Too many password checks are waiting: this one was not made."""


class _Waiting:
    """The checks waiting in one process, best first, and the threads that run them."""

    def __init__(self):
        self.ready = threading.Condition()
        self.items: list[tuple[int, int, Callable[[], Any], Future]] = []
        for slot in range(SLOTS):
            threading.Thread(target=self.serve, name=f"password-check-{slot}", daemon=True).start()

    def add(self, priority: int, check: Callable[[], Any]) -> Future:
        done: Future = Future()
        item = (priority, next(_arrival), check, done)
        with self.ready:
            if len(self.items) >= MAX_WAITING:
                if item[:2] > self.items[-1][:2]:
                    raise Busy()
                self.items.pop()[3].set_exception(Busy())  # the worst waiting gives way
            bisect.insort(self.items, item, key=lambda waiting: waiting[:2])
            self.ready.notify()
        return done

    def serve(self) -> None:
        _lower_priority()
        while True:
            with self.ready:
                while not self.items:
                    self.ready.wait()
                _, _, check, done = self.items.pop(0)
            try:
                done.set_result(check())
            except BaseException as exc:  # noqa: BLE001 - handed to the caller, whatever it is
                done.set_exception(exc)


_lock = threading.Lock()
_processes: dict[int, _Waiting] = {}  # by process id: a forked worker makes its own
_arrival = itertools.count()


def run(check: Callable[[], Any], priority: int = 0) -> Any:
    """The result of `check()` (a password's, or the key a kit's passphrase gives), run on a
    low-priority password-check thread; a lower `priority` is taken first. Busy if too many
    checks are waiting already."""
    pid = os.getpid()
    with _lock:
        if pid not in _processes:
            _processes[pid] = _Waiting()
        waiting = _processes[pid]
    return waiting.add(priority, check).result()


def _lower_priority() -> None:
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), LOWEST)  # this thread only
    except (AttributeError, OSError):
        pass  # not Linux, or not allowed: the checks still run, at normal priority
