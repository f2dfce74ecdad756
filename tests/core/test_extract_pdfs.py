"""extract() on the PDFs of resources/samples and on PDFs the tests write: each behaviour
that tests/e2e/test_extract_corpus.py checks on the shared corpus, here without it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from docent.core.errors import DamagedDocument, EmptyDocument, EncryptedDocument, NoTextLayer
from docent.core.extract import extract, iter_pdf_pages
from docent.core.models import ExtractedDocument
from pdf_files import (
    cid_font_pdf,
    cjk_pdf,
    encrypted_text_pdf,
    scan_with_text_layer,
    text_pdf,
    truncated,
    with_a_broken_xref,
)
from scan_files import page_image, save_scan

MANUAL = "simh__vax780_doc.pdf"
#: Sentences of the VAX-11/780 simulator manual and the page each is on, read off the PDF.
EVIDENCE = {
    "The LOAD command supports a simple binary format, consisting of a stream of binary "
    "bytes without origin or checksum, for loading memory.": 5,
    "The line printer (LPT) writes data to a disk file.": 12,
    "The TU controller implements the Massbus family of 800/1600bpi magnetic tape drives.": 17,
    "When reading plain ASCII files, lines longer than 80 characters are silently truncated.": 22,
}
LOCKED = [["Minutes of the lighthouse board: the new lens was approved."], ["Second page."]]


def ws(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@pytest.fixture(scope="module")
def manual(samples_dir: Path) -> ExtractedDocument:
    return extract(samples_dir / MANUAL)


# Real PDFs: text ---------------------------------------------------------------------


def test_real_pdfs_keep_the_spaces_between_words(
    manual: ExtractedDocument, samples_dir: Path
) -> None:
    assert "magnetic tape drives. TU options include the ability" in ws(manual.pages[16].text)
    paper = ws(next(iter_pdf_pages(samples_dir / "simh__ctss_hardware.pdf")).text)
    assert "derived from the CTSS sources on Paul Pierce's site and from surviving" in paper


def test_punctuation_is_not_split_off_its_word(manual: ExtractedDocument) -> None:
    assert "column binary format card “decks.” When reading" in ws(manual.pages[21].text)
    assert "The line printer (LPT) writes" in ws(manual.pages[11].text)


def test_page_numbers_are_physical_pages(manual: ExtractedDocument) -> None:
    """Each sentence is on the page it was read off, and on no other."""
    for evidence, page in EVIDENCE.items():
        on = [p.number for p in manual.pages if ws(evidence) in ws(p.text)]
        assert on == [page], (evidence, on)


def test_pdf_pages_are_numbered_from_one_and_cleaned(manual: ExtractedDocument) -> None:
    assert manual.kind == "pdf" and manual.page_unit == "page"
    assert [p.number for p in manual.pages] == list(range(1, 25))
    for page in manual.pages:
        assert "(cid:" not in page.text
        assert "  " not in page.text and not re.search(r" +\n", page.text)
    assert sum("\n" in p.text for p in manual.pages) > 20  # line breaks kept for headings


# Written PDFs: fonts, damage, scans ------------------------------------------------------


def test_glyph_codes_are_removed(tmp_path: Path) -> None:
    import pdfplumber

    path = tmp_path / "refcard.pdf"
    words = ["Reference card: the commands of the calculator and what each one does."]
    path.write_bytes(cid_font_pdf(words, list(range(40, 90)), chars=None))
    with pdfplumber.open(path) as pdf:  # the raw text really has them
        assert "(cid:" in pdf.pages[0].extract_text(x_tolerance_ratio=0.15)
    for pdfium in (True, False):
        (page,) = extract(path, ocr=False, pdfium=pdfium).pages
        assert words[0] in page.text and "(cid:" not in page.text, (pdfium, page.text)


def test_japanese_text_is_extracted(tmp_path: Path) -> None:
    line = "Debian プロジェクトは、フリーソフトウェアだけからなる"
    path = tmp_path / "history.ja.pdf"
    path.write_bytes(cjk_pdf(line))
    for pdfium in (True, False):
        assert ws(extract(path, ocr=False, pdfium=pdfium).pages[0].text) == line, pdfium


def test_owner_restricted_pdf_extracts(tmp_path: Path) -> None:
    """Encrypted with an empty user password (only printing/copying restricted)."""
    path = tmp_path / "form.pdf"
    path.write_bytes(encrypted_text_pdf(LOCKED, user_password=""))
    assert [p.text for p in extract(path).pages] == [line for (line,) in LOCKED]


def test_damaged_but_recoverable_xref_extracts(tmp_path: Path) -> None:
    path = tmp_path / "badxref.pdf"
    path.write_bytes(with_a_broken_xref(text_pdf([[f"Potato {i}"] for i in range(30)])))
    assert [p.text for p in extract(path).pages] == [f"Potato {i}" for i in range(30)]


def test_a_truncated_pdf_is_damaged(tmp_path: Path, samples_dir: Path) -> None:
    path = tmp_path / "half.pdf"
    path.write_bytes(truncated((samples_dir / "forensics-samples-files__a-text.pdf").read_bytes()))
    with pytest.raises(DamagedDocument, match="half.pdf is damaged"):
        extract(path)


def test_an_image_only_scan_without_ocr_has_no_text_layer(tmp_path: Path) -> None:
    path = save_scan(tmp_path / "scan.pdf", [page_image(["A letter to the harbour master."])])
    with pytest.raises(NoTextLayer) as info:
        extract(path, ocr=False)
    assert "scan.pdf" in str(info.value) and "OCR" in str(info.value)


def test_a_scan_with_an_ocr_layer_keeps_its_text(tmp_path: Path) -> None:
    lines = [f"Line {i} of the siege report tells of the river and the guns." for i in range(30)]
    path = tmp_path / "ocred.pdf"
    path.write_bytes(scan_with_text_layer([lines, lines]))
    doc = extract(path)
    assert len(doc.pages) == 2 and doc.word_count == 2 * 30 * 13
    assert not any(p.ocr for p in doc.pages), "the text layer was replaced by OCR"


# Written PDFs: encryption ----------------------------------------------------------------


def test_an_encrypted_pdf_says_so(tmp_path: Path) -> None:
    path = tmp_path / "locked.pdf"
    path.write_bytes(encrypted_text_pdf(LOCKED, user_password="peanuts"))
    with pytest.raises(EncryptedDocument) as info:
        extract(path)
    assert "locked.pdf" in str(info.value) and "password-protected" in str(info.value)
    assert info.value.path == str(path) and info.value.reason == "encrypted"


@pytest.mark.parametrize("password", ["peanuts", "the-owners"])
def test_the_right_password_opens_an_encrypted_pdf(tmp_path: Path, password: str) -> None:
    """The user's password or the owner's."""
    path = tmp_path / "locked.pdf"
    path.write_bytes(encrypted_text_pdf(LOCKED, "peanuts", owner_password="the-owners"))
    doc = extract(path, password=password)
    assert [p.text for p in doc.pages] == [line for (line,) in LOCKED]


def test_a_wrong_password_is_reported_as_such(tmp_path: Path) -> None:
    path = tmp_path / "locked.pdf"
    path.write_bytes(encrypted_text_pdf(LOCKED, user_password="peanuts"))
    with pytest.raises(EncryptedDocument, match="password given was not accepted"):
        extract(path, "walnuts")


def test_a_pdf_without_pages_after_an_encrypted_one_is_not_called_encrypted(
    tmp_path: Path,
) -> None:
    """pdfium sets no error when a page-less PDF fails to load: its last one, from the
    encrypted file, was taken for this file's."""
    locked, empty = tmp_path / "locked.pdf", tmp_path / "no-pages.pdf"
    locked.write_bytes(encrypted_text_pdf(LOCKED, user_password="peanuts"))
    empty.write_bytes(text_pdf([]))
    with pytest.raises(EncryptedDocument):
        extract(locked)
    with pytest.raises(EmptyDocument, match="no-pages.pdf has no pages"):
        extract(empty)
