"""Incremental indexing: hash, skip unchanged, replace changed, follow renames.

Per file: size, mtime and ctime equal to the catalog -> unchanged (no hashing). Otherwise
hash it; equal sha256 -> unchanged; the sha256 of a ready document whose file is gone -> a rename
(payloads move, nothing is re-embedded); else extract (or take the text cache), chunk and
embed, reusing the vectors of any chunk text already in the store (same content at two
paths, or the unchanged parts of an edited file, cost no embedding).

Hashing, extraction, chunking and BM25 run in a worker process one file ahead of
embedding (``preparing.py``): parsing the next PDF uses the second core while the current
one embeds, and none of that GIL-bound work competes with the app's other threads.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, replace
from pathlib import Path

from docent.core import membership
from docent.core.catalog import Catalog, new_doc_id
from docent.core.config import BUNDLED_MODEL
from docent.core.context import dense_text
from docent.core.datafolder import check_free_space, existing_parent
from docent.core.embedding import Embedder
from docent.core.errors import (
    Cancelled,
    DataFolderError,
    DocumentError,
    FileChanging,
    FileVanished,
    IndexingFault,
    NoTextLayer,
    StoreError,
)
from docent.core.files import changed_since_indexed
from docent.core.index_report import FailedFile, IndexReport, Progress, ProgressCallback
from docent.core.model_files import EmbeddingError
from docent.core.models import (
    CANCELLED,
    CANCELLED_NOTE,
    STAGED_SUFFIX,
    UPDATING,
    Chunk,
    DocState,
    DocumentRecord,
    SparseVec,
)
from docent.core.preparing import Limits, Prepared, Preparer
from docent.core.salvage import Salvage
from docent.core.sandbox import CRASHED, InlinePreparer, Preparation, ProcessPreparer
from docent.core.store import (
    COLLECTIONS,
    SENTENCES,
    ChunkPoint,
    Store,
    chunk_point_id,
)
from docent.core.textcache import TextCache
from docent.core.userfiles import shown

__all__ = [
    "FailedFile",
    "IndexReport",
    "Indexer",
    "Progress",
    "ProgressCallback",
    "content_hash",
    "mean_vector",
    "record_payload",
]

log = logging.getLogger(__name__)

EMBED_BATCH = 32
LOOKAHEAD = 2  # files extracted ahead of the one being embedded
#: A file a run will index: its number in the run, path, record (None: new) and stat.
_Todo = tuple[int, Path, "DocumentRecord | None", os.stat_result]
#: Qdrant Edge's flush holds the GIL for 0.1-0.7 s (a visible stall in the window), and
#: its write-ahead log already keeps every acknowledged write through a kill -9: flush by
#: volume only, to bound the log's replay on the next open, and at close.
FLUSH_POINTS = 5000
#: What a run says while the store indexes a step's worth of points (see _build_index).
BUILDING_INDEX = "building the search index"
#: Failures that say nothing about the file itself: try again on the next run.
RETRY_REASONS = frozenset(
    {CRASHED, IndexingFault.reason, FileVanished.reason, "unreadable", FileChanging.reason}
)
#: A ready document's file gone (renamed, moved or deleted) or being saved while a run
#: reads it: the version indexed stays, searchable (``Indexer._fail``).
KEEP_READY = frozenset({FileVanished.reason, FileChanging.reason})
#: Of those, the ones that may cost minutes to meet again (the whole file read, then a
#: crash or a fault of Docent's): tried again when Docent next starts, on Re-index, or
#: when the file changes; not by every sweep of a watched folder in between.
COSTLY_RETRIES = frozenset({CRASHED, IndexingFault.reason})
#: Errors after which no file of the run can be written (the store, the data folder, an
#: embedding model that does not load): the run stops, and what it did not finish is
#: queued for the next one (failing each file for it would mark the whole library failed).
LIBRARY_FAULTS = (StoreError, DataFolderError, EmbeddingError)


def content_hash(text: str, model: str = BUNDLED_MODEL) -> str:
    """The key under which a dense vector is reused: the text the model saw, and the model.

    The bundled model's keys are the text's alone, as before models were part of the key,
    so a library indexed by an older Docent keeps its vectors through a format change.
    """
    key = text if model == BUNDLED_MODEL else f"{model}\0{text}"
    return hashlib.sha1(key.encode("utf-8")).hexdigest()


def record_payload(rec: DocumentRecord) -> dict[str, object]:
    data = asdict(rec)
    data["state"] = rec.state.value
    return data


class Indexer:
    def __init__(
        self,
        catalog: Catalog,
        store: Store,
        embedder: Embedder,
        cache: TextCache,
        *,
        subprocess_extraction: bool = True,
        ocr: bool = True,
        limits: Limits | None = None,
    ) -> None:
        self.catalog = catalog
        self.store = store
        self.embedder = embedder
        self.cache = cache
        self._subprocess = subprocess_extraction
        self._ocr = ocr
        # A scan that failed for want of OCR is read again once OCR is on.
        self._retry = RETRY_REASONS | ({NoTextLayer.reason} if ocr else set())
        self.limits = limits or Limits()
        self._prep: Preparation | None = None
        #: The limits ``_prep``'s reader holds files to (it was made with them).
        self._prep_limits = self.limits
        # One run, move or removal at a time (re-entrant: a run moves renamed files itself).
        self._lock = threading.RLock()
        #: Chunk points written since this indexer was made (flushes go by it).
        self.points_written = 0
        self._flushed_at_points = 0
        #: The collection (id) the current run adds its files to ("" for none).
        self._collection = ""
        #: Files that crashed or faulted in this process, by path: their size and mtime
        #: then (COSTLY_RETRIES); left alone by runs that do not ``retry_costly``.
        self._failed_here: dict[str, tuple[int, float]] = {}
        #: The ids the new version of a changed document is written under while its old
        #: version stays searchable (``index_document``): never searched. Replaced, not
        #: changed in place, so a search on another thread reads it whole.
        self.staging: frozenset[str] = frozenset()
        #: The vectors of the passages a crash cut short, kept by ``recover`` before it
        #: drops them, for the next index of their document (salvage.py).
        self.salvage = Salvage(Path(cache.root).parent / "salvage")

    def close(self) -> None:
        """Stop the extraction worker (at once, even mid-file). Safe from any thread."""
        prep, self._prep = self._prep, None
        if prep is not None:
            prep.close()

    def set_limits(self, limits: Limits) -> None:
        """Hold files to ``limits`` from the next run on (a run going on keeps the reader
        it has, made with the old ones). Safe from any thread: the run reads them once."""
        self.limits = limits

    def _preparation(self) -> Preparation:
        if self._prep is None:
            self._prep_limits = self.limits
            root = str(self.cache.root)
            if self._subprocess:
                tools = (self.embedder.tokenizer_json(), self.embedder.cache_dir)
                self._prep = ProcessPreparer(*tools, root, self.limits, self._ocr)
            else:
                here = Preparer(
                    self.embedder.count_tokens, self.embedder.embed_sparse, self.limits, self._ocr
                )
                self._prep = InlinePreparer(here, root)
        return self._prep

    # Runs ------------------------------------------------------------------

    def index_files(
        self,
        files: Sequence[Path],
        progress: ProgressCallback | None = None,
        cancel: threading.Event | None = None,
        collection: str = "",
        force: bool = False,
        retry_costly: bool = True,
    ) -> IndexReport:
        """``collection``: the id of the collection the files join ("" for none: each
        joins its watched folder's collection, or the default one; see membership.py).
        ``force``: read, chunk and write each file again even when it is unchanged (the
        text cache is not used; vectors of unchanged chunk text are still reused). Each
        document is rebuilt in place, one at a time: until its turn it stays searchable
        as it was, and a cancel leaves the ones not reached as they were.
        ``retry_costly``: False for a watched folder's sweeps and events: an unchanged file
        that crashed the reader or faulted in this process is left as it is
        (COSTLY_RETRIES)."""
        with self._lock:
            if self._prep is not None and self._prep_limits != self.limits:
                self.close()  # a reader of the old limits; nothing is in flight between runs
            self._collection = collection
            try:
                return self._run(
                    list(files),
                    progress or (lambda p: None),
                    cancel or threading.Event(),
                    force,
                    retry_costly,
                )
            finally:
                self._collection = ""

    def _run(
        self,
        files: list[Path],
        progress: ProgressCallback,
        cancel: threading.Event,
        force: bool = False,
        retry_costly: bool = True,
    ) -> IndexReport:
        started = time.perf_counter()
        report = IndexReport()
        n = len(files)
        todo: list[_Todo] = []
        learnt: list[DocumentRecord] = []
        known = self.catalog.by_paths([str(f) for f in files])
        for i, path in enumerate(files, 1):
            key = str(path)
            rec = known.get(key)
            try:
                st = path.stat()
            except OSError as exc:
                self._fail(
                    report,
                    progress,
                    i,
                    n,
                    key,
                    rec,
                    FileVanished(key, f"{shown(path.name)} cannot be read: {exc.strerror}."),
                )
                continue
            if rec and not force and self._stat_unchanged(rec, st, retry_costly):
                if not rec.ctime:  # an older Docent's record: from now on it is known
                    rec.stamp(st)
                    learnt.append(rec)
                self._note_unchanged(report, progress, i, n, rec)
                continue
            todo.append((i, path, rec, st))
        if learnt:
            self.catalog.learn_ctimes(learnt)
        todo = self._list_new(todo)
        # Cancelled ones this run takes up no longer wait for the user: a kill before the
        # run reached them left them "cancelled" again, and the status line counted them
        # cancelled while the run went on (QA-79)
        taken = [
            r for *_, r, _ in todo if r and r.state is DocState.QUEUED and r.reason == CANCELLED
        ]
        if taken:
            self.catalog.resumed(taken)

        pending: deque[tuple[int, Path, DocumentRecord | None, os.stat_result, int]] = deque()
        queue = iter(todo)
        current: Path | None = None  # the file being read or written

        def unfinished() -> list[Path]:
            """The file in hand, those read ahead, and those the run did not reach."""
            ahead = [p for _, p, *_ in pending] + [p for _, p, *_ in queue]
            return ([current] if current is not None else []) + ahead

        try:
            while True:
                while len(pending) < LOOKAHEAD and not cancel.is_set():
                    item = next(queue, None)
                    if item is None:
                        break
                    i, path, rec, st = item
                    progress(Progress("extracting", i, n, str(path)))
                    sha = "" if force else self._known_sha(rec)
                    task = self._preparation().submit(str(path), sha, fresh=force)
                    pending.append((i, path, rec, st, task))
                if not pending or cancel.is_set():
                    break
                i, path, rec, st, task = pending.popleft()
                key = str(path)
                current = path

                def on_step(label: str, pages: int, i: int = i, key: str = key) -> None:
                    progress(Progress("extracting", i, n, key, message=label, pages=pages))

                prepared = self._preparation().result(task, cancel, on_step)
                self._handle(report, progress, cancel, i, n, path, rec, st, prepared)
                current = None
                if not cancel.is_set() and self.store.index_due():
                    self._build_index(
                        progress, Progress("optimizing", i, n, key, message=BUILDING_INDEX)
                    )
        except Cancelled:
            pass
        except LIBRARY_FAULTS as exc:
            # No file can be written now: what the run did not finish is queued, not left
            # half-written as "indexing" or never listed; the next run indexes it.
            for path in unfinished():
                with contextlib.suppress(*LIBRARY_FAULTS):  # the first fault is the one raised
                    self._note_unfinished(path, "", f"Not indexed yet: {exc}")
            raise
        finally:
            if pending or cancel.is_set():
                self.close()  # files in flight (a cancel, Ctrl-C): stop reading them now
        if cancel.is_set():  # what the run did not finish stays listed, cancelled
            for path in unfinished():
                self._note_unfinished(path, CANCELLED, CANCELLED_NOTE)
        report.cancelled = report.cancelled or cancel.is_set()
        report.seconds = time.perf_counter() - started
        return report

    def _list_new(self, todo: list[_Todo]) -> list[_Todo]:
        """The run's files with no record yet, listed "queued" (in the collection they
        will join) before any is read: a crash (kill -9, a power cut) left those it had
        not reached in no list, neither shown nor resumed: forgotten (review)."""
        fresh: dict[str, DocumentRecord] = {}
        for _, path, rec, _ in todo:
            if rec is None:
                new = DocumentRecord(doc_id=new_doc_id(), path=str(path), file_name=path.name)
                new.collections = membership.wanted(self.catalog, new, new.path, self._collection)
                fresh[new.path] = new
        if not fresh:
            return todo
        self.catalog.put_queued(list(fresh.values()))
        return [(i, p, rec or fresh[str(p)], st) for i, p, rec, st in todo]

    def _build_index(self, progress: ProgressCallback, step: Progress) -> None:
        """Index the points written since the last step (Qdrant Edge does not by itself).

        Between documents, so a step never splits one; each step indexes ~one segment's
        worth, so a big library is indexed as it grows, never in one go at the end.
        """
        progress(step)
        started = time.perf_counter()
        self.store.optimize()
        log.info("search index step: %.1f s", time.perf_counter() - started)

    def note_cancelled(self, files: Sequence[Path], collection: str = "") -> None:
        """Files of a run cancelled before it started (a Cancel, the window closed): listed,
        cancelled, for Resume, as those a run stops before are; they were never listed at
        all (review)."""
        with self._lock:
            self._collection = collection
            try:
                for path in files:
                    self._note_unfinished(
                        path, CANCELLED, "Indexing was cancelled before it reached this file."
                    )
            finally:
                self._collection = ""

    def _note_unfinished(self, path: Path, reason: str, error: str) -> None:
        """A file a run did not finish (cancelled, or the store failed): queued with
        ``reason`` (a new one too, so it stays in the list); one indexed or failed before
        keeps that state. One caught half-written (``indexing``) is queued again."""
        rec = self.catalog.by_path(str(path))
        if rec is not None and rec.state not in (DocState.QUEUED, DocState.INDEXING):
            return
        rec = rec or DocumentRecord(doc_id=new_doc_id(), path=str(path), file_name=path.name)
        if rec.state is DocState.INDEXING:
            try:
                self._drop_vectors(rec.doc_id)
            except LIBRARY_FAULTS:
                # Left "indexing", so never searched half-written; recover() queues it at
                # the next start.
                rec.error = error
                self.catalog.put(rec)
                return
            rec.chunks = 0
        rec.state, rec.reason, rec.error = DocState.QUEUED, reason, error
        self.catalog.put(rec)
        self._settle_collections(rec)  # listed in the collection the run was adding to

    def _known_sha(self, rec: DocumentRecord | None) -> str:
        """The sha256 under which the file needs no work (ready in the current format,
        or failed for good)."""
        if rec is None or rec.state not in (DocState.READY, DocState.FAILED):
            return ""
        if rec.state is DocState.READY and not self._settled(rec):
            return ""
        return "" if rec.reason in self._retry else rec.sha256

    def _settled(self, rec: DocumentRecord) -> bool:
        """A ready document needs no work: indexed in the current format, and not with
        scanned pages left unread by OCR now turned on."""
        return rec.index_format == self.embedder.index_format and not (
            self._ocr and rec.scans_unread
        )

    def _stat_unchanged(
        self, rec: DocumentRecord, st: os.stat_result, retry_costly: bool = True
    ) -> bool:
        settled = (rec.state is DocState.READY and self._settled(rec)) or (
            rec.state is DocState.FAILED and not self._retry_now(rec, st, retry_costly)
        )
        return settled and rec.same_file(st)

    def _retry_now(self, rec: DocumentRecord, st: os.stat_result, retry_costly: bool) -> bool:
        """Whether this run reads a failed file again although it is unchanged: a failure
        that says nothing about the file, unless it is a costly one (COSTLY_RETRIES) this
        process met on this very version and the run is a watched folder's."""
        if rec.reason not in self._retry:
            return False
        return retry_costly or not self.failed_here(rec, st)

    def failed_here(self, rec: DocumentRecord, st: os.stat_result) -> bool:
        """``rec`` failed costly (COSTLY_RETRIES) in this process, on this very version."""
        return (
            rec.state is DocState.FAILED
            and rec.reason in COSTLY_RETRIES
            and self._failed_here.get(rec.path) == (st.st_size, st.st_mtime)
        )

    def outdated(self) -> list[DocumentRecord]:
        """Ready documents indexed in an older format (or by another model)."""
        return self.catalog.outdated(self.embedder.index_format)

    def awaiting_ocr(self) -> list[DocumentRecord]:
        """With OCR on, the documents indexed without it: ready ones with scanned pages
        left unread, and scans that failed for want of it (QA-79: they were read again
        only when indexed again by hand, though the README said "the next time")."""
        if not self._ocr:
            return []
        # those whose files are there: a scan deleted since was announced, and read, at
        # every start for nothing (review 83)
        found = self.catalog.unread_scans(NoTextLayer.reason)
        return [r for r in found if os.path.isfile(r.path)]

    def changed(self) -> list[DocumentRecord]:
        """Ready documents (not ``outdated``) whose files changed on disk since they were
        indexed: an edit Docent was not watching for (a file outside watched folders, or
        one edited while Docent was closed), or an update that was cancelled (its old
        version kept searchable); a change of status alone too (a chmod), which the index
        run settles by hashing. One stat each: not on the GUI thread."""
        old = {r.doc_id for r in self.outdated()}
        ready = self.catalog.in_states(DocState.READY)
        return [r for r in ready if r.doc_id not in old and changed_since_indexed(r, status=True)]

    def _note_unchanged(
        self, report: IndexReport, progress: ProgressCallback, i: int, n: int, rec: DocumentRecord
    ) -> None:
        if self._settle_collections(rec) and rec.state is DocState.READY:
            report.regrouped.append((rec.path, list(rec.collections)))
        if rec.state is DocState.FAILED:
            report.failed.append(FailedFile(rec.path, rec.reason, rec.error))
            progress(Progress("failed", i, n, rec.path, rec.doc_id, message=rec.error))
        else:
            report.unchanged.append(rec.path)
            progress(
                Progress(
                    "unchanged", i, n, rec.path, rec.doc_id, rec.chunks, rec.chunks, record=rec
                )
            )

    def _handle(
        self,
        report: IndexReport,
        progress: ProgressCallback,
        cancel: threading.Event,
        i: int,
        n: int,
        path: Path,
        rec: DocumentRecord | None,
        st: os.stat_result,
        prepared: Prepared,
    ) -> None:
        key = str(path)
        if prepared.reason:
            err = DocumentError(key, prepared.message)
            err.reason = prepared.reason
            self._fail(report, progress, i, n, key, rec, err, st, prepared.sha256)
            return
        if rec and prepared.unchanged:
            rec.stamp(st)
            if rec.reason == UPDATING:  # an update a crash cut short, the edit since undone
                rec.reason = ""
            # its stamp only: the rest of the record read when the run started may be
            # older than the catalog's (a summary made meanwhile; review 81)
            self.catalog.restamp(rec)
            # what a cancelled update kept for its next try: none comes (review 81)
            self.salvage.drop(rec.doc_id)
            self._note_unchanged(report, progress, i, n, rec)
            return
        listed = rec is not None and rec.state is DocState.QUEUED and not rec.sha256
        if (rec is None or listed) and self._try_rename(
            report, progress, i, n, key, prepared.sha256, st, rec if listed else None
        ):
            return
        if rec is not None and (now := self.catalog.get(rec.doc_id)) is not None:
            rec.summary = now.summary  # made since the run read the record (review 81)
        # a ready document whose file changed: searchable as it was until the new version
        # is whole (a cancel midway left it with no passages at all: QA, session 27)
        kept = replace(rec) if rec is not None and rec.state is DocState.READY else None
        rec = rec or DocumentRecord(doc_id=new_doc_id(), path=key, file_name=path.name)
        before = rec.sha256
        if rec.sha256 != prepared.sha256 or prepared.text_changed:
            rec.summary = ""  # it summarised the old content (or the old reading of it)
        if prepared.text_changed:  # so did the summaries cached for the same content
            self.catalog.forget_summaries(prepared.sha256)
        rec.sha256 = prepared.sha256
        rec.stamp(st)
        try:
            self.index_document(
                rec,
                prepared,
                report,
                lambda done, total: progress(
                    Progress("embedding", i, n, key, rec.doc_id, done, total, pages=prepared.pages)
                ),
                cancel,
                kept=kept,
            )
        except Cancelled:
            report.cancelled = True
            if rec.state is DocState.READY:  # kept as it was (staged, or the same), searchable
                progress(Progress("ready", i, n, key, rec.doc_id, rec.chunks, rec.chunks))
            return
        except DocumentError as exc:
            self._fail(report, progress, i, n, key, rec, exc, st)
            return
        except LIBRARY_FAULTS:
            raise  # the run stops (_run queues this file and the rest)
        except Exception as exc:  # Docent's own fault on this one file: the others go on
            log.exception("indexing %s failed", key)
            self._drop_vectors(rec.doc_id)  # what it wrote of this version
            rec.chunks = 0
            fault = IndexingFault(
                key,
                f"{shown(path.name)} could not be indexed: {type(exc).__name__}: {exc}. "
                "The other files go on; Docent tries this one again when it next starts, "
                "on Re-index, or when the file changes.",
            )
            self._fail(report, progress, i, n, key, rec, fault, st)
            return
        report.indexed.append(key)
        if rec.gaps:
            report.gaps.append((key, rec.gaps))
        if before != rec.sha256:
            self._forget_text(before)
        self._failed_here.pop(key, None)
        progress(Progress("ready", i, n, key, rec.doc_id, rec.chunks, rec.chunks))

    def _fail(
        self,
        report: IndexReport,
        progress: ProgressCallback,
        i: int,
        n: int,
        key: str,
        rec: DocumentRecord | None,
        err: DocumentError,
        st: os.stat_result | None = None,
        sha256: str = "",
    ) -> None:
        """``sha256``: the content that failed, when it was read (then an unchanged
        file is not read again). A ready document's file gone since the run listed it
        (renamed, moved or deleted while the run went on), or saved again at every read,
        is no failure: the version indexed stays, searchable, for the watcher's move or
        the next sweep to settle. Failed, its passages were dropped, and the rename's
        move found a failed record and indexed the file anew: every passage embedded
        again, its collections lost (review 81)."""
        if err.reason in KEEP_READY and rec is not None and rec.state is DocState.READY:
            report.skipped.append(
                FailedFile(key, err.reason, f"{err} The version indexed stays searchable.")
            )
            progress(
                Progress("unchanged", i, n, key, rec.doc_id, rec.chunks, rec.chunks, record=rec)
            )
            return
        if rec is not None and rec.chunks:
            self._drop_vectors(rec.doc_id)  # the old version's chunks no longer match the file
        rec = rec or DocumentRecord(doc_id=new_doc_id(), path=key, file_name=Path(key).name)
        rec.state, rec.reason, rec.error, rec.chunks = DocState.FAILED, err.reason, str(err), 0
        if st is not None:
            rec.stamp(st)
            if err.reason in COSTLY_RETRIES:
                self._failed_here[key] = (st.st_size, st.st_mtime)
            else:
                self._failed_here.pop(key, None)
        # The content that failed; unread (a timeout, a reader's fault): unknown, so not
        # the last good version's either, which a restore of it would have matched as
        # "unchanged" and left failed (found by a review).
        rec.sha256, rec.summary = sha256, ""
        self.catalog.put(rec)
        self._settle_collections(rec)
        report.failed.append(FailedFile(key, err.reason, str(err)))
        progress(Progress("failed", i, n, key, rec.doc_id, message=str(err)))

    def _try_rename(
        self,
        report: IndexReport,
        progress: ProgressCallback,
        i: int,
        n: int,
        key: str,
        sha: str,
        st: os.stat_result,
        listed: DocumentRecord | None = None,
    ) -> bool:
        """A new file that is a ready document's, moved: its record follows it (nothing is
        read again). ``listed``: the new file's queued row (``_list_new``), which goes."""
        for old in self.catalog.by_sha(sha, DocState.READY):
            if not os.path.exists(old.path):
                if listed is not None:
                    self.catalog.delete(listed.doc_id)
                    self.salvage.drop(listed.doc_id)
                report.renamed.append((old.path, key))  # before move() rewrites old.path
                if self.move(old, key, st):
                    report.regrouped.append((key, list(old.collections)))
                progress(Progress("renamed", i, n, key, old.doc_id, old.chunks, old.chunks))
                return True
        return False

    # Single documents ------------------------------------------------------

    def _settle_collections(self, rec: DocumentRecord) -> bool:
        """``rec`` joins the run's collection (or its folder's, or the default one); False
        when it already was in it."""
        ids = membership.wanted(self.catalog, rec, rec.path, self._collection)
        return membership.apply(self.catalog, self.store, rec, ids)

    def set_collections(self, rec: DocumentRecord, collection_ids: list[str]) -> None:
        """``rec`` is in exactly these collections now (catalog and store payloads)."""
        with self._lock:
            membership.apply(self.catalog, self.store, rec, collection_ids)

    def move(self, rec: DocumentRecord, new_path: str, st: os.stat_result | None = None) -> bool:
        """The file moved: update paths everywhere, re-embed nothing. Between watched
        folders of two collections it changes collection too (membership.after_move):
        True then."""
        with self._lock:
            old_path = rec.path
            if old_path in self._failed_here:
                self._failed_here[new_path] = self._failed_here.pop(old_path)
            ids = membership.after_move(self.catalog, rec, old_path, new_path, self._collection)
            if rec.error:  # a failure followed (job_runners._move_one) names the file
                rec.error = rec.error.replace(shown(rec.file_name), shown(Path(new_path).name))
            rec.path, rec.file_name = new_path, Path(new_path).name
            if st is not None:
                rec.stamp(st)
            regrouped = ids != rec.collections
            if regrouped:
                self.catalog.set_collections(rec.doc_id, ids)  # marked stale until below
                rec.collections = ids
            names = {"path": rec.path, "file_name": rec.file_name, **membership.payload(ids)}
            self.store.set_chunks_payload(rec.doc_id, names)
            self.store.set_document_payload(rec.doc_id, record_payload(rec))
            self.catalog.put(rec)
            self.catalog.payload_synced([rec.doc_id])
        log.info("moved %s -> %s", old_path, new_path)
        return regrouped

    def index_document(
        self,
        rec: DocumentRecord,
        prepared: Prepared,
        report: IndexReport,
        on_chunks: Callable[[int, int], None],
        cancel: threading.Event,
        kept: DocumentRecord | None = None,
    ) -> None:
        """Write order: catalog ``indexing`` -> chunks -> documents point -> ``ready``.

        ``kept``: the record as it was, ready, when its file changed. The new version is
        embedded first under a staging id (``staging_id``), never searched, while the
        old one stays ready and searchable; a cancel then drops the staged passages and
        puts ``kept`` back, so the old version stays (the next run sees the file changed
        and tries again). Once every passage is staged, they are written under the
        document's own id from their stored vectors (nothing is embedded twice) and the
        staged ones dropped. A crash while staging leaves passages of no document, which
        the next open deletes (``consistency.reconcile``)."""
        # A store write on a full disk is a SIGBUS (datafolder.py): stop before it.
        check_free_space(existing_parent(self.cache.root))
        # A Re-index of a ready document whose content and chunking are as indexed: its
        # chunks are rewritten in place with the same texts, so a cancel midway leaves it
        # whole and ready (it was dropped, 0 passages, until indexed again; review). Read
        # off the record as it was: ``rec`` already holds the new file's sha256, so a
        # changed file of as many chunks was taken for the same, and a cancel left it
        # "ready" with passages of both versions (session 27).
        same = (
            kept is not None
            and kept.index_format == self.embedder.index_format
            and bool(prepared.sha256)
            and kept.sha256 == prepared.sha256
            and not prepared.text_changed
            and kept.chunks == len(prepared.chunks)
        )
        if kept is not None and not same and kept.chunks:
            self._stage(rec, kept, prepared, report, on_chunks, cancel)
            # every vector is stored now: the write below embeds nothing and is not
            # cancelled (a cancel would lose both versions), nor counted again
            try:
                self._index_in_place(rec, prepared, IndexReport(), _no_progress, same=False)
            finally:
                self._unstage(rec.doc_id)
            return
        self._index_in_place(rec, prepared, report, on_chunks, cancel, same=same)

    def _index_in_place(
        self,
        rec: DocumentRecord,
        prepared: Prepared,
        report: IndexReport,
        on_chunks: Callable[[int, int], None],
        cancel: threading.Event | None = None,
        *,
        same: bool,
    ) -> None:
        """The chunks written under the document's own id, then its documents point,
        then ``ready``. ``cancel`` None: not cancellable."""
        cancel = cancel or threading.Event()
        rec.state, rec.reason, rec.error = DocState.INDEXING, "", ""
        rec.pages, rec.page_unit = prepared.pages, prepared.page_unit
        rec.ocr_pages, rec.gaps = prepared.ocr_pages, prepared.gaps
        rec.scans_unread = prepared.scans_unread
        self.catalog.put(rec)
        # Its chunks are written with these collections in their payload.
        rec.collections = membership.wanted(self.catalog, rec, rec.path, self._collection)
        self.catalog.set_collections(rec.doc_id, rec.collections)
        chunks = prepared.chunks
        try:
            first_vectors = self._write_chunks(
                rec, chunks, prepared.sparse, report, on_chunks, cancel
            )
        except Cancelled:
            if same:
                rec.state = DocState.READY
                self.catalog.put(rec)
                raise
            self._salvage(rec.doc_id, rec.doc_id)  # Resume embeds only the rest
            self._drop_vectors(rec.doc_id)
            rec.state, rec.chunks = DocState.QUEUED, 0
            rec.reason, rec.error = CANCELLED, CANCELLED_NOTE
            self.catalog.put(rec)
            raise
        self.store.delete_chunks(rec.doc_id, from_ordinal=len(chunks))
        rec.chunks, rec.indexed_at = len(chunks), time.time()
        rec.index_format = self.embedder.index_format
        rec.state = DocState.READY
        self.store.upsert_document(rec.doc_id, mean_vector(first_vectors), record_payload(rec))
        self._maybe_flush()
        self.catalog.put(rec)
        self.catalog.payload_synced([rec.doc_id])
        self.salvage.drop(rec.doc_id)  # its vectors are all stored now

    def _stage(
        self,
        rec: DocumentRecord,
        kept: DocumentRecord,
        prepared: Prepared,
        report: IndexReport,
        on_chunks: Callable[[int, int], None],
        cancel: threading.Event,
    ) -> None:
        """The new version's passages embedded and written under the staging id, in no
        collection; ``kept`` is the catalog's record meanwhile. See ``index_document``."""
        staged = staging_id(rec.doc_id)
        self.staging = self.staging | {staged}
        # a crash from here on leaves it marked: resume indexes the change (the next open
        # deletes the staged passages, which belong to no document)
        self.catalog.put(replace(kept, reason=UPDATING))
        try:
            self._write_chunks(
                rec, prepared.chunks, prepared.sparse, report, on_chunks, cancel, doc_id=staged
            )
        except BaseException:
            self._salvage(rec.doc_id, staged)  # the next try embeds only the rest
            self._unstage(rec.doc_id)
            self.catalog.put(kept)  # the old version, ready and searchable, as it was
            raise

    def _unstage(self, doc_id: str) -> None:
        """The staged passages of ``doc_id`` dropped. A store that fails here leaves them
        to the next open, which deletes passages of no document (``reconcile``)."""
        staged = staging_id(doc_id)
        if staged in self.staging:
            try:
                self.store.delete_chunks(staged)
            except LIBRARY_FAULTS:
                # still never searched: it stays in ``staging`` (review, session 27)
                log.warning("the staged passages of %s stay until the next open", doc_id)
                return
            # deleted first, then searched again: the other way round, a search between
            # the two found them (review, session 27)
            self.staging = self.staging - {staged}

    def _salvage(self, doc_id: str, owner: str) -> None:
        """Keep the vectors of ``owner``'s passages (the document's, or its staged
        version's) for the next index of ``doc_id``; the caller or reconcile drops them."""
        try:
            self.salvage.keep(doc_id, self.store.export_chunks(owner))
        except Exception as exc:  # best effort: nothing kept, they are embedded again
            log.warning("could not keep the vectors of %s's passages: %s", owner, exc)

    def _maybe_flush(self) -> None:
        """Flush the store every FLUSH_POINTS points (the store also flushes at close)."""
        if self.points_written - self._flushed_at_points >= FLUSH_POINTS:
            self.store.flush()
            self._flushed_at_points = self.points_written

    def _write_chunks(
        self,
        rec: DocumentRecord,
        chunks: list[Chunk],
        sparse: list[SparseVec],
        report: IndexReport,
        on_chunks: Callable[[int, int], None],
        cancel: threading.Event,
        doc_id: str = "",
    ) -> list[list[float]]:
        """``doc_id``: write under this id instead of the document's, in no collection
        (a staged version: ``_stage``)."""
        owner = doc_id or rec.doc_id
        collections = [] if doc_id else list(rec.collections)
        salvaged = self.salvage.take(rec.doc_id)
        total = len(chunks)
        first: list[list[float]] = []
        on_chunks(0, total)
        for start in range(0, total, EMBED_BATCH):
            if cancel.is_set():
                raise Cancelled("Indexing was cancelled.")
            batch = chunks[start : start + EMBED_BATCH]
            texts = [dense_text(c) for c in batch]
            hashes = [content_hash(t, self.embedder.model_name) for t in texts]
            # A stored chunk of the same text lends its vectors, if it has them all (one
            # indexed before sentence vectors were kept is embedded again).
            stored = self.store.vectors_by_content_hash(sorted(set(hashes)))
            known = {h: v for h, v in stored.items() if v.sentences}
            # a crash's leftovers (``recover``): those the store no longer has
            if len(salvaged):
                known |= salvaged.vectors(h for h in hashes if h not in known)
            fresh = sorted(
                {
                    h: (t, c.text)
                    for h, t, c in zip(hashes, texts, batch, strict=True)
                    if h not in known
                }.items()
            )
            if fresh:
                made = self.embedder.embed_chunks(
                    [t for _, (t, _) in fresh], [body for _, (_, body) in fresh]
                )
                known.update((h, v) for (h, _), v in zip(fresh, made, strict=True))
            report.chunks_embedded += len(fresh)
            report.chunks_reused += len(batch) - len(fresh)
            points = [
                ChunkPoint(
                    id=chunk_point_id(owner, c.ordinal),
                    dense=known[h].dense,
                    sparse=sparse[c.ordinal],
                    payload={
                        "doc_id": owner,
                        "path": rec.path,
                        "file_name": rec.file_name,
                        "page_start": c.page_start,
                        "page_end": c.page_end,
                        "ordinal": c.ordinal,
                        "text": c.text,
                        "content_hash": h,
                        "heading": c.heading,
                        "context": c.context,
                        "title": c.title,
                        "location": c.location,
                        "page_breaks": [list(b) for b in c.page_breaks],
                        COLLECTIONS: collections,
                        SENTENCES: known[h].sentences,
                    },
                )
                for c, h in zip(batch, hashes, strict=True)
            ]
            self.store.upsert_chunks(points)
            self.points_written += len(points)
            if len(first) < 3:
                first.extend(p.dense for p in points[: 3 - len(first)])
            on_chunks(min(start + EMBED_BATCH, total), total)
        return first

    def _drop_vectors(self, doc_id: str) -> None:
        self.store.delete_chunks(doc_id)
        self.store.delete_document(doc_id)

    def remove(self, rec: DocumentRecord) -> None:
        """Drop a document: ``removing`` -> chunks -> documents point -> catalog row.

        No flush: the store's log keeps the deletes, and a crash before the catalog row
        goes leaves ``removing``, which recover() finishes.
        """
        with self._lock:
            rec.state = DocState.REMOVING
            self.catalog.put(rec)
            self._drop_vectors(rec.doc_id)
            self.catalog.delete(rec.doc_id)
            self.salvage.drop(rec.doc_id)
            self._failed_here.pop(rec.path, None)
            self._forget_text(rec.sha256)

    def _forget_text(self, sha256: str) -> None:
        """The cached text of a content no document has any more (removed, or a version
        replaced by the next one: the cache kept every version of an edited file, review)."""
        if sha256 and not self.catalog.by_sha(sha256):
            self.cache.discard(sha256)

    def recover(self) -> list[DocumentRecord]:
        """After a crash: finish removals, clean half-written documents, re-queue them.
        Returns the documents to resume: not those the user cancelled (they wait)."""
        for rec in self.catalog.in_states(DocState.REMOVING):
            self.remove(rec)
        requeued = self.catalog.in_states(DocState.INDEXING, DocState.QUEUED)
        for rec in requeued:
            if rec.state is DocState.INDEXING:  # cut short mid-write: what it embedded
                self._salvage(rec.doc_id, rec.doc_id)
            self._drop_vectors(rec.doc_id)
            rec.state, rec.chunks = DocState.QUEUED, 0
            self.catalog.put(rec)
        for rec in self.catalog.updating():  # a new version cut short while staged
            self._salvage(rec.doc_id, staging_id(rec.doc_id))  # (reconcile drops it)
        for doc_id in self.salvage.kept():  # of documents gone since (a rename, a rebuild)
            if self.catalog.get(doc_id) is None:
                self.salvage.drop(doc_id)
        if requeued:
            self.store.flush()
        return [r for r in requeued if r.reason != CANCELLED]


def mean_vector(vectors: Iterable[list[float]]) -> list[float]:
    vecs = list(vectors)
    dim = len(vecs[0])
    total = [sum(v[j] for v in vecs) for j in range(dim)]
    norm = sum(x * x for x in total) ** 0.5 or 1.0
    return [x / norm for x in total]


def staging_id(doc_id: str) -> str:
    """The id a changed document's new version is written under until it is whole."""
    return doc_id + STAGED_SUFFIX


def _no_progress(done: int, total: int) -> None:
    """The copy of staged passages under the document's own id reports nothing: the
    embedding's progress already reached its end."""
