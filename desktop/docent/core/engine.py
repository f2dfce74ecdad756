"""Engine: the one facade the GUI and the CLI use.

``with Engine(settings) as eng: eng.index([...]); eng.search("...")``. It owns the
store, catalog, embedder and indexer, holds the data folder's lock (a second Engine on
the same folder raises StoreLocked), and turns names into documents.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from docent.core import files as filemod
from docent.core.catalog import Catalog
from docent.core.config import Settings, load_settings
from docent.core.embedding import Embedder
from docent.core.errors import AmbiguousFile, StoreLocked, UnknownFile
from docent.core.indexer import FailedFile, Indexer, IndexReport, ProgressCallback
from docent.core.jobs import IndexQueue, Job
from docent.core.models import DocState, DocumentRecord, ExtractedDocument
from docent.core.retrieval import Retriever, SearchResult
from docent.core.store import ScoredPoint, Store, open_store
from docent.core.textcache import TextCache

if TYPE_CHECKING:
    from docent.core.answering import Answer
    from docent.core.conversation import Conversation
    from docent.core.llm import Health, OllamaClient
    from docent.core.summarizing import SummaryProgressCallback, SummaryResult
    from docent.core.watching import FolderStatus, Watcher

log = logging.getLogger(__name__)

GREP_LIMIT = 100
#: Chunk points written in a session after which close() optimizes the embedded store.
OPTIMIZE_AFTER_POINTS = 2000


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
    watched: list[dict[str, Any]] = field(default_factory=list)


@dataclass(slots=True)
class GrepMatch:
    file_name: str
    path: str
    page_start: int
    page_end: int
    chunk_id: str
    line: str


def _spare_one_core() -> int:
    return max(1, (os.cpu_count() or 2) - 1)


class _DataDirLock:
    """An exclusive, non-blocking lock on ``<data dir>/docent.lock`` held while open."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / "docent.lock"
        self._fh: IO[str] | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fh = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115 - held until release()
        try:
            if sys.platform == "win32":
                import msvcrt

                msvcrt.locking(fh.fileno(), msvcrt.LK_NBLCK, 1)
            else:
                import fcntl

                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            fh.close()
            raise StoreLocked(self._message()) from exc
        fh.seek(0)
        fh.truncate()
        fh.write(str(os.getpid()))
        fh.flush()
        self._fh = fh

    def _message(self) -> str:
        return (
            f"Docent is already open on {self.path.parent} (another window or command "
            "is using it). Close it first, or set DOCENT_HOME to use another folder."
        )

    def release(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


class Engine:
    def __init__(self, settings: Settings | None = None, *, interactive: bool = False) -> None:
        """``interactive``: a window shares the machine, so embedding leaves it a core."""
        self.settings = settings or load_settings()
        self._lock = _DataDirLock(self.settings.data_path)
        self.store: Store | None = None
        self.catalog: Catalog | None = None
        self.embedder = Embedder(
            self.settings.embedding_model,
            self.settings.model_cache_path,
            self.settings.embed_batch_size,
            self.settings.embed_threads or (_spare_one_core() if interactive else 0),
        )
        self.cache = TextCache(self.settings.text_cache_path)
        self._indexer: Indexer | None = None
        self._retriever: Retriever | None = None
        self.recovered: list[DocumentRecord] = []
        self._queue: IndexQueue | None = None  # the one indexing queue (watcher, GUI)
        self.watcher: Watcher | None = None  # only after start_watching()
        self._llm: OllamaClient | None = None  # see the `llm` property
        self._llm_key: tuple[object, ...] = ()

    # Lifecycle ---------------------------------------------------------------

    def open(self) -> Engine:
        s = self.settings
        self._lock.acquire()
        try:
            s.data_path.mkdir(parents=True, exist_ok=True)
            self.catalog = Catalog(s.catalog_path)
            if s.qdrant_url:
                self.store = open_store(
                    url=s.qdrant_url, api_key=s.qdrant_api_key, dim=self.embedder.dim
                )
            else:
                self.store = open_store(path=s.store_path, dim=self.embedder.dim)
            self._indexer = Indexer(
                self.catalog,
                self.store,
                self.embedder,
                self.cache,
                subprocess_extraction=s.extract_in_subprocess,
            )
            self._retriever = Retriever(self.store, self.embedder, library_size=self._library_size)
            self._retriever.apply_settings(s)
            self.recovered = self._indexer.recover()
            self._queue = IndexQueue(self._indexer, self.catalog)
        except BaseException:
            self.close()
            raise
        return self

    def warm_up(self) -> None:
        """Load the embedding model and import what answers need, ahead of first use.

        Both hold the GIL for long stretches (imports, model set-up): an app calls this
        while its window appears, not in the middle of the first drop or question.
        """
        import docent.core.answering
        import docent.core.conversation
        import docent.core.llm
        import docent.core.summarizing  # noqa: F401

        self.embedder.ensure_loaded()

    def close(self) -> None:
        if self._llm is not None:
            self._llm.close()
            self._llm = None
        if self.watcher is not None:
            self.watcher.stop()
            self.watcher = None
        if self._queue is not None:
            self._queue.stop()
            self._queue = None
        if self._indexer is not None:
            self._indexer.close()
            if self.store is not None and self._indexer.points_written >= OPTIMIZE_AFTER_POINTS:
                self._optimize_store()
            self._indexer = None
        if self.store is not None:
            self.store.close()
            self.store = None
        if self.catalog is not None:
            self.catalog.close()
            self.catalog = None
        self._lock.release()

    def _optimize_store(self) -> None:
        """Merge the segments written this session so the next open is fast.

        Until then, Qdrant Edge rebuilds the full-text index of unoptimized points on every
        open (about 1 s per 5k chunks). Optimizing holds the GIL for seconds, so it runs only
        here, when the user is done, never while they work.
        """
        optimize = getattr(self.store, "optimize", None)
        if optimize is None:
            return
        try:
            optimize()
        except Exception:  # noqa: BLE001 - a slower next open is not worth failing close
            log.warning("optimizing the store failed; the next open may be slower", exc_info=True)

    def __enter__(self) -> Engine:
        # `with Engine(...).open() as eng` is fine too: a second open would hit our own lock.
        return self if self.catalog is not None else self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def indexer(self) -> Indexer:
        if self._indexer is None:
            raise RuntimeError("Engine is not open")
        return self._indexer

    @property
    def _cat(self) -> Catalog:
        if self.catalog is None:
            raise RuntimeError("Engine is not open")
        return self.catalog

    @property
    def _store(self) -> Store:
        if self.store is None:
            raise RuntimeError("Engine is not open")
        return self.store

    # Indexing ----------------------------------------------------------------

    def index(
        self,
        paths: Sequence[str | Path],
        recursive: bool = True,
        progress: ProgressCallback | None = None,
        cancel: threading.Event | None = None,
    ) -> IndexReport:
        """Index files and folders; in folders, drop documents whose file is gone."""
        found = filemod.collect(list(paths), recursive)
        report = self.indexer.index_files(found.files, progress, cancel)
        for missing in found.missing:
            report.failed.append(FailedFile(str(missing), "missing", f"{missing} does not exist."))
        for folder in found.folders:
            for rec in self._cat.under(str(folder)):
                if not os.path.exists(rec.path) and (recursive or Path(rec.path).parent == folder):
                    self.indexer.remove(rec)
                    report.removed.append(rec.path)
        return report

    def resume(
        self, progress: ProgressCallback | None = None, cancel: threading.Event | None = None
    ) -> IndexReport:
        """Index what is queued (interrupted or cancelled earlier)."""
        queued = self._cat.in_states(DocState.QUEUED)
        present = [Path(r.path) for r in queued if os.path.exists(r.path)]
        report = self.indexer.index_files(present, progress, cancel)
        for rec in queued:
            if not os.path.exists(rec.path):
                self.indexer.remove(rec)
                report.removed.append(rec.path)
        return report

    def remove(self, name_or_path: str) -> DocumentRecord:
        rec = self.resolve(name_or_path)
        self.indexer.remove(rec)
        return rec

    # Watched folders (see core/watching.py) ----------------------------------

    @property
    def queue(self) -> IndexQueue:
        if self._queue is None:
            raise RuntimeError("Engine is not open")
        return self._queue

    def start_watching(self) -> list[FolderStatus]:
        """Watch the saved folders (each swept first). Only the GUI and `docent watch`."""
        from docent.core.watching import Watcher

        if self.watcher is None:
            self.watcher = Watcher(
                self.queue, sweep_interval=self.settings.sweep_interval_minutes * 60
            )
            self.watcher.start()
            for folder in self.settings.watched_folders:
                self.watcher.add(folder)
        return self.watcher.statuses()

    def watch(self, path: str | Path) -> FolderStatus | None:
        """Add a watched folder (saved in settings); live at once if watching started."""
        from docent.core.watching import plan_watch

        folder, replaced = plan_watch(self.settings.watched_folders, path, self.settings.data_path)
        kept = [w for w in self.settings.watched_folders if w not in replaced]
        self._save_watched(kept if folder in kept else [*kept, folder])
        if self.watcher is None:
            return None
        for old in replaced:
            self.watcher.remove(old)
        return self.watcher.add(folder)

    def unwatch(self, path: str | Path, drop_documents: bool = False) -> Job | None:
        """Stop watching a folder; with ``drop_documents``, queue removing its documents."""
        from docent.core.watching import WatchError

        folder = str(filemod.normalise(path))
        if folder not in self.settings.watched_folders:
            raise WatchError(
                f"{folder} is not a watched folder. See `docent status` for the watched folders."
            )
        self._save_watched([w for w in self.settings.watched_folders if w != folder])
        if self.watcher is not None:
            self.watcher.remove(folder)
        return self.queue.drop(folder) if drop_documents else None

    def _save_watched(self, folders: list[str]) -> None:
        from docent.core.config import update_settings_file

        update_settings_file(watched_folders=folders)
        self.settings.watched_folders = folders

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until no event timer is armed and no job is queued or running."""
        if self.watcher is not None:
            return self.watcher.wait_settled(3600.0 if timeout is None else timeout)
        return self.queue.wait_idle(timeout)

    def _watched_status(self) -> list[dict[str, Any]]:
        if self.watcher is not None:
            return [st.as_dict() for st in self.watcher.statuses()]
        return [
            {
                "path": p,
                "state": "off",
                "last_sweep": 0.0,
                "message": "Watched while the Docent window or `docent watch` runs.",
            }
            for p in self.settings.watched_folders
        ]

    # Looking things up ------------------------------------------------------

    def documents(self) -> list[DocumentRecord]:
        return self._cat.all()

    def document(self, doc_id: str) -> DocumentRecord | None:
        return self._cat.get(doc_id)

    def resolve(self, name_or_path: str) -> DocumentRecord:
        """One document by path, file name, or unique part of a name.

        Raises AmbiguousFile with the candidates when several match, UnknownFile when none.
        """
        cat = self._cat
        rec = cat.by_path(str(filemod.normalise(name_or_path)))
        if rec:
            return rec
        matches = cat.by_name(Path(name_or_path).name)
        if not matches:
            needle = name_or_path.lower()
            matches = [r for r in cat.all() if needle in r.file_name.lower()]
        if len(matches) > 1 and ("/" in name_or_path or "\\" in name_or_path):
            # "a/notes.txt" picks the notes.txt whose path ends that way.
            tail = "/" + name_or_path.replace("\\", "/").lstrip("./")
            matches = [r for r in matches if r.path.replace("\\", "/").endswith(tail)] or matches
        if len(matches) == 1:
            return matches[0]
        if matches:
            raise AmbiguousFile(name_or_path, [r.path for r in matches])
        raise UnknownFile(
            f"No indexed document matches '{name_or_path}'. See `docent list` for what is indexed."
        )

    def extracted(self, rec: DocumentRecord) -> ExtractedDocument:
        doc = self.cache.get(rec.sha256) if rec.sha256 else None
        if doc is None:
            raise UnknownFile(f"The text of {rec.file_name} is not available; re-index it.")
        return doc

    def dump(self, name_or_path: str) -> str:
        """The extracted text as Markdown with page markers."""
        rec = self.resolve(name_or_path)
        doc = self.extracted(rec)
        unit = "Page" if doc.page_unit == "page" else f"Lines block ({doc.page_unit})"
        parts = [f"# {rec.file_name}\n\n_Source: {rec.path}_\n"]
        for page in doc.pages:
            parts.append(f"\n<!-- page {page.number} -->\n## {unit} {page.number}\n\n{page.text}\n")
        return "".join(parts)

    def summarize(
        self,
        name_or_path: str,
        *,
        type: str | None = None,
        model: str | None = None,
        progress: SummaryProgressCallback | None = None,
        cancel: threading.Event | None = None,
    ) -> SummaryResult:
        """A brief | detailed | bullets summary (core/summarizing.py): cached, generated by
        the model, or extractive when no model answers. ``type``: settings.summary_type."""
        from docent.core.summarizing import Summarizer

        rec = self.resolve(name_or_path)
        summarizer = Summarizer(
            self.settings, self._cat, self._store, self.embedder, self.extracted
        )
        return summarizer.summarize(rec, kind=type, model=model, progress=progress, cancel=cancel)

    def status(self) -> Status:
        counts = self._cat.counts()
        s = self.settings
        return Status(
            documents=counts["documents"],
            ready=counts.get("ready", 0),
            failed=counts.get("failed", 0),
            queued=counts.get("queued", 0),
            indexing=counts.get("indexing", 0),
            chunks=counts["chunks"],
            data_dir=str(s.data_path),
            store=s.qdrant_url or str(s.store_path),
            backend="qdrant-server" if s.qdrant_url else "qdrant-edge",
            embedding_model=s.embedding_model,
            watched=self._watched_status(),
        )

    # Search ------------------------------------------------------------------

    def _library_size(self) -> tuple[int, int]:
        """Ready documents and their chunks, from the catalog (cheaper than the store)."""
        counts = self._cat.counts()
        return counts.get("ready", 0), counts["chunks"]

    def _busy_doc_ids(self) -> list[str]:
        """Documents whose chunks may be half-written: never searched."""
        return [r.doc_id for r in self._cat.in_states(DocState.INDEXING, DocState.REMOVING)]

    def scope_ids(self, names: Sequence[str] | None) -> list[str] | None:
        if not names:
            return None
        return [self.resolve(n).doc_id for n in names]

    def search(
        self,
        query: str,
        *,
        files: Sequence[str] | None = None,
        k: int | None = None,
        debug: bool = False,
        rewrites: Sequence[str] = (),
    ) -> SearchResult:
        """The retrieval pipeline (core/retrieval.py). ``files``: names or paths to search
        in (AmbiguousFile lists the candidates when a name matches several); ``k`` None:
        ``results_k`` from the settings, else adaptive; ``rewrites``: up to two LLM
        rewrites of the query, searched as extra variants."""
        if self._retriever is None:
            raise RuntimeError("Engine is not open")
        self._retriever.apply_settings(self.settings)
        return self._retriever.search(
            query,
            k=k,
            doc_ids=self.scope_ids(files),
            exclude_doc_ids=self._busy_doc_ids(),
            debug=debug,
            rewrites=rewrites,
        )

    # Answers (core/answering.py) ----------------------------------------------

    @property
    def llm(self) -> OllamaClient:
        """The Ollama client for the current settings (made anew when they change)."""
        from docent.core.llm import OllamaClient

        s = self.settings
        key = (
            s.effective_ollama_host(),
            s.ollama_model,
            s.llm_connect_timeout,
            s.llm_first_token_timeout,
            s.llm_total_timeout,
        )
        if self._llm is None or key != self._llm_key:
            if self._llm is not None:
                self._llm.close()
            self._llm, self._llm_key = OllamaClient.from_settings(s), key
        return self._llm

    def llm_health(self, timeout: float = 1.0) -> Health:
        """Is Ollama up with the configured model? Never raises; about ``timeout`` at most."""
        return self.llm.health(timeout)

    @staticmethod
    def probe_llm(settings: Settings, timeout: float = 1.0) -> Health:
        """Ollama as ``settings`` (maybe not yet saved or applied) describe it; never raises.

        The settings dialog's Test button: no engine state changes.
        """
        from docent.core.llm import OllamaClient

        client = OllamaClient.from_settings(settings)
        try:
            return client.health(timeout)
        finally:
            client.close()

    def list_models(self) -> list[str]:
        """Installed Ollama models; LLMUnavailable etc. when Ollama cannot be asked."""
        return self.llm.list_models()

    def ask(
        self,
        question: str,
        *,
        conversation: Conversation | None = None,
        files: Sequence[str] | None = None,
        model: str | None = None,
        on_token: Callable[[str], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> Answer:
        """Answer from the library with checked citations (generated, extractive or
        abstained). ``files`` sets the conversation's scope (``[]`` clears it; None keeps
        it); the turn is added to ``conversation``. AnswerCancelled when ``cancel`` is set."""
        from docent.core.answering import Answerer
        from docent.core.conversation import Conversation

        conv = conversation if conversation is not None else Conversation()
        if files is not None:
            conv.scope = [self.resolve(f).path for f in files] or None
        scope = list(conv.scope) if conv.scope else None
        answerer = Answerer(
            self.llm,
            self.settings,
            lambda query, rewrites: self.search(query, files=scope, rewrites=rewrites),
            count_tokens=self.embedder.count_tokens,
        )
        return answerer.answer(question, conv, model=model, on_token=on_token, cancel=cancel)

    def grep(self, pattern: str, limit: int = GREP_LIMIT) -> list[GrepMatch]:
        """Case-insensitive exact text over chunks: at most ``limit`` (≤ 100) matches."""
        limit = max(1, min(limit, GREP_LIMIT))
        busy = set(self._busy_doc_ids())
        # Ask for more when half-written documents may take some of the matches.
        points = [
            p
            for p in self._store.grep(pattern, limit=limit + (GREP_LIMIT if busy else 0))
            if p.payload["doc_id"] not in busy
        ]
        return [_grep_match(p, pattern) for p in points[:limit]]


def _grep_match(p: ScoredPoint, pattern: str) -> GrepMatch:
    pl = p.payload
    text: str = pl["text"]
    at = text.lower().find(pattern.lower())
    start = max(0, at - 60) if at >= 0 else 0
    line = " ".join(text[start : start + len(pattern) + 120].split())
    return GrepMatch(
        pl["file_name"], pl["path"], int(pl["page_start"]), int(pl["page_end"]), p.id, line
    )
