"""The program's processes started as an installed copy starts them: from compiled bytecode.

pip compiles a wheel's modules when it installs it, so a director's `adjudicator` never
compiles its sources at a start. A checkout run where the shell sets PYTHONDONTWRITEBYTECODE
(as this workplace's does) compiles every module of the program again in every process it
starts: about 0.13 s of CPU for the serving worker's modules, counted against the program in
any benchmark that times a start (a takeover, a restart, `adjudicator judge`, a child walk).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("adjudicator", "kiosk")


def cache_bytecode(*trees: Path) -> None:
    """Let the processes started from here on keep compiled bytecode (in a folder of its own,
    not beside the sources), and compile the program's modules of each tree now (this
    checkout's when none is given), so that no start measured compiles them."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ.setdefault(
        "PYTHONPYCACHEPREFIX", str(Path(tempfile.gettempdir()) / "adjudicator-bench-pycache")
    )
    for tree in trees or (ROOT,):
        folders = [str(tree / name) for name in PACKAGES if (tree / name).is_dir()]
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", *folders],
            env=os.environ,
            stdout=subprocess.DEVNULL,
            check=True,
        )
