"""A TSH URL's redirects stay on the linked host (issue 33, item 4): the same scheme, host and
port, or from http to https on the same host; any other is refused naming where it pointed, and
that address is never fetched. The other hosts here are real web servers on other loopback
addresses and ports, which count what they were asked."""

from __future__ import annotations

import pytest

from adjudicator.hall.tsh import follow, games, links, source
from adjudicator.hall.tsh.event import TshError

from support import tsh_files
from support.hall import NWL

STAYS = [
    ("http://tsh.example/a", "http://tsh.example/html/tourney.js"),
    ("http://tsh.example/a", "http://TSH.example:80/b"),
    ("https://tsh.example/a", "https://tsh.example:443/b"),
    ("http://tsh.example:8080/a", "http://tsh.example:8080/b"),
    ("http://tsh.example/a", "https://tsh.example/a"),
    ("http://tsh.example:8080/a", "https://tsh.example:8443/a"),
    ("http://10.0.0.5/a", "http://someone@10.0.0.5/b"),
]
LEAVES = [
    ("http://tsh.example/a", "http://127.0.0.1/admin"),
    ("http://tsh.example/a", "http://192.168.1.1/"),
    ("http://tsh.example:8080/a", "http://tsh.example:8081/a"),
    ("http://tsh.example/a", "http://tsh.example:22/"),
    ("https://tsh.example/a", "http://tsh.example/a"),
    ("https://tsh.example:8443/a", "http://tsh.example:8443/a"),
    ("http://tsh.example/a", "http://tsh.example.evil.org/a"),
    ("http://tsh.example/a", "http://tsh.example@127.0.0.1/a"),
    ("http://tsh.example/a", "ftp://tsh.example/a"),
    ("http://tsh.example/a", "http://tsh.example:port/a"),
    ("http://tsh.example/a", "http:///a"),
]


@pytest.mark.parametrize(("url", "newurl"), STAYS)
def test_a_redirect_on_the_same_host_is_followed(url, newurl):
    assert source.same_host(url, newurl)


@pytest.mark.parametrize(("url", "newurl"), LEAVES)
def test_a_redirect_off_the_host_or_down_to_http_is_not(url, newurl):
    assert not source.same_host(url, newurl)


@pytest.fixture
def hall(setup):
    return setup.hall


@pytest.fixture
def published():
    made = tsh_files.make_event({"A": 6}, 2, 2)
    served = tsh_files.TourneyJsServer(tsh_files.tourney_js(made))
    served.made = made
    yield served
    served.close()


@pytest.fixture(params=["another address", "another port"])
def elsewhere(request):
    """A web server the TSH host must not make the hall fetch: another loopback address (another
    machine on the LAN), or another port of the same address (another service)."""
    address = "127.0.0.2" if request.param == "another address" else "127.0.0.1"
    other = tsh_files.TourneyJsServer(b"newt={};", address=address)
    yield other
    other.close()


def test_a_redirect_on_the_linked_host_is_followed(hall, published):
    published.redirect = published.url
    links.link(hall.db, NWL, f"{published.origin}/spring/tourney.js")
    assert games.show(hall.db, NWL)
    assert len(published.requests) == 2  # the redirect, then the file


def test_linking_a_url_that_redirects_elsewhere_is_refused_and_elsewhere_never_fetched(
    hall, published, elsewhere
):
    published.redirect = elsewhere.url
    linked = f"{published.origin}/spring/tourney.js"
    with pytest.raises(TshError) as refused:
        links.link(hall.db, NWL, linked)
    said = str(refused.value)
    assert f"{linked} redirects to {elsewhere.url}" in said
    assert "only on the linked host" in said and "link it itself" in said
    assert links.get(hall.db, NWL) is None
    assert elsewhere.requests == []


def test_a_linked_url_that_starts_redirecting_elsewhere_fails_and_elsewhere_is_never_fetched(
    hall, published, elsewhere
):
    linked = f"{published.origin}/spring/tourney.js"
    published.redirect = published.url
    links.link(hall.db, NWL, linked)
    shown = games.show(hall.db, NWL)
    published.redirect = elsewhere.url
    follower = follow.Follower(hall.db, 1, 0)
    for _ in range(3):  # asked again and again, as every 30 s
        assert follower.run_once() == {NWL: "failed"}
    failure = links.get(hall.db, NWL).failure
    assert f"redirects to {elsewhere.url}" in failure
    assert "fetched nothing there" in failure
    assert games.show(hall.db, NWL) == shown
    assert elsewhere.requests == []
    published.redirect = published.url  # the web host put right: followed again
    assert follower.run_once() in ({NWL: "unchanged"}, {NWL: "updated"})
    assert links.get(hall.db, NWL).failure is None


def test_what_the_overview_shows_of_a_refused_redirect_is_only_the_address_it_named(
    hall, published
):
    """The failure names the address the web host wrote and nothing the hall learnt there: the
    same text whether a server listens at that address or not (no port scanner)."""
    linked = f"{published.origin}/spring/tourney.js"
    published.redirect = published.url
    links.link(hall.db, NWL, linked)
    said = []
    with tsh_files.TourneyJsServer(b"", address="127.0.0.2") as listening:
        for target in (listening.url, listening.url.replace(str(listening.port), "1")):
            published.redirect = target
            assert follow.Follower(hall.db, 1, 0).run_once() == {NWL: "failed"}
            said.append(links.get(hall.db, NWL).failure.replace(target, "TARGET"))
        assert listening.requests == []
    assert said[0] == said[1]
