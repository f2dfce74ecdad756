"""A library row: what the table shows of one document, as plain Python (no Qt calls).

``Row`` holds a document's state (from the catalog, then live indexing progress);
``cells`` turns it into the values each column shows per role, compared by the table
model to write only what changed.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from PySide6.QtCore import Qt

from docent.core.api import Progress, gap_sentence, shown
from docent.core.models import DocState, DocumentRecord, unit_short
from docent.gui.plain import plain_tip

COLUMNS = ("Name", "Pages", "Chunks", "State", "Indexed")
NAME, PAGES, CHUNKS, STATE, INDEXED = range(len(COLUMNS))
#: Sort key for each row and column (numbers sort as numbers).
SORT_ROLE = Qt.ItemDataRole.UserRole
#: The Row object behind a row.
ROW_ROLE = Qt.ItemDataRole.UserRole + 1
#: Indexing fraction 0..1 while indexing, unset otherwise (for the progress delegate).
FRACTION_ROLE = Qt.ItemDataRole.UserRole + 2

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
    #: ready, but its file is gone (moved or deleted outside a watched folder; QA-77)
    gone: bool = False
    #: what of it could not be read (core/gaps.py): "page 4 could not be read"
    gaps: str = ""
    #: the ids of the collections it is in (Add to collection offers the others)
    collections: tuple[str, ...] = ()

    @classmethod
    def from_record(cls, rec: DocumentRecord, *, gone: bool = False) -> Row:
        return cls(
            path=rec.path,
            file_name=rec.file_name,
            state=rec.state_label,
            fraction=1.0 if rec.state is DocState.READY else 0.0,
            pages=rec.pages,
            chunks=rec.chunks,
            error=rec.error,
            indexed_at=rec.indexed_at,
            doc_id=rec.doc_id,
            page_unit=rec.page_unit,
            ocr_pages=rec.ocr_pages,
            gone=gone and rec.state is DocState.READY,
            gaps=rec.gaps,
            collections=tuple(rec.collections),
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
        if self.state == "removing":
            return "removing…"
        if self.state == "ready" and self.gone:
            return "ready · file gone"
        if self.state == "ready" and self.gaps:
            return "ready · part unread"  # which and why: in the tooltip
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

    def advance(self, p: Progress) -> None:
        """What a step of indexing (no catalog record yet) changes in the row."""
        if p.phase == "embedding" and p.chunks_total:
            self.state, self.fraction = "indexing", p.chunks_done / p.chunks_total
            self.chunks, self.phase = p.chunks_total, "embedding"
            self.pages = p.pages or self.pages
        elif p.phase == "extracting":
            self.state, self.fraction, self.phase = "indexing", 0.0, "reading"
            self.pages = max(self.pages, p.pages)  # pages read so far: a long file moves
            self.step = p.message
        elif p.phase == "failed":
            self.state, self.error = "failed", p.message
        elif p.phase in ("ready", "unchanged", "renamed"):
            self.state, self.fraction = "ready", 1.0
        self.doc_id = p.doc_id or self.doc_id


#: The extraction worker's OCR step (core/preparing.py), long for a table cell.
_OCR_STEP = re.compile(r"reading scanned page (\d+) by OCR \((\d+) of (\d+)\)")
_ALIGN = {
    c: int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter) for c in (PAGES, CHUNKS)
}


def _display(row: Row, col: int, name: str) -> str:
    if col == NAME:
        return shown(name)  # a name that is not UTF-8, or holds controls
    if col == PAGES:  # in the document's own units: a log's blocks of lines are no pages
        unit = unit_short(row.page_unit, row.pages)
        return "" if not row.pages else str(row.pages) if unit == "p" else f"{row.pages} {unit}"
    if col == CHUNKS:
        return str(row.chunks) if row.chunks else ""
    if col == STATE:
        return row.state_text
    return _when(row.indexed_at)


def _compact(step: str) -> str:
    """A step short enough for the State column; the cell's tooltip has it whole."""
    ocr = _OCR_STEP.fullmatch(step)
    return f"OCR {ocr[2]}/{ocr[3]}" if ocr else step  # scanned pages: this one of all


def _state_tip(row: Row) -> str:
    if row.error:
        return row.error
    if row.state == "ready" and row.gone:
        return (
            f"{shown(row.path)}\nIts file is gone (moved or deleted?). It stays searchable: "
            "index the folder it was in to drop it or find it again, or remove it."
        )
    if row.state == "indexing" and row.phase == "reading" and row.step:
        return f"{shown(row.path)}\n{row.step}"
    if row.state == "ready" and (row.ocr_pages or row.gaps):
        pages = f"{row.ocr_pages} page{'s' if row.ocr_pages > 1 else ''}"
        lines = [shown(row.path), f"{pages} read by OCR" if row.ocr_pages else ""]
        return "\n".join([*filter(None, lines), gap_sentence(row.gaps)]).strip()
    return shown(row.path)


def _when(ts: float) -> str:
    if not ts:
        return ""
    if time.time() - ts < 86400:
        return time.strftime("%H:%M", time.localtime(ts))
    return time.strftime("%Y-%m-%d", time.localtime(ts))


def cells(row: Row, name: str | None = None) -> list[Cell]:
    """What each column shows of ``row``, per role, roles left at Qt's default left out:
    plain Python values only (comparing Qt objects would be calls into Qt). A foreground
    is named ("failed", "muted"). ``name``: the Name column's text (its file name, or
    with folders where another row has that name)."""
    muted = row.state in ("queued", "removing", "cancelled")
    busy = row.state == "indexing" and row.phase != "reading"
    state_text = row.state_text
    keys = (row.file_name.lower(), row.pages, row.chunks, state_text, row.indexed_at)
    path_tip = plain_tip(shown(row.path))
    name = name or row.file_name
    out: list[Cell] = []
    for col in range(len(COLUMNS)):
        cell: Cell = {
            Qt.ItemDataRole.DisplayRole: state_text if col == STATE else _display(row, col, name),
            SORT_ROLE: keys[col],  # numbers sort as numbers
            Qt.ItemDataRole.ToolTipRole: path_tip,
        }
        if row.state == "failed" and col in (NAME, STATE):
            cell[Qt.ItemDataRole.ForegroundRole] = "failed"
        elif muted:
            cell[Qt.ItemDataRole.ForegroundRole] = "muted"
        if col in _ALIGN:
            cell[Qt.ItemDataRole.TextAlignmentRole] = _ALIGN[col]
        if col == STATE:
            cell[Qt.ItemDataRole.ToolTipRole] = plain_tip(_state_tip(row))
            if busy:
                cell[FRACTION_ROLE] = row.fraction
        out.append(cell)
    return out
