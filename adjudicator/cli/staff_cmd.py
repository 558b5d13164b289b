"""The staff's verbs: `director`, `judge-account`, `second-opinion`, `flags` and `ruling`."""

from __future__ import annotations

import json
import sys

import click

from adjudicator.cli.common import CliError, cli_actor, json_option, open_hall, read_secret
from adjudicator.cli.judge_cmd import HEADLINES
from adjudicator.hall import tournament_pins
from adjudicator.judging import director_flags, lookups
from adjudicator.judging.corrections import final_ruling, opinion_chain, second_opinion
from adjudicator.judging.rulebooks import NONE
from adjudicator.judging.verdict import Verdict
from adjudicator.record.journal.journal import Entry
from adjudicator.record.proofs import receipts

password_stdin = click.option(
    "--password-stdin",
    is_flag=True,
    help="Read the password from the first line of stdin (for scripts).",
)


def _staff():
    """The staff accounts (and argon2): loaded by the account commands only."""
    from adjudicator.hall.people import staff

    return staff


def read_password(from_stdin: bool) -> str:
    """The new password: one line of stdin, or typed twice without echo."""
    return _staff().check_password(read_secret(from_stdin, "New password"))


@click.group()
def director() -> None:
    """The tournament director's account for the web pages."""


@director.command("set-password")
@password_stdin
def director_set_password(password_stdin: bool):
    """Set the director's password (typed twice, hidden); ends sessions signed in before and
    lifts every sign-in lock-out."""
    hall = open_hall()
    _staff().set_director_password(hall.db, read_password(password_stdin))
    click.echo(
        "The director's password is set: sign in at /director/login as 'director'. Sessions "
        "signed in before are ended, and every sign-in lock-out is lifted."
    )


@click.group("judge-account")
def judge_account() -> None:
    """Word judges' accounts: each judge signs in at /judge with their own password."""


@judge_account.command("add")
@click.argument("name")
@password_stdin
def judge_add(name: str, password_stdin: bool):
    """Create word judge NAME with a password (typed twice, hidden)."""
    _staff().check_judge_name(name)
    hall = open_hall()
    _staff().add_judge(hall.db, name, read_password(password_stdin))
    click.echo(f"Word judge {name!r} added: sign in at /judge/login.")


@judge_account.command("set-password")
@click.argument("name")
@password_stdin
def judge_set_password(name: str, password_stdin: bool):
    """Change word judge NAME's password (also clears NAME's lock-out)."""
    _staff().check_judge_name(name)
    hall = open_hall()
    if _staff().get(hall.db, name) is None:
        raise CliError(f"No word judge {name!r}: add one with `adjudicator judge-account add`.")
    _staff().set_password(hall.db, name, read_password(password_stdin))
    click.echo(f"Password of {name!r} changed.")


@judge_account.command("list")
@json_option
def judge_list(as_json: bool):
    """List staff accounts (names and roles; never passwords)."""
    found = _staff().list_all(open_hall().db)
    if as_json:
        click.echo(json.dumps([{"name": s.name, "role": s.role} for s in found], indent=2))
        return
    for each in found:
        click.echo(
            f"{each.name:<24} {each.role:<10} password set {each.password_changed_at[:16]} UTC"
        )


CONFIRM_HELP = (
    "The table has played on since this challenge: confirm that the correction is still "
    "allowed, WESPA 3.10.13: \"(a) no newly drawn tiles have touched the player's rack, or (b) "
    "no retracted tiles have touched the player's rack\"."
)


