"""Data, not code: the catalogue of known lexicon editions and the lexicon recipes."""
