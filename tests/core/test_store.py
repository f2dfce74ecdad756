"""The store on both backends: Qdrant Edge (embedded) and qdrant-client local mode.

Vectors are synthetic but real: seeded random unit vectors for the dense space, and sparse
vectors built from the words of each text, so BM25-like ranking behaves as it would.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from docent.core.errors import StoreError, StoreLocked, StoreOfAnotherModel
from docent.core.models import SparseVec
from docent.core.sentence_vectors import pack, unpack
from docent.core.store import (
    SCROLL_PAGE,
    SENTENCES,
    UPSERT_BATCH,
    ChunkPoint,
    Store,
    chunk_point_id,
    document_point_id,
    open_store,
)
from docent.core.store_client import ClientStore
from docent.core.store_edge import EdgeStore
from docent.core.store_server import ServerOptions
from qdrant_standin import qdrant_standin

DIM = 384
_VOCAB: dict[str, int] = {}


def unit(
    rng: np.random.Generator, near: list[float] | None = None, noise: float = 0.0
) -> list[float]:
    v = rng.normal(size=DIM)
    if near is not None:
        v = np.asarray(near) + noise * v / np.linalg.norm(v)
    return (v / np.linalg.norm(v)).tolist()


def sparse_of(text: str, weight: float = 1.0) -> SparseVec:
    words = sorted({w.strip(".,").lower() for w in text.split()})
    return SparseVec([_VOCAB.setdefault(w, len(_VOCAB) + 1) for w in words], [weight] * len(words))


def point(
    doc_id: str,
    ordinal: int,
    text: str,
    dense: list[float],
    sparse: SparseVec | None = None,
    content_hash: str | None = None,
) -> ChunkPoint:
    return ChunkPoint(
        id=chunk_point_id(doc_id, ordinal),
        dense=dense,
        sparse=sparse if sparse is not None else sparse_of(text),
        payload={
            "doc_id": doc_id,
            "path": f"/docs/{doc_id}.pdf",
            "file_name": f"{doc_id}.pdf",
            "page_start": ordinal + 1,
            "page_end": ordinal + 1,
            "ordinal": ordinal,
            "text": text,
            "content_hash": content_hash or f"{doc_id}-{ordinal}",
            "heading": "",
        },
    )


@pytest.fixture(params=["edge", "client", "server"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """``server``: the client over HTTP to a stand-in Qdrant server (tests/qdrant_standin)."""
    if request.param == "server":
        with qdrant_standin() as standin:
            s = open_store(server=ServerOptions(url=standin.url))
            yield s
            s.close()
        return
    if request.param == "edge":
        s = open_store(path=tmp_path / "qdrant")
        assert isinstance(s, EdgeStore)
    else:
        s = open_store(local_client_path=":memory:")
        assert isinstance(s, ClientStore)
    yield s
    s.close()


class Corpus:
    """Three documents. T is close to the query in both spaces, D1 only in the dense
    space (closer than T), D2 only in the sparse space (heavier than T)."""

    def __init__(self, store: Store) -> None:
        rng = np.random.default_rng(7)
        self.q_dense = unit(rng)
        self.q_sparse = sparse_of("flux capacitor")
        anti = (-np.asarray(self.q_dense)).tolist()
        self.t = point(
            "alpha", 1, "The flux capacitor needs calibration.", unit(rng, self.q_dense, 0.6)
        )
        self.d1 = point("beta", 2, "Unrelated words about gardens.", unit(rng, self.q_dense, 0.3))
        self.d2 = point(
            "gamma",
            0,
            "Flux capacitor, flux capacitor everywhere.",
            unit(rng, anti, 0.5),
            sparse_of("flux capacitor everywhere", weight=3.0),
        )
        filler = [
            "The Terminal is connected to the main board.",
            "Set the terminals everywhere before powering on.",
            "A TERMINAL window opens on start.",
            "Calibration of sensors happens yearly.",
            "Batteries last about ten hours.",
            "The manual covers installation and safety.",
        ]
        points = [self.t, self.d1, self.d2]
        slots = [("alpha", 0), ("alpha", 2), ("beta", 0), ("alpha", 3), ("beta", 1), ("gamma", 1)]
        for (doc, ordinal), text in zip(slots, filler, strict=True):
            points.append(point(doc, ordinal, text, unit(rng)))
        store.upsert_chunks(points)
        self.points = points


@pytest.fixture
def corpus(store: Store) -> Corpus:
    return Corpus(store)


# Chunks: writing -------------------------------------------------------------------------


def test_upsert_count_and_delete_from_ordinal(store: Store, corpus: Corpus) -> None:
    assert store.count_chunks() == 9
    assert store.count_chunks("alpha") == 4
    assert store.count_chunks("nope") == 0

    store.delete_chunks("alpha", from_ordinal=2)
    assert [p["ordinal"] for p, _ in store.iter_chunks("alpha")] == [0, 1]
    store.delete_chunks("beta")
    assert store.count_chunks("beta") == 0
    assert store.count_chunks() == 4


def test_upsert_same_id_overwrites(store: Store, corpus: Corpus) -> None:
    again = point("alpha", 1, "Rewritten text.", corpus.t.dense)
    store.upsert_chunks([again])
    assert store.count_chunks("alpha") == 4
    assert store.chunks_at([("alpha", 1)])[0]["text"] == "Rewritten text."


def test_set_chunks_payload_merges(store: Store, corpus: Corpus) -> None:
    store.set_chunks_payload("alpha", {"path": "/moved/new.pdf", "file_name": "new.pdf"})
    rows = store.iter_chunks("alpha")
    assert {p["file_name"] for p, _ in rows} == {"new.pdf"}
    assert {p["path"] for p, _ in rows} == {"/moved/new.pdf"}
    assert rows[1][0]["text"] == corpus.t.payload["text"]
    assert {p["file_name"] for p, _ in store.iter_chunks("beta")} == {"beta.pdf"}


def test_upsert_more_than_one_batch(store: Store) -> None:
    n = SCROLL_PAGE + 50  # also more than one scroll page
    rng = np.random.default_rng(1)
    points = [point("big", i, f"chunk number {i}", unit(rng)) for i in range(n)]
    calls = _count_writes(store)
    store.upsert_chunks(points)
    assert calls == [UPSERT_BATCH] * (n // UPSERT_BATCH) + [n % UPSERT_BATCH]
    assert store.count_chunks("big") == n
    assert [p["ordinal"] for p, _ in store.iter_chunks("big")] == list(range(n))


def _count_writes(store: Store) -> list[int]:
    """Record how many points each write to the backend carries."""
    sizes: list[int] = []
    if isinstance(store, EdgeStore):
        import qdrant_edge as qe

        real = store._chunks

        class Spy:
            # Edge's UpdateOperation is opaque: measure a write by the points it adds.
            def update(self, op: Any) -> None:
                before = real.count(qe.CountRequest(exact=True))
                real.update(op)
                sizes.append(real.count(qe.CountRequest(exact=True)) - before)

            def __getattr__(self, name: str) -> Any:
                return getattr(real, name)

        store._chunks = Spy()  # type: ignore[assignment]
    else:
        assert isinstance(store, ClientStore)
        real_upsert = store._client.upsert

        def upsert(name: str, points: list[Any], **kw: Any) -> Any:
            sizes.append(len(points))
            return real_upsert(name, points, **kw)

        store._client.upsert = upsert  # type: ignore[method-assign,assignment]
    return sizes


# Chunks: reading -------------------------------------------------------------------------


def test_chunks_at_places_of_several_documents(store: Store, corpus: Corpus) -> None:
    got = store.chunks_at([("beta", 0), ("alpha", 3), ("alpha", 0), ("alpha", 99), ("alpha", 0)])
    assert [(p["doc_id"], p["ordinal"]) for p in got] == [("alpha", 0), ("alpha", 3), ("beta", 0)]
    assert got[0]["text"] == "The Terminal is connected to the main board."
    assert "text_lower" not in got[0]
    assert store.chunks_at([("alpha", -1), ("nobody", 0)]) == []
    assert store.chunks_at([]) == []


def test_iter_chunks_ordered_with_vectors(store: Store, corpus: Corpus) -> None:
    rows = store.iter_chunks("alpha", with_vectors=True)
    assert [p["ordinal"] for p, _ in rows] == [0, 1, 2, 3]
    vec = rows[1][1]
    assert vec is not None and np.allclose(vec, corpus.t.dense, atol=1e-5)
    assert all(v is None for _, v in store.iter_chunks("alpha"))
    assert store.iter_chunks("nope") == []


def test_vectors_by_content_hash(store: Store) -> None:
    rng = np.random.default_rng(3)
    shared = unit(rng)
    a = point("a", 0, "same words", shared, content_hash="h-same")
    a.payload[SENTENCES] = pack([shared, unit(rng)])
    b = point("b", 5, "same words", shared, content_hash="h-same")
    b.payload[SENTENCES] = a.payload[SENTENCES]
    c = point("c", 0, "other words here", unit(rng), content_hash="h-other")  # stored before
    store.upsert_chunks([a, b, c])

    got = store.vectors_by_content_hash(["h-same", "h-missing", "h-other", "h-same"])
    assert set(got) == {"h-same", "h-other"}
    assert np.allclose(got["h-same"].dense, shared, atol=1e-5)
    assert got["h-same"].sentences == a.payload[SENTENCES]
    assert np.allclose(got["h-other"].dense, c.dense, atol=1e-5)
    assert got["h-other"].sentences == ""  # indexed before sentence vectors were kept
    assert store.vectors_by_content_hash([]) == {}


def test_dense_vectors_by_id(store: Store) -> None:
    """The retrieval evaluation reads the best passage's own vector by its id."""
    rng = np.random.default_rng(5)
    a, b = unit(rng), unit(rng)
    store.upsert_chunks([point("doc", 0, "lamp", a), point("doc", 1, "bell", b)])
    got = store.dense_vectors([chunk_point_id("doc", 1), chunk_point_id("doc", 9)])
    assert list(got) == [chunk_point_id("doc", 1)]
    assert np.allclose(got[chunk_point_id("doc", 1)], b, atol=1e-5)
    assert store.dense_vectors([]) == {}


