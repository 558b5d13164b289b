"""The one check for names, titles, descriptions and reasons: what shows must be what was typed."""

from __future__ import annotations

import pytest

from adjudicator.textcheck import TextError, check_text

REFUSED = {
    "NUL": "a\x00b",
    "escape (ANSI colours)": "a\x1b[31mb",
    "line feed": "a\nb",
    "tab": "a\tb",
    "DEL": "a\x7fb",
    "C1 control": "a\x85b",
    "right-to-left override": "Spring\u202e(LWN) nepO",
    "right-to-left isolate": "a\u2067b",
    "right-to-left mark": "a\u200fb",
    "zero-width space": "a\u200bb",
    "zero-width joiner": "a\u200db",
    "byte-order mark": "a\ufeffb",
    "line separator": "a\u2028b",
    "paragraph separator": "a\u2029b",
    "private use": "a\ue000b",
    "unassigned": "a\U000e0fffb",
    "tag character": "a\U000e0041b",
}


@pytest.mark.parametrize("text", REFUSED.values(), ids=REFUSED.keys())
def test_invisible_and_control_characters_are_refused_by_name(text):
    with pytest.raises(TextError, match=r"tournament title holds an invisible or control .*U\+"):
        check_text(text, "tournament title", 100)


@pytest.mark.parametrize(
    "text",
    [
        "Spring Open (NWL)",
        "Łódź Scrabble Open",
        "Zürich – Frühling",
        "東京オープン",
        "Ω 2025 #3",
        "",
    ],
)
def test_what_people_type_is_kept(text):
    assert check_text(f"  {text}  ", "tournament title", 100) == text


def test_lengths_are_capped_after_stripping():
    assert check_text(" " + "x" * 100 + " ", "title", 100) == "x" * 100
    with pytest.raises(TextError, match="101 characters long: use at most 100"):
        check_text("x" * 101, "title", 100)


def test_required_and_non_text():
    with pytest.raises(TextError, match="Give the reason"):
        check_text("   ", "reason", 10, required=True)
    with pytest.raises(TextError, match="must be text"):
        check_text(12, "reason", 10)
    assert check_text(None, "reason", 10) == ""


LIE = "Spring\u202e(LWN) nepO"


def test_every_name_and_title_set_on_the_command_line_is_checked(run, tiny, tmp_path):
    from support.hall import ok, refused

    words = tmp_path / "words.txt"
    words.write_text("QI\nZA\n")
    refused(
        run("tournament", "create", "t", "-l", "TINY", "-r", "double", "--title", LIE),
        "tournament title holds an invisible",
    )
    refused(
        run("tournament", "create", "t", "-l", "TINY", "-r", "double", "--title", "T\x00"), "U+0000"
    )
    ok(run("tournament", "create", "t", "-l", "TINY", "-r", "double", "--title", "Spring Open"))
    refused(run("tournament", "set", "t", "--title", "x" * 101), "use at most 100")
    refused(run("kiosk", "add", "table\u200b1", "--tournament", "t"), "Invalid kiosk name")
    refused(
        run("judge-account", "add", "al\u202eice", "--password-stdin", input="p" * 12 + "\n"),
        "Invalid word judge name",
    )
    refused(
        run("lexicon", "import", str(words), "--name", "W", "--description", LIE),
        "lexicon description holds an invisible",
    )
    refused(
        run("lexicon", "import", str(words), "--name", "W", "--description", "d" * 201),
        "use at most 200",
    )
