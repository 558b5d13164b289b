"""Issue 28, item 1, as a director meets it: `tournament create` and `set` refuse a list or rule
the rulebook does not allow (exit 2, naming the clause); `--off-rulebook "REASON"` makes it,
and `tournament list` (and --json), `tournament show`, the overview and the Tournaments page
show the reason. With no rulebook, everything is offered and the overview says so. On the real
lists (built once a session).
"""

from __future__ import annotations

import json

from adjudicator.hall import tournaments

from support.director import page_after


def test_create_refuses_a_list_off_the_rulebook_and_makes_it_with_a_reason(rulebooks_cli):
    cli = rulebooks_cli
    refused = cli("tournament", "create", "club", "-l", "NWL2023", "-r", "double",
                  "--rulebook", "wespa")  # fmt: skip
    assert refused.exit_code == 2 and refused.stdout == ""
    assert "lexicon NWL2023 is not a list the wespa rulebook allows (WESPA 1.2" in refused.stderr
    assert cli("tournament", "list", "--json").stdout.strip() == "[]"
    made = cli("tournament", "create", "club", "-l", "NWL2023", "-r", "double", "--rulebook",
               "wespa", "--off-rulebook", "a WESPA-rules club night on NWL")  # fmt: skip
    assert made.exit_code == 0, made.stderr
    assert "  off the rulebook: a WESPA-rules club night on NWL" in made.stdout
    assert "    lexicon NWL2023 is not a list the wespa rulebook allows" in made.stdout
    listed = cli("tournament", "list").stdout
    assert "off the rulebook: a WESPA-rules club night on NWL" in listed
    (entry,) = json.loads(cli("tournament", "list", "--json").stdout)
    assert entry["off_rulebook"] == "a WESPA-rules club night on NWL"
    shown = cli("tournament", "show", "club").stdout
    assert "  off the rulebook: a WESPA-rules club night on NWL" in shown
    assert json.loads(cli("tournament", "show", "club", "--json").stdout)["off_rulebook"] == (
        "a WESPA-rules club night on NWL"
    )


def test_show_names_the_rulebooks_list_and_wespas_note(rulebooks_cli):
    cli = rulebooks_cli
    out = cli("tournament", "create", "open", "-l", "CSW24", "-r", "7-per-word", "--rulebook",
              "wespa")  # fmt: skip
    assert out.exit_code == 0, out.stderr
    assert ": CSW24, as the wespa rulebook allows" in out.stdout
    assert "  note:    WESPA may not rate this event: 7-per-word is not one of the standard" in (
        out.stdout
    )
    assert "off the rulebook" not in out.stdout
    naspa = cli("tournament", "create", "n", "-l", "NWL2023", "-r", "dingle", "--rulebook", "naspa")
    assert naspa.exit_code == 0 and "WESPA" not in naspa.stdout  # NASPA 1.3: any rule


def test_set_refuses_a_rule_off_the_rulebook_and_clears_the_reason_once_back(rulebooks_cli):
    cli = rulebooks_cli
    assert cli("tournament", "create", "nsa", "-l", "OWL-NSA1998", "-r", "double",
               "--rulebook", "nsa-1998", "--date", "2004-05-01").exit_code == 0  # fmt: skip
    refused = cli("tournament", "set", "nsa", "--rule", "single")
    assert refused.exit_code == 2
    assert "rule single is not a penalty the nsa-1998 rulebook allows (NSA X.F" in refused.stderr
    off = cli("tournament", "set", "nsa", "--rule", "single", "--off-rulebook", "a club's habit")
    assert off.exit_code == 0, off.stderr
    kept = cli("tournament", "set", "nsa", "--title", "Spring 2004")  # nothing newly off
    assert kept.exit_code == 0 and "off the rulebook: a club's habit" in kept.stdout
    wrong = cli("tournament", "set", "nsa", "--lexicon", "NWL2023")  # a new thing off: refused
    assert wrong.exit_code == 2 and "lexicon NWL2023 is not a list" in wrong.stderr
    back = cli("tournament", "set", "nsa", "--rule", "double")
    assert back.exit_code == 0 and "off the rulebook" not in back.stdout
    (entry,) = json.loads(cli("tournament", "list", "--json").stdout)
    assert entry["off_rulebook"] is None
    pointless = cli("tournament", "set", "nsa", "--off-rulebook", "just in case")
    assert pointless.exit_code == 2 and "nothing is off the nsa-1998 rulebook" in pointless.stderr
    bare = cli("tournament", "set", "nsa", "--rulebook", "none")
    # issue 35: with no rulebook, what is offered and what stays with its rulebook
    assert bare.exit_code == 0 and "second opinions are offered; NASPA 6.2's" in bare.stdout
    none = cli("tournament", "set", "nsa", "--off-rulebook", "just in case")
    assert none.exit_code == 2 and "names no rulebook, so nothing is off it" in none.stderr


