"""Plain data that crosses module boundaries: pages, chunks, documents, hits.

Everything here is a frozen dataclass or an enum with no behaviour beyond trivial
helpers, so every layer (extract, chunking, store, retrieval, answering, GUI) can share
it without importing each other.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol


@dataclass(frozen=True, slots=True)
class LineBox:
    """Where a line of a page's text was read on the page image (OCR): characters
    ``[start, end)`` of ``Page.text``, in a box given as fractions of the page's width and
    height, origin at the top left."""

    start: int
    end: int
    x0: float
    y0: float
    x1: float
    y1: float


@dataclass(frozen=True, slots=True)
class Page:
    """One unit of a source document, numbered from 1.

    For PDFs a page is the physical page. For text files it is a fixed-size block of
    lines (see ``ExtractedDocument.page_unit``). For other formats it is the unit a
    citation can point at: a slide, a block of a sheet's rows, a chapter or a section,
    named by ``label``.
    """

    number: int
    text: str
    #: How a citation names this unit ("slide 3", "Sheet1 rows 2-26", "Setup"); "" for
    #: a PDF page or a block of a text file (then "p.N").
    label: str = ""
    #: The text was recognised from the page's image (OCR), and ``lines`` says where.
    ocr: bool = False
    lines: tuple[LineBox, ...] = ()
    #: Why its text is missing ("" when it was read): gaps.py's UNREADABLE, OCR_FAILED,
    #: NOT_OCRED.
    unread: str = ""


def line_span(first: int, last: int) -> str:
    """How a citation names lines of a text file: "lines 61-120", "line 4"."""
    return f"line {first}" if first >= last else f"lines {first}-{last}"


@dataclass(frozen=True, slots=True)
class ExtractedDocument:
    path: str
    kind: str  # "pdf" | "text" | "docx" | "pptx" | "xlsx" | "epub" | "html" | "odt"
    pages: list[Page]
    #: "page" for PDFs, "lines:N" for text files split into blocks of N lines; "slide",
    #: "rows", "chapter" or "section" for the other formats (pages carry labels).
    page_unit: str = "page"
    #: Pages without a usable text layer were looked for and OCR'd (a PDF extracted with
    #: OCR off is extracted again once OCR is turned on).
    ocr_checked: bool = False
    #: What of it could not be read (gaps.note): "page 4 could not be read"; "" for none.
    gaps: str = ""
    #: Scanned pages left unread because OCR was off (read once it is on).
    scans_unread: int = 0

    @property
    def word_count(self) -> int:
        return sum(len(p.text.split()) for p in self.pages)

    @property
    def lines_per_page(self) -> int:
        """The lines in each block of a text file ("lines:60"); 0 for pages or units."""
        unit, _, n = self.page_unit.partition(":")
        return int(n) if unit == "lines" and n.isdigit() else 0

    @property
    def ocr_pages(self) -> int:
        return sum(1 for p in self.pages if p.ocr)


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
    #: The document's title (context.py's ``document_title``; "" when it has none): the
    #: rerank favours the documents whose title names what the question names.
    title: str = ""
    #: Where it is, for formats whose units are named ("slide 3", "Sheet1 rows 2-51");
    #: "" for PDF pages and text blocks (named by number). See locations.py.
    location: str = ""
    #: Of a passage that runs onto later pages: each such page with the offset in ``text``
    #: where it begins, so that a part of the passage is put on its own page
    #: (``page_at``). Empty for a passage on one page.
    page_breaks: tuple[tuple[int, int], ...] = ()
    #: The line of its first page it opens on and of its last page it ends on (0-based):
    #: a text file's passage is cited by them (preparing.chunk_document).
    lines: tuple[int, int] = (0, 0)


def page_at(page_start: int, page_breaks: Sequence[Sequence[int]], offset: int) -> int:
    """The page of the passage that holds character ``offset`` of its text."""
    page = page_start
    for number, begins in page_breaks:
        if offset < begins:
            break
        page = number
    return page


def split_pages(
    text: str, page_start: int, page_breaks: Sequence[Sequence[int]]
) -> list[tuple[int, str]]:
    """Each page of a passage with its part of the passage's text."""
    starts = [(page_start, 0), *((number, begins) for number, begins in page_breaks)]
    ends = [begins for _, begins in page_breaks] + [len(text)]
    return [(page, text[a:b].strip()) for (page, a), b in zip(starts, ends, strict=True)]


