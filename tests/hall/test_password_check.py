"""Password checks run on their own threads at the lowest CPU priority (nice 19), so a flood of
sign-ins cannot take the CPU from the threads that judge challenges."""

from __future__ import annotations

import os
import sys
import threading
import time

import pytest

from adjudicator.hall.people import password_check


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread priority is Linux's")
def test_checks_run_at_the_lowest_priority_and_the_caller_keeps_its_own():
    mine = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    def priority() -> bool:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == password_check.LOWEST

    assert password_check.run(priority) is True
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == mine


def test_a_check_that_raises_raises_in_the_caller():
    def wrong() -> bool:
        raise ValueError("mismatch")

    with pytest.raises(ValueError, match="mismatch"):
        password_check.run(wrong)


def _waiting_count() -> int:
    waiting = password_check._processes[os.getpid()]
    with waiting.ready:
        return len(waiting.items)


def _until(condition, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_fewest_failures_go_first_and_only_a_few_may_wait():
    """Both slots held; then checks wait in order of priority, and past MAX_WAITING a worse
    one is refused at once (Busy) while a better one displaces the worst waiting."""
    release = threading.Event()
    ran: list[str] = []
    holding: list[str] = []
    outcomes: dict[str, object] = {}

    def submit(label: str, priority: int, hold: bool = False) -> threading.Thread:
        def check() -> bool:
            if hold:
                holding.append(label)
                release.wait(30)
            ran.append(label)
            return True

        def call() -> None:
            try:
                outcomes[label] = password_check.run(check, priority)
            except password_check.Busy:
                outcomes[label] = "busy"

        thread = threading.Thread(target=call)
        thread.start()
        return thread

    password_check.run(lambda: True)  # the slots exist, idle
    threads = [submit(f"hold-{n}", 0, hold=True) for n in range(password_check.SLOTS)]
    _until(lambda: len(holding) == password_check.SLOTS)  # both slots busy
    for n in range(password_check.MAX_WAITING):
        threads.append(submit(f"guess-{n}", 5))
        _until(lambda n=n: _waiting_count() == n + 1)
    worse = submit("worse", 9)
    worse.join(10)
    assert outcomes["worse"] == "busy"  # refused at once: no thread held
    threads.append(submit("desk", 1))
    _until(lambda: f"guess-{password_check.MAX_WAITING - 1}" in outcomes)
    assert outcomes[f"guess-{password_check.MAX_WAITING - 1}"] == "busy"  # the latest worst
    release.set()
    for thread in threads:
        thread.join(30)
    after = [label for label in ran if not label.startswith("hold-")]
    assert "desk" in after[: password_check.SLOTS]  # among the first taken (two run at once)
    assert set(after) == {"desk", *(f"guess-{n}" for n in range(password_check.MAX_WAITING - 1))}
