"""A review's findings: one folder watched under two spellings. Real folders, real watchdog,
a real engine with the hashing embedder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from docent.core.engine import Engine
from docent.core.watching import WatchError
from watch_helpers import TIMEOUT, note, open_engine


@pytest.fixture
def engine() -> Iterator[Engine]:
    eng = open_engine()
    yield eng
    eng.close()


def test_the_same_folder_through_a_link_is_not_watched_twice(
    engine: Engine, tmp_path: Path
) -> None:
    """~/Documents is often a link (to another disk, a synced folder). Watching it and its
    real path is accepted as two folders (plan_watch compares the spellings, though it
    resolves links for the data-folder check): two observers, two sweeps, and every file
    is two documents, each passage found twice."""
    real = tmp_path / "real"
    note(real, "a.txt", "alpha")
    link = tmp_path / "docs-link"
    link.symlink_to(real, target_is_directory=True)
    engine.start_watching()
    engine.watch(real)
    assert engine.wait_idle(TIMEOUT)
    try:
        engine.watch(link)
    except WatchError:
        return  # refused, naming the folder already watched: fine
    assert engine.wait_idle(TIMEOUT)
    paths = sorted(d.path for d in engine.documents())
    assert paths == [str(real / "a.txt")] or paths == [str(link / "a.txt")], paths


def test_a_sub_folder_through_a_link_is_not_watched_twice(engine: Engine, tmp_path: Path) -> None:
    """Same for a folder inside a watched one, named through a link."""
    real = tmp_path / "real"
    note(real / "sub", "a.txt", "alpha")
    link = tmp_path / "docs-link"
    link.symlink_to(real, target_is_directory=True)
    engine.start_watching()
    engine.watch(real)
    assert engine.wait_idle(TIMEOUT)
    try:
        engine.watch(link / "sub")
    except WatchError:
        return
    assert engine.wait_idle(TIMEOUT)
    paths = sorted(d.path for d in engine.documents())
    assert len(paths) == 1, paths


def test_a_folder_spelled_with_a_tilde_in_the_settings_is_watched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DOCENT_WATCHED_FOLDERS (or a hand-edited settings.toml) as people write it:
    ``~/Notes``. The spelling is not normalised when the settings load (only
    Engine.watch and apply_settings normalise): Watcher.add("~/Notes") finds no such
    folder, and shows it "missing (unplugged drive?)", paused for ever."""
    home = tmp_path / "home"
    notes = home / "Notes"
    note(notes, "n.txt", "nutmeg")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("DOCENT_WATCHED_FOLDERS", "~/Notes")
    with open_engine() as eng:
        states = {st.path: (st.state.value, st.message) for st in eng.start_watching()}
        assert eng.wait_idle(TIMEOUT)
        assert [d.file_name for d in eng.documents()] == ["n.txt"], states


def test_a_folder_spelled_with_a_trailing_slash_in_the_settings_can_be_unwatched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``/path/to/Papers/`` in the settings is watched, but ``unwatch`` normalises its
    argument (no slash) and then does not find it among the saved spellings:
    WatchError "... is not a watched folder", whichever way the user writes it."""
    papers = tmp_path / "Papers"
    note(papers, "p.txt", "paprika")
    monkeypatch.setenv("DOCENT_WATCHED_FOLDERS", f"{papers}/")
    with open_engine() as eng:
        eng.start_watching()
        assert eng.wait_idle(TIMEOUT)
        assert [d.file_name for d in eng.documents()] == ["p.txt"]
        eng.unwatch(f"{papers}/")
        assert eng.settings.watched_folders == []
