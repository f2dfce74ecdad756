"""A fake engine for the GUI's fast tests: ``EngineAPI`` in memory, scripted, typed.

It keeps the real engine's contracts (checked by mypy: ``as_api`` returns it as an
``EngineAPI``) so panes meet what they meet in the app:

- index jobs run on their own thread and report the same typed events in the same order
  (started, files found, per-document progress, document changed, finished/failed);
  ``hold_jobs`` pauses a job after its first document so a test can cancel it;
- ``ask`` streams tokens from a worker thread and adds exactly one turn per question
  (answered, stopped or failed) to the conversation;
- settings changes go through the real validation (``config.plan_change``).

Nothing here sleeps: every wait is on an Event with a timeout.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from docent.core import files as filemod
from docent.core.api import (
    Answer,
    AnswerCancelled,
    AskStage,
    Citation,
    CitationSource,
    Conflict,
    Conversation,
    DocumentChanged,
    DocumentProgressed,
    EngineAPI,
    FilesFound,
    FolderState,
    FolderStatus,
    Health,
    IndexEvent,
    IndexListener,
    IndexReport,
    Job,
    JobFailed,
    JobFinished,
    JobKind,
    JobStarted,
    Progress,
    SectionSummary,
    ServerCheck,
    SettingsApplied,
    StageCallback,
    Status,
    SummaryProgress,
    SummaryResult,
    TokenCallback,
)
from docent.core.config import RESTART_KEYS, Settings, plan_change
from docent.core.errors import (
    AmbiguousFile,
    Cancelled,
    CollectionError,
    SettingsError,
    UnknownFile,
)
from docent.core.models import (
    CANCELLED,
    DEFAULT_COLLECTION,
    Collection,
    DocState,
    DocumentRecord,
    ExtractedDocument,
    Page,
)

WAIT = 10.0  # seconds any fake waits on a test's gate before giving up


def citation(
    n: int, path: str, page: int = 1, text: str = "The passage.", source: CitationSource = "model"
) -> Citation:
    return Citation(
        n,
        f"chunk-{n}",
        f"doc-{Path(path).name}",
        Path(path).name,
        path,
        page,
        page,
        text,
        source=source,
    )


def answer(
    text: str,
    citations: Sequence[Citation] = (),
    *,
    mode: str = "generated",
    reason: str = "",
    unsupported: Sequence[str] = (),
    uncited: Sequence[str] = (),
    unsaid: Sequence[str] = (),
    answer_match: int | None = None,
    model: str = "fake-model",
    cut: str = "",
    unsupported_answer: bool = False,
    conflicts: Sequence[tuple[str, Conflict]] = (),
) -> Answer:
    assert mode in ("generated", "extractive", "abstained")
    return Answer(
        question="",
        text=text,
        mode=mode,  # type: ignore[arg-type]
        citations=list(citations),
        unsupported_sentences=list(unsupported),
        uncited_sentences=list(uncited),
        unsaid_parts=list(unsaid),
        answer_match=answer_match,
        confidence="high" if mode == "generated" else "low",
        reason=reason,
        model=model,
        cut=cut,
        unsupported_answer=unsupported_answer,
        conflicts=list(conflicts),
    )


class SummarizeCall(NamedTuple):
    """One ``summarize`` call: the document's file name, the model, extractive or not."""

    document: str
    model: str | None
    extractive: bool


