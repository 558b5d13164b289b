"""The director's CSV download written by a child process (export_apart.py): the same bytes
as an export in the worker, whose interpreter never reads a row of it; a journal the child
cannot read is a 503 with its words and no file; where no child can say, the worker exports the
rows itself; a child that fails part-way never gives a file that looks whole, and a download
given up ends the child."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest

from adjudicator import children
from adjudicator.hall import kiosks, tournaments
from adjudicator.hall.director import export, export_apart, journal_review
from adjudicator.hall.hall import Hall
from adjudicator.judging.corrections import voids
from adjudicator.record.database.db import DatabaseUnavailable

from support.director import Staffed, build_staffed
from support.hall import NWL, build_store

pytestmark = pytest.mark.usefixtures("fast_hashes")
FILTERS = [
    "",
    "?tournament=spring-nwl",
    "?kind=void",
    "?tournament=spring-csw&kind=challenge",
    "?tournament=nowhere",
]


@pytest.fixture
def staffed(tmp_path) -> Staffed:
    """A hall with challenges on both tournaments, a void, and a cell a spreadsheet would run."""
    found = build_staffed(tmp_path)
    for words in (["QI"], ["ZA", "QI"], ["XYZZY"]):
        found.challenge(words, challenger='=HYPERLINK("http://x")')
    found.challenge(["QI"], found.setup.csw)
    entry = found.challenge(["ZA"])
    voids.void(found.db, entry.id, "typed at the wrong table", actor="td", station="td")
    return found


def exported_here(staffed: Staffed, query: str) -> bytes:
    """What the worker's own export gives for `query` (the director's filters)."""
    from urllib.parse import parse_qs

    asked = {name: values[0] for name, values in parse_qs(query.lstrip("?")).items()}
    filters = journal_review.Filters(**asked)
    rows = export.csv_records(staffed.db, journal_review.select_batches(staffed.db, filters))
    return "".join(export.csv_chunks(rows)).encode()


@pytest.mark.parametrize("query", FILTERS)
def test_the_child_writes_what_the_worker_would(staffed, children_started, monkeypatch, query):
    expected = exported_here(staffed, query)

    def never_here(*args, **kwargs):
        raise AssertionError("rows read in the worker's interpreter")

    monkeypatch.setattr(export, "csv_records", never_here)
    answer = staffed.director().get(f"/director/journal.csv{query}")
    assert answer.status_code == 200 and answer.mimetype == "text/csv"
    assert answer.get_data() == expected and expected.startswith(b"id,recorded_at,kind")
    assert [child.returncode for child in children_started] == [0]
    assert children_started[0].priority == children.LOWEST  # the verdicts go first


def test_formula_cells_stay_neutralised_through_the_child(staffed):
    text = staffed.director().get("/director/journal.csv").get_data(as_text=True)
    assert "'=HYPERLINK" in text and ",=HYPERLINK" not in text


@pytest.mark.parametrize("program", ["/bin/false", "/nonexistent/python", None])
def test_where_no_child_can_say_the_worker_exports_the_rows(staffed, monkeypatch, program):
    expected = exported_here(staffed, "")
    monkeypatch.setattr(sys, "executable", program)
    answer = staffed.director().get("/director/journal.csv")
    assert answer.status_code == 200 and answer.get_data() == expected


def test_a_journal_the_child_cannot_read_is_a_503_with_no_file(staffed):
    director = staffed.director()
    path = staffed.db.path
    path.rename(path.with_name("moved.sqlite3"))  # the file gone under the hall
    answer = director.get("/director/journal.csv")
    assert answer.status_code == 503
    assert b"Traceback" not in answer.get_data() and b"id,recorded_at" not in answer.get_data()
    with pytest.raises(DatabaseUnavailable, match="cannot be opened"):  # the child's own words
        export_apart.csv_apart(staffed.db, journal_review.Filters(), True)
    assert not path.exists()  # the child never made a journal in its place


def test_a_child_that_fails_part_way_cuts_the_download(staffed, monkeypatch):
    script = (
        "import sys; sys.stdout.write('id,recorded_at,kind\\n1,'); sys.stdout.flush(); sys.exit(3)"
    )

    def start(*args, **kwargs):
        return subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                                stderr=kwargs["errors"])  # fmt: skip

    monkeypatch.setattr(children, "start", start)
    chunks = export_apart.csv_apart(staffed.db, journal_review.Filters(), True)
    assert next(chunks).startswith(b"id,recorded_at,kind")
    with pytest.raises(export_apart.ExportCut):
        list(chunks)


def test_a_child_that_writes_much_on_its_errors_still_gives_the_whole_file(staffed, monkeypatch):
    """Its errors go to a file: a pipe nobody reads while the CSV streams would fill at 64 KB
    and stop the child, and the download with it."""
    script = (
        "import sys; sys.stderr.write('w' * 1_000_000); sys.stderr.flush(); "
        "sys.stdout.write('id,kind\\n' + '1,challenge\\n' * 100_000)"
    )
    started = []

    def start(*args, **kwargs):
        started.append(subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                                        stderr=kwargs["errors"]))  # fmt: skip
        return started[-1]

    monkeypatch.setattr(children, "start", start)
    got: list[bytes] = []

    def download() -> None:
        got.extend(export_apart.csv_apart(staffed.db, journal_review.Filters(), True))

    reader = threading.Thread(target=download, daemon=True)
    reader.start()
    reader.join(timeout=30)
    stuck = reader.is_alive()
    for child in started:
        children.end(child)
    assert not stuck, "the download stopped: the child's errors filled a pipe"
    assert b"".join(got) == b"id,kind\n" + b"1,challenge\n" * 100_000


def test_a_download_given_up_ends_the_child(staffed, children_started):
    chunks = export_apart.csv_apart(staffed.db, journal_review.Filters(), True)
    assert next(chunks).startswith(b"id,")
    chunks.close()  # the browser went away: the server closes the answer
    assert len(children_started) == 1 and children_started[0].poll() is not None


@pytest.mark.parametrize("said", ["", "not json", '{"unavailable": 3}'])
def test_a_child_that_says_nothing_readable_is_not_believed(staffed, monkeypatch, said):
    script = f"import sys; print({said!r}, file=sys.stderr); sys.exit(3)"

    def start(*args, **kwargs):
        return subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                                stderr=kwargs["errors"])  # fmt: skip

    monkeypatch.setattr(children, "start", start)
    assert export_apart.csv_apart(staffed.db, journal_review.Filters(), True) is None


def test_the_child_runs_as_a_command(staffed):
    command = [sys.executable, "-P", "-m", export_apart.__name__]
    done = subprocess.run([*command, "{}", str(staffed.db.path)], capture_output=True)
    assert done.returncode == 0 and done.stdout == exported_here(staffed, "")
    gone = subprocess.run([*command, "{}", str(staffed.db.path) + ".gone"], capture_output=True)
    assert gone.returncode == export_apart.UNREADABLE and gone.stdout == b""
    assert (
        b'"unavailable"' in gone.stderr
        and not (staffed.db.path.parent / "journal.sqlite3.gone").exists()
    )
    assert subprocess.run(command, capture_output=True).returncode == 2


def test_a_postgresql_journal_from_the_settings_is_exported_by_a_child(
    tmp_path, monkeypatch, postgres
):
    monkeypatch.setenv("ADJUDICATOR_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ADJUDICATOR_DATABASE_URL", postgres.new_database())
    store = build_store(tmp_path / "lexicons")
    hall = Hall(store, rate_limit=None, key_path=tmp_path / "receipt_key.pem")  # the settings'
    hall.upgrade()
    tournaments.create(hall.db, store, NWL, "TINY-NWL", "5-per-word", "Spring Open")
    kiosk = kiosks.get(hall.db, kiosks.add(hall.db, "table-1", NWL).kiosk.name)
    for words in (["QI"], ["XYZZY"]):
        hall.adjudicate(kiosk, words, challenger="+SUM(A1)")
    rows = export.csv_records(
        hall.db, journal_review.select_batches(hall.db, journal_review.Filters())
    )
    expected = "".join(export.csv_chunks(rows)).encode()
    assert hall.db_from_settings and hall.db.backend == "postgresql"
    chunks = export_apart.csv_apart(hall.db, journal_review.Filters(), hall.db_from_settings)
    assert chunks is not None and b"".join(chunks) == expected and b"'+SUM(A1)" in expected
    # a PostgreSQL journal given to the app, not the settings' one: never another process's
    assert export_apart.csv_apart(hall.db, journal_review.Filters(), False) is None
    hall.db.close()
