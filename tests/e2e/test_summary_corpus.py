"""Extractive summary of the 311-page gnuplot manual, from the corpus indexed once."""

from __future__ import annotations

import re
import time

from docent.core.engine import Engine
from docent.core.extractive_summary import EMBED_BUDGET, MIN_CANDIDATES
from docent.core.indexer import IndexReport
from docent.core.sectioning import split_sections


def test_extractive_summary_of_a_300_page_manual(
    corpus_engine: tuple[Engine, IndexReport], ollama_down_host: str
) -> None:
    eng, _ = corpus_engine
    saved = eng.settings.ollama_host
    eng.settings.ollama_host = ollama_down_host  # no model: the extractive fallback
    try:
        rec = eng.resolve("gnuplot-doc__gnuplot.pdf")
        assert rec.pages == 311
        before = eng.embedder.texts_embedded
        start = time.monotonic()
        result = eng.summarize(rec.path, type="bullets")
        seconds = time.monotonic() - start
    finally:
        eng.settings.ollama_host = saved
    embedded = eng.embedder.texts_embedded - before
    n = result.sections_processed
    assert n == len(split_sections(eng.extracted(rec).pages, eng.settings.max_words_per_section))
    assert n > 50 and result.mode == "extractive"
    assert embedded <= max(EMBED_BUDGET, MIN_CANDIDATES * n)
    assert sum(1 for s in result.section_summaries if s.summary) > 0.8 * n
    assert len(re.findall(r"[.!?](?:\s|$)", result.summary)) >= 3
    print(f"\ngnuplot extractive bullets: {seconds:.1f} s, {n} sections, {embedded} embedded")
