"""Issue 35, item 2: each rulebook cites only itself.

One test per rulebook runs every procedure the program has at an event under it (tournament
create and show, a refused list, challenges, a reissue, second and third opinions and their
refusals, the director's exception, rulings with the 3.10.13 confirmation and NASPA 6.2's
penalty, the free challenge both ways, every void ground, the challenges the director decides,
the flags, the export, the journal page and the judges' pages), collects every message, note,
consequence and citation it prints, and finds no other rulebook's name or clause in any. The one
exception is a refusal naming the rulebook that owns the step it refuses ("the improper look-up
penalty is NASPA 6.2's", "This is WESPA 3.10.13's confirmation", "is NSA X.G's").

The clauses named (the texts in ../shared/seeds): the original judge's own re-adjudication
cites WESPA 3.10.11(b), NASPA 1.2 or NSA Guideline 11g, and under MSA and the school rules is
the hall's practice; `withdrawn` cites NSA IV.I.2 or NASPA 4.10; an MSA re-adjudication cites
12(ii) and the director's final say 20.
"""

from __future__ import annotations

import html
import json
import re

import pytest

from adjudicator.errors import AdjudicatorError
from adjudicator.hall import kiosks
from adjudicator.judging.corrections import second_opinion, voids
from adjudicator.judging.corrections.final_ruling import record_ruling
from adjudicator.record.journal import journal

from support.director import post_form, signed_in
from support.rulebook_lexicons import EVENTS, RulebookHall

EVENT = {book: event for book, event in EVENTS.items() if book}
# A rulebook's name or clause, as any message would write it.
NAMES = {
    "naspa": r"NASPA",
    "wespa": r"WESPA",
    "nsa-1998": r"\bNSA\b",
    "school-2011": r"\bschool rules?\b",
    "msa": r"\bMSA\b",
}
# A refusal may name the rulebook that owns the step it refuses (the one exception).
OWNERS = (
    r"The improper look-up penalty is NASPA 6\.2's",
    r"This is WESPA 3\.10\.13's confirmation",
    r"\(a third review after a mistake made twice\) is NSA X\.G's",
)
GOOD, BAD = ["CAT", "DOG"], ["CAT", "DOGX"]
GAME = {"round": "1", "table": "7", "challenger": "Ann"}


def foreign(book: str, text: str) -> list[str]:
    """Every other rulebook's name `text` carries, the owners' refusals aside."""
    for owner in OWNERS:
        text = re.sub(owner, "", text)
    return [other for other, pattern in NAMES.items() if other != book and re.search(pattern, text)]


class Collector:
    """Runs procedures at one event and keeps every text they print."""

    def __init__(self, hall: RulebookHall, cli, book: str):
        self.hall, self.cli, self.book = hall, cli, book
        self.texts: list[tuple[str, str]] = []

    def keep(self, where: str, *texts) -> None:
        self.texts.extend((where, str(t)) for t in texts if t)

    def run(self, *args: str) -> str:
        out = self.cli(*args)
        assert "Traceback" not in out.stderr, out.stderr
        self.keep(" ".join(args[:2]), out.stdout, out.stderr)
        return out.stdout

    def library(self, where: str, action) -> object:
        try:
            found = action()
        except AdjudicatorError as refused:
            self.keep(where, refused)
            return None
        for name in ("consequence", "note", "details"):
            self.keep(where, getattr(found, name, None))
        return found


