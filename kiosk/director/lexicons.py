"""The director's lexicons page: the installed lists, an upload imported with the CLI's
checks in a separate process, and a check of every compiled list against its manifest."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from flask import render_template, request
from flask_babel import gettext as _
from flask_babel import ngettext
from werkzeug.utils import secure_filename

from adjudicator import settings
from adjudicator.errors import AdjudicatorError, LexiconError
from adjudicator.hall import tournament_pins
from adjudicator.words.alphabet_files import builtin, builtin_names
from adjudicator.words.import_job import import_isolated
from kiosk.director.blueprint import bp, director_only
from kiosk.hall import get_hall
from kiosk.i18n import number

FORMATS = ("auto", "text", "zyzzyva", "dwg")


@bp.get("/lexicons")
@director_only
def lexicon_list():
    return _lexicons_page()


def _lexicons_page(status: int = 200, **extra):
    hall = get_hall()
    limit = settings.get_int("upload_limit_mb", 1)
    page = render_template(
        "director/lexicons.html",
        manifests=hall.store.manifests(),
        formats=FORMATS,
        alphabets=[builtin(name) for name in builtin_names()],
        upload_limit_mb=limit,
        **extra,
    )
    return page, status


@bp.post("/lexicons/import")
@director_only
def lexicon_import():
    """Import an uploaded list with the CLI's checks, in a separate process (its memory is not
    the kiosks'); the upload is deleted whatever happens."""
    upload = request.files.get("file")
    name = request.form.get("name", "").strip()
    fmt = request.form.get("format", "auto")
    alphabet_name = request.form.get("alphabet", "english")
    alphabet = builtin(alphabet_name)
    if upload is None or not upload.filename:
        return _lexicons_page(400, import_error=_("Choose a word list file to upload."))
    if fmt not in FORMATS:
        return _lexicons_page(400, import_error=_("Unknown format %(format)s.", format=repr(fmt)))
    if alphabet is None:
        return _lexicons_page(400, import_error=_("Unknown alphabet: choose one from the list."))
    folder = Path(tempfile.mkdtemp(prefix="import-", dir=_upload_dir()))
    try:
        path = folder / (secure_filename(upload.filename) or "upload.txt")
        upload.save(path)
        report = import_isolated(
            get_hall().store.root,
            path,
            name,
            fmt,
            force=bool(request.form.get("force")),
            skip_invalid=bool(request.form.get("skip_invalid")),
            description=request.form.get("description", ""),
            alphabet=alphabet_name,
        )
    except (AdjudicatorError, OSError) as exc:
        message = str(exc).replace(str(folder) + "/", "")
        return _lexicons_page(400, import_error=message)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return _lexicons_page(201, import_summary=report, left_behind=_left_behind(name))


def _left_behind(name: str) -> list[str]:
    """Tournaments set with another pin of the lexicon just imported: they judge nothing until
    the director sets it again (tournament_pins)."""
    hall = get_hall()
    try:
        pin = hall.store.manifest(name).pin
    except LexiconError:
        return []
    return [t.slug for t in tournament_pins.set_with_another_pin(hall.db, name, pin)]


def _upload_dir() -> Path:
    folder = settings.data_home() / "uploads"
    folder.mkdir(mode=0o700, exist_ok=True)
    return folder


@bp.post("/lexicons/verify")
@director_only
def lexicon_verify():
    store = get_hall().store
    results = []
    for name in store.names():
        try:
            manifest = store.verify(name, apart=True)  # the words read in a child
        except LexiconError as exc:
            results.append((name, False, str(exc)))
        else:
            results.append(
                (
                    name,
                    True,
                    ngettext(
                        "ok (%(words)s word, fingerprint %(fingerprint)s)",
                        "ok (%(words)s words, fingerprint %(fingerprint)s)",
                        manifest.words,
                        words=number(manifest.words),
                        fingerprint=manifest.short_fingerprint,
                    ),
                )
            )
    return _lexicons_page(verify_results=results)
