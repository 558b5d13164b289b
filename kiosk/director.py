"""The director's pages under /director: tournaments, lexicons, kiosks, the journal, flags."""

from __future__ import annotations

import base64
import itertools
import shutil
import tempfile
from pathlib import Path

import qrcode
import qrcode.image.svg
from flask import (
    Blueprint,
    Response,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from werkzeug.utils import secure_filename

from adjudicator import settings
from adjudicator.errors import AdjudicatorError, LexiconError
from adjudicator.hall import bursts, export, hall_status, journal_review, kiosks, tournaments
from adjudicator.judging import lookups, outcomes, second_opinion
from adjudicator.judging.rules import RULES, UnknownRule, get_rule
from adjudicator.record import journal
from adjudicator.words.alphabet_files import builtin, builtin_names
from adjudicator.words.import_job import import_isolated
from kiosk import director_review
from kiosk.errors import error_response
from kiosk.hall import get_hall
from kiosk.staff_web import login_page, sign_out, staff_required

bp = Blueprint("director", __name__, url_prefix="/director")
director_only = staff_required("director")
OVERVIEW_REFRESH = 20  # seconds
FORMATS = ("auto", "text", "zyzzyva", "dwg")


@bp.route("/login", methods=["GET", "POST"])
def login():
    return login_page("Director: sign in")


@bp.post("/logout")
def logout():
    return sign_out("director.login")


@bp.post("/logout-everywhere")
def logout_everywhere():
    """End every session of the signed-in account, on every device (a lost laptop)."""
    return sign_out("director.login", everywhere=True)


@bp.get("/")
@director_only
def index():
    """The overview: the whole hall at a glance, refreshing itself (director-overview.js)."""
    return render_template(
        "director/index.html", status=hall_status.build(get_hall()), refresh=OVERVIEW_REFRESH
    )


@bp.get("/overview")
@director_only
def overview_part():
    """The overview's body alone, for its refresh."""
    return render_template("director/overview_body.html", status=hall_status.build(get_hall()))


# ---------- tournaments ----------


@bp.get("/tournaments")
@director_only
def tournament_list():
    hall = get_hall()
    return render_template(
        "director/tournaments.html",
        tournaments=tournaments.list_all(hall.db),
        manifests={m.name: m for m in hall.store.manifests()},
        rules=RULES,
    )


@bp.post("/tournaments")
@director_only
def tournament_create():
    hall = get_hall()
    form = request.form
    try:
        created = tournaments.create(
            hall.db,
            hall.store,
            form.get("slug", "").strip(),
            form.get("lexicon", ""),
            form.get("rule", ""),
            form.get("title", "").strip(),
        )
    except AdjudicatorError as exc:
        flash(str(exc), "error")
    else:
        flash(f"Tournament {created.slug} created on {created.lexicon}, rule {created.rule}.", "ok")
    return redirect(url_for("director.tournament_list"))


@bp.post("/tournaments/<slug>/confirm")
@director_only
def tournament_confirm(slug: str):
    """The confirmation step: the new lexicon's word count and fingerprint, before any change."""
    hall = get_hall()
    current = tournaments.get(hall.db, slug)
    lexicon = request.form.get("lexicon") or current.lexicon
    rule = request.form.get("rule") or current.rule
    title = request.form.get("title", "").strip() or current.title
    try:
        rule = get_rule(rule).name
    except UnknownRule as exc:
        flash(str(exc), "error")
        return redirect(url_for("director.tournament_list"))
    try:
        manifest = hall.store.manifest(lexicon)
        hall.store.open(lexicon)
    except LexiconError as exc:
        flash(str(exc), "error")
        return redirect(url_for("director.tournament_list"))
    return render_template(
        "director/tournament_confirm.html",
        tournament=current,
        current_manifest=_manifest_or_none(current.lexicon),
        manifest=manifest,
        rule=get_rule(rule),
        title=title,
    )


@bp.post("/tournaments/<slug>/apply")
@director_only
def tournament_apply(slug: str):
    hall = get_hall()
    form = request.form
    lexicon, fingerprint = form.get("lexicon", ""), form.get("fingerprint", "")
    try:
        if hall.store.manifest(lexicon).fingerprint != fingerprint:
            flash(
                f"Lexicon {lexicon} changed after you confirmed: confirm the change again.", "error"
            )
            return redirect(url_for("director.tournament_list"))
        changed = tournaments.update(
            hall.db,
            hall.store,
            slug,
            lexicon=lexicon,
            rule=form.get("rule") or None,
            title=form.get("title") or None,
        )
    except AdjudicatorError as exc:
        flash(str(exc), "error")
    else:
        flash(
            f"{changed.title} now judges with {changed.lexicon} (fingerprint "
            f"{changed.lexicon_fingerprint[:12]}) under {changed.rule}, from its next challenge.",
            "ok",
        )
    return redirect(url_for("director.tournament_list"))


def _manifest_or_none(name: str):
    try:
        return get_hall().store.manifest(name)
    except LexiconError:
        return None


# ---------- lexicons ----------


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
        alphabets=builtin_names(),
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
        return _lexicons_page(400, import_error="Choose a word list file to upload.")
    if fmt not in FORMATS:
        return _lexicons_page(400, import_error=f"Unknown format {fmt!r}.")
    if alphabet is None:
        return _lexicons_page(400, import_error="Unknown alphabet: choose one from the list.")
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
    return _lexicons_page(201, import_summary=report)


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
            manifest = store.verify(name)
        except LexiconError as exc:
            results.append((name, False, str(exc)))
        else:
            results.append(
                (
                    name,
                    True,
                    f"ok ({manifest.words:,} words, fingerprint {manifest.short_fingerprint})",
                )
            )
    return _lexicons_page(verify_results=results)


# ---------- kiosks ----------


@bp.get("/kiosks")
@director_only
def kiosk_list():
    hall = get_hall()
    return render_template(
        "director/kiosks.html",
        kiosks=kiosks.list_all(hall.db),
        tournaments=tournaments.list_all(hall.db),
    )


@bp.post("/kiosks")
@director_only
def kiosk_add():
    hall = get_hall()
    try:
        enrolment = kiosks.add(
            hall.db, request.form.get("name", "").strip(), request.form.get("tournament", "")
        )
    except AdjudicatorError as exc:
        flash(str(exc), "error")
        return redirect(url_for("director.kiosk_list"))
    return _pairing_page(enrolment)


@bp.post("/kiosks/<name>/pair")
@director_only
def kiosk_pair(name: str):
    try:
        enrolment = kiosks.new_pairing(get_hall().db, name)
    except AdjudicatorError as exc:
        flash(str(exc), "error")
        return redirect(url_for("director.kiosk_list"))
    return _pairing_page(enrolment)


def _pairing_page(enrolment: kiosks.Enrolment):
    """The code, its link and its QR image, in this one page only: never in a cookie, a
    stored file or a URL the server sees (the link carries the code after '#')."""
    link = _pairing_link(enrolment.pairing_code)
    return render_template(
        "director/kiosk_pairing.html", enrolment=enrolment, link=link, qr=_qr_data_uri(link)
    )


def _pairing_link(code: str) -> str:
    base = settings.get("public_url") or request.host_url
    return kiosks.pairing_link(base, code)


def _qr_data_uri(link: str) -> str:
    image = qrcode.make(link, image_factory=qrcode.image.svg.SvgPathImage, box_size=12)
    return "data:image/svg+xml;base64," + base64.b64encode(image.to_string()).decode()


@bp.post("/kiosks/<name>/revoke")
@director_only
def kiosk_revoke(name: str):
    if not request.form.get("confirm"):
        flash(f"Tick the box to confirm revoking {name}.", "error")
    else:
        try:
            kiosks.revoke(get_hall().db, name)
        except AdjudicatorError as exc:
            flash(str(exc), "error")
        else:
            flash(f"Kiosk {name} revoked: its token and paired screens no longer work.", "ok")
    return redirect(url_for("director.kiosk_list"))


@bp.post("/kiosks/<name>/move")
@director_only
def kiosk_move(name: str):
    try:
        moved = kiosks.move(get_hall().db, name, request.form.get("tournament", ""))
    except AdjudicatorError as exc:
        flash(str(exc), "error")
    else:
        flash(f"Kiosk {moved.name} now judges for {moved.tournament}.", "ok")
    return redirect(url_for("director.kiosk_list"))


# ---------- the journal ----------


def _journal_filters() -> journal_review.Filters:
    args = request.args
    return journal_review.Filters(
        tournament=args.get("tournament", "").strip() or None,
        kiosk=args.get("kiosk", "").strip() or None,
        kind=args.get("kind", "").strip() or None,
        since=journal_review.parse_time(args.get("since")),
        until=journal_review.parse_time(args.get("until"), end=True),
    )


def _row_id(name: str) -> int | None:
    value = request.args.get(name, "").strip()
    return int(value) if value.isdigit() else None


@bp.get("/journal")
@director_only
def journal_page():
    """One page of the journal, newest first; only the rows shown (and the challenges around
    them, for bursts) are read, so the page costs the same at any journal size."""
    hall = get_hall()
    try:
        filters = _journal_filters()
    except AdjudicatorError as exc:
        flash(str(exc), "error")
        return redirect(url_for("director.journal_page"))
    found = journal_review.page(hall.db, filters, before=_row_id("before"), after=_row_id("after"))
    filter_args = {k: v for k, v in request.args.items() if k not in ("before", "after") and v}
    return render_template(
        "director/journal.html",
        page=found,
        rows=found.rows,
        outcomes={e.id: outcome for e, outcome in outcomes.with_outcomes(hall.db, found.rows)},
        journal_rows=journal.newest_id(hall.db),
        filtered=bool(filter_args),
        filter_args=filter_args,
        bursts=found.bursts,
        in_burst={entry_id for burst in found.bursts for entry_id in burst.ids},
        burst_challenges=settings.get_int("burst_challenges", 1),
        burst_minutes=settings.get_int("burst_minutes", 1),
        max_burst_rows=bursts.MAX_BURST_ROWS,
        args=request.args,
        tournaments=tournaments.list_all(hall.db),
        kiosk_names=sorted({k.name for k in kiosks.list_all(hall.db)}),
        kinds=journal.KINDS,
    )


@bp.get("/journal.csv")
@director_only
def journal_csv():
    """The filtered journal as CSV, streamed in chunks: any size in constant memory."""
    try:
        filters = _journal_filters()
    except AdjudicatorError as exc:
        return error_response(400, str(exc), link=(url_for("director.journal_page"), "Back"))
    db = get_hall().db  # the rows and their outcomes read the database only: no context
    rows = export.csv_records(db, journal_review.select_batches(db, filters))
    chunks = export.csv_chunks(rows)
    first = next(chunks)  # the first query runs here: a database error is a 503, not a cut 500
    return Response(
        itertools.chain([first], chunks),
        mimetype="text/csv",
        headers={"Content-Disposition": 'attachment; filename="journal.csv"'},
    )


# ---------- second-opinion flags ----------


@bp.get("/flags")
@director_only
def flags():
    db = get_hall().db
    return render_template(
        "director/flags.html",
        open_cases=second_opinion.cases(db, open_only=True),
        closed_cases=second_opinion.cases(db, closed_only=True, limit=50),
        lookups=list(outcomes.with_outcomes(db, lookups.flagged(db))),
    )


@bp.post("/flags/<int:adjudication_id>/ruling")
@director_only
def ruling(adjudication_id: int):
    return director_review.record_ruling_from_form(adjudication_id)
