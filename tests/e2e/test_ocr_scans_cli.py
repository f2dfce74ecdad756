"""Two corpus scans as a user meets them: `docent index` reads them by OCR in the extraction
process, `docent grep` finds a phrase read by eye on the page image on that page, and
`docent list` says they were OCR'd. A few minutes at most, unlike the whole corpus run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from docent.cli import main

#: (scan, a phrase read by eye on the page image, its page)
PHRASES = [
    ("ocrmypdf__skew.pdf", "simply hold ERASE and press", 1),
    ("pikepdf__congress.pdf", "regulations for the consular courts", 1),
]


def test_docent_grep_finds_what_is_printed_on_a_scanned_page(
    corpus_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "scans"
    folder.mkdir()
    for name, _, _ in PHRASES:
        shutil.copy(corpus_dir / name, folder / name)
    assert main(["index", str(folder)]) == 0
    capsys.readouterr()
    for name, phrase, page in PHRASES:
        assert main(["grep", phrase, "--json"]) == 0
        found = [m for m in json.loads(capsys.readouterr().out) if m["file_name"] == name]
        assert found, (name, phrase)
        assert found[0]["page_start"] <= page <= found[0]["page_end"], found[0]
    assert main(["list", "--json"]) == 0
    listed = {d["file_name"]: d for d in json.loads(capsys.readouterr().out)}
    for name, _, _ in PHRASES:
        assert listed[name]["state"] == "ready" and listed[name]["ocr_pages"] >= 1, listed[name]
