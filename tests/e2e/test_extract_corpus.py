"""extract() and chunk_pages() on the real corpus of ../shared/corpus: TeX and CJK
manuals, glyph codes, four kinds of encryption, scans, a damaged file, (slow) every file
of it, and the chunks of its longest manual. Each behaviour is also tested without the
corpus, on PDFs of resources/samples or written by the tests: in
tests/core/test_extract_pdfs.py and tests/core/test_chunking.py."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from chunk_checks import (
    Counter,
    assert_cited_on_its_page,
    chunks_fit_and_cover,
    model_token_counter,
    ws,
)
from docent.core.chunking import chunk_pages
from docent.core.errors import (
    DamagedDocument,
    DocumentError,
    EncryptedDocument,
    NoTextLayer,
)
from docent.core.extract import extract, iter_pdf_pages
from docent.core.models import ExtractedDocument

Extracted = Callable[[str], ExtractedDocument]

ENCRYPTED = {
    "forensics-samples-files__a-text-pass-peanuts.pdf": "peanuts",
    "pypdf__libreoffice-writer-password.pdf": "openpassword",
    "pypdf__crazyones-encrypted-256.pdf": "password",
    "pikepdf__graph-encrypted.pdf": "owner",
}
CHEAP_EVIDENCE_FILES = {"r-doc-pdf__R-intro.pdf", "simh__simh_doc.pdf", "simh__pdp11_doc.pdf"}
INTRO = "r-doc-pdf__R-intro.pdf"
SCANS = ["pikepdf__congress.pdf", "ocrmypdf__c03-29.pdf", "ocrmypdf__multipage.pdf"]


def first_pages(path: Path, n: int) -> list[str]:
    """Texts of the first ``n`` pages, read lazily (cheaper than a whole long manual)."""
    pages = iter_pdf_pages(path)
    return [next(pages).text for _ in range(n)]


# Real PDFs: text -------------------------------------------------------------------


def test_tex_pdfs_keep_the_spaces_between_words(
    extracted_corpus: Extracted, corpus_dir: Path
) -> None:
    intro = extracted_corpus("r-doc-pdf__R-intro.pdf")
    assert "Permission is granted to make and distribute verbatim copies" in ws(intro.pages[1].text)
    # pdfplumber's default tolerance gives "permutationtoblocktriangularform" here.
    klu = ws(first_pages(corpus_dir / "libsuitesparse-doc__KLU_UserGuide.pdf", 1)[0])
    assert "permutation to block triangular form (BTF)" in klu


def test_kerned_punctuation_is_not_split_off(extracted_corpus: Extracted) -> None:
    """pdfplumber's x_tolerance=1 gave "f (x;" and "Book ”."; pdfium does not (it sets a
    superscript on a line of its own: "x\n2\n)")."""
    pages = extracted_corpus("r-doc-pdf__R-intro.pdf").pages
    assert "f(x; y) = cos(y)/(1 + x\n2\n)" in pages[28].text
    assert "the “Blue Book”." in pages[112].text


def test_page_numbers_are_physical_pages(extracted_corpus: Extracted, corpus_dir: Path) -> None:
    """Each dev-question evidence snippet is on the page the question cites, verbatim.

    Only the manuals that are cheap to read (R-intro is cached for the session): pdfplumber
    reads 5-20 pages a second.
    """
    questions = [
        json.loads(line)
        for line in (corpus_dir.parent / "dev-questions.jsonl").read_text().splitlines()
        if line.strip()
    ]
    checked = 0
    for q in questions:
        if q["file"] not in CHEAP_EVIDENCE_FILES:
            continue
        if q["file"] == "r-doc-pdf__R-intro.pdf":
            texts = [p.text for p in extracted_corpus(q["file"]).pages]
        else:
            texts = first_pages(corpus_dir / q["file"], max(q["pages"]))
        on_page = [n for n in q["pages"] if ws(q["evidence"]) in ws(texts[n - 1])]
        assert on_page, f"{q['id']}: evidence not on page(s) {q['pages']} of {q['file']}"
        checked += 1
    assert checked >= 10


def test_pdf_pages_are_numbered_from_one_and_cleaned(extracted_corpus: Extracted) -> None:
    doc = extracted_corpus("r-doc-pdf__R-intro.pdf")
    assert doc.kind == "pdf" and doc.page_unit == "page"
    assert [p.number for p in doc.pages] == list(range(1, 114))
    for page in doc.pages:
        assert "(cid:" not in page.text
        assert "  " not in page.text and not re.search(r" +\n", page.text)
    assert sum("\n" in p.text for p in doc.pages) > 100  # line breaks kept for headings


def test_glyph_codes_are_removed(corpus_dir: Path) -> None:
    import pdfplumber

    path = corpus_dir / "pari-doc__refcard.pdf"
    with pdfplumber.open(path) as pdf:  # the raw text of page 1 really has them
        assert "(cid:" in pdf.pages[0].extract_text(x_tolerance_ratio=0.15)
    page = next(iter_pdf_pages(path))
    assert page.number == 1 and len(page.text.split()) > 1000
    assert "(cid:" not in page.text


def test_japanese_text_is_extracted(corpus_dir: Path) -> None:
    text = "".join(first_pages(corpus_dir / "debian-history__project-history.ja.pdf", 8))
    assert "Debian プロジェクトは、フリーソフトウェアだけからなる" in ws(text)
    assert sum(1 for ch in text if "\u3040" <= ch <= "\u30ff") > 1000  # kana


def test_owner_restricted_form_extracts(corpus_dir: Path) -> None:
    """Encrypted with an empty user password (only printing/copying restricted)."""
    page = next(iter_pdf_pages(corpus_dir / "pikepdf__form_dd0293.pdf"))
    assert "APPLICATION FOR THE REVIEW OF DISCHARGE" in page.text


def test_damaged_but_recoverable_xref_extracts(corpus_dir: Path) -> None:
    doc = extract(corpus_dir / "pikepdf__badlin1.pdf")
    assert [p.text for p in doc.pages] == [f"Potato {i}" for i in range(30)]


# Real PDFs: errors -------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(ENCRYPTED))
def test_encrypted_pdfs_say_so(corpus_dir: Path, name: str) -> None:
    with pytest.raises(EncryptedDocument) as info:
        extract(corpus_dir / name)
    assert name in str(info.value) and "password-protected" in str(info.value)
    assert info.value.path == str(corpus_dir / name) and info.value.reason == "encrypted"


@pytest.mark.parametrize(
    ("name", "password", "phrase"),
    [
        ("forensics-samples-files__a-text-pass-peanuts.pdf", "peanuts", "This is a text from"),
        ("pypdf__libreoffice-writer-password.pdf", "openpassword", "Lorem ipsum dolor"),
        ("pypdf__crazyones-encrypted-256.pdf", "password", "The Crazy Ones"),
    ],
)
def test_the_right_password_opens_an_encrypted_pdf(
    corpus_dir: Path, name: str, password: str, phrase: str
) -> None:
    assert phrase in extract(corpus_dir / name, password=password).pages[0].text


def test_a_wrong_password_is_reported_as_such(corpus_dir: Path) -> None:
    with pytest.raises(EncryptedDocument, match="password given was not accepted"):
        extract(corpus_dir / "forensics-samples-files__a-text-pass-peanuts.pdf", "walnuts")


def test_aes256_with_user_password_decrypts(corpus_dir: Path) -> None:
    """pdfminer rejects this file's owner password ("owner", R6) but takes the user one;
    decrypted, it is an image of a graph, so it is a scan, not an encryption error."""
    with pytest.raises(NoTextLayer):
        extract(corpus_dir / "pikepdf__graph-encrypted.pdf", password="user", ocr=False)


@pytest.mark.parametrize("name", SCANS)
def test_image_only_scans_without_ocr_have_no_text_layer(corpus_dir: Path, name: str) -> None:
    with pytest.raises(NoTextLayer) as info:
        extract(corpus_dir / name, ocr=False)
    assert name in str(info.value) and "OCR" in str(info.value)


def test_a_scan_with_an_ocr_layer_keeps_its_text(corpus_dir: Path) -> None:
    doc = extract(corpus_dir / "pypdf__Seige_of_Vicksburg_Sample_OCR.pdf")
    assert len(doc.pages) == 6 and doc.word_count > 1500


def test_unparseable_pdf_is_damaged(corpus_dir: Path) -> None:
    with pytest.raises(DamagedDocument, match="ocrmypdf__invalid.pdf is damaged"):
        extract(corpus_dir / "ocrmypdf__invalid.pdf")


@pytest.mark.slow
def test_every_corpus_pdf_gives_pages_or_a_document_error(corpus_dir: Path) -> None:
    """~4 min: all 46 files, 1,566 pages. Nothing but DocumentError may escape."""
    outcomes: dict[str, str] = {}
    for path in sorted(corpus_dir.glob("*.pdf")):
        try:
            doc = extract(path)
        except DocumentError as exc:
            assert path.name in str(exc)
            outcomes[path.name] = exc.reason
            continue
        assert doc.pages and any(p.text.strip() for p in doc.pages), path.name
        assert not any("(cid:" in p.text for p in doc.pages), path.name
        outcomes[path.name] = "ok"
    assert len(outcomes) == 46
    assert [n for n, r in outcomes.items() if r == "encrypted"] == sorted(ENCRYPTED)
    assert outcomes["ocrmypdf__invalid.pdf"] == "damaged"
    assert sum(r == "ok" for r in outcomes.values()) >= 33


# Chunks of a long manual ------------------------------------------------------------


@pytest.fixture(scope="module")
def count_tokens() -> Counter:
    return model_token_counter()


@pytest.fixture(scope="module")
def intro(extracted_corpus: Callable[[str], ExtractedDocument]) -> ExtractedDocument:
    return extracted_corpus(INTRO)


def test_r_intro_chunks_fit_the_model_and_cover_every_page(
    intro: ExtractedDocument, count_tokens: Counter
) -> None:
    chunks, _ = chunks_fit_and_cover(intro, count_tokens)
    assert len(chunks) > 200


def test_r_intro_evidence_lands_in_a_chunk_citing_its_page(
    intro: ExtractedDocument, count_tokens: Counter, corpus_dir: Path
) -> None:
    chunks = chunk_pages(intro.pages, count_tokens)
    lines = (corpus_dir.parent / "dev-questions.jsonl").read_text().splitlines()
    questions = [q for q in map(json.loads, filter(None, lines)) if q["file"] == INTRO]
    assert len(questions) >= 4
    for q in questions:
        assert_cited_on_its_page(chunks, q["evidence"], q["pages"][0])
