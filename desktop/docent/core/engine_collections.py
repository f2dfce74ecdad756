"""The engine's collections: what ``Engine`` does with names, memberships and the
collections of watched folders (mixed into ``Engine``, which owns the catalog and the
queue; memberships themselves change only on the queue's thread, see membership.py)."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from docent.core import files as filemod
from docent.core import lookup
from docent.core.catalog import Catalog
from docent.core.config import Settings
from docent.core.errors import UnknownCollection
from docent.core.index_events import Job, JobKind
from docent.core.indexer import IndexReport, ProgressCallback
from docent.core.jobs import IndexQueue
from docent.core.models import DEFAULT_COLLECTION, Collection

if TYPE_CHECKING:
    from docent.core.watching import FolderStatus


class EngineCollections:
    """Collection methods of ``Engine``; it provides what is declared here."""

    @property
    def settings(self) -> Settings:
        raise NotImplementedError

    @property
    def queue(self) -> IndexQueue:
        raise NotImplementedError

    @property
    def _cat(self) -> Catalog:
        raise NotImplementedError

    def _stop_watching(self, folder: str) -> None:
        raise NotImplementedError

    def _run(
        self, job: Job, progress: ProgressCallback | None, cancel: threading.Event | None
    ) -> IndexReport:
        raise NotImplementedError

    def collections(self) -> list[Collection]:
        """Every collection with its counts, the default one first."""
        return self._cat.collections()

    def collection(self, name: str) -> Collection:
        """A collection by name (any case); UnknownCollection lists those there are."""
        return lookup.find_collection(self._cat, name)

    def create_collection(self, name: str) -> Collection:
        """A new, empty collection; CollectionError when the name is taken or unusable."""
        return self._cat.create_collection(name, time.time())

    def ensure_collection(self, name: str) -> Collection:
        """The collection of that name, made if there is none yet."""
        return self._cat.find_collection(name) or self.create_collection(name)

    def rename_collection(self, collection_id: str, name: str) -> Collection:
        """Only the catalog changes: the store's payloads hold ids."""
        self._cat.rename_collection(collection_id, name)
        return self._known(collection_id)

    def submit_leave(self, paths: Sequence[str], collection_id: str) -> list[Job]:
        """Quick: queue taking these documents (files or folders) out of a collection;
        one in no other collection then is removed from the index (files untouched)."""
        job = self.queue.leave(
            *(str(filemod.normalise(p)) for p in paths), collection=collection_id
        )
        return [job] if job is not None else []

    def submit_collection_removal(self, collection_id: str) -> Job | None:
        """Stop watching the collection's folders, then queue removing it: its documents
        in no other collection leave the index (files untouched); the default collection
        is emptied but stays."""
        self._release_folders(collection_id)
        return self.queue.remove_collection(collection_id)

    def remove_collection(
        self, collection_id: str, progress: ProgressCallback | None = None
    ) -> IndexReport:
        """``submit_collection_removal`` and wait; ``report.removed``: the documents that
        left the index."""
        self._release_folders(collection_id)
        job = Job(JobKind.REMOVE_COLLECTION, [], "command", collection=collection_id)
        return self._run(job, progress, None)

    def _release_folders(self, collection_id: str) -> None:
        """Its watched folders are no longer watched: they would bring its files back.

        Their binding stays until the removal job has run (``delete_collection`` drops
        it): a sweep of one already running puts its files in this collection, which the
        job then empties, not in the default one (review)."""
        folders = list(self._known(collection_id).folders)
        if collection_id == DEFAULT_COLLECTION:  # and the folders bound to none, its too
            bound = self._cat.folder_bindings()
            folders = [*folders, *(f for f in self.settings.watched_folders if f not in bound)]
        for folder in folders:
            if folder in self.settings.watched_folders:
                self._stop_watching(folder)
            if collection_id == DEFAULT_COLLECTION:  # it stays: its folders go now (a
                self._cat.unbind_folder(folder)  # sweep's files join it unbound anyway)

    def _known(self, collection_id: str) -> Collection:
        found = self._cat.collection(collection_id)
        if found is None:
            raise UnknownCollection(collection_id, [c.name for c in self._cat.collections()])
        return found

    # Watched folders' collections ------------------------------------------------

    def _watch_target(self, folder: str, collection: str | None) -> str:
        """The collection a watched folder's files join: ``collection`` (an id), else the
        one it had, else the default; UnknownCollection before anything is saved."""
        target = collection or self._cat.folder_bindings().get(folder) or DEFAULT_COLLECTION
        if not self._cat.has_collection(target):
            raise UnknownCollection(target, [c.name for c in self._cat.collections()])
        return target

    def _bind_watched(self, folder: str, target: str, replaced: list[str]) -> None:
        for old in replaced:
            self._cat.unbind_folder(old)
        self._cat.bind_folder(folder, target)

    def _bind_folders(self, before: list[str], after: list[str]) -> None:
        """A folder added in the settings joins the default collection; one removed
        forgets its collection."""
        bound = self._cat.folder_bindings()
        for folder in before:
            if folder not in after:
                self._cat.unbind_folder(folder)
        for folder in after:
            if folder not in bound:
                self._cat.bind_folder(folder, DEFAULT_COLLECTION)

    def _named(self, statuses: list[FolderStatus]) -> list[FolderStatus]:
        """Each folder with the name of the collection its files join."""
        names = {c.id: c.name for c in self._cat.collections()}
        bindings = self._cat.folder_bindings()
        for st in statuses:
            st.collection = names.get(bindings.get(st.path, DEFAULT_COLLECTION), "")
        return statuses
