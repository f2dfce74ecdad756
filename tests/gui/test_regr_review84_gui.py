"""Review 84: the chat pane. Fails on the code as reviewed."""

from __future__ import annotations

from typing import Any

from fakes import FakeEngine, answer
from gui_helpers import started


def test_a_retry_keeps_the_scope_chosen_for_the_next_question(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    """ChatPane.retry_last sets the pane's scope to the retried turn's (to ask it as it
    was asked), and puts back the scope chosen for the next question only when a
    collection waits for it. "Ask about" b.pdf after an answer over all documents, then
    Retry that answer: the scope line says "Asking: all documents" again, and the next
    question asks every document, not b.pdf."""
    fake.add_document("/docs/a.pdf")
    fake.add_document("/docs/b.pdf")
    window = started(qtbot, fake, make_window)
    chat = window.chat
    fake.answers = [answer("First."), answer("Again."), answer("About b.")]
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000):
        chat.ask("What does the contract say about notice?")
    window.library.ask_about_requested.emit(["/docs/b.pdf"])
    assert chat.scope == ["/docs/b.pdf"]

    with qtbot.waitSignal(chat.answer_finished, timeout=10_000):
        window.retry_action.trigger()
    assert fake.asked[-1][1] is None  # the retry asks as the question was asked: all documents
    assert chat.scope == ["/docs/b.pdf"], chat.scope_label.text()
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000):
        chat.ask("And what does b say?")
    assert fake.asked[-1][1] == ["/docs/b.pdf"]
