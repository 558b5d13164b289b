"""The README says what the program does: its rule table names every form of rule the program
takes, its headings are each said once, and the manual's "Your hall on day one"
(docs/day-one.md) starts a tournament the director is not warned about at once (issue 28,
item 5), one command a step (issue 44)."""

from __future__ import annotations

import re
import shlex
from collections import Counter

import pytest

from adjudicator.judging.rules import RULES, get_rule

from support.paths import ROOT, SHARED_LEXICONS, present

README = (ROOT / "README.md").read_text()
DIRECTOR = (ROOT / "docs" / "director.md").read_text()  # the manual's "The director's day"
DAY_ONE = (ROOT / "docs" / "day-one.md").read_text()  # the manual's "Your hall on day one"


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


def day_one_steps() -> str:
    """The steps of "Your hall on day one": the page down to its first `##` section."""
    return DAY_ONE.split("\n## ", 1)[0]


def day_one_commands() -> list[list[str]]:
    """The `adjudicator lexicon` and `tournament` lines of "Your hall on day one", as argv."""
    block = day_one_steps().split("```sh\n", 1)[1].split("```", 1)[0]
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
    text = " ".join(day_one_steps().split())
    assert "install-defaults" in text and "not in force" in text


def test_day_one_numbers_its_commands_and_its_steps_alike():
    """Issue 36, papercut 11, and issue 44: the commands of "Your hall on day one" are numbered
    1, 2, 3, ... once each, as the list under them is, and each command's step is about that
    command (the README's block once numbered two lines "3.", for a list of seven)."""
    assert day_one_numbering_problems(day_one_steps()) == []


def test_the_day_one_numbering_check_finds_a_number_said_twice():
    twice = (
        "```sh\nadjudicator tournament create x  # 1. the tournament\n"
        "adjudicator director set-password  # 1. and the password\n```\n"
        "1. **The tournament** and the director's password.\n"
    )
    assert day_one_numbering_problems(twice) != []


def day_one_numbering_problems(text: str) -> list[str]:
    """What is wrong with the numbers of a day-one block and the list under it."""
    block = text.split("```sh\n", 1)[1].split("```", 1)[0]
    listed = re.findall(r"^(\d+)\. (.*?)(?=^\d+\. |\Z)", text, re.M | re.S)
    steps = {int(number): body for number, body in listed}
    problems = []
    if [int(number) for number, _ in listed] != list(range(1, len(listed) + 1)):
        problems.append(f"the list is numbered {[number for number, _ in listed]}")
    numbered = []
    for line in block.splitlines():
        command, _, comment = line.partition("#")
        match = re.match(r"\s*(\d+)\.", comment)
        if not match:
            problems.append(f"a command without its step's number: {line}")
            continue
        number = int(match.group(1))
        argv = shlex.split(command)
        word = argv[1] if argv[0] == "adjudicator" else argv[0]
        if word not in steps.get(number, ""):
            problems.append(f"step {number} does not explain `{command.strip()}`")
        numbered.append(number)
    if numbered != list(range(1, len(listed) + 1)):
        problems.append(f"the commands are numbered {numbered}, the list 1 to {len(listed)}")
    return problems


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
