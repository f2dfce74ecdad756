"""Turning a file into chunks, in the extraction worker process.

Everything the indexer does to a file before embedding it happens here: hash, extract (or
read the text cache), chunk with the dense model's own token counts, and the BM25 sparse
vectors. All of it is CPU-bound Python or holds the GIL (the tokenizer's ``encode`` holds it
for ~1 ms per 1,000 characters), so doing it in the parent would stall every other thread of
the app, the window's included. The parent is left with the dense model (onnxruntime
releases the GIL) and the store writes.

Each piece of work is a *step* with a time limit (``Limits``): a PDF page, or for the
steps whose work grows with the file (hashing, reading text, chunking, BM25) a fixed part
plus so much per MB. The whole file has a limit too (``Limits.file_seconds``, scaled to its
size; pages read by OCR are outside it, each has its own): a step announced near its end
gets only what is left of it. ``sandbox.py`` runs this in a process that enforces those
limits and a memory cap; here a step is only announced through ``on_step``.
"""

from __future__ import annotations

import logging
import math
import os
import stat
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docent.core.chunking import chunk_pages
from docent.core.context import document_title, indexed_text
from docent.core.errors import (
    DocumentError,
    EmptyDocument,
    FileChanging,
    FileVanished,
    TooLarge,
    UnreadableFile,
    UnsupportedType,
)
from docent.core.extract import PDF_SUFFIXES, extract
from docent.core.formats import CONTAINER_SUFFIXES
from docent.core.models import Chunk, ExtractedDocument, Page, SparseVec, line_span
from docent.core.textcache import TextCache, sha256_of
from docent.core.userfiles import NotRegularFile, open_regular, shown

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from docent.core.config import Settings

TokenCounter = Callable[[str], int]
SparseEmbedder = Callable[[Sequence[str]], list[SparseVec]]
#: ``on_step(label, seconds, pages_read)``: a step begins and must end within ``seconds``.
StepCallback = Callable[[str, float, int], None]

MB = 1 << 20


