"""kill -9 while a long file embeds: the passages written before it are not embedded
again. QA-75 killed `docent index` at 160 of gnuplot's 1,159 chunks, and the next run
embedded all 1,159 ("0 reused"): recover() dropped the half-written document's passages,
vectors and all. It now keeps their vectors for the next index of the same text
(Indexer._salvage), and drops the passages as before: the library stays consistent."""

from __future__ import annotations

import threading
from pathlib import Path

from docent.core.config import Settings
from docent.core.engine import Engine
from docent.core.index_report import Progress
from docent.core.indexer import EMBED_BATCH
from docent.core.models import DocState, SparseVec
from docent.core.salvage import Salvage
from docent.core.store_base import SENTENCES, ChunkPoint
from fake_embedder import CountingEmbedder
from killed_child import killed_when

CHILD = """
import json, sys
from docent.core.config import Settings
from docent.core.engine import Engine
from fake_embedder import FakeEmbedder

home, path, stop_at = sys.argv[1], sys.argv[2], int(sys.argv[3])

def progress(p):
    if p.phase == "embedding" and p.chunks_done >= stop_at:
        print(json.dumps({"done": p.chunks_done, "total": p.chunks_total}), flush=True)
        sys.stdin.read()  # held here, its passages written, until the parent kills it

settings = Settings(data_dir=home, extract_in_subprocess=False)
with Engine(settings, embedder=FakeEmbedder()) as eng:
    eng.index([path], progress=progress)
print(json.dumps({"finished": True}), flush=True)
"""


def _long_text(path: Path, animal: str = "alpaca") -> None:
    paragraphs = [
        f"Section {i}. The {animal} named Number {i} grazes the upper hillside until noon, "
        f"then rests by pond {i % 7} while the herder counts {i * 3} fence posts. " * 6
        for i in range(120)
    ]
    path.write_text("\n\n".join(paragraphs), encoding="utf-8")


def _killed_at(home: Path, path: Path, stop_at: int) -> tuple[int, int]:
    said = killed_when(CHILD, [str(home), str(path), str(stop_at)], lambda said: "done" in said)
    return int(said["done"]), int(said["total"])


def test_the_passages_embedded_before_a_kill_are_not_embedded_again(tmp_path: Path) -> None:
    path, home = tmp_path / "herd.txt", tmp_path / "home"
    _long_text(path)
    done, total = _killed_at(home, path, 2 * EMBED_BATCH)
    assert done == 2 * EMBED_BATCH and total > 3 * EMBED_BATCH

    settings = Settings(data_dir=str(home), extract_in_subprocess=False)
    with Engine(settings, embedder=CountingEmbedder()) as eng:  # `docent list`, first
        [rec] = eng.documents()
        assert rec.state is DocState.QUEUED and rec.chunks == 0  # consistent: none searched
        assert eng.store.count_chunks(rec.doc_id) == 0
    counting = CountingEmbedder()
    with Engine(settings, embedder=counting) as eng:  # then `docent index` again
        report = eng.index([str(path)])
        assert report.chunks_reused == done and report.chunks_embedded == total - done
        assert counting.embedded == total - done
        [rec] = eng.documents()
        assert rec.state is DocState.READY and rec.chunks == total
        assert eng.store.count_chunks(rec.doc_id) == total
        hits = eng.search("Which pond does Number 5 rest by?").hits
        assert hits and "Number 5 grazes" in hits[0].text
    assert not list((home / "salvage").glob("*.json"))  # kept only until it was ready


def test_a_changed_files_passages_staged_before_a_kill_are_not_embedded_again(
    tmp_path: Path,
) -> None:
    """The same for a new version, staged while the old one stays searchable."""
    path, home = tmp_path / "herd.txt", tmp_path / "home"
    _long_text(path)
    settings = Settings(data_dir=str(home), extract_in_subprocess=False)
    with Engine(settings, embedder=CountingEmbedder()) as eng:
        eng.index([str(path)])
    _long_text(path, animal="llama")  # every passage new
    done, total = _killed_at(home, path, 2 * EMBED_BATCH)

    counting = CountingEmbedder()
    with Engine(settings, embedder=counting) as eng:
        [rec] = eng.documents()
        assert rec.state is DocState.READY  # the old version, searchable meanwhile
        assert "alpaca" in eng.search("Which pond does Number 5 rest by?").hits[0].text
        report = eng.index([str(path)])
        assert report.chunks_reused == done and counting.embedded == total - done
        assert "llama" in eng.search("Which pond does Number 5 rest by?").hits[0].text


