"""Markdown that cannot act: model output and document text shown in a QTextBrowser.

QTextBrowser is not safe by default: raw ``<a href=file:...>`` is live, an image
``![x](file:///etc/hostname)`` makes it read a local file, and a clicked ``file:`` link
shows that file. SafeBrowser turns all of that off: it never navigates on its own, it
parses Markdown without HTML, and it loads no resources at all. Clicks come out as the
``link_activated`` signal for the owner to judge.

Overriding the browser's ``loadResource`` is not enough: when it returns nothing,
``QTextDocument::loadResource`` itself falls back to reading local files (checked on
6.11.2: ``document().resource(ImageResource, file:///etc/hostname)`` returned the file).
So the document is a SafeDocument, whose ``loadResource`` is the last word for style
sheets and the like. Images need more: when a resource comes back empty, Qt's image
handler reads the image's *file name* itself (``QImage::load``, seen with strace:
``![x](/any/path)`` was opened, and a FIFO there hung the window). So images are drawn by
NoImages, which reads nothing and shows a placeholder.

Citation markers ``[1]`` become internal ``cite:<turn>.<n>`` links styled as chips, and
sentences the faithfulness check did not support get a wavy underline and a tooltip. A
chip for a passage Docent matched to a sentence (the model did not cite it) is outlined
rather than filled: no background, a dashed underline, and a tooltip that says so.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Collection, Iterator, Mapping
from typing import Any

from PySide6.QtCore import QRect, QRectF, QRegularExpression, QSizeF, QUrl, Signal
from PySide6.QtGui import (
    QColor,
    QFontMetricsF,
    QPainter,
    QPyTextObject,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)
from PySide6.QtWidgets import QTextBrowser, QWidget

from docent.core.api import MARKER, code_spans, in_spans, marker_numbers
from docent.gui.plain import plain_tip

#: md4c's MD_FLAG_UNDERLINE, part of Qt's GitHub dialect: it draws ``_text_`` underlined,
#: where Markdown means italic. Docent's notes ("_Sections: 4 of 4 summarised..._") read
#: as links that way (seen under Xvfb), and underlines are the view's mark of an unsupported
#: sentence.
_MD_UNDERLINE = 0x4000
MARKDOWN_FEATURES = QTextDocument.MarkdownFeature(
    (
        QTextDocument.MarkdownFeature.MarkdownDialectGitHub
        | QTextDocument.MarkdownFeature.MarkdownNoHTML
    ).value
    & ~_MD_UNDERLINE
)
CITE_SCHEME = "cite"
CHIP_BACKGROUND = QColor("#dbe7ff")
CHIP_FOREGROUND = QColor("#1a4fb5")
UNSUPPORTED_COLOUR = QColor("#c77700")
UNSUPPORTED_TIP = "Not clearly supported by the cited passage — check the source."
UNSAID_TIP = (
    "The cited passage does not say this part: the sentence copies the passage, then goes "
    "on with words of the model's own — check the source."
)
MATCHED_TIP = (
    "Matched by Docent: the model did not cite this passage; its words and meaning support "
    "the sentence. Click to see it."
)

# Citations are chipped as the core reads them (``MARKER``: [1], [2, 3], [1-3], [1; 2],
# [1][2]; not a Markdown link's [2](url) nor a footnote [^1]).
_CHIP_TEXT = QRegularExpression(r"\[\d{1,3}\]")
_CHIP_FORMAT = QTextCharFormat()
_CHIP_FORMAT.setBackground(CHIP_BACKGROUND)
_CHIP_FORMAT.setForeground(CHIP_FOREGROUND)
_CHIP_FORMAT.setFontUnderline(False)
_CHIP_FORMAT.setFontWeight(600)
_MATCHED_FORMAT = QTextCharFormat(_CHIP_FORMAT)
_MATCHED_FORMAT.setBackground(QColor(0, 0, 0, 0))
_MATCHED_FORMAT.setUnderlineStyle(QTextCharFormat.UnderlineStyle.DashUnderline)
_MATCHED_FORMAT.setUnderlineColor(CHIP_FOREGROUND)
_MATCHED_FORMAT.setToolTip(MATCHED_TIP)


def cite_url(turn: int, n: int) -> str:
    return f"{CITE_SCHEME}:{turn}.{n}"


def parse_cite(url: QUrl) -> tuple[int, int] | None:
    """``cite:3.2`` -> (turn 3, citation 2); anything else -> None."""
    if url.scheme() != CITE_SCHEME:
        return None
    turn, _, n = url.path().partition(".")
    if not (turn.isdigit() and n.isdigit()):
        return None
    return int(turn), int(n)


def linkify_citations(markdown: str, turn: int) -> str:
    """``[1]`` -> a chip link to citation 1 of ``turn``; code (fenced blocks, inline
    spans: ``code_spans``, where core reads no citation either) is left alone."""
    code = code_spans(markdown)

    def chips(m: re.Match[str]) -> str:
        return m.group(0) if in_spans(m.start(), code) else _chips(m, turn)

    return MARKER.sub(chips, markdown)


def _chips(m: re.Match[str], turn: int) -> str:
    numbers = list(dict.fromkeys(marker_numbers(m.group(1))))
    return " ".join(f"[\\[{n}\\]]({cite_url(turn, n)})" for n in numbers)


class SafeDocument(QTextDocument):
    """A document that fetches nothing: no images, style sheets or files, ever."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.resources_requested = 0

    def loadResource(self, type: int, name: QUrl | str) -> Any:  # noqa: A002 - Qt's name
        self.resources_requested += 1
        return None


