"""Extracted text cached by content hash, so re-chunking, dumping and summarising never
re-parse the source file. One JSON file per sha256, written atomically."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import IO

from docent.core import normal_form
from docent.core.models import ExtractedDocument, LineBox, Page
from docent.core.userfiles import open_regular

_READ_BLOCK = 1 << 20

#: The version of each kind's reader: bump a kind's number when its reader changes what it
#: reads from the same file, and its texts cached before are read again by the next index
#: run (the index format, embedding.py, brings that run). 2: Word's insertions, content
#: controls, fields, nested tables and text boxes; a sheet's row numbers; a page's or
#: chapter's undeclared encoding; OpenDocument's deletions, comments and footnotes; a text
#: file's lines past a form feed, and Windows-1252 text (review). 3: Word's merged table
#: cells and rows starting in a later column keep the cells after them in their columns,
#: and so do an HTML table's (a page's, a chapter's) cells spanning columns or rows, and
#: an OpenDocument table's merged and repeated empty cells; its nested tables read once;
#: a page's encoding from its meta tag wherever in its head (not a script's "charset");
#: a heading and the one right under it open one unit, a repeated label is told apart;
#: (session 21, the same number) a merged header names its columns, a value merged down is
#: said on each row, legacy charsets as browsers read them, an EPUB's chapters counted
#: without its cover and contents. PowerPoint 2: a moved group's text in its place. Excel 3:
#: a formula saved without its value (a script's workbook) read as its formula. Word 4:
#: table rows and cells inside content controls (session 22). Word 5, HTML, EPUB and
#: OpenDocument 4, Excel 4: a first row the file marks as its table's header names the
#: columns, numbers ("2021") and spans included; under a title row merged over every
#: column, the next row is weighed as the header (session 23). Excel 5: a table's marked
#: header row below the sheet's first (under a title, a second table) names its rows;
#: Word 6, HTML, EPUB and OpenDocument 5: a title row and a header row both marked as the
#: header, the title said once and the header naming the columns (session 24). Excel 6:
#: a table's header names its own rows and those right under them only, a header with no
#: row under it is kept, a unit of one row is "row 8"; HTML and EPUB 6: a title in one
#: ``<td>`` over a ``<th>`` header (session 24, after files were read by 5). Word 9, HTML
#: and EPUB 9, OpenDocument 8: two marked header rows, a group over a sub-header, name
#: each column by both, "2021 Q1"; a section row or ``<th>`` data rows stay rows, after
#: the group too (session 25, after its reviews; its earlier readers, Word 7-8, HTML
#: and EPUB 7-8, OpenDocument 6-7, merged those into the header). Text 3: a CSV or TSV
#: file that parses as a table is read as a sheet's rows, kind "csv" (session 35, QA-78).
READERS: dict[str, int] = {
    "text": 3,
    "csv": 1,
    "docx": 9,
    "xlsx": 6,
    "html": 9,
    "epub": 9,
    "odt": 8,
    "pptx": 2,
}


def sha256_of(fh: IO[bytes]) -> str:
    h = hashlib.sha256()
    while block := fh.read(_READ_BLOCK):
        h.update(block)
    return h.hexdigest()


def sha256_file(path: str | Path) -> str:
    """The sha256 of a regular file (``NotRegularFile`` for a FIFO, device, ...)."""
    with open_regular(path) as fh:
        return sha256_of(fh)


class TextCache:
    def __init__(self, root: Path) -> None:
        self.root = root

    def _file(self, sha256: str) -> Path:
        return self.root / sha256[:2] / f"{sha256}.json"

    def get(self, sha256: str, *, stale: bool = False) -> ExtractedDocument | None:
        """The text cached for ``sha256``; None when there is none or (unless ``stale``)
        its kind's reader has changed since (``READERS``)."""
        try:
            data = json.loads(self._file(sha256).read_bytes().decode("utf-8", "surrogatepass"))
        except (OSError, ValueError):
            return None
        if not stale and data.get("reader", 1) != READERS.get(data["kind"], 1):
            return None
        labels: list[str] = data.get("labels") or []
        ocr_lines: dict[str, list[list[float]]] = data.get("ocr_lines") or {}
        pages = []
        for i, text in enumerate(data["pages"]):
            boxes = ocr_lines.get(str(i + 1))
            pages.append(
                Page(
                    i + 1,
                    text,
                    labels[i] if i < len(labels) else "",
                    ocr=boxes is not None,
                    lines=tuple(LineBox(int(b[0]), int(b[1]), *b[2:6]) for b in boxes or ()),
                )
            )
        # composed: a text cached before Docent composed what it extracts (normal_form.py)
        return normal_form.document(
            ExtractedDocument(
                data["path"],
                data["kind"],
                pages,
                data.get("page_unit", "page"),
                ocr_checked=bool(data.get("ocr_checked", False)),
                gaps=str(data.get("gaps", "")),
                scans_unread=int(data.get("scans_unread", 0)),
            )
        )

    def put(self, sha256: str, doc: ExtractedDocument) -> None:
        target = self._file(sha256)
        target.parent.mkdir(parents=True, exist_ok=True)
        # Pages are stored densely; extraction numbers them 1..n, so index + 1 is the number.
        texts = [""] * (max((p.number for p in doc.pages), default=0))
        for p in doc.pages:
            texts[p.number - 1] = p.text
        payload: dict[str, object] = {
            "path": doc.path,
            "kind": doc.kind,
            "page_unit": doc.page_unit,
            "pages": texts,
            "ocr_checked": doc.ocr_checked,
            "reader": READERS.get(doc.kind, 1),
        }
        if doc.gaps:
            payload["gaps"] = doc.gaps
        if doc.scans_unread:
            payload["scans_unread"] = doc.scans_unread
        if any(p.label for p in doc.pages):
            labels = [""] * len(texts)
            for p in doc.pages:
                labels[p.number - 1] = p.label
            payload["labels"] = labels
        # OCR results are kept with the boxes of their lines: a re-index never OCRs again,
        # and a citation can light up the lines it came from.
        ocr_lines = {
            str(p.number): [[b.start, b.end, b.x0, b.y0, b.x1, b.y1] for b in p.lines]
            for p in doc.pages
            if p.ocr
        }
        if ocr_lines:
            payload["ocr_lines"] = ocr_lines
        tmp = target.with_suffix(f".{os.getpid()}.tmp")
        # surrogatepass: a path that is not UTF-8 (lone surrogates in Python) comes back exact
        tmp.write_bytes(json.dumps(payload, ensure_ascii=False).encode("utf-8", "surrogatepass"))
        os.replace(tmp, target)

    def discard(self, sha256: str) -> None:
        self._file(sha256).unlink(missing_ok=True)
