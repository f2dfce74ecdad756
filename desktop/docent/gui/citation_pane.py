"""The citation pane: the answer's sources, and the cited page with the passage lit up.

PDF pages are rendered in a worker (pdf_render) at the zoom asked for, or to fit the
pane's width; text files show the whole extracted text with the passage selected.
"""

from __future__ import annotations

import os
import sys
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QPixmap, QResizeEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListView,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from docent.core.api import (
    Citation,
    EngineAPI,
    changed_since_indexed,
    cited_older,
    distinct_names,
    passage_boxes,
    shown,
)
from docent.core.models import LineBox
from docent.gui.messages import bridge, open_file
from docent.gui.pdf_render import PageRender, render_page
from docent.gui.plain import ElidedLabel, NameHeading, plain_label, plain_tip
from docent.gui.text_passage import TextPassage, TextPassageView, load_passage
from docent.gui.viewers import child_environment, launch_at_page, start
from docent.gui.workers import call_in_worker


def _at_page(path: str, page: int) -> bool:
    """The PDF ``path`` started in the default viewer at ``page``; False when that viewer
    takes no page, or could not start, or failed as it started (``viewers.start``)."""
    launch = launch_at_page(path, page)
    if launch is None:
        return False
    bundle = str(getattr(sys, "_MEIPASS", "")) if getattr(sys, "frozen", False) else ""
    return start(launch, child_environment(os.environ, bundle))


ZOOM_STEPS = (0.5, 0.67, 0.8, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0)
CACHE_SIZE = 8
SNIPPET_CHARS = 140
PLACEHOLDER, PDF, TEXT = range(3)


