"""An answer's notes (core/answer_notes.py): one wording for the window's footer,
`docent ask` and the Markdown export (QA, session 32: the three said it three ways)."""

from __future__ import annotations

from docent.core.answer_notes import NO_NUMBER, conversation_markdown, headline, notes
from docent.core.conversation import Answer, Conversation

WHY = "Ollama is not running at http://127.0.0.1:11434."


def test_an_extractive_answer_says_its_confidence_and_why() -> None:
    answer = Answer("q", "> a passage [1]", "extractive", confidence="high", reason=WHY)
    assert headline(answer) == f"Quoted from your documents (high confidence): {WHY}"
    opened = Answer("q", f"**Not generated.** {WHY}\n\n> a passage [1]", "extractive", reason=WHY)
    assert headline(opened) == "Quoted from your documents."  # its text says why already


def test_an_abstention_says_what_was_missing() -> None:
    missing = "Retrieval confidence is low (the documents searched never mention 'Neptune')."
    answer = Answer("q", "I could not find an answer.", "abstained", reason=missing)
    assert notes(answer) == ["Not found in your documents: no passage matched.", missing]


def test_a_generated_answer_lists_each_finding_in_order() -> None:
    sentence = "The valve opens at 5 bar, as the manual says in its second chapter."
    answer = Answer(
        "How many valves are there?",
        f"{sentence} [1]",
        "generated",
        model="m:1b",
        seconds=4.2,
        confidence="low",
        invalid_citations=[7],
        misattributed=[(sentence, (1,), 2)],
        unsupported_sentences=[sentence, "Made up."],
        uncited_sentences=["Made up."],
        no_number=True,
    )
    said = notes(answer, marked="listed below")
    assert said[0] == "Answered by m:1b in 4 s · low confidence."
    assert "Dropped citation [7]: the model cited a passage it was not given." in said
    assert NO_NUMBER in said
    assert (
        "Citation [1] does not support “The valve opens at 5 bar, as the manual says in "
        "its second …”; passage [2] does (listed with the sources)."
    ) in said
    assert "⚠ 1 sentence is not clearly supported by its citation (listed below)." in said
    assert said[-1].startswith("⚠ 1 sentence cites nothing") and "(listed below)" in said[-1]


def test_a_partial_answer_says_it_first_and_a_stopped_one_that_it_was_stopped() -> None:
    """The export said nothing of a stop once the window alone added it (review, s33)."""
    answer = Answer(
        "q", "Some words (Answer incomplete: the connection broke)", "generated", partial=True
    )
    assert notes(answer)[:2] == [
        "⚠ Incomplete answer (its last line says why).",
        "Written by the model.",
    ]
    assert notes(answer, stopped=True) == [
        "■ Stopped by you after less than a second: the answer is incomplete.",
        "Written by the model.",
    ]


def test_the_export_says_what_the_window_says() -> None:
    answer = Answer("q", "> a passage [1]", "extractive", confidence="medium", reason=WHY)
    conversation = Conversation()
    conversation.add("What opens the valve?", "What opens the valve?", answer)
    exported = conversation_markdown(conversation)
    for note in notes(answer, marked="listed below", outlined=False):
        assert f"_{note}_" in exported


def test_a_first_answer_kept_when_its_retry_was_stopped_is_not_called_incomplete() -> None:
    """Stopped while the model was asked again: what is shown is its first answer, whole
    (the footer said "the answer is incomplete"; only ``reason`` said which it was)."""
    answer = Answer("q", "An answer.", "generated", model="m:1b", attempts=2, confidence="low")
    said = notes(answer, stopped=True)
    assert said[0] == (
        "■ Stopped by you while m:1b was asked again (its second answer): this is its "
        "first answer, complete."
    )
    assert said[1] == "Answered by m:1b · low confidence."
    assert not any("incomplete" in n or "asked it again" in n for n in said[1:])
    # a first answer cut at its budget (or in a loop) is not called complete
    cut = Answer("q", "An answer.\n\n(The answer was cut.)", "generated", attempts=2, cut="x")
    assert notes(cut, stopped=True)[0].endswith("(its second answer): this is its first answer.")


def test_a_part_past_its_passage_and_a_whole_answer_match_are_noted() -> None:
    answer = Answer(
        "q",
        "Debhelper came in 2008 [1], and its site is gone.",
        "generated",
        unsaid_parts=["and its site is gone"],
        answer_match=1,
    )
    said = notes(answer, marked="listed below", outlined=False)
    assert (
        "Docent matched [1] to the answer as a whole: it supports the sentences together, "
        "though none alone, and the model did not cite it."
    ) in said
    assert "⚠ 1 part of cited sentences goes on past what the passage says (listed below)." in said
