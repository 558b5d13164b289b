"""Which connections a worker holds, and for whom: room for the paired kiosks and the director
whatever else the hall's Wi-Fi sends.

A connection the worker accepts shows no credential until its first request head does; it is
*anonymous*, counted by its client address (kiosk/server/capped_server.py accepts it):

- *parked* while nothing has arrived on it: the worker holds its socket and nothing else (no
  TLS, no stream) and hands it to Tornado as soon as a byte comes (`Admission.park`);
- at most `per_address` anonymous connections of one address are on the usual deadlines; past
  that, a new one is on *probation*: it must show a credential in a request head within
  PROBATION_SECONDS of being accepted, or it closes (before TLS, if it sent nothing);
- anonymous connections (parked or not, on probation or not) share at most `anonymous_most`
  of the worker's `limit`: past that, to make room for a new one, the oldest idle anonymous
  connection of the address holding the most is closed, a parked one first (never one whose
  request the app is answering). So a flood from one address churns through that address's
  own connections, and a kiosk's new one, which sends its first bytes at once, is let in.

A TLS server's new connections begin their handshake within a budget (adjudicator/hall/network/
handshake_budget.py: so many a second from one address, and in all): one past it waits for its
turn holding its socket only, the waiting handed over an address at a time in turn; one whose
address already has TURNS_PER_ADDRESS waiting is closed as it is accepted (`turned_away`).

A head that shows a credential the worker's snapshot knows (kiosk/server/credentials.py: a
paired kiosk's token or cookie, a staff session) makes its connection *known*: counted by that
credential, no longer by its address, and never closed to make room for another's. One
credential holds at most `per_credential` connections (a browser opens six): a request showing
it on another takes the place of one its client has given up: hung up (a client that reconnects
as fast as it is answered leaves connections the loop has not yet seen close) or idle a second
(a browser's pool keeps connections it no longer needs); while all six are in use, the request
is answered 429 from its head, five seconds later (loop_requests: a stolen token asking on a
thousand connections as fast as answered gets a few hundred answers a second, not thousands),
and that connection stays anonymous (on probation, it closes).
Every head must arrive within `head_seconds` of the connection's start or of its last answer
(a known connection's next head, within KNOWN_IDLE_SECONDS: a kiosk's challenges come minutes
apart, and a kept connection spares a handshake; the idlest closes where the worker is full),
and a body within its own deadline (loop_requests); what was closed for being slow is told
from an idle connection ending by whether any byte of the head had come (the kernel's count).

What is refused or closed is noted by kind and address (adjudicator/hall/network/
connection_caps.py) for the log, the overview and /healthz. A kiosk holds one poll open at a
time (`hold_begins`): its further polls are answered after a second, not held (loop_bridge).
"""

from __future__ import annotations

import select
import socket
import struct
import time
from collections import Counter
from collections.abc import Callable

from tornado.ioloop import IOLoop

from adjudicator.hall.network.connection_caps import ADDRESS_CAP, NEW_CONNECTIONS, Refusals
from adjudicator.hall.network.handshake_budget import HandshakeBudget

PROBATION_SECONDS = 1.0  # past its address's cap, a connection shows a credential this soon
ANONYMOUS_SHARE = 0.5  # of a worker's connections, those showing no credential hold at most this
PER_CREDENTIAL = 6  # connections a kiosk (or a staff session) holds in a worker: a browser's six
TURNS_PER_ADDRESS = 32  # connections of one address waiting for a handshake; more are closed
IDLE_GIVEN_UP_SECONDS = 1.0  # one of them idle this long makes room for its newest (see head)
KNOWN_IDLE_SECONDS = 300.0  # a kiosk's connection waits this long for its next request
_RESET = struct.pack("ii", 1, 0)  # SO_LINGER on, 0 s: close with a reset, no TIME_WAIT kept
_TCP_INFO = getattr(socket, "TCP_INFO", 11)
_BYTES_RECEIVED = slice(128, 136)  # struct tcp_info's tcpi_bytes_received (Linux 4.1 and on)
GO, OVER_QUOTA, ON_PROBATION = "go", "over quota", "on probation"


