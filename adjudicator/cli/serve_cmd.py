"""`adjudicator serve`: the web app under gunicorn; `--get PATH` one-request smoke test."""

from __future__ import annotations

import os
import sys

import click

from adjudicator import settings
from adjudicator.cli.common import WORKERS_OPTION, CliError
from adjudicator.record.journal import receipt_key
from adjudicator.words.lexicon import seal_for_workers

# Connections waiting to be accepted: more than one laptop's flood of idle connections holds, so
# a kiosk's is never dropped while the workers refuse that laptop's (kiosk/server/capped_server.py).
BACKLOG = 4096


@click.command()
@click.option(
    "--bind", "-b", default=None, help="HOST:PORT (default ADJUDICATOR_BIND, 127.0.0.1:8000)."
)
@WORKERS_OPTION
@click.option(
    "--certfile",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="TLS certificate (PEM), for halls on shared Wi-Fi.",
)
@click.option(
    "--keyfile",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="TLS private key (PEM).",
)
@click.option(
    "--get",
    "get_path",
    default=None,
    metavar="PATH",
    help="Run one GET request in-process, print the response, and exit.",
)
def serve(bind, workers, certfile, keyfile, get_path):
    """Run the kiosk web app and JSON API under gunicorn."""
    hall = prepare_journal()
    if get_path:
        from kiosk import create_app

        response = create_app().test_client().get(get_path)
        click.echo(response.get_data(as_text=True))
        sys.exit(0 if response.status_code < 400 else 1)
    if bool(certfile) != bool(keyfile):
        raise CliError("Give both --certfile and --keyfile for TLS, or neither.")
    bind = bind or settings.get("bind")
    workers = workers or settings.get_int("workers", 1)
    argv = prepare_gunicorn(hall, [bind], workers, certfile, keyfile)
    report_kit(hall)  # after the session secret is made: the kit holds it too
    scheme = "https" if certfile else "http"
    click.echo(f"Serving on {scheme}://{bind} with {workers} worker(s). Ctrl-C stops.", err=True)
    os.execv(sys.executable, argv)


def prepare_gunicorn(
    hall, binds, workers: int, certfile=None, keyfile=None, plain_port: int = 0
) -> list[str]:
    """Make the keys the workers share, seal the lexicons, and return gunicorn's command line.
    `plain_port`: the port among `binds` the workers serve without TLS, the trust page alone
    (`adjudicator hall --http-port`); 0 for every other server, whatever the environment says."""
    from adjudicator.hall.people import session_secret

    session_secret.load_or_create()  # before the workers fork, so they agree on one key
    receipt_key.load_or_create()  # likewise; and a key others can read stops the start here
    threads = settings.get_int("threads", 1)
    settings.get_int("connections_per_address", 0)  # a bad value stops the start, not a worker
    argv = [sys.executable, "-m", "gunicorn"]
    for bind in binds:
        argv += ["--bind", bind]
    argv += [
        "--workers",
        str(workers),
        "--worker-class",
        "kiosk.server.loop_worker.LoopWorker",  # heads read by an event loop, with deadlines
        "--threads",
        str(threads),
        "--worker-connections",
        str(settings.get_int("worker_connections", 16)),
        "--access-logfile",
        "-",
        "--access-logformat",
        '%(h)s "%(r)s" %(s)s %(M)sms',
        "--logger-class",
        "kiosk.server.access_log.RedactingLogger",  # no pairing code in the access log
        "--graceful-timeout",
        "5",
        "--backlog",  # gunicorn's 2,048 fills with one laptop's flood (the kernel caps it too)
        str(BACKLOG),
        "--no-control-socket",  # several servers on one machine must not share one socket
        "kiosk.server.wsgi:app",
    ]
    os.environ["ADJUDICATOR_HTTP_PORT"] = str(plain_port)  # the workers inherit it
    if certfile:
        argv += ["--certfile", str(certfile), "--keyfile", str(keyfile)]
        if settings.get("secure_cookies").strip().lower() == "auto":
            os.environ["ADJUDICATOR_SECURE_COOKIES"] = "on"  # the workers inherit it
    seal_for_workers(hall.store)  # one sealed, mapped copy per lexicon, shared by the workers
    return argv


def report_kit(hall) -> None:
    """Bring the takeover kit on the stick up to date, and say whether it is current."""
    from adjudicator.hall.kit import refresh

    refresh_kit(hall)
    found = refresh.to_show(hall.db, hall.store, hall.signing_key().id)
    if found is not None:
        click.echo(("" if found.current else "Warning: ") + found.text(), err=True)


def refresh_kit(hall) -> None:
    """Bring the takeover kit on the stick up to date now (a start, the hall's record made)."""
    from adjudicator.errors import AdjudicatorError
    from adjudicator.hall.kit import refresh

    try:
        with refresh.writing():
            refresh.bring_up_to_date(hall.db, hall.store, hall.signing_key())
    except (OSError, AdjudicatorError) as exc:  # the stick pulled out meanwhile: the status
        click.echo(f"The takeover kit could not be brought up to date: {exc}", err=True)


def prepare_journal():
    """Before a server starts: refuse a journal another laptop took over, bring a mirrored
    journal's copies together (unless the mirror configured is not the journal's own: then
    judging is held, and nothing is written to it), migrate the schema once (before any
    worker), and say if the journal ends before the signed high-water mark."""
    from adjudicator.cli import log_lines

    with log_lines.said_by_command():  # each note below says the journal's state, once
        return _prepare_journal()


def _prepare_journal():
    from adjudicator.hall.hall import Hall
    from adjudicator.hall.people import sealed_hashes
    from adjudicator.record.copies import one_hall
    from adjudicator.record.journal import writer

    writer.row_install()  # this laptop's install id, made once before the workers fork
    _bring_copies_together()
    hall = Hall()
    hall.upgrade()
    held = one_hall.at_open(hall.db, start=True)  # the mirror set is not this journal's stick
    if held:
        click.echo(held, err=True)
    else:  # a hall that waits for its stick writes nothing to it
        sealed_hashes.seal_clear(hall.db, hall.signing_key())  # an earlier version's hashes
    rolled_back = hall.check_high_water()  # the journal moved backwards since the last run?
    if rolled_back is not None:
        what = "JOURNAL ROLLED BACK" if rolled_back.fork is None else "JOURNAL IS A FORK"
        click.echo(f"{what}: {rolled_back.detail()}", err=True)
    return hall


def _bring_copies_together() -> None:
    """A mirrored journal: rebuild a copy only behind the other; refuse copies that disagree,
    and a journal another laptop took over. Nothing is done to a mirror that is not the
    journal's own (judging is then held: one_hall.at_open)."""
    from adjudicator.record.backends import connect
    from adjudicator.record.copies import at_start, one_hall
    from adjudicator.record.copies.mirror import MirroredDatabase

    db = connect()
    try:
        one_hall.refuse_if_taken_over(db)
        if isinstance(db, MirroredDatabase) and db.withheld() is None:
            for note in at_start.on_start(db):
                click.echo(note, err=True)
            one_hall.settle(db)  # each copy its own id, the mirror's recorded in the journal
    finally:
        db.close()
