"""The documents table: one row per file, from the catalog plus live indexing progress."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, fields
from pathlib import Path

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QRect, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QApplication,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionProgressBar,
    QStyleOptionViewItem,
)

from docent.core.api import Progress, shown
from docent.core.models import CANCELLED, DocState, DocumentRecord
from docent.gui.plain import plain_tip

COLUMNS = ("Name", "Pages", "Chunks", "State", "Indexed")
NAME, PAGES, CHUNKS, STATE, INDEXED = range(len(COLUMNS))
#: Sort key for each row and column (numbers sort as numbers).
SORT_ROLE = Qt.ItemDataRole.UserRole
#: The Row object behind a row.
ROW_ROLE = Qt.ItemDataRole.UserRole + 1
#: Indexing fraction 0..1 while indexing, -1 otherwise (for the progress delegate).
FRACTION_ROLE = Qt.ItemDataRole.UserRole + 2

FAILED_COLOUR = QColor("#b3261e")
MUTED_COLOUR = QColor("#6b6b6b")

Index = QModelIndex | QPersistentModelIndex
#: A cell's value for one role, as plain Python (compared to skip writes that change nothing).
CellValue = str | int | float | None
Cell = dict[int, CellValue]


@dataclass(slots=True)
class Row:
    path: str
    file_name: str
    state: str = "queued"  # queued | indexing | ready | failed | removing | cancelled
    fraction: float = 0.0
    pages: int = 0
    chunks: int = 0
    error: str = ""
    indexed_at: float = 0.0
    doc_id: str = ""
    page_unit: str = "page"
    #: while indexing: "reading" (extracting text) or "embedding"
    phase: str = ""
    #: pages read by OCR (shown next to "ready")
    ocr_pages: int = 0
    #: while reading: the extraction worker's step ("reading scanned page 3 by OCR (1 of 9)")
    step: str = ""

    @classmethod
    def from_record(cls, rec: DocumentRecord) -> Row:
        return cls(
            path=rec.path,
            file_name=rec.file_name,
            state=(
                "cancelled"
                if rec.state is DocState.QUEUED and rec.reason == CANCELLED
                else rec.state.value
            ),
            fraction=1.0 if rec.state is DocState.READY else 0.0,
            pages=rec.pages,
            chunks=rec.chunks,
            error=rec.error,
            indexed_at=rec.indexed_at,
            doc_id=rec.doc_id,
            page_unit=rec.page_unit,
            ocr_pages=rec.ocr_pages,
        )

    @property
    def state_text(self) -> str:
        if self.state == "indexing" and self.phase == "reading":
            return f"{_compact(self.step)}…" if self.step else "reading…"
        if self.state == "indexing":
            return f"indexing {int(self.fraction * 100)}%"
        if self.state == "failed":
            return f"failed: {self.short_error}" if self.error else "failed"
        if self.state == "cancelled":
            return "cancelled: not indexed"
        if self.state == "ready" and self.ocr_pages:
            return "ready · OCR"  # how many pages: in the tooltip (a narrow column cut it)
        return self.state

    @property
    def short_error(self) -> str:
        """The reason without the file's name in front (the row already shows it)."""
        text = self.error
        if text.startswith(self.file_name):
            text = text[len(self.file_name) :].lstrip(" :")
            text = text[3:] if text.startswith("is ") else text
        return text

    @property
    def is_pdf(self) -> bool:
        return Path(self.path).suffix.lower() == ".pdf"


#: The extraction worker's OCR step (core/preparing.py), long for a table cell.
_OCR_STEP = re.compile(r"reading scanned page (\d+) by OCR \((\d+) of (\d+)\)")
_UNSET = object()
_BRUSHES = {"failed": QBrush(FAILED_COLOUR), "muted": QBrush(MUTED_COLOUR)}
_ALIGN = {
    c: int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter) for c in (PAGES, CHUNKS)
}


def _display(row: Row, col: int) -> str:
    if col == NAME:
        return shown(row.file_name)  # a name that is not UTF-8, or holds controls
    if col == PAGES:
        return str(row.pages) if row.pages else ""
    if col == CHUNKS:
        return str(row.chunks) if row.chunks else ""
    if col == STATE:
        return row.state_text
    return _when(row.indexed_at)


def _compact(step: str) -> str:
    """A step short enough for the State column; the cell's tooltip has it whole."""
    ocr = _OCR_STEP.fullmatch(step)
    return f"OCR {ocr[2]}/{ocr[3]}" if ocr else step  # scanned pages: this one of all


