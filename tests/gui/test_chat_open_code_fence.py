"""An answer that ends inside a code block (stopped, or cut, while the model wrote a
```-fence) must not swallow what the chat draws after it: its own footer, and — when the
conversation is drawn again (another collection shown, then this one) — every later turn,
whose chips turned into raw ``[\\[1\\]](cite:2.1)`` text inside the code block."""

from __future__ import annotations

from typing import Any

from fakes import FakeEngine, answer, citation
from gui_helpers import ask_and_wait

from docent.core.models import Collection
from docent.gui.chat_pane import ChatPane

#: The fake streams word by word and (hold_answer) pauses after the first "word": the
#: model has opened a code block and written its first line when Stop is pressed.
CODE_ANSWER = "Type:\n\n```\nset cpu 11/70\n```\n\nthen boot it [1]."


def stopped_inside_code(qtbot: Any, fake: FakeEngine, chat: ChatPane) -> Any:
    fake.answers = [answer(CODE_ANSWER, [citation(1, "/d/manual.pdf")])]
    fake.hold_answer.set()
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000) as done:
        chat.ask("How do I set the CPU type?")
        assert fake.answer_paused.wait(10)
        chat.stop()
    fake.hold_answer.clear()
    fake.answer_paused.clear()
    turn = done.args[0]
    assert turn.stopped and "```" in turn.answer.text and turn.answer.text.count("```") == 1
    return turn


def test_the_stop_note_under_an_answer_cut_inside_code_is_not_drawn_as_code(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    stopped_inside_code(qtbot, fake, chat)
    shown = chat.view.toPlainText()
    assert "Stopped by you" in shown
    # drawn as a note (italic), not as Markdown source inside the code block
    assert "*■ Stopped by you" not in shown, shown


def test_turns_after_an_answer_cut_inside_code_keep_their_chips_when_drawn_again(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    stopped_inside_code(qtbot, fake, chat)
    fake.answers = [answer("The CPU is a KA780 [1].", [citation(1, "/d/manual.pdf")])]
    ask_and_wait(qtbot, chat, "Which CPU is it?")
    fake.answers = [answer("It has 8 MB of memory [1].", [citation(1, "/d/manual.pdf")])]
    ask_and_wait(qtbot, chat, "How much memory?")
    assert 'href="cite:2.1"' in chat.view.toHtml()
    # another collection's conversation is shown, then this one again
    chat.set_collection(Collection("c1-work", "Work"))
    chat.set_collection(None)
    shown = chat.view.toPlainText()
    assert "(cite:2.1)" not in shown, shown  # the chip as Markdown source, in a code block
    assert 'href="cite:2.1"' in chat.view.toHtml(), "turn 2's chip is no longer a link"
