"""The program's settings: one table, from which defaults, validation and docs derive.

Each setting can be given by the environment variable ADJUDICATOR_<NAME> (upper case).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from adjudicator.errors import SettingError


@dataclass(frozen=True)
class Setting:
    name: str
    default: str
    help: str

    @property
    def env_var(self) -> str:
        return "ADJUDICATOR_" + self.name.upper()


def _default_home() -> str:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(Path.home(), ".local", "share")
    return os.path.join(base, "adjudicator")


SETTINGS: tuple[Setting, ...] = (
    Setting("home", _default_home(), "Data home: compiled lexicons, journal, secrets."),
    Setting(
        "database_url",
        "",
        "The journal: an SQLite path, or postgresql://...; "
        "empty means journal.sqlite3 in the home.",
    ),
    Setting(
        "journal_mirror",
        "",
        "A second SQLite journal on another disk (a USB stick): every verdict is committed to "
        "both before it is shown; empty: no mirror.",
    ),
    Setting(
        "journal_verify_minutes",
        "5",
        "How often a serving hall verifies both copies of a mirrored journal in full (every "
        "row's hash, and every row a receipt or the high-water mark proves), in minutes; a copy "
        "that fails is dropped. 0 turns it off.",
    ),
    Setting("default_lexicon", "", "Lexicon `judge` uses when --lexicon is not given."),
    Setting(
        "default_rule",
        "",
        "Challenge rule `judge --lexicon` uses when --rule is not given; empty: no consequence.",
    ),
    Setting(
        "kiosk_rate_limit",
        "",
        "Challenges each kiosk may judge, such as 6/minute, the same for every kiosk; off: no "
        "limit. Unset, a kiosk is limited by what it serves: a kiosk at a table (`kiosk add "
        "--table N`) as that table, 6 a minute; a kiosk at no table, the whole hall's challenge "
        "computer, as the hall, 60 a minute and 6 from any one table its challenges name.",
    ),
    Setting(
        "bind", "127.0.0.1:8000", "Address `serve` listens on; 0.0.0.0:8000 for the hall network."
    ),
    Setting("workers", "2", "Number of gunicorn worker processes `serve` starts."),
    Setting(
        "header_timeout_seconds",
        "4",
        "Seconds a connection has for each request's head (the TLS handshake, request line "
        "and headers), each wait between kept-alive requests (a paired kiosk's or a signed-in "
        "director's waits 5 minutes), and each read of an upload; a "
        "body has as long again, plus a second for each 16 KB it declares: slower clients are "
        "disconnected, and never hold a server thread.",
    ),
    Setting("threads", "16", "Threads per worker: concurrent requests share journal commits."),
    Setting(
        "worker_connections",
        "4096",
        "Connections each server worker holds open at most (fewer if the open-file limit is "
        "lower): paired kiosks and staff first, connections that show no credential in at most "
        "half of them. Large enough that a flood from a few dozen addresses is held and slowed "
        "rather than closed and reopened (each reopening costs the laptop a TLS handshake).",
    ),
    Setting(
        "connections_per_address",
        "64",
        "Open connections that show no credential one client address may hold in each server "
        "worker (an IPv6 address counts by its /64); past that, a new one has a second to show "
        "a paired kiosk's credential or the director's session, or it is closed (before TLS if "
        "it sent nothing), logged once a minute, counted on /healthz and named on the "
        "director's overview. Paired tablets behind one NAT address are counted by kiosk, not "
        "by it; unpaired ones share its count. 0: no limit.",
    ),
    Setting(
        "public_url",
        "",
        "Address kiosks open, used in pairing links; empty means the URL `adjudicator hall` "
        "recorded, else http://<bind>.",
    ),
    Setting(
        "http_port",
        "8080",
        "The plain-HTTP port `adjudicator hall` serves the trust page and the CA certificate on "
        "(a tablet's first visit meets no certificate warning); everything else asked there "
        "is sent to HTTPS. 0 turns it off. Unset: the port the hall last served it on (a "
        "takeover's too), else 8080.",
    ),
    Setting("verdict_seconds", "10", "Seconds a verdict stays on the kiosk screen."),
    Setting("clear_seconds", "30", "Seconds without typing before the kiosk clears typed words."),
    Setting(
        "request_timeout_seconds",
        "8",
        "Seconds the kiosk page waits for the server's answer before showing NOT JUDGED.",
    ),
    Setting(
        "receipt_key_file",
        "",
        "The Ed25519 key that signs receipts and checkpoints; empty means receipt_key.pem in the "
        "home. Name one file on every app server so they sign with one key.",
    ),
    Setting(
        "lexicon_recheck_seconds",
        "60",
        "How often a serving process re-hashes the compiled lexicons it has open and reads "
        "their manifests again (checking each against its pin).",
    ),
    Setting("upload_limit_mb", "20", "Largest word list the director's page accepts, in MB."),
    Setting(
        "import_limit_mb",
        "256",
        "Largest a word list may be once decompressed, in MB (a gzip bomb stops here).",
    ),
    Setting(
        "import_memory_mb",
        "4096",
        "Memory (address space, MB) the separate process importing a director's upload may use.",
    ),
    Setting(
        "burst_challenges",
        "4",
        "The journal page flags a kiosk making more than this many challenges in burst_minutes.",
    ),
    Setting("burst_minutes", "5", "The window, in minutes, for flagging bursts from one kiosk."),
    Setting(
        "tsh_poll_seconds",
        "2",
        "How often each server process looks at the TSH files its tournaments are linked to "
        "(`tsh link`): a changed file is read again, by one process.",
    ),
    Setting(
        "tsh_url_seconds",
        "30",
        "How often a linked TSH URL is asked for its tourney.js (by one process, with its ETag "
        "and Last-Modified), and a failed read of a file or URL tried again.",
    ),
    Setting(
        "separate_lookup_seconds",
        "60",
        "Under the naspa rulebook, two challenges from one kiosk for the same tournament, "
        "table and round within this many seconds are flagged to the director as a possible "
        "improper separate look-up (NASPA 6.2); no table given, no flag; 0 turns it off.",
    ),
    Setting(
        "login_free_attempts",
        "3",
        "Sign-in attempts from one address for one name before each retry must wait longer.",
    ),
    Setting(
        "login_lockout_after",
        "10",
        "Sign-in attempts in a row from one address, for one name, that lock the address out "
        "(three times as many for any names).",
    ),
    Setting("login_lockout_minutes", "15", "How long a lock-out lasts, in minutes."),
    Setting(
        "name_check_seconds",
        "5",
        "How often `adjudicator hall` asks the network who answers for NAME.local, in seconds: "
        "another device answering is reported in the log, /healthz and the overview.",
    ),
    Setting(
        "hall_pause_seconds",
        "10",
        "How long `adjudicator hall` may be paused (the laptop asleep, its processes stopped) "
        "before it looks at the network again, for another laptop that took the hall over, "
        "before it judges again; at least 2 seconds.",
    ),
    Setting(
        "kit_refresh_seconds",
        "60",
        "How often a serving hall brings its takeover kit on the USB stick up to date (a "
        "lexicon a tournament starts using, a renewed certificate; `adjudicator kit seal`), in "
        "seconds, in the background; 0 turns it off (the start still does it).",
    ),
    Setting(
        "trusted_proxies",
        "0",
        "Reverse proxies in front of the server whose X-Forwarded-For and X-Forwarded-Proto "
        "are believed; 0 (no proxy) ignores those headers.",
    ),
    Setting(
        "secure_cookies",
        "auto",
        "Cookies only over HTTPS: on, off, or auto (on when `serve` has --certfile).",
    ),
)

_BY_NAME = {s.name: s for s in SETTINGS}


def get(name: str) -> str:
    """The value of a setting: its environment variable if set, else its default."""
    setting = _BY_NAME[name]
    return os.environ.get(setting.env_var, setting.default)


def is_set(name: str) -> bool:
    """Whether the setting's environment variable is set (not its default)."""
    return _BY_NAME[name].env_var in os.environ


def get_int(name: str, minimum: int = 0) -> int:
    """A setting that must be a whole number of at least `minimum`."""
    raw = get(name)
    try:
        value = int(raw)
    except ValueError:
        value = minimum - 1
    if value < minimum:
        setting = _BY_NAME[name]
        raise SettingError(f"{setting.env_var} must be a whole number >= {minimum}, not {raw!r}")
    return value


def data_home() -> Path:
    """The folder everything the program writes lives under (created on first use)."""
    home = Path(get("home")).expanduser()
    home.mkdir(parents=True, exist_ok=True)
    return home
