"""The verdict: the one place where a challenge is judged.

Every challenged word is looked up, with no early exit, and only the count of words found
leaves the loop, so neither the result nor the time taken says which word failed.
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from enum import StrEnum


class Verdict(StrEnum):
    ACCEPTABLE = "ACCEPTABLE"
    UNACCEPTABLE = "UNACCEPTABLE"
    REFER = "REFER"

    @property
    def exit_code(self) -> int:
        """The `judge` command's exit code for this verdict."""
        return _EXIT_CODES[self]


_EXIT_CODES = {Verdict.ACCEPTABLE: 0, Verdict.UNACCEPTABLE: 1, Verdict.REFER: 3}


def judge(
    lexicon: Container[str],
    words: Sequence[str],
    refer_longer_than: int = 0,
    refer_even_if_listed: bool = False,
) -> Verdict:
    """One verdict for normalised `words` against `lexicon`.

    With `refer_longer_than` = N > 0, a missing word of more than N letters gives REFER (a
    person checks a dictionary), whatever the shorter words: a REFER that depended on them
    would tell the players that the shorter words are good (NSA X.E). The word judge's check
    then closes it (`closed_referral`). With `refer_even_if_listed`, every word of more than
    N letters goes to that check, found or not (school rule 10: words over 8 letters are
    judged from MW11).
    """
    missing_short = 0
    referred = 0
    for word in words:
        missing = word not in lexicon
        is_long = refer_longer_than > 0 and len(word) > refer_longer_than
        referred += (missing or refer_even_if_listed) and is_long
        missing_short += missing and not is_long
    if referred:
        return Verdict.REFER
    if missing_short:
        return Verdict.UNACCEPTABLE
    return Verdict.ACCEPTABLE


def closed_referral(
    lexicon: Container[str], words: Sequence[str], refer_longer_than: int, dictionary: Verdict
) -> Verdict:
    """The verdict once a word judge's dictionary check closes a referral: UNACCEPTABLE if a
    word of `refer_longer_than` letters or fewer is missing from the list, else the check's.
    Every word is looked up, with no early exit."""
    missing_short = 0
    for word in words:
        missing_short += word not in lexicon and len(word) <= refer_longer_than
    return Verdict.UNACCEPTABLE if missing_short else dictionary
