"""The manual's generated pages: the command reference from the CLI's own help, and the
settings table from adjudicator/settings.py, so neither can drift from the program.

The pages hold cog blocks that call these functions (`make docs` rewrites them;
`make check` and CI run `cog --check`, which fails when a page is stale). Run from the
repository's root: `cog -r -I docs docs/reference/*.md`.
"""

from __future__ import annotations

from collections.abc import Iterator

import click

WIDTH = 100  # help is wrapped at this width, whatever the terminal of whoever regenerates
WIDTH_NOTE = (
    "Each help below is wrapped at a fixed width of {width} columns, whatever the terminal of "
    "whoever generated this page; `adjudicator COMMAND --help` wraps at your terminal's width, "
    "so its lines may break elsewhere (the words are the same)."
)


def command_paths(group: click.Group, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Every command's path under `group`, a group before its subcommands, in name order."""
    context = click.Context(group, info_name=" ".join(("adjudicator", *prefix)))
    for name in sorted(group.list_commands(context)):
        command = group.get_command(context, name)
        if command is None or command.hidden:
            continue
        yield (*prefix, name)
        if isinstance(command, click.Group):
            yield from command_paths(command, (*prefix, name))


def command_at(path: tuple[str, ...]) -> tuple[click.Command, click.Context]:
    """The command at `path` and a context for it, wrapping help at WIDTH columns."""
    from adjudicator.cli import cli

    width = {"terminal_width": WIDTH, "max_content_width": WIDTH}
    command: click.Command = cli
    context = click.Context(cli, info_name="adjudicator", **width)
    for name in path:
        assert isinstance(command, click.Group)
        command = command.get_command(context, name)
        context = click.Context(command, info_name=name, parent=context, **width)
    return command, context


def anchor(path: tuple[str, ...]) -> str:
    """The heading's anchor, as MkDocs makes it (`adjudicator-journal-verify`)."""
    return "-".join(("adjudicator", *path))


def commands_markdown() -> str:
    """The command reference: a table of contents, then each command's help as it prints."""
    from adjudicator.cli import cli

    paths = list(command_paths(cli))
    lines = [WIDTH_NOTE.format(width=WIDTH), "", "| command | what it does |", "|---|---|"]
    for path in paths:
        summary = command_at(path)[0].get_short_help_str(limit=90).replace("|", "\\|")
        lines.append(f"| [`adjudicator {' '.join(path)}`](#{anchor(path)}) | {summary} |")
    for path in paths:
        command, context = command_at(path)
        heading = "#" * (1 + len(path)) + " adjudicator " + " ".join(path)
        lines += ["", heading, "", "```text", command.get_help(context), "```"]
    return "\n".join(lines)


def settings_markdown() -> str:
    """The settings table: each environment variable, its default and what it does."""
    from adjudicator.settings import SETTINGS

    lines = ["| variable | default | meaning |", "|---|---|---|"]
    for setting in SETTINGS:
        default = f"`{setting.default}`" if setting.default else "(empty)"
        if setting.name == "home":
            default = "`$XDG_DATA_HOME/adjudicator`, else `~/.local/share/adjudicator`"
        meaning = " ".join(setting.help.split()).replace("|", "\\|")
        lines.append(f"| `{setting.env_var}` | {default} | {meaning} |")
    return "\n".join(lines)


def opinion_chains_markdown() -> str:
    """Each rulebook's chain of opinions (judging/corrections/opinion_chain.py): who may give
    the next opinion, when one decides, who rules last, each quoting its rulebook."""
    from adjudicator.judging.corrections import opinion_chain
    from adjudicator.judging.rulebooks import NONE, RULEBOOKS

    lines = [
        "| rulebook | who may give the next opinion | when an opinion decides | who rules last |",
        "|---|---|---|---|",
    ]
    for book in (*RULEBOOKS.values(), NONE):
        chain = opinion_chain.describe(book)
        name = f"`{book.name}` ({book.title})" if book.named else "no rulebook named"
        cells = (name, chain.next_opinion, chain.decides, chain.rules_last)
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines)
