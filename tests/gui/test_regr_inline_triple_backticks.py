"""Regression (c27aa6f, turn_markdown.close_fences): a line that *starts* with an inline
span written with triple backticks ("```ls -la``` lists the files") is no fence in
CommonMark (a backtick fence's info string may not hold a backtick), yet close_fences
counts it as one left open and appends a closing "```" -- which itself opens a code
block that swallows the footer and, when the conversation is drawn again, every later
turn (their chips become raw Markdown inside the block). Before the commit this answer
rendered fine."""

from __future__ import annotations

from typing import Any

from fakes import FakeEngine, answer, citation
from gui_helpers import ask_and_wait

from docent.gui.chat_pane import ChatPane
from docent.gui.turn_markdown import close_fences

INLINE = "Run this:\n\n```ls -la``` lists the files [1]."


def test_close_fences_leaves_an_inline_triple_backtick_span_alone() -> None:
    assert close_fences(INLINE) == INLINE


def test_the_footer_under_an_inline_triple_backtick_answer_is_not_drawn_as_code(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    fake.answers = [answer(INLINE, [citation(1, "/d/manual.pdf")])]
    ask_and_wait(qtbot, chat, "How do I list the files?")
    shown = chat.view.toPlainText()
    assert "Answered by" in shown
    # drawn as a note (italic), not as its Markdown source inside a code block
    assert "*Answered by" not in shown, shown
