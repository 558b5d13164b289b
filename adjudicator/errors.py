"""Errors a user can cause, each with a message that says what to do.

None of them ever names a word as valid or invalid: input errors are about the shape of the
input only, and lexicon errors are about files.
"""


class AdjudicatorError(Exception):
    """Base of every error the program reports to a person instead of a verdict."""


class ChallengeInputError(AdjudicatorError):
    """The challenge as typed cannot be judged (bad characters, length, word count).

    `phrase` (a wording.Phrase) is the message as a kiosk says it in its language."""

    def __init__(self, message: str, phrase=None):
        super().__init__(message)
        self.phrase = phrase


class LexiconError(AdjudicatorError):
    """A lexicon cannot be used: missing, corrupt, or not importable."""


class LexiconNotFound(LexiconError):
    """No compiled lexicon has that name."""


class LexiconCorrupt(LexiconError):
    """A compiled lexicon does not match its manifest."""


class ImportRefused(LexiconError):
    """An import would produce a lexicon the director did not mean (bad lines, wrong edition)."""


class SettingError(AdjudicatorError):
    """A setting has a value the program cannot use."""