class Entry:
    """One connection the worker holds."""

    __slots__ = (
        "address",
        "peer",
        "sock",
        "stream",
        "who",
        "probation",
        "busy",
        "timer",
        "mark",
        "heads",
        "gone",
        "idle_since",
        "turn",
    )

    def __init__(self, address: str, peer, sock: socket.socket, probation: bool):
        self.address = address  # what it is counted by (an IPv6 address by its /64)
        self.peer = peer  # accept's address
        self.sock = sock  # the accepted socket (the stream's own, wrapped, once handed over)
        self.stream = None  # Tornado's stream once it is handed over; None: parked
        self.who: str | None = None  # the credential its head showed
        self.probation = probation
        self.busy = 0  # requests on it the app is answering
        self.timer = None  # its deadline now (head or body)
        self.mark = 0  # bytes received when that deadline began
        self.heads = 0  # request heads it has sent
        self.gone = False  # closed: counted no longer
        self.idle_since = time.monotonic()  # when it last began to wait for a request's head
        self.turn: Callable[[Entry], None] | None = None  # waiting for its handshake: its hand-over


class Admission:
    """The connections one server (one listening port) of a worker holds, and whose they are."""

    def __init__(
        self,
        limit: int,
        per_address: int,
        head_seconds: float,
        refusals: Refusals,
        anonymous_most: int | None = None,
        per_credential: int = PER_CREDENTIAL,
        on_note: Callable[[], None] = lambda: None,
        budget: HandshakeBudget | None = None,
    ):
        self.limit = limit
        self.per_address = per_address  # 0: no cap per address
        self.head_seconds = head_seconds
        self.refusals = refusals
        self.anonymous_most = anonymous_most or max(1, int(limit * ANONYMOUS_SHARE))
        self.per_credential = per_credential
        self.on_note = on_note  # something was noted: the server writes and logs it in time
        self.entries: dict[object, Entry] = {}  # by stream
        self.parked: dict[socket.socket, Entry] = {}
        self.anonymous: dict[str, dict[Entry, None]] = {}  # by address, oldest first
        self.on_probation: dict[str, dict[Entry, None]] = {}
        self.sizes = _Sizes()  # anonymous connections by address, the largest at hand
        self.known: Counter[str] = Counter()
        self.by_credential: dict[str, dict[Entry, None]] = {}  # known connections, oldest first
        self.holding: Counter[str] = Counter()  # held polls, by kiosk
        self.open = 0
        self.last_closed = -1.0  # when a connection was last refused or closed to make room
        self.budget = budget  # new TLS connections a second (None: no handshakes here)
        self.turns: dict[str, dict[Entry, None]] = {}  # waiting for a handshake, by address
        self.turns_due = None  # the loop's timeout that hands the next ones over

    # --- accepting ---

    def full(self) -> bool:
        """No room for another connection, none to close for it: leave it in the backlog."""
        return (
            self.open >= self.limit and not self._count_anonymous() and self._idle_known() is None
        )

    def turned_away(self, address: str) -> bool:
        """Whether a connection just accepted from `address` is closed at once, before it costs
        anything: as many of that address's as may wait for a handshake already do."""
        return bool(self.per_address) and len(self.turns.get(address, ())) >= TURNS_PER_ADDRESS

    def refuse(self, sock: socket.socket, address: str) -> None:
        """Close a connection just accepted (`turned_away`), with a reset; noted."""
        _reset(sock)
        sock.close()
        self.note(address, NEW_CONNECTIONS)

    def admit(self, sock: socket.socket, peer, address: str) -> Entry:
        """A connection just accepted: its entry (anonymous, on probation past its address's
        cap). Room is made first: the oldest idle anonymous connection of the address holding
        the most is closed where the anonymous share or the worker is full."""
        held = len(self.anonymous.get(address, ())) - len(self.on_probation.get(address, ()))
        probation = bool(self.per_address) and held >= self.per_address
        while self.open >= self.limit or self._count_anonymous() >= self.anonymous_most:
            biggest = self.sizes.largest()
            if biggest is None or not self._close_one(biggest, "anonymous_full"):
                break
        while self.open >= self.limit:
            idle = self._idle_known()
            if idle is None:
                break
            self.close(idle)  # a browser opens another when it needs one
        entry = Entry(address, peer, sock, probation)
        self.anonymous.setdefault(address, {})[entry] = None
        self.sizes.add(address)
        if probation:
            self.on_probation.setdefault(address, {})[entry] = None
        self.open += 1
        seconds = PROBATION_SECONDS if probation else self.head_seconds
        self._arm(entry, seconds, self._head_late)
        return entry

    def park(self, entry: Entry, hand_over: Callable[[Entry], None]) -> None:
        """Hold `entry`'s socket until a byte arrives on it, then `hand_over` (at once if one
        is there already)."""
        try:
            waiting = entry.sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
        except BlockingIOError:
            waiting = None
        except OSError:
            waiting = b""
        if waiting is not None:
            self._arrived(entry, hand_over, waiting)
            return
        self.parked[entry.sock] = entry
        IOLoop.current().add_handler(
            entry.sock, lambda sock, events: self._unpark(sock, hand_over), IOLoop.READ
        )

    def handed_over(self, entry: Entry, stream) -> None:
        """Tornado made `entry` a stream (`CappedHTTPServer.handle_stream`)."""
        entry.stream, entry.sock = stream, stream.socket
        self.entries[stream] = entry

    # --- a request's head and body ---

    def waiting(self, stream) -> None:
        """`stream` waits for its next request's head (its first's deadline began at accept)."""
        entry = self.entries.get(stream)
        if entry is not None and entry.heads:
            entry.idle_since = time.monotonic()
            seconds = self.head_seconds if entry.who is None else KNOWN_IDLE_SECONDS
            self._arm(entry, seconds, self._head_late)

    def head(self, stream, showing: Callable[[], str | None]) -> str:
        """A request's head arrived on `stream`; `showing()` says whose credential it shows
        (None: none the snapshot knows), asked only of a connection not yet known: GO,
        OVER_QUOTA (refuse it: its credential holds enough connections) or ON_PROBATION
        (refuse it, and close: past its address's cap, it showed none)."""
        entry = self.entries.get(stream)
        if entry is None:
            return GO
        entry.heads += 1
        self._disarm(entry)
        if entry.who is not None:
            return GO
        who = showing()
        if (
            who is not None
            and self.known[who] >= self.per_credential
            and not self._replace_idle(who)
        ):
            self.note(entry.address, "kiosk_connections")
            return ON_PROBATION if entry.probation else OVER_QUOTA
        if who is not None:
            self._unlist(entry)
            entry.who, entry.probation = who, False
            self.known[who] += 1
            self.by_credential.setdefault(who, {})[entry] = None
            return GO
        if entry.probation:
            self.note(entry.address, ADDRESS_CAP)
            return ON_PROBATION
        return GO

    def body_due(self, stream, seconds: float) -> None:
        """`stream`'s request body must all arrive within `seconds`."""
        entry = self.entries.get(stream)
        if entry is not None:
            self._arm(entry, seconds, self._body_late)

    def body_done(self, stream) -> None:
        entry = self.entries.get(stream)
        if entry is not None:
            self._disarm(entry)

    def busy(self, stream, change: int) -> None:
        """The app starts (1) or ends (-1) answering a request on `stream`: meanwhile it is
        never closed to make room."""
        entry = self.entries.get(stream)
        if entry is not None:
            entry.busy += change

    def credited(self, stream) -> bool:
        """Whether `stream`'s connection showed a credential (a paired kiosk, a staff session)."""
        entry = self.entries.get(stream)
        return entry is not None and entry.who is not None

    # --- held polls ---

    def hold_begins(self, holder: str, stream) -> bool:
        """Whether a poll of kiosk `holder` may be held now (none of its others is); if not,
        it is noted against `stream`'s address, and answered without being held."""
        if self.holding[holder]:
            self.note_on(stream, "held_poll")
            return False
        self.holding[holder] += 1
        return True

    def hold_ends(self, holder: str) -> None:
        self.holding[holder] -= 1
        if self.holding[holder] <= 0:
            del self.holding[holder]

    # --- closing ---

    def forget(self, stream) -> None:
        """`stream` closed (Tornado's `on_close`)."""
        entry = self.entries.pop(stream, None)
        if entry is not None:
            self._drop(entry)

    def close(self, entry: Entry, kind: str | None = None) -> None:
        """Close `entry` now, with a reset; noted as `kind` (None: not noted)."""
        if kind is not None:
            self.note(entry.address, kind)
        _reset(entry.sock)
        self._drop(entry)  # at once: the count of its kind goes down before the next look
        if entry.stream is not None:
            entry.stream.close()  # Tornado's on_close comes after
            return
        if self.parked.pop(entry.sock, None) is not None:
            IOLoop.current().remove_handler(entry.sock)
        entry.sock.close()

    def note_on(self, stream, kind: str) -> None:
        """Note `kind` against the address of `stream`'s connection."""
        entry = self.entries.get(stream)
        if entry is not None:
            self.note(entry.address, kind)

    def note(self, address: str, kind: str) -> None:
        self.last_closed = time.monotonic()
        self.refusals.note(address, kind=kind)
        self.on_note()

    def close_all_parked(self) -> None:
        """A stop: the parked sockets, and those waiting for a handshake, are closed (Tornado
        closes its streams)."""
        if self.turns_due is not None:
            IOLoop.current().remove_timeout(self.turns_due)
            self.turns_due = None
        waiting = [entry for entries in self.turns.values() for entry in entries]
        for entry in list(self.parked.values()) + waiting:
            self.close(entry)

    # --- inside ---

    def _arrived(self, entry: Entry, hand_over, waiting: bytes) -> None:
        if not waiting:  # the client closed it already
            self.close(entry)
        elif self.budget is None or (
            entry.address not in self.turns and self.budget.take(entry.address)
        ):
            self._begin(entry, hand_over)
        else:
            self._wait_turn(entry, hand_over)

    def _begin(self, entry: Entry, hand_over) -> None:
        hand_over(entry)
        if entry.stream is None:
            self._drop(entry)  # Tornado gave up on it (a TLS error at once)

    def _wait_turn(self, entry: Entry, hand_over) -> None:
        """Past the handshake budget: `entry` waits for its turn (its socket only, no TLS),
        or, where its address has as many waiting as may, it is closed."""
        if self.turned_away(entry.address):
            self.close(entry, NEW_CONNECTIONS)
            return
        entry.turn = hand_over
        self.turns.setdefault(entry.address, {})[entry] = None
        self._turns_later()

    def _turns_later(self) -> None:
        if self.turns_due is None and self.turns and self.budget is not None:
            seconds = min(self.budget.wait(address) for address in self.turns)
            self.turns_due = IOLoop.current().call_later(seconds, self._take_turns)

    def _take_turns(self) -> None:
        """Hand over the waiting connections the budget has room for now, an address at a
        time in turn (oldest first within each), then wait for the next."""
        self.turns_due = None
        budget = self.budget
        while self.turns and budget is not None:
            moved = False
            for address in list(self.turns):
                if not budget.take(address):
                    continue
                waiting = self.turns.pop(address)
                entry = next(iter(waiting))
                del waiting[entry]
                if waiting:
                    self.turns[address] = waiting  # to the back of the line
                hand_over, entry.turn = entry.turn, None
                if hand_over is not None:
                    self._begin(entry, hand_over)
                moved = True
            if not moved:
                break
        self._turns_later()

    def _leave_turns(self, entry: Entry) -> None:
        waiting = self.turns.get(entry.address)
        if waiting is not None and entry in waiting:
            del waiting[entry]
            if not waiting:
                del self.turns[entry.address]
        entry.turn = None

    def _unpark(self, sock: socket.socket, hand_over) -> None:
        entry = self.parked.pop(sock, None)
        IOLoop.current().remove_handler(sock)
        if entry is None:
            return
        try:
            waiting = sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
        except BlockingIOError:  # woken for nothing: park it again
            self.park(entry, hand_over)
            return
        except OSError:
            waiting = b""
        self._arrived(entry, hand_over, waiting)

    def _close_one(self, address: str, kind: str) -> bool:
        """Close the oldest anonymous connection of `address` the app is not answering: one past
        its cap (on probation) before one within it, a parked one (idle since it came) first;
        noted as `kind`, or as past its address's cap if it was on probation."""
        for entries in (self.on_probation.get(address, {}), self.anonymous.get(address, {})):
            victim = next((e for e in entries if e.stream is None), None)
            if victim is None:
                victim = next((e for e in entries if not e.busy), None)
            if victim is not None:
                self.close(victim, ADDRESS_CAP if victim.probation else kind)
                return True
        return False

    def _replace_idle(self, who: str) -> bool:
        """Close the oldest connection of credential `who` that its client has given up (hung
        up while the loop has not yet seen it close, or idle IDLE_GIVEN_UP_SECONDS: a browser's
        pool reopens one at will), to make room for its newest; False if none is. Six live,
        busy connections are a kiosk's most: a stolen token on a thousand connections asking
        as fast as answered earns its 429s, not places in turn."""
        since = time.monotonic() - IDLE_GIVEN_UP_SECONDS
        victim = next(
            (
                entry
                for entry in self.by_credential.get(who, {})
                if not entry.busy and (entry.idle_since <= since or _hung_up(entry.sock))
            ),
            None,
        )
        if victim is None:
            return False
        self.close(victim)
        return True

    def _idle_known(self) -> Entry | None:
        """The known connection idle longest (at least IDLE_GIVEN_UP_SECONDS), if any: where
        the worker is full, it makes room (a kiosk's are kept alive KNOWN_IDLE_SECONDS between
        its challenges, so that a tablet seldom needs a new handshake)."""
        since = time.monotonic() - IDLE_GIVEN_UP_SECONDS
        idle = [
            entry
            for mine in self.by_credential.values()
            for entry in mine
            if not entry.busy and entry.idle_since <= since
        ]
        return min(idle, key=lambda entry: entry.idle_since, default=None)

    def _count_anonymous(self) -> int:
        return self.sizes.total

    def _unlist(self, entry: Entry) -> None:
        """`entry` no longer counts as anonymous (it showed a credential, or closed)."""
        listed = self.anonymous.get(entry.address)
        if listed is not None and entry in listed:
            del listed[entry]
            self.sizes.remove(entry.address)
            if not listed:
                del self.anonymous[entry.address]
        waiting = self.on_probation.get(entry.address)
        if waiting is not None:
            waiting.pop(entry, None)
            if not waiting:
                del self.on_probation[entry.address]

    def _drop(self, entry: Entry) -> None:
        """`entry` is closed: it counts no longer (once, however it closed)."""
        if entry.gone:
            return
        entry.gone = True
        if entry.turn is not None:
            self._leave_turns(entry)
        if entry.timer is not None:
            IOLoop.current().remove_timeout(entry.timer)
            entry.timer = None
        if entry.who is not None:
            self.known[entry.who] -= 1
            if self.known[entry.who] <= 0:
                del self.known[entry.who]
            mine = self.by_credential.get(entry.who, {})
            mine.pop(entry, None)
            if not mine:
                self.by_credential.pop(entry.who, None)
            entry.who = None
        else:
            self._unlist(entry)
        self.open -= 1

    def _arm(self, entry: Entry, seconds: float, late: Callable[[Entry], None]) -> None:
        loop = IOLoop.current()
        if entry.timer is not None:
            loop.remove_timeout(entry.timer)
        entry.mark = _received(entry.sock)
        entry.timer = loop.call_later(seconds, late, entry)

    def _disarm(self, entry: Entry) -> None:
        if entry.timer is not None:
            IOLoop.current().remove_timeout(entry.timer)
            entry.timer = None

    def _head_late(self, entry: Entry) -> None:
        """No head in time: past its address's cap, it is refused; a head begun and not
        finished was too slow; a connection that sent nothing since its last answer ends
        quietly (a browser keeps one open in case)."""
        entry.timer = None
        if entry.turn is not None:
            kind = NEW_CONNECTIONS  # its handshake's turn did not come in time
        elif entry.probation and entry.who is None:
            kind = ADDRESS_CAP
        elif _received(entry.sock) > entry.mark:
            kind = "slow_request"
        else:
            kind = None
        self.close(entry, kind)

    def _body_late(self, entry: Entry) -> None:
        entry.timer = None
        self.close(entry, "slow_request")


