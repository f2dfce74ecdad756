"""Which collections a document is in, and keeping the store's payloads in step.

The catalog holds memberships (``catalog_collections``); every chunk and the document's
point in the store carry the same ids in their ``collections`` payload, which is what
searches filter on. A change is written to the catalog first (with a stale mark, in one
transaction), then to the store by ``set_payload`` (nothing is re-embedded), then the mark
is cleared; ``sync_payloads`` on open finishes any change a crash cut short, and gives
the payload to the points of a library indexed before collections existed.

The rules:

- a document indexed for a collection joins it; one indexed for none joins the collection
  of the watched folder it lies in (unless the user took it out of that one and another
  collection kept it: ``Catalog.leave_collection``), else, when it is in none yet, the
  default collection;
- a document that moves from a watched folder of one collection into a watched folder of
  another leaves the first and joins the second; other memberships stay;
- a document that leaves its last collection is removed from the index (its file stays).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from docent.core.catalog import Catalog
from docent.core.models import DEFAULT_COLLECTION, DocumentRecord
from docent.core.store import COLLECTIONS, Store

log = logging.getLogger(__name__)


def wanted(catalog: Catalog, rec: DocumentRecord, path: str, collection: str = "") -> list[str]:
    """The collections ``rec`` should be in once it is indexed at ``path`` for
    ``collection`` ("" for none: its folder's, else what it has, else the default)."""
    ids = set(rec.collections)
    target = collection if collection and catalog.has_collection(collection) else ""
    if not target and (folder := catalog.folder_collection(path)):
        # not one the user took this document out of (it stays in another); asked only
        # of a document not in it already (a sweep of unchanged files reads no more)
        target = "" if folder not in ids and catalog.has_left(rec.doc_id, folder) else folder
    if target:
        ids.add(target)
    if not ids:
        ids.add(DEFAULT_COLLECTION)
    return sorted(ids)


def after_move(
    catalog: Catalog, rec: DocumentRecord, old_path: str, new_path: str, collection: str = ""
) -> list[str]:
    """The collections of ``rec`` once its file moved from ``old_path`` to ``new_path``."""
    ids = set(rec.collections)
    before, after = catalog.folder_collection(old_path), catalog.folder_collection(new_path)
    if after and before and before != after:
        ids.discard(before)
    moved = DocumentRecord(rec.doc_id, new_path, rec.file_name, collections=sorted(ids))
    return wanted(catalog, moved, new_path, collection)


def payload(collection_ids: Sequence[str]) -> dict[str, object]:
    return {COLLECTIONS: sorted(collection_ids)}


def apply(catalog: Catalog, store: Store, rec: DocumentRecord, collection_ids: list[str]) -> bool:
    """Make ``rec``'s collections ``collection_ids`` in the catalog and the store; False
    when they already were."""
    ids = sorted(set(collection_ids))
    if ids == sorted(rec.collections):
        return False
    catalog.set_collections(rec.doc_id, ids)
    _write(store, rec.doc_id, ids)
    catalog.payload_synced([rec.doc_id])
    rec.collections = ids
    return True


def _write(store: Store, doc_id: str, ids: list[str]) -> None:
    store.set_chunks_payload(doc_id, payload(ids))
    store.set_document_payload(doc_id, payload(ids))


def sync_payloads(catalog: Catalog, store: Store) -> int:
    """Write the memberships the store may lack (a crash mid-change; an older library)."""
    stale = catalog.stale_payloads()
    for doc_id, ids in stale:
        _write(store, doc_id, ids)
    if stale:
        store.flush()
        catalog.payload_synced([doc_id for doc_id, _ in stale])
        log.info("collection memberships written to the store for %d documents", len(stale))
    return len(stale)
