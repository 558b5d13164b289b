"""The director's record-keeping actions: checkpoints, witness alarms, receipts and the key.

Routes on the director's blueprint (kiosk.director.blueprint), like the other resource modules
of kiosk.director; kiosk.director imports them all before the blueprint is registered.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from flask import Response, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _

from adjudicator.errors import AdjudicatorError
from adjudicator.record.copies import backup
from adjudicator.record.journal import journal
from adjudicator.record.proofs import checkpoints, witnesses
from kiosk.director.blueprint import bp, director_only
from kiosk.hall import get_hall
from kiosk.staff_web import current_staff


@bp.post("/checkpoint")
@director_only
def checkpoint_make():
    """Sign the journal's newest row and show it to print or note down."""
    hall = get_hall()
    try:
        made = checkpoints.make(hall.db, hall.signing_key())
    except AdjudicatorError as exc:
        flash(str(exc), "error")
        return redirect(url_for("director.index"))
    return render_template(
        "director/checkpoint.html", checkpoint=made, text=checkpoints.text(made)
    ), 201


@bp.get("/checkpoint.json")
@director_only
def checkpoint_download():
    """The last checkpoint as a file for `journal verify --checkpoint`."""
    last = checkpoints.last(get_hall().db)
    if last is None:
        flash(_("No checkpoint has been made on this journal yet."), "error")
        return redirect(url_for("director.index"))
    return Response(
        json.dumps(last, sort_keys=True) + "\n",
        mimetype="application/json",
        headers={"Content-Disposition": f'attachment; filename="checkpoint-{last["id"]}.json"'},
    )


@bp.get("/journal-backup.sqlite3")
@director_only
def journal_backup():
    """A verified copy of the journal, made now while the hall serves (`journal backup`)."""
    folder = Path(tempfile.mkdtemp(prefix="journal-backup-"))
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    try:
        made = backup.make(get_hall().db, folder / f"journal-{stamp}.sqlite3")
    except AdjudicatorError as exc:
        shutil.rmtree(folder, ignore_errors=True)
        flash(str(exc), "error")
        return redirect(url_for("director.index"))

    def chunks():
        try:
            with open(made.path, "rb") as handle:
                while block := handle.read(1 << 16):
                    yield block
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    return Response(
        chunks(),
        mimetype="application/vnd.sqlite3",
        headers={
            "Content-Disposition": f'attachment; filename="{made.path.name}"',
            "Content-Length": str(made.path.stat().st_size),
            "X-Journal-Rows": str(made.rows),
        },
    )


@bp.post("/alarms/acknowledge")
@director_only
def alarm_acknowledge():
    """The director has seen a kiosk's alarm (it stays in the log and the alarm table)."""
    kiosk = request.form.get("kiosk", "")
    row_id = journal.parse_id(request.form.get("row_id"))  # ASCII digits within range only
    if row_id is None:
        flash(_("Choose an alarm to acknowledge."), "error")
        return redirect(url_for("director.index"))
    if witnesses.acknowledge(get_hall().db, kiosk, row_id, current_staff().name):
        flash(
            _("Alarm from kiosk %(kiosk)s on row %(row)s acknowledged.", kiosk=kiosk, row=row_id),
            "ok",
        )
    else:
        flash(_("No open alarm like that."), "error")
    return redirect(url_for("director.index"))


@bp.get("/receipts.jsonl")
@director_only
def receipts_download():
    """The newest receipt each kiosk reported, one a line, for `journal audit`."""
    lines = "".join(
        json.dumps(receipt, sort_keys=True) + "\n"
        for receipt in witnesses.newest_receipts(get_hall().db)
    )
    return Response(
        lines,
        mimetype="application/x-ndjson",
        headers={"Content-Disposition": 'attachment; filename="kiosk-receipts.jsonl"'},
    )


@bp.get("/receipt-key.pem")
@director_only
def public_key_download():
    """The hall's public key, for anyone auditing receipts or checkpoints elsewhere."""
    return Response(
        get_hall().signing_key().public_pem(),
        mimetype="application/x-pem-file",
        headers={"Content-Disposition": 'attachment; filename="receipt-key.pem"'},
    )
