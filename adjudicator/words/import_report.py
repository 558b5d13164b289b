"""What an import did, as the text the CLI prints and the director's upload page shows."""

from __future__ import annotations

from adjudicator.wording import plural
from adjudicator.words import catalogue
from adjudicator.words.lexicon import Manifest
from adjudicator.words.lexicon_import import ImportSummary
from adjudicator.words.recipe import RecipeSummary, referral_text


def format_import(summary: ImportSummary) -> str:
    """What an import did: counts, fingerprint, catalogue match, anything skipped."""
    m = summary.manifest
    alphabet = m.get_alphabet()
    unit = "letters" if alphabet.is_english else "tiles"
    lines = [
        f"Imported {m.name} from {m.source_file} ({m.source_format}) in {m.build_seconds:.2f} s",
        f"  words:       {m.words:,} (longest {m.longest_word} {unit}; "
        f"{m.words_over_15:,} over 15 {unit}, kept but never playable)",
        f"  fingerprint: {m.fingerprint}",
        f"  catalogue:   {_catalogue_line(m)}",
    ]
    if not alphabet.is_english:
        lines.append(f"  alphabet:    {alphabet.name} ({' '.join(alphabet.tiles)})")
    if not m.tournament_list:
        lines.append("  status:      not a tournament list")
    if summary.duplicates:
        lines.append(f"  duplicates:  {summary.duplicates:,} repeated lines counted once")
    if summary.skipped:
        skipped = plural(len(summary.skipped), "line")
        lines.append(f"  skipped:     {skipped} that are not words:")
        lines.extend(f"    {bad}" for bad in summary.skipped)
    return "\n".join(lines)


def format_recipe_import(summary: RecipeSummary) -> str:
    """What a recipe import did: the import summary, then every list used and the referral rule."""
    build = summary.build
    lines = [format_import(ImportSummary(summary.manifest, edition=summary.edition))]
    lines.append(f"  sources:     {len(build.sources)} (their union)")
    lines.extend(f"    {_list_line(record)}" for record in build.sources)
    if build.add:
        lines.append(
            f"  add:         {plural(len(build.add), 'list')}, "
            f"{plural(build.added, 'word')} no source had"
        )
        lines.extend(f"    {_list_line(record)}" for record in build.add)
    if build.remove:
        not_there = f"; {build.not_there:,} not there to remove" if build.not_there else ""
        lines.append(
            f"  remove:      {plural(len(build.remove), 'list')}, "
            f"{plural(build.removed, 'word')} removed{not_there}"
        )
        lines.extend(f"    {_list_line(record)}" for record in build.remove)
    manifest = summary.manifest
    referral = referral_text(manifest.refer_longer_than, manifest.refer_even_if_listed)
    lines.append(f"  referral:    {referral}")
    return "\n".join(lines)


def _list_line(record) -> str:
    kind = "compiled lexicon" if record.kind == "lexicon" else "file"
    line = f"{record.name} ({kind}): {record.words:,} words, fingerprint {record.fingerprint[:12]}"
    if record.capitalised:
        entries = plural(record.capitalised, "capitalised entry", "capitalised entries")
        line += f"; {entries} left out"
    if record.skipped:
        line += f"; {plural(record.skipped, 'line')} left out that do not spell in the tiles"
    return line


def _catalogue_line(m: Manifest) -> str:
    if m.verified:
        return f"verified: matches {m.name} in the catalogue"
    if m.catalogue_name and m.refer_longer_than:
        return (
            f"the same words as catalogue edition {m.catalogue_name}, judged with the referral "
            f"rule below (which {m.catalogue_name} alone does not have)"
        )
    if m.catalogue_name:
        return f"the same words as catalogue edition {m.catalogue_name}"
    if catalogue.by_name(m.name):
        return f"NOT the catalogue's {m.name}: imported with --force"
    return "not a catalogue edition (no known fingerprint to check against)"
