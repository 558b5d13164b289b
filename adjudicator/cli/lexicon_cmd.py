"""`adjudicator lexicon ...`: import, list, show, verify and install the default lexicons."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from adjudicator import catalogue
from adjudicator.cli.common import CliError, json_option, open_store
from adjudicator.defaults import install_defaults
from adjudicator.errors import LexiconError
from adjudicator.importers import FORMATS
from adjudicator.lexicon import Manifest
from adjudicator.lexicon_import import ImportSummary, import_lexicon


@click.group()
def lexicon() -> None:
    """Compiled lexicon editions: import, list, show, verify."""


@lexicon.command("import")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--name", "-n", required=True, help="Name of the edition, such as NWL2023.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="auto", show_default=True,
              help="Input format: plain text, Zyzzyva text, Zyzzyva .dwg word graph.")
@click.option("--force", is_flag=True, help="Import even if the words differ from the catalogue "
              "edition of that name, or replace an existing lexicon with different words.")
@click.option("--skip-invalid", is_flag=True, help="Leave out lines that are not words, and list them.")
@click.option("--description", default="", help="A line describing the lexicon.")
def import_(path: Path, name: str, fmt: str, force: bool, skip_invalid: bool, description: str):
    """Compile the word list at PATH (gzip or not) into the store as NAME."""
    summary = import_lexicon(open_store(), path, name, fmt, force=force,
                             skip_invalid=skip_invalid, description=description)
    click.echo(format_import(summary))


def format_import(summary: ImportSummary) -> str:
    """What an import did: counts, fingerprint, catalogue match, anything skipped."""
    m = summary.manifest
    lines = [
        f"Imported {m.name} from {m.source_file} ({m.source_format}) in {m.build_seconds:.2f} s",
        f"  words:       {m.words:,} (longest {m.longest_word} letters; "
        f"{m.words_over_15:,} over 15 letters, kept but never playable)",
        f"  fingerprint: {m.fingerprint}",
        f"  catalogue:   {_catalogue_line(m)}",
    ]
    if summary.duplicates:
        lines.append(f"  duplicates:  {summary.duplicates:,} repeated lines counted once")
    if summary.skipped:
        lines.append(f"  skipped:     {len(summary.skipped)} line(s) that are not words:")
        lines.extend(f"    {bad}" for bad in summary.skipped)
    return "\n".join(lines)


def _catalogue_line(m: Manifest) -> str:
    if m.verified:
        return f"verified: matches {m.name} in the catalogue"
    if m.catalogue_name:
        return f"the same words as catalogue edition {m.catalogue_name}"
    if catalogue.by_name(m.name):
        return f"NOT the catalogue's {m.name}: imported with --force"
    return "not a catalogue edition (no known fingerprint to check against)"


@lexicon.command("list")
@json_option
def list_(as_json: bool):
    """List the compiled lexicons."""
    manifests = open_store().manifests()
    if as_json:
        click.echo(json.dumps([m.summary() for m in manifests], indent=2))
        return
    if not manifests:
        click.echo("No lexicons yet: run `adjudicator lexicon install-defaults` or `lexicon import`.")
        return
    click.echo(f"{'NAME':<14} {'WORDS':>9}  {'FINGERPRINT':<12}  STATUS")
    for m in manifests:
        status = "verified" if m.verified else ("= " + m.catalogue_name if m.catalogue_name else "unlisted")
        if not m.tournament_list:
            status += ", not a tournament list"
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
        click.echo(f"{key + ':':<20} {value}")


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
            manifest = store.verify(each)
        except LexiconError as exc:
            failures += 1
            click.echo(f"{each}: FAILED: {exc}", err=True)
        else:
            click.echo(f"{each}: ok ({manifest.words:,} words, fingerprint {manifest.short_fingerprint})")
    sys.exit(1 if failures else 0)


@lexicon.command("install-defaults")
def install_defaults_():
    """Fetch TWL06, CSW19 and ENABLE1 from the package registry, verify and compile them."""
    install_defaults(open_store(), report=click.echo)
