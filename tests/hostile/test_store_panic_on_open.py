"""A store file truncated while Docent was closed (a power cut, a bad copy) makes Qdrant
Edge *panic* on open: pyo3's PanicException derives from BaseException, not Exception, so
EdgeStore._open lets it through. The user gets a Rust/Python traceback instead of the
"cannot be opened ... --rebuild" sentence, and `docent index --rebuild` -- the documented
way out -- dies the same way, so the library cannot be repaired from the command line.
"""

from __future__ import annotations

from pathlib import Path

from cli_runner import Docent
from hostile_files import TEXTS, write_texts

from docent.core.config import Settings
from docent.core.engine import Engine
from fake_embedder import FakeEmbedder


def _index(folder: Path, home: Path) -> None:
    write_texts(folder)
    settings = Settings(data_dir=str(home), extract_in_subprocess=False)
    with Engine(settings, embedder=FakeEmbedder()) as eng:
        assert len(eng.index([folder]).indexed) == len(TEXTS)


def test_a_truncated_vector_status_file_is_one_sentence_and_rebuild_sets_it_aside(
    docent: Docent, folder: Path, _isolated_home: Path
) -> None:
    _index(folder, _isolated_home)
    segments = _isolated_home / "qdrant" / "chunks" / "segments"
    status = next(segments.glob("*/vector_storage-dense/vectors/status.dat"))
    status.write_bytes(b"")  # cut to nothing while Docent was closed

    listed = docent("list", note="list with a truncated status.dat")
    assert "Traceback" not in listed.err, listed.err[-600:]
    assert "PanicException" not in listed.err
    assert listed.rc == 1 and "cannot be opened" in listed.err and "--rebuild" in listed.err

    rebuilt = docent("index", "--rebuild", note="index --rebuild with a truncated status.dat")
    assert "Traceback" not in rebuilt.err, rebuilt.err[-600:]
    assert rebuilt.rc == 0, rebuilt.text
    assert "The damaged store was moved to" in rebuilt.err