def run_everything(hall: RulebookHall, cli, book: str) -> Collector:
    c = Collector(hall, cli, book)
    lexicon, rule = EVENT[book]
    slug = f"{book}-all"
    c.run("tournament", "create", slug, "-l", lexicon, "-r", rule, "--rulebook", book)
    c.run("tournament", "show", slug)
    c.run("tournament", "create", "off", "-l", "OSWI", "-r", "double", "--rulebook", book)
    c.run("tournament", "create", "old", "-l", "TWL06", "-r", "double", "--rulebook", book)
    kiosk = kiosks.add(hall.db, f"kiosk-{slug}", slug)
    browser = hall.kiosk_browser(kiosk)

    def challenge(words, **extra):
        answer = browser.post("/api/v1/adjudications", json={"words": words, **GAME, **extra})
        c.keep("api", json.dumps(answer.get_json()))
        return answer.get_json().get("id")

    def opinion(entry_id, words, actor, **extra):
        return c.library(
            f"opinion {actor}",
            lambda: second_opinion.give(
                hall.db, hall.store, entry_id, words, actor=actor, station=f"judge:{actor}",
                **extra,
            ).entry,
        )  # fmt: skip

    good = challenge(GOOD)
    bad = challenge(BAD)
    challenge(GOOD, replaces=bad)  # a reissue: offered or refused, citing the rulebook
    c.run("second-opinion", str(good), *GOOD)  # agrees
    c.run("second-opinion", str(good), *GOOD)  # the same judge again
    opinion(good, GOOD, "bob")  # after an agreeing second: the chain's word
    opinion(good, GOOD, "td", exception="further information: a mistake made twice")
    c.library(
        "station",
        lambda: second_opinion.give(
            hall.db, hall.store, bad, GOOD, actor="carol", station=f"kiosk-{slug}"
        ),
    )
    contrary = challenge(BAD)
    opinion(contrary, GOOD, "alice")  # contrary: flagged
    opinion(contrary, BAD, "bob")  # a third
    opinion(contrary, GOOD, "carol")  # a fourth
    same = challenge(GOOD)
    opinion(same, ["CAT", "FOX"], "alice")  # the same verdict on other words
    opinion(same, GOOD, "bob")
    c.run("flags")
    # rulings: the 3.10.13 confirmation, NASPA 6.2's penalty, a waiver, a ruling that is final
    early = challenge(GOOD)
    challenge(["ZEBRA"])
    c.run("ruling", str(early), "--verdict", "unacceptable", "--reason", "misread")
    c.run("ruling", str(early), "--verdict", "unacceptable", "--reason", "misread",
          "--confirm-correction")  # fmt: skip
    looked = challenge(BAD)
    c.run("ruling", str(looked), "--verdict", "unacceptable", "--reason", "in parts",
          "--improper-lookup")  # fmt: skip
    waived = challenge(GOOD)
    c.run("ruling", str(waived), "--waive-penalty", "--reason", "score written early")
    c.run("void", str(early), "--reason", "typed twice")
    for ground in ("withdrawn", "rescinded", "mistake"):
        c.run("void", str(challenge(GOOD, final_play=True)), "--ground", ground, "--reason",
              "blank cleared up")  # fmt: skip
    # the free challenge granted, then used; the challenges the director decides
    c.run("free-challenge", "--tournament", slug, "--to", "Ann", "--reason", "score early")
    c.run("tournament", "show", slug)
    challenge(GOOD)
    for kind in ("placement", "exchange"):
        for outcome in ("upheld", "dismissed"):
            c.run("director-challenge", "--tournament", slug, "--kind", kind, "--outcome",
                  outcome, "--table", "7", "--round", "1", "--challenger", "Ann", "--reason",
                  "seen at the table")  # fmt: skip
    c.run("journal", "export", "--format", "json", "--tournament", slug)
    director = hall.director()
    c.keep("journal page", director.get(f"/director/journal?tournament={slug}").get_data(True))
    c.keep("decisions page", _main(director.get("/director/decisions").get_data(True)))
    judge = signed_in(hall.app.test_client(), "dave", "dave-secret-12", "/judge/login")
    c.keep("judge case", _main(judge.get(f"/judge/case?id={contrary}").get_data(True)))
    answer = post_form(judge, "/judge/second-opinion", {"id": bad, "words": "CAT DOGX"},
                       page="/judge/")  # fmt: skip
    c.keep("judge result", _main(answer.get_data(True)))
    return c


def _main(page: str) -> str:
    """The page's own content (the staff bar's links name no rulebook either way)."""
    return page.split("<main", 1)[-1]


@pytest.fixture
def judge_dave(rulebooks_hall):
    from adjudicator.hall.people import staff

    staff.add_judge(rulebooks_hall.db, "dave", "dave-secret-12")


@pytest.mark.parametrize("book", list(EVENT))
def test_every_message_at_an_event_cites_only_its_own_rulebook(
    rulebooks_hall, rulebooks_cli, judge_dave, book
):
    collected = run_everything(rulebooks_hall, rulebooks_cli, book)
    assert len(collected.texts) > 40  # the procedures ran and printed (48 texts or more)
    found = [(where, text) for where, text in collected.texts if foreign(book, text)]
    assert not found, "\n\n".join(f"{where}: {foreign(book, t)}: {t[:600]}" for where, t in found)
    everything = "\n".join(text for _, text in collected.texts)
    assert re.search(NAMES[book], everything)  # and it does cite its own


