"""A question about a page, asked of the real (tiny) model: its answer may be loose, but
what it is offered and what it cites are that page's passages, of the documents the answer
before it cited. Runs when DOCENT_RIG_HOST (or OLLAMA_HOST) is set (CI starts the rig)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rig_helpers import rig_library

from docent.core.conversation import Conversation
from pdf_files import text_pdf

pytestmark = pytest.mark.rig


def pages(topic: str, facts: list[str]) -> list[list[str]]:
    """A page a fact, each filled out to a passage of its own (a short page shares its
    passage with the next)."""
    return [
        [
            fact,
            *(
                f"Line {i} of page {n} of the {topic} notes, kept for the record."
                for i in range(30)
            ),
        ]
        for n, fact in enumerate(facts, 1)
    ]


BOILER = pages(
    "boiler",
    [
        "Chapter 1 describes the burner.",
        "The burner is cleaned every autumn by the service company.",
        "The pressure gauge must read between 1.2 and 1.8 bar when the boiler is cold.",
    ],
)
GARDEN = pages("garden", ["Garden notes.", "The roses are pruned in March.", "Tomatoes need sun."])


def test_and_on_page_3_is_answered_from_page_3_of_the_cited_manual(
    rig_host: str, tmp_path: Path
) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "boiler.pdf").write_bytes(text_pdf(BOILER))
    (src / "garden.pdf").write_bytes(text_pdf(GARDEN))
    (tmp_path / "lib").mkdir()
    eng = rig_library(tmp_path / "lib", sorted(src.iterdir()), rig_host)
    try:
        conv = Conversation()
        first = eng.ask("How often is the burner cleaned?", conversation=conv)
        # whatever the tiny model cited (it cites the garden notes as often as not)
        cited = {c.file_name for c in first.citations}
        assert cited, first.text
        answer = eng.ask("And on page 3?", conversation=conv)
        assert answer.mode in ("generated", "extractive"), answer.text
        assert {h.file_name for h in answer.offered} == cited  # both files have a page 3
        offered = " ".join(h.text for h in answer.offered)
        assert "Line 5 of page 3" in offered and "Line 5 of page 1" not in offered
        assert all(h.page_start <= 3 <= h.page_end for h in answer.offered)
        assert {c.file_name for c in answer.citations} <= cited
        assert all(c.page <= 3 <= c.page_end for c in answer.citations)
    finally:
        eng.close()
