"""The one typed door between a user interface and the engine.

``EngineAPI`` is everything the window may ask of the engine; ``Engine`` implements it and
the GUI's tests implement it with a fake. Every type that crosses the door is named here
too, so the GUI imports only this module and core's plain data modules (``models``,
``errors``, ``config``); ``import-linter`` holds it to that (see pyproject.toml).

Threads (see docs/ARCHITECTURE.md): methods marked *quick* take no I/O and no lock held
for long, so the GUI thread may call them; every other method reads files, the catalog or
the store, or waits on Ollama, and runs in a worker. Index events arrive on the indexing
queue's thread.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from docent.core.answer_notes import conversation_markdown, notes
from docent.core.catalog_collections import ALL_COLLECTIONS
from docent.core.citations import (
    MARKER,
    Citation,
    CitationSource,
    cited_older,
    code_spans,
    distinct_names,
    in_spans,
    marker_numbers,
    named_pages_note,
)
from docent.core.config import Settings
from docent.core.conversation import (
    Answer,
    AnswerCancelled,
    AskStage,
    Conversation,
    StageCallback,
    Turn,
)
from docent.core.conversation_store import dumps as conversations_json
from docent.core.evaluation import Conflict
from docent.core.extract import READABLE_KINDS, SUPPORTED_SUFFIXES
from docent.core.files import changed_since_indexed, describe_unsupported, files_gone
from docent.core.gaps import sentence as gap_sentence
from docent.core.index_events import (
    DocumentChanged,
    DocumentProgressed,
    FilesFound,
    IndexEvent,
    Job,
    JobFailed,
    JobFinished,
    JobKind,
    JobStarted,
)
from docent.core.indexer import FailedFile, IndexReport, Progress
from docent.core.llm import Health
from docent.core.lookup import GrepMatch
from docent.core.models import Collection, DocumentRecord, ExtractedDocument
from docent.core.passages import Edge, locate_spans, passage_boxes
from docent.core.store import ServerCheck
from docent.core.summarizing import (
    SectionSummary,
    SummaryProgress,
    SummaryResult,
    changed_note,
    shown_text,
)
from docent.core.summary_support import check_note
from docent.core.userfiles import distinct_paths, inside, shown
from docent.core.watching import FolderState, FolderStatus

__all__ = [
    "Edge",
    "gap_sentence",
    "Answer",
    "AnswerCancelled",
    "AskStage",
    "Citation",
    "CitationSource",
    "code_spans",
    "MARKER",
    "marker_numbers",
    "in_spans",
    "ALL_COLLECTIONS",
    "Collection",
    "Conversation",
    "DocumentChanged",
    "DocumentProgressed",
    "EngineAPI",
    "FailedFile",
    "FilesFound",
    "FolderState",
    "FolderStatus",
    "GrepMatch",
    "Health",
    "ServerCheck",
    "IndexEvent",
    "IndexListener",
    "IndexReport",
    "Job",
    "JobFailed",
    "JobFinished",
    "Conflict",
    "JobKind",
    "JobStarted",
    "Progress",
    "READABLE_KINDS",
    "SUPPORTED_SUFFIXES",
    "SectionSummary",
    "SettingsApplied",
    "StageCallback",
    "Status",
    "SummaryProgress",
    "SummaryResult",
    "TokenCallback",
    "Turn",
    "changed_since_indexed",
    "files_gone",
    "describe_unsupported",
    "cited_older",
    "distinct_names",
    "distinct_paths",
    "locate_spans",
    "check_note",
    "changed_note",
    "shown_text",
    "named_pages_note",
    "conversation_markdown",
    "conversations_json",
    "notes",
    "passage_boxes",
    "inside",
    "shown",
]

IndexListener = Callable[[IndexEvent], None]
TokenCallback = Callable[[str], None]
SummaryCallback = Callable[[SummaryProgress], None]


@dataclass(slots=True)
class Status:
    documents: int
    ready: int
    failed: int
    queued: int
    indexing: int
    chunks: int
    data_dir: str
    store: str
    backend: str
    embedding_model: str
    watched: list[FolderStatus] = field(default_factory=list)
    #: Queued documents whose indexing the user cancelled (not counted in ``queued``):
    #: they wait for the user.
    cancelled: int = 0


@dataclass(frozen=True, slots=True)
class SettingsApplied:
    """What ``apply_settings`` did."""

    #: The settings the engine runs with now.
    settings: Settings
    #: Keys whose value changed (all of them saved).
    changed: list[str]
    #: Changed keys that take effect only when Docent starts again.
    restart: list[str]
    #: The settings as saved: ``settings`` and the changes waiting for a restart.
    saved: Settings


class EngineAPI(Protocol):
    """What a window may ask of the engine."""

    # Quick: state the engine holds in memory --------------------------------

    @property
    def settings(self) -> Settings:
        """The settings in force (a snapshot: replaced, never changed in place)."""
        ...

    @property
    def saved_settings(self) -> Settings:
        """The settings as saved: those in force and the changes waiting for a restart
        (what the Settings dialog shows)."""
        ...

    @property
    def recovered(self) -> Sequence[DocumentRecord]:
        """Documents found unfinished when the library was opened (a crash), or whose
        passages the store had lost (core/consistency.py): queued to be indexed again."""
        ...

    @property
    def notes(self) -> Sequence[str]:
        """Sentences saying what opening the library changed to keep the store and the
        catalog in agreement (a damaged part set aside, documents queued or taken back)."""
        ...

    @property
    def outdated(self) -> Sequence[DocumentRecord]:
        """Ready documents indexed in an older format when the library was opened; a
        resume re-indexes them (searchable meanwhile)."""
        ...

    @property
    def awaiting_ocr(self) -> Sequence[DocumentRecord]:
        """With OCR on, documents indexed without it when the library was opened (scans
        failed for want of it, scanned pages left unread); a resume reads them."""
        ...

    @property
    def changed(self) -> Sequence[DocumentRecord]:
        """Ready documents whose files changed on disk since they were indexed (edited
        while Docent was closed or not watching, an update cancelled, or a chmod); a
        resume indexes what did change (searchable as they were meanwhile). A stat each:
        read after ``warm_up``, which finds them in its worker."""
        ...

    def submit_index(
        self,
        paths: Sequence[str],
        *,
        recursive: bool = True,
        force: bool = False,
        collection: str | None = None,
    ) -> Job | None:
        """Quick: queue indexing of files and folders (``force``: rebuild even unchanged);
        they join ``collection`` (an id; None: their watched folder's, else the default).

        Returns the job that will do it (maybe an earlier one it joined), or None when
        nothing is left to do. Every job ends with JobFinished or JobFailed."""
        ...

    def submit_leave(self, paths: Sequence[str], collection_id: str) -> list[Job]:
        """Quick: queue taking these documents out of a collection; one in no other
        collection then leaves the index (files untouched)."""
        ...

    def submit_removal(self, paths: Sequence[str]) -> list[Job]:
        """Quick: queue forgetting these documents (files or folders; files untouched)."""
        ...

    def submit_resume(self) -> Job | None:
        """Quick: queue the documents a crash left queued (not those the user cancelled:
        ``submit_index`` of their paths resumes them) and the outdated ones."""
        ...

    def cancel_indexing(self) -> None:
        """Quick: stop the running job (what finished is kept), drop the users' pending ones."""
        ...

    def subscribe(self, listener: IndexListener) -> Callable[[], None]:
        """Quick: follow every indexing job (events on the queue's thread; a watched file's
        early ``FilesFound`` on the watcher's); returns the function that stops it."""
        ...

    # Slow: in a worker ------------------------------------------------------

    def warm_up(self) -> None: ...
    def documents(self, collection: str | None = None) -> list[DocumentRecord]:
        """Every document, or those of one collection (by id)."""
        ...

    def document(self, doc_id: str) -> DocumentRecord | None: ...
    def resolve(self, name_or_path: str, collection: str | None = None) -> DocumentRecord: ...
    def extracted(self, rec: DocumentRecord) -> ExtractedDocument: ...
    def dump(self, name_or_path: str) -> str: ...
    def status(self) -> Status: ...

    def collections(self) -> list[Collection]:
        """Every collection with its counts, the default one first."""
        ...

    def create_collection(self, name: str) -> Collection:
        """CollectionError when the name is taken or unusable."""
        ...

    def rename_collection(self, collection_id: str, name: str) -> Collection: ...

    def submit_collection_removal(self, collection_id: str) -> Job | None:
        """Stop watching its folders (settings are saved: not quick), then queue the
        removal: documents in no other collection leave the index, files untouched."""
        ...

    def start_watching(self, collection: str | None = None) -> list[FolderStatus]: ...
    def watch(self, path: str | Path, collection: str | None = None) -> FolderStatus | None:
        """Watch a folder; its files join ``collection`` (an id; None: the default)."""
        ...

    def unwatch(self, path: str | Path, drop_documents: bool = False) -> Job | None: ...
    def watched(self) -> list[FolderStatus]: ...

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
        """``collection``: an id to ask only that collection, "" for all of them, None
        to keep the conversation's. ``on_stage`` hears where the question is.
        ``attempt``: which time the user asks this question (a Retry passes
        ``Turn.next_attempt``): from the second on, the model samples anew. ``anyway``:
        ask the model even when retrieval judges the passages found do not answer it
        (``Answer.retrieval_abstained``: the person's "Ask anyway")."""
        ...

    def summarize(
        self,
        name_or_path: str,
        *,
        type: str | None = None,  # noqa: A002 - the summary's kind, as the CLI calls it
        model: str | None = None,
        progress: SummaryCallback | None = None,
        cancel: threading.Event | None = None,
        collection: str | None = None,
        extractive: bool = False,
    ) -> SummaryResult: ...

    def llm_health(self, timeout: float = 1.0) -> Health: ...
    def list_models(self) -> list[str]: ...
    def probe_llm(self, settings: Settings, timeout: float = 1.0) -> Health: ...
    def probe_store(self, settings: Settings) -> ServerCheck: ...
    def keep_conversation(self, markdown: str) -> Path: ...
    def saved_conversations(self) -> list[Conversation]: ...
    def save_conversations(self, text: str, generation: int) -> bool: ...

    def apply_settings(self, changes: Mapping[str, object]) -> SettingsApplied:
        """Validate, save once, apply what can change live; SettingsError names the key."""
        ...
