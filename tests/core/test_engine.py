"""The engine on real files: incremental indexing, renames, duplicates, removal, locking.

Indexing here is about what is (re-)embedded, not how well: a hashing embedder stands in
for the model (``tests/fake_embedder.py``), except in the first test, which runs the real
one end to end."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from docent.core.config import load_settings
from docent.core.engine import Engine
from docent.core.errors import AmbiguousFile, StoreLocked, UnknownFile
from docent.core.models import DocState
from docent.core.textcache import sha256_file
from fake_embedder import FakeEmbedder
from pdf_files import encrypted_text_pdf, truncated

PARA = (
    "The quartermaster counted {n} crates of lamp oil in the north storehouse. "
    "Each crate held twelve tins, and every tin was marked with the harbour seal. "
    "Inspectors checked the seals twice a season and wrote the totals in the ledger. "
)


def write_notes(path: Path, paragraphs: int, tag: str = "") -> None:
    path.write_text("\n\n".join(PARA.format(n=f"{tag}{i}") * 3 for i in range(paragraphs)))


@pytest.fixture
def library(tmp_path: Path, samples_dir: Path) -> Path:
    lib = tmp_path / "library"
    lib.mkdir()
    shutil.copy(samples_dir / "forensics-samples-files__a-text.pdf", lib / "paper.pdf")
    write_notes(lib / "notes.txt", 12)
    (lib / "sub").mkdir()
    write_notes(lib / "sub" / "more.md", 4, tag="m")
    (lib / "picture.png").write_bytes(b"\x89PNG not really")
    return lib


@pytest.fixture
def engine() -> Iterator[Engine]:
    eng = Engine(load_settings(extract_in_subprocess=False), embedder=FakeEmbedder()).open()
    yield eng
    eng.close()


@pytest.fixture
def real_engine() -> Iterator[Engine]:
    eng = Engine(load_settings(extract_in_subprocess=False)).open()
    yield eng
    eng.close()


def chunks_of(eng: Engine, name: str) -> int:
    assert eng.store is not None
    return eng.store.count_chunks(eng.resolve(name).doc_id)


def test_index_then_nothing_to_do_on_rescan(real_engine: Engine, library: Path) -> None:
    engine = real_engine
    first = engine.index([library])
    assert sorted(Path(p).name for p in first.indexed) == ["more.md", "notes.txt", "paper.pdf"]
    assert first.chunks_embedded > 0 and not first.failed
    for rec in engine.documents():
        assert rec.state is DocState.READY and rec.chunks > 0 and rec.pages > 0
        assert chunks_of(engine, rec.path) == rec.chunks
    before = engine.embedder.texts_embedded
    again = engine.index([library])
    assert again.chunks_embedded == 0 and len(again.unchanged) == 3 and not again.indexed
    assert engine.embedder.texts_embedded == before


def test_changed_file_replaces_its_chunks_only(engine: Engine, library: Path) -> None:
    engine.index([library])
    old = engine.resolve("notes.txt")
    write_notes(library / "notes.txt", 5, tag="v2-")  # shorter, different numbers
    report = engine.index([library])
    assert [Path(p).name for p in report.indexed] == ["notes.txt"]
    assert sorted(Path(p).name for p in report.unchanged) == ["more.md", "paper.pdf"]
    new = engine.resolve("notes.txt")
    assert new.doc_id == old.doc_id and new.sha256 != old.sha256
    assert new.chunks < old.chunks
    assert chunks_of(engine, "notes.txt") == new.chunks  # leftovers of the long version gone
    assert engine.grep("counted v2-3 crates")
    assert not engine.grep("counted 11 crates")  # only the old, longer version had it


def test_an_edit_that_keeps_the_size_and_modification_time_is_seen(
    engine: Engine, library: Path
) -> None:
    """QA, session 29: a file rewritten with as many bytes and its modification time kept
    (``cp -p``, ``rsync -a``, an archive unpacked) was "unchanged": its old text stayed
    searchable. Its status-change time moved: it is read again, and the others are not."""
    engine.index([library])
    notes = library / "notes.txt"
    st = notes.stat()
    notes.write_text(notes.read_text().replace("counted 11 crates", "counted 99 crates"))
    os.utime(notes, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert notes.stat().st_size == st.st_size and notes.stat().st_mtime == st.st_mtime
    report = engine.index([library])
    assert [Path(p).name for p in report.indexed] == ["notes.txt"]
    assert engine.grep("counted 99 crates") and not engine.grep("counted 11 crates")
    again = engine.index([library])  # its new stamp is kept: nothing to do
    assert not again.indexed and len(again.unchanged) == 3


def test_a_chmod_is_no_edit(engine: Engine, library: Path) -> None:
    """It moves the status-change time: the next run hashes the file and finds it the
    same, and nothing says it was "saved again" meanwhile (review, session 29)."""
    from docent.core.files import changed_since_indexed

    engine.index([library])
    notes = library / "notes.txt"
    notes.chmod(0o600)
    rec = engine.resolve("notes.txt")
    assert not changed_since_indexed(rec) and changed_since_indexed(rec, status=True)
    report = engine.index([library])
    assert not report.indexed and len(report.unchanged) == 3 and report.chunks_embedded == 0
    assert not changed_since_indexed(engine.resolve("notes.txt"), status=True)


def test_an_older_docents_record_learns_its_status_change_time_without_a_read(
    engine: Engine, library: Path
) -> None:
    engine.index([library])
    cat = engine._cat
    for rec in cat.all():
        rec.ctime = 0.0  # as an older Docent wrote them
        cat.put(rec)
    report = engine.index([library])  # size and modification time alone: unchanged
    assert not report.indexed and len(report.unchanged) == 3
    assert all(rec.ctime == Path(rec.path).stat().st_ctime for rec in cat.all())


def test_rename_costs_no_embedding(engine: Engine, library: Path) -> None:
    engine.index([library])
    chunks = engine.resolve("paper.pdf").chunks
    (library / "paper.pdf").rename(library / "sub" / "renamed.pdf")
    report = engine.index([library])
    assert report.chunks_embedded == 0 and not report.indexed
    assert report.renamed == [(str(library / "paper.pdf"), str(library / "sub" / "renamed.pdf"))]
    rec = engine.resolve("renamed.pdf")
    assert rec.chunks == chunks and rec.state is DocState.READY
    hits = engine.search("a text from LibreOffice Writer", files=["renamed.pdf"]).hits
    assert hits and all(h.path.endswith("renamed.pdf") for h in hits)
    with pytest.raises(UnknownFile):
        engine.resolve(str(library / "paper.pdf"))


def test_deleted_file_drops_its_chunks(engine: Engine, library: Path) -> None:
    engine.index([library])
    doc_id = engine.resolve("more.md").doc_id
    (library / "sub" / "more.md").unlink()
    report = engine.index([library])
    assert report.removed == [str(library / "sub" / "more.md")]
    assert engine.store is not None and engine.store.count_chunks(doc_id) == 0
    assert all(h.doc_id != doc_id for h in engine.search("quartermaster crates", k=20).hits)


def test_same_content_at_two_paths_is_embedded_once(engine: Engine, library: Path) -> None:
    engine.index([library / "notes.txt"])
    shutil.copy(library / "notes.txt", library / "sub" / "copy.txt")
    report = engine.index([library / "sub" / "copy.txt"])
    assert report.indexed == [str(library / "sub" / "copy.txt")]
    assert report.chunks_embedded == 0 and report.chunks_reused == engine.resolve("copy.txt").chunks


def test_remove_and_ambiguous_names(engine: Engine, library: Path) -> None:
    shutil.copy(library / "notes.txt", library / "sub" / "notes.txt")
    engine.index([library])
    with pytest.raises(AmbiguousFile) as err:
        engine.resolve("notes.txt")
    assert len(err.value.candidates) == 2
    rec = engine.remove(str(library / "sub" / "notes.txt"))
    assert engine.resolve("notes.txt").path == str(library / "notes.txt")
    assert engine.store is not None and engine.store.count_chunks(rec.doc_id) == 0
    # a path names one file: never its namesake elsewhere (review: `docent remove` of a
    # path not indexed removed the other notes.txt)
    with pytest.raises(UnknownFile):
        engine.remove(str(library / "sub" / "notes.txt"))
    with pytest.raises(UnknownFile):
        engine.resolve(str(library / "elsewhere" / "notes.txt"))
    assert engine.resolve("notes.txt").path == str(library / "notes.txt")
    coll = engine.create_collection("Other")
    with pytest.raises(UnknownFile):  # not in that collection, though a namesake might be
        engine.resolve(str(library / "notes.txt"), coll.id)


def test_bad_files_do_not_stop_the_others(engine: Engine, library: Path, samples_dir: Path) -> None:
    whole = (samples_dir / "forensics-samples-files__a-text.pdf").read_bytes()
    (library / "broken.pdf").write_bytes(truncated(whole))  # an interrupted download
    (library / "locked.pdf").write_bytes(encrypted_text_pdf([["Board minutes."]], "peanuts"))
    (library / "empty.txt").write_text("   \n")
    report = engine.index([library, library / "nowhere.pdf"])
    reasons = {Path(f.path).name: f.reason for f in report.failed}
    assert reasons == {
        "broken.pdf": "damaged",
        "locked.pdf": "encrypted",
        "empty.txt": "empty",
        "nowhere.pdf": "missing",
    }
    assert len(report.indexed) == 3
    locked = engine.resolve("locked.pdf")
    assert locked.state is DocState.FAILED and "password" in locked.error.lower()
    for name in ("locked.pdf", "empty.txt"):  # what failed is known by content: not re-read
        assert engine.resolve(name).sha256 == sha256_file(library / name), name


def test_second_engine_on_same_folder_is_refused(engine: Engine) -> None:
    with pytest.raises(StoreLocked, match="already open"):
        Engine(load_settings()).open()


def test_dump_has_page_markers(engine: Engine, library: Path) -> None:
    engine.index([library / "paper.pdf"])
    md = engine.dump("paper.pdf")
    assert md.startswith("# paper.pdf")
    assert "<!-- page 1 -->" in md and "<!-- page 2 -->" in md
    assert md.index("A test only.") < md.index("<!-- page 2 -->") < md.index("second page")
