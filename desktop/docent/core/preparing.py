"""Turning a file into chunks, in the extraction worker process.

Everything the indexer does to a file before embedding it happens here: hash, extract (or
read the text cache), chunk with the dense model's own token counts, and the BM25 sparse
vectors. All of it is CPU-bound Python or holds the GIL (the tokenizer's ``encode`` holds it
for ~1 ms per 1,000 characters), so doing it in the parent would stall every other thread of
the app, the window's included. The parent is left with the dense model (onnxruntime
releases the GIL) and the store writes.

The worker process builds its tools once (``init_worker``): the tokenizer from the JSON
the parent's model uses, and fastembed's BM25 from the bundled files, so its counts and
sparse vectors are the ones the parent would have computed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from docent.core.chunking import chunk_pages
from docent.core.context import document_title, indexed_text
from docent.core.errors import DocumentError, EmptyDocument, FileVanished, UnreadableFile
from docent.core.extract import extract
from docent.core.models import Chunk, Page, SparseVec
from docent.core.textcache import TextCache, sha256_file

TokenCounter = Callable[[str], int]
SparseEmbedder = Callable[[Sequence[str]], list[SparseVec]]


@dataclass(slots=True)
class Prepared:
    """What the worker sends back (plain data: exceptions do not pickle well)."""

    sha256: str = ""
    unchanged: bool = False
    #: The file's chunks, numbered 0..n-1, and their BM25 vectors (same order), made from
    #: each chunk's context and text (context.indexed_text).
    chunks: list[Chunk] = field(default_factory=list)
    sparse: list[SparseVec] = field(default_factory=list)
    pages: int = 0
    page_unit: str = "page"
    #: pages read by OCR
    ocr_pages: int = 0
    reason: str = ""
    message: str = ""


@dataclass(slots=True)
class Preparer:
    """Prepares files with a given token counter and BM25 model (in whichever process)."""

    count_tokens: TokenCounter
    embed_sparse: SparseEmbedder
    #: Read PDF pages without a usable text layer by OCR (Settings.ocr_enabled).
    ocr: bool = True

    def prepare(self, path: str, cache_root: str, known_sha: str) -> Prepared:
        """Hash ``path``; unless ``known_sha`` says it is unchanged, chunk its text."""
        sha = ""
        try:
            try:
                sha = sha256_file(path)
            except FileNotFoundError as exc:
                raise FileVanished(
                    path, f"{Path(path).name} disappeared before it was read."
                ) from exc
            except OSError as exc:
                raise UnreadableFile(
                    path, f"{Path(path).name} cannot be read: {exc.strerror}."
                ) from exc
            if sha == known_sha:
                return Prepared(sha, unchanged=True)
            cache = TextCache(Path(cache_root))
            doc = cache.get(sha)
            if doc is None or (self.ocr and doc.kind == "pdf" and not doc.ocr_checked):
                doc = extract(path, ocr=self.ocr)
                cache.put(sha, doc)
            title = document_title(doc.pages)
            chunks = chunk_document(doc.pages, self.count_tokens, title)
            if not chunks:
                raise EmptyDocument(path, f"{Path(path).name} has no text to index.")
            return Prepared(
                sha,
                chunks=chunks,
                sparse=self.embed_sparse([indexed_text(c.context, c.text) for c in chunks]),
                pages=len(doc.pages),
                page_unit=doc.page_unit,
                ocr_pages=doc.ocr_pages,
            )
        except DocumentError as exc:
            return Prepared(sha, reason=exc.reason, message=str(exc))


def chunk_document(
    pages: Sequence[Page], count_tokens: TokenCounter, title: str | None = None
) -> list[Chunk]:
    """Chunks numbered 0..n-1. A document whose units are named (slides, a sheet's rows,
    sections, chapters) is chunked one unit at a time, so that every passage lies in one
    unit and its citation names exactly one ("slide 3", not "slides 1-3")."""
    if not any(p.label for p in pages):
        return chunk_pages(pages, count_tokens, title=title)
    out: list[Chunk] = []
    for page in pages:
        for c in chunk_pages([page], count_tokens, title=title):
            out.append(replace(c, ordinal=len(out), location=page.label))
    return out


# ------------------------------------------------------------- in the worker process

_worker: Preparer | None = None


def worker_preparer(tokenizer_json: str, cache_dir: str | None, ocr: bool = True) -> Preparer:
    """The tools a worker process builds: the parent's tokenizer and the bundled BM25."""
    from tokenizers import Tokenizer

    from docent.core.embedding import load_bm25, sparse_vectors

    tokenizer = Tokenizer.from_str(tokenizer_json)
    bm25: Any = load_bm25(cache_dir)

    def count(text: str) -> int:
        return len(tokenizer.encode(text).ids)

    return Preparer(count, lambda texts: sparse_vectors(bm25, texts), ocr=ocr)


def init_worker(tokenizer_json: str, cache_dir: str | None, ocr: bool = True) -> None:
    """Pool initializer: build the tools once; Ctrl-C is for the parent, which shuts down."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    global _worker
    _worker = worker_preparer(tokenizer_json, cache_dir, ocr)


def prepare_file(path: str, cache_root: str, known_sha: str) -> Prepared:
    """The worker process's entry point (see ``init_worker``)."""
    if _worker is None:
        raise RuntimeError("prepare_file runs in a worker started with init_worker")
    return _worker.prepare(path, cache_root, known_sha)
