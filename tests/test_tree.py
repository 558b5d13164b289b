"""The tree as committed: no file carries an unresolved merge."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARKER = re.compile(r"^(<{7} |>{7} |={7}$)", re.M)


def test_no_file_holds_merge_conflict_markers():
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    offenders = []
    for name in tracked:
        path = ROOT / name
        if path.suffix in {".png", ".gz", ".mo", ".pdf"} or not path.is_file():
            continue
        if MARKER.search(path.read_text(errors="replace")):
            offenders.append(name)
    assert offenders == []