def test_sentence_vectors_are_read_only_where_asked(store: Store) -> None:
    """The rerank reads them by id; searches, reads by place, grep and iter_chunks leave
    them out (2-3 kB a chunk); a copy (export) keeps them."""
    rng = np.random.default_rng(4)
    dense = unit(rng)
    with_them = point("doc", 0, "the harbour lamp burns all night", dense)
    with_them.payload[SENTENCES] = pack([dense, unit(rng)])
    without = point("doc", 1, "the harbour bell rings in fog", unit(rng))
    store.upsert_chunks([with_them, without])

    got = store.sentence_vectors([with_them.id, without.id, chunk_point_id("doc", 9)])
    assert got == {with_them.id: with_them.payload[SENTENCES], without.id: ""}
    assert store.sentence_vectors([]) == {}
    assert np.allclose(unpack(got[with_them.id], DIM)[0], dense, atol=0.01)

    payloads = [p.payload for p in store.query(dense=dense, limit=5)]
    payloads += [p.payload for p in store.query(sparse=sparse_of("harbour lamp"), limit=5)]
    payloads += store.chunks_at([("doc", 0), ("doc", 1)])
    payloads += [p.payload for p in store.grep("harbour")]
    payloads += [p for p, _ in store.iter_chunks("doc")]
    assert payloads and all(SENTENCES not in p for p in payloads)
    exported = {p.id: p.payload for p in store.export_chunks("doc")}
    assert exported[with_them.id][SENTENCES] == with_them.payload[SENTENCES]


