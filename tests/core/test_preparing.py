"""The extraction worker chunks and scores a file exactly as the main process would."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from docent.core import embedding
from docent.core.chunking import chunk_pages
from docent.core.config import load_settings
from docent.core.context import document_title, indexed_text
from docent.core.embedding import Embedder
from docent.core.engine import Engine
from docent.core.extract import extract
from docent.core.preparing import Preparer, worker_preparer

PDF = "simh__vax780_doc.pdf"


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    e = Embedder()
    e.ensure_loaded()
    return e


def test_worker_tools_give_the_parents_chunks_and_bm25(
    embedder: Embedder, samples_dir: Path, tmp_path: Path
) -> None:
    pdf = str(samples_dir / PDF)
    worker = worker_preparer(embedder.tokenizer_json(), embedder.cache_dir)
    got = worker.prepare(pdf, str(tmp_path / "cache"), known_sha="")
    assert not got.reason, got.message

    doc = extract(pdf)
    title = document_title(doc.pages)
    chunks = chunk_pages(doc.pages, embedder.count_tokens, title=title)
    assert got.chunks == chunks, "the worker's token counts differ from the model's"
    assert (got.pages, got.page_unit) == (len(doc.pages), doc.page_unit)
    assert got.sparse == embedder.embed_sparse([indexed_text(c.context, c.text) for c in chunks])
    assert all(c.context.startswith("VAX-11/780 Simulator Usage") for c in chunks)
    assert [c.ordinal for c in got.chunks] == list(range(len(got.chunks)))


def test_prepare_uses_the_text_cache_and_reports_unchanged_files(
    embedder: Embedder, samples_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here = Preparer(embedder.count_tokens, embedder.embed_sparse)
    pdf, cache = str(samples_dir / PDF), str(tmp_path / "cache")
    first = here.prepare(pdf, cache, known_sha="")
    assert first.chunks and first.sha256

    again = here.prepare(pdf, cache, known_sha=first.sha256)
    assert again.unchanged and not again.chunks, "a known file was chunked again"

    (tmp_path / "copy.pdf").write_bytes(Path(pdf).read_bytes())

    def no_parsing(path: str) -> None:
        raise AssertionError("the cached text was parsed again")

    monkeypatch.setattr("docent.core.preparing.extract", no_parsing)
    cached = here.prepare(str(tmp_path / "copy.pdf"), cache, known_sha="")
    assert cached.chunks == first.chunks and cached.sha256 == first.sha256


def test_prepare_reports_bad_files_with_a_reason(embedder: Embedder, tmp_path: Path) -> None:
    here = Preparer(embedder.count_tokens, embedder.embed_sparse)
    gone = here.prepare(str(tmp_path / "missing.pdf"), str(tmp_path / "cache"), known_sha="")
    assert gone.reason == "missing" and "missing.pdf" in gone.message
    empty = tmp_path / "empty.txt"
    empty.write_text("   \n")
    blank = here.prepare(str(empty), str(tmp_path / "cache"), known_sha="")
    assert blank.reason and "no text" in blank.message and blank.sha256


def test_indexing_through_the_worker_loads_bm25_only_for_a_query(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker makes the documents' sparse vectors: the indexing process does not build
    BM25 (~0.4 s of CPU) until someone searches."""
    monkeypatch.setattr(embedding, "_bm25", [])  # as in a process that has not loaded it
    (tmp_path / "notes.txt").write_text("Llamas hum when they are curious.\n")
    with Engine(load_settings(extract_in_subprocess=True)) as eng:
        report = eng.index([tmp_path / "notes.txt"])
        assert len(report.indexed) == 1 and eng.status().chunks == 1
        assert embedding._bm25 == [], "the indexing process built BM25"
        hits = eng.search("curious llamas").hits
        assert embedding._bm25 and hits[0].file_name == "notes.txt"


