"""The judging: one challenge in, one verdict out, and what it costs under the event's rule.

The verdict (computed in exactly one function, adjudicator.judging.verdict), challenge rules
and penalties, rulebooks, games, outcomes, separate look-ups and the reasons staff give; the
corrections that follow a challenge (voids, reissues, second opinions, rulings, free
challenges) in `corrections/`.

May import: the words, the record and the shared leaves. Never the hall.
"""
