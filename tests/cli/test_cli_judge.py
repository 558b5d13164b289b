"""`adjudicator judge`: the verdict first, exit codes 0/1/3, exit 2 with no verdict on errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from adjudicator.cli.judge_cmd import NOT_RECORDED
from adjudicator.words.wordlist import WordSet

NOT_RECORDED_LINE = f"{NOT_RECORDED}\n"


@pytest.fixture
def short_fp(tiny):
    return tiny.manifest.short_fingerprint


def test_acceptable(run, tiny, short_fp):
    result = run("judge", "--lexicon", "TINY", "--rule", "double", "qi", "ZA", "jo")
    assert result.exit_code == 0 and result.stderr == NOT_RECORDED_LINE
    lines = result.stdout.splitlines()
    assert lines[0] == "ACCEPTABLE: the play stands"
    assert lines[1] == f"Lexicon: TINY (15 words, fingerprint {short_fp})"
    assert lines[2].startswith("Rule: double (Double challenge")
    assert lines[3] == "Consequence: The play stands; the challenger loses their turn."
    assert lines[4] == "Words judged (3): QI ZA JO"


def test_unacceptable(run, tiny):
    result = run("judge", "-l", "TINY", "-r", "single", "QI", "QX")
    assert result.exit_code == 1 and result.stderr == NOT_RECORDED_LINE
    assert result.stdout.splitlines()[0] == "UNACCEPTABLE: the play comes off and scores zero"
    assert "Consequence: The play comes off the board and scores zero." in result.stdout


def test_five_per_word(run, tiny):
    result = run("judge", "-l", "TINY", "-r", "5-per-word", "QI", "ZA", "CAT")
    assert result.exit_code == 0
    assert "the player adds 15; the challenger keeps the turn." in result.stdout


@pytest.mark.parametrize(
    ("rule", "text"),
    [
        ("7-per-word", "7 points x 3 words: the player adds 21"),
        ("1-per-word", "1 point x 3 words: the player adds 3"),
        ("50-per-turn", "the player adds 50 points"),
    ],
)
def test_any_point_value_from_1_to_50(run, tiny, rule, text):
    """WESPA 3.10.15(b)(ii)-(iv), MSA 13(i): an "x-point" penalty, per word or per turn."""
    result = run("judge", "-l", "TINY", "-r", rule, "QI", "ZA", "CAT")
    assert result.exit_code == 0 and text in result.stdout


def test_words_from_stdin(run, tiny):
    result = run("judge", "-l", "TINY", "-", input="qi, za\njo\n")
    assert result.exit_code == 0
    assert "Words judged (3): QI ZA JO" in result.stdout
    result = run("judge", "-l", "TINY", "-", input="qi qx\n")
    assert result.exit_code == 1


def test_duplicates_count(run, tiny):
    result = run("judge", "-l", "TINY", "-r", "10-per-word", "ZA", "ZA")
    assert result.exit_code == 0
    assert "10 points x 2 words: the player adds 20" in result.stdout


def test_json(run, tiny):
    result = run("judge", "-l", "TINY", "-r", "5-per-turn", "--json", "qi", "za")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data == {
        "verdict": "ACCEPTABLE",
        "words": ["QI", "ZA"],
        "word_count": 2,
        "lexicon": {"name": "TINY", "fingerprint": tiny.manifest.fingerprint, "words": 15},
        "rule": "5-per-turn",
        "consequence": "The play stands; the player adds 5 points; the challenger keeps the turn.",
        "penalty": {
            "play_stands": True,
            "points_to_player": 5,
            "challenger_loses_turn": False,
            "points_to_challenger": 0,
        },
        "recorded": False,
    }
    bad = json.loads(run("judge", "-l", "TINY", "--json", "qi", "qx").stdout)
    assert (bad["verdict"], bad["rule"], bad["consequence"], bad["penalty"]) == (
        "UNACCEPTABLE",
        None,
        None,
        None,
    )


def test_defaults_from_settings(run, tiny, monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_DEFAULT_LEXICON", "TINY")
    monkeypatch.setenv("ADJUDICATOR_DEFAULT_RULE", "single")
    result = run("judge", "QI")
    assert result.exit_code == 0
    assert "Lexicon: TINY" in result.stdout and "Rule: single" in result.stdout


def test_a_look_up_without_a_rule_prints_no_consequence(run, tiny):
    """Issue 11: no rule is assumed for a look-up (it used to be double for any lexicon)."""
    result = run("judge", "-l", "TINY", "QI")
    assert result.exit_code == 0
    assert "Rule: none given (no consequence; add --rule RULE for one)" in result.stdout
    assert "Consequence" not in result.stdout and "double" not in result.stdout
    assert result.stderr == NOT_RECORDED_LINE


@pytest.mark.parametrize("rule", ["dingle", "5-then-10", "escalating"])
def test_a_look_up_cannot_count_earlier_challenges(run, tiny, rule):
    """WESPA 3.10.15(c): these rules need the game's history, which only a recorded
    challenge (--tournament) has."""
    _no_verdict(run("judge", "-l", "TINY", "-r", rule, "QI"), "--tournament SLUG --round")


def test_referral(run, store):
    store.save("OWLREF", WordSet.of(["QI", "ZA", "RETAINERS"]), refer_longer_than=9)
    refer = run("judge", "-l", "OWLREF", "-r", "double", "QI", "ABSQUATULATE")
    assert refer.exit_code == 3
    assert refer.stdout.startswith("REFER: call a word judge")
    assert "Consequence: Call a word judge" in refer.stdout
    short_bad = run("judge", "-l", "OWLREF", "QX", "ABSQUATULATE")
    assert short_bad.exit_code == 3  # NSA X.E: a referral tells nothing of the shorter words
    assert run("judge", "-l", "OWLREF", "QX", "ZA").exit_code == 1
    assert run("judge", "-l", "OWLREF", "QI", "RETAINERS").exit_code == 0


def _no_verdict(result, *expected):
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "ACCEPTABLE" not in result.stderr and "REFER" not in result.stderr
    assert "Traceback" not in result.stderr
    for text in expected:
        assert text in result.stderr
    return result


class TestNoVerdict:
    def test_no_lexicon_named(self, run, tiny):
        _no_verdict(run("judge", "QI"), "Name the tournament (--tournament SLUG")

    def test_unknown_lexicon(self, run, tiny):
        _no_verdict(
            run("judge", "-l", "NWL2023", "QI"),
            "No lexicon named 'NWL2023' (compiled lexicons: TINY)",
        )

    def test_invalid_lexicon_name(self, run, tiny):
        _no_verdict(run("judge", "-l", "../TINY", "QI"), "Invalid lexicon name '../TINY'")

    def test_unknown_rule(self, run, tiny):
        _no_verdict(
            run("judge", "-l", "TINY", "-r", "triple", "QI"), "Unknown challenge rule 'triple'"
        )

    @pytest.mark.parametrize("rule", ["0-per-word", "51-per-turn", "5-per-game", "05-per-word"])
    def test_point_values_outside_1_to_50(self, run, tiny, rule):
        _no_verdict(
            run("judge", "-l", "TINY", "-r", rule, "QI"), f"Unknown challenge rule {rule!r}"
        )

    def test_unknown_rule_from_settings(self, run, tiny, monkeypatch):
        monkeypatch.setenv("ADJUDICATOR_DEFAULT_RULE", "triple")
        _no_verdict(run("judge", "-l", "TINY", "QI"), "Unknown challenge rule 'triple'")

    @pytest.mark.parametrize(
        ("words", "message"),
        [
            ((), "No words to judge"),
            (("QI", "Z4"), "Word 2 ('Z4') has the digit '4' at position 2"),
            (("QI", "Q?"), "the character '?'"),
            (("A",), "Word 1 ('A') has 1 letter"),
            (("ABCDEFGHIJKLMNOP",), "has 16 letters"),
            (("QI",) * 9, "Too many words: 9 given"),
            (("CAFÉ",), "U+00C9"),
        ],
    )
    def test_bad_input(self, run, tiny, words, message):
        _no_verdict(run("judge", "-l", "TINY", *words), message)

    def test_empty_stdin(self, run, tiny):
        _no_verdict(run("judge", "-l", "TINY", "-", input=""), "No words to judge")

    def test_damaged_lexicon(self, run, tiny, store):
        compiled = store.root / tiny.manifest.compiled_file
        data = bytearray(compiled.read_bytes())
        data[len(data) // 2] ^= 0xFF
        compiled.write_bytes(bytes(data))
        _no_verdict(run("judge", "-l", "TINY", "QI"), "Lexicon TINY is damaged")

    def test_input_is_read_in_the_lexicons_alphabet_so_the_lexicon_comes_first(self, run, tiny):
        # The lexicon's alphabet decides what a well-formed word is (issue 14), so a missing
        # lexicon is reported first; bad input against an existing one names the character.
        _no_verdict(run("judge", "-l", "NOPE", "Z4"), "No lexicon named 'NOPE'")
        _no_verdict(run("judge", "-l", "TINY", "Z4"), "has the digit '4' at position 2")


def test_help(run):
    result = run("judge", "--help")
    assert result.exit_code == 0
    assert "--lexicon" in result.stdout and "--rule" in result.stdout


def _python_m(*args, home, stdin=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ADJUDICATOR_")}
    env["ADJUDICATOR_HOME"] = str(home)
    return subprocess.run(
        [sys.executable, "-m", "adjudicator", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def test_python_m_adjudicator(home, tiny):
    ok = _python_m("judge", "--lexicon", "TINY", "-", home=home, stdin="qi za\n")
    assert (ok.returncode, ok.stderr) == (0, NOT_RECORDED_LINE)
    assert ok.stdout.startswith("ACCEPTABLE")
    bad = _python_m("judge", "--lexicon", "TINY", "QI", "QX", home=home)
    assert bad.returncode == 1 and bad.stdout.startswith("UNACCEPTABLE")
    error = _python_m("judge", "--lexicon", "TINY", "Q1", home=home)
    assert (error.returncode, error.stdout) == (2, "")
    assert error.stderr.startswith("Error: Word 1 ('Q1') has the digit '1'")
    assert "Traceback" not in error.stderr
