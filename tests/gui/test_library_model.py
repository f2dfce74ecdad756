"""The library table merges a refresh by path: unchanged rows cost the view nothing."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from docent.core.api import Progress
from docent.core.models import DocState, DocumentRecord
from docent.gui.library_model import MERGE_ROWS, SNAPSHOT_SLICE, DocumentTableModel
from docent.gui.library_rows import CHUNKS, NAME, ROW_ROLE, STATE


def records(n: int) -> list[DocumentRecord]:
    return [
        DocumentRecord(
            doc_id=f"d{i}",
            path=f"/docs/doc{i}.pdf",
            file_name=f"doc{i}.pdf",
            state=DocState.READY,
            pages=10,
            chunks=30,
            indexed_at=1e9,
        )
        for i in range(n)
    ]


def watch(model: DocumentTableModel) -> tuple[list[tuple[int, int]], list[int]]:
    """(first, last) rows of each dataChanged; the first row of each removal."""
    changed: list[tuple[int, int]] = []
    model.dataChanged.connect(lambda a, b, roles: changed.append((a.row(), b.row())))
    removed: list[int] = []
    model.rowsRemoved.connect(lambda parent, first, last: removed.append(first))
    return changed, removed


def test_refresh_changes_only_what_changed(qtbot: Any) -> None:
    model = DocumentTableModel()
    recs = records(200)
    model.set_records(recs)
    model.flush()
    assert model.rowCount() == 200
    changed, removed = watch(model)

    model.set_records(records(200))
    model.flush()
    assert changed == [] and removed == [], "an unchanged refresh rewrote the table"

    recs = records(200)
    recs[7].chunks = 31
    del recs[3]
    model.set_records(recs)
    assert model.rowCount() == 200, "merged within MERGE_MS of the last merge"
    model.flush()
    assert removed == [3] and model.rowCount() == 199
    assert changed == [(6, 6)], changed  # doc7, now at row 6: that row only
    assert model.index(6, CHUNKS).data() == "31"
    assert model.index(6, NAME).data() == "doc7.pdf"
    assert [r.path for r in model.rows()] == [r.path for r in recs]


def test_a_burst_of_document_events_is_merged_in_a_bounded_number_of_passes(
    qtbot: Any,
) -> None:
    """MERGE_ROWS documents each going queued -> reading -> embedding -> ready (4 events
    each, as the queue's signals deliver them, back to back, right after a merge) reach the
    view in one merge when MERGE_MS is over: one insertion and one dataChanged, never one
    per event."""
    model = DocumentTableModel()
    model.set_records(records(1000))
    model.flush()
    changed, removed = watch(model)
    inserted: list[tuple[int, int]] = []
    model.rowsInserted.connect(lambda parent, first, last: inserted.append((first, last)))
    before = model.merges
    n = MERGE_ROWS
    new = [f"/docs/new/note{i}.txt" for i in range(n)]
    for i, path in enumerate(new):
        model.mark_queued([path])
        model.apply(Progress("extracting", i, n, path), None)
        model.apply(Progress("embedding", i, n, path, f"n{i}", 1, 2, pages=1), None)
        rec = DocumentRecord(
            f"n{i}", path, f"note{i}.txt", state=DocState.READY, pages=1, chunks=2, indexed_at=2e9
        )
        model.apply(Progress("ready", i, n, path, f"n{i}"), rec)
    assert model.merges == before and model.rowCount() == 1000, "merged within MERGE_MS"
    assert model.count == 1000 + n and model.row_for(new[-1]).state == "ready"  # type: ignore[union-attr]
    qtbot.waitUntil(lambda: model.rowCount() == 1000 + n, timeout=5000)
    assert model.merges - before == 1
    assert inserted == [(1000, 999 + n)], "one insertion"
    assert changed == [(1000, 999 + n)], "one dataChanged for the run of rows"
    assert removed == []
    states = {model.index(r, STATE).data() for r in range(1000, 1000 + n)}
    assert states == {"ready"}
    assert [model.index(r, NAME).data(ROW_ROLE).path for r in range(1000, 1000 + n)] == new


def test_a_big_change_is_merged_a_slice_at_a_time(qtbot: Any) -> None:
    """A catalog of 1,000 documents (a library opened) reaches the view MERGE_ROWS rows
    per turn of the event loop, so no turn writes them all; the rows are all there, in
    order, once the merges are done."""
    model = DocumentTableModel()
    model.set_records(records(1000))
    assert model.count == SNAPSHOT_SLICE, "the catalog read is taken a slice per turn"
    assert model.rowCount() == MERGE_ROWS
    qtbot.waitUntil(lambda: model.rowCount() == 1000, timeout=5000)
    assert model.merges == -(-1000 // MERGE_ROWS)
    assert [model.index(r, NAME).data() for r in (0, 999)] == ["doc0.pdf", "doc999.pdf"]


def test_a_document_removed_and_added_again_before_a_merge_is_shown_once(
    qtbot: Any,
) -> None:
    model = DocumentTableModel()
    recs = records(3)
    model.set_records(recs)
    model.apply(Progress("removed", 1, 1, recs[1].path, "d1"), None)  # in the cool-down
    model.remove(recs[1].path)
    recs[1].chunks = 99
    model.apply(Progress("ready", 1, 1, recs[1].path, "d1"), recs[1])
    model.flush()
    paths = [model.index(r, NAME).data(ROW_ROLE).path for r in range(model.rowCount())]
    assert sorted(paths) == sorted(r.path for r in recs)
    row = next(r for r in range(3) if model.index(r, NAME).data(ROW_ROLE).path == recs[1].path)
    assert model.index(row, CHUNKS).data() == "99"


def test_a_catalog_read_taken_in_slices_keeps_what_an_event_said_meanwhile(
    qtbot: Any,
) -> None:
    """A big catalog read is taken SNAPSHOT_SLICE records per turn; a document an event
    changes before its slice is taken keeps the event's state, not the older read's."""
    model = DocumentTableModel()
    recs = records(3 * SNAPSHOT_SLICE)
    model.set_records(recs)
    assert model.count == SNAPSHOT_SLICE, "one slice at once"
    late = recs[-1]  # being indexed again since the read: its event is newer
    model.apply(Progress("embedding", 1, 1, late.path, late.doc_id, 1, 4, pages=10), None)
    qtbot.waitUntil(lambda: model.count == 3 * SNAPSHOT_SLICE, timeout=5000)
    row = model.row_for(late.path)
    assert row is not None and row.state == "indexing" and row.fraction == 0.25
    model.flush()
    assert model.rowCount() == 3 * SNAPSHOT_SLICE

    recs[5].chunks = 99  # a later read: documents gone and changed
    model.set_records(recs[: SNAPSHOT_SLICE // 2] + recs[SNAPSHOT_SLICE:])
    model.flush()
    assert model.count == model.rowCount() == 3 * SNAPSHOT_SLICE - SNAPSHOT_SLICE // 2
    assert model.row_for(recs[5].path).chunks == 99  # type: ignore[union-attr]
    assert model.row_for(recs[SNAPSHOT_SLICE - 1].path) is None


def test_the_cancelled_rows_are_counted_as_they_are_merged(qtbot: Any) -> None:
    """The Resume line's count is kept as rows are merged (recounting 10,000 rows after
    every merge cost the window ~4 ms each): it follows cancels, re-runs and removals."""
    model = DocumentTableModel()
    recs = records(6)
    model.set_records(recs)
    model.flush()
    paths = [r.path for r in recs]
    model.mark_queued(paths[:4])
    model.finish_pending(set(paths[:4]))
    assert model.cancelled_count == 0, "counted when the view shows it"
    model.flush()
    assert model.cancelled_count == 4
    model.apply(Progress("ready", 1, 1, paths[0], recs[0].doc_id), recs[0])
    model.remove(paths[1])
    model.flush()
    assert model.cancelled_count == 2
    states = [model.index(r, STATE).data() for r in range(model.rowCount())]
    assert sum(s.startswith("cancelled") for s in states) == 2
    model.set_records(recs[4:])
    model.flush()
    assert model.cancelled_count == 0 and model.rowCount() == 2


def test_a_sweeps_list_leaves_the_rows_to_the_catalog_read_being_taken(qtbot: Any) -> None:
    """A startup sweep lists every file while the catalog read is still being taken a
    slice per turn: the listed files the read holds get their rows from it (not a bare
    row each, at once: at 10,000 files that cost the window 40-190 ms in one turn), a new
    file gets a row at once, and a row a later event changed keeps what it said."""
    model = DocumentTableModel()
    recs = records(3 * SNAPSHOT_SLICE)
    model.set_records(recs)  # the first slice now, the rest in later turns
    assert model.count == SNAPSHOT_SLICE
    new = "/docs/new.pdf"
    model.mark_queued([r.path for r in recs] + [new], requeue=False)
    assert model.count == SNAPSHOT_SLICE + 1, "bare rows were added for the read's records"
    assert model.row_for(new) is not None and model.row_for(recs[-1].path) is None
    held = model.row_for(recs[0].path)
    assert held is not None and held.state == "ready"  # a sweep does not grey it out
    model.flush()
    assert model.count == model.rowCount() == 3 * SNAPSHOT_SLICE + 1
    for rec in recs:
        row = model.row_for(rec.path)
        assert row is not None and row.pages == 10 and row.state == "ready"

    model.set_records(recs)  # read again; meanwhile a run will index the last file
    model.mark_queued([recs[-1].path])
    model.mark_queued([r.path for r in recs], requeue=False)
    model.flush()
    assert model.row_for(recs[-1].path).state == "queued"  # type: ignore[union-attr]
    assert model.row_for(recs[-2].path).state == "ready"  # type: ignore[union-attr]


def test_a_row_an_event_made_while_the_catalog_was_read_is_kept(qtbot: Any) -> None:
    """A file that failed while a catalog read was in flight: the read, older, lacked it
    and its row went (until the next read: a test saw the window without it)."""
    model = DocumentTableModel()
    recs = records(3)
    model.set_records(recs[:2])
    read_at = model.clock  # a read begins
    failed = recs[2]
    model.apply(Progress("failed", 1, 1, failed.path, failed.doc_id), failed)
    model.set_records(recs[:2], read_at=read_at)  # the read, taken before the failure
    model.flush()
    assert model.row_for(failed.path) is not None
    model.set_records(recs[:2], read_at=model.clock)  # a read after it, without it: gone
    assert model.row_for(failed.path) is None


def test_a_read_taken_while_a_file_was_indexing_does_not_undo_its_ready_event(
    qtbot: Any,
) -> None:
    """The catalog read began while a file was indexing and landed after its "ready"
    event: the row stays ready, and the run's end does not call it cancelled (a test saw
    a small PDF "cancelled: not indexed" after a run nobody cancelled)."""
    model = DocumentTableModel()
    (rec,) = records(1)
    model.mark_queued([rec.path])
    read_at = model.clock  # a read begins; the catalog says the file is indexing
    indexing = replace(rec, state=DocState.INDEXING, chunks=0)
    model.apply(Progress("done", 1, 1, rec.path, rec.doc_id), rec)  # then it is ready
    model.set_records([indexing], read_at=read_at)  # the read lands
    model.finish_pending({rec.path})  # the run ends
    row = model.row_for(rec.path)
    assert row is not None and row.state == "ready", row and row.state_text


def test_two_files_of_one_name_show_their_folders_until_one_goes(qtbot: Any) -> None:
    """Two meeting.md rows looked alike (QA, session 29); the Name column now names them
    as the sources do. The first row is written again when its twin comes and goes."""
    model = DocumentTableModel()

    def names() -> dict[str, str]:
        model.flush()
        return {
            model.index(i, NAME).data(ROW_ROLE).path: model.index(i, NAME).data()
            for i in range(model.rowCount())
        }

    def rec(path: str) -> DocumentRecord:
        return DocumentRecord(
            doc_id=path, path=path, file_name=path.rsplit("/", 1)[1], state=DocState.READY
        )

    alone = [rec("/home/a/notes/meeting.md"), rec("/home/a/notes/plan.md")]
    model.set_records(alone)
    assert names() == {"/home/a/notes/meeting.md": "meeting.md", "/home/a/notes/plan.md": "plan.md"}
    both = [*alone, rec("/home/a/archive/meeting.md")]
    model.set_records(both)
    assert names() == {
        "/home/a/notes/meeting.md": "notes/meeting.md",
        "/home/a/notes/plan.md": "plan.md",
        "/home/a/archive/meeting.md": "archive/meeting.md",
    }
    model.set_records(both[1:])
    assert names() == {
        "/home/a/notes/plan.md": "plan.md",
        "/home/a/archive/meeting.md": "meeting.md",
    }
    # a file told by an event (no record yet) counts as well
    model.mark_queued(["/home/b/notes/plan.md"])
    assert names()["/home/a/notes/plan.md"] == "a/notes/plan.md"
    assert names()["/home/b/notes/plan.md"] == "b/notes/plan.md"


def test_a_third_file_of_the_name_may_need_more_folders_of_the_others(qtbot: Any) -> None:
    model = DocumentTableModel()
    paths = ["/w/a/notes/meeting.md", "/w/archive/meeting.md"]
    for path in paths:
        model.mark_queued([path])
    model.flush()
    assert {model.index(i, NAME).data() for i in range(2)} == {
        "notes/meeting.md",
        "archive/meeting.md",
    }
    model.mark_queued(["/w/b/notes/meeting.md"])  # "notes/meeting.md" names two now
    model.flush()
    assert {model.index(i, NAME).data() for i in range(3)} == {
        "a/notes/meeting.md",
        "archive/meeting.md",
        "b/notes/meeting.md",
    }
