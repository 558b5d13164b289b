"""gunicorn's hooks for the server `adjudicator hall` starts (`--config python:` this module):
the server ends with the hall process that started it.

The hall process withdraws the hall's name and stops its server when it stops. Killed (SIGKILL,
the system out of memory), it can do neither: its server would serve on, the port taken, a
restarted hall refused ("port in use"), and no one watching the network for it (it then judges
nothing: record/journal/hall_beat.py). So the arbiter asks the kernel for SIGTERM, gunicorn's
graceful stop, when its parent ends, and stops at once if it already has.
"""

from __future__ import annotations

import os

from adjudicator import children


def on_starting(server) -> None:
    """In the arbiter, before it binds or forks a worker: ended with the hall process."""
    children.end_with(os.getppid())
