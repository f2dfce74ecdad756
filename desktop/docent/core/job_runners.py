"""What each kind of indexing job does, run on the queue's thread (see ``jobs.py``).

A runner reads the disk and the catalog as they are when the job runs, calls the indexer,
records what happened in the job's report and reports documents through the queue.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from docent.core import files as filemod
from docent.core.catalog import Catalog
from docent.core.index_events import Job, JobKind
from docent.core.indexer import FailedFile, Indexer, IndexReport, Progress
from docent.core.models import CANCELLED, DocState, DocumentRecord
from docent.core.userfiles import inside, shown


class QueueOps(Protocol):
    """What a runner needs from the queue."""

    catalog: Catalog
    indexer: Indexer
    data_path: Path | None

    def progressed(self, job: Job, p: Progress) -> None: ...
    def found(self, job: Job, found: filemod.Collected) -> None: ...
    def index_files(
        self, paths: list[str], job: Job, report: IndexReport, collection: str | None = None
    ) -> None: ...
    def remove_record(self, rec: DocumentRecord, job: Job, report: IndexReport) -> None: ...
    def remove_gone(self, rec: DocumentRecord, job: Job, report: IndexReport) -> None: ...
    def unreadable_folder(self, folder: Path) -> FailedFile: ...


Runner = Callable[[QueueOps, Job, IndexReport], None]
#: Jobs a person asked for (a window, a command), as against a watcher's or a sweep's.
ASKED = ("user", "command")
#: Jobs a watched folder makes by itself: its sweeps and its file events.
WATCHER = ("sweep", "watch")


def run_index(q: QueueOps, job: Job, report: IndexReport) -> None:
    """Walk the paths, index the files, then drop documents whose file left a folder."""
    if job.source in ASKED:  # added by the user: no longer left out of its watched folder
        q.catalog.take_back(job.paths)
    found = filemod.collect(list(job.paths), job.recursive, q.data_path)
    q.found(job, found)
    if job.source == "command":  # named on a command line; a queued file that vanished
        # meanwhile is not a failure (its deletion or the next sweep settles it)
        for missing in found.missing:
            report.failed.append(
                FailedFile(str(missing), "missing", f"{shown(missing)} does not exist.")
            )
    elif job.source in ASKED:
        _gone_documents(q, job, report, found.missing)
    # Said once, in this run's report (a sweep says nothing: it would repeat it every time).
    report.skipped += [FailedFile(str(s.path), s.reason, s.message) for s in found.skipped]
    named = {s.path for s in found.skipped}
    report.unsupported += [str(p) for p in found.unsupported if p not in named]
    # job.force (Re-index): each document rebuilt in place, see Indexer.index_files.
    q.index_files([str(f) for f in found.files], job, report)
    if job.cancel.is_set():
        return
    _drop_gone(q, job, report, found, recursive=job.recursive)


def _gone_documents(q: QueueOps, job: Job, report: IndexReport, missing: list[Path]) -> None:
    """Documents the window asked to index (Resume, Re-index) whose file is gone: said,
    not silently skipped; one waiting for Resume leaves the list, there is nothing left
    to resume (review: the row stayed, and Resume was offered for ever)."""
    for path in missing:
        rec = q.catalog.by_path(str(path))
        if rec is None:
            continue  # dropped, then deleted before its turn: its deletion settles it
        report.failed.append(
            FailedFile(
                str(path),
                "missing",
                f"{shown(path.name)} is no longer at {shown(path.parent)} (moved or deleted?); "
                "it was not indexed again.",
            )
        )
        if rec.state is DocState.QUEUED:
            q.remove_gone(rec, job, report)


def run_sweep(q: QueueOps, job: Job, report: IndexReport) -> None:
    folder = job.paths[0]
    if not os.path.isdir(folder):
        return  # missing (unplugged?): the watcher pauses it; its documents stay
    found = filemod.collect([folder], avoid=q.data_path)
    q.found(job, found)
    q.index_files([str(p) for p in found.files], job, report)
    if not job.cancel.is_set():
        _drop_gone(q, job, report, found, recursive=True)


def _drop_gone(
    q: QueueOps, job: Job, report: IndexReport, found: filemod.Collected, *, recursive: bool
) -> None:
    """After indexing, so a file renamed meanwhile is found by its sha256 first (a rename,
    nothing re-embedded) and only then its old path goes. Documents under a folder that
    could not be read are kept."""
    for bad in found.unreadable:
        report.failed.append(q.unreadable_folder(bad))
    unreadable = [str(u) for u in found.unreadable]
    present = {str(f) for f in found.files}  # just walked: no need to ask the disk again
    for link in (s.path for s in found.skipped if s.reason == "link_inside"):
        # a link to a file the walk read itself, indexed before as a document of its own
        if (rec := q.catalog.by_path(str(link))) is not None:
            q.remove_record(rec, job, report)
    gone: list[DocumentRecord] = []
    for folder in found.folders:
        for path in q.catalog.paths_under(str(folder)):
            if path in present or (not recursive and Path(path).parent != folder):
                continue
            # gone: nothing there, or no longer a file (a folder of the same name now)
            if not any(inside(path, u) for u in unreadable) and not os.path.isfile(path):
                rec = q.catalog.by_path(path)
                if rec is not None:
                    gone.append(rec)
    if gone and not job.cancel.is_set():
        _find_moves(q, job, report, gone, [str(f) for f in found.folders])
    for rec in gone:
        now = q.catalog.get(rec.doc_id)
        if now is not None and now.path == rec.path:  # not found elsewhere: really gone
            q.remove_gone(now, job, report)


def _find_moves(
    q: QueueOps, job: Job, report: IndexReport, gone: list[DocumentRecord], here: list[str]
) -> None:
    """Files gone from here may have moved to another watched folder (while Docent was
    closed, or before that folder's sweep): index the new files of the same sizes there
    first (they would be indexed anyway), so each move is found by its content (nothing
    re-embedded, its collection follows the folder) before the old path is dropped."""
    sizes = {r.size for r in gone}
    elsewhere: list[str | Path] = [
        f
        for f in q.catalog.folder_bindings()
        if not any(inside(f, h) or inside(h, f) for h in here) and os.path.isdir(f)
    ]
    candidates: list[str] = []
    for file in filemod.collect(elsewhere, avoid=q.data_path).files if elsewhere else []:
        try:
            size = file.stat().st_size
        except OSError:
            continue
        if size in sizes and q.catalog.by_path(str(file)) is None:
            candidates.append(str(file))
    if candidates:  # they join their own folder's collection, not the job's
        q.index_files(candidates, job, report, collection="")


def run_remove(q: QueueOps, job: Job, report: IndexReport) -> None:
    """The documents of files (or folders) gone from the paths: a run of deletions is one
    job (``IndexQueue._coalesce``)."""
    for path in job.paths:
        if job.cancel.is_set():
            return
        rec = q.catalog.by_path(path)
        for r in [rec] if rec else q.catalog.under(path):
            q.remove_gone(r, job, report)


def run_drop(q: QueueOps, job: Job, report: IndexReport) -> None:
    """Forget the documents at the paths (files untouched)."""
    watched = q.catalog.folder_bindings() if job.source in ASKED else {}
    for path in job.paths:
        if any(inside(path, w) for w in watched):
            # Removed by the user inside a watched folder: its next sweep would add it again.
            q.catalog.leave_out(path)
        rec = q.catalog.by_path(path)
        for r in [rec] if rec else q.catalog.under(path):
            q.remove_record(r, job, report)


def run_resume(q: QueueOps, job: Job, report: IndexReport) -> None:
    """Documents left queued (not those the user cancelled: they wait for the user),
    ready ones indexed in an older format, ready ones whose files changed since, and
    those indexed without OCR, now on."""
    queued = [r for r in q.catalog.in_states(DocState.QUEUED) if r.reason != CANCELLED]
    todo = [*queued, *q.indexer.outdated(), *q.indexer.changed(), *q.indexer.awaiting_ocr()]
    paths = dict.fromkeys(r.path for r in todo if os.path.exists(r.path))
    q.index_files(list(paths), job, report)
    for rec in queued:
        q.remove_gone(rec, job, report)


def run_move(q: QueueOps, job: Job, report: IndexReport) -> None:
    old, new = job.paths
    if not os.path.exists(new):
        return  # moved again or deleted: a later event or sweep settles it
    rec = q.catalog.by_path(old)
    if rec is not None:
        _move_one(q, rec, new, job, report)
        return
    for r in q.catalog.under(old):  # a folder moved: every document under it follows
        target = new + r.path[len(old) :]
        if os.path.isfile(target):
            _move_one(q, r, target, job, report)
        else:  # deleted just before its folder moved: its passages must not stay
            q.remove_gone(r, job, report)
    if os.path.isdir(new):
        # Its files never indexed (new, or still queued when it moved: the move dropped
        # their pending indexing) are indexed now; the ones that followed are unchanged.
        found = filemod.collect([new], avoid=q.data_path)
        q.found(job, found)
        q.index_files([str(f) for f in found.files], job, report)
    else:  # a file never indexed (new, or still being written when it moved)
        q.index_files([new], job, report)


def _move_one(q: QueueOps, rec: DocumentRecord, new: str, job: Job, report: IndexReport) -> None:
    old = rec.path
    if os.path.exists(old):  # copied, not moved
        q.index_files([new], job, report)
        return
    other = q.catalog.by_path(new)
    if other is not None and other.doc_id != rec.doc_id:
        q.indexer.remove(other)  # the move replaced a file that was indexed
    st = os.stat(new)
    if rec.state is not DocState.READY and not q.indexer.failed_here(rec, st):
        q.indexer.remove(rec)
        q.index_files([new], job, report)
        return
    # ready, or renamed unchanged after crashing the reader or faulting here: the record
    # follows the file (read again, it would crash again; a run asked for retries it)
    # (its status-change time is not compared: the rename itself moved it)
    if rec.same_file(st, status=False):
        regrouped = q.indexer.move(rec, new, st)
    else:  # changed before it moved: follow the move, then re-index what changed
        regrouped = q.indexer.move(rec, new)
        q.index_files([new], job, report)
        if new not in report.unchanged:
            return  # re-indexed (or failed): reported by the indexer
        report.unchanged.remove(new)  # only its mtime changed: still just a rename
    if regrouped:
        report.regrouped.append((new, list(rec.collections)))
    report.renamed.append((old, new))
    q.progressed(job, Progress("renamed", 1, 1, new, rec.doc_id, rec.chunks, rec.chunks))


def run_leave(q: QueueOps, job: Job, report: IndexReport) -> None:
    """The documents at the paths (files, or folders') leave ``job.collection``."""
    # Taken out of the collection its watched folder fills, and so out of the index: its
    # folder's next sweep would add it again, as for "Remove from library" (review).
    bound = q.catalog.folder_bindings() if job.source in ASKED else {}
    filling = [f for f, c in bound.items() if c == job.collection]
    for path in job.paths:
        if job.cancel.is_set():
            return
        rec = q.catalog.by_path(path)
        for r in [rec] if rec else q.catalog.under(path):
            _leave_one(q, r, job, report, bound, filling)


def _leave_one(
    q: QueueOps,
    r: DocumentRecord,
    job: Job,
    report: IndexReport,
    bound: dict[str, str],
    filling: list[str],
) -> None:
    """``r`` leaves ``job.collection``; ``filling``: the watched folders filling it."""
    if job.collection not in r.collections:
        return
    filled = any(inside(r.path, f) for f in filling)
    kept_out = filled or _left_its_folder(q, r, bound)
    if _leave(q, r, job, report):
        if kept_out:
            q.catalog.leave_out(r.path)
    elif filled:  # another collection keeps it: the folder must not put it back
        q.catalog.leave_collection(r.doc_id, job.collection)


def _left_its_folder(q: QueueOps, rec: DocumentRecord, bound: dict[str, str]) -> bool:
    """The user took ``rec`` out of the collection of a watched folder holding it: gone
    from the library with its last other collection, it must stay gone, or the folder's
    next sweep indexed it again as new (review s21)."""
    return any(inside(rec.path, f) and q.catalog.has_left(rec.doc_id, c) for f, c in bound.items())


def run_remove_collection(q: QueueOps, job: Job, report: IndexReport) -> None:
    """Every document leaves ``job.collection``, then it goes. Cut short (a cancel, a
    crash), the collection stays with the documents that have not left yet."""
    bound = q.catalog.folder_bindings() if job.source in ASKED else {}
    for doc_id in q.catalog.member_ids(job.collection):
        if job.cancel.is_set():
            return
        rec = q.catalog.get(doc_id)
        if rec is None:
            continue
        kept_out = _left_its_folder(q, rec, bound)
        if _leave(q, rec, job, report) and kept_out:
            q.catalog.leave_out(rec.path)
    q.catalog.delete_collection(job.collection)


def _leave(q: QueueOps, rec: DocumentRecord, job: Job, report: IndexReport) -> bool:
    """Out of the collection; out of the index when it was in no other (files untouched):
    True then."""
    if job.collection not in rec.collections:
        return False
    rest = [c for c in rec.collections if c != job.collection]
    if not rest:
        q.remove_record(rec, job, report)
        return True
    q.indexer.set_collections(rec, rest)
    q.progressed(job, Progress("unchanged", 1, 1, rec.path, rec.doc_id, rec.chunks, rec.chunks))
    return False


RUNNERS: dict[JobKind, Runner] = {
    JobKind.INDEX: run_index,
    JobKind.REMOVE: run_remove,
    JobKind.MOVE: run_move,
    JobKind.SWEEP: run_sweep,
    JobKind.DROP: run_drop,
    JobKind.RESUME: run_resume,
    JobKind.LEAVE: run_leave,
    JobKind.REMOVE_COLLECTION: run_remove_collection,
}
