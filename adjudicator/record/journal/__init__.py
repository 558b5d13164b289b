"""The journal: append-only adjudication rows in a keyed hash chain.

The journal itself (`journal`: append, read, verify), its entries and their hashes, the hourly
tallies written in each append's transaction, group commit, the hall's signing key
(`receipt_key`) and the per-row keyed hash (`row_keys`), the chain walked row by row
(`chain_walk`), rollbacks found and kept, judging held (`journal_holds`), and the laptop that
writes, which every row names (`writer`).

May import: the record's database and the shared leaves.
"""
