"""The kit's background refresh (adjudicator/hall/kit/refresh.py, `Watch`) writes the kit of the
data home its process serves, and no other: a process whose data home has changed since it
started (a test's, after another's app) ends the thread rather than seal the new home's kit
with the old hall's journal and lexicons."""

from __future__ import annotations

import time

from adjudicator.hall.kit import refresh


def test_the_refresh_ends_when_the_process_serves_another_home(tmp_path, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_HOME", str(tmp_path / "first"))
    monkeypatch.setenv("ADJUDICATOR_KIT_REFRESH_SECONDS", "1")
    monkeypatch.setattr(refresh, "FIRST_ROWS_SECONDS", 0.05)
    ran = []
    monkeypatch.setattr(refresh.Watch, "first_rows", lambda self: True)
    monkeypatch.setattr(refresh.Watch, "run_once", lambda self: ran.append(1) or [])
    watch = refresh.Watch(hall=None)
    watch.start()
    deadline = time.monotonic() + 5
    while not ran and time.monotonic() < deadline:
        time.sleep(0.02)
    assert ran  # it refreshes the kit of the home it serves
    monkeypatch.setenv("ADJUDICATOR_HOME", str(tmp_path / "second"))
    watch.thread.join(5)
    assert not watch.thread.is_alive()
    count = len(ran)
    time.sleep(0.3)
    assert len(ran) == count  # nothing written for the second home