def test_a_text_file_is_cited_by_its_lines_and_keeps_every_line(
    embedder: Embedder, tmp_path: Path
) -> None:
    """A log's lines look alike (digits aside) and open and close every block of 60
    lines: taken for a PDF's running header, all of them were dropped ("has no text to
    index"). Its passages were cited as pages ("p.2") it does not have."""
    log = tmp_path / "pantry.log"
    log.write_text("".join(f"shelf {n} holds marmalade jars\n" for n in range(1, 131)))
    here = Preparer(embedder.count_tokens, embedder.embed_sparse)
    got = here.prepare(str(log), str(tmp_path / "cache"), known_sha="")
    assert not got.reason, got.message
    text = " ".join(c.text for c in got.chunks)
    assert all(f"shelf {n} holds" in text for n in range(1, 131))
    # each passage by its own lines, which hold its first and last (QA, session 32: two
    # passages of one file were both "lines 1-29", the lines of their block)
    lines = log.read_text().splitlines()
    for c in got.chunks:
        first, last = (int(n) for n in c.location.removeprefix("lines ").split("-"))
        assert c.text.startswith(lines[first - 1]), c.location
        assert c.text.endswith(lines[last - 1]), c.location
    assert len({c.location for c in got.chunks}) == len(got.chunks)
    assert got.chunks[0].location.startswith("lines 1-")
    assert got.chunks[-1].location.endswith("-130")
    # a run of lines with no sentence end, split into pieces, and a word hyphenated
    # across lines: each passage still by its own lines (review, session 32)
    for name, body in [
        (
            "readings.txt",
            "".join(
                f"2024-05-{n // 24 + 1:02d}T{n % 24:02d}:00:00Z,sensor-{n},{20 + n / 2},OK\n"
                for n in range(60)
            ),
        ),
        (
            "hyphen.txt",
            "".join(
                f"Paragraph {n} talks about the docu-\nmentation of shelf {n} and its jars.\n"
                for n in range(1, 120)
            ),
        ),
    ]:
        other = tmp_path / name
        other.write_text(body)
        lines = body.splitlines()
        for c in here.prepare(str(other), str(tmp_path / "cache"), known_sha="").chunks:
            first, last = (int(n) for n in c.location.removeprefix("lines ").split("-"))
            words = c.text.split()
            assert words[0] in lines[first - 1].split(), (name, c.location, words[0])
            assert lines[last - 1].split()[-1] == words[-1], (name, c.location, words[-1])
    # Blank lines before the text are not its lines: its line is the file's fourth.
    note = tmp_path / "note.txt"
    note.write_text("\n\n\nThe pantry holds forty jars of marmalade on the top shelf.\n\n")
    [only] = here.prepare(str(note), str(tmp_path / "cache"), known_sha="").chunks
    assert only.location == "line 4"
    one = tmp_path / "one.txt"
    one.write_text("The pantry holds forty jars of marmalade on the top shelf.")
    [line] = here.prepare(str(one), str(tmp_path / "cache"), known_sha="").chunks
    assert line.location == "line 1"


def test_a_file_saved_while_it_is_read_is_read_again_not_cached_as_the_old_one(
    embedder: Embedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file is read to hash it, then again to extract it: a save in between gave the
    new text to the old content's hash in the text cache, for good (review)."""
    from docent.core.textcache import TextCache, sha256_file

    here = Preparer(embedder.count_tokens, embedder.embed_sparse)
    note, cache = tmp_path / "note.txt", tmp_path / "cache"
    old, new = "The harbour opens at dawn.\n", "The harbour opens at noon.\n"
    note.write_text(old)
    old_sha = sha256_file(note)
    real = Preparer._extract
    saves = [new]  # the user saves once, just after the first hash

    def saved_meanwhile(self: Preparer, *args: object, **kw: object) -> object:
        if saves:  # a save a moment later (same size: only the time tells)
            mtime = note.stat().st_mtime_ns
            note.write_text(saves.pop())
            os.utime(note, ns=(mtime + 10**7, mtime + 10**7))
        return real(self, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(Preparer, "_extract", saved_meanwhile)
    got = here.prepare(str(note), str(cache), known_sha="")
    assert not got.reason and got.sha256 == sha256_file(note) != old_sha
    assert "noon" in got.chunks[0].text
    assert TextCache(cache).get(old_sha) is None  # the old hash holds no one's text

    # saved again at every read: given up, with why, and nothing cached
    note.write_text(old)
    saves[:] = [old, "The harbour opens at dusk.\n"]  # read as dusk, then as dawn
    failed = here.prepare(str(note), str(cache), known_sha="")
    assert failed.reason == "changing" and "kept changing while Docent read it" in failed.message
    assert TextCache(cache).get(old_sha) is None
