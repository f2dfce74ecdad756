"""The index format: each document records the format it was indexed in; documents of an
older format (or another model) are re-indexed by the next run, reusing every vector
whose text did not change, and stay searchable until then."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import docent.core.embedding
from docent.core.catalog import Catalog
from docent.core.config import load_settings
from docent.core.consistency import OTHER_MODEL
from docent.core.engine import Engine
from docent.core.models import DocState
from fake_embedder import FakeEmbedder

TEXT = (
    "The lighthouse keeper logged every ship that passed the northern reef. "
    "In stormy weeks she lit the second lamp and rang the fog bell each hour. "
    "Her logbooks, kept since 1911, record the wreck of the schooner Marigold. "
)


@pytest.fixture
def library(tmp_path: Path) -> Path:
    lib = tmp_path / "library"
    lib.mkdir()
    (lib / "keeper.txt").write_text("\n\n".join(TEXT * 3 for _ in range(6)))
    (lib / "options.md").write_text(
        "# Options\n\nRun the tool with -p to keep its state between runs.\n\n"
        "Use SET CPU HISTORY=n to keep a trace of the last n instructions.\n"
    )
    return lib


def open_engine() -> Engine:
    return Engine(load_settings(extract_in_subprocess=False)).open()


def test_an_old_catalog_gains_the_format_column(tmp_path: Path) -> None:
    path = tmp_path / "catalog.sqlite3"
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE documents (doc_id TEXT PRIMARY KEY, path TEXT NOT NULL UNIQUE, "
        "file_name TEXT NOT NULL, sha256 TEXT NOT NULL DEFAULT '', size INTEGER NOT NULL "
        "DEFAULT 0, mtime REAL NOT NULL DEFAULT 0, pages INTEGER NOT NULL DEFAULT 0, chunks "
        "INTEGER NOT NULL DEFAULT 0, state TEXT NOT NULL, reason TEXT NOT NULL DEFAULT '', "
        "error TEXT NOT NULL DEFAULT '', page_unit TEXT NOT NULL DEFAULT 'page', indexed_at "
        "REAL NOT NULL DEFAULT 0, summary TEXT NOT NULL DEFAULT '')"
    )
    db.execute(
        "INSERT INTO documents (doc_id, path, file_name, state) VALUES ('a', '/x', 'x', 'ready')"
    )
    db.commit()
    db.close()
    cat = Catalog(path)
    try:
        (rec,) = cat.all()
        assert rec.index_format == "" and rec.state is DocState.READY
        assert [r.doc_id for r in cat.outdated("2:model")] == ["a"]
    finally:
        cat.close()


def test_documents_record_the_format_and_a_rescan_leaves_them(library: Path) -> None:
    with open_engine() as eng:
        eng.index([library])
        assert {r.index_format for r in eng.documents()} == {eng.embedder.index_format}
        again = eng.index([library])
        assert len(again.unchanged) == 2 and not again.indexed
        assert eng.indexer.outdated() == []


def test_an_older_format_is_reindexed_by_the_next_run_reusing_its_vectors(
    library: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with open_engine() as eng:
        first = eng.index([library])
        chunks = {r.file_name: r.chunks for r in eng.documents()}
    monkeypatch.setattr(
        docent.core.embedding, "INDEX_FORMAT", docent.core.embedding.INDEX_FORMAT + 1
    )
    with open_engine() as eng:
        assert sorted(r.file_name for r in eng.outdated) == ["keeper.txt", "options.md"]
        # Still searchable in the old format until re-indexed.
        assert eng.search("schooner wreck logbooks").hits
        report = eng.resume()
        assert sorted(Path(p).name for p in report.indexed) == ["keeper.txt", "options.md"]
        # The texts did not change: every dense vector is reused, none embedded again.
        assert report.chunks_embedded == 0 and report.chunks_reused == first.chunks_embedded
        assert eng.outdated == [] and eng.indexer.outdated() == []
        assert {r.file_name: r.chunks for r in eng.documents()} == chunks
        assert len(eng.index([library]).unchanged) == 2


def test_another_model_makes_every_document_outdated(library: Path) -> None:
    with open_engine() as eng:
        eng.index([library])
        eng.embedder.model_name = "another/model"
        assert len(eng.indexer.outdated()) == 2


def test_a_model_of_another_vector_size_re_indexes_instead_of_calling_the_store_damaged(
    library: Path, _isolated_home: Path
) -> None:
    """README: changing ``embedding_model`` re-indexes the library. A model whose vectors
    have another size (most that are not MiniLM) made the next start say the store was
    damaged, and every command failed until `--rebuild`."""
    s = load_settings(extract_in_subprocess=False)
    with Engine(s, embedder=FakeEmbedder()) as eng:
        eng.index([library])
    eng = Engine(s, embedder=FakeEmbedder("other-model-768", dim=64)).open()
    try:
        (note,) = eng.notes
        assert "embedding model changed" in note and "damaged" not in note, note
        assert "2 documents are queued to be indexed again" in note
        assert sorted(r.file_name for r in eng.recovered) == ["keeper.txt", "options.md"]
        assert {d.error for d in eng.documents()} == {OTHER_MODEL}
        assert [p.name.split("-")[0] for p in _isolated_home.glob("qdrant.*")] == ["qdrant.other"]
        report = eng.resume()
        assert sorted(Path(p).name for p in report.indexed) == ["keeper.txt", "options.md"]
        assert {d.state for d in eng.documents()} == {DocState.READY}
        assert eng.search("fog bell lighthouse keeper").hits[0].file_name == "keeper.txt"
    finally:
        eng.close()


def test_hits_show_the_documents_own_text_never_the_context(library: Path) -> None:
    with open_engine() as eng:
        eng.index([library])
        res = eng.search("keep a trace of the last instructions")
        (hit,) = [h for h in res.hits if h.file_name == "options.md"]
        assert hit.text.startswith("# Options") and "SET CPU HISTORY=n" in hit.text
        assert eng.store is not None
        (payload,) = eng.store.chunks_at([(hit.doc_id, hit.ordinal)])
        assert payload["context"] == "Options"
        assert not hit.text.startswith(payload["context"])
        # the title apart, for the rerank: a question naming it favours its document
        assert payload["title"] == "Options"
        named = eng.search("Which Options keep a trace of the last instructions?", debug=True)
        top = named.hits[0]
        assert top.file_name == "options.md" and top.debug["scores"]["title"] == 1.0


def test_the_text_cache_keeps_only_the_versions_a_document_has(tmp_path: Path) -> None:
    """Each edit of a file left its previous text in the cache for good (review); a copy of
    the old version elsewhere keeps it."""
    from fake_embedder import FakeEmbedder

    lib = tmp_path / "lib"
    lib.mkdir()
    journal, kept = lib / "journal.md", lib / "kept-copy.md"
    settings = load_settings(extract_in_subprocess=False)
    with Engine(settings, embedder=FakeEmbedder()).open() as eng:
        for day in range(1, 6):
            journal.write_text("# Journal\n\n" + "Another day at the lighthouse. " * (10 + day))
            if day == 2:
                kept.write_bytes(journal.read_bytes())  # this version lives on in a copy
            eng.index([lib])
        cached = {p.stem for p in settings.text_cache_path.rglob("*.json")}
        assert cached == {eng.resolve("journal.md").sha256, eng.resolve("kept-copy.md").sha256}
        eng.remove("journal.md")
        eng.remove("kept-copy.md")
        assert list(settings.text_cache_path.rglob("*.json")) == []
