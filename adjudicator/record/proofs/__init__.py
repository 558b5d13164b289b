"""What proves that a row was recorded, and that a journal is the one that recorded it.

Signed receipts and their audit, checkpoints, witnesses (another server's signature over the
head), the high-water mark kept in the data home, the signed statement that the journal was
begun under the key, the signed statements kept beside a copy, the fork check (`fork_check`:
another history is a fork, never a loss) and what the start holds a journal to
(`journal_proof`).

May import: the record's journal and database, and the shared leaves.
"""
