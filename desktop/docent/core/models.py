"""Plain data that crosses module boundaries: pages, chunks, documents, hits.

Everything here is a frozen dataclass or an enum with no behaviour beyond trivial
helpers, so every layer (extract, chunking, store, retrieval, answering, GUI) can share
it without importing each other.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Page:
    """One unit of a source document, numbered from 1.

    For PDFs a page is the physical page. For text files it is a fixed-size block of
    lines (see ``ExtractedDocument.page_unit``).
    """

    number: int
    text: str


@dataclass(frozen=True, slots=True)
class ExtractedDocument:
    path: str
    kind: str  # "pdf" | "text"
    pages: list[Page]
    #: "page" for PDFs, "lines:N" for text files split into blocks of N lines.
    page_unit: str = "page"

    @property
    def word_count(self) -> int:
        return sum(len(p.text.split()) for p in self.pages)


@dataclass(frozen=True, slots=True)
class Chunk:
    """A passage of a document, never losing the pages it came from."""

    text: str
    page_start: int
    page_end: int
    ordinal: int
    heading: str = ""
    #: Title and heading path (context.py): indexed with the text, never shown as it.
    context: str = ""


class DocState(enum.StrEnum):
    QUEUED = "queued"
    INDEXING = "indexing"
    READY = "ready"
    FAILED = "failed"
    REMOVING = "removing"


@dataclass(slots=True)
class DocumentRecord:
    """What the catalog knows about one file."""

    doc_id: str
    path: str
    file_name: str
    sha256: str = ""
    size: int = 0
    mtime: float = 0.0
    pages: int = 0
    chunks: int = 0
    state: DocState = DocState.QUEUED
    #: Machine-readable failure kind (see errors.DocumentError.reason), "" when none.
    reason: str = ""
    #: The user sentence for a failure, "" when none.
    error: str = ""
    page_unit: str = "page"
    indexed_at: float = 0.0
    summary: str = ""
    #: The index format its chunks were written in (embedding.Embedder.index_format);
    #: a document in another format is re-indexed (incrementally) by the next run.
    index_format: str = ""


@dataclass(frozen=True, slots=True)
class SparseVec:
    indices: list[int]
    values: list[float]


@dataclass(slots=True)
class Hit:
    """One retrieved chunk, ready to show or cite."""

    chunk_id: str
    doc_id: str
    file_name: str
    path: str
    page_start: int
    page_end: int
    ordinal: int
    score: float
    text: str
    #: Neighbouring chunks' text (same document, ordinal ±1), for context only.
    context_before: str = ""
    context_after: str = ""
    debug: dict[str, object] = field(default_factory=dict)

    @property
    def pages_label(self) -> str:
        if self.page_start == self.page_end:
            return f"p.{self.page_start}"
        return f"pp.{self.page_start}-{self.page_end}"
