"""kiosk/server/access_log.py: each line makes only the atoms its format names, and says what
gunicorn's own logger says (pairing codes redacted), whatever the format."""

from __future__ import annotations

import logging
from datetime import timedelta
from types import SimpleNamespace

import pytest
from gunicorn.config import Config
from gunicorn.glogging import Logger

from kiosk.server.access_log import RedactingLogger

FORMATS = [
    '%(h)s "%(r)s" %(s)s %(M)sms',  # what `adjudicator serve` writes
    Config().access_log_format,  # gunicorn's default: the date, the referrer, the user agent
    "%(h)s %(U)s?%(q)s %(m)s %(H)s %(D)sus %(L)s %(T)s %(b)s %(p)s %({x-kiosk}i)s %(nope)s",
]
ENVIRON = {
    "REMOTE_ADDR": "192.168.1.7",
    "REQUEST_METHOD": "GET",
    "RAW_URI": '/pair/SECRETCODE?next="x"',
    "PATH_INFO": "/pair/SECRETCODE",
    "QUERY_STRING": 'next="x"',
    "SERVER_PROTOCOL": "HTTP/1.1",
}
REQUEST = SimpleNamespace(headers=[("X-Kiosk", 'table "7"'), ("User-Agent", "tablet")])


class Lines(logging.Handler):
    def __init__(self):
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def written(logger_class, access_format: str) -> str:
    config = Config()
    config.set("accesslog", "-")
    config.set("access_log_format", access_format)
    log = logger_class(config)
    lines = Lines()
    log.access_log.handlers = [lines]
    log.now = lambda: "[28/Nov/2026:21:00:00 +0000]"  # one moment for both loggers
    answer = SimpleNamespace(status=302, headers=[], sent=None)
    log.access(answer, REQUEST, dict(ENVIRON), timedelta(seconds=1, microseconds=2345))
    return lines.lines[0]


class GunicornRedacting(RedactingLogger):
    """gunicorn's own access(), every atom made, with the redaction this program adds."""

    access = Logger.access


@pytest.mark.parametrize("access_format", FORMATS, ids=["serve", "default", "every-atom"])
def test_a_line_says_what_gunicorns_own_logger_says(access_format):
    line = written(RedactingLogger, access_format)
    assert line == written(GunicornRedacting, access_format)
    assert "SECRETCODE" not in line and "/pair/<code>" in line


def test_the_serve_format_makes_only_its_four_atoms(monkeypatch):
    def every_atom(*_):
        raise AssertionError("every atom was made for a line that names four")

    monkeypatch.setattr(RedactingLogger, "atoms", every_atom)
    line = written(RedactingLogger, FORMATS[0])
    assert line == '192.168.1.7 "GET /pair/<code>?next=\\"x\\" HTTP/1.1" 302 1002ms'
