"""The verdict: one result for the whole challenge, every word looked up, REFER for long words."""

from __future__ import annotations

import marisa_trie
import pytest

from adjudicator.judging.verdict import Verdict, closed_referral, judge

from support.words import CountingLexicon

WORDS = frozenset({"QI", "ZA", "JO", "XI", "CAT", "DOG", "FOX", "ZEBRA", "QUIXOTIC", "RETAINERS"})
GOOD8 = ("QI", "ZA", "JO", "XI", "CAT", "DOG", "FOX", "ZEBRA")


@pytest.fixture(params=["set", "trie"])
def lexicon(request):
    return WORDS if request.param == "set" else marisa_trie.Trie(WORDS)


def test_all_valid_is_acceptable(lexicon):
    assert judge(lexicon, GOOD8) is Verdict.ACCEPTABLE
    assert judge(lexicon, ["QI"]) is Verdict.ACCEPTABLE


@pytest.mark.parametrize("position", range(8))
def test_one_bad_word_at_any_position_is_unacceptable(lexicon, position):
    words = list(GOOD8)
    words[position] = "QX"
    assert judge(lexicon, words) is Verdict.UNACCEPTABLE


def test_all_bad_is_unacceptable(lexicon):
    assert judge(lexicon, ["QX", "XQ"]) is Verdict.UNACCEPTABLE


def test_duplicates_count(lexicon):
    assert judge(lexicon, ["ZA", "ZA", "ZA"]) is Verdict.ACCEPTABLE
    assert judge(lexicon, ["ZA", "QX", "QX"]) is Verdict.UNACCEPTABLE


@pytest.mark.parametrize("position", range(8))
def test_every_word_is_looked_up_wherever_the_bad_one_is(position):
    words = list(GOOD8)
    words[position] = "QX"
    counting = CountingLexicon(WORDS)
    judge(counting, words)
    assert counting.looked_up == words


def test_lower_case_is_not_silently_accepted():
    # The verdict takes normalised (upper-case) words; anything else is simply not found.
    assert judge(WORDS, ["qi"]) is Verdict.UNACCEPTABLE


class TestReferral:
    def test_missing_long_word_refers_to_a_word_judge(self, lexicon):
        assert judge(lexicon, ["QI", "ABSQUATULATE"], refer_longer_than=9) is Verdict.REFER

    def test_nsa_x_e_a_referral_says_nothing_about_the_shorter_words(self, lexicon):
        # NSA X.E: nothing may tell which word failed. REFER whatever the shorter words; the
        # word judge's dictionary check then closes it (closed_referral).
        assert judge(lexicon, ["QX", "ABSQUATULATE"], refer_longer_than=9) is Verdict.REFER
        assert judge(lexicon, ["ABSQUATULATE", "QX"], refer_longer_than=9) is Verdict.REFER
        assert judge(lexicon, ["QX", "CAT"], refer_longer_than=9) is Verdict.UNACCEPTABLE

    def test_the_dictionary_check_closes_a_referral_unacceptable_if_a_short_word_is_missing(
        self, lexicon
    ):
        for check in (Verdict.ACCEPTABLE, Verdict.UNACCEPTABLE):
            closed = closed_referral(lexicon, ["QX", "ABSQUATULATE"], 9, check)
            assert closed is Verdict.UNACCEPTABLE
            assert closed_referral(lexicon, ["QI", "ABSQUATULATE"], 9, check) is check

    def test_a_word_of_exactly_the_limit_is_judged_by_the_list(self, lexicon):
        assert judge(lexicon, ["QUIXOTICS"], refer_longer_than=9) is Verdict.UNACCEPTABLE
        assert judge(lexicon, ["RETAINERS"], refer_longer_than=8) is Verdict.ACCEPTABLE

    def test_present_long_word_is_acceptable(self, lexicon):
        assert judge(lexicon, ["RETAINERS", "QI"], refer_longer_than=5) is Verdict.ACCEPTABLE

    def test_no_referral_rule_means_no_referral(self, lexicon):
        assert judge(lexicon, ["ABSQUATULATE"]) is Verdict.UNACCEPTABLE


def test_exit_codes_follow_the_cli_contract():
    assert Verdict.ACCEPTABLE.exit_code == 0
    assert Verdict.UNACCEPTABLE.exit_code == 1
    assert Verdict.REFER.exit_code == 3
    assert Verdict("ACCEPTABLE").value == "ACCEPTABLE"
