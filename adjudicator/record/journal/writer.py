"""The laptop that writes the journal: this data home's install id and the machine's host name.

The install id is random, made once in the data home (`install-id`). Every row the journal
appends names it (the row's `install`, hashed with the row, so it cannot be changed without
breaking the chain and the row's keyed hash): rows another laptop wrote after a takeover prove
the takeover by themselves (copies/one_hall.py), whatever side file is deleted. A laptop is
named to the director by both, as `'vm' (install 3f2a9c1e)`: host names are often alike.
"""

from __future__ import annotations

import secrets
import socket
import threading
from pathlib import Path

from adjudicator import settings
from adjudicator.durable import write_whole

INSTALL_FILE = "install-id"
SHOWN = 8  # the digits of an install id a person is shown
_known: dict[str, str] = {}  # data home (and the setting naming it) -> its install id
_lock = threading.Lock()


def install_id(create: bool = True) -> str | None:
    """This data home's install id (made once). None when it has none and `create` is False (a
    read makes nothing). Kept for the life of the process once known: a file deleted while it
    serves does not change who wrote its rows."""
    setting = settings.get("home")
    known = _known.get(setting)  # by the setting as written: a row pays one look-up
    if known is not None:
        return known
    home = str(Path(setting).expanduser())
    known = _known.get(home)
    if known is not None:
        _known[setting] = known
        return known
    with _lock:
        path = Path(home) / INSTALL_FILE
        try:
            found = path.read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            found = ""
        if not is_install_id(found):
            if not create:
                return None
            found = secrets.token_hex(16)
            write_whole(path, found.encode("ascii"))
        _known[home] = _known[setting] = found
        return found


def is_install_id(text: object) -> bool:
    """Whether `text` is an install id (32 lowercase hex digits)."""
    return isinstance(text, str) and len(text) == 32 and all(c in "0123456789abcdef" for c in text)


def row_install() -> str | None:
    """The install id rows are written with: this data home's, made if need be; None (the
    rows then name no laptop) where the data home cannot be written, so a verdict never fails
    for it."""
    try:
        return install_id()
    except OSError:
        return None


def host_name() -> str:
    """This laptop's host name, as statements and refusals show it."""
    return socket.gethostname()[:64] or "unknown"


def laptop(install: str | None, host: str | None = None) -> str:
    """A laptop as the director is shown it: `'vm' (install 3f2a9c1e)`."""
    shown = f"install {str(install or '')[:SHOWN] or 'unknown'}"
    return f"{host!r} ({shown})" if host else f"the laptop with {shown}"


def this_laptop() -> str:
    """This laptop, named as `laptop` names one (its install id made if it has none)."""
    return laptop(install_id(), host_name())


def this_laptop_if_known() -> str:
    """This laptop as `laptop` names one, without making an install id (a read)."""
    return laptop(install_id(create=False), host_name())
