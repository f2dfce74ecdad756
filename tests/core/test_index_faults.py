"""A fault in the middle of a run: one file's own fault fails that file and the run goes
on; a fault of the store stops the run, and nothing is left half-written or unlisted.

A hashing embedder stands in for the model (``tests/fake_embedder.py``); the faults are
raised from the real indexer's calls into the embedder and the store."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from docent.core.config import load_settings
from docent.core.embedding import ChunkVectors
from docent.core.engine import Engine
from docent.core.errors import StoreUnavailable
from docent.core.models import DocState
from docent.core.store import ChunkPoint
from fake_embedder import FakeEmbedder

#: Long enough for several embedding batches (EMBED_BATCH chunks each).
LONG = 600
NAMES = ["a.txt", "b.txt", "c.txt", "d.txt"]


def write_library(folder: Path) -> list[Path]:
    folder.mkdir()
    files = []
    for name in NAMES:
        stem = name.split(".")[0]
        paragraphs = LONG if stem == "b" else 3
        text = "\n\n".join(
            f"Ledger {stem}{i}: the harbour master counted {i} crates of lamp oil "
            f"in storehouse {stem}, sealed and weighed before the winter convoy left."
            for i in range(paragraphs)
        )
        (folder / name).write_text(text)
        files.append(folder / name)
    return files


class FailsOnB(FakeEmbedder):
    """Raises on b.txt's second batch of chunks, after its first batch was written."""

    def __init__(self) -> None:
        super().__init__()
        self.batches_of_b = 0
        self.broken = True

    def embed_chunks(self, texts: Sequence[str], bodies: Sequence[str]) -> list[ChunkVectors]:
        if self.broken and any("storehouse b" in t for t in texts):
            self.batches_of_b += 1
            if self.batches_of_b == 2:
                raise RuntimeError("onnxruntime: failed to allocate memory")
        return super().embed_chunks(texts, bodies)


@pytest.fixture
def files(tmp_path: Path) -> list[Path]:
    return write_library(tmp_path / "library")


@pytest.fixture
def flaky() -> Iterator[tuple[Engine, FailsOnB]]:
    embedder = FailsOnB()
    eng = Engine(load_settings(extract_in_subprocess=False), embedder=embedder).open()
    yield eng, embedder
    eng.close()


def states(eng: Engine) -> dict[str, DocState]:
    return {Path(d.path).name: d.state for d in eng.documents()}


def test_a_fault_on_one_file_fails_it_and_the_run_goes_on(
    flaky: tuple[Engine, FailsOnB], files: list[Path]
) -> None:
    eng, embedder = flaky
    report = eng.index(files)
    assert sorted(Path(p).name for p in report.indexed) == ["a.txt", "c.txt", "d.txt"]
    [failed] = report.failed
    assert Path(failed.path).name == "b.txt" and failed.reason == "fault"
    assert "failed to allocate memory" in failed.message
    assert states(eng) == {
        "a.txt": DocState.READY,
        "b.txt": DocState.FAILED,
        "c.txt": DocState.READY,
        "d.txt": DocState.READY,
    }
    b = eng.resolve("b.txt")
    assert eng.store is not None
    assert eng.store.count_chunks(b.doc_id) == 0  # its first batch was written, then dropped
    assert b.chunks == 0 and "the next run tries this one again" in b.error
    # A fault is not the file's: the next run tries it again, though the file is unchanged.
    embedder.broken = False
    again = eng.index(files)
    assert [Path(p).name for p in again.indexed] == ["b.txt"]
    assert eng.store.count_chunks(b.doc_id) == eng.resolve("b.txt").chunks > 2 * 32


def test_a_store_fault_queues_what_the_run_did_not_finish(
    files: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    eng = Engine(load_settings(extract_in_subprocess=False), embedder=FakeEmbedder()).open()
    try:
        assert eng.store is not None
        store = eng.store
        real_upsert = store.upsert_chunks
        written: list[int] = []

        def upsert(points: Sequence[ChunkPoint]) -> None:
            # b.txt's first batch lands, its second finds the server gone.
            if any("storehouse b" in str(p.payload.get("text", "")) for p in points):
                written.append(len(points))
                if len(written) == 2:
                    raise StoreUnavailable("The Qdrant server did not answer.")
            real_upsert(points)

        monkeypatch.setattr(store, "upsert_chunks", upsert)
        with pytest.raises(StoreUnavailable):
            eng.index(files)
        # Nothing stays "indexing" (never searched, never finished), nothing is unlisted.
        assert states(eng) == {
            "a.txt": DocState.READY,
            "b.txt": DocState.QUEUED,
            "c.txt": DocState.QUEUED,
            "d.txt": DocState.QUEUED,
        }
        b = eng.resolve("b.txt")
        assert store.count_chunks(b.doc_id) == 0  # what it wrote was dropped
        assert "did not answer" in b.error
        monkeypatch.setattr(store, "upsert_chunks", real_upsert)
        report = eng.index(files)
        assert sorted(Path(p).name for p in report.indexed) == ["b.txt", "c.txt", "d.txt"]
        assert set(states(eng).values()) == {DocState.READY}
    finally:
        eng.close()