@click.command("second-opinion")
@click.argument("adjudication_id", type=int)
@click.argument("words", nargs=-1)
@click.option(
    "--dictionary",
    type=click.Choice(list(second_opinion.DICTIONARY)),
    default=None,
    help="The outcome of your dictionary check, for a challenge referred (REFER).",
)
@click.option("--confirm-correction", is_flag=True, help=CONFIRM_HELP)
@click.option(
    "--exception",
    metavar="REASON",
    default=None,
    help="The director's exception under NSA X.G: review the challenge a third time although "
    "the second opinion substantiated the original, because further information suggests a "
    "mistake was made twice (nsa-1998 only; REASON is recorded).",
)
@json_option
def second_opinion_cmd(
    adjudication_id: int,
    words: tuple[str, ...],
    dictionary: str | None,
    confirm_correction: bool,
    exception: str | None,
    as_json: bool,
):
    """Re-adjudicate ADJUDICATION_ID from the slip's WORD... (or - to read them from stdin).

    Which opinions follow which is the tournament's rulebook's: WESPA 3.10.11 (an agreeing
    re-adjudication is final; a differing one goes to the director), NSA X.G (a third only
    after a contrary second, then two of three; else the director's --exception), NASPA 1.2 (a
    third if the rulings differ, then the first director rules), MSA 12(ii) and the school
    rules (the judges' and the director's discretion). With no rulebook named, WESPA's chain
    is offered without its clause; NSA X.G's third opinion and NASPA 1.2's limit stay with
    their rulebooks.

    Exit 0 ACCEPTABLE, 1 UNACCEPTABLE, 3 REFER, 2 when no verdict is given.
    """
    text = sys.stdin.read() if words == ("-",) else " ".join(words)
    hall = open_hall()
    actor = cli_actor()
    opinion = second_opinion.give(
        hall.db,
        hall.store,
        adjudication_id,
        text,
        actor=actor,
        station=actor,
        dictionary=dictionary,
        confirm_correction=confirm_correction,
        pin=tournament_pins.pin_for(hall.db, adjudication_id),
        exception=exception,
    )
    if as_json:
        click.echo(json.dumps({**opinion_json(opinion), "receipt": hall.receipt(opinion.entry)}))
    else:
        click.echo(format_opinion(opinion))
        click.echo(f"Receipt: {receipts.code(hall.receipt(opinion.entry))}")
    sys.exit(Verdict(opinion.entry.verdict).exit_code)


def format_opinion(opinion: second_opinion.SecondOpinion) -> str:
    """The second verdict first, then how it compares with the original."""
    entry, original = opinion.entry, opinion.original
    comparison = "agrees with" if opinion.agrees else "differs from"
    lines = [
        HEADLINES[entry.verdict],
        f"Second opinion #{entry.id} on adjudication #{original.id}: {comparison} the original "
        f"({original.verdict}).",
    ]
    if opinion.flagged:  # no decision yet: say so first, not the verdict
        lines[0] = (
            f"FLAGGED FOR THE DIRECTOR: {'; '.join(opinion.flag_reasons)}. "
            f"This second opinion ({entry.verdict}) decides nothing until the director rules."
        )
    else:
        lines.extend(opinion_status(opinion))
    lines += [
        f"Lexicon: {entry.lexicon_name} "
        f"(fingerprint {entry.lexicon_fingerprint[:12]}, as the original)",
        f"Rule: {entry.rule}",
        f"Consequence: {entry.consequence}",
        f"Words judged ({entry.word_count}): {' '.join(entry.words)}",
        f"Original's words ({original.word_count}): {' '.join(original.words)}",
    ]
    return "\n".join(lines)


def opinion_status(opinion: second_opinion.SecondOpinion) -> tuple[str, ...]:
    """What an opinion that is not flagged decides, citing the tournament's own rulebook."""
    book = opinion.book or NONE
    if opinion.closes_referral:
        return (
            "Your dictionary check closes the referral: this verdict is final"
            f"{book.cite(book.referral_clause)}.",
        )
    if opinion.decides:
        return (
            "Two of three opinions agree: this third opinion decides the challenge"
            f"{book.cite(book.opinion_clause)}. The director may still review it.",
        )
    if opinion.awaits_director:
        return (
            "An earlier second opinion differs from the original: the case still waits for the "
            f"director's ruling{book.cite(book.opinion_clause)}.",
        )
    if opinion.entry.verdict != Verdict.REFER.value:
        return (opinion_chain.agreeing_status(book),)
    return ()


def opinion_json(opinion: second_opinion.SecondOpinion) -> dict:
    return {
        **opinion.entry.to_api(),
        "actor": opinion.entry.actor,
        "agrees": opinion.agrees,
        "flagged": opinion.flagged,
        "decides": opinion.decides,
        "awaits_director": opinion.awaits_director,
        "flag_reasons": list(opinion.flag_reasons),
        "original": {
            "id": opinion.original.id,
            "verdict": opinion.original.verdict,
            "words": list(opinion.original.words),
        },
    }


