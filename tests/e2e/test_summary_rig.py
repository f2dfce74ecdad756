"""A real summary by a real (tiny) model: ``../shared/llm-rig/start`` serves smollm2:135m.

Runs only when DOCENT_RIG_HOST (or OLLAMA_HOST) answers and lists ``smollm2:135m``:

    eval "$(../shared/llm-rig/start)" && pytest -m rig tests/e2e/test_summary_rig.py
    ../shared/llm-rig/stop

The model is tiny, so only the shape of the result is checked, not its quality.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from docent.core.config import Settings
from docent.core.engine import Engine
from docent.core.llm import OllamaClient
from docent.core.sectioning import split_sections
from docent.core.summarizing import SummaryProgress

RIG_MODEL = "smollm2:135m"
# Read at import: the autouse _isolated_home fixture removes OLLAMA_HOST for each test.
RIG_HOST = os.environ.get("DOCENT_RIG_HOST") or os.environ.get("OLLAMA_HOST") or ""
DOCUMENT = "simh__ctss_hardware.pdf"  # 11 pages, ~3,800 words: several sections

pytestmark = pytest.mark.rig


@pytest.fixture(scope="module")
def rig_host() -> str:
    if not RIG_HOST:
        pytest.skip("no LLM rig: set DOCENT_RIG_HOST or OLLAMA_HOST (../shared/llm-rig/start)")
    client = OllamaClient(RIG_HOST, RIG_MODEL, 2.0, first_token_timeout=60, total_timeout=60)
    try:
        health = client.health(timeout=3.0)
    finally:
        client.close()
    if not health.ok:
        pytest.skip(f"no LLM rig with {RIG_MODEL} at {RIG_HOST}: {health.message}")
    return RIG_HOST


def test_a_real_model_summarises_a_real_pdf(
    rig_host: str, corpus_dir: Path, tmp_path: Path
) -> None:
    settings = Settings(
        data_dir=str(tmp_path / "home"),
        extract_in_subprocess=False,
        ollama_host=rig_host,
        ollama_model=RIG_MODEL,
        max_words_per_section=1500,  # the rig serves a 4,096-token context
        summary_timeout_per_call=240,
        summary_timeout_total=1800,
    )
    with Engine(settings) as eng:
        assert not eng.index([corpus_dir / DOCUMENT]).failed
        rec = eng.resolve(DOCUMENT)
        sections = split_sections(eng.extracted(rec).pages, settings.max_words_per_section)
        assert len(sections) >= 2
        events: list[SummaryProgress] = []
        result = eng.summarize(DOCUMENT, type="brief", progress=events.append)

        assert result.mode == "generated", result.summary
        assert result.model == RIG_MODEL and not result.cached
        assert result.summary.strip()
        assert result.sections_processed == len(sections)
        summarised = {s.section for s in result.section_summaries}
        failed = {f.section for f in result.failed_sections if f.section}
        assert summarised | failed == set(range(1, len(sections) + 1))
        assert summarised, result.failed_sections
        steps = [e.step for e in events if e.phase == "section"]
        assert steps == list(range(1, len(sections) + 1))
        assert events[-1].phase == "done"
        if not result.failed_sections:
            assert eng.summarize(DOCUMENT, type="brief").cached
            payload = eng.store.get_document(rec.doc_id) if eng.store else None
            assert payload is not None and payload["summary"].strip()
