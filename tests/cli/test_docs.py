"""Every command has help, and the manual's generated pages (the command reference and the
settings table) are current: each is what docs/generate.py makes from the program now."""

from __future__ import annotations

import click
import pytest

from adjudicator.cli import cli
from adjudicator.settings import SETTINGS

from support.paths import ROOT

DOCS = ROOT / "docs"
COMMANDS_PAGE = (DOCS / "reference" / "commands.md").read_text()
SETTINGS_PAGE = (DOCS / "reference" / "settings.md").read_text()
# Each rulebook's chain of opinions, generated from opinion_chain.py (issue 43).
DIRECTOR_PAGE = (DOCS / "director.md").read_text()
PENALTIES_PAGE = (DOCS / "penalties.md").read_text()


def _commands(group: click.Group, prefix: str = ""):
    for name, command in group.commands.items():
        path = f"{prefix}{name}"
        yield path, command
        if isinstance(command, click.Group):
            yield from _commands(command, path + " ")


COMMANDS = sorted(_commands(cli), key=lambda item: item[0])


@pytest.mark.parametrize("path,command", COMMANDS, ids=[path for path, _ in COMMANDS])
def test_every_command_has_help(path, command):
    assert (command.help or "").strip(), f"`adjudicator {path}` has no help text"


@pytest.mark.parametrize("path", [path for path, _ in COMMANDS])
def test_every_command_is_in_the_reference(path):
    assert f"\n## adjudicator {path}\n" in COMMANDS_PAGE or (
        f"\n### adjudicator {path}\n" in COMMANDS_PAGE
    ), f"docs/reference/commands.md lacks `adjudicator {path}`: run `make docs`"


@pytest.mark.parametrize("setting", SETTINGS, ids=[s.name for s in SETTINGS])
def test_every_setting_is_in_the_settings_page(setting):
    assert f"`{setting.env_var}`" in SETTINGS_PAGE, f"settings.md lacks {setting.env_var}"
    assert setting.help.strip()


def generate_module():
    """docs/generate.py, which makes the generated pages."""
    import sys

    sys.path.insert(0, str(DOCS))
    try:
        import generate
    finally:
        sys.path.remove(str(DOCS))
    return generate


def generated(page: str) -> str:
    """The text a page's cog block holds now."""
    start = page.index("]]] -->\n") + len("]]] -->\n")
    return page[start : page.index("<!-- [[[end]]] -->")]


@pytest.mark.parametrize(
    "page,make",
    [
        (COMMANDS_PAGE, "commands_markdown"),
        (SETTINGS_PAGE, "settings_markdown"),
        (DIRECTOR_PAGE, "opinion_chains_markdown"),
        (PENALTIES_PAGE, "opinion_chains_markdown"),
    ],
    ids=["commands", "settings", "director-opinion-chains", "penalties-opinion-chains"],
)
def test_the_generated_pages_are_current(page, make):
    assert generated(page) == getattr(generate_module(), make)() + "\n", (
        "a generated page of the manual is stale: run `make docs` and commit it"
    )


def test_the_command_reference_says_it_is_wrapped_at_a_fixed_width():
    """Issue 44: `--help` wraps at the terminal's width, the page at generate.WIDTH columns,
    and the page says so, with the width its help blocks are wrapped at."""
    import re

    width = generate_module().WIDTH
    assert f"wrapped at a fixed width of {width} columns" in COMMANDS_PAGE
    assert "wraps at your terminal's width" in COMMANDS_PAGE
    helps = re.findall(r"```text\n(.*?)```", COMMANDS_PAGE, re.S)
    assert len(helps) == len(COMMANDS)
    longest = max(len(line) for help in helps for line in help.splitlines())
    assert width - 10 < longest <= width  # wrapped at that width, not at another
