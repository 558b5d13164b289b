"""Corrections that follow a challenge: voids, reissues, second opinions and their chain, the
director's final ruling, free challenges waived, the fields a follow-up row copies, and when a
misadjudication may still be corrected (`correction_window`).

Each is a journal row of its own that refers to the original challenge, which never changes;
adjudicator.judging.outcomes reads them together.

May import: the rest of the judging, the record, the words and the shared leaves.
"""
