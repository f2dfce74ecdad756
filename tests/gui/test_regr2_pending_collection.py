"""Regression (dc7bfc9, ChatPane._next_collection; MainWindow._on_answer_finished no longer
gives the chat the bar's collection):

- a document chosen ("Ask about") while a collection waits for the next question is
  dropped: the label does not show it, and ``ask`` applies the collection, which replaces
  the scope with that collection's conversation's -- the question asks the whole collection;
- a rename read while an answer streams (the same collection) is never given to the chat:
  the label keeps the old name (the window re-applied the bar's collection at the answer's
  end before the commit)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from fakes import FakeEngine, answer

from docent.gui.chat_pane import ChatPane


def _answer_while(qtbot: Any, fake: FakeEngine, chat: ChatPane, during: Any) -> None:
    fake.hold_answer.set()
    try:
        chat.ask("What is the travel budget?")
        assert fake.answer_paused.wait(10)
        during()
        with qtbot.waitSignal(chat.answer_finished, timeout=20_000):
            fake.release_answer.set()
    finally:
        fake.release_answer.set()
    fake.hold_answer.clear()
    fake.release_answer.clear()
    fake.answer_paused.clear()


def test_a_document_chosen_after_the_answer_is_the_one_the_next_question_asks(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    work = fake.create_collection("Work")
    fake.answers = [answer("4200 euros."), answer("By train: 300 euros.")]
    _answer_while(qtbot, fake, chat, lambda: chat.set_collection(work))  # restored at start
    assert chat.scope_label.text() == "The next question asks: collection Work"
    # the library shows Work: "Ask about" one of its documents
    chat.set_scope(["/docs/budget.pdf"])
    label = chat.scope_label.text()
    with qtbot.waitSignal(chat.answer_finished, timeout=20_000):
        chat.ask("And by train?")
    assert fake.asked_collections[-1] == work.id
    assert fake.asked[-1][1] == ["/docs/budget.pdf"], fake.asked[-1]  # asked all of Work
    assert "budget.pdf" in label, label


def test_a_collection_renamed_while_an_answer_streams_has_its_new_name_in_the_label(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    work = fake.create_collection("Work")
    chat.set_collection(work)
    fake.answers = [answer("4200 euros.")]
    renamed = replace(work, name="Office")  # the bar's list, read again after a rename
    _answer_while(qtbot, fake, chat, lambda: chat.set_collection(renamed))
    assert "Office" in chat.scope_label.text(), chat.scope_label.text()


def test_a_collection_chosen_and_chosen_back_while_an_answer_streams_changes_nothing(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    """Work chosen, then All again, while an answer streams: nothing waits, and the
    document chosen for the conversation is still the next question's scope."""
    work = fake.create_collection("Work")
    fake.add_document("/docs/budget.pdf", collection=work.id)
    chat.set_scope(["/docs/budget.pdf"])
    fake.answers = [answer("4200 euros."), answer("By train: 300 euros.")]

    def there_and_back() -> None:
        chat.set_collection(work)
        chat.set_collection(None)

    _answer_while(qtbot, fake, chat, there_and_back)
    assert chat.scope_label.text() == "Asking only: budget.pdf", chat.scope_label.text()
    with qtbot.waitSignal(chat.answer_finished, timeout=20_000):
        chat.ask("And by train?")
    assert fake.asked_collections[-1] is None or fake.asked_collections[-1] == ""
    assert fake.asked[-1][1] == ["/docs/budget.pdf"], fake.asked[-1]


def test_the_bar_saying_again_what_waits_after_the_answer_leaves_it_waiting(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    """The collections' list read again after the answer (the bar emits the collection
    shown once more): it still waits for the next question, the answer stays on screen
    (a .ci/run flake: the label said "Asking: collection Work" and the view was empty)."""
    work = fake.create_collection("Work")
    fake.answers = [answer("4200 euros."), answer("By train: 300 euros.")]
    _answer_while(qtbot, fake, chat, lambda: chat.set_collection(work))
    chat.set_collection(work)  # again, after the answer
    assert chat.scope_label.text() == "The next question asks: collection Work"
    assert "4200 euros" in chat.view.toPlainText()
    with qtbot.waitSignal(chat.answer_finished, timeout=20_000):
        chat.ask("And by train?")
    assert fake.asked_collections[-1] == work.id
    assert chat.scope_label.text() == "Asking: collection Work"
