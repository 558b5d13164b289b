"""A lexicon verified from the director's page reads its words in a child process
(store.verify(apart=True), store.verify_apart): a serving worker's interpreter never
fingerprints them (4 s for the Polish list, which held the verdicts of that worker), the
findings are those of a verify in process (the same refusal, out of service, a false proof
removed), and where no child can say, the words are read here."""

from __future__ import annotations

import subprocess
import sys

import pytest
from test_lexicon_proof import edit_manifest, proof_of

from adjudicator import children
from adjudicator.errors import LexiconCorrupt
from adjudicator.words import store as store_module
from adjudicator.words.lexicon import CompiledLexicon
from adjudicator.words.store import LexiconStore


@pytest.fixture
def never_here(monkeypatch) -> None:
    """Fails a test whose own interpreter fingerprints a lexicon's words."""

    def refuse(self):
        raise AssertionError(f"{self.manifest.name}'s words read in this interpreter")

    monkeypatch.setattr(CompiledLexicon, "check_fingerprint", refuse)


def test_a_whole_lexicon_is_verified_in_a_child(two, never_here, children_started):
    verified = LexiconStore(two.root).verify("MAIN", apart=True)
    assert verified == two.manifest("MAIN")
    assert [child.returncode for child in children_started] == [0]
    assert children_started[0].priority == children.LOWEST  # the verdicts go first
    assert "MAIN" not in LexiconStore(two.root).out_of_service()


def test_the_forgery_of_issue_22_is_refused_by_the_child_as_in_process(
    two, never_here, children_started
):
    other = two.manifest("OTHER")
    edit_manifest(two, "MAIN", compiled_file=other.compiled_file,
                  compiled_sha256=other.compiled_sha256, words=other.words)  # fmt: skip
    fresh = LexiconStore(two.root)
    with pytest.raises(LexiconCorrupt, match="do not have the fingerprint its manifest names"):
        fresh.verify("MAIN", apart=True)
    assert "MAIN" in fresh.out_of_service()  # taken out of service here, by the finding
    assert len(children_started) == 1


def test_a_false_proof_is_removed_by_the_child(two, never_here):
    other = two.manifest("OTHER")
    main = two.manifest("MAIN")
    edit_manifest(two, "MAIN", compiled_file=other.compiled_file,
                  compiled_sha256=other.compiled_sha256, words=other.words)  # fmt: skip
    forged = proof_of(two, "OTHER").read_text().replace(other.fingerprint, main.fingerprint)
    proof_of(two, "OTHER").write_text(forged)
    with pytest.raises(LexiconCorrupt, match="do not have the fingerprint its manifest names"):
        LexiconStore(two.root).verify("MAIN", apart=True)
    assert not proof_of(two, "OTHER").exists()


@pytest.mark.parametrize("program", ["/bin/false", "/nonexistent/python", None])
def test_where_no_child_can_say_the_words_are_read_here(two, fingerprinted, monkeypatch, program):
    monkeypatch.setattr(sys, "executable", program)
    assert LexiconStore(two.root).verify("MAIN", apart=True) == two.manifest("MAIN")
    assert fingerprinted == ["MAIN"]


@pytest.mark.parametrize(
    "said", ["not json", "[]", '{"fingerprint": "0000"}', '{"corrupt": 3}', "{}"]
)
def test_a_child_saying_nonsense_is_not_believed(two, monkeypatch, said):
    def start(*args, **kwargs):
        return subprocess.Popen([sys.executable, "-c", f"print({said!r})"], stdout=subprocess.PIPE)

    monkeypatch.setattr("adjudicator.children.start", start)
    assert store_module.verify_apart(two.root, two.manifest("MAIN")) is False


def test_the_child_runs_as_a_command_and_speaks_only_for_the_file_named(two):
    manifest = two.manifest("MAIN")
    command = [sys.executable, "-P", "-m", "adjudicator.words.store", str(two.root), "MAIN"]
    done = subprocess.run([*command, manifest.compiled_file], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout == f'{{"fingerprint": "{manifest.fingerprint}"}}\n'
    moved = subprocess.run([*command, "MAIN.000000000000.marisa"], capture_output=True, text=True)
    assert moved.returncode == 4 and moved.stdout == ""  # imported again meanwhile: not said
    bad = subprocess.run(command, capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stdout == ""
