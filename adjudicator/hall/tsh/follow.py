"""The hall follows TSH: each linked source is read again when it changes, by one process.

Every server process runs one `Follower` thread (kiosk/server/wsgi.py starts it), off the request
path: every `ADJUDICATOR_TSH_POLL_SECONDS` it reads the links (one small query) and, for a file
or folder, the files' sizes and times. A link whose file changed, or whose URL was last asked
`ADJUDICATOR_TSH_URL_SECONDS` ago (and a failed or unfinished read, as often), is claimed with one
conditional update: the process whose update lands reads the source, the others leave it. So
one process fetches a URL every 30 s however many workers serve, and sends the last ETag and
Last-Modified back, so an unchanged tourney.js costs the web server a 304. A good read replaces
the games in one transaction; a failed one keeps the last good games and is recorded (what
failed, since when) for the director's overview. A challenge never waits for any of this: it
reads the stored games.
"""

from __future__ import annotations

import logging
import threading
from datetime import UTC, datetime

from adjudicator import settings
from adjudicator.hall.tsh import links
from adjudicator.hall.tsh import source as sources
from adjudicator.hall.tsh.event import TshError
from adjudicator.record.database.db import Database, DatabaseUnavailable

log = logging.getLogger("adjudicator.tsh")
UNEXPECTED_FAILURE = (
    "The hall could not read this source (an unexpected error, written to the server's log). "
    "Check the source in TSH, or link it again to see what is wrong."
)


class Follower:
    """Reads each linked source again when it is due, for this process."""

    def __init__(
        self,
        db: Database,
        poll_seconds: float | None = None,
        url_seconds: float | None = None,
    ):
        self.db = db
        self.poll_seconds = (
            poll_seconds if poll_seconds is not None else settings.get_int("tsh_poll_seconds", 1)
        )
        self.url_seconds = (
            url_seconds if url_seconds is not None else settings.get_int("tsh_url_seconds", 1)
        )
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> Follower:
        """Follow in a daemon thread until `stop`."""
        self._thread = threading.Thread(target=self._run, name="tsh-follower", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def _run(self) -> None:
        while not self._stop.wait(self.poll_seconds):
            try:
                self.run_once()
            except DatabaseUnavailable as exc:  # the journal's own alarms say more
                log.warning("TSH links not checked: %s", exc)
            except Exception:  # the thread must outlive any one bad read
                log.exception("TSH links not checked")

    def run_once(self) -> dict[str, str]:
        """Check every link once: what happened to each one this process read."""
        done = {}
        for found in links.all_links(self.db):
            source = sources.Source(found.source, found.kind)
            stamp = sources.file_stamp(source)
            if not self._due(found, stamp):
                continue
            mark = links.claim(self.db, found, stamp)
            if mark is None:
                continue  # another process took it
            done[found.tournament] = read_claimed(self.db, found, mark, source)
        return done

    def _due(self, found: links.Link, stamp: str | None) -> bool:
        """A URL every url_seconds; a file or folder when its stamp changes; a failed or
        unfinished read of either again after url_seconds."""
        if found.kind != "url" and stamp != found.stamp:
            return True
        if found.kind == "url" or found.failure or found.unfinished:
            return _seconds_since(found.checked_at) >= self.url_seconds
        return False


def read_claimed(db: Database, found: links.Link, mark: str, source: sources.Source) -> str:
    """Read a claimed link's source and store the result, good or failed."""
    try:
        reading = sources.read(source, found.stamp if found.kind == "url" else None)
        what = links.store_reading(db, found, mark, reading)
    except TshError as exc:
        links.store_failure(db, found, mark, str(exc))
        log.warning("TSH link of %s: %s (the last good pairings stay)", found.tournament, exc)
        return "failed"
    except DatabaseUnavailable:
        raise  # the journal's own alarms say more; the read is claimed again later
    except Exception:  # a case no check foresaw: the link must still show failing
        log.exception("TSH link of %s: reading %s failed", found.tournament, found.source)
        links.store_failure(db, found, mark, UNEXPECTED_FAILURE)
        return "failed"
    if what == "updated":
        log.info("TSH link of %s: new pairings read from %s", found.tournament, found.source)
    return what


def _seconds_since(mark: str) -> float:
    try:
        then = datetime.fromisoformat(mark.split("~", 1)[0])
    except ValueError:
        return float("inf")
    return (datetime.now(UTC) - then).total_seconds()


_started: Follower | None = None
_start_lock = threading.Lock()


def start_in_this_process() -> Follower:
    """The process's one follower, started on its own database connection."""
    global _started
    with _start_lock:
        if _started is None:
            from adjudicator.record.backends import connect

            _started = Follower(connect()).start()
    return _started
