"""The catalog's side of collections: names, memberships, watched folders' collections.

Tables (added to any catalog on open, so an older library opens as it was):

- ``collections(id, name)``: ``name`` unique whatever its case; the default collection
  (id ``default``) always exists and takes documents added with no collection;
- ``memberships(doc_id, collection_id)``: a document is in one or more collections;
- ``folder_collections(folder, collection_id)``: the collection a watched folder's files join;
- ``left_collections(doc_id, collection_id)``: a document the user took out of its watched
  folder's collection while another collection kept it: the folder's events and sweeps
  leave it out of that one until the user adds it there again;
- ``payload_stale(doc_id)``: documents whose memberships changed in the catalog but maybe
  not yet in the store's payloads (set in the same transaction as the change, cleared once
  the store has it; ``collections.sync_payloads`` finishes what a crash left).

The store's payloads hold collection *ids*, so a rename is one catalog row.
"""

from __future__ import annotations

import sqlite3
import threading
import uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager

from docent.core.errors import CollectionError
from docent.core.models import DEFAULT_COLLECTION, Collection, DocState
from docent.core.normal_form import nfc
from docent.core.userfiles import shown

DEFAULT_NAME = "default"
MAX_NAME = 64
#: What the window's selector calls the whole library: no collection may take it (QA-77:
#: a collection named so was listed as a second "All collections", and chosen).
ALL_COLLECTIONS = "All collections"

SCHEMA = """
CREATE TABLE IF NOT EXISTS collections (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE,
    created_at REAL NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS memberships (
    doc_id TEXT NOT NULL,
    collection_id TEXT NOT NULL,
    PRIMARY KEY (doc_id, collection_id)
);
CREATE INDEX IF NOT EXISTS memberships_collection ON memberships(collection_id);
CREATE TABLE IF NOT EXISTS folder_collections (
    folder TEXT PRIMARY KEY,
    collection_id TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS left_collections (
    doc_id TEXT NOT NULL,
    collection_id TEXT NOT NULL,
    PRIMARY KEY (doc_id, collection_id)
);
CREATE TABLE IF NOT EXISTS payload_stale (doc_id TEXT PRIMARY KEY);
"""

#: The ids of a document's collections, as one column of a documents query.
MEMBERSHIP_COLUMN = (
    "(SELECT group_concat(m.collection_id, ',') FROM memberships m "
    "WHERE m.doc_id = documents.doc_id)"
)


def clean_name(name: str) -> str:
    """A collection name as stored: trimmed; CollectionError when unusable."""
    text = " ".join(name.split())
    if not text:
        raise CollectionError("A collection needs a name.")
    if len(text) > MAX_NAME:
        raise CollectionError(f"A collection name has at most {MAX_NAME} characters.")
    if text.casefold() == ALL_COLLECTIONS.casefold():
        raise CollectionError(
            f"'{ALL_COLLECTIONS}' names the whole library in the window; choose another name."
        )
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # bytes of a command line that are not UTF-8 (review)
        raise CollectionError(
            f"The collection name {shown(text)} is not valid UTF-8; type it again."
        ) from None
    return nfc(text)  # "Café" typed with a combining accent is the same name (review)


def split_ids(column: str | None) -> list[str]:
    return sorted(column.split(",")) if column else []


