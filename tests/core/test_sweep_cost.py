"""A restart sweep of a big unchanged folder reads the catalog in a few queries.

It asked SQLite once per file for the record, once more for the event, once per file for
the watched folders' bindings, and built a record for every file to find none gone: 6.2 s
for 10,000 unchanged files on the busy dev box. Counted here in SQL statements, with
files the test writes.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from docent.core.catalog import Catalog
from docent.core.config import load_settings
from docent.core.engine import Engine
from docent.core.index_events import DocumentChanged, IndexEvent, JobFinished
from docent.core.models import DocState, DocumentRecord
from fake_embedder import FakeEmbedder

FILES = 120


def _record(path: str) -> DocumentRecord:
    return DocumentRecord(doc_id=f"doc-{abs(hash(path))}", path=path, file_name="x.txt")


@pytest.fixture
def catalog(tmp_path: Path) -> Iterator[Catalog]:
    cat = Catalog(tmp_path / "catalog.db")
    yield cat
    cat.close()


def test_records_by_path_in_groups(catalog: Catalog) -> None:
    paths = [f"/docs/part/{i:04d}.txt" for i in range(1_203)]
    odd = os.fsdecode(b"/docs/part/caf\xe9.txt")  # not UTF-8: kept as bytes
    for p in [*paths[::2], odd]:
        catalog.put(_record(p))
    found = catalog.by_paths([*paths, odd, "/elsewhere/none.txt"])
    assert set(found) == {*paths[::2], odd}
    assert all(found[p].path == p for p in found)
    assert catalog.by_paths([]) == {}


def test_paths_under_match_records_under(catalog: Catalog) -> None:
    for p in ["/docs/a_b/1.txt", "/docs/a_b/sub/2.txt", "/docs/aXb/3.txt", "/docs/a_b.txt"]:
        catalog.put(_record(p))
    assert catalog.paths_under("/docs/a_b") == [r.path for r in catalog.under("/docs/a_b")]
    assert catalog.paths_under("/docs/a_b/") == ["/docs/a_b/1.txt", "/docs/a_b/sub/2.txt"]


def test_folder_bindings_follow_every_change(catalog: Catalog) -> None:
    assert catalog.folder_bindings() == {}
    work = catalog.create_collection("Work")
    catalog.bind_folder("/docs/work", work.id)
    assert catalog.folder_collection("/docs/work/a.txt") == work.id
    catalog.bind_folder("/docs/work/old", "default")
    assert catalog.folder_collection("/docs/work/old/a.txt") == "default"
    catalog.unbind_folder("/docs/work/old")
    assert catalog.folder_bindings() == {"/docs/work": work.id}
    catalog.delete_collection(work.id)
    assert catalog.folder_bindings() == {}


def test_sweep_of_unchanged_files_reads_the_catalog_a_few_times(tmp_path: Path) -> None:
    lib = tmp_path / "library"
    for i in range(FILES):
        sub = lib / f"part-{i % 4}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"note-{i:03d}.txt").write_text(f"Note {i}: the harbour ledger, entry {i}.\n")
    with Engine(load_settings(extract_in_subprocess=False), embedder=FakeEmbedder()) as eng:
        assert len(eng.index([lib]).indexed) == FILES
        eng.watch(lib)

    events: list[IndexEvent] = []
    statements: list[str] = []
    with Engine(load_settings(extract_in_subprocess=False), embedder=FakeEmbedder()) as eng:
        assert eng.catalog is not None
        eng.subscribe(events.append)
        eng.catalog._db.set_trace_callback(statements.append)  # noqa: SLF001 - counting SQL
        eng.start_watching()
        assert eng.wait_idle(120)
        eng.catalog._db.set_trace_callback(None)  # noqa: SLF001
        assert eng.embedder.texts_embedded == 0
        after = {r.path: r for r in eng.catalog.all()}

    finished = [e for e in events if isinstance(e, JobFinished)]
    assert finished and all(not e.changes() for e in finished)
    unchanged = [e for e in events if isinstance(e, DocumentChanged)]
    assert len(unchanged) == FILES
    # Each event still carries the document's record, as the catalog has it.
    assert all(e.record == after[e.progress.path] for e in unchanged)
    assert all(e.record.state is DocState.READY for e in unchanged if e.record)
    reads = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
    assert len(reads) < 20, reads[:30]