class NoImages(QPyTextObject):
    """Draws every image of a document as a grey placeholder, reading nothing."""

    PLACEHOLDER = "[image not shown]"

    def intrinsicSize(self, doc: QTextDocument, pos: int, fmt: QTextFormat) -> QSizeF:  # noqa: N802
        metrics = QFontMetricsF(doc.defaultFont())
        return QSizeF(metrics.horizontalAdvance(self.PLACEHOLDER), metrics.height())

    def drawObject(  # noqa: N802 - Qt's name
        self,
        painter: QPainter,
        rect: QRectF | QRect,
        doc: QTextDocument,
        pos: int,
        fmt: QTextFormat,
    ) -> None:
        painter.save()
        painter.setPen(QColor("#888888"))
        painter.drawText(rect, self.PLACEHOLDER)
        painter.restore()


class SafeBrowser(QTextBrowser):
    #: the user clicked a link (QUrl); nothing was opened
    link_activated = Signal(QUrl)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setDocument(SafeDocument(self))
        # After setDocument: the layout that draws this document is the one to tell.
        self._no_images = NoImages(self)
        self.document().documentLayout().registerHandler(
            QTextFormat.ObjectTypes.ImageObject.value, self._no_images
        )
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setUndoRedoEnabled(False)
        self.anchorClicked.connect(self.link_activated.emit)

    def loadResource(self, type: int, name: QUrl | str) -> Any:  # noqa: A002 - Qt's name
        """No images, style sheets or files: nothing in a document or answer is fetched."""
        return None

    def setSource(self, name: QUrl | str, type: Any = None) -> None:  # noqa: A002
        """Never navigate (a click or a call must not load a file into the view)."""

    def set_markdown(self, markdown: str) -> None:
        # a model's summary opening with a rule lost all up to its next one (review, s34)
        self.document().setMarkdown(_no_front_matter(markdown), MARKDOWN_FEATURES)
        with self.one_edit():
            self.style_chips()

    @contextlib.contextmanager
    def one_edit(self) -> Iterator[None]:
        """Group the changes made inside into one: the document lays itself out once, at
        the end, instead of after every chip styled (a long answer: 40+ ms -> a few)."""
        cur = QTextCursor(self.document())
        cur.beginEditBlock()
        try:
            yield
        finally:
            cur.endEditBlock()

    def end_position(self) -> int:
        return self.document().characterCount() - 1

    def replace_tail(
        self,
        start: int,
        markdown: str,
        matched: Collection[str] = (),
        tips: Mapping[str, str] | None = None,
    ) -> None:
        """Replace everything from ``start`` on with ``markdown`` (chips styled; the
        ``cite:`` links in ``matched`` as matched chips; ``tips``: what each chip's tooltip
        names, by link).

        A streaming answer redraws only its own turn, not the whole conversation.
        """
        cur = QTextCursor(self.document())
        cur.setPosition(min(start, self.end_position()))
        cur.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
        cur.removeSelectedText()
        # What is left at ``start`` keeps the format of the last block removed: a list
        # item's, when the tail drawn before ended in "1)", and an empty numbered item
        # then stood under the turn before ("1)" under its footer).
        listed = cur.block().textList()
        if listed is not None:
            listed.remove(cur.block())
        cur.setBlockFormat(QTextBlockFormat())
        cur.insertMarkdown(_no_front_matter(markdown), MARKDOWN_FEATURES)
        self.style_chips(start, matched, tips)

    def new_tail(self) -> int:
        """Close what is shown and return where the next tail starts."""
        cur = QTextCursor(self.document())
        cur.movePosition(QTextCursor.MoveOperation.End)
        cur.insertBlock()
        return cur.position()

    def style_chips(
        self,
        start: int = 0,
        matched: Collection[str] = (),
        tips: Mapping[str, str] | None = None,
    ) -> None:
        """Give every ``cite:`` link (from ``start`` on) the look of a chip, outlined for
        the links in ``matched`` (citations Docent matched, not the model's).

        Chips are found by their text, a few Qt calls each: walking every fragment of a
        long answer costs many calls, and each call can wait for the GIL while a worker
        holds it.
        """
        doc = self.document()
        cur = doc.find(_CHIP_TEXT, start)
        while not cur.isNull():
            href = cur.charFormat().anchorHref()
            if href.startswith(CITE_SCHEME + ":"):
                fmt = _MATCHED_FORMAT if href in matched else _CHIP_FORMAT
                tip = (tips or {}).get(href)
                if tip:  # the file and place it cites ("report.docx, § Results")
                    fmt = QTextCharFormat(fmt)
                    # the tip quotes a file name: "<b>draft.pdf" must not be markup
                    fmt.setToolTip(plain_tip(tip + ("\n" + MATCHED_TIP if href in matched else "")))
                cur.mergeCharFormat(fmt)
            cur = doc.find(_CHIP_TEXT, cur.selectionEnd())

    def mark_sentences(
        self, sentences: list[str], start: int = 0, tip: str = UNSUPPORTED_TIP
    ) -> int:
        """Underline each sentence (or part of one) found from ``start`` on, with ``tip``
        as its tooltip; returns how many were."""
        found = 0
        mark = QTextCharFormat()
        mark.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
        mark.setUnderlineColor(UNSUPPORTED_COLOUR)
        mark.setBackground(QColor(255, 196, 0, 40))
        mark.setToolTip(tip)
        doc = self.document()
        for sentence in sentences:
            cur = _find_loosely(doc, sentence, start)
            if cur is not None:
                cur.mergeCharFormat(mark)
                found += 1
        return found