@click.command("flags")
@json_option
@click.option(
    "--dismiss",
    "dismiss_id",
    type=int,
    default=None,
    help="Dismiss the open flag (a separate look-up, a changed penalty) on challenge ID.",
)
@click.option("--reason", default=None, help="Why you dismiss it (with --dismiss; recorded).")
def flags_cmd(as_json: bool, dismiss_id: int | None, reason: str | None):
    """List what waits for the director, newest first: second opinions flagged and not yet
    ruled on, penalties the players were shown that later rulings or voids changed, then
    challenges that may be one play looked up in parts (NASPA 6.2).

    One line a case: the original's verdict and each second opinion's, and why it is flagged.
    Record the final ruling with `adjudicator ruling ID`; dismiss a look-up or penalty flag
    with `flags --dismiss ID --reason TEXT`.
    """
    db = open_hall().db
    if dismiss_id is not None:
        which = director_flags.dismiss(db, dismiss_id, reason or "", actor=cli_actor())
        click.echo(f"Dismissed the {which} flag on #{dismiss_id}: {' '.join(reason.split())}")
        return
    if reason is not None:
        raise CliError("--reason goes with --dismiss ID.")
    open_cases = second_opinion.cases(db, open_only=True)  # void ones are closed
    changes = director_flags.penalty_changes(db)
    lookup_rows = director_flags.separate_lookups(db)
    if as_json:
        items = [
            *map(case_json, open_cases),
            *(change.to_api() for change in changes),
            *map(lookup_json, lookup_rows),
        ]
        click.echo(json.dumps(items, indent=2))
        return
    if not open_cases:
        click.echo("No second opinion is waiting for a ruling.")
    for case in open_cases:
        click.echo(format_case(case))
    for change in changes:
        click.echo(format_change(change))
    for entry in lookup_rows:
        click.echo(format_lookup(entry))


def format_change(change: director_flags.PenaltyChange) -> str:
    """One line: a challenge whose penalty changed after the players were told it."""
    c = change.challenge
    return " | ".join(
        (
            f"#{c.id}",
            c.tournament,
            f"round {c.round} table {c.table} challenger {c.challenger}",
            _when(c),
            f"penalty changed: was {_penalty_text(change.old)}, now {_penalty_text(change.new)}",
            f"tell the table: {change.outcome.consequence}",
            *((change.result_note,) if change.result_note else ()),
        )
    )


def _penalty_text(penalty: dict | None) -> str:
    if not penalty:
        return "none"
    if penalty.get("challenger_loses_turn"):
        return "loss of turn"
    points = penalty.get("points_to_player") or 0
    return f"{points} points to the player" if points else "no penalty"


def format_lookup(entry: Entry) -> str:
    """One line: a challenge that may be part of the one before it (NASPA 6.2)."""
    where = f"kiosk {entry.kiosk}" + (f" table {entry.table}" if entry.table else "")
    where += f" round {entry.round}" if entry.round else ""
    return " | ".join(
        (
            f"#{entry.id}",
            entry.tournament,
            where,
            _when(entry),
            f"{entry.verdict} ({' '.join(entry.words)})",
            f"flagged: {entry.note}",
        )
    )


def lookup_json(entry: Entry) -> dict:
    return {
        "flag": lookups.FLAG,
        "id": entry.id,
        "tournament": entry.tournament,
        "kiosk": entry.kiosk,
        "table": entry.table,
        "round": entry.round,
        "recorded_at": entry.recorded_at,
        "verdict": entry.verdict,
        "words": list(entry.words),
        "flag_reasons": [entry.note],
    }


def _when(entry: Entry) -> str:
    return f"{entry.recorded_at[:16].replace('T', ' ')} UTC"


def case_flag_reasons(case: second_opinion.Case) -> list[str]:
    """Every opinion's flag reasons, each once, in the order first given."""
    reasons = (r for o in case.opinions for r in second_opinion.recorded_flag_reasons(o))
    return list(dict.fromkeys(reasons))


def format_case(case: second_opinion.Case) -> str:
    """One line: where and when, the verdicts (with the words as typed), why it is flagged."""
    original = case.original
    parts = [
        f"#{original.id}",
        original.tournament,
        f"kiosk {original.kiosk}" + (f" table {original.table}" if original.table else ""),
        _when(original),
        f"original {original.verdict} ({' '.join(original.words)})",
    ]
    for opinion in case.opinions:
        words = "" if opinion.words == original.words else f" ({' '.join(opinion.words)})"
        parts.append(f"second opinion #{opinion.id} by {opinion.actor}: {opinion.verdict}{words}")
    parts.append(f"flagged: {'; '.join(case_flag_reasons(case))}")
    return " | ".join(parts)


def case_json(case: second_opinion.Case) -> dict:
    """The case's verdicts and words as typed; nothing about any single word's validity."""
    original = case.original
    return {
        "flag": "second-opinion",
        "id": original.id,
        "tournament": original.tournament,
        "kiosk": original.kiosk,
        "table": original.table,
        "recorded_at": original.recorded_at,
        "verdict": original.verdict,
        "words": list(original.words),
        "second_opinions": [
            {
                "id": opinion.id,
                "recorded_at": opinion.recorded_at,
                "actor": opinion.actor,
                "verdict": opinion.verdict,
                "words": list(opinion.words),
                "flag_reasons": list(second_opinion.recorded_flag_reasons(opinion)),
            }
            for opinion in case.opinions
        ],
        "flag_reasons": case_flag_reasons(case),
    }


