"""`docent copy-store`: a library's points copied between the embedded store (Qdrant Edge)
and a Qdrant server (the stand-in of tests/qdrant_standin.py, over HTTP), or qdrant-client's
local mode; nothing re-embedded, and a copy cut short goes on where it stopped."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from docent.cli import main
from docent.core.config import load_settings, settings_file
from docent.core.engine import Engine
from docent.core.errors import SettingsError, StoreError, StoreUnavailable
from docent.core.store import Store, open_store
from docent.core.store_copy import copy_library
from docent.core.store_server import ServerOptions
from fake_embedder import CountingEmbedder, FakeEmbedder
from qdrant_standin import QdrantStandin, qdrant_standin

#: Each names a word only one line has (mark3x40: log3, line 40): one best hit.
QUERIES = ["mark0x5 lantern", "mark3x40 by the reef", "mark4x200", "fog signal harbour"]


@pytest.fixture
def standin() -> Iterator[QdrantStandin]:
    with qdrant_standin() as s:
        yield s


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    topics = ["lantern", "reef", "fog", "signal", "harbour", "tide", "keeper"]
    for n in range(5):
        lines = [
            f"Log mark{n}x{i}: the {topics[(n + i) % 7]} by the {topics[(n * 2 + i) % 7]} "
            f"on day {i}."
            for i in range(30 + 60 * n)
        ]
        (folder / f"log{n}.txt").write_text("\n".join(lines) + "\n")
    return folder


def _engine(embedder: FakeEmbedder | None = None, **settings: object) -> Engine:
    s = load_settings(extract_in_subprocess=False, qdrant_timeout=2, **settings)
    return Engine(s, embedder=embedder or FakeEmbedder()).open()


def _hits(eng: Engine) -> list[list[tuple[str, int]]]:
    return [[(h.file_name, h.ordinal) for h in eng.search(q, k=5).hits] for q in QUERIES]


def _points(store: Store, doc_ids: list[str]) -> tuple[list[object], np.ndarray]:
    """Every point of the documents: ids, sparse vectors and payloads; and the dense
    vectors (compared to float32 precision: a server keeps float32 and normalises
    cosine vectors again)."""
    points = [p for d in doc_ids for p in store.export_chunks(d)]
    exact = [(p.id, p.sparse.indices, p.sparse.values, p.payload) for p in points]
    return exact, np.asarray([p.dense for p in points])


def test_a_library_moves_to_a_server_and_back_without_re_embedding(
    standin: QdrantStandin, docs: Path
) -> None:
    embedder = CountingEmbedder()
    with _engine(embedder) as eng:
        eng.index([docs])
        before, embedded = _hits(eng), embedder.embedded
        ids = [d.doc_id for d in eng.documents()]
        report = eng.copy_store(standin.url)
        assert len(report.copied) == 5 and report.points == sum(d.chunks for d in eng.documents())
        assert embedder.embedded == embedded, "copying embedded something"
        source = _points(eng._store, ids)
    server = open_store(server=ServerOptions(url=standin.url))
    try:
        exact, dense = _points(server, ids)
        assert exact == source[0], "an id, sparse vector or payload changed on the way"
        assert dense.shape == source[1].shape and np.allclose(dense, source[1], atol=1e-6)
    finally:
        server.close()
    with _engine(embedder, qdrant_url=standin.url) as eng:
        assert not eng.notes and not eng.recovered, "the server and the catalog agree"
        # Edge and the server rank ties their own way: the best hit of a query that has one
        # agrees (the last query has none).
        assert [h[0] for h in _hits(eng)][:3] == [h[0] for h in before][:3]
        again = eng.index([docs])
        assert len(again.unchanged) == 5 and again.chunks_embedded == 0
        # ... and back, into a fresh embedded store (the old one set aside by the user)
        (eng.settings.store_path).rename(eng.settings.store_path.with_name("qdrant-old"))
        back = eng.copy_store("embedded")
        assert len(back.copied) == 5
    with _engine(embedder) as eng:
        assert not eng.notes
        assert [h[0] for h in _hits(eng)][:3] == [h[0] for h in before][:3]
        exact, dense = _points(eng._store, ids)
        assert exact == source[0] and np.allclose(dense, source[1], atol=1e-6)
    assert embedder.embedded == embedded


def test_a_copy_cut_short_goes_on_where_it_stopped(standin: QdrantStandin, docs: Path) -> None:
    with _engine() as eng:
        eng.index([docs])
        # Some documents land whole (chunks, then the document point), then the server
        # drops every request: the copy stops in the middle of a document.
        standin.fault, standin.fault_after_writes = "drop", 4
        with pytest.raises(StoreUnavailable) as err:
            eng.copy_store(standin.url)
        landed = {str(p["doc_id"]) for p in _server_documents(standin)}
        assert 0 < len(landed) < 5
        assert "dropped the connection" in str(err.value)
        assert f"Copying stopped with {len(landed)} of 5 documents" in str(err.value)
        assert "indexed" not in str(err.value)
        standin.fault_after_writes = None
        report = eng.copy_store(standin.url)
        paths = {d.doc_id: d.path for d in eng.documents()}
        assert sorted(report.already) == sorted(paths[d] for d in landed)
        assert len(report.copied) == 5 - len(landed)
        total = sum(d.chunks for d in eng.documents())
    assert standin.local.count("chunks", exact=True).count == total
    assert standin.local.count("documents", exact=True).count == 5


def _server_documents(standin: QdrantStandin) -> list[dict[str, object]]:
    records, _ = standin.local.scroll("documents", limit=100, with_payload=True)
    return [dict(r.payload or {}) for r in records]


def test_a_document_re_indexed_since_is_copied_again(tmp_path: Path, docs: Path) -> None:
    local = str(tmp_path / "local-mode")
    with _engine() as eng:
        eng.index([docs])
        target = open_store(local_client_path=local)
        try:
            first = copy_library(eng._cat, eng._store, target, where="local mode")
            assert len(first.copied) == 5
            (docs / "log0.txt").write_text("A new log about the keeper's lantern.\n")
            eng.index([docs])
            second = copy_library(eng._cat, eng._store, target, where="local mode")
            assert [Path(p).name for p in second.copied] == ["log0.txt"]
            doc = eng.resolve("log0.txt")
            assert target.count_chunks(doc.doc_id) == doc.chunks == 1
        finally:
            target.close()


def test_a_document_renamed_or_regrouped_since_is_copied_again(tmp_path: Path, docs: Path) -> None:
    """Neither changes the content nor when it was indexed: the target kept the old path
    and collections, said "already there" (review)."""
    local = str(tmp_path / "local-mode")
    embedder = CountingEmbedder()
    with _engine(embedder) as eng:
        eng.index([docs])
        target = open_store(local_client_path=local)
        try:
            copy_library(eng._cat, eng._store, target, where="local mode")
            (docs / "log0.txt").rename(docs / "log-zero.txt")
            work = eng.create_collection("Work")
            eng.indexer.set_collections(eng.resolve("log1.txt"), [work.id])
            embedded = embedder.embedded
            eng.index([docs])
            assert embedder.embedded == embedded  # a rename re-embeds nothing
            second = copy_library(eng._cat, eng._store, target, where="local mode")
            assert sorted(Path(p).name for p in second.copied) == ["log-zero.txt", "log1.txt"]
            renamed, moved = eng.resolve("log-zero.txt"), eng.resolve("log1.txt")
            (first, _), *_ = target.iter_chunks(renamed.doc_id)
            assert first["file_name"] == "log-zero.txt"
            assert (target.get_document(renamed.doc_id) or {})["path"] == renamed.path
            (chunk, _), *_ = target.iter_chunks(moved.doc_id)
            assert chunk["collections"] == [work.id]
            third = copy_library(eng._cat, eng._store, target, where="local mode")
            assert not third.copied and len(third.already) == 5
        finally:
            target.close()


def test_a_target_holding_another_library_is_refused_unless_pruned(
    standin: QdrantStandin, docs: Path, tmp_path: Path
) -> None:
    with _engine(qdrant_url=standin.url) as other:
        other.index([docs / "log1.txt"])
    with _engine(data_dir=str(tmp_path / "mine")) as eng:
        eng.index([docs / "log2.txt"])
        with pytest.raises(StoreError, match="already holds 1 document.*--prune"):
            eng.copy_store(standin.url)
        report = eng.copy_store(standin.url, prune=True)
        assert report.pruned == 1 and len(report.copied) == 1
    assert standin.local.count("documents", exact=True).count == 1


def test_a_bad_target_names_the_setting(docs: Path) -> None:
    with _engine() as eng:
        with pytest.raises(SettingsError, match="qdrant_url.*http://"):
            eng.copy_store("localhost:6333")
        with pytest.raises(StoreError, match="embedded store already"):
            eng.copy_store("embedded")


def test_the_command_copies_with_progress_and_switches_with_use(
    standin: QdrantStandin,
    docs: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DOCENT_EXTRACT_IN_SUBPROCESS", "false")
    monkeypatch.setattr("docent.core.engine.Embedder", lambda *a, **k: FakeEmbedder())
    assert main(["index", "-q", str(docs)]) == 0
    capsys.readouterr()
    assert main(["copy-store", standin.url, "--use"]) == 0
    out, err = capsys.readouterr()
    assert "copied 5 documents" in out and "nothing re-embedded" in out
    assert f"Docent now uses {standin.url}" in out
    assert "[5/5] copied: log4.txt" in err
    assert f'qdrant_url = "{standin.url}"' in settings_file().read_text()
    assert main(["status", "--json"]) == 0
    assert '"backend": "qdrant-server"' in capsys.readouterr().out
    assert main(["copy-store", standin.url]) == 1
    assert "is on " + standin.url + " already" in capsys.readouterr().err
