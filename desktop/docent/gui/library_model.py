"""The documents table: one row per file, from the catalog plus live indexing progress.

The model keeps every row as a ``Row`` (library_rows.py) and merges them into Qt's item
model in batches: each document event changes its ``Row`` at once (cheap Python), and the
view gets what changed at most once per ``MERGE_MS``, ``MERGE_ROWS`` rows at a time, each
batch as one signal per run of rows. Written row by row, a library of 1,000 documents
froze the window: every item write was a signal the sorting proxy, the view and its
header answered (a 1,000-row load 0.4-0.7 s; 2.5-7 s in the real window while a sweep ran).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from itertools import islice
from pathlib import Path, PurePath

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QRect, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QPainter, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QApplication,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionProgressBar,
    QStyleOptionViewItem,
)

from docent.core.api import Progress, distinct_paths
from docent.core.models import CANCELLED_NOTE, DocumentRecord
from docent.gui.library_rows import (
    COLUMNS,
    FRACTION_ROLE,
    ROW_ROLE,
    Cell,
    Row,
    cells,
)

FAILED_COLOUR = QColor("#b3261e")
MUTED_COLOUR = QColor("#6b6b6b")
#: While events stream in, the view is brought up to date at most this often.
MERGE_MS = 100
#: At most this many rows are written into the view per merge (the rest in the next turn
#: of the event loop): a merge's Python work stays a few milliseconds at any library size.
MERGE_ROWS = 25
#: A catalog read is taken into the rows this many records per turn of the event loop.
SNAPSHOT_SLICE = 250

Index = QModelIndex | QPersistentModelIndex
_UNSET = object()
_BRUSHES = {"failed": QBrush(FAILED_COLOUR), "muted": QBrush(MUTED_COLOUR)}


class DocumentTableModel(QStandardItemModel):
    """Rows kept as ``Row`` objects, shown through Qt's own item model.

    The view reads cells from C++ items, not from a Python ``data()``: a Python model is
    called back hundreds of times per repaint, and while a worker thread runs Python each
    call waits for the GIL (a 30-row repaint took 150 ms so, 11 ms with items).

    ``rows()`` / ``row_for()`` are the truth at once; the Qt rows follow at the next merge
    (``flush()`` forces it).
    """

    #: the view was brought up to date with (some of) the rows' changes
    merged = Signal()
    #: a catalog read is all in the rows (not yet all in the view)
    records_taken = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(0, len(COLUMNS), parent)
        self.setHorizontalHeaderLabels(list(COLUMNS))
        # the items of new rows, made by Qt when their cells are first written
        prototype = QStandardItem()
        prototype.setEditable(False)
        self.setItemPrototype(prototype)
        #: every row by path, in the order they came
        self._rows: dict[str, Row] = {}
        #: the paths of the rows of each file name: two of one name show their folders;
        #: what each of them shows, for the names that have more than one row; and the
        #: names whose rows came or went since the last merge
        self._named: dict[str, set[str]] = {}
        self._labels: dict[str, dict[str, str]] = {}
        self._regrouped: set[str] = set()
        #: the folders of each path that has a twin (splitting is most of a label's cost)
        self._parts: dict[str, tuple[str, ...]] = {}
        #: the Row each Qt row holds, and what its cells show per column {role: value}
        self._view: list[Row] = []
        self._shown: list[list[Cell]] = []
        #: each Qt row's number by path, and the paths of the rows shown as cancelled
        #: (kept as rows are merged: a merge costs the rows it writes, not the library)
        self._at: dict[str, int] = {}
        self._cancelled: set[str] = set()
        #: paths whose cells may differ from the view's (new rows included)
        self._dirty: dict[str, None] = {}
        self._removed = False  # a row left the truth since the last merge
        #: when (a count of changes) an event last changed each path: a catalog read
        #: being taken does not overwrite what an event said after it began
        self._clock = 0
        self._touched: dict[str, int] = {}
        self._snapshot: _Snapshot | None = None
        self._snap_timer = QTimer(self)
        self._snap_timer.setSingleShot(True)
        self._snap_timer.timeout.connect(self._take_snapshot)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._on_timer)
        #: merges that wrote into the view (for tests and benchmarks)
        self.merges = 0

    # Reading -------------------------------------------------------------------

    def rows(self) -> list[Row]:
        return list(self._rows.values())

    def row_for(self, path: str) -> Row | None:
        return self._rows.get(path)

    @property
    def cancelled_count(self) -> int:
        """Rows the view shows as cancelled."""
        return len(self._cancelled)

    @property
    def count(self) -> int:
        """Rows in the library shown (merged into the view or not yet)."""
        return len(self._rows)

    # Updates -------------------------------------------------------------------

    @property
    def clock(self) -> int:
        """Events taken so far: a catalog read begun now is older than the next one."""
        return self._clock

    def set_records(
        self,
        records: list[DocumentRecord],
        keep: set[str] | None = None,
        read_at: int | None = None,
        gone: set[str] | None = None,
    ) -> None:
        """Replace the rows with the catalog's; ``keep``: paths of rows a run in flight
        knows better than the catalog (kept, and kept as they are while queued, indexing
        or removing).

        Merged by path, not rebuilt: unchanged documents cost no Qt call. A big catalog
        is taken SNAPSHOT_SLICE records per turn of the event loop (10,000 unchanged ones
        took 65-265 ms at once); a row an event changes meanwhile keeps what the event said.
        """
        keep = keep or set()
        wanted = {rec.path for rec in records}
        # ``read_at``: the clock when the read began. A row an event touched since is
        # newer than the read, kept as the event said (a file that failed while the
        # catalog was read: its row went; a file whose "ready" came while the read was
        # taken went back to "indexing", then the run's end called it cancelled); the
        # next read settles it.
        since = self._clock if read_at is None else read_at
        for path in [p for p in self._rows if p not in wanted and p not in keep]:
            if self._touched.get(path, 0) <= since:
                self._drop(path)
        self._snapshot = _Snapshot(records, keep, since, wanted, gone or set())
        self._take_snapshot()

    def _take_snapshot(self) -> None:
        snap = self._snapshot
        if snap is None:
            return
        upto = snap.next + SNAPSHOT_SLICE
        for rec in snap.records[snap.next : upto]:
            if self._touched.get(rec.path, 0) > snap.clock:
                continue  # an event since the read said something newer
            held = self._rows.get(rec.path)
            row = Row.from_record(rec, gone=rec.path in snap.gone)
            if held is None:
                self._add(row)
            elif rec.path in snap.keep and held.state in ("queued", "indexing", "removing"):
                continue
            elif held != row:
                self._update(held, row)
        snap.next = upto
        if upto >= len(snap.records):
            self._snapshot = None
            self.records_taken.emit()
        else:
            self._snap_timer.start(0)  # the rest in the next turn
        self._request()

    def mark_queued(self, paths: list[str], *, requeue: bool = True) -> None:
        """Files a job will index; ``requeue`` False: only add the ones not listed (a sweep
        that finds most files unchanged does not grey out the library meanwhile).

        A sweep's list says nothing new about a listed file, so it touches no row: a file
        whose record the catalog read being taken holds is left to it (at 10,000 files,
        adding a bare row for each one the read had not reached took 40-190 ms at once).
        """
        snap = self._snapshot
        coming = snap.paths if snap is not None and not requeue else set()
        for path in paths:
            row = self._rows.get(path)
            if row is None and path in coming:
                continue  # the catalog read being taken holds its record
            if row is not None and not requeue:
                continue  # a sweep's list says nothing new about a listed row
            self._touch(path)
            if row is None:
                self._add(Row(path, Path(path).name))
            elif row.state != "indexing":
                row.state, row.fraction, row.error = "queued", 0.0, ""
                self._dirty[path] = None
        self._request()

    def apply(self, p: Progress, rec: DocumentRecord | None) -> None:
        self._touch(p.path)
        if rec is not None:
            new = Row.from_record(rec)
            held = self._rows.get(p.path)
            if held is None:
                self._add(new)
            elif held != new:
                self._update(held, new)
        else:
            row = self._rows.get(p.path) or self._add(Row(p.path, Path(p.path).name))
            row.advance(p)
            self._dirty[p.path] = None
        self._request()

    def mark_removing(self, paths: list[str]) -> None:
        """Rows the user removed: said at once, though the removal may wait for the run
        in progress (the row stayed "ready" for as long)."""
        for path in paths:
            row = self._rows.get(path)
            if row is not None and row.state != "removing":
                row.state, row.fraction = "removing", 0.0
                self._dirty[path] = None
        self._request()

    def remove(self, path: str) -> None:
        """The document is gone from the library."""
        self._touch(path)
        if path in self._rows:
            self._drop(path)
            self._request()

    def finish_pending(self, paths: set[str]) -> None:
        """A run over ``paths`` ended: what it did not finish was cancelled (it waits for
        the user's Resume).

        The catalog read that follows every run has the last word; this keeps the table
        from showing "indexing" for a run that is over until then.
        """
        for row in self._rows.values():
            if row.path in paths and row.state in ("queued", "indexing"):
                self._touch(row.path)
                row.state, row.error, row.fraction, row.phase = (
                    "cancelled",
                    CANCELLED_NOTE,
                    0.0,
                    "",
                )
                self._dirty[row.path] = None
        self._request()

    def _touch(self, path: str) -> None:
        self._clock += 1
        self._touched[path] = self._clock

    def _add(self, row: Row) -> Row:
        self._rows[row.path] = row
        self._dirty[row.path] = None
        twins = self._named.setdefault(row.file_name, set())
        if row.path not in twins:
            twins.add(row.path)
            self._regrouped.add(row.file_name)
        return row

    def _update(self, held: Row, row: Row) -> None:
        """``held`` now says what ``row`` says: copied in place, so the items keep their
        Row object and only the cells that changed are written."""
        for f in fields(Row):
            setattr(held, f.name, getattr(row, f.name))
        self._dirty[held.path] = None

    def _drop(self, path: str) -> None:
        row = self._rows.pop(path)
        self._dirty.pop(path, None)
        self._removed = True
        twins = self._named[row.file_name]
        twins.discard(path)
        self._parts.pop(path, None)
        self._regrouped.add(row.file_name)
        if not twins:
            del self._named[row.file_name]

    def shown_name(self, row: Row) -> str:
        """The row's file name, or where other rows have that name, with as much of its
        folders as tells them apart ("archive/meeting.md"): as the sources name them."""
        return self._labels.get(row.file_name, {}).get(row.path, row.file_name)

    def _relabel(self) -> None:
        """The labels of the names whose rows came or went, made once per merge (not once
        per row: a website's 2,000 "index.md"); a row is written again only where its
        label changed (a third "notes/meeting.md" may need more of the others' folders)."""
        for name in self._regrouped:
            twins = self._named.get(name, set())
            labels: dict[str, str] = {}
            if len(twins) > 1:
                parts = self._parts
                for path in twins:
                    if path not in parts:
                        parts[path] = PurePath(path).parts
                labels = distinct_paths(twins, parts)
            before = self._labels.pop(name, {})
            if labels:
                self._labels[name] = labels
            for path in twins:
                if labels.get(path, name) != before.get(path, name):
                    self._dirty[path] = None
        self._regrouped.clear()

    # Merging into the view -----------------------------------------------------

    def _request(self) -> None:
        """Merge now if the last merge is older than MERGE_MS, else when it is: a burst
        of events costs one merge per MERGE_MS, a lone event shows at once."""
        if not self._timer.isActive() and (self._dirty or self._removed):
            self._merge()

    def _on_timer(self) -> None:
        if self._dirty or self._removed:
            self._merge()

    def flush(self) -> None:
        """Bring the view up to date now, however much is pending."""
        while self._snapshot is not None:
            self._take_snapshot()
        if self._dirty or self._removed:
            self._merge(limit=None)

    def _merge(self, limit: int | None = MERGE_ROWS) -> None:
        if self._removed:
            self._remove_gone()
        self._relabel()
        at = self._at
        todo = list(islice(self._dirty, limit))
        new = [path for path in todo if path not in at]
        first_new = len(self._view)
        if new:  # one insertion for all; their items come from the prototype when written
            self.insertRows(first_new, len(new))
            for i, path in enumerate(new, first_new):
                self._view.append(self._rows[path])
                self._shown.append([{} for _ in COLUMNS])
                at[path] = i
        written: list[int] = []
        blocked = self.blockSignals(True)  # one dataChanged per run of rows, below
        try:
            for path in todo:
                del self._dirty[path]
                i, row = at[path], self._rows[path]
                if self._write(i, row, fresh=i >= first_new):
                    written.append(i)
                if row.state == "cancelled":
                    self._cancelled.add(path)
                else:
                    self._cancelled.discard(path)
        finally:
            self.blockSignals(blocked)
        for start, end in _runs(sorted(written)):
            self.dataChanged.emit(self.index(start, 0), self.index(end, len(COLUMNS) - 1), [])
        self.merges += 1
        self.merged.emit()
        # the rest of a big change in the next turn; else nothing before MERGE_MS
        self._timer.start(0 if self._dirty else MERGE_MS)

    def _remove_gone(self) -> None:
        """Qt rows whose Row left the library (or was replaced) go, one call per run."""
        gone = [i for i, row in enumerate(self._view) if self._rows.get(row.path) is not row]
        for start, end in reversed(_runs(gone)):
            self.removeRows(start, end - start + 1)
            for row in self._view[start : end + 1]:
                self._cancelled.discard(row.path)
            del self._view[start : end + 1], self._shown[start : end + 1]
        if gone:
            self._at = {row.path: i for i, row in enumerate(self._view)}
        self._removed = False

    def _write(self, i: int, row: Row, *, fresh: bool) -> bool:
        """Write the cells of row ``i`` that changed, one call per cell (the caller blocks
        signals); True if any did. A ``fresh`` row's items also get the Row itself."""
        new, old = cells(row, self.shown_name(row)), self._shown[i]
        wrote = False
        for col, cell in enumerate(new):
            before = old[col]
            if cell == before and not fresh:
                continue
            changed: dict[int, object] = {
                r: v for r, v in cell.items() if before.get(r, _UNSET) != v
            }
            if fresh:
                changed[ROW_ROLE] = row
            if (fg := changed.get(Qt.ItemDataRole.ForegroundRole)) is not None:
                changed[Qt.ItemDataRole.ForegroundRole] = _BRUSHES[str(fg)]
            index = self.index(i, col)
            self.setItemData(index, changed)
            cleared = before.keys() - cell.keys()  # back to Qt's default
            if cleared:
                item = self.itemFromIndex(index)
                for role in cleared:
                    item.setData(None, role)
            wrote = True
        self._shown[i] = new
        return wrote


@dataclass(slots=True)
class _Snapshot:
    """A catalog read being merged into the rows, a slice per turn."""

    records: list[DocumentRecord]
    keep: set[str]
    #: the change count when it began: rows changed after it are not overwritten
    clock: int
    #: the paths of its records
    paths: set[str]
    #: the paths of its ready records whose file is gone
    gone: set[str] = field(default_factory=set)
    next: int = 0


def _runs(indexes: list[int]) -> list[tuple[int, int]]:
    """Sorted row numbers as (first, last) runs of consecutive ones."""
    runs: list[tuple[int, int]] = []
    for i in indexes:
        if runs and runs[-1][1] == i - 1:
            runs[-1] = (runs[-1][0], i)
        else:
            runs.append((i, i))
    return runs


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
