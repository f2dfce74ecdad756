"""extract() on small files written by the tests: PDFs page by page, text files, folders and
files it cannot read. Real PDFs: test_extract_pdfs.py (repo samples), tests/e2e (corpus)."""

from __future__ import annotations

import logging
import os
import pickle
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from docent.core.errors import (
    DamagedDocument,
    EmptyDocument,
    FileVanished,
    NoTextLayer,
    UnreadableFile,
    UnsupportedType,
)
from docent.core.extract import (
    TEXT_LINES_PER_PAGE,
    clean_pdf_text,
    extract,
    is_supported,
)
from docent.core.models import ExtractedDocument

Extracted = Callable[[str], ExtractedDocument]


def make_pdf(page_streams: list[bytes], bad_filter_on: frozenset[int] = frozenset()) -> bytes:
    """A minimal valid PDF (Helvetica) with one content stream per page.

    Pages whose index is in ``bad_filter_on`` get a stream filter that does not exist,
    which pdfminer refuses on that page only.
    """
    n = len(page_streams)
    font = 3 + 2 * n
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(n))
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", f"<< /Type /Pages /Kids [{kids}] /Count {n} >>"]
    for i, content in enumerate(page_streams):
        objs.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
            f"/Resources << /Font << /F1 {font} 0 R >> >> >>"
        )
        extra = b" /Filter /NoSuchFilter" if i in bad_filter_on else b""
        objs.append(b"<< /Length %d%s >>\nstream\n%s\nendstream" % (len(content), extra, content))
    objs.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, obj in enumerate(objs, start=1):
        offsets.append(len(out))
        body = obj.encode() if isinstance(obj, str) else obj
        out += b"%d 0 obj\n%s\nendobj\n" % (i, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    return bytes(out)


def text_stream(text: str) -> bytes:
    return b"BT /F1 12 Tf 72 720 Td (%s) Tj ET" % text.encode("latin-1")


# Suffixes --------------------------------------------------------------------------


def test_supported_suffixes_are_case_insensitive() -> None:
    assert is_supported("a/B.PDF") and is_supported("notes.md") and is_supported("x.Py")
    assert not is_supported("setup.exe") and not is_supported("Makefile")
    assert not is_supported("archive.tar.gz")


# Synthetic PDFs ----------------------------------------------------------------------


def test_a_page_pdfminer_cannot_decode_is_read_by_pdfium(tmp_path: Path) -> None:
    streams = [text_stream(f"Page {i} says something worth reading.") for i in (1, 2, 3)]
    path = tmp_path / "one-bad-page.pdf"
    path.write_bytes(make_pdf(streams, bad_filter_on=frozenset({1})))
    doc = extract(path, ocr=False)
    assert [p.text for p in doc.pages] == [
        f"Page {i} says something worth reading." for i in (1, 2, 3)
    ]


def test_a_page_that_fails_alone_is_left_empty(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """As pdfplumber reads a file alone (after pdfium crashed on it: sandbox.py)."""
    streams = [text_stream(f"Page {i} says something worth reading.") for i in (1, 2, 3)]
    path = tmp_path / "one-bad-page.pdf"
    path.write_bytes(make_pdf(streams, bad_filter_on=frozenset({1})))
    with caplog.at_level(logging.WARNING, logger="docent.core.extract"):
        doc = extract(path, ocr=False, pdfium=False)
    assert [(p.number, p.text) for p in doc.pages] == [
        (1, "Page 1 says something worth reading."),
        (2, ""),
        (3, "Page 3 says something worth reading."),
    ]
    assert "page 2 could not be read" in caplog.text


def test_a_page_pdfminer_cannot_decode_takes_pdfiums_text(tmp_path: Path) -> None:
    """With OCR on, pages left (next to) empty are looked at again: pdfium decodes this
    stream, and its text is used as it is (no OCR)."""
    streams = [text_stream(f"Page {i} says something worth reading.") for i in (1, 2, 3)]
    path = tmp_path / "one-bad-page.pdf"
    path.write_bytes(make_pdf(streams, bad_filter_on=frozenset({1})))
    page = extract(path).pages[1]
    assert page.text == "Page 2 says something worth reading." and not page.ocr


def test_a_pdf_whose_every_page_fails_is_damaged(tmp_path: Path) -> None:
    path = tmp_path / "all-bad.pdf"
    path.write_bytes(make_pdf([text_stream("unreadable text")] * 2, frozenset({0, 1})))
    with pytest.raises(DamagedDocument):
        extract(path, pdfium=False)
    assert [p.text for p in extract(path, ocr=False).pages] == ["unreadable text"] * 2


def test_a_pdf_with_no_text_at_all_has_no_text_layer(tmp_path: Path) -> None:
    path = tmp_path / "blank.pdf"
    path.write_bytes(make_pdf([b"", b"", text_stream("p.3")]))
    with pytest.raises(NoTextLayer, match="blank.pdf has no text layer"):
        extract(path, ocr=False)
    # With OCR on, pages without images are not OCR'd: nothing to read there either.
    with pytest.raises(EmptyDocument, match="blank.pdf has no text"):
        extract(path)


def test_a_word_hyphenated_at_a_line_end_reads_as_pdfplumber_read_it(tmp_path: Path) -> None:
    """pdfium marks it with U+FFFE and joins the lines; chunks and highlights expect the
    hyphen and the line break, as pdfplumber gave them."""
    path = tmp_path / "hyphen.pdf"
    lines = b"BT /F1 12 Tf 72 720 Td (a number of out-) Tj 0 -14 Td (liers and more) Tj ET"
    path.write_bytes(make_pdf([lines]))
    by_pdfium = extract(path, ocr=False).pages[0].text
    assert by_pdfium == "a number of out-\nliers and more"
    assert by_pdfium == extract(path, ocr=False, pdfium=False).pages[0].text


def test_a_page_with_next_to_no_text_is_read_by_both_readers(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A weak page (here: 3 characters) is reread by pdfplumber, which finds the same."""
    path = tmp_path / "short-page.pdf"
    path.write_bytes(
        make_pdf([text_stream("A page with enough words to be text."), text_stream("p.2")])
    )
    with caplog.at_level(logging.DEBUG, logger="pdfminer"):
        doc = extract(path, ocr=False)
    assert [p.text for p in doc.pages] == ["A page with enough words to be text.", "p.2"]
    assert caplog.records, "pdfplumber (pdfminer) did not read the weak page"


def test_a_pdf_without_pages_says_so(tmp_path: Path) -> None:
    path = tmp_path / "no-pages.pdf"
    path.write_bytes(make_pdf([]))
    with pytest.raises(EmptyDocument, match="no-pages.pdf has no pages"):
        extract(path, ocr=False)


def test_a_pdf_cut_short_says_so(tmp_path: Path, samples_dir: Path) -> None:
    """An interrupted download: the first 20 kB of a real PDF. It said "has no pages."
    (QA-78)."""
    path = tmp_path / "truncated.pdf"
    path.write_bytes((samples_dir / "simh__ctss_hardware.pdf").read_bytes()[:20_000])
    with pytest.raises(DamagedDocument, match=r"truncated.pdf is cut short .*Download or copy"):
        extract(path, ocr=False)


def test_a_short_text_pdf_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "short.pdf"
    path.write_bytes(make_pdf([text_stream("A memo of a few words."), text_stream("Yes.")]))
    assert [p.text for p in extract(path).pages] == ["A memo of a few words.", "Yes."]


def test_a_text_file_named_pdf_is_damaged(tmp_path: Path) -> None:
    path = tmp_path / "fake.pdf"
    path.write_text("this is not a PDF at all\n")
    with pytest.raises(DamagedDocument, match="fake.pdf"):
        extract(path)


def test_a_csv_table_is_read_as_rows_named_by_its_header(tmp_path: Path) -> None:
    """QA-78: "2024-04-01,Torbjorn,42,187" reached the model with nothing saying 42 was
    kilometres. A CSV or TSV that parses as a table is read as a sheet's rows."""
    rows = ["date,runner,km,minutes"] + [
        f"2024-04-{d:02d},Torbjorn,{d + 10},{d * 9}" for d in range(1, 31)
    ]
    path = tmp_path / "runs.csv"
    path.write_text("\n".join(rows) + "\n")
    doc = extract(path)
    assert doc.kind == "csv" and doc.page_unit == "rows"
    assert [p.label for p in doc.pages] == ["rows 2–26", "rows 27–31"]  # the file's rows
    first = doc.pages[0].text.split("\n")
    assert first[:2] == [
        "date | runner | km | minutes",
        "date: 2024-04-01 | runner: Torbjorn | km: 11 | minutes: 9",
    ]
    # a TSV, and a semicolon CSV (as a spreadsheet in many countries saves it)
    (tmp_path / "t.tsv").write_text("city\tpeople\nOslo\t709000\nBergen\t291000\n")
    assert extract(tmp_path / "t.tsv").pages[0].text.endswith("city: Bergen | people: 291000")
    (tmp_path / "s.csv").write_text("Name;Age\nAnna;34\nBo;29\n")
    assert "Name: Anna | Age: 34" in extract(tmp_path / "s.csv").pages[0].text


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("list.csv", "apples\npears\nplums\n"),  # one column: a list
        ("note.csv", "Remember: the meeting moved to Friday, 3 pm.\n"),  # a line of prose
    ],
)
def test_a_csv_that_is_no_table_stays_text(tmp_path: Path, name: str, text: str) -> None:
    (tmp_path / name).write_text(text)
    doc = extract(tmp_path / name)
    assert doc.kind == "text" and doc.pages[0].text == text.rstrip("\n")


# Files and folders -------------------------------------------------------------------


@pytest.mark.parametrize("name", ["gone.pdf", "gone.txt"])
def test_a_missing_file_has_vanished(tmp_path: Path, name: str) -> None:
    with pytest.raises(FileVanished, match=name):
        extract(tmp_path / name)


@pytest.mark.parametrize("name", ["folder.pdf", "folder.md"])
def test_a_folder_is_unreadable(tmp_path: Path, name: str) -> None:
    (tmp_path / name).mkdir()
    with pytest.raises(UnreadableFile, match=f"{name} is a folder"):
        extract(tmp_path / name)


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads anything")
def test_a_file_without_read_permission_is_unreadable(tmp_path: Path) -> None:
    path = tmp_path / "secret.txt"
    path.write_text("hidden")
    path.chmod(0)
    with pytest.raises(UnreadableFile, match="permission denied"):
        extract(path)


@pytest.mark.parametrize("name", ["setup.exe", "data.bin", "README"])
def test_unsupported_types_are_refused(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_bytes(b"MZ\x90\x00")
    with pytest.raises(UnsupportedType, match=re.escape(name)):
        extract(tmp_path / name)


# Text files --------------------------------------------------------------------------


def test_text_files_are_split_into_pages_of_60_lines(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("".join(f"line {i}\n" for i in range(1, 151)), encoding="utf-8")
    doc = extract(path)
    assert doc.kind == "text" and doc.page_unit == f"lines:{TEXT_LINES_PER_PAGE}"
    assert [p.number for p in doc.pages] == [1, 2, 3]
    assert [len(p.text.splitlines()) for p in doc.pages] == [60, 60, 30]
    assert doc.pages[1].text.splitlines()[0] == "line 61"
    assert doc.pages[2].text.splitlines()[-1] == "line 150"


def test_text_files_keep_indentation_and_drop_the_bom(tmp_path: Path) -> None:
    path = tmp_path / "code.py"
    path.write_bytes("\ufeffdef f():\r\n    return 1  \r\n".encode())
    assert extract(path).pages[0].text == "def f():\n    return 1"


def test_invalid_utf8_is_replaced_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "cut.txt"  # UTF-8 with a broken byte (a file cut short, say)
    path.write_bytes("Grüße, café, déjà vu ".encode() + b"\xe9 au lait")
    assert extract(path).pages[0].text == "Grüße, café, déjà vu \ufffd au lait"


@pytest.mark.parametrize("encoding", ["cp1252", "latin-1"])
def test_a_windows_or_latin1_text_file_keeps_its_accents(tmp_path: Path, encoding: str) -> None:
    path = tmp_path / "notes.txt"
    text = "Café crème, naïve façade, déjà vu" + (" — 50 €" if encoding == "cp1252" else "")
    path.write_bytes(text.encode(encoding))
    assert extract(path).pages[0].text == text


def test_utf16_text_with_a_bom_is_read(tmp_path: Path) -> None:
    path = tmp_path / "windows.txt"
    path.write_bytes("Grüße aus Windows".encode("utf-16"))
    assert extract(path).pages[0].text == "Grüße aus Windows"


@pytest.mark.parametrize("content", [b"", b"   \n\t\n  \n"])
def test_an_empty_text_file_is_empty(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "empty.txt"
    path.write_bytes(content)
    with pytest.raises(EmptyDocument, match="empty.txt is empty"):
        extract(path)


@pytest.mark.parametrize("name", ["empty.pdf", "empty.docx", "empty.md", "empty.epub"])
def test_a_file_of_no_bytes_is_empty_whatever_its_kind(tmp_path: Path, name: str) -> None:
    """Not "damaged or not really a PDF" (nor a corrupt zip): a file still being copied
    or downloaded has no bytes yet, and the message says so."""
    path = tmp_path / name
    path.write_bytes(b"")
    with pytest.raises(EmptyDocument, match=re.escape(f"{name} is empty (0 bytes)")):
        extract(path)


def test_a_binary_file_named_txt_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "image.txt"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    with pytest.raises(UnsupportedType, match="image.txt looks like a binary file"):
        extract(path)


# Helpers -----------------------------------------------------------------------------


def test_clean_pdf_text_is_light() -> None:
    raw = "Title  (cid:13)here \t \nbody   text   \n\n\n\nContents. . . . . . 7\n/* ======== */"
    assert clean_pdf_text(raw) == "Title here\nbody text\n\nContents … 7\n/* === */"


def test_results_survive_pickling_for_a_worker_process(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("one\ntwo\n")
    doc = extract(path)
    assert pickle.loads(pickle.dumps(doc)) == doc
