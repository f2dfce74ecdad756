"""The store and the catalog, checked against each other when a library opens.

A crash cannot make them disagree (the write order sees to that, and ``Indexer.recover``
finishes what a crash interrupted). A person can: deleting the store folder, deleting
the catalog, restoring either from an old copy. Then, on open:

- a ready document whose passages are missing from the store (or differ in number, or
  its ``documents`` point is of another version of the file, ``sha256``/``indexed_at``) is
  not ready: its leftovers are dropped and it is queued to be indexed again, from the
  text cache (nothing is parsed again; its passages are embedded again);
- passages whose document the catalog does not know are adopted back (the record comes
  from the store's ``documents`` point) when their file is still there and no other
  document holds its path; otherwise they are deleted. Adopted documents cost nothing;
- passages of a document the catalog lists as not ready (failed, queued) are deleted:
  not ready, it has none (restored from a copy taken while it was ready, they would be
  searched and cited);
- a ``documents`` point with no ready document behind it is deleted, and a ready
  document that lost only that point gets it back from its first passages.

The cheap check runs on every open (two counts against the catalog's sums, and each
``documents`` point's version against its record); the rest only when it fails. What was done is returned as sentences for the user.
"""

from __future__ import annotations

import logging
import os
import stat
import time
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from docent.core.catalog import Catalog
from docent.core.errors import (
    CatalogError,
    StoreDamaged,
    StoreError,
    StoreLocked,
    StoreOfAnotherModel,
)
from docent.core.indexer import mean_vector, record_payload
from docent.core.models import DEFAULT_COLLECTION, STAGED_SUFFIX, DocState, DocumentRecord
from docent.core.store import Store, open_store
from docent.core.store_base import VERSION_KEYS, is_version_of

log = logging.getLogger(__name__)

#: Why a requeued document is not ready (shown with it until it is indexed again).
MISSING_PASSAGES = (
    "Its passages were missing from the store, or of an older version of the file "
    "(deleted or restored from an old copy); it is queued to be indexed again."
)
#: Why a document is queued after the embedding model changed the vectors' size.
OTHER_MODEL = (
    "The embedding model changed: it is queued to be indexed again with the new model "
    "(from the text cache)."
)
_RECORD_FIELDS = {f.name for f in fields(DocumentRecord)}


@dataclass(slots=True)
class Reconciled:
    """What opening the library changed to make the store and the catalog agree."""

    #: ready in the catalog, passages missing or wrong in the store: queued again
    requeued: list[DocumentRecord] = field(default_factory=list)
    #: passages the catalog did not know, whose file is still there: back in the catalog
    adopted: list[DocumentRecord] = field(default_factory=list)
    #: passages of documents that no longer exist, deleted
    orphans_deleted: int = 0
    #: new versions of changed documents a crash cut short while staged, deleted (the
    #: version indexed before stays; resume indexes the change: ``UPDATING``)
    staged_deleted: int = 0
    #: passages of documents the catalog lists as not ready (failed, queued): an old
    #: copy's, deleted, never searched
    stale_deleted: int = 0
    #: ``documents`` points rewritten or deleted
    documents_fixed: int = 0

    @property
    def changed(self) -> bool:
        return bool(
            self.requeued
            or self.adopted
            or self.orphans_deleted
            or self.staged_deleted
            or self.stale_deleted
            or self.documents_fixed
        )

    def messages(self) -> list[str]:
        out: list[str] = []
        if self.requeued:
            n = len(self.requeued)
            out.append(
                f"The store was missing the passages of {n} ready document{_s(n)}, or held "
                f"an older version's (its folder deleted, or restored from an old copy?): "
                f"{'they are' if n > 1 else 'it is'} "
                "queued to be indexed again from the text cache (`docent index --rebuild`)."
            )
        if self.adopted:
            n = len(self.adopted)
            out.append(
                f"The catalog had lost {n} document{_s(n)} whose passages are in the store "
                "and whose files are still there: taken back, nothing re-embedded."
            )
        if self.orphans_deleted:
            n = self.orphans_deleted
            out.append(
                f"Deleted the passages of {n} document{_s(n)} the catalog does not know and "
                "whose files are gone (or held by another document)."
            )
        if self.staged_deleted:
            n = self.staged_deleted
            out.append(
                f"Docent stopped while indexing the changes of {n} document{_s(n)}: "
                f"{'their' if n > 1 else 'its'} unfinished new version was dropped, the "
                "version indexed before is kept, and the changes are indexed again."
            )
        if self.stale_deleted:
            n = self.stale_deleted
            out.append(
                f"Deleted old passages of {n} document{_s(n)} that {'are' if n > 1 else 'is'} "
                "not indexed now (failed or waiting): the store was restored from an old copy?"
            )
        return out


