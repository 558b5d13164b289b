"""Password checks run on their own threads at the lowest CPU priority (nice 19), so a flood of
sign-ins cannot take the CPU from the threads that judge challenges."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from adjudicator import password_check


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
