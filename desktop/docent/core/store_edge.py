"""The embedded store: Qdrant Edge in process, one shard per collection.

Layout under the store folder: ``chunks/`` and ``documents/`` (each an Edge shard with
its own write-ahead log) and ``docent.lock``.

Facts this relies on (qdrant-edge-py 0.9.0, see DESIGN.md):
- every error is a plain ``Exception``; a second open of a shard (any process) fails
  with ``WouldBlock`` from the WAL lock;
- each write holds the GIL, so writes go in batches of ``UPSERT_BATCH`` points;
- nothing is indexed in the background: points land in an appendable segment that every
  query scans whole (and whose full-text index every open rebuilds) until ``optimize()``
  turns it into an HNSW-indexed one. ``optimize()`` lets the GIL go (measured: the other
  threads ran with gaps of 10 ms at most) but holds the shard, queries included, and at
  200k points in one segment had not finished after 16 min at 6.2 GB. So the indexer
  calls ``optimize()`` whenever ``index_step`` points wait (``index_due``): each call
  indexes one segment of ~``index_step`` points (37-75 s at 10k on the busy 2-core box),
  never the whole library again; a closing app indexes a fifth of that or more;
- an ``optimize()`` cut short by a crash leaves ``temp_segments/``, cleared before load.
  Clearing it is only safe while no one else has the shard open, hence our own lock file,
  taken first.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import uuid
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from docent.core.errors import StoreError, StoreLocked, StoreOfAnotherModel
from docent.core.models import SparseVec
from docent.core.oslock import FileLock
from docent.core.store_base import (
    CHUNKS,
    COLLECTIONS,
    DENSE,
    DOCUMENTS,
    MAX_DOCUMENTS,
    RRF_K,
    SCROLL_PAGE,
    SENTENCES,
    SPARSE,
    TEXT_LOWER,
    UPSERT_BATCH,
    ChunkPoint,
    ChunkVectors,
    LockedBackend,
    ScoredPoint,
    batches,
    by_ordinal,
    document_point_id,
    found_places,
    panicked,
    payload_update,
    place_ids,
    public_payload,
    stored_chunk_payload,
    stored_document_payload,
    usable_sparse,
)

LOCK_FILE = "docent.lock"
#: Points outside the vector index after which ``index_due`` says to optimize.
INDEX_STEP = 10_000

_CHUNK_INDEXES: dict[str, Any] = {
    "doc_id": qe.PayloadSchemaType.Keyword,
    "file_name": qe.PayloadSchemaType.Keyword,
    "content_hash": qe.PayloadSchemaType.Keyword,
    "ordinal": qe.IntegerIndexParams(lookup=True, range=True),
    # a question about a page reads that page's chunks (Store.chunks_on_pages)
    "page_start": qe.IntegerIndexParams(lookup=False, range=True),
    "page_end": qe.IntegerIndexParams(lookup=False, range=True),
    # phrase_matching: without it MatchPhrase silently finds nothing.
    "text": qe.TextIndexParams(
        tokenizer=qe.TokenizerType.Word, lowercase=True, phrase_matching=True
    ),
    TEXT_LOWER: qe.PayloadSchemaType.Keyword,
    COLLECTIONS: qe.PayloadSchemaType.Keyword,
}
_DOCUMENT_INDEXES: dict[str, Any] = {
    "doc_id": qe.PayloadSchemaType.Keyword,
    COLLECTIONS: qe.PayloadSchemaType.Keyword,
}
# Returned payloads never carry the grep copy of the text, and only what reuses or copies
# a chunk's vectors reads its sentence vectors.
_PAYLOAD = qe.PayloadSelector.Exclude([TEXT_LOWER, SENTENCES])
_WHOLE = qe.PayloadSelector.Exclude([TEXT_LOWER])


def _chunks_config(dim: int, index_step: int) -> qe.EdgeConfig:
    # Both count the dense vectors' KB. Segments over the threshold are indexed by
    # optimize(): a tenth under what closing leaves, so that segment is surely over it.
    # No merge makes a segment over a step: unbounded, each step merged the new segment
    # into the last one and indexed both again (steps of 37 s, then 97 s, at 4k points).
    kb_per_point = dim * 4 / 1024
    optimizers = qe.EdgeOptimizersConfig(
        indexing_threshold=max(1, int(_at_close(index_step) * kb_per_point * 0.9)),
        max_segment_size=max(1, int(index_step * kb_per_point)),
    )
    return qe.EdgeConfig(
        vectors={DENSE: qe.EdgeVectorParams(size=dim, distance=qe.Distance.Cosine)},
        sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
        optimizers=optimizers,
    )


def _at_close(index_step: int) -> int:
    return max(1, index_step // 5)


def _documents_config(dim: int) -> qe.EdgeConfig:
    return qe.EdgeConfig(
        vectors={DENSE: qe.EdgeVectorParams(size=dim, distance=qe.Distance.Cosine)}
    )


def _locked_message(path: Path) -> str:
    return f"Another Docent is using {path}; close it first."


def _stored_size(shard: Path) -> int | None:
    """The size of the dense vectors ``shard`` was made for (its ``edge_config.json``), or
    None when it says none (a new shard; a damaged one, which opening then reports)."""
    try:
        config = json.loads((shard / "edge_config.json").read_text(encoding="utf-8"))
        size = config["vectors"][DENSE]["size"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return size if isinstance(size, int) else None


def _open_shard(path: Path, config: qe.EdgeConfig, indexes: dict[str, Any]) -> qe.EdgeShard:
    shutil.rmtree(path / "temp_segments", ignore_errors=True)
    if (path / "edge_config.json").exists():
        # Passing the config checks it against the stored segments (e.g. the dimension).
        shard = qe.EdgeShard.load(str(path), config)
    else:
        shard = qe.EdgeShard.create(str(path), config)
    try:
        present = set(shard.info().payload_schema)
        for field, schema in indexes.items():
            if field not in present:
                shard.update(qe.UpdateOperation.create_field_index(field, schema))
    except BaseException:
        shard.close()
        raise
    return shard


def _doc_filter(
    doc_ids: Sequence[str] | None = None,
    exclude_doc_ids: Sequence[str] | None = None,
    collection: str | None = None,
) -> qe.Filter | None:
    must: list[Any] = []
    must_not: list[Any] = []
    if collection is not None:
        must.append(_in_collection(collection))
    if doc_ids is not None:
        must.append(qe.FieldCondition("doc_id", match=qe.MatchAny(list(doc_ids))))
    if exclude_doc_ids:
        must_not.append(qe.FieldCondition("doc_id", match=qe.MatchAny(list(exclude_doc_ids))))
    if not must and not must_not:
        return None
    return qe.Filter(must=must or None, must_not=must_not or None)


def _in_collection(collection: str) -> Any:
    return qe.FieldCondition(COLLECTIONS, match=qe.MatchValue(collection))


def _one_doc(doc_id: str, *more: Any) -> qe.Filter:
    return qe.Filter(must=[qe.FieldCondition("doc_id", match=qe.MatchValue(doc_id)), *more])


def _with(flt: qe.Filter | None, condition: Any) -> qe.Filter:
    if flt is None:
        return qe.Filter(must=[condition])
    return qe.Filter(must=[*(flt.must or []), condition], must_not=flt.must_not)


def _scored(points: Sequence[Any]) -> list[ScoredPoint]:
    return [ScoredPoint(str(p.id), float(p.score), public_payload(p.payload)) for p in points]


def _unscored(records: Sequence[Any]) -> list[ScoredPoint]:
    return [ScoredPoint(str(r.id), 0.0, public_payload(r.payload)) for r in records]


def _sparse(vec: SparseVec) -> qe.SparseVector:
    return qe.SparseVector(list(vec.indices), list(vec.values))


class EdgeStore(LockedBackend):
    backend_name = "Qdrant Edge"

    def __init__(self, path: Path, dim: int = 384, index_step: int = INDEX_STEP) -> None:
        super().__init__()
        self.path = Path(path)
        self.dim = dim
        self.index_step = index_step
        # Points written since index_due last looked at the shard (looking costs a call).
        self._unchecked = 0
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            lock = FileLock(self.path / LOCK_FILE, _locked_message(self.path))
            self._lock_file = lock.acquire()
        except OSError as exc:
            raise StoreError(f"Cannot open the store folder {self.path}: {exc}") from exc
        stored = _stored_size(self.path / CHUNKS)
        if stored is not None and stored != dim:
            # Another embedding model's store, not a damaged one (Edge only says the
            # configs are incompatible): the engine sets it aside and re-indexes.
            self._lock_file.release()
            raise StoreOfAnotherModel(
                f"The store in {self.path} holds vectors of size {stored}; the embedding "
                f"model makes vectors of size {dim}.",
                stored,
                dim,
            )
        opened: list[qe.EdgeShard] = []
        try:
            for name, config, indexes in (
                (CHUNKS, _chunks_config(dim, index_step), _CHUNK_INDEXES),
                (DOCUMENTS, _documents_config(dim), _DOCUMENT_INDEXES),
            ):
                opened.append(self._open(name, config, indexes))
        except BaseException:
            for shard in opened:
                shard.close()
            self._lock_file.release()
            raise
        self._chunks, self._docs = opened

    def _open(self, name: str, config: qe.EdgeConfig, indexes: dict[str, Any]) -> qe.EdgeShard:
        try:
            return _open_shard(self.path / name, config, indexes)
        except BaseException as exc:
            if not (isinstance(exc, Exception) or panicked(exc)):
                raise  # Ctrl-C, exit
            if "WouldBlock" in str(exc):  # another program holds the shard's WAL
                raise StoreLocked(_locked_message(self.path)) from exc
            # A damaged file can make Edge panic (a BaseException): it was a traceback,
            # and `--rebuild`, which sets a store it cannot open aside, died too (review).
            raise StoreError(f"Qdrant Edge could not open {self.path / name}: {exc}") from exc

    def _is_backend_error(self, exc: Exception) -> bool:
        # Edge raises bare ``Exception``; TypeError & co. are bugs in our calls.
        return type(exc) is Exception or isinstance(exc, OSError)

    # Lifecycle ----------------------------------------------------------------------

    def flush(self) -> None:
        with self._call("save to disk"):
            self._chunks.flush()
            self._docs.flush()

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            try:
                self.flush()
            finally:
                self._closed = True
                for shard in (self._chunks, self._docs):
                    # If close fails the WAL still holds every acknowledged write.
                    with contextlib.suppress(Exception):
                        shard.close()
                self._lock_file.release()

    def optimize(self) -> bool:
        """Index what waits outside the vector index; True if anything changed.

        Queries wait meanwhile (the shard is held), the GUI thread does not (the GIL is
        let go). Call it when ``index_due`` says so, not on a whole unindexed library.
        """
        with self._call("build the search index"):
            chunks = self._chunks.optimize()
            documents = self._docs.optimize()
            self._unchecked = 0
            return bool(chunks or documents)

    def index_backlog(self) -> int:
        """Chunk points whose dense vector is in no HNSW index yet (searched by a scan)."""
        with self._call("read the index state"):
            info = self._chunks.info()
        # Every point has a sparse vector, always indexed: the rest of the count is dense.
        return max(0, 2 * info.points_count - info.indexed_vectors_count)

    def index_due(self, closing: bool = False) -> bool:
        """True when ``index_step`` points wait outside the vector index (a fifth of that
        when ``closing``: the next open would rebuild their text index, ~1 s per 5k)."""
        if closing:
            return self.index_backlog() >= _at_close(self.index_step)
        if self._unchecked < max(1, self.index_step // 10):
            return False
        self._unchecked = 0
        return self.index_backlog() >= self.index_step

    def __enter__(self) -> EdgeStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # Chunks -------------------------------------------------------------------------

    def upsert_chunks(self, points: Sequence[ChunkPoint]) -> None:
        # The lock is taken per batch so queries can run between batches.
        for batch in batches(points, UPSERT_BATCH):
            ops = [
                qe.Point(
                    p.id,
                    {DENSE: list(p.dense), SPARSE: _sparse(p.sparse)},
                    stored_chunk_payload(p.payload),
                )
                for p in batch
            ]
            with self._call("write chunks"):
                self._chunks.update(qe.UpdateOperation.upsert_points(ops))
                self._unchecked += len(ops)

    def delete_chunks(self, doc_id: str, from_ordinal: int = 0) -> None:
        more = []
        if from_ordinal > 0:
            more.append(qe.FieldCondition("ordinal", range=qe.RangeFloat(gte=from_ordinal)))
        with self._call("delete chunks"):
            self._chunks.update(qe.UpdateOperation.delete_points_by_filter(_one_doc(doc_id, *more)))

    def set_chunks_payload(self, doc_id: str, payload: dict[str, Any]) -> None:
        op = qe.UpdateOperation.set_payload_by_filter(_one_doc(doc_id), payload_update(payload))
        with self._call("update chunks"):
            self._chunks.update(op)

    def count_chunks(self, doc_id: str | None = None) -> int:
        flt = _one_doc(doc_id) if doc_id is not None else None
        with self._call("count chunks"):
            return self._chunks.count(qe.CountRequest(exact=True, filter=flt))

    def chunk_counts(self) -> dict[str, int]:
        req = qe.FacetRequest("doc_id", limit=MAX_DOCUMENTS, exact=True)
        with self._call("count chunks per document"):
            hits = self._chunks.facet(req).hits
        # a document whose chunks were deleted stays in the facet, counted 0, until close
        return {str(h.value): int(h.count) for h in hits if h.count > 0}

    def _scroll_all(
        self,
        flt: qe.Filter | None,
        with_vector: bool | list[str],
        stop: Any = None,
        shard: Any = None,
        payload: Any = _PAYLOAD,
    ) -> list[Any]:
        out: list[Any] = []
        offset: Any = None
        while True:
            req = qe.ScrollRequest(
                offset=offset,
                limit=SCROLL_PAGE,
                filter=flt,
                with_payload=payload,
                with_vector=with_vector,
            )
            records, offset = (shard or self._chunks).scroll(req)
            out.extend(records)
            if offset is None or (stop is not None and stop(out)):
                return out

    def vectors_by_content_hash(self, hashes: Sequence[str]) -> dict[str, ChunkVectors]:
        found: dict[str, ChunkVectors] = {}
        wanted = list(dict.fromkeys(hashes))
        for group in batches(wanted, SCROLL_PAGE):
            flt = qe.Filter(
                must=[qe.FieldCondition("content_hash", match=qe.MatchAny(list(group)))]
            )

            def all_found(records: list[Any], group: Sequence[str] = group) -> bool:
                return len({r.payload.get("content_hash") for r in records}) >= len(group)

            with self._call("read stored vectors"):
                records = self._scroll_all(flt, [DENSE], stop=all_found, payload=_WHOLE)
            for r in records:
                h = r.payload.get("content_hash")
                if h not in found and r.vector and DENSE in r.vector:
                    sentences = str(r.payload.get(SENTENCES) or "")
                    found[h] = ChunkVectors(list(r.vector[DENSE]), sentences)
        return found

    def dense_vectors(self, ids: Sequence[str]) -> dict[str, list[float]]:
        if not ids:
            return {}
        with self._call("read dense vectors"):
            records = self._chunks.retrieve(list(ids), with_payload=False, with_vector=[DENSE])
        found: dict[str, list[float]] = {}
        for r in records:
            vector: Any = r.vector
            if vector and DENSE in vector:
                found[str(r.id)] = list(vector[DENSE])
        return found

    def sentence_vectors(self, ids: Sequence[str]) -> dict[str, str]:
        if not ids:
            return {}
        selector = qe.PayloadSelector.Include([SENTENCES])
        with self._call("read sentence vectors"):
            records = self._chunks.retrieve(list(ids), with_payload=selector, with_vector=False)
        return {str(r.id): str((r.payload or {}).get(SENTENCES) or "") for r in records}

    def chunks_at(
        self, places: Sequence[tuple[str, int]], collection: str | None = None
    ) -> list[dict[str, Any]]:
        ids: list[int | uuid.UUID | str] = [*place_ids(places)]
        if not ids:
            return []
        with self._call("read chunks"):
            records = self._chunks.retrieve(ids, with_payload=_PAYLOAD, with_vector=False)
        return found_places((public_payload(r.payload) for r in records), collection)

    def iter_chunks(
        self, doc_id: str, with_vectors: bool = False
    ) -> list[tuple[dict[str, Any], list[float] | None]]:
        with self._call("read chunks"):
            records = self._scroll_all(_one_doc(doc_id), [DENSE] if with_vectors else False)
        rows = [
            (
                public_payload(r.payload),
                list(r.vector[DENSE]) if with_vectors and r.vector else None,
            )
            for r in records
        ]
        rows.sort(key=lambda row: by_ordinal(row[0]))
        return rows

    def export_chunks(self, doc_id: str) -> list[ChunkPoint]:
        with self._call("read chunks to copy"):
            records = self._scroll_all(_one_doc(doc_id), [DENSE, SPARSE], payload=_WHOLE)
        return sorted(
            (
                ChunkPoint(
                    str(r.id),
                    list(r.vector[DENSE]),
                    SparseVec(list(r.vector[SPARSE].indices), list(r.vector[SPARSE].values)),
                    public_payload(r.payload),
                )
                for r in records
            ),
            key=lambda p: by_ordinal(p.payload),
        )

    def query(
        self,
        *,
        dense: list[float] | None = None,
        sparse: SparseVec | None = None,
        limit: int = 10,
        doc_ids: Sequence[str] | None = None,
        exclude_doc_ids: Sequence[str] | None = None,
        prefetch_limit: int = 50,
        collection: str | None = None,
    ) -> list[ScoredPoint]:
        sparse = usable_sparse(sparse)
        if (dense is None and sparse is None) or (doc_ids is not None and not doc_ids):
            return []
        flt = _doc_filter(doc_ids, exclude_doc_ids, collection)
        searches = []
        if dense is not None:
            searches.append(qe.Query.Nearest(list(dense), using=DENSE))
        if sparse is not None:
            searches.append(qe.Query.Nearest(_sparse(sparse), using=SPARSE))
        if len(searches) == 2:
            depth = max(prefetch_limit, limit)
            req = qe.QueryRequest(
                limit=limit,
                prefetches=[qe.Prefetch(limit=depth, query=q, filter=flt) for q in searches],
                query=qe.Fusion.Rrf(k=RRF_K),  # type: ignore[arg-type]  # stub omits Rrf
                filter=flt,
                with_payload=_PAYLOAD,
                with_vector=False,
            )
        else:
            req = qe.QueryRequest(
                limit=limit, query=searches[0], filter=flt, with_payload=_PAYLOAD, with_vector=False
            )
        with self._call("search chunks"):
            return _scored(self._chunks.query(req))

    def text_match(
        self,
        text: str,
        limit: int = 100,
        doc_ids: Sequence[str] | None = None,
        exclude_doc_ids: Sequence[str] | None = None,
        collection: str | None = None,
        phrase: bool = False,
    ) -> list[ScoredPoint]:
        if not text.strip() or (doc_ids is not None and not doc_ids):
            return []
        # ``phrase``: its words in that order, side by side (a quoted phrase)
        match = qe.MatchPhrase(text) if phrase else qe.MatchText(text)
        cond = qe.FieldCondition("text", match=match)
        flt = _with(_doc_filter(doc_ids, exclude_doc_ids, collection), cond)
        return self._scroll_limited(flt, limit, "search chunk text")

    def chunks_on_pages(
        self, doc_ids: Sequence[str], spans: Sequence[tuple[int, int]], limit: int = 500
    ) -> list[ScoredPoint]:
        out: dict[str, ScoredPoint] = {}
        for first, last in spans if doc_ids else ():
            flt = _with(
                _with(
                    _doc_filter(doc_ids),
                    qe.FieldCondition("page_start", range=qe.RangeFloat(lte=float(last))),
                ),
                qe.FieldCondition("page_end", range=qe.RangeFloat(gte=float(first))),
            )
            for p in self._scroll_limited(flt, limit - len(out), "read a page's chunks"):
                out.setdefault(p.id, p)
        return list(out.values())

    def grep(
        self,
        needle: str,
        limit: int = 100,
        collection: str | None = None,
        exclude_doc_ids: Collection[str] = (),
        also: Sequence[str] = (),
    ) -> list[ScoredPoint]:
        if not needle:
            return []

        def holds(text: str) -> qe.FieldCondition:
            return qe.FieldCondition(TEXT_LOWER, match=qe.MatchSubstring(text.lower()))

        flt = _with(
            _doc_filter(exclude_doc_ids=list(exclude_doc_ids), collection=collection), holds(needle)
        )
        for text in also:
            flt = _with(flt, holds(text))
        return self._scroll_limited(flt, limit, "search chunk text")

    def _scroll_limited(self, flt: qe.Filter, limit: int, what: str) -> list[ScoredPoint]:
        if limit <= 0:
            return []
        req = qe.ScrollRequest(limit=limit, filter=flt, with_payload=_PAYLOAD, with_vector=False)
        with self._call(what):
            records, _ = self._chunks.scroll(req)
        return _unscored(records)

    # Documents ----------------------------------------------------------------------

    def upsert_document(self, doc_id: str, dense: list[float], payload: dict[str, Any]) -> None:
        point = qe.Point(
            document_point_id(doc_id),
            {DENSE: list(dense)},
            stored_document_payload({**payload, "doc_id": doc_id}),
        )
        with self._call("write a document"):
            self._docs.update(qe.UpdateOperation.upsert_points([point]))

    def delete_document(self, doc_id: str) -> None:
        with self._call("delete a document"):
            self._docs.update(qe.UpdateOperation.delete_points([document_point_id(doc_id)]))

    def query_documents(
        self, dense: list[float], limit: int = 20, collection: str | None = None
    ) -> list[ScoredPoint]:
        req = qe.QueryRequest(
            limit=limit,
            query=qe.Query.Nearest(list(dense), using=DENSE),
            filter=_doc_filter(collection=collection),
            with_payload=_PAYLOAD,
            with_vector=False,
        )
        with self._call("search documents"):
            return _scored(self._docs.query(req))

    def get_document(self, doc_id: str) -> dict[str, Any] | None:
        with self._call("read a document"):
            records = self._docs.retrieve(
                [document_point_id(doc_id)], with_payload=True, with_vector=False
            )
        return public_payload(records[0].payload) if records else None

    def export_document(self, doc_id: str) -> tuple[list[float], dict[str, Any]] | None:
        with self._call("read a document to copy"):
            records = self._docs.retrieve(
                [document_point_id(doc_id)], with_payload=True, with_vector=[DENSE]
            )
        vector: Any = records[0].vector if records else None
        if not vector or DENSE not in vector:
            return None
        return list(vector[DENSE]), public_payload(records[0].payload)

    def set_document_payload(self, doc_id: str, payload: dict[str, Any]) -> None:
        # By filter, so a document without a point is a no-op rather than an error.
        op = qe.UpdateOperation.set_payload_by_filter(
            _one_doc(doc_id), stored_document_payload(dict(payload))
        )
        with self._call("update a document"):
            self._docs.update(op)

    def count_documents(self) -> int:
        with self._call("count documents"):
            return self._docs.count(qe.CountRequest(exact=True))

    def document_payloads(self, keys: Sequence[str] = ()) -> dict[str, dict[str, Any]]:
        payload = qe.PayloadSelector.Include(["doc_id", *keys]) if keys else _PAYLOAD
        with self._call("read documents"):
            records = self._scroll_all(None, False, shard=self._docs, payload=payload)
        payloads = (public_payload(r.payload or {}) for r in records)
        return {str(p.get("doc_id", "")): p for p in payloads}
