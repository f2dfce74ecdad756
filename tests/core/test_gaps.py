"""What of a document could not be read is said where it is listed (core/gaps.py): a
page both PDF readers fail on, a scanned page not OCR'd (OCR off, or OCR failing on it),
a sheet past its rows. It was only logged: a question about page 4 found nothing, and
nothing said why."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pdfplumber.page
import pypdfium2
import pytest

import pdf_files
from docent.core import gaps
from docent.core.config import Settings
from docent.core.engine import Engine
from docent.core.extract import extract
from docent.core.formats import sheets
from docent.core.models import DocState, Page
from docent.core.ocr_pdf import ocr_pages
from docent.core.textcache import TextCache
from scan_files import page_image, save_scan

LINES = ["The harbour log records the tides of May.", "Keepers note the lamp hours every night."]


def mixed_pdf(folder: Path) -> Path:
    """Two pages of text, then one scanned page (an image, no text layer)."""
    (folder / "text.pdf").write_bytes(pdf_files.text_pdf([LINES, LINES]))
    save_scan(folder / "scan.pdf", [page_image(["The third page lists the boats."])])
    out = pypdfium2.PdfDocument.new()
    for name in ("text.pdf", "scan.pdf"):
        src = pypdfium2.PdfDocument(str(folder / name))
        out.import_pages(src)
        src.close()
        (folder / name).unlink()
    out.save(str(folder / "harbour.pdf"))
    out.close()
    return folder / "harbour.pdf"


def test_page_lists_are_short_and_exact() -> None:
    assert gaps.page_list([4]) == "page 4"
    assert gaps.page_list([7, 4]) == "pages 4 and 7"
    assert gaps.page_list([4, 5, 6, 9, 12]) == "pages 4-6, 9 and 12"
    many = [1, 3, 5, 7, 9, 11, 13, 14]
    assert gaps.page_list(many) == "8 pages (1, 3, 5, 7, 9, …)"
    pages = [Page(1, "x"), Page(2, "", unread=gaps.UNREADABLE), Page(3, "", unread=gaps.OCR_FAILED)]
    said = gaps.note(pages)
    assert said == "page 2 could not be read; page 3 is scanned and OCR could not read it"
    assert gaps.sentence(said).startswith("Page 2 could not be read; ")
    assert gaps.sentence(said).endswith("; what was read is searchable.")
    assert gaps.note([Page(1, "x")]) == "" and gaps.sentence("") == ""


def test_a_scanned_page_with_ocr_off_is_said_and_read_once_ocr_is_on(tmp_path: Path) -> None:
    path = mixed_pdf(tmp_path)
    off = extract(path, ocr=False)
    assert [p.unread for p in off.pages] == ["", "", gaps.NOT_OCRED]
    assert off.gaps.startswith("page 3 is scanned and not read: OCR is off")
    assert "“Scanned pages” in Settings" in off.gaps  # the setting, by its name in the window
    on = extract(path)
    assert on.gaps == "" and on.pages[2].ocr and "boats" in on.pages[2].text


def test_a_page_ocr_fails_on_is_said(tmp_path: Path) -> None:
    path = mixed_pdf(tmp_path)
    pages = extract(path, ocr=False).pages

    class Broken:  # a page that will not read (the renderer's image is refused)
        def read_layout(self, image: Any) -> Any:
            raise ValueError("cannot read this image")

    read = ocr_pages(path, None, pages, engine=Broken())  # type: ignore[arg-type]
    assert [p.unread for p in read] == ["", "", gaps.OCR_FAILED]
    assert gaps.note(read) == "page 3 is scanned and OCR could not read it"


def test_a_page_neither_reader_can_read_is_said_and_the_rest_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read by pdfplumber alone (``pdfium`` False: pdfium crashed on the file), page 2's
    content breaks pdfminer; the document keeps pages 1 and 3 and says page 2 is missing."""
    from docent.core import extract as extract_module

    path = tmp_path / "log.pdf"
    path.write_bytes(pdf_files.text_pdf([LINES, ["The second page is damaged."], LINES]))
    real = pdfplumber.page.Page.extract_text

    def extract_text(self: pdfplumber.page.Page, **kw: Any) -> str:
        if self.page_number == 2:
            raise KeyError("a content stream pdfminer cannot parse")
        return real(self, **kw)

    monkeypatch.setattr(pdfplumber.page.Page, "extract_text", extract_text)
    doc = extract_module.normal_form.document(
        extract_module._extract_pdf(path, None, False, lambda *a: None, lambda n: None, False)
    )
    assert [p.unread for p in doc.pages] == ["", gaps.UNREADABLE, ""]
    assert doc.gaps == "page 2 could not be read"
    assert "tides of May" in doc.pages[2].text


