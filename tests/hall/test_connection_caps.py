"""Client addresses at their connection cap (issue 33, item 5): what one client is counted by,
how often a worker logs an address it refuses, and what the overview reads back from the live
workers' files and shows, in the page's language. And the limit the hall's name watch cannot
see past (item 6), said on the trust page in every language."""

from __future__ import annotations

import html
import os
import subprocess
import sys

import pytest

from adjudicator.hall.network import connection_caps, hall_tls
from adjudicator.hall.network.connection_caps import Refusals, address_key


@pytest.mark.parametrize(
    ("peer", "counted_as"),
    [
        ("192.168.1.20", "192.168.1.20"),
        ("::ffff:192.168.1.20", "192.168.1.20"),
        ("2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"),
        ("2001:db8:1:2::1", "2001:db8:1:2::/64"),
        ("fe80::1234%wlan0", "fe80::/64"),
        ("::1", "::/64"),
        ("", "local"),
    ],
)
def test_a_client_is_counted_by_its_address_and_ipv6_by_its_64(peer, counted_as):
    assert address_key(peer) == counted_as


def test_what_is_refused_is_logged_once_a_minute_with_the_addresses_at_fault():
    refusals = Refusals(pid=os.getpid())
    lines = []
    for at in range(0, 150):  # 75 s: a refusal every half second, a line when one is due
        now = 1000.0 + at * 0.5
        refusals.note("10.0.0.9", now)
        if at % 10 == 0:
            refusals.note(f"10.0.1.{at}", now, kind="slow_request")
        line = refusals.log_line(now)
        if line is not None:
            lines.append((now, line))
    assert [now for now, _ in lines] == [1000.0, 1060.0]  # at 0 s and 60 s: two lines
    first, second = lines[0][1], lines[1][1]
    assert "1 past their address's cap" in first and "(10.0.0.9 1)" in first
    assert "1 with a request's head or body arriving too slowly (10.0.1.0 1)" in first
    assert "120 past their address's cap" in second and "(10.0.0.9 120)" in second
    assert "12 with a request's head or body arriving too slowly" in second
    assert "and 4 more" in second  # eight addresses named, then a count
    assert refusals.log_line(1074.5) is None  # the rest waits for the next minute
    assert refusals.totals == {"address_cap": 150, "slow_request": 15}
    assert refusals.found["address_cap", "10.0.0.9"].count == 150


def a_dead_pid() -> int:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], text=True, capture_output=True
    )
    return int(done.stdout)


def test_the_overview_reads_every_live_workers_refusals_once_per_address(home):
    now = 5000.0
    mine, parent, dead = Refusals(os.getpid()), Refusals(os.getppid()), Refusals(a_dead_pid())
    for _ in range(3):
        mine.note("10.0.0.9", now - 10)
    parent.note("10.0.0.9", now - 2)
    parent.note("2001:db8::/64", now - 1)
    parent.note("10.0.0.1", now - 40)  # no longer refused: not at its cap now
    dead.note("10.0.0.66", now - 1)  # a worker that is gone
    for refusals in (mine, parent, dead):
        refusals.write(now)
    found = connection_caps.current(now)
    assert [(x.address, x.count, x.first, x.last) for x in found] == [
        ("10.0.0.9", 4, now - 10, now - 2),
        ("2001:db8::/64", 1, now - 1, now - 1),
    ]
    shown = [p.render(lambda t: t, None) for p in connection_caps.phrases(64, now)]
    assert shown[0].startswith(
        "10.0.0.9 holds as many connections as one address may (64 in each server process): "
        "its connections past that are closed unless they show a paired kiosk's credential "
        "within a second (4 so far"
    )
    assert "ADJUDICATOR_CONNECTIONS_PER_ADDRESS must be raised" in shown[0]
    mine.remove()
    assert [x.count for x in connection_caps.current(now)] == [1, 1]