# Chunks: search --------------------------------------------------------------------------


def test_hybrid_puts_the_point_close_in_both_spaces_first(store: Store, corpus: Corpus) -> None:
    hits = store.query(dense=corpus.q_dense, sparse=corpus.q_sparse, limit=5)
    assert hits[0].id == corpus.t.id
    assert hits[0].payload["text"] == corpus.t.payload["text"]
    assert "text_lower" not in hits[0].payload
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert hits[0].score < 0.1  # an RRF score, not a cosine


def test_dense_only_and_sparse_only(store: Store, corpus: Corpus) -> None:
    dense_hits = store.query(dense=corpus.q_dense, limit=3)
    assert [h.id for h in dense_hits[:2]] == [corpus.d1.id, corpus.t.id]
    expected = float(np.dot(corpus.q_dense, corpus.d1.dense))
    assert dense_hits[0].score == pytest.approx(expected, abs=1e-4)

    sparse_hits = store.query(sparse=corpus.q_sparse, limit=5)
    assert [h.id for h in sparse_hits] == [corpus.d2.id, corpus.t.id]  # only these have the words
    assert sparse_hits[0].score > sparse_hits[1].score > 0


def test_query_filters(store: Store, corpus: Corpus) -> None:
    only_beta = store.query(dense=corpus.q_dense, sparse=corpus.q_sparse, doc_ids=["beta"])
    assert only_beta and {h.payload["doc_id"] for h in only_beta} == {"beta"}
    assert only_beta[0].id == corpus.d1.id

    without_alpha = store.query(
        dense=corpus.q_dense, sparse=corpus.q_sparse, exclude_doc_ids=["alpha"], limit=20
    )
    docs = {h.payload["doc_id"] for h in without_alpha}
    assert docs == {"beta", "gamma"}

    sparse_in_alpha = store.query(sparse=corpus.q_sparse, doc_ids=["alpha", "beta"])
    assert [h.id for h in sparse_in_alpha] == [corpus.t.id]
    assert store.query(dense=corpus.q_dense, doc_ids=[]) == []


