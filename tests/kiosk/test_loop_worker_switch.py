"""The serving worker gives the interpreter's lock up within a millisecond (loop_worker.py,
SWITCH_SECONDS): a thread busy in pure Python beside the verdicts (a director's export, a
lexicon verified from its page) holds each verdict's every turn for that long at most, not
Python's default 5 ms (benchmarks/live_check.py measures what that does to a verdict's p99)."""

from __future__ import annotations

import sys

from kiosk.server import loop_worker


def test_the_worker_serves_with_a_one_millisecond_switch_interval(monkeypatch):
    default = sys.getswitchinterval()
    seen = []

    def run(coroutine):
        seen.append(sys.getswitchinterval())
        coroutine.close()  # the worker's loop is not run here

    monkeypatch.setattr(loop_worker.asyncio, "run", run)
    monkeypatch.setattr(loop_worker, "_tornado_logs_to", lambda log: None)  # loggers untouched
    worker = object.__new__(loop_worker.LoopWorker)
    worker.log = None  # gunicorn's, for the stubbed log set-up
    try:
        worker.run()
    finally:
        sys.setswitchinterval(default)
    assert seen == [loop_worker.SWITCH_SECONDS] and loop_worker.SWITCH_SECONDS == 0.001
