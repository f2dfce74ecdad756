"""What the indexing queue tells its listeners, one typed event at a time.

Every job the queue runs (from the window, a drop, the watcher, the command line) reports:

- ``JobStarted`` when it begins;
- ``FilesFound`` once its paths are walked: the files it will index and those it skipped.
  A watched folder's new or edited files queued behind a running job are told early too,
  as they are queued, on the thread that queued them (``FilesFound`` with only ``files``):
  listed, waiting their turn; one taken out of its job before its turn (deleted), never
  indexed, is told removed then (``DocumentChanged`` without a record);
- ``DocumentProgressed`` as a document moves on (reading, embedding x of n);
- ``DocumentChanged`` when a document reaches a state the catalog keeps (ready, unchanged,
  renamed, failed: with its record; removed: without one);
- ``JobFinished`` (with the run's report) or ``JobFailed`` (the job itself broke).

Listeners are called on the queue's thread (those early events on the thread that queued
or took out the files), in that order, and ``JobFinished`` / ``JobFailed`` come before the queue
counts as idle. A window turns them into signals.
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field

from docent.core.indexer import IndexReport, Progress
from docent.core.models import DocumentRecord


class JobKind(enum.StrEnum):
    INDEX = "index"  # paths: files and folders; in folders, drops documents whose file is gone
    REMOVE = "remove"  # paths: files or folders (a run of deletions); drops documents gone
    MOVE = "move"  # paths: [old, new] (a file or a folder)
    SWEEP = "sweep"  # paths: [folder]; index what changed, drop what is gone
    DROP = "drop"  # paths: files or folders; forget every document there (files untouched)
    RESUME = "resume"  # no paths: documents left queued by a crash or a cancel
    LEAVE = "leave"  # paths: [file or folder]; its documents leave ``collection``
    #: no paths: every document leaves ``collection`` (those in no other are removed from
    #: the index, files untouched), then the collection goes (the default one stays, empty)
    REMOVE_COLLECTION = "remove-collection"


@dataclass(slots=True, eq=False)
class Job:
    kind: JobKind
    paths: list[str]
    #: Who asked: "user" (a window) | "command" (waits for it) | "watch" | "sweep" |
    #: "resume"; for logs and UIs. A command's paths that do not exist are failures.
    source: str = "user"
    #: INDEX: descend into sub-folders.
    recursive: bool = True
    #: INDEX: rebuild each document even if unchanged (in place: Indexer.index_files).
    force: bool = False
    id: int = 0
    cancel: threading.Event = field(default_factory=threading.Event, repr=False)
    #: The id of the collection the job is about: INDEX adds its files to it ("" for
    #: none: their watched folder's, else the default); LEAVE / REMOVE_COLLECTION take
    #: documents out of it.
    collection: str = ""
    #: Set when the queue, not a person, cancelled it: why ("the collection it was
    #: adding to is being removed"), for the window to say instead of "cancelled".
    stopped_because: str = ""

    def describe(self) -> str:
        """What the job does, for "Could not ..." sentences."""
        if self.kind is JobKind.REMOVE_COLLECTION:
            return "remove the collection"
        if self.kind is JobKind.LEAVE:
            return f"take {self.paths[0]} out of the collection"
        where = self.paths[0] if self.paths else "the queued documents"
        more = f" and {len(self.paths) - 1} more" if len(self.paths) > 1 else ""
        return f"{self.kind.value} {where}{more}"


@dataclass(frozen=True, slots=True)
class JobStarted:
    job: Job


@dataclass(frozen=True, slots=True)
class FilesFound:
    job: Job
    files: list[str]
    #: Files of a type Docent does not read.
    unsupported: list[str]
    #: Paths that do not exist.
    missing: list[str]
    #: Sentences for what is not read at all: special files, links leaving a folder.
    skipped: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class DocumentProgressed:
    job: Job
    progress: Progress


@dataclass(frozen=True, slots=True)
class DocumentChanged:
    """A document's state as the catalog now has it; ``record`` None: it was removed."""

    job: Job
    progress: Progress
    record: DocumentRecord | None


@dataclass(frozen=True, slots=True)
class JobFinished:
    job: Job
    report: IndexReport

    def changes(self, names: Mapping[str, str] | None = None) -> list[dict[str, str]]:
        return report_changes(self.report, names)


@dataclass(frozen=True, slots=True)
class JobFailed:
    """The job itself broke (not one file in it: those are in ``report.failed``)."""

    job: Job
    report: IndexReport
    #: A sentence for the user.
    error: str
    exception: BaseException

    def changes(self, names: Mapping[str, str] | None = None) -> list[dict[str, str]]:
        path = self.job.paths[0] if self.job.paths else ""
        return [
            *report_changes(self.report, names),
            {"event": "error", "path": path, "message": self.error},
        ]


IndexEvent = (
    JobStarted | FilesFound | DocumentProgressed | DocumentChanged | JobFinished | JobFailed
)


def report_changes(r: IndexReport, names: Mapping[str, str] | None = None) -> list[dict[str, str]]:
    """What changed, one entry per file: event (indexed / renamed / removed / failed /
    regrouped), path, and ``from`` (renames), ``gaps`` (what of an indexed file could not
    be read), ``message`` (failures), ``collections`` (a
    ready document's collections changed with nothing re-embedded: their names from
    ``names``, id -> name, joined by ", "). Unchanged files are left out: a sweep of an
    unchanged folder says nothing."""
    names = names or {}
    regrouped = {path: ", ".join(sorted(names.get(c, c) for c in ids)) for path, ids in r.regrouped}
    gaps = dict(r.gaps)
    out = [
        {"event": "indexed", "path": p} | ({"gaps": gaps[p]} if p in gaps else {})
        for p in r.indexed
    ]
    for old, new in r.renamed:
        entry = {"event": "renamed", "path": new, "from": old}
        if new in regrouped:
            entry["collections"] = regrouped.pop(new)
        out.append(entry)
    out += [{"event": "regrouped", "path": p, "collections": c} for p, c in regrouped.items()]
    out += [{"event": "removed", "path": p} for p in r.removed]
    out += [{"event": "failed", "path": f.path, "message": f.message} for f in r.failed]
    return out
