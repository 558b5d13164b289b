"""The command-line options a load script shares when it runs the program from one checkout, or
from two side by side in rounds that alternate them (load_hall_tls.py, load_polls.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

THIS_TREE = Path(__file__).resolve().parents[1]


def trees_parser(doc: str, before_help: str, before_required: bool = False):
    """A parser described by `doc`'s first line, with --before (another checkout), --after
    (default: this one), --rounds, --workers and --nice (the servers' niceness; root)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--before", type=Path, required=before_required, help=before_help)
    parser.add_argument(
        "--after", type=Path, default=THIS_TREE, help="the checkout to measure (default: this)"
    )
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--nice",
        type=int,
        default=0,
        help="run the servers at this niceness (-19: ahead of a shared machine's other work; root)",
    )
    return parser
