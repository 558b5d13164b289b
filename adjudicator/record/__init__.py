"""The record: the durable, signed, witnessed journal of every adjudication.

The journal and its entries, the database backends (SQLite, PostgreSQL) and migrations, the
journal's health checks, group commit, tallies, receipts and the signing key, checkpoints,
witnesses and the audit of receipts; a mirrored journal's two copies and what each must prove
(heads compared before each commit, proofs, resyncs, the high-water mark, the journal begun
under the key).

May import: the shared leaves only. Never the words, the judging or the hall.
"""
