"""A word list imported in a child process, for the web server: whatever the list does to
memory (a decompression bomb, a list too large for the machine), the server's workers, which
also serve the kiosks, never feel it.

The child caps its own address space (ADJUDICATOR_IMPORT_MEMORY_MB) and offers itself first to
the kernel's out-of-memory killer; the parent hears back one JSON object on the child's stdout.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

from adjudicator import settings
from adjudicator.errors import ImportRefused

log = logging.getLogger("adjudicator.import")
TIMEOUT_SECONDS = 900


def import_isolated(
    store_root: Path, path: Path, name: str, fmt: str = "auto", **options: Any
) -> str:
    """Import `path` into the store at `store_root` in a child process; the summary's text.

    `options` are import_lexicon's keyword options (force, skip_invalid, description), with
    `alphabet` as the name of a built-in alphabet (the child looks it up; default english).

    Raises ImportRefused with the import's own message, or saying the child ran out of memory.
    """
    job = {"store_root": str(store_root), "path": str(path), "name": name, "format": fmt}
    job["options"] = {"alphabet": "english", **options}
    try:
        done = subprocess.run(
            [sys.executable, "-P", "-m", "adjudicator.words.import_job"],  # -P: children.py
            input=json.dumps(job),
            capture_output=True,
            text=True,
            timeout=TIMEOUT_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise ImportRefused(
            f"The import took longer than {TIMEOUT_SECONDS // 60} minutes and was stopped: "
            "nothing was imported. Import the list with `adjudicator lexicon import`."
        ) from None
    try:
        answer = json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        answer = None
    if isinstance(answer, dict) and answer.get("ok") is True:
        return str(answer["report"])
    if isinstance(answer, dict) and answer.get("ok") is False:
        raise ImportRefused(str(answer["error"]))
    log.warning("import child exited with %s: %s", done.returncode, done.stderr[-2000:])
    raise ImportRefused(_died_text(done.returncode))


def _died_text(returncode: int) -> str:
    limit = settings.get_int("import_memory_mb", 64)
    return (
        f"The import stopped (exit {returncode}): reading this list needed more memory than "
        f"the import may use ({limit:,} MB, ADJUDICATOR_IMPORT_MEMORY_MB) or the machine has. "
        "Nothing was imported, and the kiosks were not affected. Import it with "
        "`adjudicator lexicon import` on a machine with more memory."
    )


def _limit_memory() -> None:
    """Cap this process's address space, and be the first the out-of-memory killer takes."""
    import resource

    limit = settings.get_int("import_memory_mb", 64) * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        Path("/proc/self/oom_score_adj").write_text("1000")
    except OSError:
        pass  # not Linux, or not allowed: the address-space cap still holds


def _run_child() -> int:
    """The child's side: read the job on stdin, import, print one JSON answer."""
    job = json.loads(sys.stdin.read())
    _limit_memory()
    from adjudicator.errors import AdjudicatorError
    from adjudicator.words.alphabet_files import builtin
    from adjudicator.words.import_report import format_import
    from adjudicator.words.lexicon_import import import_lexicon
    from adjudicator.words.store import LexiconStore

    try:
        options = job["options"]
        alphabet = builtin(options["alphabet"])
        if alphabet is None:
            raise ImportRefused(f"Unknown alphabet {options['alphabet']!r}: choose a built-in one.")
        summary = import_lexicon(
            LexiconStore(root=Path(job["store_root"])),
            Path(job["path"]),
            job["name"],
            job["format"],
            **{**options, "alphabet": alphabet},
        )
        answer = {"ok": True, "report": format_import(summary)}
    except (AdjudicatorError, OSError) as exc:
        answer = {"ok": False, "error": str(exc)}
    except MemoryError:
        answer = {"ok": False, "error": _died_text(0).replace(" (exit 0)", "")}
    sys.stdout.write(json.dumps(answer) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(_run_child())
