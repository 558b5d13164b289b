"""Issue 46's benchmark: the challenge report and the season page at 10k, 100k and 1M rows, on
SQLite and on PostgreSQL, each against its floor measured in the same run: a bare
`SELECT challenger, COUNT(*) ... GROUP BY challenger` over the same rows (the event's for the
report, the whole journal for the season).

A season is filled through the program's own append path (journal.append_batch: the chain, the
keyed hashes, the tallies and the players' tallies, one transaction a batch): 40 tournaments of
two TSH divisions (12 tables each, 24 players, from a pool of 600 players who meet again across
the season), one in five under dingle (its games recounted when corrected), the others double
or 5-per-word. Row n is a challenge between the two players TSH seats at its table, 70 %
acceptable, except: every 200th a second opinion on the row before (every other one flagged and
differing), every 400th + 1 the director's ruling on row n - 2 (the other verdict), every 300th
+ 150 a void of the row before, every 1000th + 500 a waiver, every 2000th + 7 a free challenge
granted: about 1.2 % of rows correct another.

    .venv/bin/python -m benchmarks.players_record --backend sqlite --rows 10000 100000 1000000
    ADJUDICATOR_TEST_POSTGRES_URL=postgresql://... .venv/bin/python -m benchmarks.players_record \
        --backend postgresql --rows 10000 100000 1000000

Each size is filled once (the next size goes on from the last), then the report, the season
(the library's `season.build`) and the season page (GET /director/season through the app,
HTML included) are timed alternately with their floors (benchmarks/alternating.py): the best
of each is printed with the ratio.

`--beside N` then judges N verdicts through the app alone, and N while the season page is built
again and again on another thread of the same process, as one worker does both: the verdict's
p50 and p99 beside the director's page, against alone.

`--before REV` also times, in the same rounds, the players' figures (of the season and of the
report's event) as the judging's `player_figures.py` of git revision REV computed them, beside
this tree's: the cost of a change to how the figures follow the corrections, before and after,
on the same rows in one run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from adjudicator.hall import tournaments
from adjudicator.hall.hall import Hall
from adjudicator.hall.people import staff
from adjudicator.record.backends import connect
from adjudicator.record.journal import journal
from adjudicator.words.store import LexiconStore
from adjudicator.words.wordlist import WordSet
from benchmarks.alternating import alternate, timed

TOURNAMENTS, TABLES, POOL = 40, 24, 600
WORDS = ("AA", "QI", "ZA", "JO", "XI", "CAT", "DOG", "FOX", "ZEBRA")
CHALLENGES = (("QI", "ZA"), ("CAT", "DOGX"), ("ZEBRA",), ("JO", "XI", "AA"), ("FOX",))
DIRECTOR_PASSWORD = "director-benchmark-1"


def slug(t: int) -> str:
    return f"event-{t:02d}"


def rule_of(t: int) -> str:
    return "dingle" if t % 5 == 0 else ("5-per-word" if t % 2 else "double")


def name(k: int) -> str:
    return f"Player{k % POOL:03d}, Given{k % POOL:03d}"


def seats(t: int, round_no: int, table: int) -> tuple[str, str]:
    """The two players TSH seats at a table in a round of tournament t."""
    roster = [(t * 17 + i) % POOL for i in range(48)]
    first = roster[(table * 2 + round_no) % 48]
    second = roster[(table * 2 + 1 + round_no * 3) % 48]
    if second == first:
        second = roster[(table * 2 + 7) % 48]
    return name(first), name(second)


def penalty(rule: str, verdict: str, words: int) -> str:
    stands = verdict == "ACCEPTABLE"
    numbers = {"play_stands": stands, "points_to_player": 0, "challenger_loses_turn": False,
               "points_to_challenger": 0}  # fmt: skip
    if stands and rule == "double":
        numbers["challenger_loses_turn"] = True
    elif stands and rule == "5-per-word":
        numbers["points_to_player"] = 5 * words
    return json.dumps(numbers, sort_keys=True, separators=(",", ":"))


def challenge(n: int, fingerprint: str) -> dict:
    """The challenge row number `n` would be (its game, its players, its verdict)."""
    t = n % TOURNAMENTS
    table = (n // TOURNAMENTS) % TABLES + 1
    round_no = (n // (TOURNAMENTS * TABLES)) % 24 + 1
    first, second = seats(t, round_no, table)
    challenger = first if n % 2 else second
    words = CHALLENGES[n % len(CHALLENGES)]
    verdict = "UNACCEPTABLE" if "DOGX" in words or n % 10 < 1 else "ACCEPTABLE"
    fields = dict(
        kind="challenge", tournament=slug(t), kiosk=f"kiosk-{t}-{table}", lexicon_name="TINY",
        lexicon_fingerprint=fingerprint, lexicon_words=len(WORDS), rule=rule_of(t), words=words,
        word_count=len(words), verdict=verdict, consequence="as judged",
        penalty=penalty(rule_of(t), verdict, len(words)), table=str(table), round=str(round_no),
        challenger=challenger, division="A" if table <= TABLES // 2 else "B",
        players=json.dumps([first, second]),
    )  # fmt: skip
    return fields


def row(n: int, fingerprint: str) -> dict:
    """Row number `n` of the season (see the module's docstring): a challenge, or a row that
    corrects the challenge before it (no two of them ever name the same row)."""
    fields = challenge(n, fingerprint)
    if n % 200 == 0:
        flagged = n % 400 == 0
        fields.update(kind="second-opinion", refers_to=n - 1, kiosk="judge:alice", actor="alice",
                      verdict="UNACCEPTABLE" if flagged else "ACCEPTABLE",
                      flag_reasons=json.dumps(["the verdict differs"] if flagged else []),
                      division=None, players=None)  # fmt: skip
        fields.update(_game_of(n - 1))
    elif n % 400 == 1 and n > 1:
        fields.update(kind="ruling", refers_to=n - 2, kiosk="director", actor="director",
                      verdict="UNACCEPTABLE", division=None,
                      players=None, note="checked the slip")  # fmt: skip
        fields.update(_game_of(n - 2))
    elif n % 300 == 150:
        fields.update(kind="void", refers_to=n - 1, kiosk="director", actor="director",
                      verdict="VOID", note="wrong table",
                      penalty='{"play_stands":null}', division=None, players=None)  # fmt: skip
        fields.update(_game_of(n - 1))
    elif n % 1000 == 500:
        fields.update(kind="waiver", refers_to=n - 1, kiosk="director", actor="director",
                      verdict="WAIVED", division=None, players=None,
                      penalty='{"play_stands":null,"waived":true}')  # fmt: skip
        fields.update(_game_of(n - 1))
    elif n % 2000 == 7:
        fields.update(kind="free-challenge", verdict="GRANTED", words=(), word_count=0,
                      lexicon_name="", lexicon_fingerprint="", lexicon_words=0, rule="",
                      players=None, division=None, table=None, round=None)  # fmt: skip
    return fields


def _game_of(n: int) -> dict:
    """The game fields a follow-up copies from challenge row n."""
    base = challenge(n, "")
    return {key: base.get(key) for key in ("tournament", "rule", "table", "round", "challenger")}


def prepare(home: Path, url: str) -> tuple[str, Hall]:
    """The data home, its lexicon, the 40 tournaments and a director; the hall on `url`."""
    os.environ["ADJUDICATOR_HOME"] = str(home)
    store = LexiconStore(root=home / "lexicons")
    manifest = store.save("TINY", WordSet.of(WORDS), description="benchmark lexicon")
    hall = Hall(store, connect(url), rate_limit=None, key_path=home / "receipt_key.pem")
    hall.upgrade()
    for t in range(TOURNAMENTS):
        tournaments.create(hall.db, store, slug(t), "TINY", rule_of(t), f"Event {t}",
                           event_date=f"2025-{t % 12 + 1:02d}-{t % 27 + 1:02d}")  # fmt: skip
    staff.set_director_password(hall.db, DIRECTOR_PASSWORD)
    return manifest.fingerprint, hall


def fill(hall: Hall, fingerprint: str, target: int, batch: int = 500) -> float:
    """Append rows until the journal holds `target`; the seconds it took."""
    began = time.perf_counter()
    first = journal.newest_id(hall.db) + 1
    for start in range(first, target + 1, batch):
        last = min(start + batch, target + 1)
        pending = [journal.Pending(row(n, fingerprint)) for n in range(start, last)]
        journal.append_batch(hall.db, pending)
        failed = [p.error for p in pending if p.error is not None]
        assert not failed, failed[0]
    return time.perf_counter() - began


def figures_at(revision: str):
    """The module `adjudicator/judging/player_figures.py` as git revision `revision` has it,
    loaded beside this tree's (its imports are this tree's)."""
    import importlib.util
    import subprocess

    path = "adjudicator/judging/player_figures.py"
    source = subprocess.run(
        ["git", "show", f"{revision}:{path}"], cwd=Path(__file__).resolve().parents[1],
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    spec = importlib.util.spec_from_loader(f"player_figures_{revision}", loader=None)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    exec(compile(source, f"{revision}:{path}", "exec"), module.__dict__)  # noqa: S102
    return module


def measure(
    hall: Hall, rows: int, rounds: int, before: str | None = None
) -> list[tuple[str, float, float]]:
    """(what, seconds, floor seconds) of the report, the season and the season page; with
    `before`, also the season's and the event's figures at that revision and at this tree,
    each against the same floor."""
    from adjudicator.hall.director import report, report_page, season
    from adjudicator.judging import player_figures
    from kiosk import create_app

    app = create_app({"HALL": hall, "SECRET_KEY": "b" * 48, "TESTING": True})
    client = app.test_client()
    _sign_in(client)
    event = slug(1)

    def floor(where: str = "", params: tuple = ()):
        with hall.db.transaction() as cur:
            cur.execute(
                f"SELECT challenger, COUNT(*) FROM adjudications {where} GROUP BY challenger",
                params,
            ).tuples()

    def event_floor():
        floor("WHERE tournament = ?", (event,))

    def the_report():
        found = report.build(hall, event)
        report_page.body(found)

    def the_season():
        season.build(hall, "2025-01-01", "2025-12-31")

    def the_page():
        answer = client.get("/director/season?from=2025-01-01&to=2025-12-31&sort=challenges_won")
        assert answer.status_code == 200, answer.status_code

    the_season()  # the first read counts nothing more than any other (the tallies exist)
    if before is not None:
        old = figures_at(before)
        slugs = [slug(t) for t in range(TOURNAMENTS)]
        old.of_season(hall.db, slugs)
        times = alternate(
            timed(lambda: old.of_season(hall.db, slugs), 1),
            timed(lambda: player_figures.of_season(hall.db, slugs), 1),
            timed(lambda: old.of_tournaments(hall.db, [event]), 1),
            timed(lambda: player_figures.of_tournaments(hall.db, [event]), 1),
            timed(floor, 1),
            timed(event_floor, 1),
            rounds=rounds,
        )
        season_before, season_after, event_before, event_after, floor_s, event_floor_s = times
        compared = [
            (f"season's figures at {before} ({rows:,} rows)", season_before, floor_s),
            (f"season's figures, this tree ({rows:,} rows)", season_after, floor_s),
            (f"{event}'s figures at {before} ({rows:,} rows)", event_before, event_floor_s),
            (f"{event}'s figures, this tree ({rows:,} rows)", event_after, event_floor_s),
        ]
    else:
        compared = []
    report_s, event_floor_s = alternate(timed(the_report, 1), timed(event_floor, 1), rounds=rounds)
    season_s, page_s, floor_s = alternate(
        timed(the_season, 1), timed(the_page, 1), timed(floor, 1), rounds=rounds
    )
    return [
        *compared,
        (f"report of {event} ({rows:,} rows)", report_s, event_floor_s),
        (f"season.build ({rows:,} rows)", season_s, floor_s),
        (f"season page, HTML ({rows:,} rows)", page_s, floor_s),
    ]


def beside(hall: Hall, rows: int, verdicts: int) -> list[str]:
    """A kiosk's verdicts through the app in this process, one after another, as one worker
    judges them: alone (`verdicts` of them), then while the director's season page is built
    again and again on another thread of the same process (as the worker builds it), the
    interpreter's switch interval as the serving worker sets it. Lines of p50 and p99 (ms)."""
    import statistics
    import threading

    from adjudicator.hall import kiosks
    from kiosk import create_app
    from kiosk.server.loop_worker import SWITCH_SECONDS

    app = create_app({"HALL": hall, "SECRET_KEY": "b" * 48, "TESTING": True})
    director, tablet = app.test_client(), app.test_client()
    _sign_in(director)
    token = kiosks.add(hall.db, f"bench-{rows}", slug(1)).token  # a tournament of `double`
    headers = {"Authorization": f"Bearer {token}"}

    def judge() -> float:
        began = time.perf_counter()
        answer = tablet.post("/api/v1/adjudications", json={"words": ["QI"]}, headers=headers)
        assert answer.status_code == 201, answer.get_json()
        return (time.perf_counter() - began) * 1e3

    def page() -> None:
        answer = director.get("/director/season?from=2025-01-01&to=2025-12-31")
        assert answer.status_code == 200, answer.status_code

    def summary(what: str, times: list[float]) -> str:
        ordered = sorted(times)
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
        p50 = statistics.median(ordered)
        return f"{what}: {len(times)} verdicts, p50 {p50:.2f} ms, p99 {p99:.2f} ms"

    default = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_SECONDS)
    try:
        for _ in range(50):
            judge()  # warm
        alone = [judge() for _ in range(verdicts)]
        stop, pages = threading.Event(), []

        def director_looks() -> None:
            while True:  # one page at least, however few the verdicts
                began = time.perf_counter()
                page()
                pages.append(time.perf_counter() - began)
                if stop.is_set():
                    return

        looking = threading.Thread(target=director_looks)
        looking.start()
        try:
            together = [judge() for _ in range(verdicts)]
        finally:
            stop.set()
            looking.join()
    finally:
        sys.setswitchinterval(default)
    return [
        summary(f"alone ({rows:,} rows)", alone),
        summary(f"beside the season page, {len(pages)} built, "
                f"{statistics.median(pages) * 1e3:.0f} ms each ({rows:,} rows)", together),
    ]  # fmt: skip


