"""The vector store: the Qdrant schema and the one interface every other module uses.

Two backends implement :class:`Store`:

- :class:`~docent.core.store_edge.EdgeStore` (default): Qdrant Edge running in process,
  one shard per collection under the store folder.
- :class:`~docent.core.store_client.ClientStore`: ``qdrant-client`` against a Qdrant
  server or cluster, or qdrant-client's local mode (tests only; too slow for real use).

Schema (both backends):

- ``chunks``: dense ``dense`` (cosine) + sparse ``bm25`` (IDF applied by Qdrant). Payload
  doc_id, path, file_name, page_start, page_end, ordinal, text, content_hash, heading,
  ``collections`` (the ids of the document's collections, keyword-indexed: every search
  method takes ``collection`` and filters inside the query, prefetches included),
  context (the title and heading path embedded with the text), location,
  ``sentences`` (the chunk's sentence vectors, packed: sentence_vectors.py; read only by
  :meth:`Store.sentence_vectors`, reuse and copies), plus ``text_lower``: a lower-cased
  copy of ``text`` kept only for case-insensitive :meth:`Store.grep` (Qdrant's substring
  match is case-sensitive). It never leaves the store.
- ``documents``: dense ``dense`` (cosine), one point per document; payload has doc_id
  and ``collections``.

Each backend serialises its calls with one lock: neither Qdrant Edge nor local mode is
thread-safe. Backend failures surface as :class:`~docent.core.errors.StoreError`.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from docent.core.models import SparseVec
from docent.core.store_base import (
    CHUNKS,
    COLLECTIONS,
    DENSE,
    DOCUMENTS,
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
    ServerCheck,
    chunk_point_id,
    document_point_id,
)

if TYPE_CHECKING:
    from docent.core.store_server import ServerOptions

__all__ = [
    "ServerCheck",
    "CHUNKS",
    "COLLECTIONS",
    "DENSE",
    "DOCUMENTS",
    "RRF_K",
    "SCROLL_PAGE",
    "SENTENCES",
    "SPARSE",
    "TEXT_LOWER",
    "UPSERT_BATCH",
    "ChunkPoint",
    "ChunkVectors",
    "LockedBackend",
    "ScoredPoint",
    "Store",
    "chunk_point_id",
    "document_point_id",
    "open_store",
]


class Store(Protocol):
    dim: int

    def close(self) -> None: ...
    def flush(self) -> None: ...
    def index_due(self, closing: bool = False) -> bool:
        """True when enough written points wait outside the vector index that
        ``optimize`` should run now, or before closing (a server indexes by itself)."""
        ...

    def optimize(self) -> bool:
        """Index what waits (seconds per step; queries wait meanwhile): True if it did."""
        ...

    def upsert_chunks(self, points: Sequence[ChunkPoint]) -> None: ...
    def delete_chunks(self, doc_id: str, from_ordinal: int = 0) -> None: ...
    def set_chunks_payload(self, doc_id: str, payload: dict[str, Any]) -> None: ...
    def count_chunks(self, doc_id: str | None = None) -> int: ...
    def vectors_by_content_hash(self, hashes: Sequence[str]) -> dict[str, ChunkVectors]:
        """The vectors of a stored chunk for each of these content hashes that one has."""
        ...

    def dense_vectors(self, ids: Sequence[str]) -> dict[str, list[float]]:
        """The dense vectors of these chunks (by point id); nothing for an id with no chunk."""
        ...

    def sentence_vectors(self, ids: Sequence[str]) -> dict[str, str]:
        """The packed sentence vectors of these chunks (by point id); "" for a chunk
        indexed before they were kept, nothing for an id with no chunk."""
        ...

    def chunks_at(
        self, places: Sequence[tuple[str, int]], collection: str | None = None
    ) -> list[dict[str, Any]]:
        """The chunks at these (doc_id, ordinal) places, in one read whatever the number
        of documents; places with no chunk (or outside ``collection``) are left out."""
        ...

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
        collection: str | None = None,
    ) -> list[ScoredPoint]: ...
    def text_match(
        self,
        text: str,
        limit: int = 100,
        doc_ids: Sequence[str] | None = None,
        exclude_doc_ids: Sequence[str] | None = None,
        collection: str | None = None,
        phrase: bool = False,
    ) -> list[ScoredPoint]: ...
    def chunks_on_pages(
        self, doc_ids: Sequence[str], spans: Sequence[tuple[int, int]], limit: int = 500
    ) -> list[ScoredPoint]:
        """The chunks of these documents with a page in one of ``spans`` (first, last),
        at most ``limit``, in no order."""
        ...

    def grep(
        self,
        needle: str,
        limit: int = 100,
        collection: str | None = None,
        exclude_doc_ids: Collection[str] = (),
        also: Sequence[str] = (),
    ) -> list[ScoredPoint]:
        """Passages holding ``needle`` (any case), and each of ``also`` too."""

    def chunk_counts(self) -> dict[str, int]: ...
    def export_chunks(self, doc_id: str) -> list[ChunkPoint]:
        """A document's chunk points whole (dense and sparse vectors, payload), by
        ordinal: what copying a library to another store writes, with no re-embedding."""
        ...

    def upsert_document(self, doc_id: str, dense: list[float], payload: dict[str, Any]) -> None: ...
    def delete_document(self, doc_id: str) -> None: ...
    def query_documents(
        self, dense: list[float], limit: int = 20, collection: str | None = None
    ) -> list[ScoredPoint]: ...
    def get_document(self, doc_id: str) -> dict[str, Any] | None: ...
    def export_document(self, doc_id: str) -> tuple[list[float], dict[str, Any]] | None:
        """A document's point (its vector and payload), or None."""
        ...

    def set_document_payload(self, doc_id: str, payload: dict[str, Any]) -> None: ...
    def count_documents(self) -> int: ...
    def document_payloads(self, keys: Sequence[str] = ()) -> dict[str, dict[str, Any]]:
        """Each ``documents`` point's payload by doc_id; ``keys``: only those (and doc_id)."""
        ...


def open_store(
    *,
    path: Path | None = None,
    server: ServerOptions | None = None,
    dim: int = 384,
    local_client_path: str | None = None,
) -> Store:
    """Open (creating the schema if absent) the store the settings ask for.

    ``server`` set: a Qdrant server or cluster. ``local_client_path`` set (":memory:" or
    a folder): qdrant-client's local mode, for tests. Otherwise Qdrant Edge under ``path``.
    """
    if server is not None or local_client_path is not None:
        from docent.core.store_client import ClientStore

        return ClientStore(server=server, dim=dim, local_path=local_client_path)
    if path is None:
        raise ValueError("open_store needs a path for the embedded store, or a server")
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
