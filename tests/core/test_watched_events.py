"""A review's findings: watched-folder events on real folders with real watchdog (inotify)
and a real engine with the hashing embedder. No sleep synchronises anything: the tests
wait for conditions with a timeout, and for quiet with Engine.wait_idle."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from docent.core.engine import Engine
from watch_helpers import TIMEOUT, note, open_engine, wait_for


@pytest.fixture
def engine() -> Iterator[Engine]:
    eng = open_engine()
    yield eng
    eng.close()


def paths(eng: Engine) -> set[str]:
    return {d.path for d in eng.documents()}


def test_a_file_deleted_just_before_its_folder_is_renamed_leaves_the_library(
    engine: Engine, tmp_path: Path
) -> None:
    """Delete a file, then rename its folder (within GONE_SECONDS, 3.5 s): the folder's
    move disarms the file's pending removal and re-arms it at the *new* path, where
    nothing was ever indexed; the move job moves only the documents whose file is at the
    new place. The deleted file's document stays, searchable, at its old path until the
    next periodic sweep (10 minutes; never with sweeps off)."""
    lib = tmp_path / "lib"
    a = note(lib / "sub", "a.txt", "alpha")
    note(lib / "sub", "b.txt", "beta")
    engine.watch(lib)
    engine.start_watching()
    assert engine.wait_idle(TIMEOUT)
    a.unlink()
    os.rename(lib / "sub", lib / "renamed")
    wait_for(lambda: str(lib / "renamed" / "b.txt") in paths(engine), "b follows the folder")
    assert engine.wait_idle(TIMEOUT)
    assert paths(engine) == {str(lib / "renamed" / "b.txt")}
    assert not engine.grep("alpha note")


def test_a_link_inside_a_watched_folder_follows_its_targets_edits(
    engine: Engine, tmp_path: Path
) -> None:
    """A link inside a watched folder to a file in it (``current.md -> 2024.md``) is
    indexed as a document of its own (walk_folder follows links inside the folder), but
    inotify reports an edit only under the target's name: the link's document keeps
    the old text, and is cited, until the next periodic sweep (10 minutes)."""
    lib = tmp_path / "lib"
    target = note(lib, "2024.md", "oldword")
    (lib / "current.md").symlink_to("2024.md")
    engine.watch(lib)
    engine.start_watching()
    assert engine.wait_idle(TIMEOUT)
    assert paths(engine) == {str(target)}  # the link is not a document of its own
    note(lib, "2024.md", "newword")
    wait_for(lambda: "newword" in engine.dump(str(target)), "the target re-indexed")
    assert engine.wait_idle(TIMEOUT)
    stale = sorted(m.path for m in engine.grep("oldword note"))
    assert stale == [], f"the old text is still found at {stale}"


def test_a_link_indexed_as_its_own_document_before_leaves_at_the_next_sweep(
    engine: Engine, tmp_path: Path
) -> None:
    """A library indexed before: the link was a document of its own (stale after each
    edit of its target). The folder's next sweep takes it out; the target stays."""
    lib = tmp_path / "lib"
    target = note(lib, "2024.md", "oldword")
    link = lib / "current.md"
    link.symlink_to("2024.md")
    engine.index([str(link)])  # as the walk indexed it before
    assert paths(engine) == {str(link)}
    engine.watch(lib)
    engine.start_watching()
    assert engine.wait_idle(TIMEOUT)
    assert paths(engine) == {str(target)}