def test_a_reason_is_checked_like_any_text_a_director_types(rulebooks_cli):
    cli = rulebooks_cli
    for reason, said in (("x", "3 to 500 characters"), ("a\u200bb c", "invisible")):
        out = cli("tournament", "create", "club", "-l", "NWL2023", "-r", "double", "--rulebook",
                  "msa", "--off-rulebook", reason)  # fmt: skip
        assert out.exit_code == 2 and said in out.stderr
    assert cli("tournament", "list", "--json").stdout.strip() == "[]"


def test_the_tournaments_page_refuses_and_records_and_the_overview_shows_it(rulebooks_hall):
    hall = rulebooks_hall
    director = hall.director()
    form = {"slug": "school-day", "lexicon": "NSWL2023", "rule": "double",
            "rulebook": "school-2011", "date": "2011-04-16"}  # fmt: skip
    text = page_after(director, "/director/tournaments", form, page="/director/tournaments")
    assert "lexicon NSWL2023 is not a list the school-2011 rulebook allows (school rule 10" in text
    assert not tournaments.list_all(hall.db)
    form["off_rulebook"] = "the event's own list, by the organisers"
    text = page_after(director, "/director/tournaments", form, page="/director/tournaments")
    assert "Tournament school-day created" in text
    assert "Off the rulebook: the event&#39;s own list, by the organisers" in text
    row = text.split('id="tournament-school-day"')[1].split("</tr>")[0]
    assert 'id="off-rulebook-school-day"' in row and "school rule 10" in row
    overview = director.get("/director/").get_data(as_text=True)
    card = overview.split('id="overview-school-day"')[1].split("</section>")[0]
    assert "Off the rulebook" in card and "the event&#39;s own list" in card
    hall.event("free", None, "NWL2023", "single")
    overview = director.get("/director/").get_data(as_text=True)
    card = overview.split('id="overview-free"')[1].split("</section>")[0]
    assert "none named: reissues, the 3.10.13 confirmation, free challenges" in card
    assert "NSA X.G's third opinion and NASPA 1.2's limit stay with their rulebooks" in card


def test_the_change_page_names_what_is_off_and_takes_the_reason(rulebooks_hall):
    from support.director import post_form

    hall = rulebooks_hall
    hall.event("open", "wespa", "CSW24", "5-per-word")
    director = hall.director()
    review = post_form(director, "/director/tournaments/open/confirm",
                       {"lexicon": "NWL2023", "rule": "5-per-word", "title": "Open"},
                       page="/director/tournaments")  # fmt: skip
    page = review.get_data(as_text=True)
    assert 'id="off-rulebook-warning"' in page and "(WESPA 1.2 and Appendix 2" in page
    manifest = hall.store.manifest("NWL2023")
    apply = {"lexicon": "NWL2023", "fingerprint": manifest.fingerprint,
             "pin": manifest.current_pin, "rule": "5-per-word", "title": "Open"}  # fmt: skip
    text = page_after(director, "/director/tournaments/open/apply", apply,
                      page="/director/tournaments")  # fmt: skip
    assert "is not a list the wespa rulebook allows" in text
    assert tournaments.get(hall.db, "open").lexicon == "CSW24"
    apply["off_rulebook"] = "an NWL side event"
    text = page_after(director, "/director/tournaments/open/apply", apply,
                      page="/director/tournaments")  # fmt: skip
    assert tournaments.get(hall.db, "open").off_rulebook == "an NWL side event"


def test_the_tournaments_page_in_polish(rulebooks_hall):
    hall = rulebooks_hall
    hall.event("klub", "msa", "NWL2023", "double", off="klubowa lista <b>NWL</b>")
    director = hall.director()
    director.get("/language/pl?next=/director/tournaments")
    page = director.get("/director/tournaments").get_data(as_text=True)
    assert "Poza regulaminem:" in page and "klubowa lista &lt;b&gt;NWL&lt;/b&gt;" in page
    assert "Poza regulaminem (powód)" in page