#: Leading list bullets or item numbers, as a small model stacks them ("1) 3) The ...").
_LIST_MARKS = re.compile(r"^(?:(?:[-+•]|\d{1,2}[.)])\s+)+")


def _find(doc: QTextDocument, text: str, start: int) -> QTextCursor:
    """The first place ``text`` stands as whole words from ``start`` on, else the first
    place at all: an answer cut mid-word ("Bob Sup") is not lit inside an earlier,
    whole sentence ("Bob Supnik")."""
    cur = doc.find(text, start, QTextDocument.FindFlag.FindWholeWords)
    return cur if not cur.isNull() else doc.find(text, start)


def _find_loosely(doc: QTextDocument, sentence: str, start: int = 0) -> QTextCursor | None:
    """The sentence as shown, tolerating Markdown marks and citation chips in it."""
    # underscores inside words are text ("project-history__en.pdf": escaped, shown as
    # written; the sentence was never found when they were dropped: QA, session 26)
    for plain in (re.sub(r"[*`]+", "", sentence).strip(), re.sub(r"[*_`]+", "", sentence).strip()):
        # "1) The ..." is drawn as a list item: its number is not text the view can find
        plain = _LIST_MARKS.sub("", plain)
        for candidate in (plain, re.sub(r"\s*\[\d+(?:\s*,\s*\d+)*\]", "", plain).strip()):
            if len(candidate) < 8:
                continue
            cur = _find(doc, candidate, start)
            if not cur.isNull():
                return cur
    words = plain.split()
    if len(words) >= 6:  # the start and the end of it, when the middle was reformatted
        head = _find(doc, " ".join(words[:5]), start)
        if not head.isNull():
            tail = doc.find(" ".join(words[-3:]), head.selectionEnd())
            end = tail.selectionEnd() if not tail.isNull() else head.selectionEnd()
            head.setPosition(head.selectionStart())
            head.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
            return head
    return None


_FRONT_MATTER_OPENING = re.compile(r"\A---[ \t]*(?=\n|\Z)")


def _no_front_matter(markdown: str) -> str:
    """``markdown`` with an opening "---" line written "***", the same rule: Qt (6.11)
    reads a "---" line opening a text, up to the next one, as YAML front matter and drops
    it. A conversation's tail opens with the rule between turns, and a Retry's tail has a
    second one before "Asking again": the turn asked again vanished (QA-77). Every text
    the view shows is Docent's or a model's, never a document's own front matter."""
    return _FRONT_MATTER_OPENING.sub("***", markdown, count=1)