def snippet(text: str, n: int = SNIPPET_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= n else flat[: n - 1].rstrip() + "…"


#: What a rendered page is cached under: path, page, zoom (or fit width), passage, ratio.
RenderKey = tuple[str, int, float | tuple[str, int], int, float]


HINT = "Click a citation [n] in an answer to see its page."


def page_label(c: Citation) -> str:
    """ "p. 3", "pp. 3–4", or the unit a passage of a slide deck, workbook, e-book or
    Word document comes from ("slide 3", "Budget rows 2–26", "§ Setup")."""
    if c.location:
        return c.location
    start, end = c.page, c.page_end
    if not start:
        return ""
    return f"p. {start}" if not end or end == start else f"pp. {start}–{end}"


def ocr_lines(engine: EngineAPI, doc_id: str, page: int, passage: str) -> list[LineBox]:
    """In a worker: on a page read by OCR, the recognised lines that hold the passage."""
    rec = engine.document(doc_id) if doc_id else None
    if rec is None or not rec.ocr_pages:
        return []
    pages = engine.extracted(rec).pages
    if not 1 <= page <= len(pages) or not pages[page - 1].ocr:
        return []
    return passage_boxes(pages[page - 1], passage)


def _is_pdf(c: Citation) -> bool:
    """The cited file's pages are rendered (else its text is shown)."""
    return Path(c.path).suffix.lower() == ".pdf"


class CitationPane(QWidget):
    #: the page shown changed: (path, page)
    page_shown = Signal(str, int)
    #: The person opened a citation: a chip (``select``) or a row of the list.
    citation_opened = Signal()

    def __init__(self, engine: EngineAPI, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.engine = engine
        self.citations: list[Citation] = []
        #: Each cited path's name as shown (``distinct_names``), set with the citations.
        self._names: dict[str, str] = {}
        self.current: Citation | None = None
        self.page = 0
        self.page_count = 0
        self.zoom: float | None = None  # None: fit the width
        self.last_render: PageRender | None = None
        self._generation = 0
        self._cache: OrderedDict[RenderKey, PageRender] = OrderedDict()
        #: path -> how often its pages were forgotten: a render begun before is not cached
        self._forgotten: dict[str, int] = {}
        #: the generation of the render on its way (0: none)
        self._rendering = 0
        self._refit = QTimer(self)
        self._refit.setSingleShot(True)
        self._refit.setInterval(150)
        self._refit.timeout.connect(self._rerender)
        self._build()

    def _build(self) -> None:
        title = QLabel("Sources")
        title.setObjectName("paneTitle")
        self.list = QListWidget()
        self.list.setObjectName("citationList")
        self.list.setAccessibleName("Sources of the answer")
        self.list.setToolTip("The passages the answer cites: pick one to see its page")
        self.list.setWordWrap(True)
        self.list.setAlternatingRowColors(True)
        # rows wrap at the pane's width: a row one word too wide scrolled the whole list
        # sideways (seen under Xvfb); a single word wider than the pane is clipped, and the
        # passage is whole on its page once the row is picked
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setResizeMode(QListView.ResizeMode.Adjust)
        self.list.currentRowChanged.connect(self._on_row)

        self.header = NameHeading(HINT)
        self.header.setObjectName("citationHeader")
        self.prev_button = self._tool("◀", "Previous page", lambda: self.go_page(self.page - 1))
        self.next_button = self._tool("▶", "Next page", lambda: self.go_page(self.page + 1))
        self.zoom_out = self._tool("−", "Zoom out", lambda: self.step_zoom(-1))
        self.zoom_in = self._tool("+", "Zoom in", lambda: self.step_zoom(1))
        self.fit_button = self._tool("Fit", "Fit the page to the pane's width", self.fit_width)
        # its text ("page 12 of 27 · 47%") gives way to shorter forms ("12/27"): it must
        # not widen the pane (and the window) past a 1024-pixel screen, where it has ~40
        # pixels beside the buttons (cut to "page 1 o" there: seen under Xvfb)
        self.zoom_label = ElidedLabel()
        self.zoom_label.setObjectName("muted")
        self.open_button = QPushButton("Open in viewer")
        self.open_button.setToolTip(
            "Open the document in the system's viewer, at the page shown when the viewer"
            " can be told a page (Evince, Okular, Zathura, ...)"
        )
        self.open_button.clicked.connect(self.open_external)
        bar = QHBoxLayout()
        for w in (self.prev_button, self.next_button, self.zoom_out, self.zoom_in, self.fit_button):
            bar.addWidget(w)
        # the label takes the room between the buttons (a stretch beside it took all of
        # it, and the label, ignoring its own size, was left none: never seen)
        bar.addWidget(self.zoom_label, 1)
        bar.addWidget(self.open_button)
        self.toolbar = QWidget()
        self.toolbar.setLayout(bar)
        bar.setContentsMargins(0, 0, 0, 0)
        self.toolbar.setEnabled(False)
        self.toolbar.setVisible(False)  # until a page is shown (the empty pane stays narrow)

        self.page_label = QLabel()
        self.page_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.page_scroll = QScrollArea()
        self.page_scroll.setObjectName("pageScroll")
        self.page_scroll.setAccessibleName("Cited page")
        self.page_scroll.setWidget(self.page_label)
        self.page_scroll.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        self.text_view = TextPassageView()
        placeholder = QLabel("The cited page appears here.")
        placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        placeholder.setObjectName("hint")
        self.stack = QStackedWidget()
        self.stack.addWidget(placeholder)
        self.stack.addWidget(self.page_scroll)
        self.stack.addWidget(self.text_view)
        self.note = plain_label()  # messages quote file names
        self.note.setObjectName("muted")
        self.note.setWordWrap(True)

        viewer = QWidget()
        v = QVBoxLayout(viewer)
        v.setContentsMargins(0, 0, 0, 0)
        v.addWidget(self.header)
        v.addWidget(self.toolbar)
        v.addWidget(self.stack, 1)
        v.addWidget(self.note)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setObjectName("citationSplitter")
        self.splitter.addWidget(self.list)
        self.splitter.addWidget(viewer)
        self.splitter.setSizes([140, 600])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 8, 8, 8)
        layout.addWidget(title)
        layout.addWidget(self.splitter, 1)

    def _tool(self, text: str, tip: str, slot: Callable[[], object]) -> QToolButton:
        b = QToolButton()
        b.setText(text)
        b.setToolTip(tip)
        b.setAccessibleName(tip)  # a screen reader would say the glyph ("black triangle")
        b.clicked.connect(slot)
        return b

    # Citations ----------------------------------------------------------------

    def forget(self, path: str) -> None:
        """``path`` changed (re-indexed, or gone): its pages are rendered anew, not taken
        from the cache (a PDF edited above the passage showed the old page, lit where the
        passage had been; review)."""
        for key in [k for k in self._cache if k[0] == path]:
            del self._cache[key]
        self._forgotten[path] = self._forgotten.get(path, 0) + 1

    def set_citations(self, citations: list[Citation]) -> None:
        """The answer's sources. Other sources than those listed (a new answer, a new
        conversation, an uncited answer): the page view goes back to its hint, as for the
        first answer, instead of showing an earlier answer's page and highlight; the same
        sources again keep the page shown."""
        same = list(citations) == self.citations
        self.citations = list(citations)
        if not same and self.current is not None:
            self.clear_page()
        self.list.blockSignals(True)
        self.list.clear()
        names = self._names = distinct_names(self.citations)
        for c in self.citations:
            head = f"[{c.n}] {shown(names[c.path])}  {page_label(c)}"
            if c.source == "matched":
                head += "  · matched by Docent"
            elif c.source == "closest":
                head += "  · closest to your question"
            item = QListWidgetItem(f"{head}\n{snippet(c.text)}")
            tip = {
                "matched": "The model did not cite this passage; Docent matched it.\n",
                "closest": "The answer does not cite this passage; Docent lists it: it is the "
                "closest to your question.\n",
            }.get(c.source, "")
            item.setToolTip(plain_tip(tip + shown(c.path)))
            self.list.addItem(item)
        shown_now = self.current
        row = -1
        if shown_now is not None and shown_now in self.citations:
            row = self.citations.index(shown_now)  # the same sources: the page shown stays
        self.list.setCurrentRow(row)
        self.list.blockSignals(False)

    def clear_page(self) -> None:
        """No page shown: the hint to click a citation (a render under way is dropped)."""
        self.current = None
        self._generation += 1  # a render under way is not shown
        self.header.set_hint(HINT)
        self.stack.setCurrentIndex(PLACEHOLDER)
        self.note.setText("")
        self.toolbar.setEnabled(False)
        self.toolbar.setVisible(False)

    def select(self, n: int) -> bool:
        """Show citation number ``n`` (as printed in the answer)."""
        for row, c in enumerate(self.citations):
            if c.n == n:
                self.citation_opened.emit()
                if self.list.currentRow() == row:
                    self.show_citation(c)  # again: back to the cited page
                else:
                    self.list.setCurrentRow(row)  # -> _on_row -> show_citation
                return True
        bridge().info(f"Citation [{n}] is not among this answer's sources.")
        return False

    def _name(self, c: Citation) -> str:
        """The cited file's name as the list shows it (with folders when two are alike)."""
        return self._names.get(c.path, c.file_name)

    def _on_row(self, row: int) -> None:
        if 0 <= row < len(self.citations):
            self.citation_opened.emit()  # (set_citations lists rows with signals blocked)
            self.show_citation(self.citations[row])

    def show_citation(self, c: Citation) -> None:
        self.current = c
        self.page = c.opens_at or 1
        self.header.set_heading(shown(self._name(c)), page_label(c))
        self.toolbar.setEnabled(True)
        self.toolbar.setVisible(True)
        if _is_pdf(c):
            self._render_pdf()
        else:
            self._load_text()

    # PDF pages ----------------------------------------------------------------

    def _render_pdf(self) -> None:
        c = self.current
        if c is None:
            return
        path, passage, page = c.path, c.part_on(self.page), self.page
        edge = c.edge_on(page)
        zoom = self.zoom
        # The stack, not the scroll area's viewport: that is stale while it is hidden.
        bar = self.page_scroll.verticalScrollBar().sizeHint().width()
        width = max(200, self.stack.width() - bar - 12)
        ratio = self.devicePixelRatioF()
        key: RenderKey = (
            path,
            page,
            zoom if zoom is not None else ("fit", width),
            hash((passage, edge)),
            ratio,
        )
        self._generation += 1
        gen = self._generation
        for w in (self.prev_button, self.next_button, self.zoom_out, self.zoom_in, self.fit_button):
            w.setVisible(True)
        if key in self._cache:
            self._cache.move_to_end(key)
            self._show_render(gen, key, self._cache[key], self._forgotten.get(path, 0))
            return
        self.note.setText("Rendering the page…")
        self._rendering = gen

        engine, doc_id, citation = self.engine, c.doc_id, c
        epoch = self._forgotten.get(path, 0)

        def render() -> PageRender:
            r = render_page(
                path,
                page,
                passage,
                zoom=zoom,
                fit_width=width,
                device_ratio=ratio,
                ocr_lines=ocr_lines(engine, doc_id, page, passage),
                edge=edge,
            )
            # an older version's passage, whatever of it the new page still shares (QA-78:
            # "The cited passage is highlighted" of the words both versions have): the
            # record is read when the citation knows its version, or nothing was lit
            if doc_id and (citation.sha256 or not r.rects):
                rec = engine.document(doc_id)
                r.cited_older = cited_older(citation, rec)
                if not r.rects:
                    r.file_changed = changed_since_indexed(rec, path)
            return r

        call_in_worker(
            render,
            name="render-page",
            on_result=lambda r: self._show_render(gen, key, r, epoch),
            on_error=lambda exc: self._show_error(gen, exc),
            owner=self,  # lambdas: nothing else drops them once the pane is deleted (s21)
        )

    def _show_render(self, gen: int, key: RenderKey, r: PageRender, epoch: int) -> None:
        """``epoch``: how often the file's pages were forgotten when the render began; a
        page rendered from the file as it was is neither shown nor kept: it is rendered
        again from the file as it is (its highlight may be where the passage was)."""
        if gen != self._generation:
            return  # a later click won
        if epoch != self._forgotten.get(key[0], 0):
            self._render_pdf()
            return
        self._rendering = 0
        self._cache[key] = r
        while len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)
        self.last_render = r
        self.page, self.page_count = r.page, r.page_count
        pix = QPixmap.fromImage(r.image)
        self.page_label.setPixmap(pix)
        self.page_label.resize(
            QSize(
                int(pix.width() / pix.devicePixelRatio()),
                int(pix.height() / pix.devicePixelRatio()),
            )
        )
        self.stack.setCurrentIndex(PDF)
        zoom = f"{int(r.zoom * 100)}%"
        where = f"{r.page}/{r.page_count}"
        # A book's own page numbers (/PageLabels), as its folio and viewers say them: "page
        # 1 (3 of 4)"; the index alone sent a reader two pages off (review h20).
        page = f"page {r.label} ({r.page} of {r.page_count})" if r.label else ""
        self.zoom_label.set_full_text(
            f"{page or f'page {r.page} of {r.page_count}'} · {zoom}", f"{where} · {zoom}", where
        )
        self.prev_button.setEnabled(r.page > 1)
        self.next_button.setEnabled(r.page < r.page_count)
        c = self.current
        if c is None:
            return
        cited = c.page <= r.page <= c.page_end
        # the heading names the page shown (◀ ▶ move away from the cited one)
        where = page_label(c) if cited else f"p. {r.page} (the passage is on {page_label(c)})"
        self.header.set_heading(shown(self._name(c)), where)
        partial = not r.rects or r.method == "search"  # a phrase of it, or nothing, lit
        if (cited or r.page == c.page) and r.cited_older and partial:  # QA-77, QA-78
            self.note.setText(older_note(c, lit=bool(r.rects)))
            if r.rects:
                first = r.rects[0]
                self.page_scroll.ensureVisible(int(first.center().x()), int(first.top()), 40, 120)
            else:
                self.page_scroll.verticalScrollBar().setValue(0)
        elif r.rects:
            self.note.setText(
                "Only a few words of the passage were found on the page and are highlighted; "
                "the passage is quoted above."
                if r.method == "search"  # a phrase of it, not the passage (review h20)
                else "The cited passage is highlighted."
            )
            first = r.rects[0]
            self.page_scroll.ensureVisible(int(first.center().x()), int(first.top()), 40, 120)
        elif (cited or r.page == c.page) and r.file_changed:  # review h20
            self.note.setText(
                f"{shown(c.file_name)} changed since it was indexed: this page of the new "
                "version does not hold the passage (quoted above). Index it again to cite "
                "the new version."
            )
            self.page_scroll.verticalScrollBar().setValue(0)
        elif cited or r.page == c.page:
            self.note.setText("The passage could not be located on the page; it is quoted above.")
            self.page_scroll.verticalScrollBar().setValue(0)
        else:
            self.note.setText("")
        self.page_shown.emit(c.path, r.page)

    def _show_error(self, gen: int, exc: Exception) -> None:
        if gen != self._generation:
            return
        self._rendering = 0
        self.stack.setCurrentIndex(PLACEHOLDER)
        self.note.setText(str(exc))
        bridge().warning(str(exc))

    def go_page(self, page: int) -> None:
        if self.current is None or not (1 <= page <= max(self.page_count, 1)):
            return
        self.page = page
        self._render_pdf()

    def step_zoom(self, direction: int) -> None:
        current = self.zoom or (self.last_render.zoom if self.last_render else 1.0)
        if direction > 0:
            bigger = [z for z in ZOOM_STEPS if z > current + 0.01]
            self.zoom = bigger[0] if bigger else ZOOM_STEPS[-1]
        else:
            smaller = [z for z in ZOOM_STEPS if z < current - 0.01]
            self.zoom = smaller[-1] if smaller else ZOOM_STEPS[0]
        self._rerender()

    def fit_width(self) -> None:
        self.zoom = None
        self._rerender()

    def _rerender(self) -> None:
        """Zoom or size changed: the page shown, or the one on its way, again (before the
        first page had come, a zoom or a resize was lost; review)."""
        c = self.current
        shown_or_coming = self.stack.currentIndex() == PDF or self._rendering
        if c is not None and _is_pdf(c) and shown_or_coming:
            self._render_pdf()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.zoom is None and self.current is not None:
            self._refit.start()

    # Text files ---------------------------------------------------------------

    def _load_text(self) -> None:
        c = self.current
        if c is None:
            return
        engine = self.engine
        for w in (self.prev_button, self.next_button, self.zoom_out, self.zoom_in, self.fit_button):
            w.setVisible(False)
        self.zoom_label.set_full_text("")
        self._generation += 1
        gen = self._generation
        if self.stack.currentIndex() == PDF:  # another document's page, lit (review h20)
            self.stack.setCurrentIndex(PLACEHOLDER)
        self.note.setText("Loading the passage…")

        def shown(loaded: tuple[TextPassage, bool]) -> None:
            if gen != self._generation:
                return
            p, older = loaded
            self.stack.setCurrentIndex(TEXT)
            found = self.text_view.show_passage(p)
            if older and not p.whole_passage_lit(c.text):  # a part of it, or none (QA-78)
                said = older_note(c, lit=found)
            elif found:
                said = "The cited passage is highlighted."
            else:
                said = "The passage could not be located; it is quoted above."
            self.note.setText(said + p.lines_note())
            self.page_shown.emit(c.path, self.page)

        def load() -> tuple[TextPassage, bool]:
            rec = engine.document(c.doc_id) if c.doc_id else None
            return load_passage(engine, c), cited_older(c, rec)

        call_in_worker(
            load,
            name="load-text",
            on_result=shown,
            on_error=lambda e: self._show_error(gen, e),
            owner=self,
        )

    def open_external(self) -> None:
        """The document in the system's viewer: a PDF at the page shown, when the
        default viewer takes a page on its command line (``viewers``), else at its start."""
        c = self.current
        if c is None:
            return
        path = c.path
        if not _is_pdf(c):
            open_file(path)
            return
        page = self.page

        def opened(started: bool) -> None:
            if not started:
                open_file(path)

        call_in_worker(
            lambda: _at_page(path, page),
            name="open-viewer",
            on_result=opened,
            on_error=lambda _e: open_file(path),
            owner=self,
        )


def older_note(c: Citation, *, lit: bool = False) -> str:
    """What the pane says when the document was indexed again, another text, since the
    answer cited it: the passage is the old version's (QA-77). ``lit``: what of it the
    new version still holds is highlighted (QA-78)."""
    shown_now = (
        "only what the file now shown still shares with it is highlighted"
        if lit
        else "the file now shown does not hold it here"
    )
    return (
        f"{shown(c.file_name)} changed since this answer cited it: the passage quoted above "
        f"is from the version indexed then, and {shown_now}. Ask again to cite the new "
        "version."
    )
