"""Challenge adjudicator for tournament Scrabble: one verdict per challenge, recorded first.

Wings by job: `words/`, `judging/`, `record/`, `hall/`, and the command line `cli/`, over the
shared leaves (settings, errors, wording, textcheck, durable).

May import: nothing of its own (each wing's `__init__` says what it may import).
"""

__version__ = "0.1.0"
