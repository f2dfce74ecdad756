"""QA-80: a conversation was lost for good on Ctrl+N and when Docent closed. It is kept,
as Markdown (the export's text), in the data folder's ``conversations/``, in a worker."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fakes import FakeEngine, answer, citation
from gui_helpers import ask_and_wait

from docent.gui.messages import Message, bridge


def kept(fake: FakeEngine) -> list[Path]:
    folder = fake.settings.data_path / "conversations"
    return sorted(folder.glob("*.md")) if folder.is_dir() else []


def test_a_new_conversation_keeps_the_last_one_and_says_where(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    posted: list[Message] = []
    bridge().message_posted.connect(posted.append)
    fake.answers = [answer("The console line holds 4095 bytes [1].", [citation(1, "/d/r.pdf", 11)])]
    window = make_window(fake)
    ask_and_wait(qtbot, window.chat, "How long can an R console line be?")
    window.new_conversation()
    assert not window.chat.shown_turns()
    qtbot.waitUntil(lambda: any("The last conversation is kept in" in m.text for m in posted))
    (path,) = kept(fake)
    text = path.read_text(encoding="utf-8")
    assert "How long can an R console line be?" in text and "4095 bytes" in text
    assert str(path) in next(m.text for m in posted if "is kept in" in m.text)
    window.new_conversation()  # an empty one is not kept
    assert len(kept(fake)) == 1


def test_a_conversation_comes_back_when_docent_starts_again(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    """QA-80: quitting lost the conversation. It is kept after each answer and on close,
    and the next window shows it again, each in its collection; asking on goes on with it."""
    from docent.gui.workers import wait_for_all

    fake.answers = [
        answer("Ingrid owns the beta [1].", [citation(1, "/d/plan.md", 1)]),
        answer("She took it over in May [1].", [citation(1, "/d/plan.md", 2)]),
    ]
    window = make_window(fake)
    ask_and_wait(qtbot, window.chat, "Who is the beta owner?")
    window.close()
    assert wait_for_all(10_000)
    again = make_window(fake)
    qtbot.waitUntil(lambda: "Ingrid owns the beta" in again.chat.view.toPlainText())
    shown = again.chat.view.toPlainText()
    assert "Who is the beta owner?" in shown
    (turn,) = again.chat.conversation.turns
    assert turn.answer is not None and turn.answer.citations[0].path == "/d/plan.md"
    ask_and_wait(qtbot, again.chat, "Since when?")  # a follow-up of the restored turn
    assert [t.question for t in again.chat.conversation.turns] == [
        "Who is the beta owner?",
        "Since when?",
    ]
    assert kept(fake) == []  # nothing needed keeping as Markdown


def test_a_kept_conversation_is_not_written_over_by_one_begun_before_it_was_read(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    from docent.core.api import conversations_json
    from docent.core.conversation import Conversation

    posted: list[Message] = []
    bridge().message_posted.connect(posted.append)
    fake.answers = [answer("Ingrid owns the beta [1].", [citation(1, "/d/plan.md", 1)])]
    earlier = make_window(fake)
    ask_and_wait(qtbot, earlier.chat, "Who is the beta owner?")
    old = earlier.chat.open_conversations()
    fake.answers = [answer("The console line holds 4095 bytes [1].", [citation(1, "/d/r.pdf")])]
    window = make_window(fake)
    # its own read at start first (it reads what ``earlier`` kept: taken back)
    qtbot.waitUntil(lambda: window._conversations_read, timeout=10_000)
    assert [t.question for t in window.chat.conversation.turns] == ["Who is the beta owner?"]
    window.new_conversation()  # (kept as Markdown: one file)
    qtbot.waitUntil(lambda: len(kept(fake)) == 1)
    ask_and_wait(qtbot, window.chat, "How long can an R console line be?")
    left = window.chat.restore(old)  # read only now: a question came first
    assert [c.turns[0].question for c in left] == ["Who is the beta owner?"]
    window._restore_conversations(old)
    qtbot.waitUntil(lambda: len(kept(fake)) == 2)
    assert all("Who is the beta owner?" in p.read_text(encoding="utf-8") for p in kept(fake))
    assert "4095 bytes" in window.chat.view.toPlainText()
    assert conversations_json([Conversation()]).endswith('"conversations": []}')


def test_reading_back_no_conversation_leaves_the_window_as_it_is(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    """The read at start ends in a worker: with nothing kept, it drew the chat again and
    cleared the sources a citation had opened meanwhile (a CI run's flake)."""
    window = make_window(fake)
    qtbot.waitUntil(lambda: window._conversations_read, timeout=10_000)
    window.citations.set_citations([citation(1, "/d/plan.md", 1, "Ingrid owns the beta.")])
    window._restore_conversations([])  # a late read, with nothing kept
    assert [c.n for c in window.citations.citations] == [1]
