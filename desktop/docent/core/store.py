"""The vector store: the Qdrant schema and the one interface every other module uses.

Two backends implement :class:`Store`:

- :class:`~docent.core.store_edge.EdgeStore` (default): Qdrant Edge running in process,
  one shard per collection under the store folder.
- :class:`~docent.core.store_client.ClientStore`: ``qdrant-client`` against a Qdrant
  server or cluster, or qdrant-client's local mode (tests only; too slow for real use).

Schema (both backends):

- ``chunks``: dense ``dense`` (cosine) + sparse ``bm25`` (IDF applied by Qdrant). Payload
  doc_id, path, file_name, page_start, page_end, ordinal, text, content_hash, heading,
  plus ``text_lower``: a lower-cased copy of ``text`` kept only for case-insensitive
  :meth:`Store.grep` (Qdrant's substring match is case-sensitive). It never leaves the store.
- ``documents``: dense ``dense`` (cosine), one point per document; payload has doc_id.

Each backend serialises its calls with one lock: neither Qdrant Edge nor local mode is
thread-safe. Backend failures surface as :class:`~docent.core.errors.StoreError`.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from docent.core.errors import StoreError
from docent.core.models import SparseVec

if TYPE_CHECKING:
    from docent.core.store_client import ClientStore
    from docent.core.store_edge import EdgeStore

__all__ = [
    "ChunkPoint",
    "ClientStore",
    "EdgeStore",
    "ScoredPoint",
    "Store",
    "chunk_point_id",
    "document_point_id",
    "open_store",
]

CHUNKS = "chunks"
DOCUMENTS = "documents"
DENSE = "dense"
SPARSE = "bm25"
#: The lower-cased copy of ``text`` behind grep; stripped from every payload returned.
TEXT_LOWER = "text_lower"
#: RRF constant. 60 is the value the retrieval baseline was measured with (DESIGN.md).
RRF_K = 60
#: Points per write: Qdrant Edge holds the GIL for a whole call (~10 ms per 100 points).
UPSERT_BATCH = 100
#: Points per scroll page when reading a whole document or matching hashes.
SCROLL_PAGE = 256

# Fixed namespace for point ids: never change it, or every stored id changes meaning.
_NAMESPACE = uuid.UUID("6f0b7c4e-3d5a-5b8e-9c1d-2a4f6e8b0d13")


@dataclass(slots=True)
class ChunkPoint:
    id: str
    dense: list[float]
    sparse: SparseVec
    payload: dict[str, Any]


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


class Store(Protocol):
    dim: int

    def close(self) -> None: ...
    def flush(self) -> None: ...

    def upsert_chunks(self, points: Sequence[ChunkPoint]) -> None: ...
    def delete_chunks(self, doc_id: str, from_ordinal: int = 0) -> None: ...
    def set_chunks_payload(self, doc_id: str, payload: dict[str, Any]) -> None: ...
    def count_chunks(self, doc_id: str | None = None) -> int: ...
    def dense_by_content_hash(self, hashes: Sequence[str]) -> dict[str, list[float]]: ...
    def chunks_by_ordinals(self, doc_id: str, ordinals: Sequence[int]) -> list[dict[str, Any]]: ...
    def iter_chunks(
        self, doc_id: str, with_vectors: bool = False
    ) -> list[tuple[dict[str, Any], list[float] | None]]: ...
    def query(
        self,
        *,
        dense: list[float] | None = None,
        sparse: SparseVec | None = None,
        limit: int = 10,
        doc_ids: Sequence[str] | None = None,
        exclude_doc_ids: Sequence[str] | None = None,
        prefetch_limit: int = 50,
    ) -> list[ScoredPoint]: ...
    def text_match(
        self,
        text: str,
        limit: int = 100,
        doc_ids: Sequence[str] | None = None,
        exclude_doc_ids: Sequence[str] | None = None,
    ) -> list[ScoredPoint]: ...
    def grep(self, needle: str, limit: int = 100) -> list[ScoredPoint]: ...

    def upsert_document(self, doc_id: str, dense: list[float], payload: dict[str, Any]) -> None: ...
    def delete_document(self, doc_id: str) -> None: ...
    def query_documents(self, dense: list[float], limit: int = 20) -> list[ScoredPoint]: ...
    def get_document(self, doc_id: str) -> dict[str, Any] | None: ...
    def set_document_payload(self, doc_id: str, payload: dict[str, Any]) -> None: ...


def open_store(
    *,
    path: Path | None = None,
    url: str = "",
    api_key: str = "",
    dim: int = 384,
    local_client_path: str | None = None,
) -> Store:
    """Open (creating the schema if absent) the store the settings ask for.

    ``url`` set: a Qdrant server. ``local_client_path`` set (":memory:" or a folder):
    qdrant-client's local mode, for tests. Otherwise Qdrant Edge under ``path``.
    """
    if url or local_client_path is not None:
        from docent.core.store_client import ClientStore

        return ClientStore(url=url, api_key=api_key, dim=dim, local_path=local_client_path)
    if path is None:
        raise ValueError("open_store needs a path for the embedded store, or a url")
    from docent.core.store_edge import EdgeStore

    return EdgeStore(path, dim=dim)


def __getattr__(name: str) -> Any:
    # The backends import heavy libraries; load them only when named.
    if name == "EdgeStore":
        from docent.core.store_edge import EdgeStore

        return EdgeStore
    if name == "ClientStore":
        from docent.core.store_client import ClientStore

        return ClientStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
                raise StoreError(f"{self.backend_name} could not {what}: {exc}") from exc


def stored_chunk_payload(payload: dict[str, Any]) -> dict[str, Any]:
    """The payload as written: the caller's keys plus the lower-cased text for grep."""
    out = dict(payload)
    out[TEXT_LOWER] = str(payload.get("text", "")).lower()
    return out


def public_payload(payload: dict[str, Any] | None) -> dict[str, Any]:
    """A payload as returned to callers: without the store's private keys."""
    if not payload:
        return {}
    out = dict(payload)
    out.pop(TEXT_LOWER, None)
    return out


def payload_update(payload: dict[str, Any]) -> dict[str, Any]:
    """A payload merge for chunks: keep ``text_lower`` in step if ``text`` changes."""
    out = dict(payload)
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
