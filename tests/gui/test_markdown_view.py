"""An answer is drawn in one edit: one layout however many chips and marks it has."""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QTextCharFormat, QTextCursor

from docent.gui.markdown_view import (
    CHIP_BACKGROUND,
    MATCHED_TIP,
    SafeBrowser,
    cite_url,
    linkify_citations,
)

UNSUPPORTED = "The timer is reset by the operator at every shift change"
ANSWER = (
    " ".join(f"Sentence {i} says something about the timer [{1 + i % 3}]." for i in range(12))
    + f" {UNSUPPORTED} [2]."
)


def format_at(view: SafeBrowser, text: str) -> QTextCharFormat:
    found = view.document().find(text)
    assert not found.isNull(), f"{text!r} is not shown"
    cur = QTextCursor(view.document())
    cur.setPosition(found.selectionStart() + 1)
    return cur.charFormat()


def draw(view: SafeBrowser, batched: bool) -> int:
    """Draw the answer as the chat does; return how many content changes the view saw."""
    changes: list[Any] = []
    view.document().contentsChange.connect(lambda *args: changes.append(args))
    md = linkify_citations(ANSWER, turn=0)
    if batched:
        with view.one_edit():
            view.replace_tail(0, md)
            view.mark_sentences([UNSUPPORTED])
    else:
        view.replace_tail(0, md)
        view.mark_sentences([UNSUPPORTED])
    return len(changes)


def test_an_answer_with_chips_and_marks_is_one_change(qtbot: Any) -> None:
    view = SafeBrowser()
    qtbot.addWidget(view)
    assert draw(view, batched=True) == 1, "each chip or mark re-laid out the answer"
    chip = format_at(view, "[3]")
    assert chip.isAnchor() and chip.anchorHref() == "cite:0.3"
    assert chip.background().color() == CHIP_BACKGROUND, "the chip was not styled"
    mark = format_at(view, UNSUPPORTED)
    assert mark.underlineStyle() == QTextCharFormat.UnderlineStyle.WaveUnderline


def test_without_the_edit_block_every_chip_is_a_change(qtbot: Any) -> None:
    """The measurement above can fail: the same drawing, unbatched, changes many times."""
    view = SafeBrowser()
    qtbot.addWidget(view)
    assert draw(view, batched=False) > 12


def test_a_matched_chip_is_outlined_with_a_tooltip(qtbot: Any) -> None:
    view = SafeBrowser()
    qtbot.addWidget(view)
    view.replace_tail(0, linkify_citations("Cited [1]. Matched [2].", turn=4), {cite_url(4, 2)})
    model, matched = format_at(view, "[1]"), format_at(view, "[2]")
    assert model.background().color() == CHIP_BACKGROUND and not model.toolTip()
    assert matched.isAnchor() and matched.anchorHref() == "cite:4.2"  # clicks as usual
    assert matched.background().color().alpha() == 0, "a matched chip is not filled"
    assert matched.underlineStyle() == QTextCharFormat.UnderlineStyle.DashUnderline
    assert matched.toolTip() == MATCHED_TIP and "did not cite" in MATCHED_TIP


def test_a_sentence_drawn_as_a_list_item_is_underlined(qtbot: Any) -> None:
    """smollm2:135m numbers its sentences ("1) The ..."): the view draws the number as
    the list's, so the sentence is found without it (seen under Xvfb: not underlined)."""
    view = SafeBrowser()
    qtbot.addWidget(view)
    first = "1) The correct way to install packages is to ask the mentors on the list."
    second = "2) This is also applicable when asking for help from others on servers."
    view.replace_tail(0, linkify_citations(f"{first}\n\n{second}", turn=0))
    assert view.mark_sentences([first, second]) == 2
    for words in ("The correct way to install", "asking for help from others"):
        assert (
            format_at(view, words).underlineStyle() == QTextCharFormat.UnderlineStyle.WaveUnderline
        )


