"""Faults end in one sentence and a clean exit code, and leave the library as it was:
a read-only data folder, a full disk, a data folder that is a file, bad environment
variables."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from cli_runner import Docent, Run


def one_sentence(run: Run) -> str:
    """The run failed with exit 1 and a single `docent: ...` line, no traceback."""
    assert run.rc == 1, run.text
    lines = [line for line in run.err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("docent: "), run.err
    assert "Traceback" not in run.text
    return lines[0]


def snapshot(home: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(home)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in home.rglob("*")
        if p.is_file()
    }


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A 400 MB tmpfs of the test's own (root only; skipped where mounting is refused)."""
    mount = tmp_path / "tmpfs"
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=400m", "tmpfs", str(mount)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_read_only_data_folder_is_one_sentence_for_every_command(
    docent: Docent, copy_library: Callable[[Path], Path], tmpfs: Path
) -> None:
    home = tmpfs / "home"
    docent.home = home
    folder = copy_library(home)
    before = snapshot(home)
    subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], check=True)
    try:
        for args in (("list",), ("search", "llamas"), ("index", str(folder))):
            line = one_sentence(docent(*args, note=f"{args[0]} on a read-only folder"))
            assert "cannot write to its data folder" in line and str(home) in line
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(tmpfs)], check=True)
    assert snapshot(home) == before
    assert "llamas.txt" in docent("list", note="list once writable again").out


def test_a_full_disk_is_one_sentence_not_a_sigbus(
    docent: Docent, copy_library: Callable[[Path], Path], tmpfs: Path
) -> None:
    home = tmpfs / "home"
    docent.home = home
    folder = copy_library(home)
    before = snapshot(home)
    filler = tmpfs / "filler"
    free = os.statvfs(tmpfs).f_bavail * os.statvfs(tmpfs).f_frsize
    subprocess.run(["fallocate", "-l", str(free - (40 << 20)), str(filler)], check=True)
    for args in (("list",), ("status",), ("index", str(folder))):
        line = one_sentence(docent(*args, note=f"{args[0]} with 40 MB free"))
        assert "is full" in line and "free some space" in line
    assert snapshot(home) == before
    filler.unlink()
    assert "llamas.txt" in docent("list", note="list once there is room").out


def test_a_data_folder_that_is_a_file_is_one_sentence(docent: Docent, tmp_path: Path) -> None:
    home = tmp_path / "not-a-folder"
    home.write_text("I am a file")
    docent.home = home
    line = one_sentence(docent("list", note="DOCENT_HOME is a file"))
    assert f"{home} (DOCENT_HOME) is a file, not a folder" in line
    assert home.read_text() == "I am a file"


@pytest.mark.parametrize(
    ("variable", "value", "says"),
    [
        ("DOCENT_WATCHED_FOLDERS", "[bad json", "is not a JSON list"),
        ("DOCENT_EMBED_BATCH_SIZE", "lots", "must be a whole number"),
        ("DOCENT_OLLAMA_HOST", "ftp://x", "must start with http:// or https://"),
        ("OLLAMA_HOST", "http://[::1", "http(s) URL"),
    ],
)
def test_a_bad_environment_variable_is_named(
    docent: Docent, variable: str, value: str, says: str
) -> None:
    docent.env[variable] = value
    line = one_sentence(docent("list", note=f"{variable}={value}"))
    assert f"environment variable {variable}" in line and says in line
    assert "settings.toml" not in line
