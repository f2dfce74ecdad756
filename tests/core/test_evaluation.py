"""Retrieval evaluation: keyword overlap, confidence, sufficiency, issues, recommendation."""

from __future__ import annotations

import pytest

from docent.core.evaluation import evaluate_retrieval, keyword_overlap
from docent.core.models import Hit


def hit(
    text: str,
    file_name: str = "manual.pdf",
    similarity: float | None = None,
    before: str = "",
    after: str = "",
) -> Hit:
    h = Hit(
        chunk_id=text[:8],
        doc_id=file_name,
        file_name=file_name,
        path=f"/d/{file_name}",
        page_start=1,
        page_end=1,
        ordinal=0,
        score=0.03,
        text=text,
        context_before=before,
        context_after=after,
    )
    if similarity is not None:
        h.debug["similarity"] = similarity
    return h


def test_keyword_overlap_counts_stemmed_content_words() -> None:
    hits = [hit("Installing packages: the installer copies files.")]
    share, missing = keyword_overlap("How do I install the package files?", hits)
    assert share == 1.0 and missing == []
    share, missing = keyword_overlap("How do I install a printer driver?", hits)
    assert share == pytest.approx(1 / 3) and missing == ["printer", "driver"]


def test_keyword_overlap_uses_neighbour_context_and_identifier_parts() -> None:
    hits = [hit("is.na returns TRUE", after="Missing values are marked NA.")]
    share, missing = keyword_overlap("Which missing values does is.na() flag?", hits)
    assert "missing" not in missing and "is.na" not in missing
    assert share == pytest.approx(3 / 4)  # "flag" is not there


def test_keyword_overlap_of_a_question_without_content_words() -> None:
    assert keyword_overlap("how is it?", [hit("anything")]) == (1.0, [])


def test_a_question_without_words_is_low_whatever_was_found() -> None:
    hits = [hit("The lens is polished every morning to remove soot.", similarity=0.71)]
    for question in ("", "   ", "?!"):
        ev = evaluate_retrieval(question, hits)
        assert (ev.confidence, ev.sufficient) == ("low", False)
        assert ev.issues == ["the question has no words"]


def test_on_topic_hits_are_high_and_sufficient() -> None:
    hits = [
        hit("The lens is polished every morning to remove soot.", similarity=0.71),
        hit("Lamp oil is kept in sealed tins.", "other.pdf", similarity=0.4),
    ]
    ev = evaluate_retrieval("How often is the lens polished?", hits)
    assert (ev.confidence, ev.sufficient) == ("high", True)
    assert ev.keyword_overlap == 1.0 and ev.top_similarity == pytest.approx(0.71)


def test_no_hits_are_low_and_insufficient() -> None:
    ev = evaluate_retrieval("anything at all", [])
    assert (ev.confidence, ev.sufficient, ev.keyword_overlap) == ("low", False, 0.0)
    assert ev.issues == ["nothing was found"] and ev.recommendation


def test_unrelated_hits_are_low_with_a_rephrase_suggestion() -> None:
    hits = [hit("Sourdough starter is fed with flour and water daily.", similarity=0.12)]
    ev = evaluate_retrieval("How do I configure the network printer queue?", hits)
    assert ev.confidence == "low" and not ev.sufficient
    assert any("loosely related" in i for i in ev.issues)
    assert any("printer" in i for i in ev.issues)
    assert ev.recommendation.startswith("Rephrase") and "sourdough" in ev.recommendation


def test_a_term_no_document_mentions_makes_it_low() -> None:
    hits = [hit("Debian packages are signed with a GPG key by the uploader.", similarity=0.45)]
    ev = evaluate_retrieval(
        "How do I sign Debian packages with a YubiKey?", hits, absent_terms=["YubiKey"]
    )
    assert ev.confidence == "low" and not ev.sufficient
    assert "never mention 'YubiKey'" in ev.issues[0]
    assert "YubiKey" in ev.recommendation


def test_an_absent_term_with_otherwise_close_hits_is_medium() -> None:
    """A question may name a detail the documents lack and still be answerable."""
    hits = [hit("To install Debian Edu, boot the installer and pick a profile.", similarity=0.7)]
    ev = evaluate_retrieval(
        "How do I install Debian Edu on a Lenovo?", hits, absent_terms=["Lenovo"]
    )
    assert ev.confidence == "medium" and ev.sufficient
    assert "never mention 'Lenovo'" in ev.issues[0]


def test_medium_when_only_part_of_the_question_is_covered() -> None:
    hits = [hit("Fog signals sound every thirty seconds.", similarity=0.45)]
    ev = evaluate_retrieval("How often do fog horns sound at night?", hits)
    assert ev.confidence == "medium" and ev.sufficient
    assert "horns" in ev.recommendation or "night" in ev.recommendation


def test_recommends_scoping_when_hits_concentrate_in_one_file() -> None:
    hits = [
        hit(f"The lens is polished, step {i}.", "keeper.pdf", similarity=0.7) for i in range(4)
    ] + [hit("The lens of a camera.", "camera.pdf", similarity=0.3)]
    ev = evaluate_retrieval("How is the lens polished?", hits)
    assert ev.confidence == "high"
    assert ev.recommendation.startswith("Most passages come from keeper.pdf")


def test_without_similarity_overlap_decides() -> None:
    good = evaluate_retrieval("lens polished", [hit("The lens is polished.")])
    assert good.confidence == "medium" and good.top_similarity is None
    bad = evaluate_retrieval("printer queue", [hit("The lens is polished.")])
    assert bad.confidence == "low"
