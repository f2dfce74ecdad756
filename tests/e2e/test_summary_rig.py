"""A real summary by a real (tiny) model: ``../shared/llm-rig/start`` serves smollm2:135m.

Runs when DOCENT_RIG_HOST (or OLLAMA_HOST) is set (``rig_host`` in conftest):

    eval "$(../shared/llm-rig/start)" && pytest -m rig tests/e2e/test_summary_rig.py
    ../shared/llm-rig/stop

The model is tiny, so only the shape of the result is checked, not its quality.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from docent.core.config import Settings
from docent.core.engine import Engine
from docent.core.sectioning import split_sections
from docent.core.summarizing import SummaryProgress

RIG_MODEL = "smollm2:135m"
DOCUMENT = "simh__ctss_hardware.pdf"  # 11 pages, ~3,800 words: several sections

pytestmark = pytest.mark.rig


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
