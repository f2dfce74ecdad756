"""The engine's watched folders: start watching, add and remove a folder, their states
(mixed into ``Engine``, which owns the watcher, the queue and the settings; the folders'
events and sweeps themselves are core/watching.py's)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from docent.core import files as filemod
from docent.core.engine_collections import EngineCollections
from docent.core.index_events import Job, JobKind
from docent.core.live_settings import LiveSettings
from docent.core.models import DEFAULT_COLLECTION

if TYPE_CHECKING:
    from docent.core.indexer import IndexReport, ProgressCallback
    from docent.core.watching import FolderStatus, Watcher


class EngineWatching(EngineCollections):
    """Watched-folder methods of ``Engine``; it sets ``watcher`` and ``_live``."""

    #: Only after start_watching() (the GUI and `docent watch`).
    watcher: Watcher | None
    _live: LiveSettings

    def start_watching(self, collection: str | None = None) -> list[FolderStatus]:
        """Watch the saved folders (each swept first), or only those of ``collection``
        (an id). Only the GUI and `docent watch`."""
        from docent.core.watching import Watcher

        if self.watcher is None:
            self.watcher = Watcher(
                self.queue, sweep_interval=self.settings.sweep_interval_minutes * 60
            )
            self.watcher.start()
            for folder in self.watched_folders(collection):
                self.watcher.add(folder)
        return self._named(self.watcher.statuses())

    def watch(self, path: str | Path, collection: str | None = None) -> FolderStatus | None:
        """Add a watched folder (saved in settings); live at once if watching started.
        Its files join ``collection`` (an id; None: the default collection, or the one it
        already had)."""
        from docent.core.watching import plan_watch

        folder = str(filemod.normalise(path))
        target = self._watch_target(folder, collection)  # before anything is saved
        before = self._cat.folder_bindings().get(folder)
        replaced: list[str] = []

        def add(watched: list[str]) -> list[str]:
            _, inside = plan_watch(watched, folder, self.settings.data_path)
            replaced.extend(inside)
            kept = [w for w in watched if w not in inside]
            return kept if folder in kept else [*kept, folder]

        self._live.change_folders(add)
        self._bind_watched(folder, target, replaced)
        if before is not None and before != target and self._cat.has_collection(before):
            # watched into another collection: its documents move there (they stayed in
            # the old one, and each edit put a file in both; review). Joined first, then
            # left, so none is ever in no collection; as a sweep would (what the user
            # removed from the folder stays out).
            self.queue.index([folder], source="sweep", collection=target)
            self.queue.leave(folder, collection=before, source="sweep")
        if self.watcher is None:
            return None
        for old in replaced:
            self.watcher.remove(old)
        return self._named([self.watcher.add(folder)])[0]

    def unwatch(self, path: str | Path, drop_documents: bool = False) -> Job | None:
        """Stop watching a folder; with ``drop_documents``, queue removing its documents."""
        folder = str(filemod.normalise(path))
        self._stop_watching(folder)
        self._cat.unbind_folder(folder)
        return self.queue.drop(folder) if drop_documents else None

    def _stop_watching(self, folder: str) -> None:
        """Out of the settings and the watcher; its sweeps, queued or running, stop (what
        they indexed stays: "Stop watching" of a big folder watched by mistake indexed it
        all the same, review). WatchError when it is not watched."""
        from docent.core.watching import WatchError

        def remove(watched: list[str]) -> list[str]:
            if folder not in watched:
                raise WatchError(
                    f"{folder} is not a watched folder. See `docent status` for the watched "
                    "folders."
                )
            return [w for w in watched if w != folder]

        self._live.change_folders(remove)
        if self.watcher is not None:
            self.watcher.remove(folder)
        self.queue.stop_sweeps(folder)

    def watched_folders(self, collection: str | None = None) -> list[str]:
        """The watched folders, or those whose files join ``collection`` (an id)."""
        bindings = self._cat.folder_bindings()
        return [
            folder
            for folder in self.settings.watched_folders
            if collection is None or bindings.get(folder, DEFAULT_COLLECTION) == collection
        ]

    def sweep(
        self,
        folder: str,
        progress: ProgressCallback | None = None,
        cancel: threading.Event | None = None,
    ) -> IndexReport:
        """Sweep a watched folder once and wait: what changed in it while nothing watched
        it (a file added, edited, renamed, deleted) is taken in, its files joining the
        folder's collection, as the window's start does. `docent index` with no path does
        it for each (QA-77: after changes made with the window closed, `docent list` and a
        search still had the deleted files)."""
        return self._run(Job(JobKind.SWEEP, [folder], "sweep"), progress, cancel)

    def watched(self) -> list[FolderStatus]:
        from docent.core.watching import FolderState, FolderStatus

        if self.watcher is not None:
            return self._named(self.watcher.statuses())
        off = "Watched while the Docent window or `docent watch` runs."
        return self._named(
            [FolderStatus(p, FolderState.OFF, off) for p in self.settings.watched_folders]
        )

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until no event timer is armed and no job is queued or running."""
        if self.watcher is not None:
            return self.watcher.wait_settled(3600.0 if timeout is None else timeout)
        return self.queue.wait_idle(timeout)
