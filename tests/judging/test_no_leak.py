"""Nothing the program shows, returns or writes tells which challenged word failed.

One bad word at each position 1..8: once the words themselves are masked, stdout, stderr and
the exit code are identical, for text and JSON output, and the verdict function sees the same
lookups in the same order.
"""

from __future__ import annotations

import logging

import pytest

from adjudicator.cli.judge_cmd import NOT_RECORDED
from adjudicator.judging.rules import get_rule
from adjudicator.judging.ruling import rule_on
from adjudicator.judging.verdict import Verdict, judge
from adjudicator.words.normalize import normalize_challenge

from support.words import TINY_WORDS, CountingLexicon, mask

GOOD = ["QI", "ZA", "JO", "XI", "CAT", "DOG", "FOX", "ZEBRA"]
BAD = "QX"  # the same length as QI: only the word itself differs
assert set(GOOD) <= set(TINY_WORDS) and BAD not in TINY_WORDS


def _with_bad_word_at(position: int) -> list[str]:
    words = list(GOOD)
    words[position] = BAD
    return words


def _masked_run(run, *options, words):
    result = run("judge", "--lexicon", "TINY", *options, *words)
    every_word = set(GOOD) | {BAD}
    return result.exit_code, mask(result.stdout, every_word), mask(result.stderr, every_word)


@pytest.mark.parametrize("options", [(), ("--json",), ("--rule", "5-per-word")])
def test_judge_output_is_the_same_wherever_the_bad_word_is(run, tiny, options):
    outputs = {_masked_run(run, *options, words=_with_bad_word_at(p)) for p in range(8)}
    assert len(outputs) == 1
    ((exit_code, stdout, stderr),) = outputs
    assert exit_code == 1 and stderr == NOT_RECORDED + "\n"  # a look-up, not journaled
    assert "UNACCEPTABLE" in stdout
    # ... and the same as when every word is bad: the count of bad words does not show either.
    assert _masked_run(run, *options, words=[BAD] * 8) == (exit_code, stdout, stderr)
    two_bad = _with_bad_word_at(0)
    two_bad[5] = "QX"
    assert _masked_run(run, *options, words=two_bad) == (exit_code, stdout, stderr)


def test_the_masked_output_still_says_something(run, tiny):
    # Guard against a mask so greedy that every output looks alike.
    good = _masked_run(run, words=GOOD)
    bad = _masked_run(run, words=_with_bad_word_at(3))
    assert good != bad
    assert good[0] == 0 and bad[0] == 1


def test_no_log_records_name_words(run, tiny, caplog):
    caplog.set_level(logging.DEBUG)
    run("judge", "--lexicon", "TINY", *_with_bad_word_at(2))
    run("judge", "--lexicon", "TINY", *GOOD)
    logged = " ".join(record.getMessage() for record in caplog.records)
    assert BAD not in logged and "QI" not in logged


def test_nothing_written_to_disk_names_a_word(run, tiny, home):
    before = {p: p.stat().st_mtime_ns for p in home.rglob("*") if p.is_file()}
    run("judge", "--lexicon", "TINY", *_with_bad_word_at(4))
    after = {p: p.stat().st_mtime_ns for p in home.rglob("*") if p.is_file()}
    changed = [p for p in after if before.get(p) != after[p]]
    for path in changed:
        assert b"QX" not in path.read_bytes(), f"{path} records the challenged words"


def test_verdict_function_directly(tiny):
    results = set()
    for position in range(8):
        words = _with_bad_word_at(position)
        counting = CountingLexicon(TINY_WORDS)
        verdict = judge(counting, words)
        assert counting.looked_up == words  # every word, in order, no early exit
        results.add((verdict, judge(tiny.trie, words), len(counting.looked_up)))
    assert results == {(Verdict.UNACCEPTABLE, Verdict.UNACCEPTABLE, 8)}


def test_ruling_is_the_same_wherever_the_bad_word_is(tiny):
    rule = get_rule("5-per-word")
    rulings = set()
    for position in range(8):
        ruling = rule_on(tiny, rule, normalize_challenge(_with_bad_word_at(position)))
        rulings.add((ruling.verdict, ruling.consequence, ruling.word_count))
    assert len(rulings) == 1


def test_input_errors_do_not_depend_on_validity(run, tiny):
    # A malformed word beside a valid or an invalid one: the same message, masked.
    with_valid = run("judge", "--lexicon", "TINY", "QI", "Z9")
    with_invalid = run("judge", "--lexicon", "TINY", "QX", "Z9")
    assert with_valid.exit_code == with_invalid.exit_code == 2
    assert with_valid.stderr == with_invalid.stderr
    assert with_valid.stdout == with_invalid.stdout == ""