def test_a_table_cut_at_its_rows_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sheets, "MAX_ROWS", 50)
    path = tmp_path / "runs.csv"
    rows = ["date,runner,km"] + [f"2024-04-{i % 28 + 1:02d},R{i},{i}" for i in range(1, 61)]
    path.write_text("\n".join(rows) + "\n")
    doc = extract(path)
    assert doc.gaps == "only its first 50 rows of data are read"
    assert "R50" in doc.pages[-1].text and "R51" not in doc.pages[-1].text
    path.write_text("\n".join(rows[:51]) + "\n")  # exactly 50 rows: all read, nothing said
    assert extract(path).gaps == ""


def test_the_text_cache_keeps_the_gaps(tmp_path: Path) -> None:
    doc = extract(mixed_pdf(tmp_path), ocr=False)
    cache = TextCache(tmp_path / "cache")
    cache.put("ab" * 32, doc)
    back = cache.get("ab" * 32)
    assert back is not None and back.gaps == doc.gaps
    assert back.scans_unread == doc.scans_unread == 1


def test_the_library_lists_what_was_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Indexed with OCR off: the report, the catalog's record and `docent list` say page
    3 was not read and why; turning OCR on reads it, and the note goes."""
    path = mixed_pdf(tmp_path)
    home = tmp_path / "home"
    settings = Settings(data_dir=str(home), extract_in_subprocess=False, ocr_enabled=False)
    with Engine(settings) as eng:
        report = eng.index([path])
        assert report.gaps == [(str(path), extract(path, ocr=False).gaps)]
        rec = eng.resolve("harbour.pdf")
        assert rec.state is DocState.READY and rec.gaps.startswith("page 3 is scanned")
        assert rec.pages == 3 and rec.scans_unread == 1  # a count decides the re-read
    from docent import cli

    monkeypatch.setattr(cli, "_open_engine", lambda rebuild=False: Engine(settings).open())
    assert cli.main(["list"]) == 0
    listed = capsys.readouterr().out
    assert "ready (page 3 is scanned and not read: OCR is off" in listed
    assert cli.main(["list", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["gaps"].startswith("page 3 is scanned")
    with Engine(Settings(data_dir=str(home), extract_in_subprocess=False)) as eng:
        # OCR on: the document is one to read again (the window resumes those)
        assert [r.file_name for r in eng.awaiting_ocr] == ["harbour.pdf"]
        assert eng.outdated == []
        report = eng.index([path])
        assert report.gaps == [] and report.indexed == [str(path)]
        rec = eng.resolve("harbour.pdf")
        assert rec.gaps == "" and rec.ocr_pages == 1 and rec.scans_unread == 0
        assert [m.page_start for m in eng.grep("lists the boats")] == [3]


def test_a_catalog_of_an_older_docent_gains_the_column(tmp_path: Path) -> None:
    settings = Settings(data_dir=str(tmp_path / "home"), extract_in_subprocess=False)
    with Engine(settings) as eng:
        (tmp_path / "a.txt").write_text("Some words about tides.\n")
        eng.index([tmp_path / "a.txt"])
    con = sqlite3.connect(str(settings.catalog_path))
    con.execute("ALTER TABLE documents DROP COLUMN gaps")
    con.execute("ALTER TABLE documents DROP COLUMN scans_unread")
    con.commit()
    con.close()
    with Engine(settings) as eng:
        rec = eng.resolve("a.txt")
        assert rec.state is DocState.READY and rec.gaps == "" and rec.scans_unread == 0


def test_a_scan_failed_with_ocr_off_is_read_by_the_next_resume_with_ocr_on(
    tmp_path: Path,
) -> None:
    """QA-79: a scan failed "no text layer ... OCR is off"; with OCR on, `docent index`
    said nothing was left to resume and the window kept the failure, though the README
    said it is read the next time Docent indexes with OCR on."""
    lines = ["Minutes of the harbour board", "The board met in May to paint the tower."]
    scan = save_scan(tmp_path / "minutes.pdf", [page_image(lines)])
    home = str(tmp_path / "home")
    off = Settings(data_dir=home, extract_in_subprocess=False, ocr_enabled=False)
    with Engine(off) as eng:
        assert [f.reason for f in eng.index([scan]).failed] == ["no_text"]
        assert eng.awaiting_ocr == []  # OCR still off: nothing to read
    with Engine(Settings(data_dir=home, extract_in_subprocess=False)) as eng:
        assert [r.file_name for r in eng.awaiting_ocr] == ["minutes.pdf"]
        report = eng.resume()
        assert report.indexed == [str(scan)]
        rec = eng.resolve("minutes.pdf")
        assert rec.state is DocState.READY and rec.ocr_pages == 1 and rec.error == ""
        assert eng.awaiting_ocr == []
