"""Password checks run at the lowest CPU priority, on their own threads.

An argon2 check is built to be costly (64 MiB and about half a second of CPU on the hall
laptop, spread over 4 threads). A flood of sign-ins from many addresses, each spending the few
checks the throttle allows, would otherwise take the CPU from the threads that judge the
kiosks' challenges. So checks run on SLOTS threads per process that have lowered their own
priority to nice 19 (Linux: per thread; the argon2 threads they start inherit it); the
request thread waits for the answer. Sign-in gets slower under such a flood, judging does not.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

SLOTS = 2  # checks at once per process
LOWEST = 19

_lock = threading.Lock()
_pools: dict[int, ThreadPoolExecutor] = {}  # by process id: a forked worker makes its own


def run(check: Callable[[], bool]) -> bool:
    """The result of `check()`, run on a low-priority password-check thread."""
    return _pool().submit(check).result()


def _pool() -> ThreadPoolExecutor:
    pid = os.getpid()
    with _lock:
        if pid not in _pools:
            _pools[pid] = ThreadPoolExecutor(
                max_workers=SLOTS, thread_name_prefix="password-check", initializer=_lower_priority
            )
        return _pools[pid]


def _lower_priority() -> None:
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), LOWEST)  # this thread only
    except (AttributeError, OSError):
        pass  # not Linux, or not allowed: the checks still run, at normal priority
