"""The hall's beat: a laptop that was paused looks at the network before it judges again.

A laptop serving `adjudicator hall` may freeze (the lid closed and the laptop asleep, its
processes stopped) while another laptop takes the hall over with the kit. When it resumes, its
server's workers run at once, but the hall process learns of the other laptop only when it next
looks at the network (hall/hall_peers.py): a kiosk asking in between would be judged here, and
given a number the other laptop gives too.

So the hall process beats: a thread of it writes the time into a file every BEAT_SECONDS, a
time of CLOCK_BOOTTIME, which goes on while the laptop sleeps as well as while its processes are
stopped. It names that file to its server (BEAT_ENV), and each append there, under the chain
lock beside the journal's holds, refuses while the beat is older than the pause setting
(ADJUDICATOR_HALL_PAUSE_SECONDS, 10 s: less than any takeover takes, a stick carried to another
laptop and a passphrase typed). A beat that finds the time since the last longer than that
stops beating until the hall process has asked the network who serves the hall, and told and
heard any other laptop of it (network/hall_process.py): a laptop taken over meanwhile then holds
itself, and one that was only asleep judges again. A hall process gone (killed) beats no more
either: its server ends with it (kiosk/server/hall_hooks.py), and until then judges nothing, as
no one watches the network for it.

`adjudicator serve` and the commands are not given a beat file, and do not check one.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from adjudicator import settings
from adjudicator.record.database.db import DatabaseUnavailable
from adjudicator.wording import N_

log = logging.getLogger("adjudicator.record.journal.journal")

BEAT_ENV = "ADJUDICATOR_HALL_BEAT"  # set by the hall process for its server alone
BEAT_SECONDS = 1.0

PAUSED_MESSAGE = N_(  # a kiosk shows it in its language (babel.cfg)
    "The hall is checking its network after a pause: no verdict can be recorded until it has. "
    "Ask again in a few seconds; if this goes on, call the director."
)


class HallPaused(DatabaseUnavailable):
    """The hall's beat is old: it was paused, and has not yet looked at the network."""


def now() -> float:
    """The time the beat keeps: seconds since boot, the time asleep included."""
    return time.clock_gettime(time.CLOCK_BOOTTIME)


def pause_seconds() -> float:
    """The longest gap between beats that is not a pause (ADJUDICATOR_HALL_PAUSE_SECONDS)."""
    return float(settings.get_int("hall_pause_seconds", 2))


def write(path: Path, at: float) -> None:
    """Beat: `at` into `path`, whole (a reader never sees half of it)."""
    part = path.with_name(f".{path.name}.{os.getpid()}")
    part.write_text(f"{at!r}\n")  # exactly: a reader's clock, read after, is never behind it
    os.replace(part, path)


def age(path: str | Path) -> float | None:
    """Seconds since the beat in `path` (None: no beat can be read there, or one from the
    future: a file left from before the laptop restarted, its clock since boot ahead of now)."""
    try:
        with open(path, "rb") as file:
            beat = float(file.read(64))
    except (OSError, ValueError):
        return None
    since = now() - beat  # read after the beat: behind it only if it is from another boot
    return since if since >= 0 else None


def paused_for() -> float | None:
    """In a server the hall process runs: how long since its last beat, if that is too long
    (None: it beat lately, or this process is not given a beat to check)."""
    path = os.environ.get(BEAT_ENV)
    if not path:
        return None
    since = age(path)
    if since is None:
        return float("inf")
    return since if since > pause_seconds() else None


def check_in_append() -> None:
    """Under the chain lock: raise HallPaused while the hall's beat is old (paused_for)."""
    if paused_for() is not None:
        raise HallPaused(PAUSED_MESSAGE)


class Beat:
    """The hall process's beat: a thread writing the time into `path` every BEAT_SECONDS,
    which stops when it finds it was paused (`paused`) until `resume()` is called."""

    def __init__(self, path: Path, clock: Callable[[], float] = now, every: float = BEAT_SECONDS):
        self.path, self.clock, self.every = path, clock, every
        self.pause = pause_seconds()
        self.paused: float | None = None  # seconds the pause lasted, until resume()
        self._last = 0.0
        self._failing = False  # the last write failed (said once)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="hall-beat", daemon=True)

    def start(self) -> Beat:
        """The first beat, at once, then one every `every` seconds."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._last = self.clock()
        write(self.path, self._last)
        self._thread.start()
        return self

    def env(self) -> dict[str, str]:
        """What the hall process's server is given to read the beat."""
        return {BEAT_ENV: str(self.path)}

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self.tick()

    def tick(self) -> None:
        """One beat, unless the time since the last says this process was paused."""
        at = self.clock()
        with self._lock:
            if self.paused is None and at - self._last > self.pause:
                self.paused = at - self._last
            self._last = at
            if self.paused is None:
                self._write(at)

    def resume(self) -> None:
        """After the hall process looked at the network: beat again, now."""
        with self._lock:
            self.paused = None
            self._last = self.clock()
            self._write(self._last)

    def _write(self, at: float) -> None:
        try:
            write(self.path, at)
        except OSError as exc:  # its server then judges nothing: say why, once
            if not self._failing:
                log.error("the hall's beat cannot be written to %s: %s", self.path, exc)
            self._failing = True
            return
        if self._failing:
            log.warning("the hall's beat is written again to %s", self.path)
        self._failing = False

    def stop(self) -> None:
        """No more beats; the file goes (a server left running judges nothing)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        self.path.unlink(missing_ok=True)
