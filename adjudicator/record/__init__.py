"""The record: the durable, signed, witnessed journal of every adjudication.

In four layers, each importing only those below it (the import-linter contract "record"):
- `database/`: the database interface, its SQLite and PostgreSQL backends, the migrations, and
  the journal's health (is this process still writing to the journal it opened);
- `journal/`: the journal, its entries, hourly tallies, group commit, the hall's signing key,
  the keyed chain and its walk, rollbacks and holds;
- `proofs/`: what proves a row was recorded: receipts, checkpoints, witnesses, the audit of
  receipts, the high-water mark, the journal begun under the key, signed statements and the
  fork check;
- `copies/`: a mirrored journal's two copies: the mirror, the heads compared around each
  commit, what a copy must prove, markers, resync, the start, the background check, backups,
  lost rows, one hall and the takeover statement.
Over them: `backends` (which database backs the journal, mirrored or not) and
`journal_status` (what `journal status` says).

May import: the shared leaves only. Never the words, the judging or the hall.
"""