def _tip(row: Row, col: int) -> str:
    if col == STATE and row.error:
        return row.error
    if col == STATE and row.state == "indexing" and row.phase == "reading" and row.step:
        return f"{shown(row.path)}\n{row.step}"
    if col == STATE and row.state == "ready" and row.ocr_pages:
        pages = f"{row.ocr_pages} page{'s' if row.ocr_pages > 1 else ''}"
        return f"{shown(row.path)}\n{pages} read by OCR"
    return shown(row.path)


def _sort_key(row: Row, col: int) -> str | int | float:
    keys: tuple[str, int, int, str, float] = (
        row.file_name.lower(),
        row.pages,
        row.chunks,
        row.state_text,
        row.indexed_at,
    )
    return keys[col]


def _when(ts: float) -> str:
    if not ts:
        return ""
    if time.time() - ts < 86400:
        return time.strftime("%H:%M", time.localtime(ts))
    return time.strftime("%Y-%m-%d", time.localtime(ts))


class DocumentTableModel(QStandardItemModel):
    """Rows kept as ``Row`` objects, shown through Qt's own item model.

    The view reads cells from C++ items, not from a Python ``data()``: a Python model is
    called back hundreds of times per repaint, and while a worker thread runs Python each
    call waits for the GIL (a 30-row repaint took 150 ms so, 11 ms with items). Updates
    write only the cells whose values changed.
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(0, len(COLUMNS), parent)
        self.setHorizontalHeaderLabels(list(COLUMNS))
        self._rows: list[Row] = []
        self._by_path: dict[str, int] = {}
        #: What each row's cells show now, per column {role: value} (to skip no-op writes),
        #: and the Row object each row's items hold.
        self._shown: list[list[Cell]] = []
        self._held: list[Row | None] = []

    @staticmethod
    def _cells(row: Row) -> list[Cell]:
        """Plain Python values only: comparing Qt objects would be calls into Qt."""
        muted = row.state in ("queued", "removing", "cancelled")
        busy = row.state == "indexing" and row.phase != "reading"
        cells: list[Cell] = []
        for col in range(len(COLUMNS)):
            fg = ""
            if row.state == "failed" and col in (NAME, STATE):
                fg = "failed"
            elif muted:
                fg = "muted"
            cells.append(
                {
                    Qt.ItemDataRole.DisplayRole: _display(row, col),
                    SORT_ROLE: _sort_key(row, col),
                    Qt.ItemDataRole.ToolTipRole: plain_tip(_tip(row, col)),
                    Qt.ItemDataRole.ForegroundRole: fg,
                    FRACTION_ROLE: row.fraction if busy and col == STATE else -1.0,
                    Qt.ItemDataRole.TextAlignmentRole: _ALIGN.get(col),
                }
            )
        return cells

    def _write(self, i: int, row: Row) -> None:
        """Write the cells of row ``i`` that changed: a progress step is 2-4 Qt calls."""
        new, old = self._cells(row), self._shown[i]
        fresh = self._held[i] is not row
        for col, cell in enumerate(new):
            changed = [(r, v) for r, v in cell.items() if old[col].get(r, _UNSET) != v]
            if not changed and not fresh:
                continue
            item = self.item(i, col)
            if fresh:
                item.setData(row, ROW_ROLE)
            for role, value in changed:
                if role == Qt.ItemDataRole.ForegroundRole:
                    item.setData(_BRUSHES.get(str(value)), role)
                else:
                    item.setData(value, role)
        self._shown[i], self._held[i] = new, row

    # Updates ------------------------------------------------------------------

    def rows(self) -> list[Row]:
        return list(self._rows)

    def row_for(self, path: str) -> Row | None:
        i = self._by_path.get(path)
        return self._rows[i] if i is not None else None

    def set_records(self, records: list[DocumentRecord], keep: set[str] | None = None) -> None:
        """Replace the rows with the catalog's; ``keep``: paths of rows still pending."""
        pending = [r for r in self._rows if keep and r.path in keep]
        rows = [Row.from_record(rec) for rec in records]
        known = {r.path for r in rows}
        live = {r.path: r for r in pending}
        for i, row in enumerate(rows):  # a run in flight knows better than the catalog
            if row.path in live and live[row.path].state in ("queued", "indexing"):
                rows[i] = live[row.path]
        rows += [r for r in pending if r.path not in known]
        # Merged by path, not rebuilt: a refresh of 1,000 unchanged documents costs no Qt
        # call (a rebuild took 150-330 ms on the GUI thread).
        wanted = {r.path for r in rows}
        for i in range(len(self._rows) - 1, -1, -1):
            if self._rows[i].path not in wanted:
                self.removeRow(i)
                del self._rows[i], self._shown[i], self._held[i]
        self._by_path = {r.path: i for i, r in enumerate(self._rows)}
        for row in rows:
            at = self._by_path.get(row.path)
            if at is None:
                self._append(row)
            elif self._rows[at] != row:
                self._update(at, row)

    def mark_queued(self, paths: list[str]) -> None:
        for path in paths:
            row = self.row_for(path)
            if row is None:
                self._append(Row(path, Path(path).name))
            elif row.state != "indexing":
                row.state, row.fraction, row.error = "queued", 0.0, ""
                self._changed(path)

    def apply(self, p: Progress, rec: DocumentRecord | None) -> None:
        if rec is not None:
            new = Row.from_record(rec)
            at = self._by_path.get(p.path)
            if at is None:
                self._append(new)
            else:
                self._update(at, new)
            return
        row = self.row_for(p.path)
        if row is None:
            row = self._append(Row(p.path, Path(p.path).name))
        if p.phase == "embedding" and p.chunks_total:
            row.state, row.fraction = "indexing", p.chunks_done / p.chunks_total
            row.chunks, row.phase = p.chunks_total, "embedding"
            row.pages = p.pages or row.pages
        elif p.phase == "extracting":
            row.state, row.fraction, row.phase = "indexing", 0.0, "reading"
            row.pages = max(row.pages, p.pages)  # pages read so far: a long file moves
            row.step = p.message
        elif p.phase == "failed":
            row.state, row.error = "failed", p.message
        elif p.phase in ("ready", "unchanged", "renamed"):
            row.state, row.fraction = "ready", 1.0
        row.doc_id = p.doc_id or row.doc_id
        self._changed(p.path)

    def remove(self, path: str) -> None:
        """The document is gone from the library."""
        i = self._by_path.get(path)
        if i is None:
            return
        self.removeRow(i)
        del self._rows[i], self._shown[i], self._held[i]
        self._by_path = {r.path: n for n, r in enumerate(self._rows)}

    def finish_pending(self, paths: set[str]) -> None:
        """A run over ``paths`` ended: what it did not finish was cancelled (it waits for
        the user's Resume).

        The catalog read that follows every run has the last word; this keeps the table
        from showing "indexing" for a run that is over until then.
        """
        for row in self._rows:
            if row.path in paths and row.state in ("queued", "indexing"):
                row.state, row.error, row.fraction, row.phase = (
                    "cancelled",
                    "Indexing was cancelled.",
                    0.0,
                    "",
                )
                self._changed(row.path)

    def _append(self, row: Row) -> Row:
        items = []
        for _ in COLUMNS:
            item = QStandardItem()
            item.setEditable(False)
            items.append(item)
        self._by_path[row.path] = len(self._rows)
        self._rows.append(row)
        self._shown.append([{} for _ in COLUMNS])
        self._held.append(None)
        self.appendRow(items)
        self._write(len(self._rows) - 1, row)
        return row

    def _update(self, i: int, row: Row) -> None:
        """Row ``i`` now says what ``row`` says: copied in place, so the items keep their
        Row object and only the cells that changed are written."""
        held = self._rows[i]
        for f in fields(Row):
            setattr(held, f.name, getattr(row, f.name))
        self._write(i, held)

    def _changed(self, path: str) -> None:
        i = self._by_path[path]
        self._write(i, self._rows[i])


class StateDelegate(QStyledItemDelegate):
    """Draws a progress bar in the State cell of a document being indexed."""

    def initStyleOption(self, option: QStyleOptionViewItem, index: Index) -> None:
        super().initStyleOption(option, index)
        # names elide in the middle (the table's mode); a reason reads from its start
        option.textElideMode = Qt.TextElideMode.ElideRight

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        fraction = index.data(FRACTION_ROLE)
        if not isinstance(fraction, float) or fraction < 0:
            super().paint(painter, option, index)
            return
        bar = QStyleOptionProgressBar()
        rect: QRect = option.rect
        bar.rect = rect.adjusted(2, 3, -2, -3)
        bar.minimum, bar.maximum = 0, 100
        bar.progress = int(fraction * 100)
        bar.text = index.data(Qt.ItemDataRole.DisplayRole)
        bar.textVisible = True
        bar.state = QStyle.StateFlag.State_Enabled | QStyle.StateFlag.State_Horizontal
        style = option.widget.style() if option.widget else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ProgressBar, bar, painter)
