"""kill -9 in the middle of a run of several files: the files the run had not reached yet
are forgotten. They are in no catalog row (not queued, not cancelled), so the next start
neither lists nor resumes them: a folder dropped on the window, or a `docent index` of
many files, silently ends up with part of its files in the library.

A Cancel or a window closed in the same place lists them ("cancelled", for Resume:
Indexer._note_unfinished / note_cancelled); a crash should leave them at least queued.
"""

from __future__ import annotations

from pathlib import Path

from docent.core.config import Settings
from docent.core.engine import Engine
from docent.core.models import DocState
from fake_embedder import FakeEmbedder
from killed_child import killed_when

CHILD = """
import json, sys
from docent.core.config import Settings
from docent.core.engine import Engine
from fake_embedder import FakeEmbedder

home, folder = sys.argv[1], sys.argv[2]

def progress(p):
    if p.phase == "ready":
        print(json.dumps({"ready": p.file_index}), flush=True)
        if p.file_index == 2:
            sys.stdin.read()  # held here until the parent kills this process

settings = Settings(data_dir=home, extract_in_subprocess=False)
with Engine(settings, embedder=FakeEmbedder()) as eng:
    eng.index([folder], progress=progress)
print(json.dumps({"finished": True}), flush=True)
"""

NAMES = [f"note{i}.txt" for i in range(6)]


def _write(folder: Path) -> None:
    folder.mkdir()
    for i, name in enumerate(NAMES):
        body = f"Note {i} on the care of alpacas. " + f"Alpaca {i} grazes the hillside. " * 60
        (folder / name).write_text(body)


def test_files_not_reached_before_a_kill_are_still_known_after_it(tmp_path: Path) -> None:
    folder, home = tmp_path / "notes", tmp_path / "home"
    _write(folder)
    killed_when(CHILD, [str(home), str(folder)], lambda said: said.get("ready") == 2)

    settings = Settings(data_dir=str(home), extract_in_subprocess=False)
    with Engine(settings, embedder=FakeEmbedder()) as eng:
        assert eng.store is not None
        docs = {Path(d.path).name: d for d in eng.documents()}
        # What was done is consistent (this part holds today).
        for d in docs.values():
            if d.state is DocState.READY:
                assert eng.store.count_chunks(d.doc_id) == d.chunks > 0
        assert sum(d.state is DocState.READY for d in docs.values()) == 2
        # Nothing lost: every file of the run is still known, waiting to be resumed.
        missing = sorted(set(NAMES) - set(docs))
        assert not missing, f"forgotten by the crash, neither listed nor resumed: {missing}"
        waiting = {Path(r.path).name for r in eng.recovered}
        assert waiting == set(NAMES) - {n for n, d in docs.items() if d.state is DocState.READY}
        report = eng.resume()
        assert len(report.indexed) == len(NAMES) - 2
        assert all(d.state is DocState.READY for d in eng.documents())
