"""Index all 46 real PDFs: every readable one ends ready; each bad one says why."""

from __future__ import annotations

from pathlib import Path

from docent.core.engine import Engine
from docent.core.indexer import IndexReport
from docent.core.models import DocState

ENCRYPTED = {
    "forensics-samples-files__a-text-pass-peanuts.pdf",
    "pypdf__libreoffice-writer-password.pdf",
    "pypdf__crazyones-encrypted-256.pdf",
    "pikepdf__graph-encrypted.pdf",
}
DAMAGED = {"ocrmypdf__invalid.pdf"}
IMAGE_ONLY = {"pikepdf__congress.pdf", "ocrmypdf__c03-29.pdf", "ocrmypdf__multipage.pdf"}
#: Scans in the corpus that may or may not carry a few glyphs; either outcome is honest.
SCANS = {"ocrmypdf__skew.pdf", "ocrmypdf__linn.pdf", "ocrmypdf__epson.pdf"}


def test_every_corpus_pdf_ends_ready_or_with_its_reason(
    corpus_engine: tuple[Engine, IndexReport], corpus_dir: Path
) -> None:
    eng, report = corpus_engine
    assert eng.store is not None
    pdfs = sorted(p.name for p in corpus_dir.glob("*.pdf"))
    docs = {r.file_name: r for r in eng.documents() if r.file_name.endswith(".pdf")}
    assert sorted(docs) == pdfs
    manifest = eng.resolve("MANIFEST.tsv")  # the folder's one non-PDF, a supported type
    assert manifest.state is DocState.READY and manifest.page_unit == "lines:60"
    reasons = {Path(f.path).name: f.reason for f in report.failed}
    for name in ENCRYPTED:
        assert reasons.get(name) == "encrypted", name
        assert "password" in docs[name].error.lower()
    for name in DAMAGED:
        assert reasons.get(name) == "damaged", name
    for name in IMAGE_ONLY:
        assert reasons.get(name) == "no_text", name
        assert "OCR" in docs[name].error
    unexpected = set(reasons) - ENCRYPTED - DAMAGED - IMAGE_ONLY - SCANS
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