@dataclass(frozen=True, slots=True)
class Limits:
    """How long and how big one file may be while it is prepared."""

    #: One PDF page, and the fixed part of every other step.
    page_seconds: float = 30.0
    #: Added to a step per MB of the file, for steps whose work grows with its size.
    seconds_per_mb: float = 20.0
    #: Memory the worker may take on top of what it holds when idle.
    memory_mb: int = 2048
    #: Text files above this size are refused (their chunks would embed for hours).
    #: Not Office files or EPUBs: they are capped by what they unzip to (formats/).
    text_mb: int = 10
    #: One scanned page read by OCR: ~10 s on a quiet core, ~80 s seen on a busy machine.
    ocr_page_seconds: float = 180.0
    #: The whole file, outside its pages read by OCR; a tenth of it is added per MB.
    file_seconds: float = 600.0

    @classmethod
    def of(cls, s: Settings) -> Limits:
        return cls(
            page_seconds=s.extract_page_timeout,
            memory_mb=s.extract_memory_mb,
            text_mb=s.max_text_file_mb,
            ocr_page_seconds=s.extract_ocr_page_timeout,
            file_seconds=s.extract_file_timeout,
        )

    @property
    def stream_mb(self) -> int:
        """One decompressed PDF stream: a quarter of the memory cap (parsing doubles it)."""
        return max(1, self.memory_mb // 4)

    def scaled(self, size: int) -> float:
        """The limit of a step whose work grows with a file of ``size`` bytes."""
        return self.page_seconds + self.seconds_per_mb * size / MB

    def whole_file(self, size: int) -> float:
        """The limit of a whole file of ``size`` bytes, outside its pages read by OCR."""
        return self.file_seconds * (1 + 0.1 * size / MB)


#: How a step cut short by the whole file's limit ends its label (sandbox's message).
WHOLE_FILE = "the whole file may take"


@dataclass(slots=True)
class FileBudget:
    """The whole file's time limit, as the steps are announced: the time since each
    counted step began is spent; a step never gets more than what is left.

    Pages read by OCR are not counted: each has its own limit, and a long scan is slow
    honestly (its progress shows, and Cancel stops it)."""

    on_step: StepCallback
    seconds: float = math.inf
    clock: Callable[[], float] = time.monotonic
    spent: float = 0.0
    _since: float | None = None

    def step(self, label: str, seconds: float, pages: int, *, counted: bool = True) -> None:
        now = self.clock()
        if self._since is not None:
            self.spent += now - self._since
        self._since = now if counted else None
        left = self.seconds - self.spent
        if counted and left < seconds:
            # Whole seconds: the announced limit (which the pipe carries) changes once a
            # second at most, however many pages go by.
            seconds = float(max(1, math.ceil(left)))
            label = f"{label}; {WHOLE_FILE} {self.seconds:.0f} s"
        self.on_step(label, seconds, pages)


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
    #: what of the file could not be read (gaps.py), and how many scanned pages of it
    #: for want of OCR
    gaps: str = ""
    scans_unread: int = 0
    reason: str = ""
    message: str = ""
    #: The file read again (a Re-index, OCR turned on, a newer reader) gave another text
    #: than the one cached for it: what was made of the old text (summaries) is stale.
    text_changed: bool = False


def _texts(doc: ExtractedDocument) -> list[str]:
    return [p.text for p in doc.pages]


def _no_step(label: str, seconds: float, pages: int) -> None:
    return None


@dataclass(slots=True)
class Preparer:
    """Prepares files with a given token counter and BM25 model (in whichever process)."""

    count_tokens: TokenCounter
    embed_sparse: SparseEmbedder
    limits: Limits = field(default_factory=Limits)
    #: Read PDF pages without a usable text layer by OCR (Settings.ocr_enabled).
    ocr: bool = True

    def prepare(
        self,
        path: str,
        cache_root: str,
        known_sha: str,
        on_step: StepCallback = _no_step,
        *,
        pdfium: bool = True,
        fresh: bool = False,
    ) -> Prepared:
        """Hash ``path``; unless ``known_sha`` says it is unchanged, chunk its text.

        ``pdfium`` False: a PDF is read by pdfplumber alone (pdfium crashed on it).
        ``fresh``: read from the file, not the text cache (a Re-index); the cached text
        is replaced only once the new one is read, so a Re-index cancelled meanwhile
        leaves the document's text as it was."""
        sha = ""
        changed = False
        budget = FileBudget(on_step)
        step = budget.step
        try:
            cache = TextCache(Path(cache_root))
            for attempt in range(1, READS + 1):
                sha, size, stamp = self._hash(path, step)
                budget.seconds = self.limits.whole_file(size)
                if sha == known_sha:
                    return Prepared(sha, unchanged=True)
                cached = None if fresh else cache.get(sha)
                if cached is not None and not (
                    self.ocr and cached.kind == "pdf" and not cached.ocr_checked
                ):
                    doc = cached
                    break
                doc = self._extract(path, size, budget, pdfium)
                # The file is read twice, to hash it and to extract it: saved in between,
                # its new text would be cached under the old content's hash, and given to
                # that content for good (review). Read again, or say so.
                if _stamp(path) == stamp:
                    before = cache.get(sha, stale=True)
                    changed = before is not None and _texts(before) != _texts(doc)
                    try:
                        cache.put(sha, doc)
                    except OSError as exc:
                        # Only a speed-up: a full disk or an I/O error on it is not the
                        # file's fault (it was failed for good as "damaged"; review). A
                        # disk really full is stopped before the store is written.
                        log.warning("could not cache the text of %s: %s", shown(path), exc)
                    break
                if attempt == READS:
                    raise FileChanging(
                        path,
                        f"{shown(Path(path).name)} kept changing while Docent read it; index "
                        "it again once it is saved (a watched folder does so by itself).",
                    )
            text_size = sum(len(p.text) for p in doc.pages)
            step("cutting the text into passages", self.limits.scaled(text_size), len(doc.pages))
            title = document_title(doc.pages)
            chunks = chunk_document(doc.pages, self.count_tokens, title, doc.lines_per_page)
            if not chunks:
                raise EmptyDocument(path, f"{shown(Path(path).name)} has no text to index.")
            step("scoring words for search", self.limits.scaled(text_size), len(doc.pages))
            return Prepared(
                sha,
                chunks=chunks,
                sparse=self.embed_sparse([indexed_text(c.context, c.text) for c in chunks]),
                pages=len(doc.pages),
                page_unit=doc.page_unit,
                ocr_pages=doc.ocr_pages,
                gaps=doc.gaps,
                scans_unread=doc.scans_unread,
                text_changed=changed,
            )
        except DocumentError as exc:
            return Prepared(sha, reason=exc.reason, message=str(exc))

    def _extract(self, path: str, size: int, budget: FileBudget, pdfium: bool) -> ExtractedDocument:
        """Read ``path``, announcing each step: a PDF page by page (and each page OCR'd),
        anything else as one step scaled to its size."""
        self._check_size(path, size)
        lim, step = self.limits, budget.step
        if Path(path).suffix.lower() not in PDF_SUFFIXES:
            step("reading the text", lim.scaled(size), 0)

        def page(n: int) -> None:
            label = f"reading page {n}" if n else "opening the PDF"
            step(label, lim.page_seconds, max(0, n - 1))

        def ocr_page(number: int, done: int, total: int) -> None:
            if number == 0:
                step("looking for scanned pages", lim.scaled(size), 0)
            else:
                label = f"reading scanned page {number} by OCR ({done + 1} of {total})"
                step(label, lim.ocr_page_seconds, number - 1, counted=False)

        return extract(path, ocr=self.ocr, on_ocr=ocr_page, on_page=page, pdfium=pdfium)

    def _hash(self, path: str, on_step: StepCallback) -> tuple[str, int, Stamp]:
        """The file's sha256, its size, and its ``Stamp`` before it was read (a save while
        it is hashed shows as a change too)."""
        name = shown(Path(path).name)
        on_step("opening the file", self.limits.page_seconds, 0)
        try:
            with open_regular(path) as fh:
                stamp = _stamp_of(os.fstat(fh.fileno()))
                size = _size(fh)
                on_step("reading the file", self.limits.scaled(size), 0)
                return sha256_of(fh), size, stamp
        except NotRegularFile as exc:
            raise UnsupportedType(
                path, f"{name} is {exc.kind}, not a regular file; skipped."
            ) from exc
        except FileNotFoundError as exc:
            raise FileVanished(path, f"{name} disappeared before it was read.") from exc
        except OSError as exc:
            raise UnreadableFile(path, f"{name} cannot be read: {exc.strerror}.") from exc

    def _check_size(self, path: str, size: int) -> None:
        cap = self.limits.text_mb
        suffix = Path(path).suffix.lower()
        if suffix not in PDF_SUFFIXES | CONTAINER_SUFFIXES and size > cap * MB:
            raise TooLarge(
                path,
                f"{shown(Path(path).name)} is {size / MB:.0f} MB of text, more than the "
                f"{cap} MB Docent indexes (its passages would take hours to embed). Split it, "
                "or raise max_text_file_mb in the settings.",
            )


#: Times a file is read before one that keeps changing meanwhile is given up.
READS = 2
#: What changes when a file is saved: size, modification time (ns), inode (a new file
#: renamed over it).
Stamp = tuple[int, int, int]


def _stamp_of(st: os.stat_result) -> Stamp:
    return (st.st_size, st.st_mtime_ns, st.st_ino)


def _stamp(path: str) -> Stamp | None:
    try:
        return _stamp_of(os.stat(path))
    except OSError:
        return None


def _size(fh: Any) -> int:
    st = os.fstat(fh.fileno())
    return st.st_size if stat.S_ISREG(st.st_mode) else 0


def chunk_document(
    pages: Sequence[Page],
    count_tokens: TokenCounter,
    title: str | None = None,
    lines_per_page: int = 0,
) -> list[Chunk]:
    """Chunks numbered 0..n-1. A document whose units are named (slides, a sheet's rows,
    sections, chapters) is chunked one unit at a time, so that every passage lies in one
    unit and its citation names exactly one ("slide 3", not "slides 1-3").

    ``lines_per_page``: a text file's blocks of that many lines (its ``page_unit``); each
    chunk is cited by its own lines ("lines 13-29"), not as a page it has not.
    Chunks may span blocks: a Markdown heading holds over the next block."""
    if lines_per_page and pages:
        last = pages[-1]
        total = (last.number - 1) * lines_per_page + last.text.count("\n") + 1
        return [
            replace(
                c,
                location=line_span(
                    (c.page_start - 1) * lines_per_page + c.lines[0] + 1,
                    min((c.page_end - 1) * lines_per_page + c.lines[1] + 1, total),
                ),
                page_breaks=(),  # cited by its lines: no pages to open
            )
            for c in chunk_pages(pages, count_tokens, title=title, paged=False)
        ]
    if not any(p.label for p in pages):
        return chunk_pages(pages, count_tokens, title=title)
    out: list[Chunk] = []
    for page in pages:
        for c in chunk_pages([page], count_tokens, title=title):
            out.append(replace(c, ordinal=len(out), location=page.label))
    return out


# ------------------------------------------------------------- in the worker process


def worker_preparer(
    tokenizer_json: str, cache_dir: str | None, limits: Limits | None = None, ocr: bool = True
) -> Preparer:
    """The tools a worker process builds: the parent's tokenizer and the bundled BM25."""
    from tokenizers import Tokenizer

    from docent.core.embedding import load_bm25, sparse_vectors

    tokenizer = Tokenizer.from_str(tokenizer_json)
    bm25: Any = load_bm25(cache_dir)

    def count(text: str) -> int:
        return len(tokenizer.encode(text).ids)

    return Preparer(count, lambda texts: sparse_vectors(bm25, texts), limits or Limits(), ocr)
