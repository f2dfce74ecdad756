"""kill -9 the indexing process mid-document; reopening loses nothing that was ready."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from docent.core.config import load_settings
from docent.core.engine import Engine
from docent.core.models import DocState

FILES = [
    "simh__ctss_hardware.pdf",
    "forensics-samples-files__a-text.pdf",
    "r-doc-pdf__R-data.pdf",  # 41 pages: long enough to be killed in the middle
    "simh__vax780_doc.pdf",
]

CHILD = """
import json, sys
from docent.core.engine import Engine
def show(p):
    print(json.dumps({"phase": p.phase, "i": p.file_index, "done": p.chunks_done}), flush=True)
with Engine() as eng:
    eng.index(sys.argv[1:], progress=show)
print(json.dumps({"phase": "finished"}), flush=True)
"""


def test_kill_during_indexing_then_reopen(corpus_dir: Path, _isolated_home: Path) -> None:
    paths = [str(corpus_dir / f) for f in FILES]
    env = {**os.environ, "DOCENT_HOME": str(_isolated_home)}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, *paths], stdout=subprocess.PIPE, text=True, env=env
    )
    assert child.stdout is not None
    killed_in = None
    for line in child.stdout:  # wait on the child's own progress, not on time
        event = json.loads(line)
        if event["phase"] == "embedding" and event["i"] == 3 and event["done"] > 0:
            os.kill(child.pid, signal.SIGKILL)
            killed_in = 3
            break
    child.wait(timeout=60)
    assert killed_in == 3, "the child finished before it could be killed"

    with Engine(load_settings()) as eng:
        assert eng.store is not None
        by_name = {Path(r.path).name: r for r in eng.documents()}
        for name in FILES[:2]:
            rec = by_name[name]
            assert rec.state is DocState.READY
            assert eng.store.count_chunks(rec.doc_id) == rec.chunks > 0
        interrupted = by_name[FILES[2]]
        assert interrupted.state is DocState.QUEUED  # re-queued, half-written chunks cleaned
        assert eng.store.count_chunks(interrupted.doc_id) == 0
        # the one cut off, and the one the run had not reached: listed queued, resumed
        assert [Path(r.path).name for r in eng.recovered] == FILES[2:]
        assert by_name[FILES[3]].state is DocState.QUEUED
        assert all(h.doc_id != interrupted.doc_id for h in eng.search("data import", k=20).hits)

        report = eng.resume()
        assert sorted(report.indexed) == sorted(paths[2:])
        eng.index(paths)
        for rec in eng.documents():
            assert rec.state is DocState.READY
            assert eng.store.count_chunks(rec.doc_id) == rec.chunks > 0
