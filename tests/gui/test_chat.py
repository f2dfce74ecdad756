"""Asking: a streamed answer with chips; a chip shows the page; Ollama down -> extractive.

The Engine embeds with the hashing embedder: the window's part is what these test."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from gui_helpers import ANSWER_TIMEOUT_MS
from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QTextCursor

from fake_embedder import FakeEmbedder
from ollama_stub import OllamaStub

PDF = "simh__ctss_hardware.pdf"
QUESTION = "How is the interval timer in location 5 incremented, and what happens on overflow?"
REPLY = (
    "Location 5 is incremented at 60Hz [1]. When it overflows, a trap occurs and the PC "
    "is saved in location 6 [1]."
)


@pytest.fixture
def indexed_pdf(tmp_path: Path, samples_dir: Path) -> Path:
    pdf = tmp_path / "docs" / PDF
    pdf.parent.mkdir()
    pdf.write_bytes((samples_dir / PDF).read_bytes())
    return pdf


def ask(qtbot: Any, chat: Any, question: str) -> Any:
    with qtbot.waitSignal(chat.answer_finished, timeout=ANSWER_TIMEOUT_MS) as done:
        chat.input.setPlainText(question)
        qtbot.mouseClick(chat.send_button, Qt.MouseButton.LeftButton)
        assert chat.stop_button.isVisibleTo(chat), "no Stop button while answering"
    return done.args[0]


def click_text(qtbot: Any, view: Any, text: str) -> None:
    found = view.document().find(text)
    assert not found.isNull(), f"{text!r} is not in the conversation"
    cursor = QTextCursor(found)
    cursor.setPosition(found.selectionStart() + 1)
    qtbot.mouseClick(
        view.viewport(), Qt.MouseButton.LeftButton, pos=view.cursorRect(cursor).center()
    )


def test_streamed_answer_with_chips_opens_the_cited_page(
    qtbot: Any, make_engine: Any, make_window: Any, indexed_pdf: Path, ollama_stub: OllamaStub
) -> None:
    ollama_stub.responder = lambda messages, model: REPLY
    engine = make_engine(
        FakeEmbedder(), ollama_host=ollama_stub.url, ollama_model="stub-model:latest"
    )
    engine.index([indexed_pdf])
    window = make_window(engine)
    chat, sources = window.chat, window.citations
    with qtbot.waitSignal(window.health_changed, timeout=ANSWER_TIMEOUT_MS) as checked:
        pass
    assert checked.args[0].ok
    assert window.ollama_label.text() == "Ollama: stub-model:latest"
    assert chat.model_combo.currentText() == "stub-model:latest"

    turn = ask(qtbot, chat, QUESTION)

    assert turn.answer.mode == "generated", turn.answer.reason
    assert chat.streamed_tokens > 5, "the answer did not arrive token by token"
    assert not chat.stop_button.isVisibleTo(chat)
    assert "Location 5 is incremented at 60Hz" in chat.view.toPlainText()
    assert 'href="cite:1.1"' in chat.view.toHtml(), "no citation chip"
    citation = turn.answer.citation(1)
    assert citation is not None and citation.file_name == PDF
    assert sources.list.count() == len(turn.citations)

    with qtbot.waitSignal(sources.page_shown, timeout=ANSWER_TIMEOUT_MS) as shown:
        click_text(qtbot, chat.view, "[1]")
    assert shown.args == [str(indexed_pdf), citation.page]
    assert sources.current is citation
    assert sources.list.currentRow() == turn.citations.index(citation)
    assert f"{PDF} — p. {citation.page}" in sources.header.text()
    render = sources.last_render
    assert render is not None and render.page == citation.page
    assert render.rects, "the cited passage was not highlighted on the page"
    assert render.image.pixel(5, 5) == 0xFFFFFFFF, "the page is not on white"

    follow_up = ask(qtbot, chat, "And where is the PC saved?")
    assert follow_up.number == 2 and follow_up.answer.mode == "generated"
    shown = " ".join(chat.view.toPlainText().split())
    # the footer says how the follow-up was searched: the stub's rewrite (its reply)
    note = follow_up.answer.search_note
    assert note.startswith("Searched as a follow-up, as stub-model:latest rewrote it: “")
    assert note in shown
    assert shown.replace(note, "").count("Location 5 is incremented at 60Hz") == 2
    assert 'href="cite:2.1"' in chat.view.toHtml(), "the second answer has no chips"
    assert len(chat.conversation.turns) == 2, "the engine did not see a multi-turn chat"
    assert follow_up.query != follow_up.question, "the follow-up was not made standalone"


def test_ollama_down_shows_banner_and_extractive_answer(
    qtbot: Any, make_engine: Any, make_window: Any, indexed_pdf: Path, ollama_down_host: str
) -> None:
    engine = make_engine(FakeEmbedder(), ollama_host=ollama_down_host)
    engine.index([indexed_pdf])
    window = make_window(engine)
    chat = window.chat
    with qtbot.waitSignal(window.health_changed, timeout=ANSWER_TIMEOUT_MS) as checked:
        pass
    assert not checked.args[0].ok
    assert chat.banner.isVisibleTo(chat), "no banner before the first question"

    turn = ask(qtbot, chat, QUESTION)

    assert turn.answer.mode == "extractive"
    assert chat.banner.isVisibleTo(chat)
    assert "ollama" in chat.banner_label.text().lower()
    assert turn.citations, "an extractive answer quotes passages with citations"
    shown = chat.view.toPlainText()
    assert "[1]" in shown and "Quoted from your documents" in shown
    assert "not running" in window.ollama_label.text()


def test_ask_anyway_gives_the_model_the_passages_docent_judged_off_topic(
    qtbot: Any, make_engine: Any, make_window: Any, indexed_pdf: Path, ollama_stub: OllamaStub
) -> None:
    """The window's whole path: an abstention, Ask anyway (Ollama checked first), the
    model's answer as the question's second, labelled as asked anyway."""
    ollama_stub.responder = lambda messages, model: REPLY
    engine = make_engine(
        FakeEmbedder(), ollama_host=ollama_stub.url, ollama_model="stub-model:latest"
    )
    engine.index([indexed_pdf])
    window = make_window(engine)
    chat = window.chat
    with qtbot.waitSignal(window.health_changed, timeout=ANSWER_TIMEOUT_MS):
        pass
    turn = ask(qtbot, chat, "How do I bake sourdough bread with rye flour?")
    assert turn.answer.mode == "abstained" and turn.answer.retrieval_abstained
    assert ollama_stub.bodies("/api/chat") == []
    bar = chat.answer_bar
    assert bar.anyway_button.isVisibleTo(chat) and not bar.retry_button.isVisibleTo(chat)
    with qtbot.waitSignal(chat.answer_finished, timeout=ANSWER_TIMEOUT_MS) as done:
        qtbot.mouseClick(bar.anyway_button, Qt.MouseButton.LeftButton)
    again = done.args[0].answer
    assert again.mode == "generated" and again.asked_anyway and again.confidence == "low"
    assert len(ollama_stub.bodies("/api/chat")) >= 1
    assert [t.question for t in chat.turns] == ["How do I bake sourdough bread with rye flour?"]
    assert bar.attempt_label.text() == "Answer 2 of 2"
    assert "Asked anyway: Retrieval confidence is low" in chat.view.toPlainText()


def test_links_in_answers_are_never_followed_to_files(
    qtbot: Any, make_engine: Any, make_window: Any, monkeypatch: Any
) -> None:
    from PySide6.QtGui import QDesktopServices, QTextDocument

    opened: list[QUrl] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) or True)
    window = make_window(make_engine())
    view = window.chat.view
    view.set_markdown(
        'See <a href="file:///etc/passwd">this</a>, ![x](file:///etc/hostname) and '
        "[the notes](file:///etc/hostname) [1]."
    )
    html = view.toHtml()
    assert 'href="file:///etc/passwd"' not in html, "raw HTML became a live link"
    image = view.document().resource(
        QTextDocument.ResourceType.ImageResource, QUrl("file:///etc/hostname")
    )
    assert image is None, "a local file was loaded into the view"
    click_text(qtbot, view, "the notes")
    assert opened == [] and view.source().isEmpty()
    assert any("file:" in t for t in window.notifications.texts())


@pytest.mark.parametrize("how", ["chip", "row"])
def test_a_page_opened_while_an_answer_is_written_stays_when_it_comes(
    qtbot: Any,
    make_engine: Any,
    make_window: Any,
    indexed_pdf: Path,
    ollama_stub: OllamaStub,
    how: str,
) -> None:
    """QA-78: the first answer's [1], clicked while the second was streamed, went back to
    the hint when the second came; its sources now wait for a click of its own chips. A
    row of the Sources list clicked then too (review, session 35)."""
    ollama_stub.responder = lambda messages, model: REPLY
    engine = make_engine(
        FakeEmbedder(), ollama_host=ollama_stub.url, ollama_model="stub-model:latest"
    )
    engine.index([indexed_pdf])
    window = make_window(engine)
    chat, sources = window.chat, window.citations
    first = ask(qtbot, chat, QUESTION)
    cited = first.answer.citation(1)
    assert cited is not None
    # the second answer cites another passage, and waits after three tokens
    ollama_stub.responder = lambda messages, model: "The timer counts 60 times a second [2]."
    ollama_stub.stall_after_tokens = 3
    with qtbot.waitSignal(chat.answer_finished, timeout=ANSWER_TIMEOUT_MS) as done:
        chat.input.setPlainText("What does the interval timer count?")
        qtbot.mouseClick(chat.send_button, Qt.MouseButton.LeftButton)
        assert ollama_stub.stalled.wait(ANSWER_TIMEOUT_MS / 1000)
        with qtbot.waitSignal(sources.page_shown, timeout=ANSWER_TIMEOUT_MS):
            if how == "chip":
                click_text(qtbot, chat.view, "[1]")  # the first answer's
            else:  # its row in the Sources list, as a click there picks it
                sources.list.setCurrentRow(first.citations.index(cited))
        assert sources.current is cited
        ollama_stub.release.set()
    second = done.args[0]
    assert second.number == 2 and second.citations and second.citations != first.citations
    assert sources.current is cited and sources.citations == first.citations
    # its own chip shows its sources
    with qtbot.waitSignal(sources.page_shown, timeout=ANSWER_TIMEOUT_MS):
        window.show_citation(2, second.citations[0].n)
    assert sources.citations == second.citations
