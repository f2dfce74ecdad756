"""Turning what a user points at (files, folders) into the list of files to index."""

from __future__ import annotations

import fnmatch
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

from docent.core.extract import is_supported

log = logging.getLogger(__name__)

#: Names of files still being written by other programs, or editor droppings.
TEMP_PATTERNS = ("*.part", "*.crdownload", "*.tmp", "~$*", ".#*", "*.swp", "*.swx", "*~")


def is_temp_name(name: str) -> bool:
    return any(fnmatch.fnmatch(name, pat) for pat in TEMP_PATTERNS)


def is_candidate(path: Path) -> bool:
    """A file Docent would index: supported type, not hidden, not a temp file."""
    name = path.name
    return not name.startswith(".") and not is_temp_name(name) and is_supported(path)


@dataclass(slots=True)
class Collected:
    files: list[Path] = field(default_factory=list)
    unsupported: list[Path] = field(default_factory=list)
    missing: list[Path] = field(default_factory=list)
    unreadable: list[Path] = field(default_factory=list)
    folders: list[Path] = field(default_factory=list)


def normalise(path: str | Path) -> Path:
    return Path(os.path.abspath(os.path.expanduser(str(path))))


def walk_folder(root: Path, out: Collected, recursive: bool = True) -> None:
    """Supported files under ``root``; follows symlinks once (loops are cut)."""
    seen: set[str] = set()

    def onerror(err: OSError) -> None:
        out.unreadable.append(Path(err.filename or root))
        log.warning("cannot read folder %s: %s", err.filename, err.strerror)

    for dirpath, dirnames, filenames in os.walk(root, onerror=onerror, followlinks=True):
        real = os.path.realpath(dirpath)
        if real in seen:  # a symlink loop or a second link to the same folder
            dirnames[:] = []
            continue
        seen.add(real)
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".")) if recursive else []
        for name in sorted(filenames):
            p = Path(dirpath) / name
            if is_candidate(p):
                out.files.append(p)
            elif not name.startswith(".") and not is_temp_name(name):
                out.unsupported.append(p)


def collect(paths: list[str | Path], recursive: bool = True) -> Collected:
    out = Collected()
    for raw in paths:
        p = normalise(raw)
        if p.is_dir():
            out.folders.append(p)
            walk_folder(p, out, recursive)
        elif p.is_file():
            (out.files if is_supported(p) else out.unsupported).append(p)
        elif p.exists():
            out.unsupported.append(p)
        else:
            out.missing.append(p)
    out.files = list(dict.fromkeys(out.files))  # a file named twice (or inside a named folder)
    return out
