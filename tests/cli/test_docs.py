"""The README documents every command and every setting, and every command has help."""

from __future__ import annotations

import click
import pytest

from adjudicator.cli import cli
from adjudicator.settings import SETTINGS

from support.paths import ROOT

README = (ROOT / "README.md").read_text()


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
def test_every_command_is_in_the_readme(path):
    assert f"adjudicator {path}" in README, f"README does not mention `adjudicator {path}`"


@pytest.mark.parametrize("setting", SETTINGS, ids=[s.name for s in SETTINGS])
def test_every_setting_is_in_the_readme(setting):
    assert f"`{setting.env_var}`" in README, f"README's settings table lacks {setting.env_var}"
    assert setting.help.strip()
