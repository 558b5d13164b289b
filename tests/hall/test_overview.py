"""The director's overview: the hall's state (adjudicator/hall_status.py) and its page."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime, timedelta

import pytest

from adjudicator.hall import kiosks
from adjudicator.hall.director import hall_status
from adjudicator.judging.corrections import second_opinion
from adjudicator.words.wordlist import WordSet

from support.hall import CSW, NWL, compiled_file, flip_byte

pytestmark = pytest.mark.usefixtures("fast_hashes")  # cheap password hashes for the staff


def tournament(status: hall_status.HallStatus, slug: str) -> hall_status.TournamentStatus:
    return next(t for t in status.tournaments if t.tournament.slug == slug)


# ---------- the hall's state ----------


def test_each_tournament_with_its_lexicon_rule_and_kiosks(staffed):
    status = hall_status.build(staffed.setup.hall)
    assert [t.tournament.slug for t in status.tournaments] == [CSW, NWL]  # by slug
    nwl = tournament(status, NWL)
    assert nwl.tournament.lexicon == "TINY-NWL" and nwl.lexicon_words == 12
    assert nwl.tournament.lexicon_fingerprint == staffed.store.manifest("TINY-NWL").fingerprint
    assert nwl.rule_title == "5 points per word challenged"
    assert nwl.lexicon_problem is None and status.problems == ()
    assert [(k.name, k.state, k.last_seen_at) for k in nwl.kiosks] == [
        ("table-1", "never seen", None)
    ]
    assert nwl.challenges_today == 0  # none yet today, from the tallies


def test_a_kiosk_is_online_while_it_polls_and_offline_after(staffed):
    staffed.kiosk_browser().get("/api/v1/kiosk")  # a paired screen asking for its status
    seen = kiosks.get(staffed.db, "table-1").last_seen_at
    now = datetime.fromisoformat(seen)
    shown = tournament(hall_status.build(staffed.setup.hall, now=now), NWL).kiosks[0]
    assert (shown.state, shown.last_seen_at, shown.online) == ("online", seen, True)
    later = now + timedelta(seconds=hall_status.ONLINE_SECONDS + 1)
    shown = tournament(hall_status.build(staffed.setup.hall, now=later), NWL).kiosks[0]
    assert (shown.state, shown.last_seen_at, shown.online) == ("offline", seen, False)


def test_a_revoked_kiosk_is_not_counted(staffed):
    kiosks.revoke(staffed.db, "table-2")
    assert tournament(hall_status.build(staffed.setup.hall), CSW).kiosks == ()


def test_a_lexicon_reimported_with_other_words_puts_its_tournament_out_of_service(staffed):
    staffed.store.save("TINY-CSW", WordSet.of(["QI", "ZA", "XU"]))
    status = hall_status.build(staffed.setup.hall)
    csw = tournament(status, CSW)
    assert "has changed since the director set it" in csw.lexicon_problem
    assert tournament(status, NWL).lexicon_problem is None
    assert status.problems == (f"Spring Open (CSW division): {csw.lexicon_problem}",)


def test_a_damaged_compiled_lexicon_is_reported(staffed):
    flip_byte(compiled_file(staffed.store, "TINY-NWL"))
    status = hall_status.build(staffed.setup.hall)
    lexicon = next(x for x in status.lexicons if x.manifest.name == "TINY-NWL")
    assert lexicon.problem and lexicon.used_by == (NWL,)
    assert tournament(status, NWL).lexicon_problem
    assert len(status.problems) == 2
    other = next(x for x in status.lexicons if x.manifest.name == "TINY-CSW")
    assert other.problem is None and other.catalogue == "not in the catalogue"


def test_open_flags_and_the_journals_newest_row(staffed):
    status = hall_status.build(staffed.setup.hall)
    assert status.open_flags == 0 and (status.journal.rows, status.journal.newest_at) == (0, None)
    original = staffed.challenge(["QI", "ZAX"])
    second_opinion.give(
        staffed.db, staffed.store, original.id, ["QI", "ZA"], actor="alice", station="judge:alice"
    )
    status = hall_status.build(staffed.setup.hall)
    assert status.open_flags == 1
    assert (
        status.journal.rows == original.id + 1 and status.journal.newest_at > original.recorded_at
    )


# ---------- the page ----------


def test_the_overview_page_shows_the_hall_and_refreshes_itself(staffed):
    staffed.kiosk_browser().get("/api/v1/kiosk")
    staffed.challenge(["QI"])
    director = staffed.director()
    page = director.get("/director/").get_data(as_text=True)
    assert "(s)" not in page
    fingerprint = staffed.store.manifest("TINY-NWL").fingerprint
    assert "Spring Open (NWL division)" in page and fingerprint[:12] in page
    assert "5-per-word: 5 points per word challenged" in page
    assert "0 second opinions waiting for your ruling" in page
    assert "1 of 2 kiosks online" in page
    for slug, online in ((NWL, "1 of 1 online"), (CSW, "0 of 1 online")):  # each on the map
        kiosks_shown = re.search(rf'id="overview-{slug}-kiosks">([^<]*)<a href="([^"]+)"', page)
        assert online in kiosks_shown.group(1)
        assert kiosks_shown.group(2) == f"/director/hall?tournament={slug}"
    assert "table-1" not in page and "table-2" not in page  # every table: the map's
    assert "Journal: 1 row, newest" in page
    assert "Every lexicon in use is intact" in page
    assert 'src="/static/director-refresh.js"' in page and 'data-refresh-seconds="20"' in page

    part = director.get("/director/overview")
    assert part.status_code == 200
    body = part.get_data(as_text=True)
    assert "<html" not in body and "staff-bar" not in body
    assert 'id="overview-as-of"' in body and "Spring Open (NWL division)" in body


def test_the_overview_names_a_lexicon_problem(staffed):
    staffed.store.save("TINY-CSW", WordSet.of(["QI", "ZA", "XU"]))
    page = staffed.director().get("/director/").get_data(as_text=True)
    assert "1 lexicon problem" in page
    assert "not in service: Lexicon TINY-CSW has changed since the director set it" in page


def test_the_overview_part_is_for_the_director_only(staffed):
    anonymous = staffed.client().get("/director/overview")
    assert anonymous.status_code == 302 and "/director/login" in anonymous.headers["Location"]
    assert staffed.judge().get("/director/overview").status_code == 403


# ---------- plurals, times and the journal's lexicon column ----------


def test_staff_pages_have_right_plurals(staffed):
    director = staffed.director()
    for path in ("/director/", "/director/journal", "/director/flags", "/director/kiosks"):
        assert "(s)" not in director.get(path).get_data(as_text=True), path


def test_the_journal_shows_each_rows_lexicon_and_takes_times_in_one_form(staffed):
    entry = staffed.challenge(["QI"])
    director = staffed.director()
    page = director.get("/director/journal").get_data(as_text=True)
    assert "<th>Lexicon</th>" in page
    assert f'TINY-NWL <code title="{entry.lexicon_fingerprint}">' in page
    assert "Rows #1 to #1, newest first" in page
    assert 'type="datetime-local"' not in page  # the browser's locale would show its own form
    assert 'placeholder="2024-05-01 14:00"' in page and "YYYY-MM-DD HH:MM, UTC, 24-hour" in page
    day = entry.recorded_at[:10]
    minute = datetime.fromisoformat(entry.recorded_at).astimezone(UTC).strftime("%Y-%m-%d %H:%M")
    for since, until, rows in (
        (day, day, 1),  # a date alone is the whole day
        (minute, minute, 1),  # to the minute includes that minute
        ("", "2000-01-01", 0),
    ):
        page = director.get(f"/director/journal?since={since}&until={until}")
        assert page.get_data(as_text=True).count("<tr class=") == rows, (since, until)
    refused = director.get("/director/journal?since=05/01/2024", follow_redirects=True)
    assert "type it as YYYY-MM-DD HH:MM (UTC, 24-hour)" in refused.get_data(as_text=True)


def test_the_hall_state_never_reads_the_journals_challenges(staffed, monkeypatch):
    """Its cost stays flat as the journal grows: it reads the tallies, never the rows."""
    for _ in range(5):
        staffed.challenge(["QI"])
    from adjudicator.record.journal import journal

    asked, real_batches = [], journal.batches

    def spy(db, tournament=None, *args, **filters):
        asked.append(filters.get("kind"))
        return real_batches(db, tournament, *args, **filters)

    monkeypatch.setattr(journal, "batches", spy)
    status = hall_status.build(staffed.setup.hall)
    assert status.journal.rows == 5
    assert asked == []  # no journal rows in bulk: tallies, cases and the newest row only


# ---------- the takeover kit on the stick (issue 34) ----------


def test_the_overview_says_whether_the_stick_holds_a_current_kit(staffed, tmp_path, monkeypatch):
    from adjudicator.hall.kit.seal import seal_kit

    stick = tmp_path / "stick"
    stick.mkdir()
    monkeypatch.setenv("ADJUDICATOR_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ADJUDICATOR_JOURNAL_MIRROR", str(stick / "journal.sqlite3"))
    director = staffed.director()

    def kit_line(language: str = "en") -> str:
        page = director.get("/director/", headers={"Accept-Language": language})
        found = re.search(r'<p id="overview-kit" data-state="(\w+)"[^>]*>(.+?)</p>', page.text)
        assert found, "the overview says nothing of the kit"
        said = re.sub(r"<code>(.*?)</code>", r"`\1`", found.group(2))  # a command: as code
        assert "<" not in said, said
        return f"{found.group(1)}: {html.unescape(said)}"

    assert kit_line() == (
        "none: No takeover kit on the stick: run `adjudicator kit seal DIR` (DIR: the USB "
        "stick's folder), so that a second laptop can take the hall over if this one dies."
    )
    assert kit_line("fr").startswith("none: Aucun kit de reprise sur la clé")
    hall = staffed.setup.hall
    seal_kit(stick, "correct horse battery staple", hall.db, hall.store, hall.signing_key(), None)
    assert kit_line() == (
        f"current: The USB stick holds a current takeover kit ({stick}): a second laptop can "
        "take the hall over with `adjudicator kit open`."
    )
    stick.rename(tmp_path / "away")
    assert kit_line().startswith(f"away: The takeover kit's folder {stick} is not here")
    assert kit_line("pl").startswith(f"away: Folderu zestawu przejęcia {stick} nie ma")