def test_query_without_usable_vectors_is_empty(store: Store, corpus: Corpus) -> None:
    assert store.query() == []
    assert store.query(sparse=SparseVec([], [])) == []
    empty_sparse = store.query(dense=corpus.q_dense, sparse=SparseVec([], []), limit=1)
    assert [h.id for h in empty_sparse] == [corpus.d1.id]  # falls back to dense alone


def test_text_match_whole_words_case_insensitive(store: Store, corpus: Corpus) -> None:
    hits = store.text_match("terminal")
    texts = {h.payload["text"] for h in hits}
    assert texts == {
        "The Terminal is connected to the main board.",
        "A TERMINAL window opens on start.",
    }  # "terminals" is another word
    assert all(h.score == 0.0 for h in hits)
    assert "text_lower" not in hits[0].payload

    both = store.text_match("BOARD terminal")
    assert [h.payload["text"] for h in both] == ["The Terminal is connected to the main board."]
    assert store.text_match("terminal unicorn") == []
    assert store.text_match("   ") == []


def test_chunks_on_pages_reads_the_chunks_overlapping_those_pages(store: Store) -> None:
    """A passage over pages 2-3 is on page 3 and on page 2; the range's ends count."""
    rng = np.random.default_rng(3)
    spans = [(1, 1), (2, 3), (3, 3), (4, 5), (6, 6)]
    points = []
    for i, (a, b) in enumerate(spans):
        p = point("alpha", i, f"passage {i}", unit(rng))
        points.append(replace(p, payload={**p.payload, "page_start": a, "page_end": b}))
    points.append(point("beta", 2, "beta's page 3", unit(rng)))
    store.upsert_chunks(points)

    def on(doc_ids: list[str], first: int, last: int) -> set[tuple[str, int]]:
        got = store.chunks_on_pages(doc_ids, [(first, last)])
        return {(str(p.payload["doc_id"]), int(p.payload["ordinal"])) for p in got}

    assert on(["alpha"], 3, 3) == {("alpha", 1), ("alpha", 2)}
    assert on(["alpha"], 2, 2) == {("alpha", 1)}
    assert on(["alpha"], 5, 6) == {("alpha", 3), ("alpha", 4)}
    assert on(["alpha", "beta"], 3, 3) == {("alpha", 1), ("alpha", 2), ("beta", 2)}
    assert on(["alpha"], 7, 9) == set() and on([], 3, 3) == set()
    # pages 1 and 6: two ranges, each passage once
    both = store.chunks_on_pages(["alpha"], [(1, 1), (6, 6), (1, 1)])
    assert sorted(int(p.payload["ordinal"]) for p in both) == [0, 4]


def test_text_match_filters(store: Store, corpus: Corpus) -> None:
    # the word "terminal" is in alpha (ordinal 0) and beta (ordinal 0)
    assert {h.payload["doc_id"] for h in store.text_match("terminal", doc_ids=["beta"])} == {"beta"}
    rest = store.text_match("terminal", exclude_doc_ids=["beta"])
    assert {h.payload["doc_id"] for h in rest} == {"alpha"}
    assert store.text_match("terminal", doc_ids=[]) == []
    assert len(store.text_match("terminal", limit=1)) == 1


def test_grep_case_insensitive_substring(store: Store, corpus: Corpus) -> None:
    texts = {h.payload["text"] for h in store.grep("TERMINAL")}
    assert texts == {
        "The Terminal is connected to the main board.",
        "Set the terminals everywhere before powering on.",
        "A TERMINAL window opens on start.",
    }
    inside = {h.payload["text"] for h in store.grep("apacit")}  # inside "capacitor"
    assert inside == {corpus.t.payload["text"], corpus.d2.payload["text"]}
    assert {h.payload["text"] for h in store.grep("main bo")} == {
        "The Terminal is connected to the main board."
    }
    assert len(store.grep("e", limit=2)) == 2
    assert store.grep("zebra") == []
    assert store.grep("") == []
    assert "text_lower" not in store.grep("terminal")[0].payload


