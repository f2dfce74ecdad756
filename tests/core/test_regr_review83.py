"""Review 83 (b20585c..HEAD): gaps, OCR re-reads, kept versions, extractive briefs. Each
test fails on the code as reviewed and shows one problem a user would meet. Real
components: the bundled embedding model, the real store, real files in tmp_path."""

from __future__ import annotations

from pathlib import Path

import pytest

from docent.core import gaps
from docent.core.config import Settings
from docent.core.engine import Engine
from docent.core.formats import sheets
from scan_files import page_image, save_scan


@pytest.fixture(scope="module")
def embedder():  # the bundled model, loaded once for the module
    from docent.core.embedding import Embedder

    emb = Embedder()
    emb.ensure_loaded()
    return emb


def _settings(home: Path, **over: object) -> Settings:
    return Settings(data_dir=str(home), extract_in_subprocess=False, **over)


def test_a_sheet_cut_at_its_rows_is_not_said_to_be_searchable_past_the_cut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embedder
) -> None:
    """gaps.sentence adds "; the rest is searchable." to every note: for a sheet cut at
    MAX_ROWS it reads "Only its first 50 rows of data are read; the rest is searchable."
    -- the rest (rows past the cut) is exactly what is NOT searchable. This is what the
    window's warning, the row's tooltip and `docent index` ("read in part") say."""
    monkeypatch.setattr(sheets, "MAX_ROWS", 50)
    path = tmp_path / "runs.csv"
    rows = ["date,runner,km"] + [f"2024-04-{i % 28 + 1:02d},R{i},{i}" for i in range(1, 61)]
    path.write_text("\n".join(rows) + "\n")
    with Engine(_settings(tmp_path / "home"), embedder=embedder) as eng:
        report = eng.index([path])
        [(_, note)] = report.gaps
        said = gaps.sentence(note)
    assert "the rest is searchable" not in said, said


def test_a_scan_whose_file_is_gone_is_not_awaiting_ocr_at_every_start(
    tmp_path: Path, embedder
) -> None:
    """Engine.awaiting_ocr lists a scan failed "OCR is off" whose file has since been
    deleted; run_resume skips it (os.path.exists) and nothing settles it, so every start
    says "Reading the scanned pages of 1 document now that OCR is on." and reads nothing,
    and `docent index` with no paths runs a resume each time instead of saying nothing
    is left."""
    scan = save_scan(tmp_path / "minutes.pdf", [page_image(["The board met in May."])])
    home = tmp_path / "home"
    with Engine(_settings(home, ocr_enabled=False), embedder=embedder) as eng:
        assert [f.reason for f in eng.index([scan]).failed] == ["no_text"]
    scan.unlink()
    with Engine(_settings(home), embedder=embedder) as eng:
        eng.resume()
    with Engine(_settings(home), embedder=embedder) as eng:  # the next start
        assert eng.awaiting_ocr == [], "announced again, at every start, for a file gone"


def test_an_extractive_brief_summary_is_searched_without_its_page_marks(
    tmp_path: Path, embedder
) -> None:
    """An extractive brief summary now carries "(p. 3)"/"(line 4)" after each sentence
    (for the reader); the brief is also what the document is searched by
    (Summarizer's retrieval_text -> catalog summary and the document's vector), which now
    holds the marks as if they were the document's words."""
    doc = tmp_path / "tides.txt"
    doc.write_text(
        "Tide tables\n\n"
        + "\n\n".join(
            f"The harbour tide on day {i} rises {i} feet before the boats leave the quay."
            for i in range(1, 30)
        )
        + "\n"
    )
    down = _settings(tmp_path / "home", ollama_host="http://127.0.0.1:9")
    with Engine(down, embedder=embedder) as eng:
        eng.index([doc])
        result = eng.summarize(str(doc), type="brief", extractive=True)
        assert "(line" in result.summary or "(p." in result.summary  # shown to the reader
        stored = eng.resolve(str(doc)).summary
    assert stored, "the brief was stored to search the document by"
    assert "(line" not in stored and "(p." not in stored, stored


def test_a_careful_read_with_ocr_off_never_opens_the_pdf_with_pdfium(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``pdfium`` False is the careful re-read of a PDF pdfium crashed on (sandbox.py's
    _retry_carefully: a C abort, not an exception). With OCR off it never touched pdfium;
    now extract.not_ocred -> ocr_candidates opens the file with pdfium again and loads
    each weak page, so the crash recurs, careful is already True, and the PDF fails
    "crashed" instead of being read by pdfplumber. Shown by counting pdfium opens."""
    import pypdfium2
    from test_gaps import mixed_pdf

    from docent.core.extract import extract

    mixed_pdf(tmp_path)  # harbour.pdf: two pages of text, then a scanned one

    opened: list[str] = []
    real = pypdfium2.PdfDocument

    def counting(*args: object, **kwargs: object) -> object:
        opened.append(str(args[0]) if args else "")
        return real(*args, **kwargs)

    monkeypatch.setattr(pypdfium2, "PdfDocument", counting)
    doc = extract(tmp_path / "harbour.pdf", ocr=False, pdfium=False)
    assert "tides of May" in doc.pages[0].text
    assert opened == [], f"pdfium opened the file it crashed on: {opened}"
