"""Engine: the one facade the GUI and the CLI use (``api.EngineAPI`` is its typed face).

``with Engine(settings) as eng: eng.index([...]); eng.search("...")``. It holds the data
folder's lock (a second Engine on the same folder raises StoreLocked), opens the catalog,
store and indexer, owns the one indexing queue and the settings in force, and delegates
each job to the module that does it. Its collaborators (embedder, store, LLM client) can be
passed in, so tests can give it fakes.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path, PurePath
from typing import TYPE_CHECKING

from docent.core import files as filemod
from docent.core import lookup, membership
from docent.core.api import (
    IndexListener,
    SettingsApplied,
    StageCallback,
    Status,
    SummaryCallback,
    TokenCallback,
)
from docent.core.catalog import Catalog
from docent.core.config import Settings, load_settings
from docent.core.consistency import Reconciled, open_catalog, open_embedded_store, reconcile
from docent.core.conversation_store import ConversationFile
from docent.core.datafolder import check_data_folder, keep_conversation
from docent.core.embedding import Embedder
from docent.core.engine_watching import EngineWatching
from docent.core.errors import NotIndexed, StoreError
from docent.core.index_events import Job, JobKind
from docent.core.indexer import Indexer, IndexReport, ProgressCallback
from docent.core.jobs import IndexQueue
from docent.core.live_settings import LiveSettings, LLMFactory
from docent.core.lookup import GREP_LIMIT, GrepMatch
from docent.core.models import (
    CANCELLED,
    DocState,
    DocumentRecord,
    ExtractedDocument,
    unit_long,
)
from docent.core.normal_form import scripts_apart, typed
from docent.core.oslock import FileLock
from docent.core.preparing import Limits
from docent.core.queryterms import PageRequest, page_request
from docent.core.retrieval import Retriever, SearchResult, unanswered
from docent.core.store import CHUNKS, ServerCheck, Store, open_store
from docent.core.textcache import TextCache
from docent.core.userfiles import distinct_paths, shown

if TYPE_CHECKING:
    from docent.core.conversation import Answer, Conversation
    from docent.core.llm import Health, OllamaClient
    from docent.core.store_copy import CopyCallback, CopyReport
    from docent.core.summarizing import SummaryResult
    from docent.core.watching import Watcher

log = logging.getLogger(__name__)

#: Seconds close() gives a run that did not stop when cancelled, once its file reading
#: is stopped, before it leaves the store open for the exit.
CLOSE_WAIT = 60.0


def _spare_one_core() -> int:
    return max(1, (os.cpu_count() or 2) - 1)


def _locked_message(folder: Path) -> str:
    return (
        f"Docent is already open on {folder} (another window or command is using it). "
        "Close it first, or set DOCENT_HOME to use another folder."
    )


class Engine(EngineWatching):
    def __init__(
        self,
        settings: Settings | None = None,
        *,
        interactive: bool = False,
        embedder: Embedder | None = None,
        store: Store | None = None,
        llm: LLMFactory | None = None,
    ) -> None:
        """``interactive``: a window shares the machine, so embedding leaves it a core.

        ``embedder``, ``store`` and ``llm`` (a function making the Ollama client for some
        settings) replace the real ones; a store passed in is closed with the engine.
        """
        self._live = LiveSettings(settings or load_settings(), llm)
        s = self.settings
        self._lock = FileLock(s.data_path / "docent.lock", _locked_message(s.data_path))
        self._conversation_file = ConversationFile(s.data_path)
        self.embedder = embedder or Embedder(
            s.embedding_model,
            s.model_cache_path,
            s.embed_batch_size,
            s.embed_threads or (_spare_one_core() if interactive else 0),
        )
        self._given_store = store
        self.store: Store | None = None
        self.catalog: Catalog | None = None
        self.cache = TextCache(s.text_cache_path)
        self._indexer: Indexer | None = None
        self._retriever: Retriever | None = None
        self._recovered: list[DocumentRecord] = []
        #: Ready documents indexed in an older format: a resume re-indexes them.
        self._outdated: list[DocumentRecord] = []
        self._awaiting_ocr: list[DocumentRecord] = []
        #: Computed by ``warm_up`` (a worker's) or at first use: a stat per document.
        self._changed: list[DocumentRecord] | None = None
        #: What opening the library changed to make the store and the catalog agree, and
        #: sentences saying so (a damaged part set aside too): core/consistency.py.
        self.reconciled = Reconciled()
        self._notes: list[str] = []
        self._queue: IndexQueue | None = None  # the one indexing queue
        self.watcher: Watcher | None = None  # only after start_watching()

    # Lifecycle ---------------------------------------------------------------

    def open(self, *, rebuild: bool = False) -> Engine:
        """Open the library. A damaged catalog or embedded store raises CatalogError or
        StoreDamaged; with ``rebuild`` it is set aside and rebuilt instead (see
        core/consistency.py). ``notes`` then says what opening changed."""
        s = self.settings
        check_data_folder(s.data_path)  # a file, read-only, a full disk: one sentence
        self._lock.acquire()
        try:
            self.catalog, notes = open_catalog(s.catalog_path, rebuild)
            self.store = self._given_store or self._open_store(s, rebuild, notes)
            self._indexer = Indexer(
                self.catalog,
                self.store,
                self.embedder,
                self.cache,
                subprocess_extraction=s.extract_in_subprocess,
                ocr=s.ocr_enabled,
                limits=Limits.of(s),
            )
            self._retriever = Retriever(self.store, self.embedder, library_size=self._library_size)
            self._retriever.apply_settings(s)
            self._recovered = self._indexer.recover()
            self.reconciled = reconcile(self.catalog, self.store)
            self._recovered += self.reconciled.requeued
            self._notes = notes + self.reconciled.messages()
            # An older library's points, or a membership change a crash cut short.
            membership.sync_payloads(self.catalog, self.store)
            self._outdated = self._indexer.outdated()
            self._awaiting_ocr = self._indexer.awaiting_ocr()
            self._queue = IndexQueue(self._indexer, self.catalog, self.settings.data_path)
        except BaseException:
            self.close()
            raise
        return self

    def _open_store(self, s: Settings, rebuild: bool, notes: list[str]) -> Store:
        if s.qdrant_url:
            from docent.core.config import env_overridden, settings_file
            from docent.core.store_server import ServerOptions

            try:
                return open_store(server=ServerOptions.of(s), dim=self.embedder.dim)
            except StoreError as exc:
                # where the setting is, and the way back (QA-79: a URL saved in Settings,
                # then the window would not start and said neither)
                where = env_overridden().get("qdrant_url") or f"qdrant_url in {settings_file()}"
                exc.args = (
                    f"{exc} The server is set by {where}: clear it to use the library's own "
                    "embedded store again.",
                )
                raise
        store, more = open_embedded_store(s.store_path, self.embedder.dim, rebuild, self._cat)
        notes += more
        return store

    def warm_up(self) -> None:
        """Load the embedding model and import what answers need, ahead of first use.

        Both hold the GIL for long stretches (imports, model set-up): an app calls this
        while its window appears, not in the middle of the first drop or question.
        """
        import docent.core.answering
        import docent.core.llm
        import docent.core.summarizing  # noqa: F401

        self.embedder.warm_up()
        # a stat per document, here rather than in open (the window opens the engine on
        # its thread: a library on a hung network mount would freeze it; review, s29)
        self._changed = self.indexer.changed()

    def close(self) -> None:
        self._live.close()
        if self.watcher is not None:
            self.watcher.stop()
            self.watcher = None
        if self._queue is not None:
            stopped = self._queue.stop()
            if not stopped and self._indexer is not None:
                # A step that checks no cancel (a file read, a long folder walk): stop the
                # file reading under it, and give it longer before the store goes.
                self._indexer.close()
                stopped = self._queue.stop(timeout=CLOSE_WAIT)
            if not stopped:
                # Closing the store under a run that still writes would break both: leave
                # them to the process's exit, which the store and catalog survive as any
                # crash (the next start finishes or re-queues what was half-done).
                log.error("indexing did not stop: the store is left open for the exit")
                return
            self._queue = None
        if self._indexer is not None:
            self._indexer.close()
            self._indexer = None
        if self.store is not None:
            self._index_before_close(self.store)
            self.store.close()
            self.store = None
        if self.catalog is not None:
            self.catalog.close()
            self.catalog = None
        self._lock.release()

    @staticmethod
    def _index_before_close(store: Store) -> None:
        """Index the points the indexer's steps left (fewer than a step), so the next open
        does not rebuild their text index. It holds the store for seconds: only at close."""
        try:
            if store.index_due(closing=True):
                store.optimize()
        except Exception:  # noqa: BLE001 - a slower next open is not worth failing close
            log.warning("indexing the store failed; the next open may be slower", exc_info=True)

    def __enter__(self) -> Engine:
        # `with Engine(...).open() as eng` is fine too: a second open would hit our own lock.
        return self if self.catalog is not None else self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def settings(self) -> Settings:
        return self._live.settings

    @settings.setter
    def settings(self, new: Settings) -> None:
        """In force for this engine, not saved (tests, benchmarks); a user's change goes
        through ``apply_settings``."""
        self._live.replace(new)

    @property
    def saved_settings(self) -> Settings:
        return self._live.wanted

    @property
    def recovered(self) -> list[DocumentRecord]:
        return list(self._recovered)

    @property
    def outdated(self) -> list[DocumentRecord]:
        """Ready documents indexed in an older format when the engine opened, or whose
        update a crash cut short."""
        return list(self._outdated)

    @property
    def awaiting_ocr(self) -> list[DocumentRecord]:
        """With OCR on, the documents indexed without it when the engine opened
        (``Indexer.awaiting_ocr``); a resume reads them."""
        return list(self._awaiting_ocr)

    @property
    def changed(self) -> list[DocumentRecord]:
        """Ready documents whose files changed on disk since they were indexed
        (``Indexer.changed``), as ``warm_up`` found them, else now: a stat each."""
        if self._changed is None:
            self._changed = self.indexer.changed()
        return list(self._changed)

    @property
    def notes(self) -> list[str]:
        return list(self._notes)

    @property
    def indexer(self) -> Indexer:
        if self._indexer is None:
            raise RuntimeError("Engine is not open")
        return self._indexer

    @property
    def queue(self) -> IndexQueue:
        if self._queue is None:
            raise RuntimeError("Engine is not open")
        return self._queue

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

    # Indexing: every path goes through the one queue ---------------------------

    def submit_index(
        self,
        paths: Sequence[str],
        *,
        recursive: bool = True,
        force: bool = False,
        collection: str | None = None,
    ) -> Job | None:
        normal = [str(filemod.normalise(p)) for p in paths]
        return self.queue.index(
            normal, recursive=recursive, force=force, collection=collection or ""
        )

    def submit_removal(self, paths: Sequence[str]) -> list[Job]:
        if not paths:
            return []
        job = self.queue.drop(*(str(filemod.normalise(p)) for p in paths))
        return [job] if job is not None else []

    def submit_resume(self) -> Job | None:
        return self.queue.resume()

    def cancel_indexing(self) -> None:
        self.queue.cancel()

    def subscribe(self, listener: IndexListener) -> Callable[[], None]:
        return self.queue.subscribe(listener)

    def index(
        self,
        paths: Sequence[str | Path],
        recursive: bool = True,
        progress: ProgressCallback | None = None,
        cancel: threading.Event | None = None,
        collection: str | None = None,
    ) -> IndexReport:
        """Index files and folders and wait; in folders, drop documents whose file is gone.
        ``collection`` (an id): the files join it (None: see membership.py)."""
        job = Job(
            JobKind.INDEX,
            [str(p) for p in paths],
            "command",
            recursive,
            collection=collection or "",
        )
        return self._run(job, progress, cancel)

    def resume(
        self, progress: ProgressCallback | None = None, cancel: threading.Event | None = None
    ) -> IndexReport:
        """Index what a crash left queued and re-index what an older Docent indexed
        (searchable meanwhile; unchanged texts keep their vectors); wait. Documents the
        user cancelled wait for them: index them again to resume them."""
        report = self._run(Job(JobKind.RESUME, [], "resume"), progress, cancel)
        self._outdated = self.indexer.outdated()
        self._awaiting_ocr = self.indexer.awaiting_ocr()
        self._changed = self.indexer.changed()
        return report

    def remove(self, name_or_path: str) -> DocumentRecord:
        """Forget a document (by name or path) and wait."""
        rec = self.resolve(name_or_path)
        self._run(Job(JobKind.DROP, [rec.path], "command"), None, None)
        return rec

    def _run(
        self, job: Job, progress: ProgressCallback | None, cancel: threading.Event | None
    ) -> IndexReport:
        if cancel is not None:
            job.cancel = cancel
        return self.queue.run(job, progress)

    # Settings: this is their one owner ------------------------------------------

    def apply_settings(self, changes: Mapping[str, object]) -> SettingsApplied:
        """Validate ``changes``, save them once, take over what can change live (a new
        Ollama client, the watched folders, the limits the next file read is held to)
        and say which keys wait for a restart.

        SettingsError names the key and why; nothing is saved or changed then.
        """
        before = self.settings.watched_folders
        plan = self._live.apply(changes)
        if self._indexer is not None:
            self._indexer.set_limits(Limits.of(self.settings))
        after = self.settings.watched_folders
        if before != after:
            self._bind_folders(before, after)
        if self.watcher is not None:
            for folder in (f for f in before if f not in after):
                self.watcher.remove(folder)
            for folder in (f for f in after if f not in before):
                self.watcher.add(folder)
        return SettingsApplied(self.settings, plan.changed, plan.restart, plan.wanted)

    # Looking things up ------------------------------------------------------

    def documents(self, collection: str | None = None) -> list[DocumentRecord]:
        """Every document, or those of one collection (by id)."""
        return self._cat.all(collection)

    def document(self, doc_id: str) -> DocumentRecord | None:
        return self._cat.get(doc_id)

    def resolve(self, name_or_path: str, collection: str | None = None) -> DocumentRecord:
        """One document by path, file name, or unique part of a name, in ``collection``
        (an id) when given (see lookup.resolve)."""
        return lookup.resolve(self._cat, name_or_path, collection)

    def extracted(self, rec: DocumentRecord) -> ExtractedDocument:
        from docent.core.errors import UnknownFile

        # stale: until the next run reads it again, the text the passages were cut from
        doc = self.cache.get(rec.sha256, stale=True) if rec.sha256 else None
        if doc is None:
            if rec.state is DocState.FAILED:
                # re-indexing will not help a file that cannot be read: say why it failed
                # ("re-index it" was said of an encrypted PDF; QA, session 26)
                why = rec.error or "its indexing failed"
                raise UnknownFile(f"{rec.file_name} has no text: {why}")
            if rec.state is not DocState.READY:
                raise UnknownFile(f"{rec.file_name} is not indexed yet ({rec.state}).")
            raise UnknownFile(f"The text of {rec.file_name} is not available; re-index it.")
        return doc

    def dump(self, name_or_path: str) -> str:
        """The extracted text as Markdown with page markers."""
        rec = self.resolve(name_or_path)
        return lookup.as_markdown(rec, self.extracted(rec))

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
    ) -> SummaryResult:
        """A brief | detailed | bullets summary (core/summarizing.py): cached, generated by
        the model, or extractive when no model answers. ``type``: settings.summary_type.
        ``collection`` (an id): the name is looked for only there. ``extractive``: no
        model call (the "extractive now" a summary over its time limit offers)."""
        from docent.core.summarizing import Summarizer

        rec = self.resolve(name_or_path, collection)
        summarizer = Summarizer(
            self.settings, self._cat, self._store, self.embedder, self.extracted
        )
        return summarizer.summarize(
            rec, kind=type, model=model, progress=progress, cancel=cancel, extractive=extractive
        )

    def status(self) -> Status:
        counts = self._cat.counts()
        s = self.settings
        return Status(
            documents=counts["documents"],
            ready=counts.get("ready", 0),
            failed=counts.get("failed", 0),
            queued=counts.get("queued", 0) - counts.get(CANCELLED, 0),
            cancelled=counts.get(CANCELLED, 0),
            indexing=counts.get("indexing", 0),
            chunks=counts["chunks"],
            data_dir=str(s.data_path),
            store=s.qdrant_url or str(s.store_path),
            backend="qdrant-server" if s.qdrant_url else "qdrant-edge",
            embedding_model=s.embedding_model,
            watched=self.watched(),
        )

    def copy_store(
        self, target: str, *, progress: CopyCallback | None = None, prune: bool = False
    ) -> CopyReport:
        """Copy the library's points to ``target`` (a Qdrant server URL, or "embedded")
        without re-embedding; resumable. Settings unchanged (core/store_copy.py)."""
        from docent.core.store_copy import copy_to

        return copy_to(self.settings, self._cat, self._store, target, progress, prune)

    # Search ------------------------------------------------------------------

    def _library_size(self, collection: str | None = None) -> tuple[int, int]:
        """Ready documents and their chunks (of one collection), from the catalog (cheaper
        than the store)."""
        counts = self._cat.counts(collection)
        return counts.get("ready", 0), counts["chunks"]

    def _busy_doc_ids(self) -> list[str]:
        """Documents whose chunks may be half-written, and the new versions of changed
        documents being staged (``Indexer.staging``): never searched."""
        busy = [r.doc_id for r in self._cat.in_states(DocState.INDEXING, DocState.REMOVING)]
        staged = self._indexer.staging if self._indexer is not None else frozenset()
        return busy + sorted(staged)

    def _scope(
        self, names: Sequence[str] | None, collection: str | None
    ) -> tuple[list[str] | None, list[str]]:
        """The ids of the named documents that can be searched, and a sentence on each
        that cannot; NotIndexed when none can. One failed document of several named made
        the others unsearchable (review)."""
        if not names:
            return None, []
        records = [self.resolve(n, collection) for n in names]
        ready = [r.doc_id for r in records if r.state is DocState.READY]
        notes = [why for r in records if (why := _unsearchable(r))]
        if not ready:
            raise NotIndexed(" ".join(notes))
        return ready, notes

    def _paged(
        self, scope: list[str] | None, collection: str | None, pages: PageRequest
    ) -> tuple[list[str], list[DocumentRecord]]:
        """The ready documents of ``scope`` (else of the library or collection) that have
        the first of those pages: PDFs and slide decks (a deck's pages are its slides);
        for slides, decks only. A text file's blocks of lines or a web page's sections are
        no pages to ask about. Of those the question names by file name ("page 3 of
        notes.txt": another's page 3 is no answer), only those; and those it named."""
        units = ("slide",) if pages.unit == "slide" else ("page", "slide")
        wanted = set(scope) if scope is not None else None
        records = [
            r
            for r in self.documents(collection)
            if r.state is DocState.READY and (wanted is None or r.doc_id in wanted)
        ]
        named = lookup.named_by(pages.document, records) if pages.document else []
        paged = [
            r.doc_id for r in named or records if r.page_unit in units and r.pages >= pages.first
        ]
        return paged, named

    def search(
        self,
        query: str,
        *,
        files: Sequence[str] | None = None,
        k: int | None = None,
        debug: bool = False,
        rewrites: Sequence[str] = (),
        collection: str | None = None,
    ) -> SearchResult:
        """The retrieval pipeline (core/retrieval.py). ``files``: names or paths to search
        in (AmbiguousFile lists the candidates when a name matches several); ``k`` None:
        ``results_k`` from the settings, else adaptive; ``rewrites``: up to two LLM
        rewrites of the query, searched as extra variants; ``collection``: an id, to
        search only that collection (the files are looked for in it)."""
        if self._retriever is None:
            raise RuntimeError("Engine is not open")
        self._retriever.apply_settings(self.settings)
        scope, unsearched = self._scope(files, collection)
        query = scripts_apart(typed(query))  # as the passages are (normal_form.py)
        pages = page_request(query)
        if pages is not None:  # "What does it say on page 3?": that page of a PDF
            scope, named = self._paged(scope, collection, pages)
            if named and not scope:  # "page 40 of the audacity manual", of 17 pages
                return unanswered(query, *_no_such_page(named[0], pages))
            # a document named by title, not file name, is left to the ranking's words
            query = pages.rest if named else f"{pages.rest} {pages.document}".strip()
        result = self._retriever.search(
            query,
            k=k,
            doc_ids=scope,
            exclude_doc_ids=self._busy_doc_ids(),
            debug=debug,
            rewrites=[typed(r) for r in rewrites],
            collection=collection,
            pages=pages,
        )
        if result.evaluation is not None:
            result.evaluation.issues.extend(unsearched)
            counts = self._cat.counts(collection) if not result.hits and scope is None else {}
            if counts and not counts.get(DocState.READY.value):
                # "Index documents that cover this" of a library with none (QA-80)
                where = "This collection" if collection else "Your library"
                coming = sum(counts.get(s.value, 0) for s in (DocState.QUEUED, DocState.INDEXING))
                result.evaluation.issues[:] = [f"{where.lower()} has no document ready yet"]
                result.evaluation.recommendation = (
                    f"{where} has no document ready yet: {coming} being indexed; ask "
                    "again when they are ready."
                    if coming  # (not "add files": they were just added; review 85)
                    else f"{where} has no document ready yet: add files or a folder (Add "
                    "files… in the window, or `docent index FOLDER`), then ask again."
                )
        names = self.names_shown([h.path for h in result.hits])
        records = self._cat.by_paths(list(names))
        for h in result.hits:
            h.name = names[h.path]
            h.sha256 = rec.sha256 if (rec := records.get(h.path)) is not None else ""
        return result

    def names_shown(self, paths: Sequence[str]) -> dict[str, str]:
        """Each path's name as a reader is shown it: with as much of its folders as tells
        it from the library's other files of its name, listed or not ("teamA/notes.md"
        though teamB's is not among them; QA, sessions 31 and 34). One count a folder
        deeper at a time, not every path of that name: a search at 5,000 "index.md" took
        50 ms more (review, session 34)."""
        out: dict[str, str] = {}
        for path in dict.fromkeys(paths):
            parts = PurePath(path).parts
            depth = 1
            while depth < len(parts):
                tail = os.sep.join(parts[-depth:]).removeprefix(os.sep)
                if self._cat.named_alike(parts[-1], tail) <= 1:
                    break
                depth += 1
            shown = parts[-depth:]
            if depth == len(parts) and PurePath(path).anchor:
                shown = shown[1:]  # "/" or "C:\\" is no folder to name
            out[path] = "/".join(shown) if depth > 1 else parts[-1]
        # two of ``paths`` the catalog does not hold (yet): told apart among themselves
        among = distinct_paths(out)
        return {p: out[p] if out[p].count("/") >= among[p].count("/") else among[p] for p in paths}

    def grep(
        self, pattern: str, limit: int = GREP_LIMIT, collection: str | None = None
    ) -> list[GrepMatch]:
        """Case-insensitive exact text over chunks (of one collection, by id): at most
        ``limit`` (≤ 100) matches."""
        busy = set(self._busy_doc_ids())
        return lookup.grep(self._store, typed(pattern), busy, limit, collection)

    # Answers (core/asking.py, core/answering.py) ----------------------------------------------

    @property
    def llm(self) -> OllamaClient:
        """The Ollama client for the settings in force (see live_settings.py)."""
        return self._live.llm

    def llm_health(self, timeout: float = 1.0) -> Health:
        """Is Ollama up with the configured model? Never raises; about ``timeout`` at most."""
        return self.llm.health(timeout)

    def probe_llm(self, settings: Settings, timeout: float = 1.0) -> Health:
        """Ollama as ``settings`` (maybe not yet saved or applied) describe it; never raises.

        The settings dialog's Test button: no engine state changes.
        """
        return self._live.probe(settings, timeout)

    def saved_conversations(self) -> list[Conversation]:
        """The conversations the window held when it last saved them (conversation_store.py)."""
        return self._conversation_file.load()

    def save_conversations(self, text: str, generation: int) -> bool:
        """Keep the window's conversations (``conversations_json``'s text, made at
        ``generation``); False when a later generation was kept already."""
        return self._conversation_file.save(text, generation)

    def keep_conversation(self, markdown: str) -> Path:
        """Keep a conversation the window is done with (``datafolder.keep_conversation``)."""
        return keep_conversation(self.settings.data_path, markdown)

    def probe_store(self, settings: Settings) -> ServerCheck:
        """The Qdrant server ``settings.qdrant_url`` names (maybe not yet saved), asked for
        its collections; never raises. The settings dialog's Test of the URL."""
        from docent.core.store_server import ServerOptions, probe

        return probe(ServerOptions.of(settings), CHUNKS)

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
        on_token: TokenCallback | None = None,
        cancel: threading.Event | None = None,
        on_stage: StageCallback | None = None,
        collection: str | None = None,
        attempt: int = 1,
        anyway: bool = False,
    ) -> Answer:
        """Answer from the library with checked citations (generated, extractive or
        abstained). ``files`` sets the conversation's scope (``[]`` clears it; None keeps
        it); ``collection`` (an id) the collection it asks (``""``: all of them; None keeps
        the conversation's). The question always becomes one turn of ``conversation``:
        answered, stopped (AnswerCancelled, raised when ``cancel`` is set) or failed (the
        error is raised). ``on_stage`` hears where it is (rewriting, searching, waiting
        for the model): core/asking.py. ``attempt``: which time the user asks it (a
        Retry: ``Turn.next_attempt``), so the model is sampled anew, not the same seed.
        ``anyway``: ask the model even when retrieval judges that the passages found do
        not answer the question (the person overrides an abstention:
        ``Answer.retrieval_abstained``); the answer is ``asked_anyway`` and says so."""
        from docent.core import asking

        return asking.ask(
            self,
            question,
            conversation=conversation,
            files=files,
            model=model,
            on_token=on_token,
            cancel=cancel,
            on_stage=on_stage,
            collection=collection,
            attempt=attempt,
            anyway=anyway,
        )


def _no_such_page(rec: DocumentRecord, pages: PageRequest) -> tuple[str, str]:
    """Why the document a page question names has no such page, and what to ask."""
    name = shown(rec.file_name)
    if rec.page_unit not in ("page", "slide"):
        has = unit_long(rec.page_unit, rec.pages)
        return (
            f"{name} has no pages",
            f"{name} has no pages to ask about (it is read as {has}): ask about what it "
            "says instead.",
        )
    has = unit_long(rec.page_unit, rec.pages)
    return f"{name} has {has}", f"{name} has {has}: ask about one of them."


def _unsearchable(rec: DocumentRecord) -> str:
    """Why ``rec`` cannot be searched, in a sentence ("" when it can). A search scoped to a
    document that failed said "nothing was found", as if it had been searched (review)."""
    if rec.state is DocState.READY:
        return ""
    name = shown(rec.file_name)
    if rec.state is DocState.FAILED:
        why = f"it could not be indexed ({rec.error or 'see its row in the library'})"
    elif rec.state is DocState.QUEUED and rec.reason == CANCELLED:
        why = "its indexing was cancelled; Resume it first"
    elif rec.state is DocState.QUEUED:
        why = "it waits its turn to be indexed; ask again once it is ready"
    elif rec.state is DocState.INDEXING:
        why = "it is being indexed; ask again once it is ready"
    else:
        why = "it is being removed"
    return f"{name} cannot be searched: {why}."
