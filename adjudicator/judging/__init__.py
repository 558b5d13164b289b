"""The judging: one challenge in, one verdict out, and what it costs under the event's rule.

The verdict (computed in exactly one function, adjudicator.judging.verdict), challenge rules
and penalties, games, outcomes, second opinions, rulings, voids, separate look-ups and the
reasons staff give.

May import: the words, the record and the shared leaves. Never the hall.
"""
