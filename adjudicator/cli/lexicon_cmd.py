"""`adjudicator lexicon ...`: import (a list or a recipe), list, show, verify, diff, and install
the default lexicons."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from adjudicator.cli.common import CliError, json_option, open_store
from adjudicator.errors import AdjudicatorError, LexiconError
from adjudicator.wording import plural
from adjudicator.words import lexicon_pin
from adjudicator.words.alphabet import ENGLISH, Alphabet
from adjudicator.words.alphabet_files import builtin, builtin_names, resolve_alphabet
from adjudicator.words.defaults import install_defaults
from adjudicator.words.import_report import format_import, format_recipe_import
from adjudicator.words.importers import FORMATS
from adjudicator.words.lexicon import Manifest
from adjudicator.words.lexicon_diff import LexiconDiff, diff_lexicons
from adjudicator.words.lexicon_import import import_lexicon
from adjudicator.words.recipe import import_recipe, referral_text


@click.group()
def lexicon() -> None:
    """Compiled lexicon editions: import, list, show, verify, diff."""


@lexicon.command("import")
@click.argument("path", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--recipe",
    "recipe",
    metavar="FILE",
    help="Build the lexicon from a TOML recipe (sources, additions, removals, referral "
    "rule) instead of PATH; FILE may also name a shipped recipe, such as nsa-1998.",
)
@click.option(
    "--name",
    "-n",
    help="Name of the edition, such as NWL2023 (with --recipe: default the recipe's name).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="auto",
    show_default=True,
    help="Input format: plain text, Zyzzyva text, Zyzzyva .dwg word graph.",
)
@click.option(
    "--force",
    is_flag=True,
    help="Import even if the words differ from the catalogue "
    "edition of that name, or replace an existing lexicon with different words.",
)
@click.option(
    "--skip-invalid", is_flag=True, help="Leave out lines that are not words, and list them."
)
@click.option("--description", default="", help="A line describing the lexicon.")
@click.option(
    "--alphabet",
    "alphabet_spec",
    metavar="NAME|FILE",
    help="The tiles the words are spelled in: a built-in alphabet (english, polish, spanish, "
    "catalan; see `lexicon alphabets`) or a federation's alphabet TOML file. Default english; "
    "with --recipe, the recipe's own alphabet.",
)
def import_(
    path: Path | None,
    recipe: str | None,
    name: str | None,
    fmt: str,
    force: bool,
    skip_invalid: bool,
    description: str,
    alphabet_spec: str | None,
):
    """Compile the word list at PATH (gzip or not) as NAME, or build the lexicon --recipe FILE."""
    if (path is None) == (recipe is None):
        raise click.UsageError("Give exactly one of PATH or --recipe FILE.")
    alphabet = resolve_alphabet(alphabet_spec) if alphabet_spec else None
    store = open_store()
    before = set(store.names())
    if recipe is not None:
        if fmt != "auto" or skip_invalid:
            raise click.UsageError(
                "--format and --skip-invalid apply to PATH only: a recipe's "
                "sources are detected automatically and must hold only words."
            )
        summary = import_recipe(
            store, recipe, name, force=force, description=description, alphabet=alphabet
        )
        click.echo(format_recipe_import(summary))
        _warn_tournaments_left_behind(summary.manifest, summary.manifest.name in before)
        return
    if not name:
        raise click.UsageError("Missing option '--name' / '-n': name the edition, such as NWL2023.")
    summary = import_lexicon(
        store,
        path,
        name,
        fmt,
        force=force,
        skip_invalid=skip_invalid,
        description=description,
        alphabet=alphabet or ENGLISH,
    )
    click.echo(format_import(summary))
    _warn_tournaments_left_behind(summary.manifest, summary.manifest.name in before)


def _warn_tournaments_left_behind(manifest: Manifest, replaced: bool) -> None:
    """On stderr, after a lexicon was replaced: each tournament set with its previous pin judges
    nothing until the director sets it again (a deliberate change is never taken silently)."""
    if not replaced:
        return  # a new name: no tournament can be set with it yet (and no journal is made)
    from adjudicator.cli.common import open_hall
    from adjudicator.hall import tournament_pins

    try:
        hall = open_hall()
        behind = tournament_pins.set_with_another_pin(hall.db, manifest.name, manifest.pin)
    except (AdjudicatorError, OSError):
        return  # no journal to read here: the overview and `tournament show` still say it
    for t in behind:
        click.echo(
            f"Warning: tournament {t.slug} was set with another pin of {manifest.name} "
            f"({(t.lexicon_pin or 'none recorded')[:12]}; now {manifest.pin[:12]}): it judges "
            "nothing until you set the lexicon again, if this change is what you mean: "
            f"adjudicator tournament set {t.slug} --lexicon {manifest.name}",
            err=True,
        )


@lexicon.command("list")
@json_option
def list_(as_json: bool):
    """List the compiled lexicons."""
    manifests = open_store().manifests()
    if as_json:
        click.echo(json.dumps([m.summary() for m in manifests], indent=2))
        return
    if not manifests:
        click.echo(
            "No lexicons yet: run `adjudicator lexicon install-defaults` or `lexicon import`."
        )
        return
    click.echo(f"{'NAME':<14} {'WORDS':>9}  {'FINGERPRINT':<12}  STATUS")
    for m in manifests:
        status = (
            "verified"
            if m.verified
            else ("= " + m.catalogue_name if m.catalogue_name else "unlisted")
        )
        if not m.tournament_list:
            status += ", not a tournament list"
        if m.refer_longer_than:
            every = "every word " if m.refer_even_if_listed else ""
            status += f", refers {every}>{m.refer_longer_than}"
        if m.recipe:
            status += ", recipe " + m.recipe.get("file", "")
        if m.alphabet and m.get_alphabet().name != "english":
            status += ", alphabet " + m.get_alphabet().name
        click.echo(f"{m.name:<14} {m.words:>9,}  {m.short_fingerprint:<12}  {status}")


@lexicon.command("show")
@click.argument("name")
@json_option
def show(name: str, as_json: bool):
    """Show everything the manifest of NAME records."""
    manifest = open_store().manifest(name)
    data = json.loads(manifest.to_json())
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    for key, value in data.items():
        if key == "alphabet":
            value = alphabet_text(manifest.get_alphabet())
        if key == "pinned":
            value = lexicon_pin.canonical(value).decode()  # exactly what the pin hashes
        if key != "recipe":
            click.echo(f"{key + ':':<20} {value}")
    referral = referral_text(manifest.refer_longer_than, manifest.refer_even_if_listed)
    click.echo(f"{'referral:':<20} {referral}")
    click.echo(f"{'recipe:':<20} {_recipe_text(manifest)}")


def _recipe_text(manifest: Manifest) -> str:
    """The recipe a lexicon was built from: its file, every list, and the recipe's own text."""
    recipe = manifest.recipe
    if not recipe:
        return "- (imported from a single list)"
    lines = [f"{recipe.get('file', '?')} (sha256 {str(recipe.get('sha256', ''))[:12]})"]
    for key, title in (("sources", "source"), ("add", "add"), ("remove", "remove")):
        for record in recipe.get(key, []):
            left_out = "".join(
                f"; {plural(record[key], *what)} left out"
                for key, what in (
                    ("capitalised", ("capitalised entry", "capitalised entries")),
                    ("skipped", ("line",)),
                )
                if record.get(key)
            )
            lines.append(
                f"  {title + ':':<8} {record.get('name')} ({record.get('kind')}): "
                f"{record.get('words', 0):,} words, fingerprint "
                f"{str(record.get('fingerprint', ''))[:12]}{left_out}"
            )
    if recipe.get("add"):
        lines.append(f"  added:   {recipe.get('added', 0):,} word(s) no source had")
    if recipe.get("remove"):
        lines.append(f"  removed: {recipe.get('removed', 0):,} word(s)")
    text = str(recipe.get("text", "")).rstrip()
    if text:
        lines.append("  text:")
        lines.extend(f"    | {line}" for line in text.splitlines())
    return "\n".join(lines)


