"""A citation of a passage that runs over two pages opens the page its cited part is on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from answer_script import MODEL, ScriptedModel

from docent.core.answering import Answerer
from docent.core.config import Settings
from docent.core.focus import focus_page, focused, page_parts
from docent.core.llm import OllamaClient
from docent.core.models import Hit
from docent.core.retrieval import SearchResult
from ollama_stub import OllamaStub

FOOT = "The pump is started from the control panel. Its switch is red."  # end of p.4
HEAD = (
    "The pressure relief valve opens at six bar and closes again at five bar. "
    "It must be checked once a year by a qualified fitter."
)  # top of p.5


def spanning(n: int = 1, text_first: str = FOOT, text_next: str = HEAD) -> Hit:
    text = f"{text_first}\n{text_next}"
    return Hit(
        chunk_id=f"c{n}",
        doc_id="d",
        file_name="pump.pdf",
        path="/docs/pump.pdf",
        page_start=4,
        page_end=5,
        ordinal=n,
        score=1.0,
        text=text,
        page_breaks=((5, len(text_first) + 1),),
    )


def test_the_pages_of_a_passage_hold_their_own_parts() -> None:
    assert page_parts(spanning()) == [(4, FOOT), (5, HEAD)]


def test_the_page_a_sentence_copies_from_is_the_one_opened() -> None:
    hit = spanning()
    assert focus_page(hit, ["The relief valve opens at six bar."]) == 5
    assert focus_page(hit, ["It is started from the control panel."]) == 4
    # words shared, nothing copied in a row: still the page that holds them
    assert focus_page(hit, ["A fitter checks the valve yearly."]) == 5
    # nothing to go by, or a passage on one page: its first page
    assert focus_page(hit, ["Penguins."]) == 4
    assert focus_page(hit, []) == 4
    one_page = Hit("c", "d", "a.pdf", "/a.pdf", 2, 2, 0, 1.0, HEAD)
    assert focus_page(one_page, ["The valve opens at six bar."]) == 2


def test_only_citations_of_spanning_passages_change() -> None:
    from docent.core.citations import citations_for
    from docent.core.evaluation import SentenceSupport

    flat = Hit("c9", "d", "a.pdf", "/a.pdf", 7, 7, 0, 1.0, HEAD)
    offered = [spanning(1), flat]
    support = [SentenceSupport("The valve opens at six bar.", (1,), 0.9, True)]
    cites = focused(citations_for([1], offered, matched=[2]), offered, support, "valve")
    assert [(c.n, c.page, c.focus_page, c.opens_at) for c in cites] == [(1, 4, 5, 5), (2, 7, 0, 7)]
    assert cites[0].where == "pp.4-5, cited part on p.5"
    assert cites[0].as_dict()["focus_page"] == 5
    assert cites[1].where == "p.7"


def test_a_quote_opens_the_page_it_starts_on() -> None:
    from docent.core.focus import quoted_page

    # a table's rows run together as one long "sentence" from the foot of p.4 onto p.5
    rows = "SHOW RQ TYPE show drive type"
    hit = spanning(1, f"Other commands. {rows}", " ".join([rows.lower()] * 12) + ".")
    assert quoted_page(hit, "show the drive type") == 4
    assert quoted_page(spanning(), "When is the relief valve checked by a fitter?") == 5
    assert quoted_page(spanning(), "What colour is the pump's switch?") == 4


def _answerer(stub: OllamaStub, tmp_path: Path, hits: list[Hit]) -> Answerer:
    settings = Settings.model_validate(
        {"data_dir": str(tmp_path), "ollama_host": stub.url, "ollama_model": MODEL}
    )
    llm = OllamaClient(stub.url, MODEL, 1.0, 5.0, 10.0)
    result = SearchResult("When does the relief valve open?", hits, confidence="high")
    return Answerer(llm, settings, lambda query, rewrites: result)


def test_a_generated_answer_opens_the_page_it_copied_from(
    ollama_stub: OllamaStub, tmp_path: Path
) -> None:
    model = ScriptedModel(answer="The pressure relief valve opens at six bar and closes again.")
    ollama_stub.responder = model
    answer = _answerer(ollama_stub, tmp_path, [spanning(1)]).answer(
        "When does the relief valve open?"
    )
    assert answer.mode == "generated" and not answer.unsupported_answer, answer.text
    (c,) = answer.citations
    assert (c.source, c.page, c.page_end, c.opens_at) == ("matched", 4, 5, 5)


def test_a_quoted_passage_opens_the_page_of_its_quote(
    ollama_stub: OllamaStub, tmp_path: Path
) -> None:
    # the model invents: the answer quotes the passage, from its sentence nearest the
    # question (on p.5), and the chip opens there
    ollama_stub.responder = ScriptedModel(answer="Penguins carry the moon in a red basket.")
    answer = _answerer(ollama_stub, tmp_path, [spanning(1)]).answer(
        "When is the relief valve checked by a fitter?"
    )
    assert answer.unsupported_answer, answer.text
    (c,) = answer.citations
    assert (c.source, c.opens_at) == ("retrieved", 5)
    assert c.where == "pp.4-5, closest part on p.5"
    # the quote's header in the answer names that page too, as the chip's tooltip does
    assert f"[1] {c.file_name}, pp.4-5, closest part on p.5:" in answer.text


def test_grep_names_the_page_a_match_is_on_in_a_passage_over_two(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from docent.cli import main
    from pdf_files import text_pdf

    first = [
        "Chapter 3. Running the pump.",
        "The pump is started from the control panel beside the tank.",
        "Its switch is red and it lights up while the motor runs.",
        "Turn it off before opening the cover of the housing.",
    ]
    second = [
        "The pressure relief valve opens at six bar and closes again at five bar.",
        "It must be checked once a year by a qualified fitter.",
    ]
    (tmp_path / "pump.pdf").write_bytes(text_pdf([first, second]))
    assert main(["index", str(tmp_path / "pump.pdf")]) == 0
    capsys.readouterr()
    assert main(["search", "pump relief valve", "--json"]) == 0
    out = capsys.readouterr().out
    hits = json.loads(out)["hits"]
    assert [(h["page_start"], h["page_end"]) for h in hits] == [(1, 2)], out  # one passage
    assert main(["grep", "relief valve"]) == 0
    assert "pump.pdf p.2: " in capsys.readouterr().out
    assert main(["grep", "control panel"]) == 0
    assert "pump.pdf p.1: " in capsys.readouterr().out


def test_a_text_files_passages_are_cited_by_lines_with_no_page_to_open() -> None:
    from docent.core.models import Page
    from docent.core.preparing import chunk_document

    lines = [
        f"Entry {i}: the harbour master logged lamp oil in storehouse {i}." for i in range(150)
    ]
    blocks = [Page(b + 1, "\n".join(lines[b * 60 : b * 60 + 60])) for b in range(3)]
    chunks = chunk_document(blocks, lambda text: len(text.split()) + 2, lines_per_page=60)
    spanning = [c for c in chunks if c.page_start < c.page_end]
    assert spanning, "no passage runs over two blocks: the test shows nothing"
    assert all(c.location.startswith("lines ") and c.page_breaks == () for c in chunks)