def test_with_no_rulebook_every_procedure_runs_and_says_what_stays_with_its_rulebook(
    rulebooks_hall, rulebooks_cli, judge_dave
):
    hall, cli = rulebooks_hall, rulebooks_cli
    out = cli("tournament", "create", "club", "-l", "NWL2023", "-r", "double")
    offered = (
        "reissues, the 3.10.13 confirmation, free challenges, the director's challenges and "
        "second opinions are offered"
    )
    kept = (
        "NASPA 6.2's look-up penalty, school rule 12's free final challenge, NSA X.G's third "
        "opinion and NASPA 1.2's limit stay with their rulebooks"
    )
    assert offered in out.stdout and kept in out.stdout
    assert "every procedure is offered" not in out.stdout
    overview = html.unescape(hall.director().get("/director/").get_data(as_text=True))
    assert offered in overview and kept in overview
    helped = cli("tournament", "create", "--help").stdout
    assert "stay with" in helped and "NSA X.G" in helped


# ---------- the clauses themselves ----------

SAME_JUDGE = {
    "wespa": "(WESPA 3.10.11(b): the original adjudicator should not perform the re-adjudication)",
    "naspa": "(NASPA 1.2: a second opinion comes from another Director)",
    "nsa-1998": "(NSA Guideline 11g: whoever researched the initial challenge has another person "
    "research the second opinion)",
    "msa": "(the hall's practice: this rulebook sets no such clause)",
    "school-2011": "(the hall's practice: this rulebook sets no such clause)",
}


@pytest.mark.parametrize("book", list(SAME_JUDGE))
def test_the_original_judges_own_re_adjudication_cites_the_events_clause(rulebooks_hall, book):
    hall = rulebooks_hall
    lexicon, rule = EVENT[book]
    kiosk = hall.event(f"{book}-j", book, lexicon, rule)
    row = hall.challenge(kiosk, GOOD)
    second_opinion.give(hall.db, hall.store, row.id, BAD, actor="alice", station="judge:alice")
    with pytest.raises(second_opinion.SecondOpinionRefused) as refused:
        second_opinion.give(hall.db, hall.store, row.id, GOOD, actor="alice", station="j2")
    assert f"alice already judged adjudication #{row.id}: another person gives the next " \
        f"opinion {SAME_JUDGE[book]}." == str(refused.value)  # fmt: skip
    with pytest.raises(second_opinion.SecondOpinionRefused) as station:
        second_opinion.give(hall.db, hall.store, row.id, GOOD, actor="bob",
                            station=kiosk.kiosk.name)  # fmt: skip
    assert "the original adjudicator should not give the second opinion" in str(station.value)
    assert not foreign(book, str(station.value))


@pytest.mark.parametrize("book, clause", [("nsa-1998", "NSA IV.I.2"), ("naspa", "NASPA 4.10")])
def test_withdrawn_cites_the_events_own_clause(rulebooks_hall, book, clause):
    hall = rulebooks_hall
    lexicon, rule = EVENT[book]
    row = hall.challenge(hall.event(f"{book}-w", book, lexicon, rule), GOOD)
    (ground,) = [g for g in voids.grounds_for(book) if g.name == "withdrawn"]
    assert ground.title == f"withdrawn once a misunderstood blank was cleared up ({clause})"
    page = hall.director().get("/director/journal").get_data(as_text=True)
    assert f"cleared up ({clause})" in page and not foreign(book, _main(page))
    voids.void(hall.db, row.id, "blank misheard", actor="td", station="td", ground="withdrawn")


def test_msa_re_adjudication_cites_12_ii_and_the_directors_final_say_20(rulebooks_hall,
                                                                       rulebooks_cli):  # fmt: skip
    hall = rulebooks_hall
    row = hall.challenge(hall.event("msa-r", "msa", "MSA-UNION", "5-per-word"), GOOD)
    out = rulebooks_cli("second-opinion", str(row.id), *GOOD)
    assert "This second opinion agrees with the original (MSA 12(ii): re-adjudication \"at the " \
        'discretion of the judges").' in out.stdout  # fmt: skip
    assert "MSA 20" not in out.stdout  # a second opinion cites 12(ii) only
    ruled = record_ruling(hall.db, row.id, "acceptable", "as judged", actor="td", station="td")
    with pytest.raises(voids.RulingIsFinal, match=r"a ruling is final \(MSA 20: the director's"):
        voids.void(hall.db, ruled.refers_to, "typed twice", actor="td", station="td")
    notes = " ".join(e.note or "" for e in journal.entries(hall.db))
    assert "MSA 20" not in notes
