"""/hall/ca.crt and /hall/trust: the hall's own CA certificate, and how a tablet trusts it once;
/hall/peer: another laptop of this hall saying it serves the hall too.

`adjudicator hall` makes the CA in the data home (adjudicator/hall/network/hall_tls.py); a server
started otherwise has none, and these pages say so instead of failing.
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify, render_template, request

from adjudicator.hall import hall_peers
from adjudicator.hall.network import hall_tls, hall_url
from kiosk.hall import get_hall

bp = Blueprint("hall_trust", __name__, url_prefix="/hall")


@bp.get("/ca.crt")
def ca_certificate():
    """The CA certificate (never its key), as the type phones and tablets offer to install."""
    try:
        pem = hall_tls.ca_cert_path().read_bytes()
    except OSError:
        return render_template("hall_trust.html", fingerprint=None, record=None), 404
    return Response(
        pem,
        mimetype="application/x-x509-ca-cert",
        headers={"Content-Disposition": 'attachment; filename="hall-ca.crt"'},
    )


@bp.get("/trust")
def trust():
    """How to trust the hall on an iPad, an Android tablet and a laptop, with the fingerprint."""
    fingerprint = hall_tls.read_ca_fingerprint()
    status = 200 if fingerprint else 404
    return render_template(
        "hall_trust.html", fingerprint=fingerprint, record=hall_url.recorded()
    ), status


@bp.post("/peer")
def peer():
    """Another laptop of this hall says it serves the hall too (a note signed with the hall's
    key: hall/hall_peers.py): kept for /healthz, the overview and the log, heeded (a takeover
    statement it carries stops this laptop judging), and answered, signed, with whether this
    laptop judges now. Anything else is refused, and changes nothing."""
    hall = get_hall()
    try:
        body = current_app.json.loads(request.get_data())
        answer = hall_peers.receive(
            hall.db,
            hall.signing_key(),
            body,
            request.remote_addr or "",
            lambda: hall.journal_health().ok,
        )
    except (ValueError, hall_peers.NoteRefused) as exc:
        return jsonify(ok=False, status=400, error=f"Not a note of this hall's laptops: {exc}"), 400
    return jsonify(answer)
