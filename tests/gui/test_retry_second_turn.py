"""A Retry of the second question (QA-77): while the new answer was written, the question
asked again and its earlier answer vanished, and "Asking again (the answer above stays
...)" stood under the first question's answer."""

from __future__ import annotations

from typing import Any

from fakes import FakeEngine, answer, citation
from gui_helpers import ask_and_wait

from docent.gui.chat_pane import ChatPane


def test_a_retry_of_the_second_question_keeps_it_and_its_answer_in_view(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    fake.answers = [
        answer("The console line holds 4095 bytes [1].", [citation(1, "/d/r.pdf", 11)]),
        answer("The beta owner is Ingrid [1].", [citation(1, "/d/plan.md", 1)]),
        answer("Ingrid owns the beta [1].", [citation(1, "/d/plan.md", 1)]),
    ]
    ask_and_wait(qtbot, chat, "How long can an R console line be?")
    ask_and_wait(qtbot, chat, "Who is the beta owner?")
    fake.hold_answer.set()
    chat.retry_last()
    assert fake.answer_paused.wait(10)
    qtbot.waitUntil(lambda: "Asking again" in chat.view.toPlainText(), timeout=10_000)
    shown = chat.view.toPlainText()
    assert "Who is the beta owner?" in shown and "The beta owner is Ingrid" in shown, shown
    assert shown.index("The beta owner is Ingrid") < shown.index("Asking again")
    assert shown.index("4095 bytes") < shown.index("Who is the beta owner?")
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000):
        fake.release_answer.set()
    shown = chat.view.toPlainText()
    assert "Ingrid owns the beta" in shown and shown.count("Who is the beta owner?") == 1


def test_a_rule_in_the_second_answer_hides_nothing(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    """The tail opened with the rule between turns: Qt took it and a rule the model wrote
    for YAML front matter, and dropped what stood between them."""
    fake.answers = [
        answer("The console line holds 4095 bytes [1].", [citation(1, "/d/r.pdf", 11)]),
        answer(
            "Ingrid owns the beta.\n\n---\n\nShe took it over in May [1].", [citation(1, "/d/p.md")]
        ),
    ]
    ask_and_wait(qtbot, chat, "How long can an R console line be?")
    ask_and_wait(qtbot, chat, "Who is the beta owner?")
    shown = chat.view.toPlainText()
    assert "Who is the beta owner?" in shown and "Ingrid owns the beta." in shown, shown


def test_a_question_or_retry_while_an_answer_is_written_is_told_not_dropped(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    """QA-77: Ctrl+Enter while an answer streamed was ignored without a word, and so was
    Retry; the question stays in the box."""
    from docent.gui.chat_pane import BUSY
    from docent.gui.messages import Message, bridge

    posted: list[Message] = []
    bridge().message_posted.connect(posted.append)
    bridge().attach()
    fake.answers = [answer("First."), answer("Second.")]
    ask_and_wait(qtbot, chat, "Which CPU?")
    fake.hold_answer.set()
    chat.ask("How much memory?")
    assert fake.answer_paused.wait(10)
    chat.input.setPlainText("And the disks?")
    chat._on_send()
    chat.retry_last()
    assert [m.text for m in posted if m.level == "info"] == [BUSY, BUSY]
    assert chat.input.toPlainText() == "And the disks?"
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000):
        fake.release_answer.set()


def test_a_summary_opening_with_a_rule_is_shown_whole(qtbot: Any) -> None:
    """A model's summary set whole (the summary dialog) lost what stood before its second
    rule too (review, session 34)."""
    from docent.gui.markdown_view import SafeBrowser

    view = SafeBrowser()
    qtbot.addWidget(view)
    view.set_markdown("---\n\nA summary intro.\n\n---\n\nThe rest.")
    assert "A summary intro." in view.toPlainText() and "The rest." in view.toPlainText()


def test_while_a_question_is_answered_the_bar_offers_nothing_of_the_one_before(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    """QA-80: after a withheld answer, the next question (or a Retry after a Stop) showed
    "Ask anyway" of the question before all the while it was answered: the bar was drawn
    before the worker that makes the pane busy existed."""
    withheld = answer("I could not find an answer to this in your documents.", mode="abstained")
    withheld.model, withheld.offered = "", [citation(1, "/d/s.pdf")]  # retrieval's verdict
    fake.answers = [
        withheld,
        answer("The PDP-11/40 uses the Unibus [1].", [citation(1, "/d/p.pdf")]),
    ]
    ask_and_wait(qtbot, chat, "Welche Tastenkombination unterbricht SIMH?")
    assert chat.answer_bar.anyway_button.isVisibleTo(chat)  # offered for that answer
    fake.hold_answer.set()
    chat.ask("Which bus does the PDP-11/40 use?")
    assert fake.answer_paused.wait(10)
    bar = chat.answer_bar
    assert not bar.anyway_button.isVisibleTo(chat) and not bar.retry_button.isVisibleTo(chat)
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000):
        fake.release_answer.set()
    assert bar.retry_button.isVisibleTo(chat) and not bar.anyway_button.isVisibleTo(chat)