class FakeEngine:
    def __init__(self, settings: Settings) -> None:
        from docent.core.conversation_store import ConversationFile

        self._settings = settings
        self._conversation_file = ConversationFile(settings.data_path)
        #: as saved, once a change waits for a restart (``apply_settings``)
        self._saved: Settings | None = None
        self._recovered: list[DocumentRecord] = []
        #: what ``changed`` says (ready documents saved again since they were indexed)
        self.changed_files: list[DocumentRecord] = []
        #: what ``awaiting_ocr`` says
        self.scans_awaiting_ocr: list[DocumentRecord] = []
        self.records: dict[str, DocumentRecord] = {}  # by path
        self.texts: dict[str, list[str]] = {}  # extracted pages by path
        self._listeners: list[IndexListener] = []
        self._ids = 0
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        #: paths whose indexing fails, with the reason
        self.failing: dict[str, str] = {}
        #: set: a job waits after its first document until ``release_jobs`` is set
        self.hold_jobs = threading.Event()
        self.release_jobs = threading.Event()
        self.job_paused = threading.Event()
        self.cancelled: list[Job] = []
        self.submitted: list[Job] = []
        self.watching: list[FolderStatus] = []
        self.started_watching = False
        # Answers: what the next questions get (an Answer, or an exception to raise).
        self.answers: list[Answer | Exception] = []
        #: set: ask() streams its first token, then waits for ``release_answer`` or cancel
        self.hold_answer = threading.Event()
        self.release_answer = threading.Event()
        self.answer_paused = threading.Event()
        #: set: ask() waits before its first token (the model is "thinking") until
        #: ``release_answer`` or cancel; ``waiting_paused`` says it got there
        self.hold_before_tokens = threading.Event()
        self.waiting_paused = threading.Event()
        #: streamed before the scripted answer, then ``AskStage.RETRYING`` (the engine's
        #: first answer, which no passage supported)
        self.first_try = ""
        self.asked: list[tuple[str, list[str] | None, str | None]] = []
        self.health = Health(True, ["fake-model", "other:7b"], "Ollama is running (fake).")
        self.probed: list[Settings] = []
        #: what the next model summaries give (an extractive one is always made up)
        self.summaries: list[SummaryResult | Exception] = []
        #: every summarize call, in order
        self.summarize_calls: list[SummarizeCall] = []
        #: Progress says the summary is over the user's time limit (after section 1).
        self.summary_over_limit = False
        #: set: a health check waits for ``release_health`` (``health_paused`` says it got there)
        self.hold_health = threading.Event()
        self.release_health = threading.Event()
        self.health_paused = threading.Event()
        #: set: a model summary waits after section 1 until ``release_summary`` or cancel;
        #: ``summary_paused`` says it got there
        self.hold_summary = threading.Event()
        self.release_summary = threading.Event()
        self.summary_paused = threading.Event()
        #: "Extractive now" reports its first section, then waits for this while set
        self.hold_extractive = threading.Event()
        self.release_extractive = threading.Event()
        self.applied: list[dict[str, object]] = []
        self.save_error: OSError | None = None
        self.warmed = threading.Event()
        #: What warm_up raises (a model that does not load), if anything.
        self.warm_error: Exception | None = None
        #: collection id -> name; folder -> collection id
        self.collection_names: dict[str, str] = {DEFAULT_COLLECTION: "default"}
        self.folder_collections: dict[str, str] = {}
        #: the collection each question was asked in (None: all)
        self.asked_collections: list[str | None] = []
        #: the ``attempt`` of each ask (a Retry passes the next)
        self.attempts_asked: list[int] = []
        #: the ``anyway`` of each ask (the person overrode an abstention)
        self.asked_anyway: list[bool] = []
        self.opening_notes: list[str] = []

    # Quick ----------------------------------------------------------------------

    @property
    def settings(self) -> Settings:
        return self._settings

    @property
    def recovered(self) -> Sequence[DocumentRecord]:
        return list(self._recovered)

    @property
    def outdated(self) -> Sequence[DocumentRecord]:
        return []

    @property
    def awaiting_ocr(self) -> Sequence[DocumentRecord]:
        return list(self.scans_awaiting_ocr)

    @property
    def changed(self) -> Sequence[DocumentRecord]:
        return list(self.changed_files)

    @property
    def notes(self) -> Sequence[str]:
        return list(self.opening_notes)

    def subscribe(self, listener: IndexListener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def submit_index(
        self,
        paths: Sequence[str],
        *,
        recursive: bool = True,
        force: bool = False,
        collection: str | None = None,
    ) -> Job | None:
        job = Job(JobKind.INDEX, [str(p) for p in paths], "user", recursive, force)
        job.collection = collection or ""
        return self._submit(job)

    def submit_leave(self, paths: Sequence[str], collection_id: str) -> list[Job]:
        jobs = [self._submit(Job(JobKind.LEAVE, [str(p)], collection=collection_id)) for p in paths]
        return [j for j in jobs if j is not None]

    def submit_removal(self, paths: Sequence[str]) -> list[Job]:
        jobs = [self._submit(Job(JobKind.DROP, [str(p)], "user")) for p in paths]
        return [j for j in jobs if j is not None]

    def submit_resume(self) -> Job | None:
        return self._submit(Job(JobKind.RESUME, [], "resume"))

    def cancel_indexing(self) -> None:
        for job in self.submitted:
            job.cancel.set()

    def _submit(self, job: Job) -> Job:
        with self._lock:
            self._ids += 1
            job.id = self._ids
            self.submitted.append(job)
            previous = self._threads[-1] if self._threads else None
        thread = threading.Thread(target=self._run, args=(job, previous), daemon=True)
        self._threads.append(thread)
        thread.start()
        return job

    def wait_jobs(self) -> None:
        for thread in list(self._threads):
            thread.join(WAIT)

    # The fake queue (its own threads, one job after the other) ---------------------

    def emit(self, event: IndexEvent) -> None:
        for listener in list(self._listeners):
            listener(event)

    def _run(self, job: Job, previous: threading.Thread | None) -> None:
        if previous is not None:
            previous.join(WAIT)
        report = IndexReport()
        if job.cancel.is_set():
            report.cancelled = True
            self.emit(JobFinished(job, report))
            return
        self.emit(JobStarted(job))
        try:
            if job.kind is JobKind.INDEX:
                self._index(job, report)
            elif job.kind is JobKind.DROP:
                self._drop(job, report)
            elif job.kind in (JobKind.LEAVE, JobKind.REMOVE_COLLECTION):
                self._leave(job, report)
        except Exception as exc:  # noqa: BLE001 - like the queue: a job's failure is an event
            self.emit(JobFailed(job, report, f"Could not {job.kind.value}: {exc}", exc))
            return
        report.cancelled = job.cancel.is_set()
        self.emit(JobFinished(job, report))

    def _index(self, job: Job, report: IndexReport) -> None:
        found = filemod.collect(list(job.paths), job.recursive)
        files = [str(f) for f in found.files]
        unsupported = [str(f) for f in found.unsupported]
        self.emit(FilesFound(job, files, unsupported, [str(m) for m in found.missing]))
        for i, path in enumerate(files, 1):
            if job.cancel.is_set():
                self._cancelled(files[i - 1 :], job.collection)
                return
            self.emit(DocumentProgressed(job, Progress("extracting", i, len(files), path)))
            if path in self.failing:
                self._fail(job, report, path, i, len(files))
                continue
            for done in (1, 2):
                p = Progress("embedding", i, len(files), path, "", done, 2, pages=3)
                self.emit(DocumentProgressed(job, p))
            if i == 1 and self.hold_jobs.is_set():
                self.job_paused.set()
                self.release_jobs.wait(WAIT)
                if job.cancel.is_set():
                    self._cancelled(files[i - 1 :], job.collection)
                    return
            rec = self.add_document(path, collection=job.collection or self._folder_of(path))
            report.indexed.append(path)
            self.emit(DocumentChanged(job, Progress("ready", i, len(files), path, rec.doc_id), rec))

    def _cancelled(self, paths: Sequence[str], collection: str) -> None:
        """As the indexer: files a cancelled run did not finish stay listed, cancelled."""
        for path in paths:
            rec = self.records.get(path)
            if rec is None or rec.state is DocState.QUEUED:
                name = Path(path).name
                joins = collection or self._folder_of(path) or DEFAULT_COLLECTION
                self.records[path] = DocumentRecord(
                    f"doc-{name}",
                    path,
                    name,
                    reason=CANCELLED,
                    error="Indexing was cancelled.",
                    collections=[joins],
                )

    def _fail(self, job: Job, report: IndexReport, path: str, i: int, n: int) -> None:
        message = self.failing[path]
        rec = DocumentRecord(
            f"doc-{Path(path).name}", path, Path(path).name, state=DocState.FAILED, error=message
        )
        self.records[path] = rec
        from docent.core.api import FailedFile

        report.failed.append(FailedFile(path, "unreadable", message))
        p = Progress("failed", i, n, path, rec.doc_id, message=message)
        self.emit(DocumentChanged(job, p, rec))

    def _drop(self, job: Job, report: IndexReport) -> None:
        target = job.paths[0]
        for path in [p for p in self.records if p == target or p.startswith(target + "/")]:
            rec = self.records.pop(path)
            report.removed.append(path)
            self.emit(DocumentChanged(job, Progress("removed", 1, 1, path, rec.doc_id), None))

    def _leave(self, job: Job, report: IndexReport) -> None:
        """Like the engine: out of the collection, out of the index when in no other."""
        target = job.paths[0] if job.paths else ""
        for path, rec in list(self.records.items()):
            inside = not target or path == target or path.startswith(target + "/")
            if not inside or job.collection not in rec.collections:
                continue
            rec.collections = [c for c in rec.collections if c != job.collection]
            if rec.collections:
                p = Progress("unchanged", 1, 1, path, rec.doc_id)
                self.emit(DocumentChanged(job, p, rec))
            else:
                del self.records[path]
                report.removed.append(path)
                self.emit(DocumentChanged(job, Progress("removed", 1, 1, path, rec.doc_id), None))
        if job.kind is JobKind.REMOVE_COLLECTION and job.collection != DEFAULT_COLLECTION:
            self.collection_names.pop(job.collection, None)

    def _folder_of(self, path: str) -> str:
        for folder, cid in self.folder_collections.items():
            if path.startswith(folder + "/"):
                return cid
        return ""

    def add_document(
        self, path: str, pages: Sequence[str] = ("Page one.",), collection: str = ""
    ) -> DocumentRecord:
        name = Path(path).name
        old = self.records.get(path)
        collections = set(old.collections if old else [])
        if collection or not collections:
            collections.add(collection or DEFAULT_COLLECTION)
        rec = DocumentRecord(
            f"doc-{name}",
            path,
            name,
            sha256=f"sha-{name}",
            pages=len(pages),
            chunks=2,
            state=DocState.READY,
            indexed_at=time.time(),
            collections=sorted(collections),
        )
        self.records[path] = rec
        self.texts[path] = list(pages)
        return rec

    # Slow calls (the GUI runs them in workers) -----------------------------------

    def warm_up(self) -> None:
        if self.warm_error is not None:
            raise self.warm_error
        self.warmed.set()

    def documents(self, collection: str | None = None) -> list[DocumentRecord]:
        records = [r for r in self.records.values() if collection in (None, *r.collections)]
        return sorted(records, key=lambda r: r.path)

    def document(self, doc_id: str) -> DocumentRecord | None:
        return next((r for r in self.records.values() if r.doc_id == doc_id), None)

    def resolve(self, name_or_path: str, collection: str | None = None) -> DocumentRecord:
        if name_or_path in self.records:
            return self.records[name_or_path]
        found = [r for r in self.documents(collection) if name_or_path in r.file_name]
        if len(found) > 1:
            raise AmbiguousFile(name_or_path, [r.path for r in found])
        if not found:
            raise UnknownFile(f"No indexed document matches '{name_or_path}'.")
        return found[0]

    def extracted(self, rec: DocumentRecord) -> ExtractedDocument:
        pages = self.texts.get(rec.path)
        if pages is None:
            raise UnknownFile(f"The text of {rec.file_name} is not available; re-index it.")
        return ExtractedDocument(rec.path, "text", [Page(i, t) for i, t in enumerate(pages, 1)])

    def dump(self, name_or_path: str) -> str:
        rec = self.resolve(name_or_path)
        return "\n".join(p.text for p in self.extracted(rec).pages)

    def status(self) -> Status:
        ready = sum(1 for r in self.records.values() if r.state is DocState.READY)
        failed = sum(1 for r in self.records.values() if r.state is DocState.FAILED)
        cancelled = sum(1 for r in self.records.values() if r.reason == CANCELLED)
        return Status(
            cancelled=cancelled,
            documents=len(self.records),
            ready=ready,
            failed=failed,
            queued=0,
            indexing=0,
            chunks=sum(r.chunks for r in self.records.values()),
            data_dir=str(self.settings.data_path),
            store=str(self.settings.store_path),
            backend="fake",
            embedding_model=self.settings.embedding_model,
            watched=self.watched(),
        )

    def collections(self) -> list[Collection]:
        out = []
        for cid, name in self.collection_names.items():
            docs = self.documents(cid)
            out.append(
                Collection(
                    cid,
                    name,
                    len(docs),
                    sum(1 for d in docs if d.state is DocState.READY),
                    sum(d.chunks for d in docs),
                    sum(1 for d in docs if d.collections == [cid]),
                    tuple(f for f, c in self.folder_collections.items() if c == cid),
                )
            )
        return sorted(out, key=lambda c: (not c.is_default, c.name.lower()))

    def create_collection(self, name: str) -> Collection:
        text = " ".join(name.split())
        if not text:
            raise CollectionError("A collection needs a name.")
        if text.lower() in {n.lower() for n in self.collection_names.values()}:
            raise CollectionError(f"A collection named '{text}' already exists.")
        cid = f"c{len(self.collection_names)}-{text.lower()}"
        self.collection_names[cid] = text
        return Collection(cid, text)

    def rename_collection(self, collection_id: str, name: str) -> Collection:
        text = " ".join(name.split())
        taken = {n.lower() for c, n in self.collection_names.items() if c != collection_id}
        if not text or text.lower() in taken:
            raise CollectionError(f"A collection named '{text}' already exists.")
        self.collection_names[collection_id] = text
        return next(c for c in self.collections() if c.id == collection_id)

    def submit_collection_removal(self, collection_id: str) -> Job | None:
        for folder, cid in list(self.folder_collections.items()):
            if cid == collection_id:
                self.unwatch(folder)
        job = Job(JobKind.REMOVE_COLLECTION, [], "user", collection=collection_id)
        return self._submit(job)

    def start_watching(self, collection: str | None = None) -> list[FolderStatus]:
        self.started_watching = True
        self.watching = [
            FolderStatus(f, FolderState.WATCHING) for f in self.settings.watched_folders
        ]
        return self.watched()

    def watch(self, path: str | Path, collection: str | None = None) -> FolderStatus | None:
        folder = str(filemod.normalise(path))
        if not Path(folder).is_dir():
            from docent.core.watching import WatchError

            raise WatchError(f"{folder} is not a folder. Give an existing folder to watch.")
        self.folder_collections[folder] = collection or DEFAULT_COLLECTION
        status = FolderStatus(folder, FolderState.WATCHING)
        self.watching = [w for w in self.watching if w.path != folder] + [status]
        self._settings = self._settings.model_copy(
            update={"watched_folders": [w.path for w in self.watching]}
        )
        return status

    def unwatch(self, path: str | Path, drop_documents: bool = False) -> Job | None:
        folder = str(filemod.normalise(path))
        self.folder_collections.pop(folder, None)
        self.watching = [w for w in self.watching if w.path != folder]
        self._settings = self._settings.model_copy(
            update={"watched_folders": [w.path for w in self.watching]}
        )
        return self._submit(Job(JobKind.DROP, [folder], "user")) if drop_documents else None

    def watched(self) -> list[FolderStatus]:
        for st in self.watching:
            cid = self.folder_collections.get(st.path, DEFAULT_COLLECTION)
            st.collection = self.collection_names.get(cid, "")
        return list(self.watching)

    def ask(
        self,
        question: str,
        *,
        conversation: Conversation | None = None,
        files: Sequence[str] | None = None,
        model: str | None = None,
        on_token: TokenCallback | None = None,
        cancel: threading.Event | None = None,
        on_stage: StageCallback | None = None,
        collection: str | None = None,
        attempt: int = 1,
        anyway: bool = False,
    ) -> Answer:
        conv = conversation if conversation is not None else Conversation()
        self.attempts_asked.append(attempt)
        self.asked_anyway.append(anyway)
        if collection is not None:
            conv.collection = collection or None
        if files is not None:
            conv.scope = list(files) or None
        self.asked.append((question, conv.scope, model))
        self.asked_collections.append(conv.collection)
        scripted = self.answers.pop(0) if self.answers else answer("No script for this.")
        if on_stage is not None:
            on_stage(AskStage.SEARCHING)
            on_stage(AskStage.WAITING)
        if self.hold_before_tokens.is_set():
            self.waiting_paused.set()
            while not self.release_answer.wait(0.01):
                if cancel is not None and cancel.is_set():
                    conv.add_unanswered(question, stopped=True)
                    raise AnswerCancelled("Stopped: the answer was cancelled.")
        if isinstance(scripted, Exception):
            conv.add_unanswered(question, error=str(scripted))
            raise scripted
        if self.first_try:
            for token in self.first_try.split(" "):
                if on_token is not None:
                    on_token(token + " ")
            if on_stage is not None:
                on_stage(AskStage.RETRYING)
        words = scripted.text.split(" ")
        streamed: list[str] = []
        for i, word in enumerate(words):
            if cancel is not None and cancel.is_set():
                return self._stopped(conv, question, scripted, streamed)
            token = word if i == 0 else " " + word
            streamed.append(token)
            if on_token is not None:
                on_token(token)
            if i == 0 and self.hold_answer.is_set():
                self.answer_paused.set()
                while not self.release_answer.wait(0.01):
                    if cancel is not None and cancel.is_set():
                        return self._stopped(conv, question, scripted, streamed)
        if on_stage is not None:
            on_stage(AskStage.CHECKING)
        scripted.question = question
        conv.add(question, question, scripted)
        return scripted

    def _stopped(
        self, conv: Conversation, question: str, scripted: Answer, streamed: list[str]
    ) -> Answer:
        partial = answer("".join(streamed), scripted.citations, reason="Stopped.")
        partial.partial = True
        conv.add(question, question, partial, stopped=True)
        raise AnswerCancelled("Stopped: the answer was cancelled.", partial)

    def summarize(
        self,
        name_or_path: str,
        *,
        type: str | None = None,  # noqa: A002 - the engine's name for it
        model: str | None = None,
        progress: Callable[[SummaryProgress], None] | None = None,
        cancel: threading.Event | None = None,
        collection: str | None = None,
        extractive: bool = False,
    ) -> SummaryResult:
        """Two sections, each reported as it starts and as it ends (with its summary)."""
        rec = self.resolve(name_or_path, collection)
        self.summarize_calls.append(SummarizeCall(rec.file_name, model, extractive))
        kind = type or "brief"
        report = progress or (lambda p: None)
        if extractive:
            report(SummaryProgress("extractive", 1, 2, (1, 1), "extracting from section 1 of 2"))
            if self.hold_extractive.is_set():
                self.release_extractive.wait(WAIT)
            return self._summary(rec, kind, "extractive", "fake-embedder")
        for step in (1, 2):
            report(SummaryProgress("section", step, 2, (step, step), f"Section {step} of 2"))
            part = SectionSummary(step, (step, step), f"Section {step} of {rec.file_name}.")
            over = self.summary_over_limit
            done = SummaryProgress(
                "section_done",
                step,
                2,
                (step, step),
                "done",
                sections_done=step,
                sections_total=2,
                seconds_left=30.0,
                over_limit=over,
                finished=part,
            )
            report(done)
            if step == 1 and self.hold_summary.is_set():
                self.summary_paused.set()
                while not self.release_summary.wait(0.01):
                    if cancel is not None and cancel.is_set():
                        raise Cancelled("Stopped: the summary was cancelled.")
        scripted = self.summaries.pop(0) if self.summaries else None
        if isinstance(scripted, Exception):
            raise scripted
        return scripted or self._summary(rec, kind, "generated", model or "fake-model")

    def _summary(self, rec: DocumentRecord, kind: str, mode: str, model: str) -> SummaryResult:
        return SummaryResult(
            mode=mode,  # type: ignore[arg-type]
            summary=f"A {kind} {mode} summary of {rec.file_name}.",
            type=kind,
            document=rec.file_name,
            path=rec.path,
            total_words=100,
            pages=rec.pages,
            sections_processed=2,
            section_summaries=[],
            model=model,
            seconds=0.1,
        )

    def llm_health(self, timeout: float = 1.0) -> Health:
        # As the real one: about the model in the settings, which must be installed.
        if self.hold_health.is_set():
            self.health_paused.set()
            self.release_health.wait(WAIT)
        model = self.settings.ollama_model
        if self.health.ok and self.health.models and model not in self.health.models:
            return Health(False, list(self.health.models), f"{model} is not installed.")
        return self.health

    def list_models(self) -> list[str]:
        return list(self.health.models)

    def probe_llm(self, settings: Settings, timeout: float = 1.0) -> Health:
        self.probed.append(settings)
        if "down" in settings.ollama_host:
            return Health(
                False,
                [],
                f"Ollama is not running at {settings.ollama_host}: start it with `ollama serve`.",
            )
        return self.health

    def saved_conversations(self) -> list[Conversation]:
        """The real file (conversation_store.py) in the test's data folder."""
        return self._conversation_file.load()

    def save_conversations(self, text: str, generation: int) -> bool:
        return self._conversation_file.save(text, generation)

    def keep_conversation(self, markdown: str) -> Path:
        """The real one (a file in the test's data folder)."""
        from docent.core.datafolder import keep_conversation

        return keep_conversation(self.settings.data_path, markdown)

    def probe_store(self, settings: Settings) -> ServerCheck:
        """The real one (store_server.probe): the tests point it at a stand-in server."""
        from docent.core.store import CHUNKS
        from docent.core.store_server import ServerOptions, probe

        self.probed.append(settings)
        return probe(ServerOptions.of(settings), CHUNKS)

    @property
    def saved_settings(self) -> Settings:
        return self._saved or self._settings

    def apply_settings(self, changes: Mapping[str, object]) -> SettingsApplied:
        """As LiveSettings.apply: weighed against what is saved."""
        plan = plan_change(self.saved_settings, dict(changes))
        if self.save_error is not None:
            raise SettingsError(f"The settings could not be saved: {self.save_error}")
        self.applied.append({k: getattr(plan.wanted, k) for k in plan.changed})
        live = {k: getattr(plan.wanted, k) for k in plan.changed if k not in RESTART_KEYS}
        self._settings = self._settings.model_copy(update=live)
        self._saved = plan.wanted
        waiting = [k for k in plan.restart if getattr(plan.wanted, k) != getattr(self._settings, k)]
        return SettingsApplied(self._settings, plan.changed, waiting, plan.wanted)


def as_api(engine: FakeEngine) -> EngineAPI:
    """The fake as the window sees it (mypy checks that it is an EngineAPI)."""
    return engine


def hold(monkeypatch: Any, obj: object, name: str) -> tuple[threading.Event, threading.Event]:
    """``obj.name`` held until the first event (the gate) is set; the second is set once
    a call is waiting there (a worker thread caught mid-task)."""
    gate, entered = threading.Event(), threading.Event()
    real = getattr(obj, name)

    def held(*args: Any, **kwargs: Any) -> Any:
        entered.set()
        gate.wait(10)
        return real(*args, **kwargs)

    monkeypatch.setattr(obj, name, held)
    return gate, entered