def _s(n: int) -> str:
    return "s" if n != 1 else ""


def reconcile(catalog: Catalog, store: Store) -> Reconciled:
    """Make ``store`` and ``catalog`` agree (see the module docstring)."""
    done = Reconciled()
    ready = catalog.in_states(DocState.READY)
    versions = store.document_payloads(keys=VERSION_KEYS)
    older = [r for r in ready if _older(r, versions.get(r.doc_id))]
    counted = store.count_chunks() == sum(r.chunks for r in ready)
    if counted and store.count_documents() == len(ready) and not older:
        return done
    older_ids = {r.doc_id for r in older}
    counts = store.chunk_counts()
    points = store.document_payloads()
    known = {r.doc_id: r for r in catalog.all()}
    for doc_id in counts.keys() - known.keys():
        if doc_id.endswith(STAGED_SUFFIX):  # a new version staged when Docent stopped
            store.delete_chunks(doc_id)
            done.staged_deleted += 1
            continue
        rec = _adoptable(points.get(doc_id), counts[doc_id], catalog)
        if rec is not None:
            catalog.put(rec)
            # Its collections, those the catalog still has (a new catalog has the default).
            kept = [c for c in rec.collections if catalog.has_collection(c)]
            catalog.set_collections(doc_id, kept or [DEFAULT_COLLECTION])
            known[doc_id] = rec
            done.adopted.append(rec)
        else:
            store.delete_chunks(doc_id)
            done.orphans_deleted += 1
    for doc_id in counts.keys() & known.keys():
        # A document not ready has no passages (failing, queueing or cancelling drops
        # them): these are an old copy's, and would be searched and cited.
        if counts[doc_id] and known[doc_id].state is not DocState.READY:
            store.delete_chunks(doc_id)
            done.stale_deleted += 1
    for rec in ready:
        # passages of another version of the file are as good as missing
        if rec.doc_id in older_ids or counts.get(rec.doc_id, 0) != rec.chunks:
            store.delete_chunks(rec.doc_id)
            store.delete_document(rec.doc_id)
            points.pop(rec.doc_id, None)
            rec.state, rec.chunks, rec.error = DocState.QUEUED, 0, MISSING_PASSAGES
            catalog.put(rec)
            done.requeued.append(rec)
        elif rec.doc_id not in points:
            _restore_document_point(store, rec)
            done.documents_fixed += 1
    for doc_id in points:
        owner = known.get(doc_id)
        if owner is None or owner.state is not DocState.READY:
            store.delete_document(doc_id)
            done.documents_fixed += 1
    if done.changed:
        store.flush()
        for line in done.messages():
            log.info("%s", line)  # the user is told through Engine.notes
    return done


def _older(rec: DocumentRecord, point: dict[str, Any] | None) -> bool:
    """The store's point is of another version of ``rec``'s file than the catalog's (the
    store restored from an old copy with as many passages: review)."""
    return point is not None and not is_version_of(point, rec)  # none: restored below


