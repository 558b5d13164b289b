"""The floor for `journal verify` and `journal export`: a plain read of the same rows, in id
order in batches of 5,000, with the raw driver (sqlite3 or psycopg), doing the same work per
row and nothing else: the row hash (canonical JSON, SHA-256) for verify, a CSV line for export.

    python benchmarks/journal_floor.py verify|export DATABASE_URL_OR_SQLITE_PATH

It imports nothing from the program, so it is what the work costs without the program.
"""

from __future__ import annotations

import csv
import hashlib
import json
import sys

COLUMNS = (
    "id, recorded_at, kind, tournament, kiosk, lexicon_name, lexicon_fingerprint, lexicon_words, "
    "rule, words, word_count, verdict, consequence, refers_to, table_no, round_no, challenger, "
    "player, actor, note, prev_hash, row_hash"
)
NAMES = [name.strip() for name in COLUMNS.replace("table_no", "table").split(",")]
NAMES = [name.replace("round_no", "round") for name in NAMES]


def connect(url: str):
    if url.startswith(("postgresql://", "postgres://")):
        import psycopg

        return psycopg.connect(url), "%s"
    import sqlite3

    return sqlite3.connect(url), "?"


def rows(url: str, batch: int = 5000):
    connection, mark = connect(url)
    after = 0
    sql = f"SELECT {COLUMNS} FROM adjudications WHERE id > {mark} ORDER BY id LIMIT {batch}"
    while True:
        found = connection.execute(sql, (after,)).fetchall()
        connection.commit()
        if not found:
            return
        yield from found
        after = found[-1][0]


def verify(url: str) -> int:
    bad = 0
    for row in rows(url):
        fields = dict(zip(NAMES[:-1], row[:-1], strict=True))
        fields["words"] = fields["words"].split()
        digest = hashlib.sha256(
            json.dumps(fields, sort_keys=True, separators=(",", ":")).encode()
        ).hexdigest()
        bad += digest != row[-1]
    return bad


def export(url: str) -> None:
    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow(NAMES)
    for row in rows(url):
        writer.writerow(row)


if __name__ == "__main__":
    mode, url = sys.argv[1], sys.argv[2]
    if mode == "verify":
        sys.exit(1 if verify(url) else 0)
    export(url)