@click.command("ruling")
@click.argument("adjudication_id", type=int)
@click.argument("words", nargs=-1)
@click.option(
    "--verdict",
    type=click.Choice(["ACCEPTABLE", "UNACCEPTABLE"], case_sensitive=False),
    default=None,
    help="The director's final verdict (required, unless you only waive the penalty).",
)
@click.option("--reason", required=True, help="Why (recorded in the journal).")
@click.option(
    "--words",
    "with_words",
    is_flag=True,
    help="The words ruled on follow (WORD...); default: the original's. When a second opinion "
    "was given with other words, name them (the ruling is refused without). The consequence "
    "counts these words.",
)
@click.option(
    "--improper-lookup",
    is_flag=True,
    help="Also charge the challenger 10 points for looking up one play's words separately "
    "(NASPA 6.2; with --verdict unacceptable).",
)
@click.option(
    "--waive-penalty",
    is_flag=True,
    help="A free challenge: the challenge costs the challenger nothing, whatever its verdict. "
    "It rules on nothing else: the verdict stays as decided and may still be reviewed. It is "
    "the director's discretion, cited from the tournament's rulebook (NSA XII, or Guideline 2 "
    "with --undesignated-blank). With --verdict, the ruling is recorded too.",
)
@click.option(
    "--undesignated-blank",
    is_flag=True,
    help="With --waive-penalty: the challenge was over an undesignated blank, and the Director "
    'overrules its penalty (NSA Guideline 2: "the Director shall have the power to overrule the '
    'penalty for this particular challenge"; nsa-1998 only).',
)
@click.option(
    "--points",
    metavar="N",
    default=None,
    help="The director's points to the player whose play was challenged, negative for a "
    "deduction (such as -30), added to the ruling's penalty (points_to_player), cited from the "
    "tournament's rulebook.",
)
@click.option("--confirm-correction", is_flag=True, help=CONFIRM_HELP)
def ruling_cmd(
    adjudication_id: int,
    words: tuple[str, ...],
    verdict: str | None,
    reason: str,
    with_words: bool,
    improper_lookup: bool,
    waive_penalty: bool,
    undesignated_blank: bool,
    points: str | None,
    confirm_correction: bool,
):
    """The director's final ruling on ADJUDICATION_ID (any challenge, flagged or not), or the
    penalty waived (--waive-penalty)."""
    if words and not with_words:
        raise CliError("Put --words before the words ruled on: ruling ID --words WORD...")
    if with_words and not words:
        raise CliError("--words needs the words ruled on: ruling ID --words WORD...")
    if verdict is None and not waive_penalty:
        raise CliError(
            "Give the verdict (--verdict acceptable|unacceptable), or --waive-penalty to waive "
            "the challenge's penalty without ruling on it."
        )
    if verdict is None and (words or improper_lookup or confirm_correction or points):
        raise CliError(
            "--words, --improper-lookup, --points and --confirm-correction go with a ruling on "
            "the verdict: give --verdict too."
        )
    if undesignated_blank and not waive_penalty:
        raise CliError("--undesignated-blank goes with --waive-penalty.")
    hall = open_hall()
    actor = cli_actor()
    if verdict is not None:
        entry = final_ruling.record_ruling(
            hall.db,
            adjudication_id,
            verdict,
            reason,
            actor=actor,
            station=actor,
            words=" ".join(words) if words else None,
            improper_lookup=improper_lookup,
            store=hall.store,
            confirm_correction=confirm_correction,
            points=points,
        )
        click.echo(format_ruling_entry(entry))
        click.echo(f"Receipt: {receipts.code(hall.receipt(entry))}")  # signed like every verdict
    if waive_penalty:
        from adjudicator.judging.corrections import waivers

        waiver = waivers.waive(
            hall.db,
            adjudication_id,
            reason,
            actor=actor,
            station=actor,
            undesignated_blank=undesignated_blank,
        )
        click.echo(
            f"Penalty waived on adjudication #{waiver.refers_to} (journal row #{waiver.id}, by "
            f"{actor})."
        )
        click.echo(waiver.consequence)
        click.echo(f"Reason: {waiver.note}")
        click.echo(f"Receipt: {receipts.code(hall.receipt(waiver))}")


def format_ruling_entry(entry: Entry) -> str:
    return "\n".join(
        (
            HEADLINES[entry.verdict],
            f"Final ruling #{entry.id} on adjudication #{entry.refers_to} by {entry.actor}.",
            f"Consequence: {entry.consequence}",
            f"Words ruled on ({entry.word_count}): {' '.join(entry.words)}",
            f"Reason: {entry.note}",
        )
    )
