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


def test_closing_the_window_keeps_its_conversation(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    from docent.gui.workers import wait_for_all

    fake.answers = [answer("Ingrid owns the beta [1].", [citation(1, "/d/plan.md", 1)])]
    window = make_window(fake)
    ask_and_wait(qtbot, window.chat, "Who is the beta owner?")
    window.close()
    assert wait_for_all(10_000)
    (path,) = kept(fake)
    assert "Who is the beta owner?" in path.read_text(encoding="utf-8")
