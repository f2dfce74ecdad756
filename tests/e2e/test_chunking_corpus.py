"""chunk_pages() on the longest manual of the corpus (R-intro, 100+ pages): every chunk
fits the model, every page is covered, and the dev questions' evidence lands in a chunk
that cites its page. tests/core/test_chunking.py proves the same on a manual in
resources/samples."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from tokenizers import Tokenizer

from docent.core.chunking import chunk_pages
from docent.core.models import ExtractedDocument

REPO = Path(__file__).resolve().parents[2]
TOKENIZER = REPO / "resources" / "models" / "all-MiniLM-L6-v2-int8" / "tokenizer.json"
INTRO = "r-doc-pdf__R-intro.pdf"

Counter = Callable[[str], int]


@pytest.fixture(scope="module")
def count_tokens() -> Counter:
    tok = Tokenizer.from_file(str(TOKENIZER))
    tok.no_truncation()
    tok.no_padding()
    return lambda text: len(tok.encode(text, add_special_tokens=True).ids)


def ws(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@pytest.fixture(scope="module")
def intro(extracted_corpus: Callable[[str], ExtractedDocument]) -> ExtractedDocument:
    return extracted_corpus(INTRO)


def test_r_intro_chunks_fit_the_model_and_cover_every_page(
    intro: ExtractedDocument, count_tokens: Counter
) -> None:
    measured: list[int] = []

    def counting(text: str) -> int:
        measured.append(len(text))
        return count_tokens(text)

    chunks = chunk_pages(intro.pages, counting)
    assert len(chunks) > 200
    for c in chunks:
        assert count_tokens(c.text) <= 240, c.text
        assert len(c.text.split()) <= 220
        assert 1 <= c.page_start <= c.page_end <= len(intro.pages)
    covered = {p for c in chunks for p in range(c.page_start, c.page_end + 1)}
    with_text = {p.number for p in intro.pages if len(p.text.split()) >= 15}
    assert with_text <= covered
    # The tokenizer is the cost: it reads the text about once, not once per candidate.
    assert sum(measured) < 1.6 * sum(len(p.text) for p in intro.pages)


def test_r_intro_evidence_lands_in_a_chunk_citing_its_page(
    intro: ExtractedDocument, count_tokens: Counter, corpus_dir: Path
) -> None:
    chunks = chunk_pages(intro.pages, count_tokens)
    lines = (corpus_dir.parent / "dev-questions.jsonl").read_text().splitlines()
    questions = [q for q in map(json.loads, filter(None, lines)) if q["file"] == INTRO]
    assert len(questions) >= 4
    for q in questions:
        holders = [c for c in chunks if ws(q["evidence"]) in ws(c.text)]
        assert holders, q["id"]
        assert any(c.page_start <= q["pages"][0] <= c.page_end for c in holders), q["id"]
