"""The floor for `journal verify` and `journal export`: a plain read of the same rows, in id
order in batches of 5,000, with the raw driver (sqlite3 or psycopg), doing the same work per
row and nothing else: the row hash (canonical JSON, SHA-256) for verify; for export a CSV line
with the effective outcome's four columns (the batch's follow-ups read by one range query) and
every text cell that a spreadsheet would run as a formula given a leading apostrophe.

    python benchmarks/journal_floor.py verify|export DATABASE_URL_OR_SQLITE_PATH

It imports nothing from the program, so it is what the work costs without the program. (Its
effective outcome takes a ruling or void over the verdict as judged: the same reads and about
the same work as the program's, not a reference for what the outcome is.)
"""

from __future__ import annotations

import csv
import hashlib
import json
import sys

COLUMNS = (
    "id, recorded_at, kind, tournament, kiosk, lexicon_name, lexicon_fingerprint, lexicon_words, "
    "rule, words, word_count, verdict, consequence, refers_to, table_no, round_no, challenger, "
    "player, actor, note, penalty, flag, dictionary, flag_reasons, details, division, players, "
    "install, prev_hash, row_hash"
)
NAMES = [name.strip() for name in COLUMNS.replace("table_no", "table").split(",")]
NAMES = [name.replace("round_no", "round") for name in NAMES]
# the columns added after the first schema, penalty to install: hashed only when set
LATER = tuple(NAMES[NAMES.index("penalty") : NAMES.index("prev_hash")])
EFFECTIVE = ("effective_verdict", "effective_consequence", "effective_decided_by", "effective_how")
FORMULA = ("=", "+", "-", "@", "\t", "\r", "\n", "\0", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def cells(record):
    return ["'" + v if isinstance(v, str) and v.startswith(FORMULA) else v for v in record]


def connect(url: str):
    if url.startswith(("postgresql://", "postgres://")):
        import psycopg

        return psycopg.connect(url), "%s"
    import sqlite3

    return sqlite3.connect(url), "?"


def batches(url: str, follow_ups: bool, batch: int = 5000):
    """(rows, their follow-ups or []) a batch at a time."""
    connection, mark = connect(url)
    after = 0
    sql = f"SELECT {COLUMNS} FROM adjudications WHERE id > {mark} ORDER BY id LIMIT {batch}"
    later_sql = (
        f"SELECT refers_to, id, kind, verdict, consequence FROM adjudications "
        f"WHERE refers_to BETWEEN {mark} AND {mark} ORDER BY id"
    )
    while True:
        found = connection.execute(sql, (after,)).fetchall()
        if not found:
            connection.commit()
            return
        bounds = (found[0][0], found[-1][0])
        later = connection.execute(later_sql, bounds).fetchall() if follow_ups else []
        connection.commit()
        yield found, later
        after = found[-1][0]


def verify(url: str) -> int:
    bad = 0
    for found, _ in batches(url, follow_ups=False):
        for row in found:
            fields = dict(zip(NAMES[:-1], row[:-1], strict=True))
            fields["words"] = fields["words"].split()
            for name in LATER:
                if fields[name] is None:
                    del fields[name]
            digest = hashlib.sha256(
                json.dumps(fields, sort_keys=True, separators=(",", ":")).encode()
            ).hexdigest()
            bad += digest != row[-1]
    return bad


def export(url: str) -> None:
    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow([*NAMES, *EFFECTIVE])
    for found, later in batches(url, follow_ups=True):
        decided = {}
        for refers_to, row_id, kind, verdict, consequence in later:
            if kind in ("ruling", "void", "challenge"):
                decided[refers_to] = (verdict, consequence, row_id, kind)
        for row in found:
            if row[2] != "challenge":
                writer.writerow(cells((*row, None, None, None, None)))
            else:
                judged = (row[11], row[12], row[0], "as judged")
                writer.writerow(cells((*row, *decided.get(row[0], judged))))


if __name__ == "__main__":
    mode, url = sys.argv[1], sys.argv[2]
    if mode == "verify":
        sys.exit(1 if verify(url) else 0)
    export(url)
