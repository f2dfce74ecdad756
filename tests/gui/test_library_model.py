"""The library table merges a refresh by path: unchanged rows cost the view nothing."""

from __future__ import annotations

from typing import Any

from docent.core.models import DocState, DocumentRecord
from docent.gui.library_model import CHUNKS, NAME, DocumentTableModel


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


def test_refresh_changes_only_what_changed(qtbot: Any) -> None:
    model = DocumentTableModel()
    recs = records(200)
    model.set_records(recs)
    assert model.rowCount() == 200
    changed: list[tuple[int, int]] = []
    model.dataChanged.connect(lambda a, b, roles: changed.append((a.row(), a.column())))
    removed: list[int] = []
    model.rowsRemoved.connect(lambda parent, first, last: removed.append(first))

    model.set_records(records(200))
    assert changed == [] and removed == [], "an unchanged refresh rewrote the table"

    recs = records(200)
    recs[7].chunks = 31
    del recs[3]
    model.set_records(recs)
    assert removed == [3] and model.rowCount() == 199
    assert {(r, c) for r, c in changed} == {(6, CHUNKS)}, changed  # doc7, now at row 6
    assert model.index(6, CHUNKS).data() == "31"
    assert model.index(6, NAME).data() == "doc7.pdf"
    assert [r.path for r in model.rows()] == [r.path for r in recs]
