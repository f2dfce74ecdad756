"""A real summary by a real (tiny) model: ``../shared/llm-rig/start`` serves smollm2:135m.

Runs when DOCENT_RIG_HOST (or OLLAMA_HOST) is set (``rig_host`` in conftest):

    eval "$(../shared/llm-rig/start)" && pytest -m rig tests/e2e/test_summary_rig.py
    ../shared/llm-rig/stop

The model is tiny, so its wording is not checked; what is checked is what Docent promises
whatever the model writes: every section has a summary, from the model or extracted and
labelled so, the final summary says how many of each, and nothing degenerate gets
through (no repeated line, not a list of the document's name, words from the document).
The document is written by the test (a short history, three sections): on a busy 2-core
machine the tiny model reads ~15 prompt tokens a second, so a longer one takes many
minutes; ``benchmarks/summary_eval.py`` runs the corpus documents.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rig_helpers import RIG_MODEL

from docent.core.config import Settings
from docent.core.engine import Engine
from docent.core.sectioning import split_sections
from docent.core.summarizing import SummaryProgress, retrieval_text
from docent.core.summary_budget import section_words
from docent.core.summary_quality import rejection, repeated_line

DOCUMENT = "harbour-history.md"
HISTORY = """# The Kestrel Harbour Lighthouse Society

## Founding

The Kestrel Harbour Lighthouse Society was founded in March 1911 by Agnes Moberly, a
schoolteacher, and Tobias Wren, a retired ship's carpenter. The old lighthouse on Gull
Point had been dark since a storm in 1908 wrecked its lantern room. Moberly raised money
from the fishing families of the harbour, who had lost two boats on the rocks in the
dark winters. Wren drew the plans for a new lantern room of iron and glass. The society
held its first meeting in the chapel hall with forty-two members, and each member paid
one shilling a year. By the autumn of 1912 the new lantern was lit with a paraffin lamp
and a lens bought second-hand from a lighthouse in Scotland.

## The war years

During the First World War the harbour was used by minesweepers, and the navy ordered
the light to be dimmed on most nights. Agnes Moberly kept a logbook of every ship that
entered the harbour between 1914 and 1918; the logbook survives in the county archive.
Tobias Wren died in 1916, and his nephew Samuel Wren became the keeper. In 1917 a German
submarine was reported near the point, and the light was put out for eleven weeks. After
the war the society paid for a memorial stone for the eight fishermen of the harbour who
were lost at sea. Membership fell to nineteen in 1919, because many families had moved
to the city to work in the factories.

## Electric light and after

In 1934 the society replaced the paraffin lamp with an electric light powered by a
diesel generator, after a long argument about the cost. The new light could be seen
twenty-two kilometres out to sea. Samuel Wren kept the light until 1952, when he handed
the keys to Margaret Ellery, the first woman keeper on that coast. Ellery wrote a short
history of the society for its fiftieth year in 1961. In 1978 the coast guard took over
the running of the light and made it automatic, and the society became a museum trust.
Today the museum in the keeper's cottage shows the second-hand Scottish lens, the 1914
logbook, and a model of the iron lantern room that Tobias Wren designed.
"""

pytestmark = pytest.mark.rig


def test_a_real_model_summarises_a_document_without_degenerate_output(
    rig_host: str, tmp_path: Path
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / DOCUMENT).write_text(HISTORY, encoding="utf-8")
    settings = Settings(
        data_dir=str(tmp_path / "home"),
        extract_in_subprocess=False,
        ollama_host=rig_host,
        ollama_model=RIG_MODEL,
        max_words_per_section=250,  # three sections
        summary_timeout_per_call=600,
        summary_timeout_total=1800,
    )
    with Engine(settings) as eng:
        assert not eng.index([folder / DOCUMENT]).failed
        rec = eng.resolve(DOCUMENT)
        doc = eng.extracted(rec)
        sections = split_sections(doc.pages, section_words(settings))
        assert len(sections) >= 3
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
        # the model's sentences are checked against the document; what it does not say
        # is named (and shown), and left out of what the document is searched by
        assert result.unsupported is not None
        assert all(s in result.summary for s in result.unsupported), result.unsupported
        body = retrieval_text(result)
        assert not any(s in body for s in result.unsupported), body
        assert repeated_line(body) == "", body
        assert not body or rejection(body, text, DOCUMENT) == "", body
        mapping = [e for e in events if e.phase == "section"]
        assert [e.step for e in mapping] == list(range(1, n + 1))
        assert [e.sections_done for e in mapping] == list(range(n))
        assert all(e.seconds_left is not None for e in mapping[1:])
        assert events[-1].phase == "done"
        if not result.failed_sections and body:
            payload = eng.store.get_document(rec.doc_id) if eng.store else None
            assert payload is not None and payload["summary"].strip()
