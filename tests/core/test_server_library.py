"""A library on a Qdrant server (the stand-in of tests/qdrant_standin.py, over real HTTP):
indexing and searching through the Engine, and a server lost mid-index, which keeps
what it acknowledged and leaves the rest for the next run."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from docent.core.config import load_settings
from docent.core.engine import Engine
from docent.core.errors import StoreUnavailable
from docent.core.models import DocState
from docent.core.store import CHUNKS, DOCUMENTS
from fake_embedder import FakeEmbedder
from qdrant_standin import QdrantStandin, qdrant_standin

_TOPICS = ["lighthouse", "harbour", "keeper", "lantern", "fog", "signal", "tide", "reef"]


def _text(words: int, seed: int) -> str:
    """Prose of ``words`` words in sentences that differ (so no chunk repeats another)."""
    out: list[str] = []
    i = 0
    while len(out) < words:
        a, b = _TOPICS[(i + seed) % 8], _TOPICS[(i * 3 + seed) % 8]
        out += f"Note {seed}.{i} says the {a} near the {b} was checked on day {i}.".split()
        i += 1
    return " ".join(out) + "\n"


@pytest.fixture
def library(tmp_path: Path) -> Path:
    """a.txt: one chunk; b.txt: several upserts' worth (EMBED_BATCH is 32 chunks); c.txt."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text(_text(60, 1))
    (docs / "b.txt").write_text(_text(12000, 2))
    (docs / "c.txt").write_text(_text(60, 3))
    return docs


@pytest.fixture
def standin() -> Iterator[QdrantStandin]:
    with qdrant_standin() as s:
        yield s


def _engine(url: str) -> Engine:
    settings = load_settings(extract_in_subprocess=False, qdrant_url=url, qdrant_timeout=1)
    return Engine(settings, embedder=FakeEmbedder()).open()


def _on_server(standin: QdrantStandin, doc_id: str) -> tuple[int, int]:
    """The chunks and document points the server holds for ``doc_id``."""
    from qdrant_client import models as qm

    flt = qm.Filter(must=[qm.FieldCondition(key="doc_id", match=qm.MatchValue(value=doc_id))])
    return (
        standin.local.count(CHUNKS, count_filter=flt, exact=True).count,
        standin.local.count(DOCUMENTS, count_filter=flt, exact=True).count,
    )


def test_a_library_on_a_server_indexes_searches_and_reopens(
    standin: QdrantStandin, library: Path
) -> None:
    with _engine(standin.url) as eng:
        report = eng.index([library])
        assert len(report.indexed) == 3 and not report.failed
        status = eng.status()
        assert status.backend == "qdrant-server" and status.store == standin.url
        hits = eng.search("lantern near the reef").hits
        assert hits and all(h.file_name in {"a.txt", "b.txt", "c.txt"} for h in hits)
        docs = {d.file_name: d for d in eng.documents()}
        assert docs["b.txt"].chunks > 40
    for d in docs.values():
        assert _on_server(standin, d.doc_id) == (d.chunks, 1)
    with _engine(standin.url) as eng:
        again = eng.index([library])
        assert len(again.unchanged) == 3 and again.chunks_embedded == 0
        assert not eng.notes, "the catalog and the server agreed"


@pytest.mark.parametrize("fault", ["drop", "refuse", "stall"])
def test_a_server_lost_mid_index_keeps_what_it_took_and_the_next_run_redoes_the_rest(
    standin: QdrantStandin, library: Path, fault: str
) -> None:
    # a.txt: its chunks and its document point (2 writes); b.txt: its first batch (1).
    standin.fault, standin.fault_after_writes = fault, 3
    with _engine(standin.url) as eng:
        with pytest.raises(StoreUnavailable) as err:
            eng.index([library])
        docs = {d.file_name: d for d in eng.documents()}
        if fault != "refuse":  # the server is back, the half-written document is not
            standin.fault_after_writes = None
            searchable = {h.file_name for h in eng.search("lantern near the reef").hits}
            assert "a.txt" in searchable and "b.txt" not in searchable
    msg = str(err.value)
    assert standin.url in msg and "while trying to" in msg
    assert {"drop": "dropped the connection", "refuse": "cannot be reached"}.get(
        fault, "did not answer within 1 s (qdrant_timeout)"
    ) in msg
    assert "not marked ready" in msg and "next run" in msg
    # What the server acknowledged is ready; what it did not take never says so.
    assert docs["a.txt"].state is DocState.READY
    assert _on_server(standin, docs["a.txt"].doc_id) == (docs["a.txt"].chunks, 1)
    assert docs["b.txt"].state is DocState.INDEXING  # its points could not be dropped
    assert docs["c.txt"].state is DocState.QUEUED  # the rest of the run: listed, queued
    assert "not marked ready" in docs["c.txt"].error

    if fault == "refuse":  # the server comes back where it was, with what it had
        assert standin.closed.wait(10)
        back = QdrantStandin(port=standin.port, local=standin.local).start()
    else:
        back = standin
    try:
        with _engine(back.url) as eng:
            assert sorted(r.file_name for r in eng.recovered) == ["b.txt", "c.txt"]
            report = eng.index([library])
            docs = {d.file_name: d for d in eng.documents()}
    finally:
        if back is not standin:
            back.stop()
    assert [Path(p).name for p in report.unchanged] == ["a.txt"]
    assert sorted(Path(p).name for p in report.indexed) == ["b.txt", "c.txt"]
    for d in docs.values():
        assert d.state is DocState.READY
        assert _on_server(standin, d.doc_id) == (d.chunks, 1)


def test_a_document_whose_points_the_server_lost_alone_is_queued_again(
    standin: QdrantStandin, library: Path
) -> None:
    from qdrant_client import models as qm

    with _engine(standin.url) as eng:
        eng.index([library])
        lost = eng.resolve("c.txt")
    flt = qm.Filter(must=[qm.FieldCondition(key="doc_id", match=qm.MatchValue(value=lost.doc_id))])
    standin.local.delete(CHUNKS, points_selector=qm.FilterSelector(filter=flt))
    with _engine(standin.url) as eng:
        assert [r.file_name for r in eng.recovered] == ["c.txt"]
        assert eng.notes == [n for n in eng.notes if "passages of 1 ready document" in n]
        assert len(eng.notes) == 1, "nothing else was taken for lost or unknown"
        report = eng.index([library])
        assert [Path(p).name for p in report.indexed] == ["c.txt"]
        assert len(report.unchanged) == 2