def _sign_in(client) -> None:
    import re

    page = client.get("/director/login").get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    answer = client.post("/director/login", data={"name": "director",
                                                  "password": DIRECTOR_PASSWORD,
                                                  "csrf_token": token})  # fmt: skip
    assert answer.status_code == 302, answer.status_code


def main(argv: list[str] | None = None) -> list[str]:
    """The lines printed: each measure, then with `--beside` the verdicts alone and beside."""
    said: list[str] = []
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--rows", type=int, nargs="+", default=[10_000])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--before", metavar="REV", help="also time REV's player_figures.py")
    parser.add_argument("--beside", type=int, metavar="N", default=0,
                        help="then N verdicts alone and N beside the season page")  # fmt: skip
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="players-record-") as folder, ExitStack() as stack:
        home = Path(folder) / "home"
        if args.backend == "postgresql":
            sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
            from support.postgres import create_database, drop_database

            base = os.environ["ADJUDICATOR_TEST_POSTGRES_URL"]
            url = create_database(base, prefix="players_record")
            stack.callback(drop_database, base, url)
        else:
            url = str(home / "journal.sqlite3")
        fingerprint, hall = prepare(home, url)
        for rows in sorted(args.rows):
            took = fill(hall, fingerprint, rows)
            print(f"{args.backend}: filled to {rows:,} rows in {took:.0f} s", flush=True)
            if hall.db.backend == "postgresql":
                with hall.db.transaction() as cur:
                    cur.execute("ANALYZE")
            for what, seconds, floor in measure(hall, rows, args.rounds, args.before):
                said.append(f"{args.backend}: {what}: {seconds * 1e3:.1f} ms; floor "
                            f"{floor * 1e3:.1f} ms; ratio {seconds / floor:.2f}")  # fmt: skip
                print(said[-1], flush=True)
            for line in beside(hall, rows, args.beside) if args.beside else []:
                said.append(f"{args.backend}: verdicts {line}")
                print(said[-1], flush=True)
        stack.callback(hall.db.close)
    return said


if __name__ == "__main__":
    main()
