"""Lexicon re-check (issue 9): what one periodic re-hash of CSW24's compiled file costs.

`store.open` on a loaded lexicon normally costs two stat() calls; once every
ADJUDICATOR_LEXICON_RECHECK_SECONDS it also re-hashes the compiled file. Measured side by side:
open with a re-check on every call (recheck_seconds=0) and open with none due (the floor); the
difference is one re-check. Also a fresh load (read, SHA-256 of those bytes, load into marisa).
"""

from __future__ import annotations

import pytest
from conftest import SHARED_LEXICONS

from adjudicator.words.lexicon import CompiledLexicon, file_sha256
from adjudicator.words.lexicon_import import import_lexicon
from adjudicator.words.store import LexiconStore

pytestmark = pytest.mark.skipif(
    not (SHARED_LEXICONS / "CSW24.txt").is_file(),
    reason=f"the real word lists are not at {SHARED_LEXICONS}",
)


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    store = LexiconStore(tmp_path_factory.mktemp("recheck") / "lexicons")
    import_lexicon(store, SHARED_LEXICONS / "CSW24.txt", "CSW24")
    return store.root


def test_open_with_a_recheck_every_time(benchmark, root):
    store = LexiconStore(root, recheck_seconds=0)
    lexicon = benchmark(store.open, "CSW24")
    assert "ZYZZYVA" in lexicon and store.out_of_service() == {}
    benchmark.extra_info.update(
        compiled_bytes=(root / store.manifest("CSW24").compiled_file).stat().st_size
    )


def test_open_with_no_recheck_due_floor(benchmark, root):
    store = LexiconStore(root, recheck_seconds=3600)
    store.open("CSW24")
    assert "ZYZZYVA" in benchmark(store.open, "CSW24")


def test_sha256_of_the_compiled_file(benchmark, root):
    path = root / LexiconStore(root).manifest("CSW24").compiled_file
    assert len(benchmark(file_sha256, path)) == 64


def test_fresh_load_from_verified_bytes(benchmark, root):
    store = LexiconStore(root)
    manifest = store.manifest("CSW24")
    lexicon = benchmark(CompiledLexicon.open, manifest, root / manifest.compiled_file)
    assert len(lexicon) == 280_887
