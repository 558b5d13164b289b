"""Where a TSH event is read from: a `tourney.js` file, an event folder, or an http(s) URL of
a published `tourney.js`; and reading it, with what tells the next read whether it changed
(a file's size and times; a URL's ETag and Last-Modified, sent back so that an unchanged file
costs the web server a 304)."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from adjudicator.hall.tsh import event_folder, regular_file, tourney_js
from adjudicator.hall.tsh.event import Event, TshError

MAX_BYTES = 16 * 1024 * 1024  # a tourney.js of a 1,000-player event is a few MB
FETCH_TIMEOUT_SECONDS = 10  # for connecting, and for each wait for the server's next bytes
FETCH_DEADLINE_SECONDS = 20  # for the whole answer: a server dripping bytes stalls no one
MAX_URL_SHOWN = 300  # a redirect's address in a message (a web server writes it)
HTML_JS = Path("html") / "tourney.js"  # where TSH publishes it in an event folder by default


@dataclass(frozen=True)
class Source:
    """A linked source: `text` as the director gave it (a URL, or the absolute path)."""

    text: str
    kind: str  # "url", "file" or "folder"

    @property
    def path(self) -> Path:
        return Path(self.text)


@dataclass(frozen=True)
class Reading:
    """One read of a source: the event (None when a URL answered 304 Not Modified) and the
    stamp the next read compares (file times, or the HTTP validators)."""

    event: Event | None
    stamp: str | None


def parse(text: str) -> Source:
    """The source a director named, or TshError saying what to give instead."""
    text = (text or "").strip()
    if not text:
        raise TshError("Give TSH's tourney.js, the event's folder, or the URL of its tourney.js.")
    if text.lower().startswith(("http://", "https://")):
        return Source(text, "url")
    if "://" in text:
        raise TshError(f"{text} is not an http(s) URL, a file or a folder.")
    path = Path(text).expanduser().resolve()
    if path.is_dir():
        if any((path / name).exists() for name in event_folder.CONFIG_NAMES):
            return Source(str(path), "folder")
        if (path / HTML_JS).is_file() or (path / "tourney.js").is_file():
            found = path / HTML_JS if (path / HTML_JS).is_file() else path / "tourney.js"
            return Source(str(found), "file")
        event_folder.config_path(path)  # raises, saying what the folder lacks
    if path.exists():
        regular_file.check(Path(text).expanduser())  # a FIFO or a device, named as given
        return Source(str(path), "file")
    raise TshError(f"There is no file or folder {path}.")


def read(source: Source, stamp: str | None = None) -> Reading:
    """Read the source now. For a URL, `stamp` (the last read's) asks the server for the file
    only if it changed."""
    if source.kind == "url":
        return _fetch(source.text, stamp)
    before = file_stamp(source)  # taken first: a write during the read makes a new stamp
    if source.kind == "folder":
        return Reading(event_folder.read(source.path), before)
    return Reading(
        tourney_js.read(event_folder.read_file(source.path, limit=MAX_BYTES), source.path.name),
        before,
    )


def file_stamp(source: Source) -> str | None:
    """Size, modification time and inode of each file the event is read from: a changed
    stamp means the event must be read again. None for a URL."""
    if source.kind == "url":
        return None
    try:
        paths = event_folder.files(source.path) if source.kind == "folder" else [source.path]
        parts = []
        for path in paths:
            info = path.stat()
            parts.append(f"{path.name}:{info.st_size}:{info.st_mtime_ns}:{info.st_ino}")
        return "|".join(parts)
    except (OSError, TshError) as exc:
        return f"unreadable:{exc}"


class _SameHostRedirects(urllib.request.HTTPRedirectHandler):
    """Redirects are followed only on the linked host (`same_host`): a hostile web server
    must not make the hall fetch its LAN's or its own other addresses every 30 s, nor read
    what those answered (refused, 404, timed out) in the overview."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        if not newurl.lower().startswith(("http://", "https://")):
            raise TshError(
                f"{req.full_url} redirects to {newurl[:MAX_URL_SHOWN]}: not an http(s) URL."
            )
        if not same_host(req.full_url, newurl):
            raise TshError(
                f"{req.full_url} redirects to {newurl[:MAX_URL_SHOWN]}: the hall follows a "
                "redirect only on the linked host (the same scheme, host and port, or from "
                "http to https on the same host), and fetched nothing there. If you trust that "
                "address, link it itself (adjudicator tsh link SLUG URL)."
            )
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def same_host(url: str, newurl: str) -> bool:
    """Whether a redirect from `url` to `newurl` stays on its host: the same scheme, host and
    port, or from http to https on the same host (any port); never from https to http, and
    never to another scheme."""
    try:
        old, new = urllib.parse.urlsplit(url), urllib.parse.urlsplit(newurl)
        old_port, new_port = _port(old), _port(new)
    except ValueError:  # a port that is not a number
        return False
    if new.scheme not in ("http", "https") or not new.hostname:
        return False
    if new.hostname != old.hostname:
        return False
    if new.scheme == old.scheme:
        return new_port == old_port
    return old.scheme == "http" and new.scheme == "https"


def _port(parts: urllib.parse.SplitResult) -> int | None:
    if parts.port is not None:
        return parts.port
    return {"http": 80, "https": 443}.get(parts.scheme)


class _Deadline:
    """Every connection of one fetch, cut when the fetch's time is up: a server that sends a
    byte every few seconds never lets a read time out, so the whole answer gets a deadline."""

    def __init__(self, seconds: float):
        self.sockets: list[socket.socket] = []
        self.expired = False
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._cut)
        self._timer.daemon = True

    def __enter__(self) -> _Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self._timer.cancel()

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self.sockets.append(sock)
            if self.expired:
                _shut(sock)

    def _cut(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self.sockets:
                _shut(sock)

    def opener(self) -> urllib.request.OpenerDirector:
        """An opener whose connections this deadline cuts."""
        deadline = self

        def watched(base):
            class Watched(base):
                def connect(self):
                    super().connect()
                    deadline.watch(self.sock)

            return Watched

        class Http(urllib.request.HTTPHandler):
            def http_open(self, req):
                return self.do_open(watched(http.client.HTTPConnection), req)

        class Https(urllib.request.HTTPSHandler):
            def https_open(self, req):
                return self.do_open(
                    watched(http.client.HTTPSConnection), req, context=self._context
                )

        return urllib.request.build_opener(Http, Https, _SameHostRedirects)


def _shut(sock: socket.socket) -> None:
    """Wake a read waiting on the socket (the plain socket's shutdown: TLS's would race it)."""
    try:
        socket.socket.shutdown(sock, socket.SHUT_RDWR)
    except OSError:
        pass


def _fetch(url: str, stamp: str | None) -> Reading:
    validators = json.loads(stamp) if stamp else {}
    request = urllib.request.Request(url, headers={"User-Agent": "adjudicator-tsh-link"})
    if validators.get("etag"):
        request.add_header("If-None-Match", validators["etag"])
    if validators.get("last_modified"):
        request.add_header("If-Modified-Since", validators["last_modified"])
    conditional = bool(validators.get("etag") or validators.get("last_modified"))
    with _Deadline(FETCH_DEADLINE_SECONDS) as deadline:
        try:
            with deadline.opener().open(request, timeout=FETCH_TIMEOUT_SECONDS) as answer:
                data = answer.read(MAX_BYTES + 1)
                headers = answer.headers
        except urllib.error.HTTPError as exc:
            if exc.code == 304 and conditional:
                return Reading(None, stamp)
            if exc.code == 304:  # nothing was asked conditionally: there is nothing to keep
                raise TshError(
                    f"{url} answered 304 Not Modified to a plain request: it did not send the "
                    "tourney.js. Check the URL and the web server."
                ) from None
            raise TshError(f"{url} answered {exc.code} {exc.reason}.") from None
        except (http.client.HTTPException, urllib.error.URLError, OSError, ValueError) as exc:
            raise _fetch_error(url, exc, deadline.expired) from None
    if deadline.expired:  # cut while reading: what came is not the whole file
        raise _fetch_error(url, TimeoutError(), True)
    if len(data) > MAX_BYTES:
        raise TshError(f"{url} is larger than {MAX_BYTES} bytes: not TSH's tourney.js.")
    new_stamp = json.dumps(
        {"etag": headers.get("ETag"), "last_modified": headers.get("Last-Modified")},
        sort_keys=True,
    )
    return Reading(tourney_js.read(data, url), new_stamp)


def _fetch_error(url: str, exc: Exception, too_slow: bool) -> TshError:
    """What a failed fetch tells the director."""
    if too_slow:
        return TshError(
            f"{url} did not send the whole tourney.js within {FETCH_DEADLINE_SECONDS} s: "
            "check the web server (the hall tries again)."
        )
    if isinstance(exc, http.client.HTTPException):  # a reply that is not HTTP, or cut short
        return TshError(
            f"Cannot fetch {url}: its answer is not a whole HTTP reply "
            f"({type(exc).__name__}). Check the URL and the web server."
        )
    reason = getattr(exc, "reason", None) or exc
    return TshError(f"Cannot fetch {url}: {reason}.")
