"""Regression (51f2718, files._walked_twice): a link inside a folder to a file of the
same folder is skipped as "link_inside ... which is indexed itself" without checking
that the walk reads the target at all. When the target's name is not one Docent reads
("readme.txt -> README", "manual.pdf -> manual.pdf.1", "notes.md -> notes"), neither
is indexed: the document is lost (and a sweep of a watched folder now *removes* the link's
document indexed before, job_runners._drop_gone). Before the commit the link was indexed."""

from __future__ import annotations

import os
from pathlib import Path

from docent.core import files as filemod
from docent.core.config import Settings
from docent.core.engine import Engine
from fake_embedder import FakeEmbedder


def _folder(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "README").write_text("The keeper climbs the tower at dusk to light the lamp.\n")
    os.symlink("README", docs / "readme.txt")
    return docs


def test_a_link_to_a_file_the_walk_does_not_read_is_collected(tmp_path: Path) -> None:
    docs = _folder(tmp_path)
    found = filemod.collect([docs])
    assert docs / "readme.txt" in found.files, [s.message for s in found.skipped]


def test_a_link_to_a_file_the_walk_does_not_read_is_indexed(tmp_path: Path) -> None:
    docs = _folder(tmp_path)
    settings = Settings(data_dir=str(tmp_path / "data"), extract_in_subprocess=False)
    with Engine(settings, embedder=FakeEmbedder()).open() as eng:
        eng.index([docs])
        assert [d.file_name for d in eng.documents()] == ["readme.txt"]
