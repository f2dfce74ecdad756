"""The catalog: what is indexed, one DocumentRecord per file, in SQLite.

SQLite (WAL, one connection, one lock) is the source of truth for document state; the
Qdrant ``documents`` collection mirrors ready documents for two-tier retrieval. The write
order (indexing -> chunks -> ready) means a crash leaves at most one document not
``ready``, which ``Engine.open`` cleans and re-queues; ``consistency.py`` settles what a
crash cannot explain (a store or catalog deleted or restored from an old copy).

A path or file name that is not valid UTF-8 (``bad\xff.txt`` on Linux) is kept as a BLOB
of its exact bytes: SQLite refuses the lone surrogates Python decodes it to, and a BLOB
never equals a TEXT, so lookups stay exact.

The locking mode is exclusive (the data folder's lock already allows one process): WAL
then keeps its index in memory instead of a memory-mapped ``-shm`` file, which a full
disk turns into a SIGBUS.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import fields
from pathlib import Path

from docent.core.catalog_collections import MEMBERSHIP_COLUMN, CollectionCatalog, split_ids
from docent.core.errors import CatalogError
from docent.core.models import CANCELLED, UPDATING, DocState, DocumentRecord
from docent.core.userfiles import inside, is_text_safe

#: The documents table's columns: every field but ``collections`` (the memberships table).
_COLUMNS = [f.name for f in fields(DocumentRecord) if f.name != "collections"]
_IN_COLLECTION = "doc_id IN (SELECT doc_id FROM memberships WHERE collection_id = ?)"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    doc_id TEXT PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    file_name TEXT NOT NULL,
    sha256 TEXT NOT NULL DEFAULT '',
    size INTEGER NOT NULL DEFAULT 0,
    mtime REAL NOT NULL DEFAULT 0,
    pages INTEGER NOT NULL DEFAULT 0,
    chunks INTEGER NOT NULL DEFAULT 0,
    state TEXT NOT NULL,
    reason TEXT NOT NULL DEFAULT '',
    error TEXT NOT NULL DEFAULT '',
    page_unit TEXT NOT NULL DEFAULT 'page',
    indexed_at REAL NOT NULL DEFAULT 0,
    summary TEXT NOT NULL DEFAULT '',
    index_format TEXT NOT NULL DEFAULT '',
    ocr_pages INTEGER NOT NULL DEFAULT 0,
    gaps TEXT NOT NULL DEFAULT '',
    scans_unread INTEGER NOT NULL DEFAULT 0,
    ctime REAL NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS documents_sha ON documents(sha256);
CREATE INDEX IF NOT EXISTS documents_name ON documents(file_name);
-- Paths the user removed from the library inside a watched folder: its sweeps and
-- events leave them out until the user adds them again (Catalog.leave_out).
CREATE TABLE IF NOT EXISTS left_out (path TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS summaries (
    sha256 TEXT NOT NULL,
    type TEXT NOT NULL,
    model TEXT NOT NULL,
    result TEXT NOT NULL,
    PRIMARY KEY (sha256, type, model)
);
"""


def new_doc_id() -> str:
    return uuid.uuid4().hex


_NAME_COLUMNS = ("path", "file_name")


def _to_db(text: str) -> str | bytes:
    """A name as SQLite keeps it: text, or its exact bytes when it is not UTF-8."""
    return text if is_text_safe(text) else os.fsencode(text)


def _from_db(value: str | bytes) -> str:
    return os.fsdecode(value) if isinstance(value, bytes) else value


def _under(folder: str) -> tuple[str, tuple[str], str]:
    """A WHERE clause for the paths inside ``folder``, its argument, and the prefix the
    caller must still check (paths kept as bytes, not UTF-8, are few: checked in Python)."""
    prefix = folder.rstrip("/\\") + "/"
    escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    where = "WHERE path LIKE ? ESCAPE '\\' OR typeof(path) = 'blob' ORDER BY path"
    return where, (escaped + "%" if is_text_safe(escaped) else "",), prefix


def _row_to_record(row: sqlite3.Row) -> DocumentRecord:
    values = dict(zip(_COLUMNS, row[:-1], strict=True))
    values["state"] = DocState(values["state"])
    for name in _NAME_COLUMNS:
        values[name] = _from_db(values[name])
    return DocumentRecord(**values, collections=split_ids(row[-1]))


#: Under SQLite's oldest limit on a statement's parameters (999).
_PATHS_PER_QUERY = 500