#: A part of a passage on the page asked with fewer words than this is no answer from
#: that page (a heading, a sentence's tail): the passage is left out of the page's.
MIN_PAGE_PART_WORDS = 6


def part_on_pages(hit: Hit, spans: Sequence[tuple[int, int]]) -> Hit | None:
    """``hit`` cut to its pages from the first to the last that ``spans`` ask for (each
    first to last), its pages and page breaks with it: "What does page 5 say?" is
    answered from page 5, not from the foot of page 4 that a passage running onto page
    5 starts with. Unchanged when it lies on those pages only, or its page breaks are not
    known; None when its part there has fewer than ``MIN_PAGE_PART_WORDS`` words (a
    heading or a sentence's tail)."""
    if not hit.page_breaks:
        return hit
    parts = split_pages(hit.text, hit.page_start, hit.page_breaks)
    asked = [page for page, part in parts if part and any(a <= page <= b for a, b in spans)]
    if not asked:
        return hit
    kept = [(page, part) for page, part in parts if asked[0] <= page <= asked[-1] and part]
    if len(kept) == len(parts):
        return hit
    text, breaks = "", []
    for page, part in kept:
        if text:
            text += "\n"
            breaks.append((page, len(text)))
        text += part
    if len(text.split()) < MIN_PAGE_PART_WORDS:
        return None
    return replace(
        hit, text=text, page_start=kept[0][0], page_end=kept[-1][0], page_breaks=tuple(breaks)
    )


def page_breaks_of(payload: Mapping[str, object]) -> tuple[tuple[int, int], ...]:
    """A stored passage's ``page_breaks`` (none in a payload written before them)."""
    raw = payload.get("page_breaks")
    if not isinstance(raw, list):
        return ()
    return tuple((int(b[0]), int(b[1])) for b in raw if isinstance(b, list) and len(b) == 2)


class DocState(enum.StrEnum):
    QUEUED = "queued"
    INDEXING = "indexing"
    READY = "ready"
    FAILED = "failed"
    REMOVING = "removing"


#: The ``reason`` of a queued document whose indexing the user cancelled: it waits for
#: the user's Resume (or Re-index), and nothing resumes it by itself, not even a restart.
CANCELLED = "cancelled"
#: What such a document's row says (the window's, ``docent list``): a cancel or Docent
#: closing mid-run; closing is no cancel a person made (QA-78).
CANCELLED_NOTE = (
    "Indexing stopped before it finished (cancelled, or Docent closed): Resume finishes it."
)
#: The ``reason`` of a ready document whose changed file's new version is being staged
#: beside it (``Indexer._stage``): a crash leaves it so, and resume indexes the change
#: while the old version stays searchable (``Catalog.outdated``).
UPDATING = "updating"
#: What ends the id a changed document's new version is staged under (``staging_id``).
STAGED_SUFFIX = ".staged"


