"""A command the library's messages name in backticks (for the terminal) is shown on the
director's pages as code, not between literal backticks (issue 44: the overview showed
"`adjudicator kit open`"), and nothing else of the message becomes markup."""

from __future__ import annotations

from kiosk.filters import commands


def test_a_backticked_command_is_code_and_the_rest_stays_text():
    shown = commands("Run `adjudicator kit seal <DIR>` & <b>then</b> `kit open`.")
    assert shown == (
        "Run <code>adjudicator kit seal &lt;DIR&gt;</code> &amp; &lt;b&gt;then&lt;/b&gt; "
        "<code>kit open</code>."
    )
    assert commands("no command, one ` alone") == "no command, one ` alone"


def test_the_overview_shows_the_kits_command_as_code(staffed, tmp_path, monkeypatch):
    from adjudicator.hall.kit.seal import seal_kit

    stick = tmp_path / "stick"
    stick.mkdir()
    monkeypatch.setenv("ADJUDICATOR_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ADJUDICATOR_JOURNAL_MIRROR", str(stick / "journal.sqlite3"))
    director = staffed.director()
    assert "<code>adjudicator kit seal DIR</code>" in director.get("/director/").text
    hall = staffed.setup.hall
    seal_kit(stick, "correct horse battery staple", hall.db, hall.store, hall.signing_key(), None)
    for language in ("en", "fr", "pl"):
        page = director.get("/director/", headers={"Accept-Language": language}).text
        kit = page.split('id="overview-kit"', 1)[1].split("</p>", 1)[0]
        assert "<code>adjudicator kit open</code>" in kit, kit
        assert "`" not in kit, kit