# Documents -------------------------------------------------------------------------------


def test_documents_collection(store: Store) -> None:
    rng = np.random.default_rng(11)
    vecs = {d: unit(rng) for d in ("a", "b", "c")}
    for d, v in vecs.items():
        store.upsert_document(d, v, {"path": f"/x/{d}.pdf", "state": "ready", "chunks": 3})

    hits = store.query_documents(unit(rng, vecs["b"], 0.2), limit=2)
    assert len(hits) == 2
    assert hits[0].payload["doc_id"] == "b"
    assert hits[0].id == document_point_id("b")
    assert hits[0].score > hits[1].score

    assert store.get_document("a") == {
        "path": "/x/a.pdf",
        "state": "ready",
        "chunks": 3,
        "doc_id": "a",
    }
    assert store.get_document("zzz") is None

    store.set_document_payload("a", {"state": "indexing", "summary": "About A."})
    got = store.get_document("a")
    assert got is not None and got["state"] == "indexing" and got["summary"] == "About A."
    assert got["path"] == "/x/a.pdf"
    store.set_document_payload("zzz", {"state": "ready"})  # no such document: no-op
    assert store.get_document("zzz") is None

    store.delete_document("a")
    assert store.get_document("a") is None
    assert {h.payload["doc_id"] for h in store.query_documents(vecs["a"])} == {"b", "c"}


# Lifecycle -------------------------------------------------------------------------------


def test_closed_store_raises_store_error(store: Store) -> None:
    store.close()
    store.close()  # twice is fine
    with pytest.raises(StoreError, match="closed"):
        store.count_chunks()


def test_backend_failure_is_a_store_error(store: Store) -> None:
    bad = point("bad", 0, "wrong size vector", [0.5] * 8)
    with pytest.raises(StoreError):
        store.upsert_chunks([bad])
    assert store.count_chunks() == 0


def test_concurrent_reads_and_writes(store: Store, corpus: Corpus) -> None:
    rng = np.random.default_rng(5)
    points = [point("conc", i, f"concurrent text {i}", unit(rng)) for i in range(150)]
    errors: list[BaseException] = []

    def write() -> None:
        try:
            for i in range(0, len(points), 10):
                store.upsert_chunks(points[i : i + 10])
        except BaseException as exc:
            errors.append(exc)

    writer = threading.Thread(target=write)
    writer.start()
    for _ in range(20):
        assert (
            store.query(dense=corpus.q_dense, sparse=corpus.q_sparse, limit=3)[0].id == corpus.t.id
        )
    writer.join()
    assert errors == []
    assert store.count_chunks("conc") == 150


def test_edge_persists_across_close_and_reopen(tmp_path: Path) -> None:
    path = tmp_path / "qdrant"
    with EdgeStore(path) as s:
        corpus = Corpus(s)
        s.upsert_document("alpha", corpus.t.dense, {"state": "ready"})
    assert (path / "chunks").is_dir() and (path / "documents").is_dir()

    with EdgeStore(path) as s:
        assert s.count_chunks() == 9
        assert s.query(dense=corpus.q_dense, sparse=corpus.q_sparse)[0].id == corpus.t.id
        assert len(s.text_match("terminal")) == 2  # the text index came back too
        assert len(s.grep("TERMINAL")) == 3
        assert s.get_document("alpha") == {"state": "ready", "doc_id": "alpha"}


def test_edge_explicit_optimize_keeps_data(tmp_path: Path) -> None:
    with EdgeStore(tmp_path / "qdrant") as s:
        corpus = Corpus(s)
        assert isinstance(s.optimize(), bool)
        assert s.count_chunks() == 9
        assert s.query(dense=corpus.q_dense, sparse=corpus.q_sparse)[0].id == corpus.t.id
        assert len(s.text_match("terminal")) == 2


def test_edge_clears_leftover_temp_segments(tmp_path: Path) -> None:
    path = tmp_path / "qdrant"
    with EdgeStore(path) as s:
        Corpus(s)
    leftover = path / "chunks" / "temp_segments" / "half-optimized"
    leftover.mkdir(parents=True)
    with EdgeStore(path) as s:
        assert not leftover.parent.exists()
        assert s.count_chunks() == 9