class StatResult(Protocol):
    """What ``DocumentRecord`` reads of an ``os.stat_result``."""

    @property
    def st_size(self) -> int: ...
    @property
    def st_mtime(self) -> float: ...
    @property
    def st_ctime(self) -> float: ...


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
    #: Pages whose text was read from their image (OCR); 0 when none.
    ocr_pages: int = 0
    #: What of the file could not be read (gaps.py): "page 4 could not be read"; "" none.
    gaps: str = ""
    #: Of those, scanned pages left unread with OCR off: read again once it is on
    #: (``Indexer.awaiting_ocr``). A count, not the words of ``gaps``, decides it.
    scans_unread: int = 0
    #: The file's status-change time (``st_ctime``) when last seen: a write moves it even
    #: when the writer keeps the modification time (``cp -p``, ``rsync -a``, an archive
    #: unpacked: an edit of as many bytes was missed, QA session 29). 0: not known yet (a
    #: record of an older Docent: ``Indexer`` learns it at the next run).
    ctime: float = 0.0
    #: Ids of the collections it belongs to (never empty once indexed). Read from the
    #: catalog's memberships; ``Catalog.put`` does not write them (``set_collections`` does).
    collections: list[str] = field(default_factory=list)

    def same_file(self, st: StatResult, *, status: bool = True) -> bool:
        """``st`` (the stat of its path) is the version this record was made from: the
        same size, modification time and (``status``), when known, status-change time."""
        same = (st.st_size, st.st_mtime) == (self.size, self.mtime)
        return same and (not status or self.ctime in (0.0, st.st_ctime))

    def stamp(self, st: StatResult) -> None:
        """Remember ``st`` as the version this record was made from."""
        self.size, self.mtime, self.ctime = st.st_size, st.st_mtime, st.st_ctime

    @property
    def state_label(self) -> str:
        """Its state as the user is shown it: "cancelled" for a file whose indexing was
        cancelled (queued, waiting for Resume), else the state's own name. `docent list`
        said "queued" where the window and `docent status` say "cancelled" (QA, 27)."""
        return (
            "cancelled"
            if self.state is DocState.QUEUED and self.reason == CANCELLED
            else self.state.value
        )


#: The id of the collection that documents added without one go to.
DEFAULT_COLLECTION = "default"


@dataclass(frozen=True, slots=True)
class Collection:
    """A named set of documents; a document can be in several."""

    id: str
    name: str
    #: Documents in it (any state), those ready, and their chunks.
    documents: int = 0
    ready: int = 0
    chunks: int = 0
    #: Documents in no other collection: what removing it drops from the index.
    exclusive: int = 0
    #: Watched folders whose files join it.
    folders: tuple[str, ...] = ()

    @property
    def is_default(self) -> bool:
        return self.id == DEFAULT_COLLECTION


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
    #: See Chunk.location.
    location: str = ""
    #: See Chunk.page_breaks (empty for a passage indexed before they were recorded).
    page_breaks: tuple[tuple[int, int], ...] = ()
    #: Its file's name as a reader is shown it: with as much of its folders as tells it
    #: from the library's other files of that name (``Engine.search``); "" until then.
    name: str = ""
    #: Its document's content hash when it was searched (``Engine.search``; "" until
    #: then): a citation of it opened after the file was indexed again is of another text.
    sha256: str = ""

    @property
    def pages_label(self) -> str:
        if self.location:
            return self.location
        if self.page_start == self.page_end:
            return f"p.{self.page_start}"
        return f"pp.{self.page_start}-{self.page_end}"


#: What `docent list` counts a document in, by its ``page_unit`` (a text file's blocks of
#: lines, a workbook's blocks of rows and a web page's sections are not "p").
_UNIT_SHORT = {"page": "p", "slide": "slides", "chapter": "chap.", "section": "sect."}


_ONE = {"slides": "slide", "parts": "part"}


#: Each ``page_unit`` (its kind, before any ":N") in words: the unit, and what follows it
#: ("blocks of lines": a text file's last block may hold fewer than N).
_UNIT_LONG = {
    "page": ("page", ""),
    "slide": ("slide", ""),
    "chapter": ("chapter", ""),
    "section": ("section", ""),
    "rows": ("block", " of rows"),
    "lines": ("block", " of lines"),
}


def unit_long(page_unit: str, count: int) -> str:
    """``count`` of what a document's pages are, in words: "3 sections" of an HTML file,
    not "3 pages" (QA, session 30); "2 blocks of rows" of a sheet, "4 blocks of lines" of a
    text file."""
    unit, of = _UNIT_LONG.get(page_unit.partition(":")[0], ("part", ""))
    return f"{count:,} {unit}{'' if count == 1 else 's'}{of}"


def unit_short(page_unit: str, count: int = 0) -> str:
    """The short name of what a document's pages are: "p", "slides", ...; "parts" else;
    one of them when ``count`` is 1 ("1 part", not "1 parts": QA, session 26)."""
    unit = _UNIT_SHORT.get(page_unit, "parts")
    return _ONE.get(unit, unit) if count == 1 else unit
