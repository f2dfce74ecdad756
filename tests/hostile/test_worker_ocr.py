"""OCR and the other formats run in the extraction worker, under its limits: a scan is read
there with the memory cap on (onnxruntime and RapidOCR fit under it), each scanned page is
a step of its own whose progress reaches the caller, the OCR limit is per page, a cancel
mid-scan kills the worker, and the text-file size cap leaves Office files alone."""

from __future__ import annotations

import os
import threading
import zipfile
from pathlib import Path

import pytest
from cli_runner import wait_until

from docent.core.embedding import Embedder
from docent.core.errors import Cancelled
from docent.core.preparing import MB, Limits, Preparer
from docent.core.sandbox import ProcessPreparer
from format_files import make_docx
from scan_files import page_image, save_scan

OUTER = 600.0  # bounds a regression only: an OCR page takes ~10-80 s on this machine

PAGES = [
    ["Harbour Almanac", "Printed for the keepers of the coast."],
    ["The second page explains the tides", "and the moon that pulls them."],
]


@pytest.fixture(scope="module")
def tokenizer() -> tuple[str, str | None]:
    e = Embedder()
    return e.tokenizer_json(), e.cache_dir


@pytest.fixture(scope="module")
def scan(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("scan")
    return save_scan(folder / "almanac.pdf", [page_image(lines) for lines in PAGES])


def _steps(prep: ProcessPreparer, task: int, cancel: threading.Event) -> tuple[object, list]:
    seen: list[tuple[str, int]] = []
    got = prep.result(task, cancel, lambda label, pages: seen.append((label, pages)))
    return got, seen


def test_a_scan_is_read_by_ocr_in_the_worker_under_the_memory_cap(
    tokenizer: tuple[str, str | None], scan: Path, tmp_path: Path
) -> None:
    limits = Limits()  # the defaults the app runs with: 2 GB over idle, 180 s per OCR page
    prep = ProcessPreparer(*tokenizer, str(tmp_path / "cache"), limits)
    try:
        got, seen = _steps(prep, prep.submit(str(scan), ""), threading.Event())
    finally:
        prep.close()
    assert got.reason == "", got.message  # type: ignore[attr-defined]
    assert got.ocr_pages == 2  # type: ignore[attr-defined]
    text = " ".join(c.text for c in got.chunks)  # type: ignore[attr-defined]
    assert "keepers of the coast" in text and "tides" in text
    labels = [label for label, _ in seen]
    assert "looking for scanned pages" in labels
    assert ("reading scanned page 1 by OCR (1 of 2)", 0) in seen
    assert ("reading scanned page 2 by OCR (2 of 2)", 1) in seen
    assert prep.starts == 1


def test_the_ocr_limit_is_per_page_and_names_its_setting(
    tokenizer: tuple[str, str | None], scan: Path, tmp_path: Path
) -> None:
    """A limit far below one page's OCR: the file fails on its first scanned page, saying
    which step and which setting, and the next file is read by a fresh worker."""
    (tmp_path / "after.txt").write_text("Kelp forests shelter otters.\n")
    prep = ProcessPreparer(*tokenizer, str(tmp_path / "cache"), Limits(ocr_page_seconds=1))
    try:
        slow = prep.submit(str(scan), "")
        after = prep.submit(str(tmp_path / "after.txt"), "")
        got, _ = _steps(prep, slow, threading.Event())
        nxt, _ = _steps(prep, after, threading.Event())
    finally:
        prep.close()
    msg = got.message  # type: ignore[attr-defined]
    assert got.reason == "timeout", msg  # type: ignore[attr-defined]
    assert "took longer than 1 s reading scanned page 1 by OCR (1 of 2)" in msg
    assert "extract_ocr_page_timeout" in msg
    assert nxt.reason == "" and nxt.chunks  # type: ignore[attr-defined]


def test_cancel_mid_scan_kills_the_worker(
    tokenizer: tuple[str, str | None], scan: Path, tmp_path: Path
) -> None:
    prep = ProcessPreparer(*tokenizer, str(tmp_path / "cache"), Limits())
    cancel, scanning, outcome = threading.Event(), threading.Event(), []

    def on_step(label: str, pages: int) -> None:
        if "by OCR" in label:
            scanning.set()

    def wait() -> None:
        try:
            prep.result(task, cancel, on_step)
        except Cancelled as exc:
            outcome.append(exc)

    task = prep.submit(str(scan), "")
    waiter = threading.Thread(target=wait)
    waiter.start()
    assert scanning.wait(OUTER)
    pid = prep._proc.pid  # noqa: SLF001 - the test checks that this process is gone
    cancel.set()
    waiter.join(30)
    assert not waiter.is_alive() and outcome, "cancel did not end the wait"
    wait_until(lambda: not Path(f"/proc/{pid}").exists(), 10, "the worker survived a cancel")
    prep.close()


def test_the_text_file_cap_leaves_office_files_alone(tmp_path: Path) -> None:
    """``text_mb`` caps plain text and HTML; a Word file is capped by what it unzips to."""
    doc = make_docx(tmp_path / "report.docx")
    with zipfile.ZipFile(doc, "a", compression=zipfile.ZIP_STORED) as zf:
        zf.writestr("word/media/noise.png", os.urandom(2 * MB))  # a photo, say
    assert doc.stat().st_size > 2 * MB
    (tmp_path / "big.txt").write_text("Lighthouse keepers log the lamp hours.\n" * 60_000)
    (tmp_path / "big.html").write_text(
        "<p>" + "Lighthouse keepers log the lamp hours. " * 60_000 + "</p>"
    )
    here = Preparer(lambda text: len(text.split()) + 2, lambda texts: [], Limits(text_mb=1))
    cache = str(tmp_path / "cache")
    word = here.prepare(str(doc), cache, "")
    assert word.reason == "" and any("lighthouse inspection" in c.text for c in word.chunks)
    for name in ("big.txt", "big.html"):
        got = here.prepare(str(tmp_path / name), cache, "")
        assert got.reason == "too_large" and "more than the 1 MB" in got.message, got.message


def test_each_prepared_office_file_is_one_step_scaled_to_its_size(tmp_path: Path) -> None:
    doc = make_docx(tmp_path / "report.docx")
    seen: list[tuple[str, float]] = []
    here = Preparer(lambda text: len(text.split()) + 2, lambda texts: [], Limits(page_seconds=7))
    got = here.prepare(
        str(doc), str(tmp_path / "cache"), "", lambda label, s, pages: seen.append((label, s))
    )
    assert got.reason == "", got.message
    reading = [s for label, s in seen if label == "reading the text"]
    assert len(reading) == 1 and 7 < reading[0] < 8