class CollectionCatalog:
    """Mixed into ``Catalog``: it owns the connection and the lock."""

    _db: sqlite3.Connection
    _lock: threading.RLock
    #: folder_bindings() as last read; None after a change (a sweep asks once per file).
    _bindings: dict[str, str] | None = None

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _init_collections(self) -> None:
        with self._lock:
            self._db.executescript(SCHEMA)
            self._db.execute(
                "INSERT OR IGNORE INTO collections (id, name) VALUES (?, ?)",
                (DEFAULT_COLLECTION, DEFAULT_NAME),
            )
            self.adopt_orphans()

    def adopt_orphans(self) -> int:
        """Documents in no collection (a catalog from before collections, or a crash
        between a document's row and its membership) join the default collection; their
        store payloads are marked for the next ``sync_payloads``."""
        orphans = (
            "SELECT doc_id FROM documents WHERE doc_id NOT IN (SELECT doc_id FROM memberships)"
        )
        with self._transaction() as db:
            db.execute(f"INSERT OR IGNORE INTO payload_stale (doc_id) {orphans}")
            cur = db.execute(
                f"INSERT INTO memberships (doc_id, collection_id) SELECT doc_id, ? FROM ({orphans})",
                (DEFAULT_COLLECTION,),
            )
            return cur.rowcount

    # Collections -----------------------------------------------------------------

    def collections(self) -> list[Collection]:
        """Every collection with its counts, the default first, then by name."""
        with self._lock:
            rows = self._db.execute(
                """
                SELECT c.id, c.name,
                       COUNT(d.doc_id),
                       COALESCE(SUM(d.state = ?), 0),
                       COALESCE(SUM(CASE WHEN d.state = ? THEN d.chunks ELSE 0 END), 0),
                       COALESCE(SUM((SELECT COUNT(*) FROM memberships o
                                     WHERE o.doc_id = d.doc_id) = 1), 0)
                FROM collections c
                LEFT JOIN memberships m ON m.collection_id = c.id
                LEFT JOIN documents d ON d.doc_id = m.doc_id
                GROUP BY c.id
                ORDER BY c.id != ?, c.name COLLATE NOCASE
                """,
                (DocState.READY.value, DocState.READY.value, DEFAULT_COLLECTION),
            ).fetchall()
            folders: dict[str, list[str]] = {}
            for folder, cid in self._db.execute(
                "SELECT folder, collection_id FROM folder_collections ORDER BY folder"
            ):
                folders.setdefault(cid, []).append(folder)
        return [
            Collection(cid, name, n, ready, chunks, exclusive, tuple(folders.get(cid, ())))
            for cid, name, n, ready, chunks, exclusive in rows
        ]

    def collection(self, collection_id: str) -> Collection | None:
        return next((c for c in self.collections() if c.id == collection_id), None)

    def has_collection(self, collection_id: str) -> bool:
        with self._lock:
            row = self._db.execute("SELECT 1 FROM collections WHERE id = ?", (collection_id,))
            return row.fetchone() is not None

    def find_collection(self, name: str) -> Collection | None:
        """By name, whatever its case."""
        wanted = nfc(" ".join(name.split())).casefold()
        return next((c for c in self.collections() if nfc(c.name).casefold() == wanted), None)

    def _name_free(self, text: str, collection_id: str = "") -> None:
        """No other collection has ``text`` as its name, whatever its case: SQLite's NOCASE
        folds ASCII only, so "Über" and "über" were two collections, and a command naming
        one found the other, and removed it (review)."""
        other = self.find_collection(text)
        if other is not None and other.id != collection_id:
            raise CollectionError(f"A collection named '{other.name}' already exists.")

    def create_collection(self, name: str, created_at: float = 0.0) -> Collection:
        text = clean_name(name)
        cid = uuid.uuid4().hex[:12]
        with self._lock:
            self._name_free(text)
            try:
                self._db.execute(
                    "INSERT INTO collections (id, name, created_at) VALUES (?, ?, ?)",
                    (cid, text, created_at),
                )
            except sqlite3.IntegrityError as exc:
                raise CollectionError(f"A collection named '{text}' already exists.") from exc
        return Collection(cid, text)

    def rename_collection(self, collection_id: str, name: str) -> None:
        text = clean_name(name)
        with self._lock:
            self._name_free(text, collection_id)
            try:
                self._db.execute(
                    "UPDATE collections SET name = ? WHERE id = ?", (text, collection_id)
                )
            except sqlite3.IntegrityError as exc:
                raise CollectionError(f"A collection named '{text}' already exists.") from exc

    def delete_collection(self, collection_id: str) -> None:
        """Forget an emptied collection and its folders' binding (never the default)."""
        if collection_id == DEFAULT_COLLECTION:
            return
        with self._transaction() as db:
            db.execute("DELETE FROM memberships WHERE collection_id = ?", (collection_id,))
            db.execute("DELETE FROM folder_collections WHERE collection_id = ?", (collection_id,))
            db.execute("DELETE FROM left_collections WHERE collection_id = ?", (collection_id,))
            self._bindings = None
            db.execute("DELETE FROM collections WHERE id = ?", (collection_id,))

    # Memberships -----------------------------------------------------------------

    def member_ids(self, collection_id: str) -> list[str]:
        with self._lock:
            rows = self._db.execute(
                "SELECT doc_id FROM memberships WHERE collection_id = ? ORDER BY doc_id",
                (collection_id,),
            )
            return [r[0] for r in rows]

    def set_collections(self, doc_id: str, collection_ids: Iterable[str]) -> None:
        """The document's collections become ``collection_ids``; its store payload is
        marked stale in the same transaction (cleared by ``payload_synced``)."""
        ids = sorted(set(collection_ids))
        with self._transaction() as db:
            db.execute("DELETE FROM memberships WHERE doc_id = ?", (doc_id,))
            db.executemany(
                "INSERT INTO memberships (doc_id, collection_id) VALUES (?, ?)",
                [(doc_id, cid) for cid in ids],
            )
            db.executemany(  # in it again: no longer left
                "DELETE FROM left_collections WHERE doc_id = ? AND collection_id = ?",
                [(doc_id, cid) for cid in ids],
            )
            db.execute("INSERT OR IGNORE INTO payload_stale (doc_id) VALUES (?)", (doc_id,))

    def leave_collection(self, doc_id: str, collection_id: str) -> None:
        """The user took the document out of ``collection_id``, its watched folder's: the
        folder does not put it back (``has_left``) until it joins that collection again
        (``set_collections``: the user added it there)."""
        with self._lock:
            self._db.execute(
                "INSERT OR IGNORE INTO left_collections (doc_id, collection_id) VALUES (?, ?)",
                (doc_id, collection_id),
            )

    def has_left(self, doc_id: str, collection_id: str) -> bool:
        with self._lock:
            row = self._db.execute(
                "SELECT 1 FROM left_collections WHERE doc_id = ? AND collection_id = ?",
                (doc_id, collection_id),
            ).fetchone()
        return row is not None

    def stale_payloads(self) -> list[tuple[str, list[str]]]:
        """(doc_id, collection ids) of the documents whose store payload may lag."""
        with self._lock:
            rows = self._db.execute(
                "SELECT s.doc_id, (SELECT group_concat(m.collection_id, ',') FROM memberships m "
                "WHERE m.doc_id = s.doc_id) FROM payload_stale s ORDER BY s.doc_id"
            ).fetchall()
        return [(doc_id, split_ids(ids)) for doc_id, ids in rows]

    def payload_synced(self, doc_ids: Sequence[str]) -> None:
        with self._lock:
            self._db.executemany(
                "DELETE FROM payload_stale WHERE doc_id = ?", [(d,) for d in doc_ids]
            )

    # Watched folders ---------------------------------------------------------------

    def bind_folder(self, folder: str, collection_id: str) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO folder_collections (folder, collection_id) VALUES (?, ?)",
                (folder, collection_id),
            )
            self._bindings = None

    def unbind_folder(self, folder: str) -> None:
        with self._lock:
            self._db.execute("DELETE FROM folder_collections WHERE folder = ?", (folder,))
            self._bindings = None

    def folder_bindings(self) -> dict[str, str]:
        with self._lock:
            if self._bindings is None:
                rows = self._db.execute("SELECT folder, collection_id FROM folder_collections")
                self._bindings = dict(rows)
            return dict(self._bindings)

    def folder_collection(self, path: str) -> str | None:
        """The collection of the innermost bound folder holding ``path`` (None: no folder)."""
        best: tuple[int, str] | None = None
        for folder, cid in self.folder_bindings().items():
            prefix = folder.rstrip("/\\")
            inside = (
                path == prefix or path.startswith(prefix + "/") or path.startswith(prefix + "\\")
            )
            if inside and (best is None or len(prefix) > best[0]):
                best = (len(prefix), cid)
        return best[1] if best else None
