"""The server store: ``qdrant-client`` against a Qdrant server or cluster.

The same class runs on qdrant-client's local mode (``":memory:"`` or a folder), which
shares the API; the tests use it for want of a server. Local mode is not the embedded
default: it is slow (a linear scan per query), ignores payload indexes and is not
thread-safe (DESIGN.md).
"""

from __future__ import annotations

import uuid
import warnings
from collections.abc import Collection, Sequence
from typing import Any

from qdrant_client import QdrantClient
from qdrant_client import models as qm
from qdrant_client.http.exceptions import ApiException

from docent.core.errors import StoreError, StoreLocked, StoreOfAnotherModel
from docent.core.models import SparseVec
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
    payload_update,
    place_ids,
    public_payload,
    stored_chunk_payload,
    stored_document_payload,
    usable_sparse,
)
from docent.core.store_server import (
    OPENING,
    ServerOptions,
    connect,
    is_server_failure,
    unavailable,
)

_CHUNK_INDEXES: dict[str, Any] = {
    "doc_id": qm.PayloadSchemaType.KEYWORD,
    "file_name": qm.PayloadSchemaType.KEYWORD,
    "content_hash": qm.PayloadSchemaType.KEYWORD,
    "ordinal": qm.IntegerIndexParams(type=qm.IntegerIndexType.INTEGER, lookup=True, range=True),
    # a question about a page reads that page's chunks (Store.chunks_on_pages)
    "page_start": qm.IntegerIndexParams(type=qm.IntegerIndexType.INTEGER, lookup=False, range=True),
    "page_end": qm.IntegerIndexParams(type=qm.IntegerIndexType.INTEGER, lookup=False, range=True),
    "text": qm.TextIndexParams(
        type=qm.TextIndexType.TEXT,
        tokenizer=qm.TokenizerType.WORD,
        lowercase=True,
        phrase_matching=True,
    ),
    TEXT_LOWER: qm.PayloadSchemaType.KEYWORD,
    COLLECTIONS: qm.PayloadSchemaType.KEYWORD,
}
_DOCUMENT_INDEXES: dict[str, Any] = {
    "doc_id": qm.PayloadSchemaType.KEYWORD,
    COLLECTIONS: qm.PayloadSchemaType.KEYWORD,
}
# As in store_edge: the grep copy never leaves, the sentence vectors only for reuse and copies.
_PAYLOAD = qm.PayloadSelectorExclude(exclude=[TEXT_LOWER, SENTENCES])
_WHOLE = qm.PayloadSelectorExclude(exclude=[TEXT_LOWER])


def _doc_filter(
    doc_ids: Sequence[str] | None = None,
    exclude_doc_ids: Sequence[str] | None = None,
    collection: str | None = None,
) -> qm.Filter | None:
    must: list[qm.Condition] = []
    must_not: list[qm.Condition] = []
    if collection is not None:
        must.append(_in_collection(collection))
    if doc_ids is not None:
        must.append(qm.FieldCondition(key="doc_id", match=qm.MatchAny(any=list(doc_ids))))
    if exclude_doc_ids:
        must_not.append(
            qm.FieldCondition(key="doc_id", match=qm.MatchAny(any=list(exclude_doc_ids)))
        )
    if not must and not must_not:
        return None
    return qm.Filter(must=must or None, must_not=must_not or None)


def _in_collection(collection: str) -> qm.FieldCondition:
    return qm.FieldCondition(key=COLLECTIONS, match=qm.MatchValue(value=collection))


def _one_doc(doc_id: str, *more: qm.Condition) -> qm.Filter:
    return qm.Filter(
        must=[qm.FieldCondition(key="doc_id", match=qm.MatchValue(value=doc_id)), *more]
    )


def _with(flt: qm.Filter | None, condition: qm.Condition) -> qm.Filter:
    if flt is None:
        return qm.Filter(must=[condition])
    must = flt.must if isinstance(flt.must, list) else ([flt.must] if flt.must else [])
    return qm.Filter(must=[*must, condition], must_not=flt.must_not)


