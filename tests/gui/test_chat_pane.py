"""The chat pane against a fake engine: streaming, stop, errors, chips, scope, export."""

from __future__ import annotations

from typing import Any

from fakes import FakeEngine, answer, citation
from gui_helpers import ask_and_wait, shown_tip
from PySide6.QtCore import QUrl
from PySide6.QtGui import QTextCharFormat

from docent.core.api import Conflict, conversation_markdown
from docent.core.errors import AmbiguousFile
from docent.core.models import Hit
from docent.gui.chat_pane import ChatPane
from docent.gui.messages import Message, bridge


def test_an_answer_streams_in_then_shows_chips_and_its_footer(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    cites = [citation(1, "/docs/manual.pdf", 12)]
    fake.answers = [answer("The timer counts at 60Hz [1]. It traps on overflow [1].", cites)]
    fake.hold_answer.set()
    chat.ask("How fast is the timer?")
    assert chat.streaming and chat.stop_button.isVisibleTo(chat)
    assert not chat.send_button.isVisibleTo(chat) and not chat.model_combo.isEnabled()
    assert fake.answer_paused.wait(10)
    qtbot.waitUntil(lambda: "The" in chat.view.toPlainText(), timeout=10_000)
    assert "How fast is the timer?" in chat.view.toPlainText()
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000) as done:
        fake.release_answer.set()
    turn = done.args[0]
    assert turn.number == 1 and turn.answer.mode == "generated"
    text = chat.view.toPlainText()
    assert "60Hz" in text and "Answered by fake-model" in text
    assert 'href="cite:1.1"' in chat.view.toHtml()
    assert chat.streamed_tokens >= 5
    assert not chat.streaming and chat.send_button.isVisibleTo(chat)


