"""OCR of scanned PDFs made here: index, grep and search find the text on its page, the
page keeps its line boxes for highlighting, the cache keeps the OCR, the setting turns it
off. Reading order on skewed and two-column pages; the models load with no network."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from docent.core.config import Settings
from docent.core.engine import Engine
from docent.core.errors import EmptyDocument, NoTextLayer
from docent.core.extract import extract
from docent.core.indexer import IndexReport
from docent.core.models import DocState, SparseVec
from docent.core.ocr import MIN_PAGE_CHARS, OcrEngine, garbage_share, needs_ocr
from docent.core.ocr_layout import RawLine, reading_order
from docent.core.passages import passage_boxes
from docent.core.preparing import Preparer
from scan_files import page_image, save_scan, save_scan_over_garbage

COVER = ["Harbour Almanac", "Printed for the keepers of the coast."]
LEFT = ["Left column starts here", "and the left column ends."]
RIGHT = ["Right column comes next", "and closes the page."]


@pytest.fixture(scope="module")
def scan(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("scans")
    body = page_image(["The second page explains the tides."], columns=[LEFT, RIGHT], skew=2.0)
    return save_scan(folder / "almanac.pdf", [page_image(COVER), body])


@pytest.fixture(scope="module")
def indexed(
    scan: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Engine, IndexReport]]:
    home = tmp_path_factory.mktemp("ocr-home")
    eng = Engine(Settings(data_dir=str(home), extract_in_subprocess=False)).open()
    report = eng.index([scan])
    yield eng, report
    eng.close()


def test_a_scan_is_indexed_and_grep_finds_its_text_on_its_page(
    indexed: tuple[Engine, IndexReport],
) -> None:
    eng, report = indexed
    assert not report.failed, report.failed
    rec = eng.resolve("almanac.pdf")
    assert rec.state is DocState.READY and rec.ocr_pages == 2
    matches = eng.grep("keepers of the coast")
    assert [(m.file_name, m.page_start) for m in matches] == [("almanac.pdf", 1)]
    # Two short pages make one passage: it names both, and the page it holds is 2.
    on_two = eng.grep("right column comes next")
    assert len(on_two) == 1 and on_two[0].page_start <= 2 <= on_two[0].page_end
    hits = eng.search("which page explains the tides").hits
    assert hits and hits[0].file_name == "almanac.pdf" and hits[0].page_end == 2


def test_an_ocr_page_keeps_the_boxes_of_a_cited_passage(
    indexed: tuple[Engine, IndexReport],
) -> None:
    eng, _ = indexed
    doc = eng.extracted(eng.resolve("almanac.pdf"))
    page = doc.pages[1]
    assert page.ocr and len(page.lines) == 5
    boxes = passage_boxes(page, "Right column comes next and closes the page.")
    assert len(boxes) == 2
    # The right column's lines: right of the page's middle, one above the other.
    assert all(b.x0 > 0.45 for b in boxes)
    assert boxes[0].y1 <= boxes[1].y0 + 0.01
    assert passage_boxes(page, "words that are nowhere on this page") == []


def test_skewed_two_column_page_reads_column_by_column(scan: Path, indexed: object) -> None:
    eng, _ = indexed  # type: ignore[misc]
    text = eng.extracted(eng.resolve("almanac.pdf")).pages[1].text
    order = [text.find(s) for s in ("tides", "Left column starts", "left column ends", "Right")]
    assert -1 not in order and order == sorted(order), text


def test_the_text_cache_keeps_the_ocr(
    indexed: tuple[Engine, IndexReport], monkeypatch: pytest.MonkeyPatch
) -> None:
    eng, _ = indexed
    rec = eng.resolve("almanac.pdf")

    def no_ocr(*args: object, **kwargs: object) -> None:
        raise AssertionError("OCR ran again")

    monkeypatch.setattr(OcrEngine, "read_image", no_ocr)
    preparer = Preparer(lambda t: len(t.split()), lambda ts: [SparseVec([], []) for _ in ts])
    again = preparer.prepare(rec.path, str(eng.cache.root), known_sha="")
    assert not again.reason and again.ocr_pages == 2 and again.chunks
    assert any("Harbour Almanac" in c.text for c in again.chunks)


LAYER = "Minutes of the lighthouse board, May"


def test_a_page_whose_text_layer_is_garbage_is_read_by_ocr(tmp_path: Path) -> None:
    lines = ["The tower was painted green in May.", "Keepers log the lamp hours."]
    path = save_scan_over_garbage(tmp_path / "mapped.pdf", page_image(lines), LAYER)
    import pypdfium2

    pdf = pypdfium2.PdfDocument(str(path))
    layer = pdf[0].get_textpage().get_text_range()
    pdf.close()
    # The page has text of its own, long enough to be used, but none of it is readable.
    assert len(layer.replace(" ", "")) >= MIN_PAGE_CHARS and garbage_share(layer) == 1.0
    with pytest.raises(NoTextLayer):  # without OCR: nothing readable is kept
        extract(path, ocr=False)
    page = extract(path).pages[0]
    assert page.ocr and page.text == "\n".join(lines)
    assert passage_boxes(page, "Keepers log the lamp hours.")


def test_ocr_off_leaves_a_scan_failed_with_the_setting_named(scan: Path, tmp_path: Path) -> None:
    with pytest.raises(NoTextLayer, match="OCR"):
        extract(scan, ocr=False)
    eng = Engine(
        Settings(data_dir=str(tmp_path / "off"), extract_in_subprocess=False, ocr_enabled=False)
    ).open()
    try:
        report = eng.index([scan])
        assert [f.reason for f in report.failed] == ["no_text"]
    finally:
        eng.close()


def test_ocr_models_load_without_the_network(monkeypatch: pytest.MonkeyPatch) -> None:
    import numpy as np

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the OCR engine tried to reach the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    engine = OcrEngine()
    assert engine.read_image(np.full((40, 40, 3), 255, dtype=np.uint8)) == []


def test_which_pages_need_ocr() -> None:
    assert needs_ocr("", has_images=True)
    assert not needs_ocr("", has_images=False)  # a blank page
    assert not needs_ocr("An ordinary page of text with enough words.", has_images=True)
    garbage = "(cid:12)(cid:40)(cid:3)" * 20
    assert garbage_share(garbage) == 1.0 and needs_ocr(garbage, has_images=False)
    assert needs_ocr("\ufffd" * 40, has_images=False)


def _line(text: str, x: float, y: float, w: float = 300, h: float = 30) -> RawLine:
    return RawLine(text, ((x, y), (x + w, y), (x + w, y + h), (x, y + h)))


def test_reading_order_keeps_full_width_lines_around_columns() -> None:
    lines = [
        _line("Closing line across the page", 100, 900, w=1000),
        _line("right two", 650, 450, w=450),
        _line("left one", 100, 400, w=450),
        _line("Title across the whole page", 100, 100, w=1000),
        _line("right one", 650, 400, w=450),
        _line("left two", 100, 450, w=450),
    ]
    text = reading_order(lines, 1240, 1754).text
    assert text.split("\n\n") == [
        "Title across the whole page",
        "left one\nleft two",
        "right one\nright two",
        "Closing line across the page",
    ]


def test_a_table_row_stays_one_line() -> None:
    """Cells side by side in a single row are not columns: they are read left to right."""
    lines = [_line("Name", 100, 100, w=100), _line("Year", 600, 100, w=100)]
    lines += [_line("Ada", 100, 140, w=100), _line("1843", 600, 140, w=100)]
    assert reading_order(lines, 1240, 1754).text == "Name Year\nAda 1843"


def test_a_scanned_table_is_read_row_by_row() -> None:
    """A two-column table whose cells are wider than the gap between them was read column
    by column (review: every name, then every year), as if it were two columns of prose."""
    cells = [("Parameter", "Meaning"), ("HISTORY", "lines of history kept"), ("TERM", "the")]
    cells += [("PAGER", "program that pages output"), ("EDITOR", "program for editing")]
    lines = []
    for i, (name, meaning) in enumerate(cells):
        lines.append(_line(name, 100, 100 + 40 * i, w=40 * len(name)))
        lines.append(_line(meaning, 600, 100 + 40 * i, w=22 * len(meaning)))
    text = reading_order(lines, 1240, 1754).text
    assert text.splitlines() == [f"{name} {meaning}" for name, meaning in cells]


def test_a_column_that_starts_below_a_figure_is_still_read_first() -> None:
    """The left column starts lower (a figure above it, no text): the right column's
    first lines were read before the whole left column."""
    left = ["the left column opens with", "its second line of prose", "and its third one ends"]
    right = ["the right column opens here", "beside the figure on the left", "and goes on below it"]
    right += ["until the page ends with", "a last line on the right"]
    lines = [_line(t, 650, 100 + 40 * i, w=450) for i, t in enumerate(right)]
    lines += [_line(t, 100, 180 + 40 * i, w=450) for i, t in enumerate(left)]
    text = reading_order(lines, 1240, 1754).text
    assert text.split("\n\n") == ["\n".join(left), "\n".join(right)]


def test_a_scan_with_a_few_words_of_text_on_it_is_ocrd(tmp_path: Path) -> None:
    """A phone scanner's "Scanned with CamScanner" (21 letters) made the page's text layer
    look usable: never OCR'd, all it said lost, the file "indexed" (review)."""
    from scan_files import page_image, save_scan_with_stamp

    lines = ["Quarterly maintenance report", "The boiler valve was replaced"]
    path = save_scan_with_stamp(tmp_path / "scan.pdf", page_image(lines), "Scanned with CamScanner")
    (page,) = extract(path, ocr=True).pages
    assert page.ocr and "boiler valve" in page.text.lower()


def test_pages_whose_only_image_is_a_dot_are_not_ocrd(tmp_path: Path) -> None:
    """A 1x1-pixel image made each text-less page cost ~0.75 s of OCR (review)."""
    from scan_files import save_dot_pages

    announced: list[int] = []
    with pytest.raises(EmptyDocument):
        extract(
            save_dot_pages(tmp_path / "dots.pdf", 6),
            ocr=True,
            on_ocr=lambda number, done, total: announced.append(number),
        )
    assert [n for n in announced if n] == []  # no page OCR'd


def test_a_short_real_text_layer_is_read_not_called_a_scan(tmp_path: Path) -> None:
    """ "Invoice 4471 paid", a whole PDF's text, was "no text: no text layer and no scanned
    pages" with OCR on (review): no page needed OCR, so nothing hides behind it."""
    from pdf_files import text_pdf

    path = tmp_path / "receipt.pdf"
    path.write_bytes(text_pdf([["Invoice 4471 paid"]]))
    (page,) = extract(path, ocr=True).pages
    assert page.text == "Invoice 4471 paid" and not page.ocr
    with pytest.raises(NoTextLayer, match="a scan\\?"):  # OCR off: it cannot tell, it asks
        extract(path, ocr=False)
