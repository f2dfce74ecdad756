"""The store and the catalog disagree (deleted, damaged, restored from an old copy): the
library notices on open, says what it did, and `list`, `search` and `index` agree."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from cli_runner import Docent
from hostile_files import TEXTS, write_texts

from docent.core.config import load_settings
from docent.core.engine import Engine
from docent.core.models import DocState


def _states(docent: Docent) -> dict[str, str]:
    run = docent("list", "--json")
    assert run.rc == 0, run.text
    return {d["file_name"]: d["state"] for d in json.loads(run.out)}


def assert_consistent(expected: set[str]) -> None:
    """Every ready document has exactly its chunks in the store, and nothing else is."""
    with Engine(load_settings(extract_in_subprocess=False)) as eng:
        assert eng.store is not None and eng.catalog is not None
        docs = eng.documents()
        assert {d.file_name for d in docs} == expected
        assert all(d.state is DocState.READY for d in docs), [(d.file_name, d.state) for d in docs]
        counts = eng.store.chunk_counts()
        assert counts == {d.doc_id: d.chunks for d in docs}, "ghost or missing chunks"
        assert eng.store.count_documents() == len(docs)
        assert not eng.notes, eng.notes


def test_a_deleted_store_is_noticed_and_rebuilt_with_a_flag(
    docent: Docent, library: Path, _isolated_home: Path
) -> None:
    shutil.rmtree(_isolated_home / "qdrant")

    listed = docent("list", "--json", note="list after deleting qdrant/")
    assert "missing the passages of 3 ready documents" in listed.err
    assert set(json.loads(listed.out)[i]["state"] for i in range(3)) == {"queued"}
    search = docent("search", "llamas hum", note="search after deleting qdrant/")
    assert "llamas.txt" not in search.out and "No matches" in search.out

    rebuilt = docent("index", "--rebuild")
    assert rebuilt.rc == 0, rebuilt.text
    assert "indexed 3" in rebuilt.out
    assert set(_states(docent).values()) == {"ready"}
    assert "llamas.txt" in docent("search", "llamas hum").out
    assert_consistent(set(TEXTS))


def test_a_deleted_catalog_takes_its_documents_back_without_ghosts(
    docent: Docent, folder: Path, _isolated_home: Path
) -> None:
    write_texts(folder)
    assert docent("index", str(folder)).rc == 0
    (folder / "bells.txt").unlink()  # gone while the catalog was away
    for name in ("catalog.sqlite3", "catalog.sqlite3-wal", "catalog.sqlite3-shm"):
        (_isolated_home / name).unlink(missing_ok=True)

    listed = docent("list", "--json", note="list after deleting the catalog")
    assert "lost 2 documents" in listed.err and "taken back" in listed.err
    assert "Deleted the passages of 1 document" in listed.err
    assert _states(docent) == {"llamas.txt": "ready", "kelp.txt": "ready"}
    assert "bells.txt" not in docent("search", "bronze bells tuned").out

    again = docent("index", str(folder), note="index after deleting the catalog")
    assert "unchanged 2" in again.out and "0 chunks embedded" in again.out
    assert_consistent({"llamas.txt", "kelp.txt"})


def test_a_damaged_catalog_is_refused_as_it_is_then_rebuilt_with_a_flag(
    docent: Docent, library: Path, _isolated_home: Path
) -> None:
    catalog = _isolated_home / "catalog.sqlite3"
    damaged = b"this is not a database" + catalog.read_bytes()[22:]
    catalog.write_bytes(damaged)

    for args in (("list",), ("search", "llamas"), ("index", str(library))):
        run = docent(*args, note=f"{args[0]} with a damaged catalog")
        assert run.rc == 1, run.text
        assert "The catalog" in run.err and "is damaged" in run.err and "--rebuild" in run.err
        assert "Traceback" not in run.err and len(run.err.strip().splitlines()) == 1
    assert catalog.read_bytes() == damaged, "the damaged catalog was changed"

    rebuilt = docent("index", "--rebuild", note="index --rebuild with a damaged catalog")
    assert rebuilt.rc == 0, rebuilt.text
    assert "The damaged catalog was moved to" in rebuilt.err
    assert "taken back, nothing re-embedded" in rebuilt.err
    assert list(_isolated_home.glob("catalog.sqlite3.damaged-*"))
    assert_consistent(set(TEXTS))


def test_a_damaged_store_is_refused_as_it_is_then_set_aside_with_a_flag(
    docent: Docent, library: Path, _isolated_home: Path
) -> None:
    config = _isolated_home / "qdrant" / "chunks" / "edge_config.json"
    config.write_text("{ not json")

    run = docent("list", note="list with a damaged store")
    assert run.rc == 1 and "cannot be opened" in run.err and "--rebuild" in run.err
    assert "Traceback" not in run.err
    assert config.read_text() == "{ not json"

    rebuilt = docent("index", "--rebuild", note="index --rebuild with a damaged store")
    assert rebuilt.rc == 0, rebuilt.text
    assert "The damaged store was moved to" in rebuilt.err and "indexed 3" in rebuilt.out
    assert_consistent(set(TEXTS))


def _engine() -> Engine:
    return Engine(load_settings(extract_in_subprocess=False)).open()


def test_an_older_catalog_and_an_older_store_are_reconciled(
    folder: Path, _isolated_home: Path
) -> None:
    """Restored from old copies: a document changed since, one added since."""
    (folder / "a.txt").write_text(TEXTS["llamas.txt"] + "\n")
    with _engine() as eng:
        eng.index([folder])
    old = _isolated_home.parent / "old"
    shutil.copytree(_isolated_home, old)
    (folder / "a.txt").write_text(TEXTS["llamas.txt"] + "\n\n" + "More about llamas. " * 300)
    (folder / "b.txt").write_text(TEXTS["kelp.txt"] + "\n")
    with _engine() as eng:
        eng.index([folder])
        assert eng.resolve("a.txt").chunks > 1

    # The old catalog with today's store: b is adopted; a's chunk count differs -> queued.
    shutil.copy(old / "catalog.sqlite3", _isolated_home / "catalog.sqlite3")
    with _engine() as eng:
        assert [r.file_name for r in eng.reconciled.adopted] == ["b.txt"]
        assert [r.file_name for r in eng.recovered] == ["a.txt"]
        report = eng.resume()
        assert report.indexed == [str(folder / "a.txt")]
    assert_consistent({"a.txt", "b.txt"})

    # Today's catalog with the old store: b's chunks are missing -> queued and rebuilt.
    shutil.rmtree(_isolated_home / "qdrant")
    shutil.copytree(old / "qdrant", _isolated_home / "qdrant")
    with _engine() as eng:
        assert {r.file_name for r in eng.recovered} == {"a.txt", "b.txt"}
        assert eng.resolve("b.txt").state is DocState.QUEUED
        eng.resume()
    assert_consistent({"a.txt", "b.txt"})


def test_an_older_store_brings_back_no_passages_of_a_failed_document(
    folder: Path, _isolated_home: Path
) -> None:
    """Restored from a copy taken while a document was ready, the store holds passages of
    a file the catalog now lists as failed: they are deleted on open, never searched or
    cited (review: found and cited, and the cheap check failed on every open)."""
    (folder / "a.txt").write_text(TEXTS["llamas.txt"] + "\n")
    (folder / "b.txt").write_text(TEXTS["kelp.txt"] + "\n")
    with _engine() as eng:
        eng.index([folder])
        assert eng.search("llamas hum").hits[0].file_name == "a.txt"
    old = _isolated_home.parent / "old"
    shutil.copytree(_isolated_home / "qdrant", old)
    (folder / "a.txt").write_text("")
    with _engine() as eng:
        eng.index([folder / "a.txt"])
        assert eng.resolve("a.txt").state is DocState.FAILED
    shutil.rmtree(_isolated_home / "qdrant")
    shutil.copytree(old, _isolated_home / "qdrant")
    with _engine() as eng:
        assert eng.reconciled.stale_deleted == 1
        assert any("not indexed now" in m for m in eng.reconciled.messages())
        assert eng.resolve("a.txt").state is DocState.FAILED
        assert all(h.file_name != "a.txt" for h in eng.search("llamas hum").hits)
        assert eng.store is not None
        counts = {k: v for k, v in eng.store.chunk_counts().items() if v}
        assert counts == {eng.resolve("b.txt").doc_id: eng.resolve("b.txt").chunks}, counts
    with _engine() as eng:  # and the next open finds nothing to do
        assert not eng.reconciled.changed


def test_an_older_store_with_as_many_passages_is_noticed_by_their_version(
    folder: Path, _isolated_home: Path
) -> None:
    """Restored from a copy taken before a file was edited, the store holds the old text's
    passages, as many as the new one's: the counts agree, and the old text was searched and
    cited as ready until the file next changed (review). The documents point's version
    tells them apart."""
    (folder / "a.txt").write_text("The ferry leaves at the old price of nine crowns.\n")
    (folder / "b.txt").write_text(TEXTS["kelp.txt"] + "\n")
    with _engine() as eng:
        eng.index([folder])
    old = _isolated_home.parent / "old"
    shutil.copytree(_isolated_home / "qdrant", old)
    (folder / "a.txt").write_text("The ferry leaves at the new price of four marks.\n")
    with _engine() as eng:
        eng.index([folder])
        assert [m.file_name for m in eng.grep("four marks")] == ["a.txt"]
    shutil.rmtree(_isolated_home / "qdrant")
    shutil.copytree(old, _isolated_home / "qdrant")
    with _engine() as eng:
        assert [r.file_name for r in eng.reconciled.requeued] == ["a.txt"]
        assert any("older version" in m for m in eng.reconciled.messages())
        assert eng.grep("nine crowns") == []  # never searched or cited again
        eng.resume()
        assert [m.file_name for m in eng.grep("four marks")] == ["a.txt"]
    assert_consistent({"a.txt", "b.txt"})
    with _engine() as eng:  # and the next open finds nothing to do
        assert not eng.reconciled.changed
