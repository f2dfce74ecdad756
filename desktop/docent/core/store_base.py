"""What both store backends share: the schema's names, point types and ids, the lock.

``store.py`` is the interface the rest of Docent uses; the backends (``store_edge``,
``store_client``) build on this module, so neither needs the other nor the interface.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from docent.core.errors import StoreError
from docent.core.models import DocumentRecord, SparseVec
from docent.core.userfiles import decode_names, encode_names

CHUNKS = "chunks"
DOCUMENTS = "documents"
DENSE = "dense"
SPARSE = "bm25"
#: The lower-cased copy of ``text`` behind grep; stripped from every payload returned.
TEXT_LOWER = "text_lower"
#: A chunk's sentence vectors, packed (sentence_vectors.py): read only by the rerank and by
#: whatever copies or reuses a chunk's vectors; every other read leaves it out.
SENTENCES = "sentences"
#: Payload key (chunks and documents) holding the ids of the document's collections;
#: keyword-indexed, so a collection's filter runs inside each query.
COLLECTIONS = "collections"
#: RRF constant. 60 is the value the retrieval baseline was measured with (DESIGN.md).
RRF_K = 60
#: Points per write: Qdrant Edge holds the GIL for a whole call (~10 ms per 100 points).
UPSERT_BATCH = 100
#: More documents than any library holds (a facet over doc_id returns them all).
MAX_DOCUMENTS = 10_000_000
#: Points per scroll page when reading a whole document or matching hashes.
SCROLL_PAGE = 256

# Fixed namespace for point ids: never change it, or every stored id changes meaning.
_NAMESPACE = uuid.UUID("6f0b7c4e-3d5a-5b8e-9c1d-2a4f6e8b0d13")


@dataclass(frozen=True, slots=True)
class ServerCheck:
    """What the Settings dialog's Test found at a Qdrant URL (``store_server.probe``)."""

    ok: bool
    message: str


@dataclass(slots=True)
class ChunkPoint:
    id: str
    dense: list[float]
    sparse: SparseVec
    payload: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ChunkVectors:
    """What one pass of the model gives a chunk (``Embedder.embed_chunks``), and what a
    chunk of the same embedded text reuses of a stored one."""

    dense: list[float]
    #: Its sentences' vectors, packed (``sentence_vectors.pack``); "" for a chunk stored
    #: before they were kept.
    sentences: str


@dataclass(slots=True)
class ScoredPoint:
    id: str
    score: float
    payload: dict[str, Any]


def chunk_point_id(doc_id: str, ordinal: int) -> str:
    """Deterministic, so re-indexing a document overwrites its points."""
    return str(uuid.uuid5(_NAMESPACE, f"{doc_id}:{ordinal}"))


def document_point_id(doc_id: str) -> str:
    return str(uuid.uuid5(_NAMESPACE, f"document:{doc_id}"))


# Helpers shared by the backends -------------------------------------------------------


class LockedBackend:
    """One lock around every backend call, and backend failures turned into StoreError."""

    backend_name = "Qdrant"

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._closed = False

    def _is_backend_error(self, exc: Exception) -> bool:
        raise NotImplementedError

    @contextmanager
    def _call(self, what: str) -> Iterator[None]:
        with self._lock:
            if self._closed:
                raise StoreError(f"The vector store is closed (while trying to {what}).")
            try:
                yield
            except StoreError:
                raise
            except Exception as exc:
                if not self._is_backend_error(exc):
                    raise
                raise self._store_error(what, exc) from exc
            except BaseException as exc:  # a Rust panic on a damaged file
                if not panicked(exc):
                    raise
                raise StoreError(f"{self.backend_name} could not {what}: {exc}") from exc

    def _store_error(self, what: str, exc: Exception) -> StoreError:
        return StoreError(f"{self.backend_name} could not {what}: {exc}")


def panicked(exc: BaseException) -> bool:
    """A Rust library's panic (pyo3's PanicException, a BaseException): Qdrant Edge on a
    damaged file."""
    return type(exc).__name__ == "PanicException"


def stored_chunk_payload(payload: dict[str, Any]) -> dict[str, Any]:
    """The payload as written: the caller's keys plus the lower-cased text for grep (and
    a path that is not UTF-8 carried as text, see ``userfiles.encode_names``)."""
    out = dict(encode_names(payload))  # a copy: the caller's payload stays as it was
    out[TEXT_LOWER] = str(payload.get("text", "")).lower()
    return out


def stored_document_payload(payload: dict[str, Any]) -> dict[str, Any]:
    return encode_names(payload)


def public_payload(payload: dict[str, Any] | None) -> dict[str, Any]:
    """A payload as returned to callers: without the store's private keys."""
    if not payload:
        return {}
    out = dict(payload)
    out.pop(TEXT_LOWER, None)
    return decode_names(out)


def payload_update(payload: dict[str, Any]) -> dict[str, Any]:
    """A payload merge for chunks: keep ``text_lower`` in step if ``text`` changes."""
    out = encode_names(payload)
    if "text" in out:
        out[TEXT_LOWER] = str(out["text"]).lower()
    return out


def batches(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def usable_sparse(sparse: SparseVec | None) -> SparseVec | None:
    """None for a missing or empty sparse query (a query with no known BM25 tokens)."""
    if sparse is None or not sparse.indices:
        return None
    return sparse


def by_ordinal(payload: dict[str, Any]) -> int:
    return int(payload.get("ordinal", 0))


def place_ids(places: Sequence[tuple[str, int]]) -> list[str]:
    """The point ids of chunks at (doc_id, ordinal) places (ids are derived, not stored
    apart: a read by id needs no filter and no scroll over every segment)."""
    wanted = dict.fromkeys((doc_id, int(o)) for doc_id, o in places if int(o) >= 0)
    return [chunk_point_id(doc_id, o) for doc_id, o in wanted]


def found_places(
    payloads: Iterable[dict[str, Any]], collection: str | None
) -> list[dict[str, Any]]:
    """Payloads read by id, kept only in ``collection`` (when given), by (doc, ordinal)."""
    kept = [p for p in payloads if collection is None or collection in (p.get(COLLECTIONS) or ())]
    return sorted(kept, key=lambda p: (str(p.get("doc_id", "")), by_ordinal(p)))


#: What in a ``documents`` point says which version of its file it was written for.
VERSION_KEYS = ("sha256", "indexed_at")


def is_version_of(point: dict[str, Any], rec: DocumentRecord) -> bool:
    """The ``documents`` point was written for the version of the file ``rec`` records.
    ``indexed_at`` to the millisecond: the store gives back a float a digit or so off
    the one written (1796312253.9473817 came back ...815)."""
    if point.get("sha256") != rec.sha256:
        return False
    at = point.get("indexed_at")
    return isinstance(at, int | float) and abs(at - rec.indexed_at) < 1e-3
