"""Questions about a page: "What is on page 3?", "And on page 2?", "What does page 5 say
about tape?" (QA, sessions 29-30: "page" became the missing word and the page was not
searched).

The answer library (conftest: the 11-page CTSS manual and a 2-page text, FakeEmbedder),
the model down, so every answer is extractive or abstained and names what it searched.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from answer_script import MEMORY_Q, ask, point_at

from docent.core.config import Settings
from docent.core.conversation import Conversation
from docent.core.engine import Engine
from docent.core.models import Hit, part_on_pages
from fake_embedder import FakeEmbedder
from format_files import make_pptx
from pdf_files import text_pdf

CTSS = "simh__ctss_hardware.pdf"


@pytest.fixture
def eng(answer_library: Engine, ollama_down_host: str) -> Engine:
    return point_at(answer_library, ollama_down_host)


def on_page(page: int, first: int, last: int) -> bool:
    return first <= page <= last


def test_a_page_after_an_answer_is_that_page_of_the_documents_it_cited(eng: Engine) -> None:
    """Both documents have a page 2: only the one the answer cited is read."""
    conv = Conversation()
    first, _ = ask(eng, MEMORY_Q, conversation=conv)
    assert {c.file_name for c in first.citations} == {CTSS}
    answer, _ = ask(eng, "And on page 2?", conversation=conv)
    assert answer.mode == "extractive" and answer.citations
    assert {c.file_name for c in answer.citations} == {CTSS}
    assert all(on_page(2, c.page, c.page_end) for c in answer.citations)
    # not a follow-up searched with the last question's words: the page, as asked
    assert answer.query == "And on page 2?"
    # nor after an answer that found nothing: the documents of the one before it
    nothing, _ = ask(eng, "What is on page 90?", conversation=conv)
    assert nothing.mode == "abstained"
    again, _ = ask(eng, "What is on page 2?", conversation=conv)
    assert {c.file_name for c in again.citations} == {CTSS}
    assert all(on_page(2, c.page, c.page_end) for c in again.citations)


def test_a_page_no_document_has_is_said_so(eng: Engine) -> None:
    conv = Conversation()
    ask(eng, MEMORY_Q, conversation=conv)
    answer, _ = ask(eng, "What is on page 90?", conversation=conv)
    assert answer.mode == "abstained" and answer.citations == []
    assert f"in {CTSS}." in answer.text  # where it looked: the cited document
    assert "No document searched has page 90" in answer.text


def test_a_page_question_with_words_ranks_that_pages_passages(eng: Engine) -> None:
    result = eng.search("What does page 2 say about the memory?")
    assert result.hits
    assert all(on_page(2, h.page_start, h.page_end) for h in result.hits)
    # both documents have a page 2; the question's words put the manual's first
    assert result.hits[0].file_name == CTSS and "page" not in result.query


def test_text_files_have_no_pages_to_ask_about(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.txt").write_text("\n".join(f"line {i} of the notes" for i in range(200)))
    (docs / "tiny.pdf").write_bytes(text_pdf([["A first page."], ["The boiler is on page two."]]))
    settings = Settings(data_dir=str(tmp_path / "data"), extract_in_subprocess=False)
    with Engine(settings, embedder=FakeEmbedder()).open() as eng:
        report = eng.index([docs])
        assert len(report.indexed) == 2
        hits = eng.search("What is on page 2?").hits
        assert [h.file_name for h in hits] == ["tiny.pdf"] and on_page(
            2, hits[0].page_start, hits[0].page_end
        )
        deck = docs / "harbour.pptx"
        make_pptx(deck)
        assert len(eng.index([deck]).indexed) == 1
        # a deck's pages are its slides; "slide 2" is a deck's only
        for question in ("What is on slide 2?", "What does page 2 of harbour.pptx say?"):
            found = eng.search(question)
            assert {(h.file_name, h.location) for h in found.hits} == {("harbour.pptx", "slide 2")}
            assert found.sufficient, question  # the name is no word the page must hold
        none = eng.search("What is on page 3 of notes.txt?")
        assert none.hits == [] and none.evaluation is not None
        assert none.evaluation.recommendation.startswith("notes.txt has no pages to ask about")
        assert "(it is read as 4 blocks of lines)" in none.evaluation.recommendation
        # a page past the end of the document named: how many it has (QA, session 31)
        past = eng.search("What is on page 9 of tiny.pdf?")
        assert past.hits == [] and past.evaluation is not None
        assert past.evaluation.recommendation.startswith("tiny.pdf has 2 pages")
        # no document named: which kind of document has pages
        unnamed = eng.search("What is on page 90?")
        assert unnamed.evaluation is not None
        assert "only PDFs and slide decks have pages" in unnamed.evaluation.recommendation


def test_a_cited_document_removed_since_is_left_out_of_the_page_asked(
    tmp_path: Path, ollama_down_host: str
) -> None:
    """One cited document removed between the turns made the whole search fail over to
    the library (review, session 31): the others are read."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("boiler", "burner"):
        pages = [[f"The {name} manual."], [f"The {name} is cleaned in autumn."], ["Notes."]]
        (docs / f"{name}.pdf").write_bytes(text_pdf(pages))
    (docs / "garden.pdf").write_bytes(text_pdf([["Roses."], ["Tomatoes."], ["Beans."]]))
    settings = Settings(data_dir=str(tmp_path / "data"), extract_in_subprocess=False)
    with Engine(settings, embedder=FakeEmbedder()).open() as opened:
        assert len(opened.index([docs]).indexed) == 3
        eng = point_at(opened, ollama_down_host)
        conv = Conversation()
        first, _ = ask(
            eng,
            "When are the boiler and the burner cleaned?",
            conversation=conv,
            files=["boiler.pdf", "burner.pdf"],
        )
        assert {c.file_name for c in first.citations} == {"boiler.pdf", "burner.pdf"}
        eng.remove(str(docs / "burner.pdf"))
        answer, _ = ask(eng, "What is on page 2?", conversation=conv)
        assert {c.file_name for c in answer.citations} == {"boiler.pdf"}


