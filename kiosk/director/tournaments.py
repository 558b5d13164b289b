"""The director's tournaments page: list, create, and change a tournament's lexicon, rule
or title through a confirmation step that shows the new lexicon's fingerprint first; set its
rulebook and first day, and the language its kiosks speak. A catalogue edition not in force on
that day is accepted with a warning naming the editions in force then (a club may choose an old
list on purpose; under naspa and wespa it is off the rulebook: NASPA 1.3, WESPA 1.2(b)), and a
rule WESPA may treat as non-ratable (3.10.15(d)) is said so. The free challenges granted and
not yet used show with their tournament. A list or
rule the rulebook does not allow is refused, naming the clause, unless the form gives the reason
the event is off its rulebook."""

from __future__ import annotations

from flask import flash, redirect, render_template, request, url_for
from flask_babel import gettext as _

from adjudicator.errors import LexiconError
from adjudicator.hall import event_close, tournaments
from adjudicator.hall.languages import LANGUAGES
from adjudicator.judging import grant_uses
from adjudicator.judging.rulebooks import get_rulebook, off_rulebook
from adjudicator.judging.rules import RULES, UnknownRule, get_rule
from kiosk.director.blueprint import bp, director_only
from kiosk.director.form_action import act_and_return
from kiosk.hall import get_hall


class LexiconChangedSinceConfirmed(LexiconError):
    """The lexicon was re-imported between the confirmation page and the change."""


@bp.get("/tournaments")
@director_only
def tournament_list():
    hall = get_hall()
    found = tournaments.list_all(hall.db)
    return render_template(
        "director/tournaments.html",
        tournaments=found,
        manifests={m.name: m for m in hall.store.manifests()},
        rules=RULES,
        off={t.slug: tournaments.rulebook_problems(hall.store, t) for t in found},
        grants={t.slug: grant_uses.open_grants(hall.db, t.slug) for t in found},
        closed=event_close.closed_tournaments(hall),
    )


@bp.post("/tournaments")
@director_only
def tournament_create():
    hall = get_hall()
    form = request.form

    def create():
        return tournaments.create(
            hall.db,
            hall.store,
            form.get("slug", "").strip(),
            form.get("lexicon", ""),
            form.get("rule", ""),
            form.get("title", "").strip(),
            rulebook=form.get("rulebook") or None,
            event_date=form.get("date") or None,
            language=form.get("language") or "en",
            off_rulebook=form.get("off_rulebook", "").strip() or None,
        )

    def done(created) -> str:
        _warn(created)
        return _(
            "Tournament %(slug)s created on %(lexicon)s, rule %(rule)s.",
            slug=created.slug,
            lexicon=created.lexicon,
            rule=created.rule,
        )

    return act_and_return(create, done, url_for("director.tournament_list"))


def _update(slug: str, said, **fields):
    """Change `fields` of tournament `slug` and come back to the Tournaments page saying what
    changed (`said(changed)`), or what to fix."""
    hall = get_hall()
    return act_and_return(
        lambda: tournaments.update(hall.db, hall.store, slug, **fields),
        said,
        url_for("director.tournament_list"),
    )


@bp.post("/tournaments/<slug>/rulebook")
@director_only
def set_rulebook(slug: str):
    """Set a tournament's rulebook (or none) and first day; back to the Tournaments page."""
    form = request.form

    def said(changed) -> str:
        _warn(changed)
        return _(
            "Tournament %(slug)s: rulebook %(rulebook)s, first day %(date)s.",
            slug=changed.slug,
            rulebook=changed.rulebook or _("none"),
            date=changed.event_date,
        )

    return _update(
        slug,
        said,
        rulebook=form.get("rulebook", "none") or "none",
        event_date=form.get("date", ""),
        off_rulebook=form.get("off_rulebook", "").strip() or None,
    )


@bp.post("/tournaments/<slug>/language")
@director_only
def set_language(slug: str):
    """Set the language a tournament's kiosks speak; an idle kiosk changes at its next poll."""

    def said(changed) -> str:
        spoken = f"{LANGUAGES[changed.language]} ({changed.language})"  # Polski (pl)
        return _(
            "Tournament %(slug)s: its kiosks now speak %(language)s.",
            slug=changed.slug,
            language=spoken,
        )

    return _update(slug, said, language=request.form.get("language", ""))


def _warn(tournament: tournaments.Tournament) -> None:
    """Flash the edition-in-force warning, WESPA 3.10.15(d)'s note and the recorded reason the
    event is off its rulebook, where they apply."""
    warning = tournaments.edition_warning(tournament)
    if warning:
        flash(_("Warning: %(warning)s", warning=warning), "error")
    book = get_rulebook(tournament.rulebook)
    rule = get_rule(tournament.rule)
    if book.rated_rules and rule.name not in book.rated_rules:
        flash(
            _(
                "WESPA may not rate this event: %(rule)s is not one of the standard penalties of "
                "3.10.15(b) (single, 5 or 10 points per word or per turn, double) (3.10.15(d)).",
                rule=rule.name,
            ),
            "error",
        )
    elif not book.named and rule.non_standard:
        flash(_("WESPA may treat an event under this rule as non-ratable (3.10.15(d))."), "error")
    if tournament.off_rulebook:
        flash(_("Off the rulebook: %(reason)s", reason=tournament.off_rulebook), "error")


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
        off=off_rulebook(
            get_rulebook(current.rulebook), manifest, get_rule(rule), current.event_date
        ),
    )


@bp.post("/tournaments/<slug>/apply")
@director_only
def tournament_apply(slug: str):
    hall = get_hall()
    form = request.form
    lexicon, fingerprint = form.get("lexicon", ""), form.get("fingerprint", "")
    pin = form.get("pin", "")

    def apply():
        manifest = hall.store.manifest(lexicon)
        if manifest.fingerprint != fingerprint or manifest.current_pin != pin:
            raise LexiconChangedSinceConfirmed(
                f"Lexicon {lexicon} changed after you confirmed: confirm the change again."
            )
        return tournaments.update(
            hall.db,
            hall.store,
            slug,
            lexicon=lexicon,
            rule=form.get("rule") or None,
            title=form.get("title") or None,
            off_rulebook=form.get("off_rulebook", "").strip() or None,
        )

    return act_and_return(
        apply,
        lambda changed: _(
            "%(title)s now judges with %(lexicon)s (fingerprint %(fingerprint)s) under %(rule)s, "
            "from its next challenge.",
            title=changed.title,
            lexicon=changed.lexicon,
            fingerprint=changed.lexicon_fingerprint[:12],
            rule=changed.rule,
        ),
        url_for("director.tournament_list"),
    )


def _manifest_or_none(name: str):
    try:
        return get_hall().store.manifest(name)
    except LexiconError:
        return None
