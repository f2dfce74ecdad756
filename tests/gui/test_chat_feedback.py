"""The chat as a person uses it: the stage and time while waiting, Retry that keeps the
earlier answer, a view that follows new text until the user scrolls up, cut and stopped
answers marked, New conversation, and a keyboard path to Ask."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fakes import FakeEngine, answer, citation
from gui_helpers import ask_and_wait
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractSlider

from docent.core.api import Answer
from docent.gui.chat_pane import ChatPane

LONG = " ".join(f"Sentence {i} of a long answer about the timer [1]." for i in range(120))


@pytest.fixture
def chat(qtbot: Any, fake: FakeEngine, drain: None) -> Iterator[ChatPane]:
    pane = ChatPane(fake)
    qtbot.addWidget(pane)
    pane.resize(520, 480)
    pane.show()
    qtbot.waitExposed(pane)
    yield pane
    pane.stop()


def test_the_wait_says_its_stage_and_the_time_so_far(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    fake.answers = [answer("The timer counts at 60Hz.")]
    fake.hold_before_tokens.set()
    assert not chat.status.isVisibleTo(chat)
    chat.ask("How fast is the timer?")
    assert fake.waiting_paused.wait(10)
    model = fake.settings.ollama_model
    qtbot.waitUntil(lambda: chat.status.text().startswith(f"Waiting for {model}"), timeout=10_000)
    assert chat.status.isVisibleTo(chat) and chat.status.text().endswith(" s")
    # the time goes on while nothing else happens (a silent wait reads as a hang)
    qtbot.waitUntil(lambda: "· 1 s" in chat.status.text(), timeout=10_000)
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000):
        fake.release_answer.set()
    assert not chat.status.isVisibleTo(chat)


def test_the_status_follows_the_words_as_they_arrive(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    fake.answers = [answer("First words and then the rest of it.")]
    fake.hold_answer.set()
    chat.ask("Tell me")
    assert fake.answer_paused.wait(10)
    qtbot.waitUntil(lambda: "is writing the answer" in chat.status.text(), timeout=10_000)
    assert chat.status.text().endswith(" s") and " so far · " in chat.status.text()
    assert not chat.retry_button.isEnabled()  # asking again is for after the answer
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000):
        fake.release_answer.set()
    assert chat.retry_button.isEnabled()


def test_an_answer_asked_again_drops_the_first_and_says_so(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    second = answer("The timer counts at 60Hz [1].", [citation(1, "/d/vax.pdf")])
    second.attempt, second.attempts, second.model = 2, 2, "tiny:1b"
    fake.answers = [second]
    fake.first_try = "Penguins drive the lunar rover to Jupiter."
    fake.hold_answer.set()
    chat.ask("How fast is the timer?")
    assert fake.answer_paused.wait(10)
    # the second answer's first word is in; the first answer's words are gone
    qtbot.waitUntil(lambda: "another answer" in chat.status.text(), timeout=10_000)
    assert "1 word so far" in chat.status.text()
    qtbot.waitUntil(lambda: "The" in chat.view.toPlainText(), timeout=10_000)
    assert "Penguins" not in chat.view.toPlainText()
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000):
        fake.release_answer.set()
    shown = chat.view.toPlainText()
    assert "Penguins" not in shown and "60Hz" in shown
    assert (
        "No passage supported tiny:1b's first answer, so Docent asked it again (asked "
        "twice): this is the second." in shown
    )


def test_a_first_answer_that_stands_after_the_tries_says_so(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    first = answer("The lunar rover carried penguins.")
    first.attempt, first.attempts, first.model = 1, 3, "tiny:1b"
    fake.answers = [first]
    ask_and_wait(qtbot, chat, "How fast is the timer?")
    assert (
        "Docent asked tiny:1b again (asked 3 times); no later answer had a sentence your "
        "documents clearly say, so this first one stands." in chat.view.toPlainText()
    )


def test_the_status_says_when_the_model_is_asked_again(qtbot: Any) -> None:
    from docent.core.api import AskStage
    from docent.gui.chat_controls import AskStatus

    status = AskStatus()
    qtbot.addWidget(status)
    status.start("tiny:1b")
    status.add_tokens("Penguins drive")
    status.set_stage(AskStage.RETRYING)
    assert status.describe().startswith("No passage supports tiny:1b's answer: asking it again")
    status.add_tokens("The timer")
    assert status.describe().startswith("tiny:1b is writing another answer · 2 words so far")


def test_retry_keeps_the_earlier_answer_until_the_new_one_is_in(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    quoted = citation(1, "/d/vax.pdf", 4, "The page size is 65536 bytes.")
    fake.answers = [
        answer("> The page size is 65536 bytes. [1]", [quoted], mode="extractive"),
        answer("It is 12 [1].", [citation(1, "/d/other.pdf", 9)]),
    ]
    first = ask_and_wait(qtbot, chat, "How big is a page?")
    fake.hold_answer.set()
    chat.retry_last()
    assert fake.answer_paused.wait(10)
    qtbot.waitUntil(lambda: "Asking again" in chat.view.toPlainText(), timeout=10_000)
    shown = chat.view.toPlainText()
    assert "65536" in shown, "the earlier answer vanished while the new one was written"
    assert chat.turn(1) is first and chat.turn(1).citations == [quoted]
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000) as done:
        fake.release_answer.set()
    newer = done.args[0]
    assert newer.answer.text == "It is 12 [1]." and newer.attempt == 2
    assert [t.attempt for t in chat.conversation.attempts(newer)] == [1, 2]
    assert fake.attempts_asked == [1, 2], "a Retry must ask the model anew, not the same seed"
    assert chat.answer_bar.attempt_label.text() == "Answer 2 of 2"
    assert chat.answer_bar.earlier_button.isEnabled()
    assert not chat.answer_bar.later_button.isEnabled()
    # back to the earlier answer, with its passages
    with qtbot.waitSignal(chat.attempt_shown, timeout=10_000) as back:
        chat.answer_bar.earlier_button.click()
    assert back.args[0] is first and chat.conversation.turns == [first]
    assert "65536" in chat.view.toPlainText() and "It is 12" not in chat.view.toPlainText()
    assert chat.answer_bar.attempt_label.text() == "Answer 1 of 2"
    md = chat.export_markdown()
    assert "Asked 2 times; answer 1 is shown first." in md and "It is 12" in md


def test_a_retry_that_fails_leaves_the_earlier_answer_shown(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    fake.answers = [answer("Quoted [1].", [citation(1, "/d/a.pdf")], mode="extractive")]
    first = ask_and_wait(qtbot, chat, "Why?")
    fake.answers = [RuntimeError("Ollama went away again")]
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000) as done:
        chat.retry_last()
    assert done.args[0] is first, "a failed retry replaced a good answer"
    assert chat.answer_bar.attempt_label.text() == "Answer 1 of 2"
    with qtbot.waitSignal(chat.attempt_shown, timeout=10_000) as later:
        chat.answer_bar.later_button.click()
    assert later.args[0].error == "Ollama went away again"


def test_the_view_follows_new_text_until_the_user_scrolls_up(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    bar = chat.view.verticalScrollBar()
    fake.answers = [answer(LONG), answer(LONG), answer(LONG)]
    ask_and_wait(qtbot, chat, "first")
    assert bar.maximum() > 0, "the answer should not fit: nothing to follow"
    assert bar.value() == bar.maximum() and chat.view.following
    ask_and_wait(qtbot, chat, "second")
    assert bar.value() == bar.maximum(), "the next answer was left below the fold"
    # while the third streams in, the user scrolls up to read: the view stays there
    fake.hold_answer.set()
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000):
        chat.ask("third")
        assert fake.answer_paused.wait(10)
        qtbot.waitUntil(lambda: "third" in chat.view.toPlainText(), timeout=10_000)
        bar.triggerAction(QAbstractSlider.SliderAction.SliderPageStepSub)
        assert not chat.view.following
        reading = bar.value()
        fake.release_answer.set()
    assert bar.value() == reading and bar.value() < bar.maximum()
    assert chat.answer_bar.latest_button.isVisibleTo(chat)
    chat.answer_bar.latest_button.click()
    assert chat.view.following and bar.value() == bar.maximum()
    assert not chat.answer_bar.latest_button.isVisibleTo(chat)
    # scrolling back to the bottom by hand follows again
    bar.triggerAction(QAbstractSlider.SliderAction.SliderPageStepSub)
    assert not chat.view.following
    bar.triggerAction(QAbstractSlider.SliderAction.SliderToMaximum)
    assert chat.view.following


def test_a_stopped_answer_and_a_cut_one_do_not_look_finished(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    cut = answer("The CPU VAX-11/78", model="smollm2:135m")
    cut.partial, cut.reason = True, "The model stopped: it reached its length limit."
    fake.answers = [cut]
    ask_and_wait(qtbot, chat, "Which CPU?")
    shown = chat.view.toPlainText()
    assert "⚠ Incomplete answer: The model stopped" in shown
    assert "Answered by" not in shown
    # a stream that broke: its last line says why, and the footer does not say it again
    why = "The connection to Ollama was cut mid-answer: Ollama stopped or restarted."
    broke = answer(f"The CPU is a VAX.\n\n(Answer incomplete: {why})", model="smollm2:135m")
    broke.partial, broke.reason = True, why
    fake.answers = [broke]
    ask_and_wait(qtbot, chat, "Which CPU is it?")
    shown = chat.view.toPlainText()
    assert shown.count("cut mid-answer") == 1
    assert "⚠ Incomplete answer (its last line says why)." in shown
    fake.answers = [answer("Never comes.")]
    fake.hold_before_tokens.set()
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000):
        chat.ask("Another?")
        assert fake.waiting_paused.wait(10)
        chat.stop()
    assert "Stopped by you before any answer came" in chat.view.toPlainText()


def test_new_conversation_starts_over_without_the_old_scope(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    chat.set_scope(["/docs/a.pdf"])
    fake.answers = [answer("About a.")]
    ask_and_wait(qtbot, chat, "first topic")
    with qtbot.waitSignal(chat.conversation_changed, timeout=10_000):
        assert chat.new_conversation()
    assert chat.turns == [] and chat.scope == [] and chat.view.toPlainText() == ""
    fake.answers = [answer("About b.")]
    turn = ask_and_wait(qtbot, chat, "another topic")
    assert turn.number == 1 and fake.asked[-1][1] is None


def test_tab_in_the_question_box_goes_to_ask_and_ctrl_enter_asks(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    chat.activateWindow()
    chat.input.setFocus()
    qtbot.waitUntil(chat.input.hasFocus, timeout=10_000)
    qtbot.keyClicks(chat.input, "Which CPU?")
    qtbot.keyClick(chat.input, Qt.Key.Key_Tab)
    assert chat.input.toPlainText() == "Which CPU?", "Tab typed a tab character"
    qtbot.waitUntil(chat.send_button.hasFocus, timeout=10_000)
    chat.input.setFocus()
    fake.answers = [answer("A VAX-11/780.")]
    with qtbot.waitSignal(chat.answer_finished, timeout=10_000):
        qtbot.keyClick(chat.input, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert fake.asked[-1][0] == "Which CPU?"
    for w in (chat.input, chat.send_button, chat.stop_button, chat.model_combo, chat.view):
        assert w.accessibleName() or w.toolTip(), f"{type(w).__name__} has no name"
    assert "Ctrl+Enter" in chat.send_button.toolTip()


def test_the_banner_after_a_counted_answer_says_the_model_answered() -> None:
    """Ollama is up; the model counted "1) 2) 3)" and its passages are quoted: the banner
    must not say the model wrote nothing for a reason Retry alone would fix."""
    from docent.core.api import Health
    from docent.gui.health import banner

    why = "The answer was cut because the model wrote numbers instead of words."
    counted = answer("quotes", mode="extractive", reason=why, cut=why)
    text, retry = banner(Health(True, ["tiny:1b"]), "tiny:1b", counted)
    assert retry and text.startswith("Ollama is running with tiny:1b, but its last answer")
    down = answer("quotes", mode="extractive", reason="Ollama is not running.")
    text, retry = banner(Health(True, ["tiny:1b"]), "tiny:1b", down)
    assert retry and "The last answer only quotes passages" in text


def test_the_banner_for_ollama_down_says_what_answers_do_once() -> None:
    """The client's message says "(answers are extractive until then)" and the banner
    went on "Until then, answers quote the best passages.": the same thing twice."""
    from docent.core.api import Health
    from docent.core.llm import OllamaClient
    from docent.gui.health import banner

    down = OllamaClient("http://127.0.0.1:9", "tiny:1b", 1.0, 1.0, 1.0).health(1.0)
    assert not down.ok and "(answers are extractive until then)" in down.message
    text, _ = banner(down, "tiny:1b", None)
    assert "until then" not in text.lower() and text.count("Meanwhile, answers quote") == 1
    assert text.startswith("Ollama is not running at") and "ollama serve" in text
    assert banner(Health(False), "tiny:1b", None)[0].startswith("Ollama is not running.")


def test_the_status_says_when_the_model_orders_the_passages(qtbot: Any) -> None:
    from docent.core.api import AskStage
    from docent.gui.chat_controls import AskStatus

    status = AskStatus()
    qtbot.addWidget(status)
    status.start("tiny:1b")
    status.set_stage(AskStage.RERANKING)
    assert status.describe().startswith("tiny:1b is choosing the passages that answer best")
    status.set_stage(AskStage.WAITING)
    assert status.describe().startswith("Waiting for tiny:1b to start answering")


@pytest.mark.parametrize(
    ("reranked", "said"),
    [
        (
            [3, 1],
            "tiny:1b put first the passages it judged to answer (LLM rerank): the search had "
            "them at ranks 3 and 1.",
        ),
        (
            [7],
            "tiny:1b put first the passage it judged to answer (LLM rerank): the search had "
            "it at rank 7.",
        ),
        (
            [],
            "tiny:1b was asked which passages answer (LLM rerank) and named none: they are in "
            "the search's order.",
        ),
        (
            # nothing moved: not "put first ... at ranks 1 and 2" (QA, session 26)
            [1, 2],
            "tiny:1b was asked which passages answer (LLM rerank) and chose the search's "
            "first 2 passages: the order is the search's.",
        ),
    ],
)
def test_an_answer_says_what_the_llm_rerank_did(
    qtbot: Any, fake: FakeEngine, chat: ChatPane, reranked: list[int], said: str
) -> None:
    given = answer("The timer counts at 60Hz [1].", [citation(1, "/d/vax.pdf")])
    given.model, given.reranked = "tiny:1b", reranked
    fake.answers = [given]
    ask_and_wait(qtbot, chat, "How fast is the timer?")
    assert said in " ".join(chat.view.toPlainText().split())


def test_a_rerank_that_failed_says_so_not_that_it_named_none(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    given = answer("The timer counts at 60Hz [1].", [citation(1, "/d/vax.pdf")])
    given.model, given.reranked, given.rerank_failed = "", [], "it did not reply in time"
    fake.answers = [given]
    ask_and_wait(qtbot, chat, "How fast is the timer?")
    shown = " ".join(chat.view.toPlainText().split())
    assert (
        "The model was asked which passages answer (LLM rerank), but it did not reply in "
        "time: they are in the search's order." in shown
    )
    assert "named none" not in shown


def test_an_answer_without_the_llm_rerank_says_nothing_of_it(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    fake.answers = [answer("The timer counts at 60Hz [1].", [citation(1, "/d/vax.pdf")])]
    ask_and_wait(qtbot, chat, "How fast is the timer?")
    assert "LLM rerank" not in chat.view.toPlainText()


def test_a_follow_up_searched_with_other_words_says_which(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    """Without a model, a follow-up was searched with the previous question's words
    added, and nothing said so: its quoted passages seemed to be the best for what was
    asked (QA, session 27)."""
    given = answer("> The timer counts at 60Hz.", [citation(1, "/d/vax.pdf")], mode="extractive")
    given.question, given.query = "And how fast?", "And how fast? timer vax clock"
    fake.answers = [given]
    ask_and_wait(qtbot, chat, "And how fast?")
    shown = " ".join(chat.view.toPlainText().split())
    assert (
        "Searched as a follow-up: “And how fast? timer vax clock” (your question with words "
        "of the one before it)." in shown
    )
    rewritten = answer("The timer counts at 60Hz [1].", [citation(1, "/d/vax.pdf")])
    rewritten.model, rewritten.question = "tiny:1b", "And how fast?"
    rewritten.query, rewritten.rewrites = "How fast is the VAX timer?", ["And how fast? timer"]
    fake.answers = [rewritten]
    ask_and_wait(qtbot, chat, "And how fast?")
    shown = " ".join(chat.view.toPlainText().split())
    assert "Searched as a follow-up, as tiny:1b rewrote it: “How fast is the VAX timer?”." in shown


def test_a_question_searched_as_asked_says_nothing_of_it(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    given = answer("The timer counts at 60Hz [1].", [citation(1, "/d/vax.pdf")])
    given.question = given.query = "How fast is the timer?"
    fake.answers = [given]
    ask_and_wait(qtbot, chat, "How fast is the timer?")
    assert "Searched as" not in chat.view.toPlainText()


def test_the_banner_sets_commands_in_code_type_and_escapes_the_rest() -> None:
    """ "`ollama serve`" was shown with its backticks (QA, session 26)."""
    from docent.gui.plain import banner_html

    assert banner_html("Start it with `ollama serve`, then `ollama pull x`.") == (
        "Start it with <code>ollama serve</code>, then <code>ollama pull x</code>."
    )
    assert banner_html("Model <x> & y's `odd") == "Model &lt;x&gt; &amp; y's `odd"


def shown_after(qtbot: Any, fake: FakeEngine, chat: ChatPane, given: Answer) -> str:
    """The conversation's text, spaces joined, once ``given`` answered a question."""
    fake.answers = [given]
    ask_and_wait(qtbot, chat, "Who led Debian after Ian?")
    return " ".join(chat.view.toPlainText().split())


def test_a_page_the_model_named_but_was_not_given_is_said_in_the_footer(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    given = answer("When Ian left, he chose Bruce [1].", [citation(1, "/d/history.pdf")])
    given.unoffered_pages = ["history__en.pdf p.34"]
    shown = shown_after(qtbot, fake, chat, given)
    assert "Dropped history__en.pdf p.34: the model named a page it was not given." in shown


def test_a_page_the_answer_names_but_was_not_given_is_said_in_the_footer(
    qtbot: Any, fake: FakeEngine, chat: ChatPane
) -> None:
    given = answer("When Ian left, he chose Bruce [1], as page 34 says.", [citation(1, "/d/h.pdf")])
    given.pages_not_given = ["page 34"]
    shown = shown_after(qtbot, fake, chat, given)
    assert "The answer names page 34, but no passage given to the model is from that page" in shown