#: SQLite's words for a file that is not (or no longer) a sound database.
_DAMAGED = ("not a database", "malformed", "file is encrypted", "disk image")


class Catalog(CollectionCatalog):
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.RLock()
        try:
            self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        except sqlite3.Error as exc:
            raise _catalog_error(path, exc) from exc
        try:
            self._db.execute("PRAGMA locking_mode=EXCLUSIVE")
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
            self._add_missing_columns()
            self._init_collections()
            self._db.execute("SELECT COUNT(*) FROM documents").fetchone()
        except sqlite3.Error as exc:
            self._db.close()
            raise _catalog_error(path, exc) from exc

    def _add_missing_columns(self) -> None:
        """Catalogs written by an older Docent lack later columns: add them (defaults)."""
        have = {row[1] for row in self._db.execute("PRAGMA table_info(documents)")}
        for name, decl in (
            ("index_format", "TEXT NOT NULL DEFAULT ''"),
            ("ocr_pages", "INTEGER NOT NULL DEFAULT 0"),
            ("ctime", "REAL NOT NULL DEFAULT 0"),
            ("gaps", "TEXT NOT NULL DEFAULT ''"),
            ("scans_unread", "INTEGER NOT NULL DEFAULT 0"),
        ):
            if name not in have:
                self._db.execute(f"ALTER TABLE documents ADD COLUMN {name} {decl}")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _select(self, where: str = "", args: Iterable[object] = ()) -> list[DocumentRecord]:
        sql = f"SELECT {', '.join(_COLUMNS)}, {MEMBERSHIP_COLUMN} FROM documents {where}"
        with self._lock:
            rows = self._db.execute(sql, tuple(args)).fetchall()
        # made records outside the lock: at 10,000 documents the window's refresh held it
        # 142 ms, not 47, and a quick call from the window waited for it (review 82)
        return [_row_to_record(r) for r in rows]

    def get(self, doc_id: str) -> DocumentRecord | None:
        rows = self._select("WHERE doc_id = ?", (doc_id,))
        return rows[0] if rows else None

    def by_path(self, path: str) -> DocumentRecord | None:
        rows = self._select("WHERE path = ?", (_to_db(path),))
        return rows[0] if rows else None

    def by_paths(self, paths: Sequence[str]) -> dict[str, DocumentRecord]:
        """The records of those of ``paths`` that have one, by path: one query per 500
        paths (a sweep of 10,000 unchanged files asked 10,000 times)."""
        found: dict[str, DocumentRecord] = {}
        for start in range(0, len(paths), _PATHS_PER_QUERY):
            group = [_to_db(p) for p in paths[start : start + _PATHS_PER_QUERY]]
            marks = ", ".join("?" for _ in group)
            for rec in self._select(f"WHERE path IN ({marks})", group):
                found[rec.path] = rec
        return found

    def by_sha(self, sha256: str, state: DocState | None = None) -> list[DocumentRecord]:
        if state is None:
            return self._select("WHERE sha256 = ?", (sha256,))
        return self._select("WHERE sha256 = ? AND state = ?", (sha256, state.value))

    def by_name(self, file_name: str) -> list[DocumentRecord]:
        return self._select(
            "WHERE file_name = ? COLLATE NOCASE ORDER BY path", (_to_db(file_name),)
        )

    def named_alike(self, name: str, tail: str) -> int:
        """How many documents are named ``name`` and have a path ending in ``tail``
        ("notes/meeting.md": the name's index, then their paths; a library may hold
        thousands of "index.md")."""
        if not is_text_safe(tail):  # a name that is not UTF-8 (kept as bytes): in Python
            with self._lock:
                rows = self._db.execute(
                    "SELECT path FROM documents WHERE file_name = ?", (_to_db(name),)
                ).fetchall()
            paths = [_from_db(r[0]) for r in rows]
            return sum(p == tail or p.endswith(os.sep + tail) for p in paths)
        escaped = tail.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        with self._lock:
            row = self._db.execute(
                "SELECT COUNT(*) FROM documents WHERE file_name = ? "
                "AND (path = ? OR path LIKE ? ESCAPE '\\')",
                (_to_db(name), _to_db(tail), "%" + os.sep + escaped),
            ).fetchone()
        return int(row[0])

    def under(self, folder: str) -> list[DocumentRecord]:
        """Records whose path lies inside ``folder``."""
        where, args, prefix = _under(folder)
        return [r for r in self._select(where, args) if r.path.startswith(prefix)]

    def paths_under(self, folder: str) -> list[str]:
        """The paths of ``under(folder)``, without making their records (a sweep of
        10,000 files only needs to know which are gone)."""
        where, args, prefix = _under(folder)
        with self._lock:
            rows = self._db.execute(f"SELECT path FROM documents {where}", args).fetchall()
        paths = (_from_db(r[0]) for r in rows)
        return [p for p in paths if p.startswith(prefix)]

    def all(self, collection: str | None = None) -> list[DocumentRecord]:
        """Every document, or those of one collection (by id)."""
        order = "ORDER BY file_name COLLATE NOCASE, path"
        if collection is None:
            return self._select(order)
        return self._select(f"WHERE {_IN_COLLECTION} {order}", (collection,))

    def outdated(self, index_format: str) -> list[DocumentRecord]:
        """Ready documents indexed in another format than ``index_format``, and those
        whose update a crash cut short (``UPDATING``): indexed again, searchable
        meanwhile."""
        return self._select(
            "WHERE state = ? AND (index_format != ? OR reason = ?) ORDER BY path",
            (DocState.READY.value, index_format, UPDATING),
        )

    def unread_scans(self, reason: str) -> list[DocumentRecord]:
        """Ready documents with scanned pages left unread (``scans_unread``), and failed
        ones of ``reason``: what turning OCR on reads (``Indexer.awaiting_ocr``)."""
        return self._select(
            "WHERE (state = ? AND scans_unread > 0) OR (state = ? AND reason = ?) ORDER BY path",
            (DocState.READY.value, DocState.FAILED.value, reason),
        )

    def updating(self) -> list[DocumentRecord]:
        """Ready documents whose update a crash cut short while staged (``UPDATING``)."""
        return self._select(
            "WHERE state = ? AND reason = ? ORDER BY path", (DocState.READY.value, UPDATING)
        )

    def in_states(self, *states: DocState) -> list[DocumentRecord]:
        marks = ", ".join("?" for _ in states)
        return self._select(f"WHERE state IN ({marks}) ORDER BY path", [s.value for s in states])

    def put(self, record: DocumentRecord) -> None:
        with self._lock:
            self._db.execute(_PUT, _row(record))

    def restamp(self, record: DocumentRecord) -> None:
        """The version of its file ``record`` was made from (``DocumentRecord.stamp``),
        and its reason, written alone: a run that found the file unchanged puts back
        nothing else of the record it read when it started."""
        with self._lock:
            self._db.execute(
                "UPDATE documents SET size = ?, mtime = ?, ctime = ?, reason = ? WHERE doc_id = ?",
                (record.size, record.mtime, record.ctime, record.reason, record.doc_id),
            )

    def resumed(self, records: Sequence[DocumentRecord]) -> None:
        """Queued documents a run now takes up: no longer waiting for the user (their
        reason and note cleared), in one transaction."""
        with self._transaction() as db:
            db.executemany(
                "UPDATE documents SET reason = '', error = '' WHERE doc_id = ? AND state = ?",
                [(r.doc_id, DocState.QUEUED.value) for r in records],
            )
        for r in records:
            r.reason = r.error = ""

    def learn_ctimes(self, records: Sequence[DocumentRecord]) -> None:
        """The status-change times of records that had none (an older Docent's), in one
        transaction: a sweep of a big library found them all unchanged at once."""
        with self._transaction() as db:
            db.executemany(
                "UPDATE documents SET ctime = ? WHERE doc_id = ? AND ctime = 0",
                [(r.ctime, r.doc_id) for r in records],
            )

    def put_queued(self, records: Sequence[DocumentRecord]) -> None:
        """New documents a run is about to index, listed "queued" in their collections
        (``record.collections``), in one transaction: a crash before the run reaches them
        leaves them listed and resumed, not forgotten (review). They have no points, so
        their store payload needs no writing."""
        with self._transaction() as db:
            db.executemany(_PUT, [_row(r) for r in records])
            db.executemany(
                "INSERT OR IGNORE INTO memberships (doc_id, collection_id) VALUES (?, ?)",
                [(r.doc_id, c) for r in records for c in r.collections],
            )

    def set_summary(self, doc_id: str, sha256: str, summary: str) -> DocumentRecord | None:
        """The document's brief summary, if it is still ready with this content: the record
        as it is then, else None (removed or re-indexed meanwhile: a summary's slow embedding
        put the record it had read back, and brought a removed document back: review)."""
        with self._lock:
            done = self._db.execute(
                "UPDATE documents SET summary = ? WHERE doc_id = ? AND sha256 = ? AND state = ?",
                (summary, doc_id, sha256, DocState.READY.value),
            )
            return self.get(doc_id) if done.rowcount == 1 else None

    def delete(self, doc_id: str) -> None:
        with self._transaction() as db:
            db.execute("DELETE FROM documents WHERE doc_id = ?", (doc_id,))
            db.execute("DELETE FROM memberships WHERE doc_id = ?", (doc_id,))
            db.execute("DELETE FROM left_collections WHERE doc_id = ?", (doc_id,))
            db.execute("DELETE FROM payload_stale WHERE doc_id = ?", (doc_id,))

    # Left out ----------------------------------------------------------------

    def leave_out(self, path: str) -> None:
        """``path`` (a file or a folder) stays out of the library though a watched folder
        holds it: the user removed it."""
        with self._transaction() as db:
            db.execute("INSERT OR IGNORE INTO left_out (path) VALUES (?)", (_to_db(path),))

    def take_back(self, paths: Sequence[str]) -> None:
        """The user adds ``paths``: what was left out at or under them is not any more."""
        gone = [p for p in self.left_out() if any(inside(p, added) for added in paths)]
        if gone:
            with self._transaction() as db:
                db.executemany("DELETE FROM left_out WHERE path = ?", [(_to_db(p),) for p in gone])

    def left_out(self) -> list[str]:
        with self._lock:
            rows = self._db.execute("SELECT path FROM left_out ORDER BY path").fetchall()
        return [_from_db(r[0]) for r in rows]

    def counts(self, collection: str | None = None) -> dict[str, int]:
        """Documents per state, "documents" in all and the "chunks" of the ready ones;
        of one collection (by id) or of the whole library."""
        where, args = (f"WHERE {_IN_COLLECTION}", (collection,)) if collection else ("", ())
        with self._lock:
            rows = self._db.execute(
                f"SELECT state, reason, COUNT(*), SUM(chunks) FROM documents {where} "
                "GROUP BY state, reason",
                args,
            )
            out: dict[str, int] = {"documents": 0, "chunks": 0}
            for state, reason, n, chunks in rows:
                out[state] = out.get(state, 0) + n
                out["documents"] += n
                if state == DocState.READY.value:
                    out["chunks"] += chunks or 0
                if state == DocState.QUEUED.value and reason == CANCELLED:
                    out[CANCELLED] = n  # (also counted as queued)
            return out

    # Summaries cache -------------------------------------------------------

    def get_summary(self, sha256: str, kind: str, model: str) -> str | None:
        with self._lock:
            row = self._db.execute(
                "SELECT result FROM summaries WHERE sha256 = ? AND type = ? AND model = ?",
                (sha256, kind, model),
            ).fetchone()
        return row[0] if row else None

    def forget_summaries(self, sha256: str) -> None:
        """The content's text was read anew and differs: its summaries are of the old."""
        with self._lock, self._db as db:
            db.execute("DELETE FROM summaries WHERE sha256 = ?", (sha256,))

    def put_summary(self, sha256: str, kind: str, model: str, result: str) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO summaries (sha256, type, model, result) VALUES (?, ?, ?, ?)",
                (sha256, kind, model, result),
            )


_PUT = (
    f"INSERT OR REPLACE INTO documents ({', '.join(_COLUMNS)}) "
    f"VALUES ({', '.join('?' for _ in _COLUMNS)})"
)


def _row(record: DocumentRecord) -> list[object]:
    values: list[object] = [getattr(record, c) for c in _COLUMNS]
    values[_COLUMNS.index("state")] = record.state.value
    for name in _NAME_COLUMNS:
        values[_COLUMNS.index(name)] = _to_db(getattr(record, name))
    return values


def _catalog_error(path: Path, exc: sqlite3.Error) -> CatalogError:
    text = str(exc)
    if any(word in text for word in _DAMAGED):
        return CatalogError(
            f"The catalog {path} is damaged ({text}). Nothing was changed. "
            "`docent index --rebuild` moves it aside and rebuilds the list of documents "
            "from the store (nothing is re-embedded)."
        )
    return CatalogError(f"The catalog {path} cannot be used: {text}.")
