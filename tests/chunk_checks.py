"""What chunking must hold on any real document, checked the same way on the repo's sample
manual (tests/core/test_chunking.py) and on the corpus's R-intro (tests/e2e)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from tokenizers import Tokenizer

from docent.core.chunking import chunk_pages
from docent.core.models import Chunk, ExtractedDocument

TOKENIZER = (
    Path(__file__).resolve().parents[1]
    / "resources"
    / "models"
    / "all-MiniLM-L6-v2-int8"
    / "tokenizer.json"
)
Counter = Callable[[str], int]


def model_token_counter() -> Counter:
    """Tokens as the bundled model counts them (special tokens included)."""
    tok = Tokenizer.from_file(str(TOKENIZER))
    tok.no_truncation()
    tok.no_padding()
    return lambda text: len(tok.encode(text, add_special_tokens=True).ids)


def ws(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def chunks_fit_and_cover(
    doc: ExtractedDocument, count_tokens: Counter
) -> tuple[list[Chunk], set[int]]:
    """Chunk ``doc`` and check every chunk fits the model (240 tokens, 220 words) and names
    pages it has, every page with text is covered, and the tokenizer read the text about
    once (not once per candidate). Returns the chunks and the pages with text."""
    measured: list[int] = []

    def counting(text: str) -> int:
        measured.append(len(text))
        return count_tokens(text)

    chunks = chunk_pages(doc.pages, counting)
    for c in chunks:
        assert count_tokens(c.text) <= 240, c.text
        assert len(c.text.split()) <= 220
        assert 1 <= c.page_start <= c.page_end <= len(doc.pages)
    covered = {p for c in chunks for p in range(c.page_start, c.page_end + 1)}
    with_text = {p.number for p in doc.pages if len(p.text.split()) >= 15}
    assert with_text <= covered
    assert sum(measured) < 1.6 * sum(len(p.text) for p in doc.pages)
    return chunks, with_text


def assert_cited_on_its_page(chunks: list[Chunk], evidence: str, page: int) -> None:
    """Some chunk holds ``evidence`` whole, and one of those cites ``page``."""
    holders = [c for c in chunks if ws(evidence) in ws(c.text)]
    assert holders, evidence
    assert any(c.page_start <= page <= c.page_end for c in holders), (page, evidence)
