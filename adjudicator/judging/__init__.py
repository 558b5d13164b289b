"""The judging: one challenge in, one verdict out, and what it costs under the event's rule.

The verdict (computed in exactly one function, adjudicator.judging.verdict), challenge rules
and penalties, rulebooks, games and their totals, what decides a challenge and its effective
outcome, free challenges and which challenge each pays for, the director's points, separate
look-ups and the reasons staff give; the corrections that follow a challenge (voids, reissues,
second opinions and their chain per rulebook, rulings, waivers) in `corrections/`.

May import: the words, the record and the shared leaves. Never the hall.
"""