def test_matched_chips_are_outlined_and_the_footer_says_why(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    cites = [citation(1, "/d/a.pdf"), citation(2, "/d/a.pdf", 3, source="matched")]
    fake.answers = [answer("The timer counts at 60Hz [1]. It traps on overflow [2].", cites)]
    turn = ask_and_wait(qtbot, chat, "How fast is the timer?")
    assert turn.answer.citation(2).source == "matched"
    html = chat.view.toHtml()
    assert 'href="cite:1.2"' in html and 'href="cite:1.1"' in html
    doc = chat.view.document()
    found = doc.find("[2]")
    assert "did not cite" in found.charFormat().toolTip()
    # the model's own chip names what it cites, and only that
    assert shown_tip(doc.find("[1]").charFormat().toolTip()) == "[1] a.pdf, p.1"
    assert "Docent matched [2] to the sentence it supports (outlined)" in chat.view.toPlainText()
    with qtbot.waitSignal(chat.citation_activated) as clicked:
        chat.view.link_activated.emit(QUrl("cite:1.2"))
    assert clicked.args == [1, 2]  # a matched chip opens its page like any other


def test_the_footer_tells_an_uncited_sentence_from_a_badly_cited_one(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    wrong = "The timer counts at 90Hz [1]."
    bare = "It was designed in Norway."
    fake.answers = [
        answer(
            f"{wrong} {bare}",
            [citation(1, "/d/a.pdf")],
            unsupported=[wrong, bare],
            uncited=[bare],
        )
    ]
    ask_and_wait(qtbot, chat, "How fast is the timer?")
    text = " ".join(chat.view.toPlainText().split())
    assert "1 sentence is not clearly supported by its citation" in text
    assert "1 sentence cites nothing, and no passage offered to the model supports it" in text
    fake.answers = [answer(bare, unsupported=[bare], uncited=[bare])]
    ask_and_wait(qtbot, chat, "Where was it designed?")
    last = " ".join(chat.view.toPlainText().split()).rsplit("Where was it designed?", 1)[1]
    assert "cites nothing" in last and "by its citation" not in last


def test_the_part_of_a_cited_sentence_its_passage_does_not_say_is_underlined(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    made_up = "and it was designed in Norway by elves"
    sentence = f"The timer counts at 60Hz, {made_up} [1]."
    fake.answers = [answer(sentence, [citation(1, "/d/a.pdf", source="matched")], unsaid=[made_up])]
    ask_and_wait(qtbot, chat, "How fast is the timer?")
    doc = chat.view.document()
    part = doc.find("designed in Norway").charFormat()
    assert part.underlineStyle() == QTextCharFormat.UnderlineStyle.WaveUnderline
    assert "does not say this part" in part.toolTip()
    copied = doc.find("counts at 60Hz").charFormat()  # the passage says this: no mark
    assert copied.underlineStyle() == QTextCharFormat.UnderlineStyle.NoUnderline
    text = " ".join(chat.view.toPlainText().split())
    assert "1 part of cited sentences goes on past what the passage says (underlined)" in text


def test_a_whole_answer_match_is_named_in_the_footer(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    body = "The timer is fast. It counts ticks."
    fake.answers = [
        answer(
            f"{body}\n\n(Docent matched the answer as a whole to [2].)",
            [citation(2, "/d/a.pdf", 3, source="matched")],
            unsupported=["The timer is fast.", "It counts ticks."],
            uncited=["The timer is fast.", "It counts ticks."],
            answer_match=2,
        )
    ]
    ask_and_wait(qtbot, chat, "How fast is the timer?")
    text = " ".join(chat.view.toPlainText().split())
    assert "Docent matched [2] to the answer as a whole (outlined)" in text
    assert "to the sentence it supports" not in text  # not claimed for any one sentence
    assert 'href="cite:1.2"' in chat.view.toHtml()


def test_an_answer_cut_for_looping_says_so(qtbot: Any, fake: FakeEngine, chat: ChatPane) -> None:
    why = "The answer was cut because the model began repeating a sentence."
    fake.answers = [answer(f"The timer counts at 60Hz [1].\n\n({why})", cut=why)]
    ask_and_wait(qtbot, chat, "How fast is the timer?")
    text = chat.view.toPlainText()
    assert why in text and text.count("60Hz") == 1


def test_stop_keeps_what_arrived_and_says_so(qtbot: Any, fake: FakeEngine, chat: ChatPane) -> None:
    fake.answers = [answer("First words and then a lot more that never comes.")]
    fake.hold_answer.set()
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000) as done:
        chat.ask("Tell me everything")
        assert fake.answer_paused.wait(10)
        chat.stop_button.click()
    turn = done.args[0]
    assert turn.stopped and turn.answer is not None and turn.answer.text == "First"
    shown = chat.view.toPlainText()
    assert "Stopped by you" in shown and "incomplete" in shown and "Answered by" not in shown
    assert "never comes" not in chat.view.toPlainText()
    assert chat.conversation.turns == [turn]


def test_a_failed_question_is_a_turn_with_its_reason(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    posted: list[Message] = []
    bridge().message_posted.connect(posted.append)
    bridge().attach()
    fake.answers = [AmbiguousFile("notes", ["/a/notes.txt", "/b/notes.txt"])]
    turn = ask_and_wait(qtbot, chat, "What do the notes say?")
    assert turn.error.startswith("'notes' matches 2 documents") and turn.answer is None
    assert "Could not answer:" in chat.view.toPlainText()
    assert any(m.level == "error" and "could not be answered" in m.text for m in posted)
    assert not chat.streaming


def test_an_extractive_answer_says_why_under_it(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    reason = "Ollama is not running at http://127.0.0.1:11434 (start it with `ollama serve`)."
    fake.answers = [
        answer(
            "> a quoted passage [1]", [citation(1, "/d/x.pdf")], mode="extractive", reason=reason
        )
    ]
    ask_and_wait(qtbot, chat, "Anything?")
    shown = chat.view.toPlainText()
    assert "Quoted from your documents (low confidence): Ollama is not running" in shown
    assert "ollama serve" in shown
    assert chat.last_answer() is not None
    # an answer that opens with why (as Docent's extractive answers do) says it once
    fake.answers = [
        answer(
            f"**Not generated — no language model answered.** {reason}\n\n> a passage [1]",
            [citation(1, "/d/x.pdf")],
            mode="extractive",
            reason=reason,
        )
    ]
    ask_and_wait(qtbot, chat, "Anything else?")
    last = chat.view.toPlainText().split("Anything else?")[-1]
    assert last.count("Ollama is not running") == 1
    assert "Quoted from your documents (low confidence)." in last


def test_clicking_a_chip_names_the_turn_and_the_citation(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    fake.answers = [answer("One [1].", [citation(1, "/d/a.pdf")]), answer("Two [2].")]
    ask_and_wait(qtbot, chat, "first")
    ask_and_wait(qtbot, chat, "second")
    assert 'href="cite:2.2"' in chat.view.toHtml()
    with qtbot.waitSignal(chat.citation_activated) as clicked:
        chat.view.link_activated.emit(QUrl("cite:1.1"))
    assert clicked.args == [1, 1]


def test_scope_and_model_go_with_the_question(qtbot: Any, fake: FakeEngine, chat: ChatPane) -> None:
    chat.set_models(["fake-model", "other:7b"], "fake-model")
    chat.model_combo.setCurrentText("other:7b")
    chat.set_scope(["/docs/a.pdf", "/docs/b.pdf"])
    assert "a.pdf, b.pdf" in chat.scope_label.text() and chat.clear_scope_button.isVisibleTo(chat)
    fake.answers = [answer("Scoped."), answer("Everywhere.")]
    turn = ask_and_wait(qtbot, chat, "in these?")
    assert fake.asked[-1] == ("in these?", ["/docs/a.pdf", "/docs/b.pdf"], "other:7b")
    assert turn.scope == ["/docs/a.pdf", "/docs/b.pdf"]
    assert "(in a.pdf, b.pdf)" in chat.view.toPlainText()
    chat.clear_scope_button.click()
    ask_and_wait(qtbot, chat, "and everywhere?")
    assert fake.asked[-1][1] is None, "an empty scope clears the conversation's scope"


def test_retry_asks_the_last_question_again(qtbot: Any, fake: FakeEngine, chat: ChatPane) -> None:
    fake.answers = [answer("Quoted.", mode="extractive"), answer("Now generated.")]
    ask_and_wait(qtbot, chat, "Why?")
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000) as done:
        chat.retry_last()
    assert [t.question for t in chat.conversation.turns] == ["Why?"]
    assert done.args[0].answer.text == "Now generated."
    text = chat.view.toPlainText()
    assert "Now generated." in text and "Quoted." not in text


def test_an_answer_withheld_on_retrievals_verdict_can_be_asked_anyway(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    """Docent abstained before asking a model (the passages found did not seem to answer
    the question): Ask anyway stands in for Retry, which would withhold it again; it asks
    the model as another answer of the same question, and a Retry of that answer is
    asked anyway too."""
    withheld = answer("I could not find an answer to this.", mode="abstained", model="")
    withheld.offered = [Hit("c1", "d1", "a.pdf", "/d/a.pdf", 4, 4, 0, 1.0, "A passage.")]
    assert withheld.retrieval_abstained
    fake.answers = [withheld, answer("Asked anyway."), answer("Asked anyway again.")]
    # as the window does, once it has checked Ollama
    chat.anyway_requested.connect(lambda: chat.retry_last(anyway=True))
    chat.retry_requested.connect(chat.retry_last)
    ask_and_wait(qtbot, chat, "How do I make it run a script at start?")
    bar = chat.answer_bar
    assert bar.anyway_button.isVisibleTo(chat) and not bar.retry_button.isVisibleTo(chat)
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000) as done:
        bar.anyway_button.click()
    assert done.args[0].answer.text == "Asked anyway." and fake.asked_anyway == [False, True]
    assert bar.attempt_label.text() == "Answer 2 of 2"
    assert bar.retry_button.isVisibleTo(chat) and not bar.anyway_button.isVisibleTo(chat)
    done.args[0].answer.overrode = "Retrieval confidence is low."  # as the engine marks it
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000):
        bar.retry_button.click()
    assert fake.asked_anyway == [False, True, True]
    # back to the withheld answer: Ask anyway again
    chat.show_attempt(1)
    assert bar.anyway_button.isVisibleTo(chat) and not bar.retry_button.isVisibleTo(chat)


def test_an_answer_the_model_found_nothing_for_offers_retry_not_ask_anyway(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    found_nothing = answer("The model found no answer.", mode="abstained", model="fake-model")
    found_nothing.offered = [Hit("c1", "d1", "a.pdf", "/d/a.pdf", 4, 4, 0, 1.0, "A passage.")]
    fake.answers = [found_nothing]
    ask_and_wait(qtbot, chat, "Why?")
    bar = chat.answer_bar
    assert bar.retry_button.isVisibleTo(chat) and not bar.anyway_button.isVisibleTo(chat)


def test_an_abstention_with_no_source_listed_calls_none_the_closest(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    """Asked in an empty collection, the footer said "the sources listed are only the
    closest" under an answer that listed none (QA, session 27)."""
    fake.answers = [answer("I could not find an answer to this.", mode="abstained", model="")]
    ask_and_wait(qtbot, chat, "What is in it?")
    shown = " ".join(chat.view.toPlainText().split())
    assert "Not found in your documents: no passage matched." in shown
    assert "only the closest" not in shown


def test_export_during_a_retry_keeps_the_turn_asked_again(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    """A Retry takes its turn out of the conversation until the new answer is in, while
    the view still shows it: Export meanwhile left it out (review: with one turn, "There
    is no conversation to export yet")."""
    fake.answers = [answer("The first answer says red."), answer("The second says blue.")]
    ask_and_wait(qtbot, chat, "What colour is the box?")
    fake.hold_answer.set()
    chat.retry_last()
    assert fake.answer_paused.wait(10)
    assert chat.shown_turns() and chat.turn(1) is not None
    md = chat.export_markdown()
    assert "## 1. What colour is the box?" in md and "The first answer says red." in md
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000):
        fake.release_answer.set()
    md = chat.export_markdown()
    assert "The second says blue." in md and "The first answer says red." in md


def test_export_is_the_conversations_own_markdown(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    fake.answers = [answer("It is red [1].", [citation(1, "/d/colours.pdf", 3, "The box is red.")])]
    ask_and_wait(qtbot, chat, "What colour is the box?")
    fake.answers = [RuntimeError("model crashed")]
    ask_and_wait(qtbot, chat, "And the lid?")
    md = chat.export_markdown()
    assert md == conversation_markdown(chat.conversation)
    assert "## 1. What colour is the box?" in md and "[1] colours.pdf, p.3" in md
    assert "## 2. And the lid?" in md and "Could not answer: model crashed" in md


def test_questions_are_refused_while_one_is_answered(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    fake.answers = [answer("slow answer here")]
    fake.hold_answer.set()
    chat.ask("first")
    chat.input.setPlainText("second")
    chat.send_button.click()  # hidden while streaming; Ctrl+Enter would land here
    assert [q for q, _, _ in fake.asked] in ([], ["first"])
    assert chat.input.toPlainText() == "second", "the second question was taken and lost"
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000):
        fake.release_answer.set()
    assert [q for q, _, _ in fake.asked] == ["first"]


def test_docents_own_words_in_an_extractive_answer_are_formatted_the_passages_are_not(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    # the real extractive text: Docent's lead in bold, commands in code, quoted passages
    from docent.core.citations import citations_for
    from docent.core.prompting import extractive_text

    hit = Hit(
        chunk_id="c1",
        doc_id="d1",
        path="/d/odd**name**.pdf",
        file_name="odd**name**.pdf",
        page_start=2,
        page_end=2,
        ordinal=0,
        text="Bold **claims** and [a link](https://example.org) stay plain text; x[1] too.",
        score=1.0,
    )
    quotes = citations_for([1], [hit], "retrieved")
    text = extractive_text("claims?", quotes, "Ollama is not running.", "smollm2:135m")
    fake.answers = [answer(text, [citation(1, "/d/odd**name**.pdf", 2)], mode="extractive")]
    ask_and_wait(qtbot, chat, "claims?")
    shown = chat.view.toPlainText()
    assert "Not generated — no language model answered." in shown
    assert "**Not generated" not in shown and "`ollama serve`" not in shown, shown
    assert "start Ollama (ollama serve)" in shown
    # what came from the documents is shown as written, never formatted or linked
    assert "odd**name**.pdf" in shown and "**claims**" in shown
    assert "[a link](https://example.org)" in shown
    # the document's own brackets are no chip: only Docent's marker links to the passage
    assert "x[1] too." in shown and chat.view.toHtml().count('href="cite:1.1"') == 1


def test_an_answer_nothing_supports_says_so_and_shows_the_passages_beneath_it(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    # the real text of such an answer: Docent's lead, the model's words, quoted passages
    from docent.core.citations import citations_for
    from docent.core.prompting import unsupported_text

    def hit(n: int, text: str) -> Hit:
        name = f"manual-{n}.pdf"
        return Hit(f"c{n}", "d1", name, f"/d/{name}", 6 + n, 6 + n, n, 1.0, text)

    invention = "The timer was designed in Norway by twelve penguins."
    hits = [
        hit(1, "The line clock interrupts sixty times a second; see [the spec](https://x.org)."),
        hit(2, "The **programmable** clock counts down from a preset value."),
    ]
    quotes = citations_for([1, 2], hits, "retrieved")
    text = unsupported_text(invention, "Who designed the timer?", quotes)
    cites = [citation(n, f"/d/manual-{n}.pdf", 6 + n, source="retrieved") for n in (1, 2)]
    fake.answers = [
        answer(
            text,
            cites,
            unsupported=[invention],
            uncited=[invention],
            model="smollm2:135m",
            unsupported_answer=True,
        )
    ]
    ask_and_wait(qtbot, chat, "Who designed the timer?")
    shown = " ".join(chat.view.toPlainText().split())
    assert shown.index("Not supported by your documents.") < shown.index("twelve penguins")
    assert shown.index("twelve penguins") < shown.index("What your documents say:")
    assert shown.index("What your documents say:") < shown.index("sixty times a second")
    assert "not supported by your documents: the passages quoted beneath it" in shown
    assert "cites nothing, and no passage offered to the model supports it" in shown
    # the passages are the documents' words, shown as written, never formatted or linked
    assert "[the spec](https://x.org)" in shown and "**programmable**" in shown
    html = chat.view.toHtml()
    assert 'href="cite:1.1"' in html and 'href="cite:1.2"' in html
    assert "https://x.org" not in html.replace("[the spec](https://x.org)", "")
    doc = chat.view.document()
    assert doc.find("twelve penguins").charFormat().toolTip()  # the invention: flagged
    assert doc.find("Not supported by your").charFormat().fontWeight() > 400  # Docent's lead
    assert not doc.find("Not supported by your").charFormat().toolTip()
    assert not doc.find("sixty times a second").charFormat().toolTip()  # a passage: not flagged
    with qtbot.waitSignal(chat.citation_activated) as clicked:
        chat.view.link_activated.emit(QUrl("cite:1.2"))
    assert clicked.args == [1, 2]  # a quoted passage's chip opens its page


def test_a_sentence_going_against_its_passage_is_told_with_what_the_passage_says(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    """QA, sessions 31-32: a figure taken from the statement beside (the window said
    only "not clearly supported"); the footer quotes the passage's statement."""
    wrong = "Work ends on 1 June [1]."
    fake.answers = [
        answer(
            wrong,
            [citation(1, "/d/plan.md")],
            unsupported=[wrong],
            conflicts=[(wrong, Conflict(1, "Work ends on 15 June.", "figure"))],
        )
    ]
    ask_and_wait(qtbot, chat, "When does work end?")
    text = " ".join(chat.view.toPlainText().split())
    assert (
        "⚠ “Work ends on 1 June” states a figure that passage [1] gives for something else; "
        "about this, it says “Work ends on 15 June”." in text
    )
