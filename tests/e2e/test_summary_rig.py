"""A real summary by a real (tiny) model: ``../shared/llm-rig/start`` serves smollm2:135m.

Runs when DOCENT_RIG_HOST (or OLLAMA_HOST) is set (``rig_host`` in conftest):

    eval "$(../shared/llm-rig/start)" && pytest -m rig tests/e2e/test_summary_rig.py
    ../shared/llm-rig/stop

The model is tiny, so its wording is not checked; what is checked is what Docent promises
whatever the model writes: every section has a summary, from the model or extracted and
labelled so, the final summary says how many of each, and nothing degenerate gets
through (no repeated line, not a list of the document's name, words from the document).
The document is in the repo (resources/samples).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from docent.core.config import Settings
from docent.core.engine import Engine
from docent.core.sectioning import split_sections
from docent.core.summarizing import SummaryProgress, retrieval_text
from docent.core.summary_budget import section_words
from docent.core.summary_quality import rejection, repeated_line

RIG_MODEL = "smollm2:135m"
DOCUMENT = "simh__ctss_hardware.pdf"  # 11 pages, ~3,800 words: several sections

pytestmark = pytest.mark.rig


def test_a_real_model_summarises_a_real_pdf_without_degenerate_output(
    rig_host: str, samples_dir: Path, tmp_path: Path
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
        assert not eng.index([samples_dir / DOCUMENT]).failed
        rec = eng.resolve(DOCUMENT)
        doc = eng.extracted(rec)
        sections = split_sections(doc.pages, section_words(settings))
        assert len(sections) >= 2
        events: list[SummaryProgress] = []
        result = eng.summarize(DOCUMENT, type="brief", progress=events.append)

        assert result.mode == "generated", result.summary
        assert result.model == RIG_MODEL and not result.cached
        n = len(sections)
        assert result.sections_processed == n
        assert [s.section for s in result.section_summaries] == list(range(1, n + 1))
        text = " ".join(p.text for p in doc.pages)
        for part in result.section_summaries:
            assert part.source in ("model", "extracted")
            assert (
                rejection(part.summary, sections[part.section - 1].text, DOCUMENT) == ""
                or (
                    part.source == "extracted"  # extracted sentences are the section's own
                    and part.note
                    and all(w in text for w in part.summary.split()[:6])
                )
            ), part
        assert result.model_sections + result.extracted_sections == n
        assert result.calls >= n + 1  # a call per section and the synthesis, at least
        label = re.search(
            r"_Sections: (\d+) of (\d+) summarised by the model, (\d+) extracted", result.summary
        )
        assert label is not None, result.summary
        assert [int(g) for g in label.groups()] == [
            result.model_sections,
            n,
            result.extracted_sections,
        ]
        body = retrieval_text(result)
        assert repeated_line(body) == "", body
        assert rejection(body, text, DOCUMENT) == "", body
        mapping = [e for e in events if e.phase == "section"]
        assert [e.step for e in mapping] == list(range(1, n + 1))
        assert [e.sections_done for e in mapping] == list(range(n))
        assert all(e.seconds_left is not None for e in mapping[1:])
        assert events[-1].phase == "done"
        if not result.failed_sections:
            payload = eng.store.get_document(rec.doc_id) if eng.store else None
            assert payload is not None and payload["summary"].strip()
