"""The user's question, and a document's passage quoted in an extractive answer, are
shown "as typed" / "as written" (turn_markdown.escape_markdown, quoted_markdown): every
Markdown mark is escaped, but not ``&``, so md4c decodes HTML character references in
them. A question about ``&lt;br&gt;`` was shown as asking about ``<br>``, and a manual's
``&nbsp;`` / ``&copy;`` were quoted as a space and a ©."""

from __future__ import annotations

from typing import Any

from fakes import FakeEngine, answer, citation

from docent.gui.chat_pane import ChatPane


def test_a_question_about_html_entities_is_shown_as_typed(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    question = "Why does the page show &nbsp; and &lt;br&gt; instead of a space and a break?"
    fake.answers = [answer("Because it is escaped twice.")]
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000):
        chat.ask(question)
    assert question in chat.view.toPlainText(), chat.view.toPlainText()


def test_a_quoted_passage_keeps_its_entities_as_written(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    passage = "Write &copy; for the copyright sign and &amp; for an ampersand."
    fake.answers = [
        answer(
            f"> {passage} [1]", [citation(1, "/d/html-guide.txt", 1, passage)], mode="extractive"
        )
    ]
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000):
        chat.ask("How do I write the copyright sign?")
    assert passage in chat.view.toPlainText(), chat.view.toPlainText()
