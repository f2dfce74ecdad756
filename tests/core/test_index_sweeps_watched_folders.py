"""`docent index` with no path sweeps the watched folders (QA-77): files added, renamed
and deleted there while nothing watched them were still listed and searched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docent.cli import main


def test_index_with_no_path_takes_in_what_changed_in_a_watched_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCENT_EXTRACT_IN_SUBPROCESS", "0")
    folder = tmp_path / "watched"
    folder.mkdir()
    (folder / "alpha.md").write_text("# Alpha\n\nThe alpha printer is on the second floor.\n")
    (folder / "beta.md").write_text("# Beta\n\nThe beta scanner needs a new lamp.\n")
    monkeypatch.setenv("DOCENT_WATCHED_FOLDERS", str(folder))
    assert main(["index", str(folder), "-q"]) == 0
    # changed while no window and no `docent watch` ran
    (folder / "alpha.md").unlink()
    (folder / "beta.md").rename(folder / "beta-old.md")
    (folder / "gamma.md").write_text("# Gamma\n\nThe gamma plotter jams on thick paper.\n")
    capsys.readouterr()
    assert main(["index", "-q"]) == 0
    out = capsys.readouterr().out
    assert "indexed 1," in out and "renamed 1, removed 1," in out, out
    assert main(["list", "--json"]) == 0
    listed = sorted(d["file_name"] for d in json.loads(capsys.readouterr().out))
    assert listed == ["beta-old.md", "gamma.md"]
    assert main(["search", "alpha printer second floor", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    assert all(h["file_name"] != "alpha.md" for h in hits)
    # a watched folder not there (unplugged?) is said, not swept: its documents stay
    folder.rename(tmp_path / "elsewhere")
    capsys.readouterr()
    assert main(["index", "-q"]) == 0
    said = capsys.readouterr()
    assert "not swept, not there (unplugged or moved?)" in said.err and "removed 0" in said.out
    assert main(["list", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 2


def test_status_of_no_library_makes_none(
    _isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """QA-78: `docent status` with DOCENT_HOME unset made a library in ~/.local/share."""
    assert main(["status"]) == 0
    said = capsys.readouterr().out
    assert said.startswith(f"No library at {_isolated_home} yet: `docent index <folder>`")
    assert main(["status", "--json"]) == 0
    told = json.loads(capsys.readouterr().out)
    assert told["library"] is None and "ok" in told["ollama"]
    assert not _isolated_home.exists()


def test_status_says_what_follows_a_watched_folder_with_no_window(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "(off)" read as switched off (QA-78)."""
    monkeypatch.setenv("DOCENT_EXTRACT_IN_SUBPROCESS", "0")
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("# Notes\n\nThe boiler is serviced in May.\n")
    monkeypatch.setenv("DOCENT_WATCHED_FOLDERS", str(folder))
    assert main(["index", str(folder), "-q"]) == 0
    capsys.readouterr()
    assert main(["status"]) == 0
    said = capsys.readouterr().out
    assert f"Watching:  {folder} (followed while the window or `docent watch` runs" in said
