"""What an indexing run reports: a document's progress as it goes, the run's report.

Plain data, shared by the indexer, the queue and its listeners (the window, the CLI).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from docent.core.models import DocumentRecord


@dataclass(slots=True)
class Progress:
    #: "extracting" | "embedding" | "ready" | "unchanged" | "renamed" | "failed" | "removed";
    #: "optimizing" between documents while the store indexes a step (searches wait)
    phase: str
    file_index: int  # 1-based position in this run
    file_count: int
    path: str
    doc_id: str = ""
    chunks_done: int = 0
    chunks_total: int = 0
    message: str = ""
    #: the document's pages, once its text is read (0 before)
    pages: int = 0
    #: At a final phase, the catalog's record when the indexer has it in hand, so the
    #: queue need not read it again (a sweep of 10,000 unchanged files read each twice).
    record: DocumentRecord | None = None


ProgressCallback = Callable[[Progress], None]


@dataclass(slots=True)
class FailedFile:
    path: str
    reason: str
    message: str


@dataclass(slots=True)
class IndexReport:
    indexed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    renamed: list[tuple[str, str]] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    failed: list[FailedFile] = field(default_factory=list)
    #: Not read at all, with why: special files, links leaving a folder, unsupported
    #: files named on their own (files.Collected.skipped).
    skipped: list[FailedFile] = field(default_factory=list)
    #: Files of types Docent does not read found inside the folders walked (said as a
    #: count with their types, not one by one: a photo folder has thousands).
    unsupported: list[str] = field(default_factory=list)
    #: Documents whose collections changed with nothing re-embedded (an unchanged file
    #: indexed into another collection, a move between watched folders of two, a failed
    #: one's too): the path and the ids of its collections now.
    regrouped: list[tuple[str, list[str]]] = field(default_factory=list)
    #: Documents indexed with part of them unread (gaps.py): the path and what.
    gaps: list[tuple[str, str]] = field(default_factory=list)
    chunks_embedded: int = 0
    chunks_reused: int = 0
    seconds: float = 0.0
    cancelled: bool = False

    def merge(self, other: IndexReport) -> None:
        """``other``'s files too. A file one run indexed, renamed or failed and the other
        found unchanged (a resumed run, then the run asked for) is counted once, as what
        happened to it: "indexed 3, unchanged 3" of 3 files (review)."""
        done = {*self.indexed, *other.indexed, *(new for _, new in self.renamed)}
        done |= {new for _, new in other.renamed} | {f.path for f in self.failed + other.failed}
        unchanged = dict.fromkeys(p for p in self.unchanged + other.unchanged if p not in done)
        for name in ("indexed", "renamed", "removed", "failed", "skipped", "unsupported", "gaps"):
            getattr(self, name).extend(getattr(other, name))
        self.regrouped.extend(other.regrouped)
        self.unchanged = list(unchanged)
        self.chunks_embedded += other.chunks_embedded
        self.chunks_reused += other.chunks_reused
        self.seconds += other.seconds
        self.cancelled = self.cancelled or other.cancelled