def test_the_document_a_page_question_names_by_its_file_name() -> None:
    from docent.core.lookup import named_by
    from docent.core.models import DocumentRecord

    names = [
        "r-doc-pdf__R-intro.pdf",
        "r-doc-pdf__R-data.pdf",
        "debian-reference-en__debian-reference.en.pdf",
        "debian-edu-doc-en__debian-edu-bookworm-manual.pdf",
        "simh__ctss_hardware.pdf",
    ]
    records = [DocumentRecord(doc_id=n, path=f"/c/{n}", file_name=n) for n in names]

    def named(phrase: str) -> list[str]:
        return [r.file_name for r in named_by(phrase, records)]

    assert named("R-intro") == named("the R intro") == ["r-doc-pdf__R-intro.pdf"]
    assert named("the Debian reference") == ["debian-reference-en__debian-reference.en.pdf"]
    assert named("the CTSS hardware description") == ["simh__ctss_hardware.pdf"]
    assert named("the manual") == [] and named("the gnuplot manual") == []


def test_a_passage_running_onto_the_page_asked_is_cut_to_that_page(tmp_path: Path) -> None:
    """Short pages make one passage of several: "What is on page 4?" was answered with
    page 3's sentence, cited "pp.3-4" (QA, session 32)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    pages = [
        ["Heron quarterly report."],
        ["Team Alpha spent the hardware budget on sensors."],
        ["Team Beta finished the inventory sync prototype in June."],
        ["Decisions: the migration dry run moves to October."],
    ]
    (docs / "report.pdf").write_bytes(text_pdf(pages))
    settings = Settings(data_dir=str(tmp_path / "data"), extract_in_subprocess=False)
    with Engine(settings, embedder=FakeEmbedder()).open() as eng:
        assert len(eng.index([docs]).indexed) == 1
        whole = eng.search("prototype migration dry run").hits
        assert [(h.page_start, h.page_end) for h in whole] == [(1, 4)]  # one passage
        for question in ("What is on page 4?", "What does page 4 say about the migration?"):
            hits = eng.search(question).hits
            assert hits, question
            for hit in hits:
                assert (hit.page_start, hit.page_end, hit.page_breaks) == (4, 4, ()), question
                assert "prototype" not in hit.text and "dry run" in hit.text, question
        both = eng.search("What is on pages 3 and 4?").hits
        assert any((h.page_start, h.page_end) == (3, 4) for h in both)


def test_part_on_pages() -> None:
    two, three, four = (
        "The end of page two says little.",
        "All of page three is in this passage.",
        "Start",
    )
    text = f"{two}\n{three}\n{four}"
    breaks = ((3, len(two) + 1), (4, len(two) + len(three) + 2))
    hit = Hit("c", "d", "f.pdf", "/f.pdf", 2, 4, 0, 1.0, text, page_breaks=breaks)
    on_three = part_on_pages(hit, [(3, 3)])
    assert on_three is not None
    assert (on_three.text, on_three.page_start, on_three.page_end, on_three.page_breaks) == (
        three,
        3,
        3,
        (),
    )
    late = part_on_pages(hit, [(3, 9)])
    assert late is not None and late.text == f"{three}\n{four}"
    assert late.page_breaks == ((4, len(three) + 1),) and (late.page_start, late.page_end) == (3, 4)
    # pages 2 and 4 asked: page 3 between them is kept, as the label "pp.2-4" says
    assert part_on_pages(hit, [(2, 2), (4, 4)]) is hit
    # next to nothing on the page asked: no answer from it (review, session 32)
    assert part_on_pages(hit, [(4, 4)]) is None
    assert part_on_pages(hit, [(1, 9)]) is hit and part_on_pages(hit, [(7, 7)]) is hit
