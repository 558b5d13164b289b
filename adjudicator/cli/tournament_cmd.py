"""`adjudicator tournament ...`: tournaments (or divisions), each one lexicon and one rule."""

from __future__ import annotations

import json

import click

from adjudicator.cli.common import CliError, cli_actor, json_option, open_hall
from adjudicator.hall import event_close, tournament_pins, tournaments
from adjudicator.hall.languages import LANGUAGES, UnknownLanguage, check_language
from adjudicator.judging.rulebooks import RULEBOOKS, allowed_as, get_rulebook
from adjudicator.judging.rules import UnknownRule, get_rule

RULE_HELP = (
    "Challenge rule: single, double, N-per-word or N-per-turn (N from 1 to 50), or one of "
    "WESPA 3.10.15(c)'s: dingle, 5-then-10, escalating, ladder-A-B-C... (whole points, the "
    "last step repeats, such as ladder-5-5-10-20-30) or N-seconds (N from 1 to 300)."
)


def _check_rule(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    try:
        return get_rule(value).name
    except UnknownRule as exc:
        raise click.BadParameter(str(exc)) from None


RULEBOOK_HELP = (
    "The rulebook the event follows: it allows its own lists and penalty rules (under naspa "
    "and wespa, only the edition in force on --date), others are refused, naming the clause, "
    "unless --off-rulebook; its own procedures apply only under it (reissues under wespa and "
    "msa, NASPA 6.2's look-up penalty under naspa, school rule 12 under school-2011, NSA X.G's "
    "third opinion under nsa-1998, ...). Without one, reissues, WESPA 3.10.13's confirmation, "
    "the free challenge, the director's challenges and second opinions are offered citing no "
    "rulebook; NASPA 6.2, school rule 12, NSA X.G's third opinion and NASPA 1.2's limit stay "
    "with their rulebooks."
)
OFF_RULEBOOK_HELP = (
    "Make the tournament although its lexicon or rule is not one its rulebook allows; REASON "
    "(why this event is off its rulebook) is recorded and shown with the tournament."
)
DATE_HELP = (
    "The event's first day, YYYY-MM-DD (default: today). Under naspa and wespa the lexicon must "
    "be the catalogue's edition in force that day (NASPA 1.3, WESPA 1.2(b)), else --off-rulebook."
)
NO_RULEBOOK = (
    ": reissues, the 3.10.13 confirmation, free challenges, the director's challenges and "
    "second opinions are offered; NASPA 6.2's look-up penalty, school rule 12's free final "
    "challenge, NSA X.G's third opinion and NASPA 1.2's limit stay with their rulebooks"
)


def _warn_edition(hall, t: tournaments.Tournament) -> None:
    """On stderr: the edition was not in force on the tournament's date (never a refusal)."""
    warning = tournaments.edition_warning(t)
    if warning:
        click.echo(f"Warning: {warning}", err=True)


LANGUAGE_HELP = f"Language of the kiosks: {', '.join(LANGUAGES)}."


def _check_language(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    try:
        return check_language(value)
    except UnknownLanguage as exc:
        raise click.BadParameter(str(exc)) from None


@click.group()
def tournament() -> None:
    """Tournaments and divisions: create, list, show, set, close, reopen."""


@tournament.command("create")
@click.argument("slug")
@click.option("--lexicon", "-l", required=True, help="Compiled lexicon, such as NWL2023.")
@click.option("--rule", "-r", required=True, callback=_check_rule, help=RULE_HELP)
@click.option("--title", default="", help="Title shown on every kiosk (default: the slug).")
@click.option("--rulebook", type=click.Choice(list(RULEBOOKS)), default=None, help=RULEBOOK_HELP)
@click.option("--date", "event_date", default=None, help=DATE_HELP)
@click.option(
    "--language", default="en", callback=_check_language, help=LANGUAGE_HELP + " Default: en."
)
@click.option(
    "--off-rulebook", "off_rulebook", metavar="REASON", default=None, help=OFF_RULEBOOK_HELP
)
def create(
    slug: str,
    lexicon: str,
    rule: str,
    title: str,
    rulebook: str | None,
    event_date: str | None,
    language: str,
    off_rulebook: str | None,
):
    """Create tournament SLUG on a lexicon and a challenge rule."""
    hall = open_hall()
    created = tournaments.create(
        hall.db,
        hall.store,
        slug,
        lexicon,
        rule,
        title,
        rulebook=rulebook,
        event_date=event_date,
        language=language,
        off_rulebook=off_rulebook,
    )
    click.echo(describe(created, hall))
    _warn_edition(hall, created)


@tournament.command("list")
@json_option
def list_(as_json: bool):
    """List tournaments."""
    hall = open_hall()
    found = tournaments.list_all(hall.db)
    closed = event_close.closed_tournaments(hall)
    if as_json:
        listed = [{**t.to_api(), "closed": t.slug in closed} for t in found]
        click.echo(json.dumps(listed, indent=2))
    elif not found:
        click.echo("No tournaments yet: create one with `adjudicator tournament create`.")
    for each in [] if as_json else found:
        book = each.rulebook or "-"
        click.echo(
            f"{each.slug:<24} {each.lexicon:<12} {each.rule:<12} {book:<12} "
            f"{each.event_date or '-':<10} {each.language:<3} {each.title}"
        )
        if each.off_rulebook:
            click.echo(f"{'':<24} off the rulebook: {each.off_rulebook}")
        if each.slug in closed:
            click.echo(f"{'':<24} closed: {_closed_line(closed[each.slug])}")


@tournament.command("show")
@click.argument("slug")
@json_option
def show(slug: str, as_json: bool):
    """Show one tournament."""
    hall = open_hall()
    found = tournaments.get(hall.db, slug)
    if as_json:
        closing = event_close.closing(hall, found.slug)
        shown = {**found.to_api(), "closed": closing.to_api() if closing else None}
        click.echo(json.dumps(shown, indent=2))
    else:
        click.echo(describe(found, hall))


@tournament.command("close")
@click.argument("slug")
@click.option("--reason", default="", help="Why, if you wish (recorded with the statement).")
def close(slug: str, reason: str):
    """Close tournament SLUG once its games are over: no challenge is judged for it from now
    on (kiosks say the event is over, the API answers 409, `judge --tournament` exits 2);
    rulings, voids and waivers can still be recorded, and a second opinion on a case still
    open (flagged, or a referral). The close is a statement signed with the hall's key, kept
    with the journal (no journal number). Its challenge report may then be published
    (`report --out`) and name the words not in the lexicon (`report --words`)."""
    hall = open_hall()
    made = event_close.close(hall, slug, cli_actor(), reason)
    click.echo(f"Tournament {made.tournament} closed: {_closed_line(made)}")
    click.echo(f"Its report: adjudicator report {made.tournament} (--out to publish it).")


@tournament.command("reopen")
@click.argument("slug")
@click.option("--reason", required=True, help="Why the event is reopened (recorded).")
def reopen(slug: str, reason: str):
    """Reopen tournament SLUG, closed by mistake or too early: challenges are judged for it
    again. The reopening and its reason are a statement signed with the hall's key."""
    hall = open_hall()
    made = event_close.reopen(hall, slug, cli_actor(), reason)
    click.echo(
        f"Tournament {made.tournament} reopened {made.at[:16].replace('T', ' ')} UTC by "
        f"{made.by}: {made.reason}. Challenges are judged for it again."
    )


def _closed_line(made) -> str:
    """'since 2024-04-14 18:02 UTC, by cli:td (the last round is in)'."""
    reason = f" ({made.reason})" if made.reason else ""
    return f"since {made.at[:16].replace('T', ' ')} UTC, by {made.by}{reason}"


@tournament.command("set")
@click.argument("slug")
@click.option(
    "--lexicon", "-l", default=None, help="New lexicon (applies from the next challenge)."
)
@click.option("--rule", "-r", default=None, callback=_check_rule, help="New " + RULE_HELP)
@click.option("--title", default=None, help="New title.")
@click.option(
    "--rulebook",
    type=click.Choice([*RULEBOOKS, "none"]),
    default=None,
    help="New rulebook (none: no rulebook-only procedures).",
)
@click.option("--date", "event_date", default=None, help="New " + DATE_HELP)
@click.option(
    "--language", default=None, callback=_check_language, help="New " + LANGUAGE_HELP.lower()
)
@click.option(
    "--off-rulebook", "off_rulebook", metavar="REASON", default=None, help=OFF_RULEBOOK_HELP
)
def set_(
    slug: str,
    lexicon: str | None,
    rule: str | None,
    title: str | None,
    rulebook: str | None,
    event_date: str | None,
    language: str | None,
    off_rulebook: str | None,
):
    """Change a tournament's lexicon, rule, title, rulebook, date or language; kiosks follow
    from the next challenge. A lexicon or rule its rulebook does not allow needs --off-rulebook;
    once the tournament is back on its rulebook, the reason recorded before is cleared."""
    given = (lexicon, rule, title, rulebook, event_date, language, off_rulebook)
    if all(v is None for v in given):
        raise CliError(
            "Nothing to change: give --lexicon, --rule, --title, --rulebook, --date, --language "
            "or --off-rulebook."
        )
    hall = open_hall()
    changed = tournaments.update(
        hall.db,
        hall.store,
        slug,
        lexicon=lexicon,
        rule=rule,
        title=title,
        rulebook=rulebook,
        event_date=event_date,
        language=language,
        off_rulebook=off_rulebook,
    )
    click.echo(describe(changed, hall))
    _warn_edition(hall, changed)


def describe(t: tournaments.Tournament, hall) -> str:
    manifest = hall.store.manifest(t.lexicon)
    changed = tournament_pins.pin_change(t, manifest)
    book = get_rulebook(t.rulebook)
    return "\n".join(
        (
            f"Tournament {t.slug}: {t.title}",
            f"  lexicon: {t.lexicon} ({manifest.words:,} words, "
            f"fingerprint {t.lexicon_fingerprint[:12]}){_allowed(book, manifest, t, hall)}",
            f"  pin:     {(t.lexicon_pin or 'none recorded')[:12]} (words, referral rule, "
            "alphabet, as set)",
            *([f"  NOT IN SERVICE: {tournament_pins.in_english(changed)}"] if changed else []),
            f"  rule:    {t.rule} ({get_rule(t.rule).title})",
            f"  rulebook: {t.rulebook or 'none'} ({book.title}{'' if book.named else NO_RULEBOOK})",
            f"  date:    {t.event_date or '-'}",
            f"  language: {t.language} ({LANGUAGES.get(t.language, t.language)})",
            *_off_rulebook(t, hall),
            *_rule_note(book, t.rule),
            *_closed(t, hall),
            *_open_grants(t, hall),
        )
    )


def _closed(t: tournaments.Tournament, hall) -> tuple[str, ...]:
    closing = event_close.closing(hall, t.slug)
    return (f"  CLOSED:  {_closed_line(closing)}: no challenge is judged",) if closing else ()


def _open_grants(t: tournaments.Tournament, hall) -> tuple[str, ...]:
    """The free challenges granted and not yet used (free_challenges.py)."""
    from adjudicator.judging import grant_uses

    found = grant_uses.open_grants(hall.db, t.slug)
    return tuple(f"  free challenge #{g.id} not yet used: {g.to}{g.where} ({g.how})" for g in found)


def _allowed(book, manifest, t: tournaments.Tournament, hall) -> str:
    """': CSW24, as the wespa rulebook allows' when the lexicon is one of the rulebook's and the
    rulebook takes it for this event (not an edition out of force on its date)."""
    found = allowed_as(book, manifest)
    if not found:
        return ""
    problems = tournaments.rulebook_problems(hall.store, t)
    if any(problem.what in ("lexicon", "edition") for problem in problems):
        return ""  # "off the rulebook" says why, below
    return f": {found}, as the {book.name} rulebook allows"


def _off_rulebook(t: tournaments.Tournament, hall) -> tuple[str, ...]:
    """The recorded reason the event is off its rulebook, and what is off."""
    problems = tournaments.rulebook_problems(hall.store, t)
    if not problems and not t.off_rulebook:
        return ()
    lines = [f"  off the rulebook: {t.off_rulebook or '(no reason recorded)'}"]
    lines.extend(f"    {problem}" for problem in problems)
    return tuple(lines)


def _rule_note(book, rule: str) -> tuple[str, ...]:
    """WESPA 3.10.15(d): a rule outside (b) may make the event non-ratable."""
    note = book.rule_note(get_rule(rule))
    return (f"  note:    {note}",) if note else ()
