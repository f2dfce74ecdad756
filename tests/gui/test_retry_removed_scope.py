"""A document asked about, then removed from the library, leaves the chat's scope
(ChatPane.forget_document). A Retry of the question asked about it put it back: the retry
failed ("No indexed document matches"), though another document of its scope was still
there, and the scope line said "Asking only: a.pdf" — a document no longer in the
library — so every later question failed too, until the scope was cleared by hand."""

from __future__ import annotations

from typing import Any

from fakes import FakeEngine, answer
from gui_helpers import started

from docent.core.api import DocumentChanged, Job, JobKind, Progress
from docent.core.errors import UnknownFile


def resolving(fake: FakeEngine) -> None:
    """As the real engine (core/asking.py): the scope's files are resolved first, and a
    file not in the library fails the question (as a turn with its error)."""
    plain_ask = fake.ask

    def ask(question: str, **kw: Any) -> Any:
        conv = kw["conversation"]
        for f in kw.get("files") or []:
            if f not in fake.records:
                message = f"No indexed document matches '{f}'."
                conv.add_unanswered(question, error=message)
                raise UnknownFile(message)
        return plain_ask(question, **kw)

    fake.ask = ask  # type: ignore[method-assign]


def test_retry_after_a_scoped_document_left_the_library_does_not_ask_it_again(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    resolving(fake)
    fake.add_document("/docs/a.pdf")
    fake.add_document("/docs/b.pdf")
    window = started(qtbot, fake, make_window)
    chat = window.chat
    window.library.ask_about_requested.emit(["/docs/a.pdf", "/docs/b.pdf"])
    fake.answers = [answer("Quoted only.", mode="extractive"), answer("Now the model's.")]
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000):
        chat.ask("What does the contract say about notice?")
    fake.submit_removal(["/docs/a.pdf"])
    qtbot.waitUntil(lambda: chat.scope == ["/docs/b.pdf"], timeout=10_000)

    with qtbot.waitSignal(chat.answer_finished, timeout=10_000) as done:
        window.retry_action.trigger()  # Ctrl+R: Ollama is checked, then asked again
    assert "/docs/a.pdf" not in chat.scope, chat.scope_label.text()
    assert done.args[0].error == "", done.args[0].error
    assert fake.asked[-1][1] == ["/docs/b.pdf"]


def test_retry_asks_a_removed_document_again_once_it_is_back(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    resolving(fake)
    fake.add_document("/docs/a.pdf")
    fake.add_document("/docs/b.pdf")
    window = started(qtbot, fake, make_window)
    chat = window.chat
    window.library.ask_about_requested.emit(["/docs/a.pdf", "/docs/b.pdf"])
    fake.answers = [answer("Quoted only.", mode="extractive"), answer("Now the model's.")]
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000):
        chat.ask("What does the contract say about notice?")
    fake.submit_removal(["/docs/a.pdf"])
    qtbot.waitUntil(lambda: chat.scope == ["/docs/b.pdf"], timeout=10_000)
    rec = fake.add_document("/docs/a.pdf")  # added again
    job = Job(JobKind.INDEX, ["/docs/a.pdf"], "user")
    with qtbot.waitSignal(window.library.controller.document_changed, timeout=10_000):
        fake.emit(DocumentChanged(job, Progress("ready", 1, 1, rec.path, rec.doc_id), rec))

    with qtbot.waitSignal(chat.answer_finished, timeout=10_000) as done:
        window.retry_action.trigger()
    assert done.args[0].error == "", done.args[0].error
    assert fake.asked[-1][1] == ["/docs/a.pdf", "/docs/b.pdf"]