def alphabet_text(alphabet: Alphabet) -> str:
    """'polish: A Ą B ...' with the folds, as `lexicon show` and `lexicon alphabets` print it."""
    text = f"{alphabet.name} ({len(alphabet.tiles)} tiles: {' '.join(alphabet.tiles)})"
    if alphabet.fold:
        text += "; reads " + ", ".join(f"{a} as {b}" for a, b in alphabet.fold)
    return text


@lexicon.command("alphabets")
@json_option
def alphabets(as_json: bool):
    """List the built-in alphabets and their tiles (for --alphabet and recipes)."""
    found = [builtin(name) for name in builtin_names()]
    if as_json:
        click.echo(json.dumps([a.to_dict() for a in found], indent=2, ensure_ascii=False))
        return
    for alphabet in found:
        click.echo(alphabet_text(alphabet))
        if alphabet.description:
            click.echo(f"  {alphabet.description}")


@lexicon.command("verify")
@click.argument("name", required=False)
def verify(name: str | None):
    """Check that every (or the named) compiled lexicon is intact; exit 1 if not."""
    store = open_store()
    names = [name] if name else store.names()
    if not names:
        raise CliError("No lexicons to verify.")
    failures = 0
    for each in names:
        try:
            pinned_before = bool(store.manifest(each).pin)
            manifest = store.verify(each)
        except LexiconError as exc:
            failures += 1
            click.echo(f"{each}: FAILED: {exc}", err=True)
        else:
            written = "" if pinned_before else ", written into its manifest now"
            click.echo(
                f"{each}: ok ({manifest.words:,} words, fingerprint {manifest.short_fingerprint}, "
                f"pin {manifest.pin[:12]}{written})"
            )
    sys.exit(1 if failures else 0)


@lexicon.command("install-defaults")
def install_defaults_():
    """Fetch TWL06, CSW19 and ENABLE1 from the package registry, verify and compile them."""
    install_defaults(open_store(), report=click.echo)


@lexicon.command("diff")
@click.argument("old")
@click.argument("new")
@click.option("--words", "with_words", is_flag=True, help="List the words added and removed.")
@json_option
def diff(old: str, new: str, with_words: bool, as_json: bool):
    """Count the words added and removed from edition OLD to edition NEW (a director's tool)."""
    store = open_store()
    result = diff_lexicons(store.open(old), store.open(new))
    if as_json:
        click.echo(json.dumps(result.as_dict(with_words), indent=2))
        return
    click.echo(format_diff(result, with_words))


def format_diff(result: LexiconDiff, with_words: bool) -> str:
    """Both editions, the counts, and with `with_words` the words, one a line, sorted."""
    lines = [f"{result.old.name} -> {result.new.name}"]
    for m in (result.old, result.new):
        lines.append(f"  {m.name}: {m.words:,} words, fingerprint {m.short_fingerprint}")
    lines.append(f"  added:   {len(result.added):,}")
    lines.append(f"  removed: {len(result.removed):,}")
    if with_words:
        for title, words in (("Added", result.added), ("Removed", result.removed)):
            lines.append(f"{title} ({len(words):,}):")
            lines.extend(f"  {word}" for word in words)
    return "\n".join(lines)
