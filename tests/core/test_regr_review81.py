"""Review 81: the indexing and background-work path. Each test fails on the code as
reviewed (b20585c) and shows one bug a user would meet. Real components: the bundled
embedding model, the real store (Qdrant Edge), real files in tmp_path."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from docent.core.config import load_settings
from docent.core.engine import Engine
from docent.core.indexer import Progress
from docent.core.models import DocState


@pytest.fixture(scope="module")
def embedder():  # the bundled model, loaded once for the module
    from docent.core.embedding import Embedder

    emb = Embedder()
    emb.ensure_loaded()
    return emb


def _open(embedder) -> Engine:
    return Engine(load_settings(extract_in_subprocess=False), embedder=embedder).open()


def _write(folder: Path, name: str, topic: str, n: int = 3) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / name
    body = "\n\n".join(
        f"Paragraph {i} of the {topic} notes: the {topic} needs care and the {topic} "
        f"manual says so on every page ({name}, {i})."
        for i in range(n)
    )
    p.write_text(f"{topic.title()} notes\n\n{body}\n")
    return p


def test_rename_during_a_run_keeps_the_document(tmp_path: Path, embedder) -> None:
    """A ready document whose file is renamed while a long run (a Re-index, or the
    re-index of an older library's documents) has it listed but not reached yet: the run
    meets the file gone (FileVanished), and ``Indexer._fail`` drops the document's
    passages and marks it failed. The rename's move job then finds a failed record, removes
    it and indexes the new name as a new document: every passage embedded again, and the
    collections the user had put it in are lost (jobs.index_files says a vanished file
    "is not a failure: its deleted event (or the next sweep) removes it")."""
    docs = tmp_path / "docs"
    for name, topic in (("a.txt", "lamp"), ("b.txt", "boiler"), ("c.txt", "compass")):
        _write(docs, name, topic)
    eng = _open(embedder)
    try:
        eng.index([docs])
        keep = eng.create_collection("Keep")
        eng.index([docs / "c.txt"], collection=keep.id)
        before = eng._cat.by_path(str(docs / "c.txt"))
        assert before is not None and sorted(before.collections) == sorted(["default", keep.id])

        old, new = str(docs / "c.txt"), str(docs / "c-renamed.txt")
        renamed = threading.Event()

        def on_progress(p: Progress) -> None:
            # a.txt is done; c.txt is not read yet (the run reads two files ahead)
            if p.phase == "ready" and p.path.endswith("a.txt") and not renamed.is_set():
                os.rename(old, new)
                eng.queue.move(old, new, source="watch")  # what the watcher does
                renamed.set()

        from docent.core.index_events import Job, JobKind

        eng._run(Job(JobKind.INDEX, [str(docs)], "command", force=True), on_progress, None)
        assert renamed.is_set()
        assert eng.queue.wait_idle(60)
        after = eng._cat.by_path(new)
        assert after is not None and after.state is DocState.READY
        # the document followed its file: the same one, in the collections it was in
        assert after.doc_id == before.doc_id
        assert keep.id in after.collections
    finally:
        eng.close()


CHILD = """
import json, sys
from docent.core.config import Settings
from docent.core.engine import Engine

home, path, stop_at = sys.argv[1], sys.argv[2], int(sys.argv[3])

def progress(p):
    if p.phase == "embedding" and p.chunks_done >= stop_at:
        print(json.dumps({"done": p.chunks_done, "total": p.chunks_total}), flush=True)
        sys.stdin.read()  # held here, its passages written, until the parent kills it

settings = Settings(data_dir=home, extract_in_subprocess=False)
with Engine(settings) as eng:  # the bundled model
    eng.index([path], progress=progress)
print(json.dumps({"finished": True}), flush=True)
"""


def _herd(path: Path, animal: str) -> None:
    paragraphs = [
        f"Section {i}. The {animal} named Number {i} grazes the upper hillside until noon, "
        f"then rests by pond {i % 7} while the herder counts {i * 3} fence posts. " * 4
        for i in range(60)
    ]
    path.write_text("\n\n".join(paragraphs), encoding="utf-8")


def test_an_update_cut_short_then_undone_is_not_outdated_for_ever(tmp_path: Path) -> None:
    """kill -9 while the new version of an edited file is staged leaves the old record
    ready with reason UPDATING (``Indexer._stage``), which ``Catalog.outdated`` lists. If
    the file is then back to the indexed content (the edit undone, a checkout), the
    next run finds its sha256 unchanged and ``Indexer._handle`` only stamps and puts the
    record back, UPDATING and all: every start of the window says "Updating the search
    index of 1 document" and runs a resume, for good."""
    from docent.core.config import Settings
    from docent.core.indexer import EMBED_BATCH
    from killed_child import killed_when

    path, home = tmp_path / "herd.txt", tmp_path / "home"
    _herd(path, "alpaca")
    original = path.read_bytes()
    settings = Settings(data_dir=str(home), extract_in_subprocess=False)
    with Engine(settings) as eng:
        eng.index([str(path)])
    _herd(path, "llama")  # edited: every passage new
    killed_when(CHILD, [str(home), str(path), str(EMBED_BATCH)], lambda said: "done" in said)
    path.write_bytes(original)  # the edit undone before Docent runs again

    with Engine(settings) as eng:
        assert [r.path for r in eng.outdated] == [str(path)]  # the update cut short
        eng.resume()  # what the window does at start
    with Engine(settings) as eng:
        [rec] = eng.documents()
        assert rec.state is DocState.READY
        assert eng.outdated == []  # nothing left to update


def test_a_touched_file_keeps_the_summary_made_while_the_run_went_on(
    tmp_path: Path, embedder
) -> None:
    """A run reads every record when it starts (``Indexer._run``: ``by_paths``) and, for
    a file touched but unchanged, puts that record back whole when it reaches it
    (``_handle``: ``prepared.unchanged`` -> ``catalog.put(rec)``). A brief summary made
    meanwhile (the Summarize dialog, on its own thread, writes it with
    ``Catalog.set_summary`` and the store's documents point) is wiped from the catalog,
    and the catalog and the store disagree on it."""
    docs = tmp_path / "docs"
    a = _write(docs, "a.txt", "lamp")
    b = _write(docs, "b.txt", "boiler")
    eng = _open(embedder)
    try:
        eng.index([docs])
        _write(docs, "a.txt", "lantern")  # changed: embedded again
        st = b.stat()
        os.utime(b, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # touched only
        made: list[str] = []

        def on_progress(p: Progress) -> None:
            if p.phase == "ready" and p.path == str(a) and not made:
                # the user asks for b.txt's summary while the run embeds a.txt
                made.append(eng.summarize(str(b), type="brief", extractive=True).summary)

        eng.index([a, b], progress=on_progress)
        assert made
        rec = eng._cat.by_path(str(b))
        point = eng.store.get_document(rec.doc_id) or {}
        assert point.get("summary"), "the summary reached the store"
        assert rec.summary == point.get("summary")  # the catalog lost it
    finally:
        eng.close()


def test_a_ready_document_saved_at_every_read_keeps_its_version(
    tmp_path: Path, embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reviewer's wording 2: a ready document whose file was saved again at every
    read ("kept changing while Docent read it") was failed and its passages dropped,
    though nothing said the version indexed was gone. It stays now, searchable, and the
    run says the file was skipped; the next run reads the file once saving stops."""
    from docent.core.preparing import Preparer

    docs = tmp_path / "docs"
    note = _write(docs, "log.txt", "lantern")
    eng = _open(embedder)
    try:
        eng.index([note])
        before = eng._cat.by_path(str(note))
        real = Preparer._extract
        saves = iter(range(100))

        def saved_meanwhile(self: Preparer, *args: object, **kw: object) -> object:
            st = note.stat()  # a save of as many bytes, a moment later, at every read
            note.write_text(note.read_text().replace("lantern", "lampion"))
            os.utime(note, ns=(st.st_atime_ns, st.st_mtime_ns + 10**7 * (next(saves) + 1)))
            return real(self, *args, **kw)  # type: ignore[arg-type]

        monkeypatch.setattr(Preparer, "_extract", saved_meanwhile)
        _write(docs, "log.txt", "lampion")
        report = eng.index([note])
        assert not report.failed
        assert [(s.reason, "stays searchable" in s.message) for s in report.skipped] == [
            ("changing", True)
        ]
        after = eng._cat.by_path(str(note))
        assert after is not None and after.state is DocState.READY
        assert (after.doc_id, after.chunks) == (before.doc_id, before.chunks)
        assert eng.grep("lantern notes"), "the version indexed is still searchable"
        monkeypatch.setattr(Preparer, "_extract", real)  # the saving stops
        assert eng.index([note]).indexed == [str(note)]
        assert eng.grep("lampion notes") and not eng.grep("lantern notes")
    finally:
        eng.close()
