"""The conversation as drawn: finished turns stay put, the last turn is redrawn, and the
view follows new text unless the user has scrolled up to read.

Turns before the last are drawn once and frozen (a long chat is not re-laid out for
every token). The last turn stays live: it streams, it may be asked again (Retry), and
the user may switch between its answers.

Following: the view keeps its bottom in sight while text grows (the scroll bar's range
changes after the document is laid out, so it follows the range, not the text). A
scroll by the user (wheel, keys, the bar) that leaves the bottom stops following; one
back to the bottom, or a new question, starts it again.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QAbstractSlider, QWidget

from docent.gui.markdown_view import UNSAID_TIP, SafeBrowser

#: Pixels from the bottom that still count as "at the bottom".
BOTTOM_SLACK = 4


class ConversationView(SafeBrowser):
    #: following the newest text turned on or off (bool)
    follow_changed = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("conversation")
        self.setAccessibleName("Conversation")
        self.setAccessibleDescription(
            "Your questions and Docent's answers; citation links open their source."
        )
        #: where the live tail (the last turn, and a streaming answer) starts
        self.frozen_pos = 0
        self.following = True
        self._user_scrolling = False
        bar = self.verticalScrollBar()
        bar.actionTriggered.connect(self._on_user_scroll)
        bar.valueChanged.connect(self._on_value)
        bar.rangeChanged.connect(self._on_range)

    # Drawing ------------------------------------------------------------------

    def show_tail(
        self,
        markdown: str,
        *,
        unsupported: Collection[str] = (),
        unsaid: Collection[str] = (),
        matched: Collection[str] = (),
        tips: Mapping[str, str] | None = None,
    ) -> None:
        """Draw ``markdown`` as everything after the frozen turns (``unsupported``:
        sentences to underline; ``unsaid``: parts of cited sentences their passage does
        not say, underlined too; ``matched``: the ``cite:`` links of matched citations;
        ``tips``: the chips' tooltips; see replace_tail)."""
        with self.one_edit():
            self.replace_tail(self.frozen_pos, markdown, matched, tips)
            if unsupported:
                self.mark_sentences(list(unsupported), self.frozen_pos)
            if unsaid:
                self.mark_sentences(list(unsaid), self.frozen_pos, UNSAID_TIP)
        if self.following:
            self.scroll_to_end()

    def freeze(self) -> None:
        """What is drawn is final: the next tail starts after it."""
        self.frozen_pos = self.new_tail()

    def reset(self) -> None:
        """An empty conversation (a new one, or another collection's)."""
        self.clear()
        self.frozen_pos = 0
        self.set_following(True)

    # Following ----------------------------------------------------------------

    def at_bottom(self) -> bool:
        bar = self.verticalScrollBar()
        return bar.value() >= bar.maximum() - BOTTOM_SLACK

    def set_following(self, on: bool) -> None:
        if on != self.following:
            self.following = on
            self.follow_changed.emit(on)
        if on:
            self.scroll_to_end()

    def scroll_to_end(self) -> None:
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())

    def _on_user_scroll(self, action: int) -> None:
        # Emitted for wheel, keys and the bar itself, before the value moves.
        if action != QAbstractSlider.SliderAction.SliderNoAction.value:
            self._user_scrolling = True

    def _on_value(self, _value: int) -> None:
        if self._user_scrolling:
            self._user_scrolling = False
            self.set_following(self.at_bottom())

    def _on_range(self, _low: int, _high: int) -> None:
        if self.following:
            self.scroll_to_end()
