"""`docent ask`: streamed text then citations, or --json; against the stand-in Ollama."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from answer_script import (
    INVENTION,
    GoesOnFromTheOpening,
    InventsFirst,
    InventsThenCounts,
    ScriptedModel,
)

from docent.cli import main
from ollama_stub import OllamaStub

QUESTION = "How many pages does the LibreOffice Writer test text have?"
DOC = "forensics-samples-files__a-text.pdf"


@pytest.fixture
def indexed(samples_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCENT_EXTRACT_IN_SUBPROCESS", "0")
    assert main(["index", "-q", str(samples_dir / DOC)]) == 0


def use_host(monkeypatch: pytest.MonkeyPatch, host: str) -> None:
    monkeypatch.setenv("DOCENT_OLLAMA_HOST", host)
    monkeypatch.setenv("DOCENT_OLLAMA_MODEL", "stub-model:latest")


def indexed_note(
    folder: Path, name: str, text: str, monkeypatch: pytest.MonkeyPatch, host: str
) -> None:
    """Index a Markdown note of ``text`` made here, and point ``docent`` at ``host``."""
    monkeypatch.setenv("DOCENT_EXTRACT_IN_SUBPROCESS", "0")
    note = folder / name
    note.write_text(text, encoding="utf-8")
    assert main(["index", "-q", str(note)]) == 0
    use_host(monkeypatch, host)


def test_ask_streams_then_lists_citations(
    indexed: None,
    ollama_stub: OllamaStub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    use_host(monkeypatch, ollama_stub.url)
    ollama_stub.responder = ScriptedModel(cite="[1][5]")
    capsys.readouterr()
    assert main(["ask", QUESTION, "--file", "a-text"]) == 0
    out, err = capsys.readouterr()
    answer, _, listing = out.partition("\nCitations:\n")
    assert answer.strip().startswith("This is a text from LibreOffice Writer")
    assert f"  [1] {DOC} pp.1-2  (" in listing
    # under the citations: the window's footer, in its words (answer_notes.notes)
    assert "Dropped citation [5]: the model cited a passage it was not given." in listing
    assert "\nAnswered by stub-model:latest" in listing and "confidence." in listing
    assert "[generated, confidence" in err


def test_ask_lists_the_sentences_nothing_supports_under_what_is_wrong(
    indexed: None,
    ollama_stub: OllamaStub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    use_host(monkeypatch, ollama_stub.url)
    invention = "The lunar rover carried twelve penguins to Jupiter in a basket."
    ollama_stub.responder = ScriptedModel(extra=[invention])
    capsys.readouterr()
    assert main(["ask", QUESTION, "--file", "a-text"]) == 0
    out = capsys.readouterr().out
    heading = "Sentences that cite nothing, and that no passage offered to the model supports:"
    assert heading in out and f"  - {invention}" in out.split(heading, 1)[1]


def test_ask_lists_the_part_of_a_cited_sentence_its_passage_does_not_say(
    indexed: None,
    ollama_stub: OllamaStub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    use_host(monkeypatch, ollama_stub.url)
    ollama_stub.responder = ScriptedModel(
        answer="This is a text from LibreOffice Writer, typed by penguins [1]."
    )
    capsys.readouterr()
    assert main(["ask", QUESTION, "--file", "a-text"]) == 0
    out = capsys.readouterr().out
    heading = "Parts of cited sentences that their passage does not say:"
    assert heading in out and "  - typed by penguins" in out.split(heading, 1)[1]
    assert main(["ask", QUESTION, "--file", "a-text", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["unsaid_parts"] == ["typed by penguins"] and data["unsupported_sentences"] == []


def test_ask_json(
    indexed: None,
    ollama_stub: OllamaStub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    use_host(monkeypatch, ollama_stub.url)
    ollama_stub.responder = ScriptedModel()
    capsys.readouterr()
    assert main(["ask", QUESTION, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["mode"] == "generated" and data["answer"].endswith("[1].")
    (citation,) = data["citations"]
    assert {"n", "file_name", "path", "page", "chunk_id", "text"} <= set(citation)
    assert citation["n"] == 1 and citation["file_name"] == DOC and citation["page"] == 1
    assert citation["source"] == "model"
    assert data["unsupported_sentences"] == [] and data["invalid_citations"] == []
    assert data["confidence"] in ("high", "medium", "low") and "reason" in data
    assert data["cut"] == "" and data["misattributed_citations"] == []
    assert 0 < data["tokens"] <= data["budget"]


def test_ask_streams_the_opening_quotation_mark_of_a_quotation_the_model_closed(
    indexed: None,
    ollama_stub: OllamaStub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The model goes on from Docent's begun reply (`Passage [1] says: "`), copies the
    passage and closes the quotation: the stream began with the passage's words and a
    lone closing mark after them (QA, sessions 28 and 30)."""
    use_host(monkeypatch, ollama_stub.url)
    ollama_stub.responder = GoesOnFromTheOpening()
    capsys.readouterr()
    assert main(["ask", QUESTION]) == 0
    streamed = capsys.readouterr().out.partition("\nCitations:\n")[0].strip()
    assert streamed.startswith('"This is a text from LibreOffice Writer'), streamed
    assert streamed.count('"') == 2
    # a model that answers afresh is streamed as it wrote, with no mark of Docent's
    ollama_stub.responder = ScriptedModel(cite="[1]")
    assert main(["ask", QUESTION]) == 0
    out = capsys.readouterr().out
    assert out.startswith("This is a text from LibreOffice Writer"), out


