"""Challenge adjudicator for tournament Scrabble: one verdict per challenge, recorded first."""

__version__ = "0.1.0"
