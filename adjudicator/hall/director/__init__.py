"""What the director's pages and commands ask of the hall: today's overview, the hall's status
and map (tables and their marks), the journal's review and bursts, integrity, export, and the
director's decisions.

May import: the rest of the hall, the judging, the record, the words and the shared leaves.
"""