def test_ask_shows_citations_docent_matched(
    indexed: None,
    ollama_stub: OllamaStub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    use_host(monkeypatch, ollama_stub.url)
    ollama_stub.responder = ScriptedModel(cite="")  # a model that cites nothing
    capsys.readouterr()
    assert main(["ask", QUESTION]) == 0
    out, err = capsys.readouterr()
    streamed, _, listing = out.partition("\nCitations:\n")
    assert "[1]" not in streamed
    assert f"  [1] {DOC} pp.1-2  (" in listing and "(matched by Docent" in listing
    assert "The answer with its matched citations:" in listing and "[1]." in listing
    assert "Docent matched [1] to the sentence it supports: the model did not cite it." in listing
    assert main(["ask", QUESTION, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [c["source"] for c in data["citations"]] == ["matched"]


def test_ask_json_without_ollama_is_extractive(
    indexed: None,
    ollama_down_host: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    use_host(monkeypatch, ollama_down_host)
    capsys.readouterr()
    assert main(["ask", QUESTION, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["mode"] == "extractive" and "ollama serve" in data["answer"]
    assert data["citations"][0]["file_name"] == DOC


def test_ask_unknown_file_says_so(
    indexed: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["ask", QUESTION, "--file", "nope.pdf"]) == 1
    assert "No indexed document matches 'nope.pdf'" in capsys.readouterr().err


def test_ask_says_when_it_asks_the_model_again(
    indexed: None,
    ollama_stub: OllamaStub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    use_host(monkeypatch, ollama_stub.url)
    ollama_stub.responder = InventsFirst()
    capsys.readouterr()
    assert main(["ask", QUESTION]) == 0
    out, err = capsys.readouterr()
    first, notice, rest = out.partition(
        "\n\n(No passage supports that answer: asking stub-model:latest again.)\n"
    )
    assert first.strip() == INVENTION and notice
    second, _, listing = rest.partition("\nCitations:\n")
    assert second.strip().startswith("This is a text from LibreOffice Writer")
    assert "Not supported" not in rest and f"  [1] {DOC} pp.1-2  (" in listing
    assert "so Docent asked it again (asked twice): this is the second." in listing
    ollama_stub.responder = InventsFirst()
    assert main(["ask", QUESTION, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["attempts"] == 2 and INVENTION not in data["answer"]


def test_ask_says_when_the_earlier_answer_stands(
    indexed: None,
    ollama_stub: OllamaStub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    use_host(monkeypatch, ollama_stub.url)
    ollama_stub.responder = InventsThenCounts()
    capsys.readouterr()
    assert main(["ask", QUESTION]) == 0
    out = capsys.readouterr().out
    _, _, after = out.partition("(No answer since was clearly supported; the first answer stands.)")
    # (in plain letters: a terminal showed Markdown's asterisks; QA-80)
    assert after.lstrip().startswith("Not supported by your documents.") and "**" not in after
    assert INVENTION in after


def test_ask_shows_the_quotes_after_a_counting_that_was_cut(
    indexed: None,
    ollama_stub: OllamaStub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The counting streamed and was cut: the quoted passages follow it, saying the
    model's answer could not be used (not to start Ollama: it is running)."""
    use_host(monkeypatch, ollama_stub.url)
    ollama_stub.responder = lambda messages, model: (f"{i}) " for i in itertools.count(1))
    capsys.readouterr()
    assert main(["ask", QUESTION]) == 0
    out, err = capsys.readouterr()
    counted, _, shown = out.partition("Not generated")
    assert counted.strip().startswith("1) 2) 3)") and "asking" not in counted
    assert shown.startswith(" — stub-model:latest's answer could not be used. ")
    assert "ollama serve" not in out and f"  [1] {DOC} pp.1-2  (" in out
    assert "[extractive" in err and "numbers instead of words" in out


def test_an_abstention_suggests_anyway_which_asks_the_model(
    indexed: None,
    ollama_stub: OllamaStub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    use_host(monkeypatch, ollama_stub.url)
    ollama_stub.responder = ScriptedModel()
    off_topic = "How do I bake sourdough bread with rye flour?"
    capsys.readouterr()
    assert main(["ask", off_topic]) == 0
    out, err = capsys.readouterr()
    assert "I could not find an answer" in out and "[abstained, confidence low" in err
    assert "--anyway asks the model with them" in err
    assert ollama_stub.bodies("/api/chat") == []
    assert main(["ask", off_topic, "--anyway", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["mode"] == "generated" and data["asked_anyway"] is True
    assert data["overrode"].startswith("Retrieval confidence is low")
    assert data["notes"][1].startswith("Asked anyway: Retrieval confidence is low")
    assert ollama_stub.bodies("/api/chat")


def test_ask_says_what_the_llm_rerank_did(
    samples_dir: Path,
    ollama_stub: OllamaStub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Only --json said it (QA, session 26)."""
    monkeypatch.setenv("DOCENT_EXTRACT_IN_SUBPROCESS", "0")
    assert main(["index", "-q", str(samples_dir / "simh__ctss_hardware.pdf")]) == 0
    use_host(monkeypatch, ollama_stub.url)
    monkeypatch.setenv("DOCENT_LLM_RERANK", "true")
    ollama_stub.responder = ScriptedModel(rerank='{"best": [2]}')
    capsys.readouterr()
    assert main(["ask", "How is memory relocation and protection done in CTSS?"]) == 0
    out, _ = capsys.readouterr()
    said = (
        "(stub-model:latest put first the passage it judged to answer (LLM rerank): the "
        "search had it at rank 2.)"
    )
    assert said[1:-1] in out.partition("\nCitations:\n")[2]


def test_ask_says_which_statement_gives_another_figure(
    tmp_path: Path,
    ollama_stub: OllamaStub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """ "Work ends on 1 June" of a plan where the painter arrives on 1 June and work ends
    on 15 June: every number is in the passage, the statement is not (QA, session 31)."""
    indexed_note(
        tmp_path,
        "renovation-plan.md",
        "# Renovation plan\n\nThe painter arrives on 1 June. Work ends on 15 June. "
        "The kitchen budget is 4,000 euros.\n",
        monkeypatch,
        ollama_stub.url,
    )
    ollama_stub.responder = ScriptedModel(answer="The renovation work ends on 1 June [1].")
    capsys.readouterr()
    assert main(["ask", "When does the renovation work end?", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["unsupported_sentences"] == ["The renovation work ends on 1 June [1]."]
    assert answer["conflicts"] == [
        {
            "sentence": "The renovation work ends on 1 June [1].",
            "passage": 1,
            "statement": "Work ends on 15 June.",
            "kind": "figure",
        }
    ]
    assert any("about this, it says “Work ends on 15 June”" in n for n in answer["notes"])
    assert answer["confidence"] != "high"


def test_an_answer_giving_no_number_to_how_many_is_less_trusted(
    tmp_path: Path,
    ollama_stub: OllamaStub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """ "How many parking spaces ...?" answered with the day of the move was medium
    confidence (QA, session 32): a date is no count."""
    indexed_note(
        tmp_path,
        "office-move.md",
        "# Office move\n\nThe office moves to the Aire Building on 10 November 2025. "
        "The Aire Building has 35 parking spaces for staff.\n",
        monkeypatch,
        ollama_stub.url,
    )
    question = "How many parking spaces does the Aire Building have?"
    confidences = {}
    for said in (
        "The office moves to the Aire Building on 10 November 2025 [1].",
        "The Aire Building has 35 parking spaces for staff [1].",
    ):
        ollama_stub.responder = ScriptedModel(answer=said)
        capsys.readouterr()
        assert main(["ask", question, "--json"]) == 0
        answer = json.loads(capsys.readouterr().out)
        assert answer["unsupported_sentences"] == []  # each is the passage's own
        confidences[said] = answer["confidence"]
        no_number = "The question asks for a number, and the answer gives none." in answer["notes"]
        assert no_number == ("35" not in said)
    levels = ["low", "medium", "high"]
    dated, counted = (levels.index(c) for c in confidences.values())
    assert dated == counted - 1


def test_ask_shows_a_sentence_docent_matched_to_a_passage_the_model_cited_too(
    tmp_path: Path,
    ollama_stub: OllamaStub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """QA, session 32: the footer said Docent matched sentences of an answer shown with
    no marker on them (the model cited the same passage elsewhere, so no citation was
    "matched")."""
    indexed_note(
        tmp_path,
        "kitchen.md",
        "# Kitchen\n\nThe new kitchen cabinets are made of solid oak from Bavaria. "
        "The worktop is polished grey granite with a drip groove.\n",
        monkeypatch,
        ollama_stub.url,
    )
    ollama_stub.responder = ScriptedModel(
        answer="The new kitchen cabinets are made of solid oak from Bavaria [1]. "
        "The worktop is polished grey granite with a drip groove."
    )
    capsys.readouterr()
    assert main(["ask", "What are the kitchen cabinets and worktop made of?"]) == 0
    out, err = capsys.readouterr()
    streamed, _, listing = out.partition("\nCitations:\n")
    assert "drip groove." in streamed and "drip groove [1]" not in streamed
    assert "(matched by Docent" not in listing  # [1] is the model's citation
    assert "The answer with its matched citations:" in listing
    assert "with a drip groove [1]." in listing


def test_status_says_whether_ollama_answers(
    ollama_stub: OllamaStub,
    ollama_down_host: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """As the window's status bar does (QA, session 32: `docent status` said nothing)."""
    use_host(monkeypatch, ollama_stub.url)
    assert main(["status"]) == 0
    said = capsys.readouterr().out
    assert f"Ollama:    Ollama is running at {ollama_stub.url} with stub-model:latest." in said
    use_host(monkeypatch, ollama_down_host)
    assert main(["status", "--json"]) == 0
    health = json.loads(capsys.readouterr().out)["ollama"]
    assert health["ok"] is False and "ollama serve" in health["message"]
