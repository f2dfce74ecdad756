"""Copying a library's points from one store to another (embedded -> server, and back),
with no re-embedding: the chunk points go over whole, vectors and payloads.

The catalog says which documents are ready and what they hold; each is copied chunks
first, then its ``documents`` point, which marks it complete on the target. A copy that
stops (Ctrl-C, the server gone) resumes where it was: a document whose point on the target
has the catalog's sha256 and indexed_at, and all its chunks, is not copied again; one half
copied is copied whole again (its ids are deterministic, so writes overwrite).

The target must hold only this library: Docent keeps one library per store, and opening a
library reconciles the store with the catalog (a document it does not know is dropped or
taken in). A target holding others refuses, unless ``prune`` deletes them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from docent.core.catalog import Catalog
from docent.core.config import Settings, redact_url, validate_change
from docent.core.errors import StoreError, StoreUnavailable
from docent.core.models import DocState, DocumentRecord
from docent.core.store import Store, open_store
from docent.core.store_base import COLLECTIONS, is_version_of
from docent.core.store_server import ServerOptions


@dataclass(slots=True)
class CopyProgress:
    done: int  # documents handled so far (copied or already there)
    total: int
    file_name: str
    points: int  # chunk points written so far
    already: bool  # this document was on the target already


@dataclass(slots=True)
class CopyReport:
    documents: int = 0
    copied: list[str] = field(default_factory=list)  # paths
    already: list[str] = field(default_factory=list)
    points: int = 0
    pruned: int = 0
    seconds: float = 0.0


CopyCallback = Callable[[CopyProgress], None]


def _held(target: Store) -> tuple[dict[str, int], dict[str, dict[str, Any]]]:
    """What the target holds: chunks per document, and each document's point payload
    (two requests, whatever the library's size)."""
    return target.chunk_counts(), target.document_payloads()


def copy_library(
    catalog: Catalog,
    source: Store,
    target: Store,
    *,
    where: str,
    progress: CopyCallback | None = None,
    prune: bool = False,
) -> CopyReport:
    """Copy every ready document's points from ``source`` to ``target`` (``where`` names
    the target in messages)."""
    started = time.perf_counter()
    report = CopyReport()
    counts, points = _held(target)
    foreign = (set(counts) | set(points)) - {r.doc_id for r in catalog.all()}
    if foreign and not prune:
        raise StoreError(
            f"{where} already holds {len(foreign)} document(s) this library does not know "
            "(another library's, or ones removed from this one). Docent keeps one library "
            "per store: copy to an empty one, or add --prune to delete those from it."
        )
    for doc_id in foreign:
        target.delete_chunks(doc_id)
        target.delete_document(doc_id)
        report.pruned += 1
    ready = catalog.in_states(DocState.READY)
    report.documents = len(ready)
    try:
        for n, rec in enumerate(ready, 1):
            already = _complete(rec, counts.get(rec.doc_id, 0), points.get(rec.doc_id))
            if already:
                report.already.append(rec.path)
            else:
                report.points += _copy_one(rec, source, target)
                report.copied.append(rec.path)
            if progress is not None:
                progress(CopyProgress(n, len(ready), rec.file_name, report.points, already))
        target.flush()
    except StoreUnavailable as exc:
        done = len(report.copied) + len(report.already)
        raise StoreUnavailable(
            f"{exc.what_happened} Copying stopped with {done} of {len(ready)} documents "
            "on the target; the same command goes on where it stopped.",
            exc.what_happened,
        ) from exc
    report.seconds = time.perf_counter() - started
    return report


def _complete(rec: DocumentRecord, chunks: int, point: dict[str, Any] | None) -> bool:
    """The target has this version of the document, all of it, under its path and in its
    collections (a rename or a move between collections changes neither the content nor
    ``indexed_at``: the target kept the old ones, review)."""
    if point is None or chunks != rec.chunks:
        return False
    return (
        is_version_of(point, rec)
        and point.get("path") == rec.path
        and sorted(point.get(COLLECTIONS) or []) == sorted(rec.collections)
    )


def _copy_one(rec: DocumentRecord, source: Store, target: Store) -> int:
    points = source.export_chunks(rec.doc_id)
    document = source.export_document(rec.doc_id)
    if len(points) != rec.chunks or document is None:
        raise StoreError(
            f"The store in use holds {len(points)} of the {rec.chunks} passages of "
            f"{rec.file_name}{'' if document else ' and no document point'}: nothing was "
            "copied for it. Open the library once (`docent status`) so it repairs itself, "
            "then copy again."
        )
    target.delete_document(rec.doc_id)  # an older version's mark goes first
    target.delete_chunks(rec.doc_id)
    target.upsert_chunks(points)
    dense, payload = document
    # The catalog's version, so the next copy recognises it (see _complete_on).
    payload = {**payload, "sha256": rec.sha256, "indexed_at": rec.indexed_at}
    target.upsert_document(rec.doc_id, dense, payload)  # last: the document is complete
    return len(points)


#: The ``target`` that names the embedded store under the data folder.
EMBEDDED = "embedded"


def open_target(settings: Settings, target: str, dim: int) -> tuple[Store, str]:
    """The store ``target`` names: a Qdrant server URL (its other qdrant_* settings as in
    ``settings``) or EMBEDDED; with a phrase naming it for messages."""
    if target == EMBEDDED:
        if not settings.qdrant_url:
            raise StoreError("This library is in the embedded store already.")
        path = settings.store_path
        return open_store(path=path, dim=dim), f"The embedded store in {path}"
    wanted = validate_change(settings, qdrant_url=target)  # SettingsError names the key
    if wanted.qdrant_url == settings.qdrant_url:
        raise StoreError(f"This library is on {redact_url(target)} already.")
    opts = ServerOptions.of(wanted)
    return open_store(server=opts, dim=dim), f"The Qdrant server at {opts.shown}"


def copy_to(
    settings: Settings,
    catalog: Catalog,
    source: Store,
    target: str,
    progress: CopyCallback | None = None,
    prune: bool = False,
) -> CopyReport:
    """``copy_library`` into the store ``target`` names (see ``open_target``)."""
    store, where = open_target(settings, target, source.dim)
    try:
        return copy_library(catalog, source, store, where=where, progress=progress, prune=prune)
    finally:
        store.close()