def _adoptable(
    payload: dict[str, Any] | None, chunks: int, catalog: Catalog
) -> DocumentRecord | None:
    """The catalog record that the store's ``documents`` point describes, if it can be
    taken back: a ready document with all its passages, its file still there, its path
    held by no other document."""
    if not payload or payload.get("state") != DocState.READY.value:
        return None
    values = {k: v for k, v in payload.items() if k in _RECORD_FIELDS}
    try:
        rec = DocumentRecord(**values)
        rec.state = DocState(rec.state)
    except (TypeError, ValueError):
        return None
    if rec.chunks != chunks or catalog.by_path(rec.path) is not None:
        return None
    try:
        if not stat.S_ISREG(os.stat(rec.path).st_mode):
            return None
    except OSError:
        return None
    return rec


def _restore_document_point(store: Store, rec: DocumentRecord) -> None:
    firsts = [v for _, v in store.iter_chunks(rec.doc_id, with_vectors=True)[:3] if v]
    if firsts:
        store.upsert_document(rec.doc_id, mean_vector(firsts), record_payload(rec))


# Opening, and setting a damaged part aside ---------------------------------------------


def set_aside(path: Path, *siblings: str, why: str = "damaged") -> Path:
    """Rename ``path`` (and ``path`` + each suffix in ``siblings``) to ``*.<why>-<time>``:
    kept for a post-mortem (or to go back to), out of the way of a fresh one."""
    target = path.with_name(f"{path.name}.{why}-{time.strftime('%Y%m%d-%H%M%S')}")
    os.replace(path, target)
    for suffix in siblings:
        extra = path.with_name(path.name + suffix)
        if extra.exists():
            os.replace(extra, target.with_name(target.name + suffix))
    return target


def open_catalog(path: Path, rebuild: bool) -> tuple[Catalog, list[str]]:
    """The catalog; with ``rebuild``, a damaged one is set aside and a fresh one made
    (``reconcile`` then takes the documents back from the store)."""
    try:
        return Catalog(path), []
    except CatalogError:
        if not rebuild or not path.exists():
            raise
    moved = set_aside(path, "-wal", "-shm")
    note = f"The damaged catalog was moved to {moved}; a new one is rebuilt from the store."
    log.info("%s", note)
    return Catalog(path), [note]


def open_embedded_store(
    path: Path, dim: int, rebuild: bool, catalog: Catalog
) -> tuple[Store, list[str]]:
    """The Qdrant Edge store; a damaged one is StoreDamaged, or with ``rebuild`` set aside
    for a fresh one (its documents are then queued again by ``reconcile``). One made for
    another embedding model's vectors is set aside as ``--rebuild`` would, and its ready
    documents are queued (``OTHER_MODEL``) for the resume to index again one by one."""
    try:
        return open_store(path=path, dim=dim), []
    except StoreLocked:
        raise
    except StoreOfAnotherModel as exc:
        moved = set_aside(path, why="other-model")
        store = open_store(path=path, dim=dim)
        n = len(_queue_ready(catalog, OTHER_MODEL))
        note = (
            f"The embedding model changed (it makes vectors of size {exc.wanted}, the "
            f"store held size {exc.stored}): the old store was moved to {moved}, and {n} "
            f"document{_s(n)} {'are' if n != 1 else 'is'} queued to be indexed again with "
            "the new model, from the text cache, by the next `docent index` or the window "
            "(each is searchable again once done)."
        )
        log.info("%s", note)
        return store, [note]
    except StoreError as exc:
        if not rebuild:
            raise StoreDamaged(
                f"The store in {path} cannot be opened ({exc}). Nothing was changed. "
                "`docent index --rebuild` moves it aside and rebuilds it from your files and "
                "the text cache (their passages are embedded again)."
            ) from exc
    moved = set_aside(path)
    note = f"The damaged store was moved to {moved}; a new one is being built."
    log.info("%s", note)
    return open_store(path=path, dim=dim), [note]


def _queue_ready(catalog: Catalog, why: str) -> list[DocumentRecord]:
    """Every ready document, queued with ``why``: its passages are gone (the store set
    aside); ``Indexer.recover`` hands them to the resume."""
    ready = catalog.in_states(DocState.READY)
    for rec in ready:
        rec.state, rec.chunks, rec.reason, rec.error = DocState.QUEUED, 0, "", why
        catalog.put(rec)
    return ready