def test_a_cancelled_file_resumes_where_it_stopped(tmp_path: Path) -> None:
    """Cancel (the window's, or Ctrl-C) at 64 passages: the run after it embeds the rest."""
    path, home = tmp_path / "herd.txt", tmp_path / "home"
    _long_text(path)
    settings = Settings(data_dir=str(home), extract_in_subprocess=False)
    cancel = threading.Event()

    def progress(p: Progress) -> None:
        if p.phase == "embedding" and p.chunks_done >= 2 * EMBED_BATCH:
            cancel.set()

    with Engine(settings, embedder=CountingEmbedder()) as eng:
        eng.index([str(path)], progress=progress, cancel=cancel)
        [rec] = eng.documents()
        assert rec.state is DocState.QUEUED and eng.store.count_chunks(rec.doc_id) == 0
    counting = CountingEmbedder()
    with Engine(settings, embedder=counting) as eng:
        report = eng.index([str(path)])
        assert report.chunks_reused == 2 * EMBED_BATCH
        assert counting.embedded == rec_total(eng) - 2 * EMBED_BATCH
    assert not list((home / "salvage").glob("*.json"))


def rec_total(eng: Engine) -> int:
    [rec] = eng.documents()
    assert rec.state is DocState.READY
    return rec.chunks


def _point(h: str, dim: int) -> ChunkPoint:
    return ChunkPoint(h, [0.5] * dim, SparseVec([], []), {"content_hash": h, SENTENCES: "AAAA"})


def test_vectors_of_another_size_give_way_and_nothing_is_left_behind(tmp_path: Path) -> None:
    """A kill under one model, then under another after a switch: keeping both sizes in
    one file raised, and the library no longer opened (review, session 33)."""
    salvage = Salvage(tmp_path / "salvage")
    salvage.keep("doc", [_point("a", 384)])
    salvage.keep("doc", [_point("b", 768)])
    assert set(salvage.take("doc").every()) == {"b"}
    (tmp_path / "salvage" / "gone.part").write_text("{")  # a crash inside keep()
    assert salvage.kept() == ["doc", "gone"]
    salvage.drop("gone")
    assert salvage.kept() == ["doc"]


def test_what_is_kept_for_a_document_no_longer_listed_goes_at_the_next_open(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    Salvage(home / "salvage").keep("no-such-document", [_point("a", 384)])
    settings = Settings(data_dir=str(home), extract_in_subprocess=False)
    with Engine(settings, embedder=CountingEmbedder()):
        pass
    assert Salvage(home / "salvage").kept() == []


def test_a_cancelled_update_then_undone_leaves_nothing_kept(tmp_path: Path) -> None:
    """Review 81: a changed file's update cancelled midway keeps the staged vectors for
    the next try; the edit then undone, the file is found unchanged and no try comes: the
    vectors stayed in ``salvage/`` for good. They go when the file is found as indexed."""
    path, home = tmp_path / "herd.txt", tmp_path / "home"
    _long_text(path)
    original = path.read_bytes()
    settings = Settings(data_dir=str(home), extract_in_subprocess=False)
    cancel = threading.Event()

    def progress(p: Progress) -> None:
        if p.phase == "embedding" and p.chunks_done >= 2 * EMBED_BATCH:
            cancel.set()

    with Engine(settings, embedder=CountingEmbedder()) as eng:
        eng.index([str(path)])
        _long_text(path, animal="llama")
        eng.index([str(path)], progress=progress, cancel=cancel)
        assert list((home / "salvage").glob("*.json")), "kept for the next try"
        path.write_bytes(original)  # the edit undone
        report = eng.index([str(path)])
        assert report.unchanged == [str(path)]
        [rec] = eng.documents()
        assert rec.state is DocState.READY
    assert not list((home / "salvage").glob("*.json"))
