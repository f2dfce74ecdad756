"""Index all 46 real PDFs: every readable one ends ready; each bad one says why."""

from __future__ import annotations

from pathlib import Path

from docent.core.engine import Engine
from docent.core.indexer import IndexReport
from docent.core.models import DocState
from docent.core.passages import passage_boxes

ENCRYPTED = {
    "forensics-samples-files__a-text-pass-peanuts.pdf",
    "pypdf__libreoffice-writer-password.pdf",
    "pypdf__crazyones-encrypted-256.pdf",
    "pikepdf__graph-encrypted.pdf",
}
DAMAGED = {"ocrmypdf__invalid.pdf"}
#: Image-only scans: read by OCR (MANIFEST.tsv says which corpus PDFs are scans).
SCANS = {
    "pikepdf__congress.pdf",
    "ocrmypdf__c03-29.pdf",
    "ocrmypdf__multipage.pdf",
    "ocrmypdf__skew.pdf",
    "ocrmypdf__linn.pdf",
    "ocrmypdf__epson.pdf",
}
#: (scan, phrase read by eye on its page, page): found by grep on that page after OCR.
OCR_PHRASES = [
    ("ocrmypdf__skew.pdf", "simply hold ERASE and press", 1),
    ("ocrmypdf__linn.pdf", "Composition Without Compromise", 1),
    ("pikepdf__congress.pdf", "regulations for the consular courts", 1),
    ("ocrmypdf__c03-29.pdf", "snuff-box that was stole", 1),
]


def test_every_corpus_pdf_ends_ready_or_with_its_reason(
    corpus_engine: tuple[Engine, IndexReport], corpus_dir: Path
) -> None:
    eng, report = corpus_engine
    assert eng.store is not None
    pdfs = sorted(p.name for p in corpus_dir.glob("*.pdf"))
    docs = {r.file_name: r for r in eng.documents() if r.file_name.endswith(".pdf")}
    assert sorted(docs) == pdfs
    manifest = eng.resolve("MANIFEST.tsv")  # the folder's one non-PDF, a supported type
    # a table of tab-separated columns: read as rows named by its header (session 35)
    assert manifest.state is DocState.READY and manifest.page_unit == "rows"
    reasons = {Path(f.path).name: f.reason for f in report.failed}
    for name in ENCRYPTED:
        assert reasons.get(name) == "encrypted", name
        assert "password" in docs[name].error.lower()
    for name in DAMAGED:
        assert reasons.get(name) == "damaged", name
    for name in SCANS:
        assert docs[name].state is DocState.READY, (name, docs[name].error)
        assert docs[name].ocr_pages >= 1, name
    unexpected = set(reasons) - ENCRYPTED - DAMAGED
    assert not unexpected, {n: docs[n].error for n in unexpected}
    for name, rec in docs.items():
        if name in reasons:
            assert rec.state is DocState.FAILED and rec.error
            continue
        assert rec.state is DocState.READY, (name, rec.error)
        assert rec.pages > 0 and rec.chunks > 0
        assert eng.store.count_chunks(rec.doc_id) == rec.chunks


def test_reindexing_the_corpus_embeds_nothing(
    corpus_engine: tuple[Engine, IndexReport], corpus_dir: Path
) -> None:
    eng, first = corpus_engine
    before = eng.embedder.texts_embedded
    again = eng.index([corpus_dir])
    assert again.chunks_embedded == 0 and not again.indexed
    assert eng.embedder.texts_embedded == before
    assert len(again.unchanged) == len(first.indexed) + len(first.unchanged)


def test_ocr_of_the_corpus_scans_is_found_by_grep_on_its_page(
    corpus_engine: tuple[Engine, IndexReport],
) -> None:
    eng, _ = corpus_engine
    for name, phrase, page in OCR_PHRASES:
        found = [m for m in eng.grep(phrase) if m.file_name == name]
        assert found, (name, phrase)
        assert found[0].page_start <= page <= found[0].page_end
        # The cited page keeps the boxes of the lines the phrase was read from.
        doc = eng.extracted(eng.resolve(name))
        assert passage_boxes(doc.pages[page - 1], phrase), (name, phrase)