def _scored(points: Sequence[qm.ScoredPoint]) -> list[ScoredPoint]:
    return [ScoredPoint(str(p.id), float(p.score), public_payload(p.payload)) for p in points]


def _unscored(records: Sequence[qm.Record]) -> list[ScoredPoint]:
    return [ScoredPoint(str(r.id), 0.0, public_payload(r.payload)) for r in records]


def _sparse(vec: SparseVec) -> qm.SparseVector:
    return qm.SparseVector(indices=list(vec.indices), values=list(vec.values))


def _doc_id(value: Any) -> str:
    """A facet value as the doc_id it was. qdrant-client's models (local mode and over
    HTTP) read a string that parses as a UUID as one, and give back the dashed form; our
    doc ids are ``uuid4().hex``, so any UUID here was written as 32 hex digits."""
    try:
        return uuid.UUID(str(value)).hex
    except ValueError:
        return str(value)


def _named(record: qm.Record, name: str) -> Any:
    return record.vector.get(name) if isinstance(record.vector, dict) else None


class ClientStore(LockedBackend):
    backend_name = "Qdrant"

    def __init__(
        self,
        *,
        server: ServerOptions | None = None,
        dim: int = 384,
        local_path: str | None = None,
    ) -> None:
        """``server``: a Qdrant server or cluster; else qdrant-client's local mode in
        ``local_path`` (":memory:" or None: in memory)."""
        super().__init__()
        self.dim = dim
        self.server = server
        self.url = server.url if server else ""
        self.local = server is None
        try:
            if server is not None:
                self._client = connect(server)
            elif local_path == ":memory:" or local_path is None:
                self._client = QdrantClient(location=":memory:")
            else:
                self._client = QdrantClient(path=local_path)
        except RuntimeError as exc:  # local mode: the folder's lock is taken
            raise StoreLocked(f"Another Docent is using {local_path}; close it first.") from exc
        try:
            with self._call(OPENING):
                self._ensure(CHUNKS, sparse=True, indexes=_CHUNK_INDEXES)
                self._ensure(DOCUMENTS, sparse=False, indexes=_DOCUMENT_INDEXES)
        except BaseException:
            self._client.close()
            raise

    def _store_error(self, what: str, exc: Exception) -> StoreError:
        if self.server is not None:
            said = unavailable(self.server, what, exc)
            if said is not None:
                return said
            return StoreError(f"The Qdrant server at {self.server.shown} could not {what}: {exc}")
        return super()._store_error(what, exc)

    def _ensure(self, name: str, *, sparse: bool, indexes: dict[str, Any]) -> None:
        client = self._client
        if not client.collection_exists(name):
            client.create_collection(
                name,
                vectors_config={DENSE: qm.VectorParams(size=self.dim, distance=qm.Distance.COSINE)},
                sparse_vectors_config=(
                    {SPARSE: qm.SparseVectorParams(modifier=qm.Modifier.IDF)} if sparse else None
                ),
                **(self.server.collection_args() if self.server else {}),
            )
        info = client.get_collection(name)
        vectors = info.config.params.vectors
        size = vectors[DENSE].size if isinstance(vectors, dict) and DENSE in vectors else None
        if size != self.dim:
            where = f"The Qdrant server at {self.server.shown}" if self.server else "The store"
            raise StoreOfAnotherModel(
                f"{where} holds vectors of size {size} in its '{name}' collection (another "
                f"embedding model's); the embedding model makes vectors of size {self.dim}. "
                "Set embedding_model back, or delete the server's 'chunks' and 'documents' "
                "collections: Docent then indexes every document again into new ones.",
                size or 0,
                self.dim,
            )
        present = set(info.payload_schema or {})
        with warnings.catch_warnings():
            # Local mode warns that it ignores payload indexes; we know.
            warnings.simplefilter("ignore", UserWarning)
            for field, schema in indexes.items():
                if field not in present:
                    client.create_payload_index(name, field, field_schema=schema, wait=True)

    def _is_backend_error(self, exc: Exception) -> bool:
        # Local mode reports bad requests as ValueError; a server as ApiException/httpx.
        return is_server_failure(exc) or isinstance(exc, ApiException | OSError | ValueError)

    # Lifecycle ----------------------------------------------------------------------

    def flush(self) -> None:
        # Writes use wait=True: the server has them in its WAL on return. Local mode
        # in a folder saves on every write.
        with self._call("save to disk"):
            pass

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._client.close()

    def index_due(self, closing: bool = False) -> bool:
        return False  # a server builds its indexes in the background

    def optimize(self) -> bool:
        return False

    def __enter__(self) -> ClientStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # Chunks -------------------------------------------------------------------------

    def upsert_chunks(self, points: Sequence[ChunkPoint]) -> None:
        for batch in batches(points, UPSERT_BATCH):
            structs = [
                qm.PointStruct(
                    id=p.id,
                    vector={DENSE: list(p.dense), SPARSE: _sparse(p.sparse)},
                    payload=stored_chunk_payload(p.payload),
                )
                for p in batch
            ]
            with self._call("write chunks"):
                self._client.upsert(CHUNKS, structs, wait=True)

    def delete_chunks(self, doc_id: str, from_ordinal: int = 0) -> None:
        more: list[qm.Condition] = []
        if from_ordinal > 0:
            more.append(qm.FieldCondition(key="ordinal", range=qm.Range(gte=from_ordinal)))
        selector = qm.FilterSelector(filter=_one_doc(doc_id, *more))
        with self._call("delete chunks"):
            self._client.delete(CHUNKS, points_selector=selector, wait=True)

    def set_chunks_payload(self, doc_id: str, payload: dict[str, Any]) -> None:
        with self._call("update chunks"):
            self._client.set_payload(
                CHUNKS, payload_update(payload), points=_one_doc(doc_id), wait=True
            )

    def count_chunks(self, doc_id: str | None = None) -> int:
        flt = _one_doc(doc_id) if doc_id is not None else None
        with self._call("count chunks"):
            return self._client.count(CHUNKS, count_filter=flt, exact=True).count

    def chunk_counts(self) -> dict[str, int]:
        with self._call("count chunks per document"):
            hits = self._client.facet(CHUNKS, "doc_id", limit=MAX_DOCUMENTS, exact=True).hits
        return {_doc_id(h.value): int(h.count) for h in hits}

    def _scroll_all(
        self,
        flt: qm.Filter | None,
        with_vectors: bool | list[str],
        stop: Any = None,
        collection: str = CHUNKS,
        payload: Any = _PAYLOAD,
    ) -> list[qm.Record]:
        out: list[qm.Record] = []
        offset: Any = None
        while True:
            records, offset = self._client.scroll(
                collection,
                scroll_filter=flt,
                limit=SCROLL_PAGE,
                offset=offset,
                with_payload=payload,
                with_vectors=with_vectors,
            )
            out.extend(records)
            if offset is None or (stop is not None and stop(out)):
                return out

    def vectors_by_content_hash(self, hashes: Sequence[str]) -> dict[str, ChunkVectors]:
        found: dict[str, ChunkVectors] = {}
        wanted = list(dict.fromkeys(hashes))
        for group in batches(wanted, SCROLL_PAGE):
            cond = qm.FieldCondition(key="content_hash", match=qm.MatchAny(any=list(group)))

            def all_found(records: list[qm.Record], group: Sequence[str] = group) -> bool:
                return len({(r.payload or {}).get("content_hash") for r in records}) >= len(group)

            with self._call("read stored vectors"):
                records = self._scroll_all(
                    qm.Filter(must=[cond]), [DENSE], stop=all_found, payload=_WHOLE
                )
            for r in records:
                h = (r.payload or {}).get("content_hash")
                dense = _named(r, DENSE)
                if isinstance(h, str) and h not in found and dense is not None:
                    sentences = str((r.payload or {}).get(SENTENCES) or "")
                    found[h] = ChunkVectors(list(dense), sentences)
        return found

    def dense_vectors(self, ids: Sequence[str]) -> dict[str, list[float]]:
        if not ids:
            return {}
        with self._call("read dense vectors"):
            records = self._client.retrieve(
                CHUNKS, ids=list(ids), with_payload=False, with_vectors=[DENSE]
            )
        found = {str(r.id): _named(r, DENSE) for r in records}
        return {i: list(v) for i, v in found.items() if v is not None}

    def sentence_vectors(self, ids: Sequence[str]) -> dict[str, str]:
        if not ids:
            return {}
        selector = qm.PayloadSelectorInclude(include=[SENTENCES])
        with self._call("read sentence vectors"):
            records = self._client.retrieve(
                CHUNKS, ids=list(ids), with_payload=selector, with_vectors=False
            )
        return {str(r.id): str((r.payload or {}).get(SENTENCES) or "") for r in records}

    def chunks_at(
        self, places: Sequence[tuple[str, int]], collection: str | None = None
    ) -> list[dict[str, Any]]:
        ids = place_ids(places)
        if not ids:
            return []
        with self._call("read chunks"):
            records = self._client.retrieve(
                CHUNKS, ids=ids, with_payload=_PAYLOAD, with_vectors=False
            )
        return found_places((public_payload(r.payload) for r in records), collection)

    def iter_chunks(
        self, doc_id: str, with_vectors: bool = False
    ) -> list[tuple[dict[str, Any], list[float] | None]]:
        with self._call("read chunks"):
            records = self._scroll_all(_one_doc(doc_id), [DENSE] if with_vectors else False)
        rows: list[tuple[dict[str, Any], list[float] | None]] = []
        for r in records:
            dense = _named(r, DENSE) if with_vectors else None
            rows.append((public_payload(r.payload), list(dense) if dense is not None else None))
        rows.sort(key=lambda row: by_ordinal(row[0]))
        return rows

    def export_chunks(self, doc_id: str) -> list[ChunkPoint]:
        with self._call("read chunks to copy"):
            records = self._scroll_all(_one_doc(doc_id), [DENSE, SPARSE], payload=_WHOLE)
        points = []
        for r in records:
            sparse = _named(r, SPARSE)
            points.append(
                ChunkPoint(
                    str(r.id),
                    list(_named(r, DENSE)),
                    SparseVec(list(sparse.indices), list(sparse.values)),
                    public_payload(r.payload),
                )
            )
        return sorted(points, key=lambda p: by_ordinal(p.payload))

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
        searches: list[tuple[Any, str]] = []
        if dense is not None:
            searches.append((list(dense), DENSE))
        if sparse is not None:
            searches.append((_sparse(sparse), SPARSE))
        with self._call("search chunks"):
            if len(searches) == 2:
                depth = max(prefetch_limit, limit)
                response = self._client.query_points(
                    CHUNKS,
                    prefetch=[
                        qm.Prefetch(query=q, using=name, limit=depth, filter=flt)
                        for q, name in searches
                    ],
                    query=qm.RrfQuery(rrf=qm.Rrf(k=RRF_K)),
                    query_filter=flt,
                    limit=limit,
                    with_payload=_PAYLOAD,
                    with_vectors=False,
                )
            else:
                q, name = searches[0]
                response = self._client.query_points(
                    CHUNKS,
                    query=q,
                    using=name,
                    query_filter=flt,
                    limit=limit,
                    with_payload=_PAYLOAD,
                    with_vectors=False,
                )
        return _scored(response.points)

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
        match = qm.MatchPhrase(phrase=text) if phrase else qm.MatchText(text=text)
        cond = qm.FieldCondition(key="text", match=match)
        flt = _with(_doc_filter(doc_ids, exclude_doc_ids, collection), cond)
        return self._scroll_limited(flt, limit)

    def chunks_on_pages(
        self, doc_ids: Sequence[str], spans: Sequence[tuple[int, int]], limit: int = 500
    ) -> list[ScoredPoint]:
        out: dict[str, ScoredPoint] = {}
        for first, last in spans if doc_ids else ():
            flt = _with(
                _with(
                    _doc_filter(doc_ids),
                    qm.FieldCondition(key="page_start", range=qm.Range(lte=last)),
                ),
                qm.FieldCondition(key="page_end", range=qm.Range(gte=first)),
            )
            for p in self._scroll_limited(flt, limit - len(out)):
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

        def holds(text: str) -> qm.FieldCondition:
            return qm.FieldCondition(
                key=TEXT_LOWER, match=qm.MatchSubstring(substring=text.lower())
            )

        flt = _with(
            _doc_filter(exclude_doc_ids=list(exclude_doc_ids), collection=collection), holds(needle)
        )
        for text in also:
            flt = _with(flt, holds(text))
        return self._scroll_limited(flt, limit)

    def _scroll_limited(self, flt: qm.Filter, limit: int) -> list[ScoredPoint]:
        if limit <= 0:
            return []
        with self._call("search chunk text"):
            records, _ = self._client.scroll(
                CHUNKS, scroll_filter=flt, limit=limit, with_payload=_PAYLOAD, with_vectors=False
            )
        return _unscored(records)

    # Documents ----------------------------------------------------------------------

    def upsert_document(self, doc_id: str, dense: list[float], payload: dict[str, Any]) -> None:
        point = qm.PointStruct(
            id=document_point_id(doc_id),
            vector={DENSE: list(dense)},
            payload=stored_document_payload({**payload, "doc_id": doc_id}),
        )
        with self._call("write a document"):
            self._client.upsert(DOCUMENTS, [point], wait=True)

    def delete_document(self, doc_id: str) -> None:
        selector = qm.PointIdsList(points=[document_point_id(doc_id)])
        with self._call("delete a document"):
            self._client.delete(DOCUMENTS, points_selector=selector, wait=True)

    def query_documents(
        self, dense: list[float], limit: int = 20, collection: str | None = None
    ) -> list[ScoredPoint]:
        with self._call("search documents"):
            response = self._client.query_points(
                DOCUMENTS,
                query=list(dense),
                using=DENSE,
                query_filter=_doc_filter(collection=collection),
                limit=limit,
                with_payload=True,
                with_vectors=False,
            )
        return _scored(response.points)

    def get_document(self, doc_id: str) -> dict[str, Any] | None:
        with self._call("read a document"):
            records = self._client.retrieve(
                DOCUMENTS, [document_point_id(doc_id)], with_payload=True, with_vectors=False
            )
        return public_payload(records[0].payload) if records else None

    def export_document(self, doc_id: str) -> tuple[list[float], dict[str, Any]] | None:
        with self._call("read a document to copy"):
            records = self._client.retrieve(
                DOCUMENTS, [document_point_id(doc_id)], with_payload=True, with_vectors=[DENSE]
            )
        dense = _named(records[0], DENSE) if records else None
        if dense is None:
            return None
        return list(dense), public_payload(records[0].payload)

    def set_document_payload(self, doc_id: str, payload: dict[str, Any]) -> None:
        # By filter, so a document without a point is a no-op rather than an error.
        with self._call("update a document"):
            self._client.set_payload(
                DOCUMENTS,
                stored_document_payload(dict(payload)),
                points=_one_doc(doc_id),
                wait=True,
            )

    def count_documents(self) -> int:
        with self._call("count documents"):
            return self._client.count(DOCUMENTS, exact=True).count

    def document_payloads(self, keys: Sequence[str] = ()) -> dict[str, dict[str, Any]]:
        payload = ["doc_id", *keys] if keys else _PAYLOAD
        with self._call("read documents"):
            records = self._scroll_all(None, False, collection=DOCUMENTS, payload=payload)
        payloads = (public_payload(r.payload or {}) for r in records)
        return {str(p.get("doc_id", "")): p for p in payloads}