def test_many_addresses_at_their_cap_are_a_few_lines_and_a_count(home):
    refusals = Refusals(os.getpid())
    for n in range(20):
        refusals.note(f"10.0.1.{n}", 100.0)
    refusals.write(100.0)
    shown = [p.render(lambda t: t, english_plural) for p in connection_caps.phrases(64, 101.0)]
    assert len(shown) == connection_caps.MOST_SHOWN + 1
    assert shown[-1] == "12 more addresses are at their connection cap too."


def test_no_file_no_line(home):
    assert connection_caps.current() == ()
    (home / "connection-caps").mkdir(parents=True)
    (home / "connection-caps" / f"{os.getpid()}.json").write_text("half a fi")
    assert connection_caps.current() == ()


def english_plural(singular: str, plural: str, n: int) -> str:
    return singular if n == 1 else plural


def test_the_overview_names_the_addresses_at_their_cap_in_its_language(staffed, home):
    overview = staffed.director().get("/director/").get_data(as_text=True)
    assert "overview-connection-caps" not in overview
    refusals = Refusals(os.getpid())
    refusals.note("192.0.2.77")
    refusals.write()
    director = staffed.director()
    overview = director.get("/director/").get_data(as_text=True)
    assert 'id="overview-connection-caps"' in overview
    assert "192.0.2.77 holds as many connections as one address may (64 in each" in overview
    assert "192.0.2.77" in director.get("/director/overview").get_data(as_text=True)
    director.set_cookie("language", "pl")
    polish = director.get("/director/").get_data(as_text=True)
    assert "192.0.2.77 ma tyle połączeń, ile wolno jednemu adresowi (64 w każdym" in polish
    refusals.remove()
    assert "192.0.2.77" not in director.get("/director/").get_data(as_text=True)


def test_the_overview_and_healthz_count_what_was_refused_by_kind_in_its_language(
    staffed, home, monkeypatch
):
    overview = staffed.director().get("/director/").get_data(as_text=True)
    assert "overview-connection-counts" not in overview
    refusals = Refusals(os.getpid())
    for _ in range(3):
        refusals.note("192.0.2.80", kind="too_large")
    refusals.note("192.0.2.81", kind="held_poll")
    refusals.write()
    director = staffed.director()
    page = html.unescape(director.get("/director/").get_data(as_text=True))
    assert 'id="overview-connection-counts"' in page
    assert (
        "3 requests were refused at once: their bodies were larger than the pages they were "
        "sent to accept. Lately from 192.0.2.80."
    ) in page
    assert (
        "1 status poll was answered after a second, not held: its kiosk already had a poll held. "
        "Lately from 192.0.2.81."
    ) in page
    director.set_cookie("language", "fr")
    french = html.unescape(director.get("/director/").get_data(as_text=True))
    assert "3 requêtes ont été refusées aussitôt" in french
    assert "Dernièrement depuis 192.0.2.80." in french
    monkeypatch.setattr(connection_caps, "_totals", (-1.0, {}))  # not what was read before
    health = staffed.client().get("/healthz").get_json()
    assert health["connections"] == {
        **{kind: 0 for kind in connection_caps.KINDS},
        "too_large": 3,
        "held_poll": 1,
    }
    refusals.remove()
    assert "overview-connection-counts" not in director.get("/director/").get_data(as_text=True)


UNICAST = {
    "en": "cannot hear a device that answers a tablet by unicast alone",
    "pl": "nie usłyszy urządzenia, które odpowiada tabletowi wyłącznie unicastem",
    "es": "no puede oír a un dispositivo que responda a una tableta solo por unidifusión",
    "ca": "no pot sentir un dispositiu que respongui a una tauleta només per unidifusió",
    "fr": "ne peut pas entendre un appareil qui répond à une tablette en unicast seulement",
}


def test_the_trust_page_says_what_the_name_watch_cannot_hear(staffed, home):
    hall_tls.ensure("club", ["192.0.2.2"], own_networks=[])
    client = staffed.client()
    for language, said in UNICAST.items():
        client.set_cookie("language", language)
        page = client.get("/hall/trust").get_data(as_text=True)
        assert 'id="unicast-limit"' in page and said in page, language
