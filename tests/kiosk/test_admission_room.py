"""Where a server process is full, a paired kiosk's idlest connection (kept open between its
challenges, kiosk/server/admission.py) is closed to make room for a new one; one the kiosk is
using, or used within the last second, is not. The admission is driven here directly, on a
real event loop and real sockets."""

from __future__ import annotations

import asyncio
import socket
import time

from adjudicator.hall.network.connection_caps import Refusals
from kiosk.server.admission import GO, IDLE_GIVEN_UP_SECONDS, Admission


class Stream:
    """What the admission needs of Tornado's stream: its socket, and a close."""

    def __init__(self, sock: socket.socket):
        self.socket = sock
        self.closed = False

    def close(self) -> None:
        self.closed = True
        self.socket.close()


def known(admission: Admission, kiosk: str, pairs: list) -> Stream:
    """A connection accepted, handed over, and known by the kiosk credential its head showed."""
    mine, theirs = socket.socketpair()
    pairs.append(theirs)
    entry = admission.admit(mine, ("192.0.2.7", 5000), "192.0.2.7")
    stream = Stream(mine)
    admission.handed_over(entry, stream)
    assert admission.head(stream, lambda: kiosk) == GO
    admission.waiting(stream)  # answered: it waits for the kiosk's next request
    return stream


def test_the_idlest_kiosk_connection_makes_room_where_the_worker_is_full():
    async def run() -> None:
        pairs: list = []
        admission = Admission(limit=3, per_address=0, head_seconds=4, refusals=Refusals())
        oldest = known(admission, "kiosk-a", pairs)
        newer = known(admission, "kiosk-b", pairs)
        busy = known(admission, "kiosk-c", pairs)
        admission.busy(busy, 1)  # a request of it is being answered
        long_ago = time.monotonic() - IDLE_GIVEN_UP_SECONDS - 5
        for stream, back in ((oldest, 3), (newer, 1), (busy, 10)):
            admission.entries[stream].idle_since = long_ago + 5 - back
        assert not admission.full()  # full, but an idle kiosk connection can make room
        newest = known(admission, "kiosk-d", pairs)  # accepted: the idlest made room
        assert oldest.closed and not newer.closed and not busy.closed and not newest.closed
        assert admission.open == 3

        admission.entries[newer].idle_since = time.monotonic()  # used again just now
        assert admission.full()  # none idle a second: a new one waits in the backlog
        for sock in pairs:
            sock.close()

    asyncio.run(run())
