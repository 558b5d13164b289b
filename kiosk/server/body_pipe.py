"""A large request body handed from the event loop to the app's thread as it arrives.

Small bodies are read whole on the loop before the app runs (`kiosk/server/loop_bridge.py`). A body
declared larger (only the director's upload may be) goes to the app at once, so the app can
refuse it before a byte of it is read; if the app reads it, the loop `feed`s the pipe and the
thread reads from it. Each of the thread's reads waits at most `read_seconds` (a client that
stops sending is cut, as its head would be), and the loop stops reading from the client while
more than `high_water` bytes wait unread (a fast upload is not held in memory whole).
"""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Callable

from tornado.concurrent import Future  # asyncio's: the loop awaits it

HIGH_WATER = 1024 * 1024


class BodyPipe(io.RawIOBase):
    """`wsgi.input` for a body still arriving: the loop feeds it, the app's thread reads it."""

    def __init__(
        self,
        read_seconds: float,
        call_on_loop: Callable[..., None],
        high_water: int = HIGH_WATER,
    ):
        super().__init__()
        self.read_seconds = read_seconds
        self._call_on_loop = call_on_loop  # IOLoop.add_callback: thread-safe
        self._high_water = high_water
        self._ready = threading.Condition()
        self._buffer = bytearray()
        self._ended = False  # the whole body arrived
        self._broken = False  # the client went, stalled, or the app answered
        self._room: Future | None = None

    # --- the loop's side ---

    def feed(self, data: bytes) -> Future | None:
        """On the loop: add bytes that arrived; a future to await first when the app lags."""
        with self._ready:
            if self._broken:
                return None
            self._buffer += data
            self._ready.notify_all()
            if len(self._buffer) >= self._high_water:
                self._room = Future()
                return self._room
        return None

    def end(self) -> None:
        """The body is complete: reads past it return end of file."""
        with self._ready:
            self._ended = True
            self._ready.notify_all()

    def break_off(self) -> None:
        """On the loop: the connection is gone (or the app answered); wake any waiting read."""
        with self._ready:
            self._broken = True
            self._buffer.clear()
            self._ready.notify_all()
            room, self._room = self._room, None
        if room is not None and not room.done():
            room.set_result(None)

    # --- the app thread's side ---

    def readable(self) -> bool:
        return True

    def readinto(self, target) -> int:
        """Wait (at most read_seconds) for bytes; 0 at the body's end. A client that stalled
        or went away raises OSError (the app sees a client that disconnected, never a short
        body taken for a whole one)."""
        with self._ready:
            deadline = time.monotonic() + self.read_seconds
            while not self._buffer and not self._ended and not self._broken:
                left = deadline - time.monotonic()
                if left <= 0:
                    self._broken = True
                    raise TimeoutError("the request's body stopped coming")
                self._ready.wait(left)
            if self._broken:
                raise ConnectionResetError("the client went away")
            size = min(len(target), len(self._buffer))
            target[:size] = self._buffer[:size]
            del self._buffer[:size]
            room = None
            if self._room is not None and len(self._buffer) < self._high_water // 2:
                room, self._room = self._room, None
        if room is not None:
            self._call_on_loop(_release, room)
        return size


def _release(room: Future) -> None:
    if not room.done():
        room.set_result(None)
