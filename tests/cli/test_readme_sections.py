"""The README says what the program does: its rule table names every form of rule the program
takes, its headings are each said once, and "Your hall on day one" starts a tournament the
director is not warned about at once (issue 28, item 5)."""

from __future__ import annotations

import re
import shlex
from collections import Counter

import pytest

from adjudicator.judging.rules import RULES, get_rule

from support.paths import ROOT, SHARED_LEXICONS, present

README = (ROOT / "README.md").read_text()
DIRECTOR = (ROOT / "docs" / "director.md").read_text()  # the manual's "The director's day"


def section(heading: str, text: str = README) -> str:
    """The text of the section `## heading` of the README (or of `text`), to the next heading
    of its level."""
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else None]


def rule_table_forms() -> list[str]:
    """The rule column of the table in "Challenge rules": `single`, `N-per-word`, ..."""
    forms = []
    for line in section("Challenge rules (penalty systems)", DIRECTOR).splitlines():
        match = re.match(r"\| `([^`]+)`", line)
        if match:
            forms.append(match.group(1))
    return forms


def form_pattern(form: str) -> re.Pattern:
    """A table form as the names it stands for: N is a number, A-B-C... a run of numbers."""
    text = re.escape(form).replace(re.escape("A-B-C..."), r"[0-9]+(?:-[0-9]+)*")
    return re.compile(text.replace("N", "[0-9]+"))


def example(form: str) -> str:
    """A name the form stands for, such as 7-per-word or ladder-5-5-10."""
    return form.replace("A-B-C...", "5-5-10").replace("N", "7")


def test_no_heading_is_said_twice():
    headings = [line for line in README.splitlines() if re.match(r"#{1,6} ", line)]
    twice = [heading for heading, count in Counter(headings).items() if count > 1]
    assert not twice, f"the README repeats the heading(s) {twice}"


def test_every_form_in_the_rule_table_is_a_rule_the_program_takes():
    forms = rule_table_forms()
    assert len(forms) >= 9
    for form in forms:
        name = example(form)
        assert get_rule(name).name == name, form


@pytest.mark.parametrize(
    "name",
    [*RULES, "7-per-word", "3-per-turn", "ladder-5-10", "ladder-1-2-3-4", "30-seconds"],
)
def test_every_rule_the_program_takes_is_in_the_rule_table(name):
    get_rule(name)  # a rule, or this test names one that is not
    assert any(form_pattern(form).fullmatch(name) for form in rule_table_forms()), (
        f"the manual's rule table (docs/director.md) has no row for {name!r}"
    )


def day_one_commands() -> list[list[str]]:
    """The `adjudicator lexicon` and `tournament` lines of "Your hall on day one", as argv."""
    block = section("Your hall on day one").split("```sh\n", 1)[1].split("```", 1)[0]
    commands = []
    for line in block.splitlines():
        argv = shlex.split(line, comments=True)
        if argv[:2] in (["adjudicator", "lexicon"], ["adjudicator", "tournament"]):
            commands.append(argv[1:])
    return commands


def test_day_one_imports_the_list_in_force_and_its_tournament_starts_without_a_warning(run):
    commands = day_one_commands()
    imports = [argv for argv in commands if argv[:2] == ["lexicon", "import"]]
    creates = [argv for argv in commands if argv[:2] == ["tournament", "create"]]
    assert len(imports) == 1 and len(creates) == 1, commands
    name = imports[0][imports[0].index("--name") + 1]
    # The director's own copy (a Zyzzyva .dwg in the README): here the same list as text.
    own_copy = present(SHARED_LEXICONS / f"{name}.txt")
    imported = run("lexicon", "import", str(own_copy), *imports[0][3:])
    assert imported.exit_code == 0, imported.stderr
    assert "verified: matches" in imported.stdout
    created = run(*creates[0])
    assert created.exit_code == 0, created.stderr
    assert "lexicon: " + name in created.stdout
    assert "rulebook: wespa" in created.stdout
    assert created.stderr == "", "the day-one tournament warns at once: " + created.stderr


def test_day_one_says_why_the_free_lists_warn():
    text = " ".join(section("Your hall on day one").split())
    assert "install-defaults" in text and "not in force" in text


def test_day_one_numbers_its_commands_and_its_steps_alike():
    """Issue 36, papercut 11: each command of "Your hall on day one" carries the number of the
    step that explains it, and that step is about that command."""
    text = section("Your hall on day one")
    block = text.split("```sh\n", 1)[1].split("```", 1)[0]
    steps = {
        int(number): body
        for number, body in re.findall(r"^(\d+)\. (.*?)(?=^\d+\. |\Z)", text, re.M | re.S)
    }
    assert sorted(steps) == list(range(1, len(steps) + 1))
    numbered = []
    for line in block.splitlines():
        command, _, comment = line.partition("#")
        match = re.match(r"\s*(\d+)\.", comment)
        assert match, f"a day-one command without its step's number: {line}"
        number = int(match.group(1))
        argv = shlex.split(command)
        word = argv[1] if argv[0] == "adjudicator" else argv[0]
        assert word in steps[number], f"step {number} does not explain `{command.strip()}`"
        numbered.append(number)
    assert numbered == sorted(numbered) and set(numbered) >= set(range(1, max(numbered) + 1))


def test_the_readme_is_a_front_page():
    """The README is the front page (issue 37): at most 300 lines, the rest in the manual."""
    assert len(README.splitlines()) <= 300
    for heading in ("Quick start", "Your hall on day one", "When the laptop dies", "The manual"):
        assert f"\n## {heading}\n" in README


def test_every_local_link_of_the_readme_and_the_manual_opens_a_file():
    pages = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]
    for page in pages:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
            if "://" in target:
                continue
            assert (page.parent / target).exists(), f"{page.name} links to {target}: no such file"