def test_edge_second_open_in_same_process_is_locked(tmp_path: Path) -> None:
    path = tmp_path / "qdrant"
    with EdgeStore(path) as first:
        with pytest.raises(
            StoreLocked, match=r"Another Docent is using .*qdrant; close it first\."
        ):
            EdgeStore(path)
        assert first.count_chunks() == 0  # the failed open left the first one working
    with EdgeStore(path) as again:  # and closing released the lock
        assert again.count_chunks() == 0


def test_edge_shard_held_by_another_program_is_locked(tmp_path: Path) -> None:
    import qdrant_edge as qe

    path = tmp_path / "qdrant"
    EdgeStore(path).close()
    shard = qe.EdgeShard.load(str(path / "documents"))  # not via Docent: no docent.lock
    try:
        with pytest.raises(StoreLocked, match="close it first"):
            EdgeStore(path)
    finally:
        shard.close()
    EdgeStore(path).close()


def test_edge_second_open_from_another_process_is_locked(tmp_path: Path) -> None:
    path = tmp_path / "qdrant"
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from docent.core.errors import StoreLocked\n"
        "from docent.core.store import open_store\n"
        "try:\n"
        "    open_store(path=Path(sys.argv[1])).close()\n"
        "except StoreLocked as exc:\n"
        "    print(exc)\n"
        "    sys.exit(3)\n"
    )
    with EdgeStore(path):
        held = subprocess.run(
            [sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=120
        )
    assert held.returncode == 3, held.stderr
    assert "close it first" in held.stdout
    free = subprocess.run(
        [sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=120
    )
    assert free.returncode == 0, free.stderr


def test_a_store_of_another_vector_size_says_so_not_damaged(tmp_path: Path) -> None:
    """Another embedding model's store (vectors of another size) is told apart from a
    damaged one: the engine sets the embedded one aside and re-indexes; a server's
    collections are the user's to delete, and the sentence says so."""
    path = tmp_path / "qdrant"
    EdgeStore(path).close()
    with pytest.raises(StoreOfAnotherModel) as err:
        EdgeStore(path, dim=64)
    assert (err.value.stored, err.value.wanted) == (384, 64)
    EdgeStore(path).close()  # the refused open let its lock go
    with qdrant_standin() as standin:
        open_store(server=ServerOptions(url=standin.url)).close()
        with pytest.raises(StoreOfAnotherModel, match="Set embedding_model back"):
            open_store(server=ServerOptions(url=standin.url), dim=64)


def test_point_ids_are_deterministic_uuids() -> None:
    assert chunk_point_id("doc", 3) == chunk_point_id("doc", 3)
    assert chunk_point_id("doc", 3) != chunk_point_id("doc", 4)
    assert document_point_id("doc") not in {chunk_point_id("doc", i) for i in range(10)}
    assert len(chunk_point_id("doc", 0)) == 36


def test_open_store_needs_a_path_or_server() -> None:
    with pytest.raises(ValueError):
        open_store()


def test_chunk_counts_name_documents_by_their_own_ids(store: Store) -> None:
    # Real doc ids are uuid4().hex; over HTTP the client once parsed them back as dashed
    # UUIDs, so every document looked unknown to the reconciliation on open.
    rng = np.random.default_rng(3)
    ids = [uuid.uuid4().hex for _ in range(3)]
    for n, doc_id in enumerate(ids):
        store.upsert_chunks([point(doc_id, i, f"text {n} {i}", unit(rng)) for i in range(n + 1)])
    assert store.chunk_counts() == {ids[0]: 1, ids[1]: 2, ids[2]: 3}
    assert set(store.document_payloads()) == set()


def test_chunk_counts_leave_out_documents_whose_chunks_were_deleted(store: Store) -> None:
    """Qdrant Edge's facet kept a deleted document's id with a count of 0 until the store
    was closed (review): the reconciliation on open took it for passages the catalog does
    not know."""
    rng = np.random.default_rng(4)
    ids = [uuid.uuid4().hex for _ in range(2)]
    for doc_id in ids:
        store.upsert_chunks([point(doc_id, i, f"text {doc_id} {i}", unit(rng)) for i in range(2)])
    store.delete_chunks(ids[0])
    assert store.chunk_counts() == {ids[1]: 2}
