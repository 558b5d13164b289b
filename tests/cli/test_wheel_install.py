"""The package as users install it: a wheel built from the checkout, installed (not editable)
into a fresh venv, run from a folder far from the checkout. Every command that reads package
data works, and the served app answers every page (crawled, as the director and a kiosk) and
every static file those pages name, with no 500 (issue 21: 16 of 43 data files were missing)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

from support.http import Client
from support.paths import copy_checkout
from support.servers import free_port
from support.wheelhouse import offline_pip_env

pytestmark = pytest.mark.slow
CHECKOUT = Path(__file__).resolve().parents[2]
PASSWORD = "wheel-director-secret-1"
WORDS = "AA\nAB\nQI\nZA\nCAT\nDOG\nZEBRA\n"
SKIP_LINKS = ("/logout", "/director/logout", "/judge/logout", "/director/logout-everywhere")


def run(*argv, cwd: Path, env: dict | None = None, stdin: str | None = None, timeout=600):
    done = subprocess.run(
        [str(a) for a in argv],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return done


def must(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 0, f"{done.args} failed ({done.returncode}):\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh venv with the wheel installed from a copy of the checkout (nothing of the
    checkout on its path); its deps resolved by pip from the wheel's own metadata, as a user's
    would be, but from the wheels `make setup-test` fetched (support.wheelhouse): tests send
    nothing beyond this machine."""
    offline = offline_pip_env()
    work = tmp_path_factory.mktemp("wheel")
    source = copy_checkout(work / "source", "tests", "benchmarks", "docs")
    wheels = work / "wheels"
    must(
        run(
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",  # the venv's setuptools: no build tools fetched
            "--quiet",
            "-w",
            wheels,
            source,
            cwd=work,
        )
    )
    (wheel,) = wheels.glob("adjudicator-*.whl")
    venv = work / "venv"
    must(run(sys.executable, "-m", "venv", venv, cwd=work))
    must(
        run(
            venv / "bin" / "python",
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            wheel,
            cwd=work,
            env=offline,
        )
    )
    return venv


@pytest.fixture
def far(tmp_path: Path, installed: Path):
    """Run the installed `adjudicator` from a folder far from the checkout, its own data home."""
    folder = tmp_path / "far" / "away"
    folder.mkdir(parents=True)
    env = {
        "PATH": f"{installed / 'bin'}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "ADJUDICATOR_HOME": str(tmp_path / "home"),
        "ADJUDICATOR_WORKERS": "1",
        "LANG": "C.UTF-8",
    }

    def adjudicator(*args, stdin: str | None = None) -> subprocess.CompletedProcess:
        return run(installed / "bin" / "adjudicator", *args, cwd=folder, env=env, stdin=stdin)

    adjudicator.folder, adjudicator.env, adjudicator.venv = folder, env, installed
    return adjudicator


def test_the_installed_package_is_the_wheel_not_the_checkout(far):
    code = "import adjudicator, kiosk, lexicons; print(adjudicator.__file__, kiosk.__file__)"
    out = must(run(far.venv / "bin" / "python", "-c", code, cwd=far.folder, env=far.env))
    assert str(CHECKOUT) not in out
    assert all(path.startswith(str(far.venv)) for path in out.split())


def test_commands_that_read_package_data_work_when_installed(far):
    assert "polish" in must(far("lexicon", "alphabets"))  # alphabets
    words = far.folder / "twl.txt"
    words.write_text(WORDS)
    refused = far("lexicon", "import", str(words), "--name", "TWL06")  # the catalogue knows it
    assert refused.returncode == 2 and "TWL06 has 178,691 words" in refused.stderr
    must(far("lexicon", "import", str(words), "--name", "TWL06", "--force"))
    recipe = far("lexicon", "import", "--recipe", "school")  # a shipped recipe and its lists
    assert recipe.returncode == 0, recipe.stderr
    assert "SCHOOL-OSPD" in must(far("lexicon", "list"))
    assert "ExecStart=" in must(far("hall", "--print-service"))


def crawl(client: Client, starts: list[str], prefixes: tuple[str, ...]) -> dict[str, str]:
    """GET every page reachable by links under `prefixes` from `starts`: {path: body}."""
    seen: dict[str, str] = {}
    todo = list(starts)
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        reply = client.get(path)
        assert reply.status < 500, f"{path} answered {reply.status}: {reply.body[:500]}"
        assert reply.status in (200, 302, 303, 404), f"{path} answered {reply.status}"
        if reply.status in (302, 303):
            todo.append(urlsplit(urljoin("http://x" + path, reply.headers["Location"])).path)
        seen[path] = reply.body
        for link in re.findall(r'href="([^"#?]+)', reply.body):
            target = urlsplit(urljoin("http://x" + path, link)).path
            if target.startswith(prefixes) and target not in SKIP_LINKS:
                todo.append(target)
    return seen


def test_the_installed_server_answers_every_page_and_static_file(far, tmp_path):
    words = far.folder / "tiny.txt"
    words.write_text(WORDS)
    must(far("lexicon", "import", str(words), "--name", "TINY"))
    must(
        far(
            "tournament",
            "create",
            "open",
            "--lexicon",
            "TINY",
            "--rule",
            "double",
            "--title",
            "Open",
        )
    )
    code = re.search(
        r"/pair#([A-Z0-9]+)", must(far("kiosk", "add", "t1", "--tournament", "open"))
    ).group(1)
    must(far("director", "set-password", "--password-stdin", stdin=PASSWORD + "\n"))
    must(far("judge-account", "add", "judy", "--password-stdin", stdin=PASSWORD + "\n"))
    port = free_port()
    log = open(tmp_path / "serve.log", "wb")
    server = subprocess.Popen(
        [far.venv / "bin" / "adjudicator", "serve", "--bind", f"127.0.0.1:{port}"],
        cwd=far.folder,
        env=far.env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(base + "/healthz", timeout=2).close()
                break
            except (urllib.error.URLError, OSError):
                assert server.poll() is None, (tmp_path / "serve.log").read_text()
                assert time.monotonic() < deadline, "the installed server did not start"
                time.sleep(0.2)
        pages: dict[str, str] = {}
        visitor = Client(base)
        pages.update(
            crawl(
                visitor,
                ["/", "/pair", "/hall/trust", "/director/login", "/judge/login"],
                ("/never/",),
            )
        )
        kiosk = Client(base)
        token = kiosk.csrf("/pair")
        assert kiosk.post_form("/pair", {"code": code}, token).status == 302
        pages["kiosk /"] = kiosk.get("/").body
        assert 'id="judge-button"' in pages["kiosk /"]
        director = Client(base)
        assert director.sign_in("director", PASSWORD).status in (302, 303)
        found = crawl(director, ["/director/"], ("/director/",))
        assert len(found) >= 6, sorted(found)
        pages.update(found)
        judge = Client(base)
        assert judge.sign_in("judy", PASSWORD, login="/judge/login").status in (302, 303)
        pages.update(crawl(judge, ["/judge/"], ("/judge/",)))
        statics = set()
        for body in pages.values():
            statics.update(re.findall(r'(?:src|href)="(/static/[^"?#]+)', body))
        assert {"/static/kiosk.css", "/static/kiosk.js", "/static/director.css"} <= statics
        for path in sorted(statics):
            reply = visitor.get(path)
            assert reply.status == 200 and reply.body, f"{path} answered {reply.status}"
    finally:
        os.killpg(server.pid, 15)
        server.wait(timeout=20)
    assert "TemplateNotFound" not in (tmp_path / "serve.log").read_text()
