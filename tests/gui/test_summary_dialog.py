"""The summary dialog as a person uses it: section summaries shown as they finish, and a
summary over the user's time limit offering "Extractive now" while the model's summary
goes on in the background (past the dialog's Close)."""

from __future__ import annotations

from typing import Any

from fakes import WAIT, FakeEngine, SummarizeCall
from PySide6.QtGui import QTextCharFormat, QTextCursor

from docent.core.api import SummaryResult
from docent.gui.summary_dialog import SummaryDialog


def opened(
    qtbot: Any, fake: FakeEngine, make_window: Any, *, over_limit: bool = False
) -> tuple[Any, SummaryDialog]:
    """The window's Summarize… on a.pdf, its summary held after its first section
    (``over_limit``: estimated past the user's limit)."""
    fake.add_document("/docs/a.pdf")
    fake.summary_over_limit = over_limit
    fake.hold_summary.set()
    window = make_window(fake)
    with qtbot.waitSignal(window.health_changed, timeout=10_000):
        pass
    window.summarize("/docs/a.pdf")
    (dialog,) = [d for d in window.dialogs if isinstance(d, SummaryDialog)]
    assert fake.summary_paused.wait(WAIT)
    return window, dialog


def test_section_summaries_show_as_they_finish_then_the_summary_replaces_them(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    _, dialog = opened(qtbot, fake, make_window)
    qtbot.waitUntil(lambda: "Section 1 of a.pdf." in dialog.view.toPlainText(), timeout=10_000)
    shown = dialog.view.toPlainText()
    assert "The sections so far" in shown and "Section 2" not in shown
    assert "1 of 2 done" in dialog.status.text()
    # within the limit: nothing is offered
    assert dialog.extractive_button.isHidden() and dialog.offer.isHidden()
    with qtbot.waitSignal(dialog.summary_finished, timeout=10_000) as done:
        fake.release_summary.set()
    assert done.args[0] is not None
    final = dialog.view.toPlainText()
    assert "A brief generated summary of a.pdf." in final and "Section 1" not in final
    dialog.close()


def test_cancelled_with_sections_done_says_so_and_copies_them(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    """QA-79: after Cancel the view still said "The summary comes once every section is
    done. The sections so far:", and Copy stayed off though a section was shown."""
    _, dialog = opened(qtbot, fake, make_window)
    qtbot.waitUntil(lambda: "Section 1 of a.pdf." in dialog.view.toPlainText(), timeout=10_000)
    assert not dialog.copy_button.isEnabled()
    with qtbot.waitSignal(dialog.summary_finished, timeout=10_000) as done:
        dialog.cancel()
    assert done.args[0] is None
    shown = dialog.view.toPlainText()
    assert shown.startswith("The summary was cancelled before every section was done.")
    assert "Section 1 of a.pdf." in shown and "The sections so far" not in shown
    assert dialog.copy_button.isEnabled()
    dialog.close()


def test_over_the_limit_extractive_now_shows_at_once_and_the_model_goes_on(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    window, dialog = opened(qtbot, fake, make_window, over_limit=True)
    qtbot.waitUntil(lambda: not dialog.extractive_button.isHidden(), timeout=10_000)
    assert "over your limit of 4 s a page" in dialog.offer.text()
    fake.hold_extractive.set()
    dialog.extractive_button.click()
    # said while it works (it waited half a minute, silent, beside indexing: QA, s31)
    qtbot.waitUntil(lambda: "section 1 of 2" in dialog.offer.text(), timeout=10_000)
    assert dialog.offer.text().startswith("Picking the document's most central sentences")
    fake.release_extractive.set()
    qtbot.waitUntil(
        lambda: "A brief extractive summary of a.pdf." in dialog.view.toPlainText(),
        timeout=10_000,
    )
    assert "still being written" in dialog.view.toPlainText()
    assert dialog.extractive_button.isHidden() and dialog.cancel_button.isEnabled()
    assert fake.summarize_calls == [
        SummarizeCall("a.pdf", dialog.model, False),
        SummarizeCall("a.pdf", None, True),
    ]
    # Close leaves the model's summary running; its end replaces the extractive one
    model_run = dialog.worker
    dialog.close()
    assert model_run is not None and not model_run.cancelled
    with qtbot.waitSignal(dialog.summary_finished, timeout=10_000) as done:
        fake.release_summary.set()
    assert done.args[0] is not None and done.args[0].mode == "generated"
    assert "A brief generated summary of a.pdf." in dialog.view.toPlainText()
    assert "replaces the extractive summary" in dialog.status.text()
    qtbot.waitUntil(
        lambda: any("summary of a.pdf is ready" in t for t in window.notifications.texts()),
        timeout=10_000,
    )


def test_closing_before_extractive_now_still_cancels_the_model_summary(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    _, dialog = opened(qtbot, fake, make_window, over_limit=True)
    with qtbot.waitSignal(dialog.summary_finished, timeout=10_000) as done:
        dialog.close()
    assert done.args[0] is None and dialog.status.text() == "Cancelled."
    assert [c.extractive for c in fake.summarize_calls] == [False]


def test_a_summary_over_the_limit_that_ends_unaided_withdraws_the_offer(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    _, dialog = opened(qtbot, fake, make_window, over_limit=True)
    qtbot.waitUntil(lambda: not dialog.offer.isHidden(), timeout=10_000)
    with qtbot.waitSignal(dialog.summary_finished, timeout=10_000) as done:
        fake.release_summary.set()
    assert done.args[0] is not None
    # the summary is there: "at this pace it takes ... more" no longer stands under it
    assert dialog.offer.isHidden() and dialog.extractive_button.isHidden()
    assert dialog.status.text().startswith("Brief summary by")
    dialog.close()


def test_cancel_after_extractive_now_no_longer_promises_the_models_summary(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    _, dialog = opened(qtbot, fake, make_window, over_limit=True)
    qtbot.waitUntil(lambda: not dialog.extractive_button.isHidden(), timeout=10_000)
    dialog.extractive_button.click()
    qtbot.waitUntil(
        lambda: "A brief extractive summary of a.pdf." in dialog.view.toPlainText(),
        timeout=10_000,
    )
    with qtbot.waitSignal(dialog.summary_finished, timeout=10_000) as done:
        dialog.cancel_button.click()
    assert done.args[0] is None and dialog.status.text() == "Cancelled."
    said = " ".join([dialog.status.text(), dialog.offer.text(), dialog.view.toPlainText()]).lower()
    for stale in ("still being written", "will replace", "replaces it", "in the background"):
        assert stale not in said, f"after Cancel the dialog still says {stale!r}"
    # the extractive summary stays, saying the model's was cancelled
    assert "A brief extractive summary of a.pdf." in dialog.view.toPlainText()
    assert "was cancelled" in dialog.offer.text() and dialog.offer.isVisibleTo(dialog)
    assert dialog.extractive_button.isHidden() and not dialog.cancel_button.isEnabled()
    assert dialog.copy_button.isEnabled()
    dialog.close()


def test_the_kind_asked_for_is_the_kind_shown(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    """The Kind box stayed enabled mid-run, and its later value labelled the result and
    picked Extractive now's kind (review): it is locked, and the run's kind is used."""
    _, dialog = opened(qtbot, fake, make_window, over_limit=True)
    assert not dialog.type_combo.isEnabled()
    dialog.type_combo.setCurrentText("bullets")  # as a program could
    qtbot.waitUntil(lambda: not dialog.extractive_button.isHidden(), timeout=10_000)
    dialog.extractive_button.click()
    qtbot.waitUntil(lambda: dialog.extractive is not None, timeout=10_000)
    assert dialog.extractive is not None and dialog.extractive.type == "brief"
    with qtbot.waitSignal(dialog.summary_finished, timeout=10_000) as done:
        fake.release_summary.set()
    assert done.args[0].type == "brief" and dialog.status.text().startswith("Brief summary")
    assert dialog.type_combo.isEnabled()
    dialog.close()


def test_esc_cancels_the_run_as_close_does(qtbot: Any, fake: FakeEngine, make_window: Any) -> None:
    """Esc only hid the dialog: the model went on summarising for no one (review)."""
    window, dialog = opened(qtbot, fake, make_window)
    worker = dialog.worker
    assert worker is not None
    dialog.reject()  # what Esc does
    assert worker.cancelled and not dialog.isVisible()
    qtbot.waitUntil(lambda: dialog not in window.dialogs, timeout=10_000)
    fake.release_summary.set()


def a_summary(fake: FakeEngine) -> SummaryResult:
    """A model's brief summary of a.pdf, as the fake engine makes them."""
    fake.add_document("/docs/a.pdf")
    return fake._summary(fake.resolve("/docs/a.pdf"), "brief", "generated", "smollm2:135m")


def shown(qtbot: Any, fake: FakeEngine, make_window: Any, result: SummaryResult) -> SummaryDialog:
    """The window's Summarize… on a.pdf, answered with ``result``, once shown."""
    fake.summaries.append(result)
    window = make_window(fake)
    window.summarize("/docs/a.pdf")
    (dialog,) = [d for d in window.dialogs if isinstance(d, SummaryDialog)]
    with qtbot.waitSignal(dialog.summary_finished, timeout=10_000):
        pass
    return dialog


def test_sentences_the_document_does_not_say_are_underlined_and_counted(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    invented = "The society also breeds racing pigeons and sells them across Europe."
    said = "The society keeps the lighthouse on the northern breakwater."
    result = a_summary(fake)
    result.summary = f"{said} {invented}"
    result.unsupported = [invented]
    result.places = {said: "p. 2"}  # where the document says it
    dialog = shown(qtbot, fake, make_window, result)
    status = dialog.status.text()
    assert "1 sentence of this summary (underlined) is not clearly supported" in status
    text = dialog.view.toPlainText()
    assert text == f"{said[:-1]} (p. 2). {invented}"
    doc = dialog.view.document()
    wave = QTextCharFormat.UnderlineStyle.WaveUnderline
    inside = text.index("racing pigeons") + 2
    cursor = QTextCursor(doc)
    cursor.setPosition(inside)
    cursor.setPosition(inside + 1, QTextCursor.MoveMode.KeepAnchor)
    assert cursor.charFormat().underlineStyle() == wave
    assert "Not clearly supported by the document" in cursor.charFormat().toolTip()
    cursor.setPosition(text.index("lighthouse") + 2)
    cursor.setPosition(text.index("lighthouse") + 3, QTextCursor.MoveMode.KeepAnchor)
    assert cursor.charFormat().underlineStyle() != wave
    dialog.close()


def test_a_summary_of_a_file_saved_again_since_it_was_indexed_says_so(
    qtbot: Any, fake: FakeEngine, make_window: Any
) -> None:
    result = a_summary(fake)
    result.cached, result.file_changed = True, True
    dialog = shown(qtbot, fake, make_window, result)
    status = dialog.status.text()
    assert "(saved earlier). a.pdf was saved again after it was indexed: this summary" in status
    assert "Re-index it (the library's menu) to summarize the new one." in status
    dialog.close()
