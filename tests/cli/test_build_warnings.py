"""`python -m build` makes the sdist and the wheel without setuptools' "Package would be
ignored" warning: every folder of data (templates, static files, translations, alphabets,
recipes) is a package of its own, so a later setuptools cannot leave it out (issue 28, item 5).
tests/cli/test_wheel_install.py checks that the wheel then carries and serves every file."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from support.paths import copy_checkout
from support.wheelhouse import offline_pip_env

pytestmark = pytest.mark.slow
DATA_FOLDERS = (
    "kiosk/static/",
    "kiosk/templates/director/",
    "kiosk/translations/pl/LC_MESSAGES/",
    "lexicons/alphabets/",
    "lexicons/recipes/",
)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[subprocess.CompletedProcess, Path]:
    """`python -m build` (isolated, as a user runs it) on a copy of the checkout, its build
    tools installed from the wheelhouse (support.wheelhouse), not fetched."""
    work = tmp_path_factory.mktemp("build")
    source = copy_checkout(work / "source")
    done = subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--wheel", "-o", str(work / "dist"), "."],
        cwd=source,
        capture_output=True,
        text=True,
        timeout=600,
        env=offline_pip_env(),
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done, work / "dist"


def test_the_build_warns_of_no_package_it_would_ignore(built):
    done, _ = built
    said = done.stdout + done.stderr
    assert "Successfully built" in said
    assert "would be ignored" not in said, _the_warnings(said)
    assert "is absent from the `packages` configuration" not in said, _the_warnings(said)


def test_the_wheel_and_the_sdist_carry_every_data_folder(built):
    _, dist = built
    (wheel,) = dist.glob("adjudicator-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for folder in DATA_FOLDERS:
        assert any(name.startswith(folder) for name in names), f"the wheel lacks {folder}"
    (sdist,) = dist.glob("adjudicator-*.tar.gz")
    listed = subprocess.run(["tar", "tzf", str(sdist)], capture_output=True, text=True).stdout
    for folder in DATA_FOLDERS:
        assert f"/{folder}" in listed, f"the sdist lacks {folder}"


def _the_warnings(said: str) -> str:
    return "\n".join(line for line in said.splitlines() if "WARNING" in line or "ignored" in line)
