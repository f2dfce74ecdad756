"""The text cache cannot be written for a moment (the disk filled up by another program,
a quota, an I/O error on the data folder) while a file is prepared: the file is failed
for good as "damaged" ("could not be read: [Errno 28] No space left on device"), and it
is never read again, neither by the next `docent index` nor after a restart, until the
user edits it. The fault was the data folder's, not the file's.

preparing.Preparer.prepare lets the OSError of TextCache.put out as a plain Exception;
the worker (sandbox._prepare_one) and InlinePreparer.result turn any such exception into
reason "damaged", which is not in indexer.RETRY_REASONS.
"""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from docent.core.config import Settings
from docent.core.engine import Engine
from docent.core.models import DocState
from docent.core.textcache import TextCache
from fake_embedder import FakeEmbedder


def test_a_file_whose_text_could_not_be_cached_is_indexed_once_there_is_room(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    for name in ("a.txt", "b.txt", "c.txt"):
        (folder / name).write_text(f"{name} tells of herons. " + "Herons wade at dusk. " * 40)

    real_put = TextCache.put

    def full_disk_for_b(self: TextCache, sha256: str, doc) -> None:  # type: ignore[no-untyped-def]
        if Path(doc.path).name == "b.txt":
            raise OSError(errno.ENOSPC, "No space left on device")
        real_put(self, sha256, doc)

    settings = Settings(data_dir=str(tmp_path / "home"), extract_in_subprocess=False)
    with Engine(settings, embedder=FakeEmbedder()) as eng:
        monkeypatch.setattr(TextCache, "put", full_disk_for_b)
        first = eng.index([folder])
        monkeypatch.setattr(TextCache, "put", real_put)  # the space is back
        assert {"a.txt", "c.txt"} <= {Path(p).name for p in first.indexed}  # the rest go on
        # Whatever the first run says, it must not be a verdict on the file for good.
        second = eng.index([folder])
        b = eng.resolve("b.txt")
        assert b.state is DocState.READY, (
            f"b.txt left {b.state.value} ({b.reason}): {b.error}; "
            f"second run failed {[(f.path, f.reason) for f in second.failed]}"
        )