class _Sizes:
    """How many anonymous connections each address holds, and which holds the most, at hand."""

    def __init__(self):
        self.size: Counter[str] = Counter()
        self.holding: dict[int, set[str]] = {}  # by size: the addresses of that size
        self.most = 0
        self.total = 0

    def add(self, address: str) -> None:
        size = self.size[address]
        self._move(address, size, size + 1)
        self.most = max(self.most, size + 1)
        self.total += 1

    def remove(self, address: str) -> None:
        size = self.size[address]
        if size <= 0:
            return
        self._move(address, size, size - 1)
        while self.most and not self.holding.get(self.most):
            self.most -= 1
        self.total -= 1

    def largest(self) -> str | None:
        addresses = self.holding.get(self.most)
        return next(iter(addresses)) if addresses else None

    def _move(self, address: str, old: int, new: int) -> None:
        if old:
            self.holding[old].discard(address)
            if not self.holding[old]:
                del self.holding[old]
        if new:
            self.holding.setdefault(new, set()).add(address)
            self.size[address] = new
        else:
            del self.size[address]


def _reset(sock: socket.socket) -> None:
    """Make `sock`'s close a reset (no TIME_WAIT kept)."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _RESET)
    except OSError:
        pass


def _hung_up(sock: socket.socket) -> bool:
    """Whether the client has closed (or reset) its end of `sock`: the kernel says so at once,
    pending bytes (a TLS close_notify) or not."""
    try:
        watch = select.poll()
        watch.register(sock.fileno(), select.POLLRDHUP)
        return bool(watch.poll(0))
    except (OSError, ValueError):
        return True  # already closed here


def _received(sock: socket.socket) -> int:
    """Bytes the kernel has received on `sock` (0 where it cannot say)."""
    try:
        info = sock.getsockopt(socket.IPPROTO_TCP, _TCP_INFO, 136)
    except (OSError, ValueError):
        return 0
    if len(info) < _BYTES_RECEIVED.stop:
        return 0
    return int.from_bytes(info[_BYTES_RECEIVED], "little")
