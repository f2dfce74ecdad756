"""Retrieval on the whole real corpus: questions written for this test (not the dev set)
land on their page in the top 5; scope, grep and abstention behave on real documents."""

from __future__ import annotations

import pytest

from docent.core.engine import Engine
from docent.core.indexer import IndexReport

#: (question, file, pages holding the answer). Paraphrased on purpose: few share the
#: page's own words.
QUESTIONS = [
    ("Why is the sparse solver called KLU?", "libsuitesparse-doc__KLU_UserGuide.pdf", {5}),
    ("Where does the name Debian come from?", "debian-history__project-history.en.pdf", {7}),
    (
        "Why does gp print nothing when my input line ends with a semicolon?",
        "pari-doc__tutorial.pdf",
        {4},
    ),
    (
        "How do I snapshot the whole simulator, memory and registers included, to a file "
        "and load it back later?",
        "simh__simh_doc.pdf",
        {7},
    ),
    (
        "How do I download the source of an old Debian package version that is no longer "
        "in the archive?",
        "packaging-tutorial__packaging-tutorial.pdf",
        {14},
    ),
    (
        "How do I get commercial DVDs to play on Debian Edu machines?",
        "debian-edu-doc-en__debian-edu-bookworm-manual.pdf",
        {85},
    ),
]


def on_page(hit_file: str, start: int, end: int, file: str, pages: set[int]) -> bool:
    return hit_file == file and any(start <= p <= end for p in pages)


@pytest.mark.parametrize(("question", "file", "pages"), QUESTIONS)
def test_question_lands_on_its_page_in_the_top_5(
    corpus_engine: tuple[Engine, IndexReport], question: str, file: str, pages: set[int]
) -> None:
    eng, _ = corpus_engine
    res = eng.search(question)
    top = [(h.file_name, h.page_start, h.page_end) for h in res.hits[:5]]
    assert any(on_page(f, a, b, file, pages) for f, a, b in top), top
    assert res.sufficient and res.confidence in ("high", "medium")
    assert res.k == 25  # thousands of chunks: adaptive k at its cap
    assert all(h.context_before or h.context_after for h in res.hits[:5])


def test_scope_to_one_file_by_name(corpus_engine: tuple[Engine, IndexReport]) -> None:
    eng, _ = corpus_engine
    res = eng.search("Which encoding should I use for files meant for Windows?", files=["R-data"])
    assert {h.file_name for h in res.hits} == {"r-doc-pdf__R-data.pdf"}
    assert 10 in {p for h in res.hits[:5] for p in range(h.page_start, h.page_end + 1)}


def test_a_question_the_corpus_cannot_answer_is_low(
    corpus_engine: tuple[Engine, IndexReport],
) -> None:
    eng, _ = corpus_engine
    res = eng.search("How do I configure horizontal pod autoscaling in Kubernetes?")
    assert res.confidence == "low" and not res.sufficient
    assert res.evaluation is not None and res.evaluation.recommendation


def test_grep_on_real_documents(corpus_engine: tuple[Engine, IndexReport]) -> None:
    eng, _ = corpus_engine
    matches = eng.grep("INFOMAGIC")
    assert matches and all("infomagic" in m.line.lower() for m in matches)
    assert {m.file_name for m in matches} >= {"debian-history__project-history.en.pdf"}
    assert len(eng.grep("the")) == 100