def test_code_the_model_wrote_gets_no_chips() -> None:
    md = linkify_citations("Use `x[2]` here [1].\n\n```\ny[1]\n```\n", turn=3)
    assert "`x[2]`" in md and "y[1]" in md
    assert md.count("cite:3.") == 1 and f"({cite_url(3, 1)})" in md


def test_a_new_turn_leaves_no_empty_numbered_item_under_the_one_before(qtbot: Any) -> None:
    """A streamed tail that once ended in "1)" left the block it was drawn from a list
    item: an empty "1)" stood under the previous answer's footer."""
    from docent.gui.chat_view import ConversationView

    view = ConversationView()
    qtbot.addWidget(view)
    view.show_tail("**You**\n\nWhich key?\n\n1) The interrupt key [2].\n\n*Answered in 7 s.*\n")
    view.freeze()
    for streamed in ("---\n\n**You**\n\nWhich bus?\n\n1)", "---\n\n**You**\n\nWhich bus?\n\n1) Q"):
        view.show_tail(streamed)
    block, listed = view.document().begin(), []
    while block.isValid():
        if block.textList() is not None:
            listed.append(block.text())
        block = block.next()
    assert listed == ["The interrupt key [2].", "Q"]


def test_a_cut_sentence_is_underlined_where_it_stands_not_inside_an_earlier_one(
    qtbot: Any,
) -> None:
    """An answer stopped mid-word ends with the start of an earlier, supported sentence
    ("CTSS Hardware Bob Sup" after "CTSS Hardware Bob Supnik ..."): the mark goes on the
    cut one, not on the first place its text occurs (seen under Xvfb: half a name lit)."""
    view = SafeBrowser()
    qtbot.addWidget(view)
    first = "1. CTSS Hardware Bob Supnik (fifth revision) [1]"
    cut = "2. CTSS Hardware Bob Sup"
    view.replace_tail(0, linkify_citations(f"{first}\n{cut}", turn=0))
    assert view.mark_sentences([cut]) == 1
    doc = view.document()
    whole = doc.find("CTSS Hardware Bob Supnik")
    assert not whole.isNull()
    cur = QTextCursor(doc)
    cur.setPosition(whole.selectionStart() + 1)
    assert cur.charFormat().underlineStyle() == QTextCharFormat.UnderlineStyle.NoUnderline
    second = doc.find("CTSS Hardware Bob Sup", whole.selectionEnd())
    assert not second.isNull()
    cur.setPosition(second.selectionStart() + 1)
    assert cur.charFormat().underlineStyle() == QTextCharFormat.UnderlineStyle.WaveUnderline


def test_underscores_mean_italic_not_an_underline(qtbot: Any) -> None:
    """Qt's GitHub dialect underlines ``_text_``: Docent's notes in a summary read as links
    (seen under Xvfb), and an underline is the view's mark of an unsupported sentence."""
    view = SafeBrowser()
    qtbot.addWidget(view)
    view.replace_tail(0, "Summary.\n\n_Sections: 4 of 4 summarised by the model._")
    note = format_at(view, "Sections: 4 of 4")
    assert note.fontItalic()
    assert note.underlineStyle() == QTextCharFormat.UnderlineStyle.NoUnderline
    assert not note.fontUnderline()


def test_a_sentence_with_underscores_in_a_word_is_underlined(qtbot: Any) -> None:
    """A small model echoed "debian-history__project-history.en.pdf p.34:" into its
    sentence; the footer said it was underlined, and it was not (QA, session 26)."""
    from docent.gui.turn_markdown import escape_markdown

    sentence = (
        "debian-history__project-history.en.pdf p.34: When Ian Murdock left Debian, he "
        "appointed Bruce Perens"
    )
    view = SafeBrowser()
    qtbot.addWidget(view)
    view.replace_tail(0, escape_markdown(sentence) + ".")
    assert view.mark_sentences([sentence]) == 1
    mark = format_at(view, "project-history.en.pdf p.34: When")
    assert mark.underlineStyle() == QTextCharFormat.UnderlineStyle.WaveUnderline
