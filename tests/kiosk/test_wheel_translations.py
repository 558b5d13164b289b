"""The catalogues work from an installed wheel, not only from the checkout: the wheel carries
the compiled .mo files (and the built-in alphabets), and a kiosk app imported from it speaks
French."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from adjudicator.hall.languages import LANGUAGES

ROOT = Path(__file__).resolve().parents[2]
CHECK = """
import kiosk, sys
assert kiosk.__file__.startswith(sys.argv[1]), kiosk.__file__
from flask_babel import gettext
from kiosk import create_app
from kiosk.i18n import speak
app = create_app({"SECRET_KEY": "x" * 40, "TESTING": True, "HALL": object()})
with app.test_request_context("/"):
    speak("fr")
    print(gettext("ACCEPTABLE"), gettext("UNACCEPTABLE"))
"""


@pytest.mark.slow
def test_a_wheel_ships_the_catalogues_and_they_work_installed(tmp_path):
    source = tmp_path / "src"  # a copy: setuptools' build/ never lands in (or leaks from) ROOT
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".venv", ".git", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", "tests",
        "benchmarks", "docs", ".benchmarks", ".hypothesis",
    ))  # fmt: skip
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(tmp_path / "dist"), str(source)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    (wheel,) = (tmp_path / "dist").glob("adjudicator-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for code in LANGUAGES:
        if code != "en":
            assert f"kiosk/translations/{code}/LC_MESSAGES/messages.mo" in names
    assert "lexicons/alphabets/french.toml" in names
    assert "lexicons/alphabets/spanish-fise.toml" in names
    installed = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(installed)
    ran = subprocess.run(
        [sys.executable, "-c", CHECK, str(installed)],
        capture_output=True, text=True, cwd=tmp_path, timeout=60,
        env={"PYTHONPATH": str(installed), "PATH": "/usr/bin:/bin",
             "ADJUDICATOR_HOME": str(tmp_path / "home")},
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "VALABLE NON VALABLE"
