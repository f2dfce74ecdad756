"""Turning what a user points at (files, folders) into the list of files to index.

Only regular files are read. In a folder, a link is followed only while it stays inside
that folder: a link planted in a watched folder (``notes.txt -> ~/.ssh/id_rsa``) must not
pull an outside file into the library. A file named on its own is the user's choice and
is followed wherever it points, but it too must be a regular file. What is left out for
such a reason is listed in ``Collected.skipped`` with a sentence, reported once per run.
"""

from __future__ import annotations

import fnmatch
import logging
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from docent.core.extract import READABLE_KINDS, is_supported, unsupported_message
from docent.core.models import DocState, DocumentRecord
from docent.core.userfiles import inside, kind_of, shown

log = logging.getLogger(__name__)

#: Names of files still being written by other programs, or editor droppings.
TEMP_PATTERNS = ("*.part", "*.crdownload", "*.tmp", "~$*", ".#*", "*.swp", "*.swx", "*~")


def changed_since_indexed(
    rec: DocumentRecord | None, path: str | None = None, *, status: bool = False
) -> bool:
    """Whether the file at ``path`` (default: the record's) was saved again since ``rec``
    was indexed from it: another size or modification time. ``status``: any change of
    its status-change time too, which a write that keeps the modification time moves
    (``cp -p``), but so do a chmod, a link or a rename: "saved again" is not said on it
    alone (review, session 29); the indexer hashes such a file to know. A file that is
    gone is not "changed" (what shows it says so). Stats the file: not on the GUI
    thread."""
    if rec is None:
        return False
    try:
        st = os.stat(path or rec.path)
    except OSError:
        return False
    return not rec.same_file(st, status=status)


def files_gone(records: list[DocumentRecord]) -> set[str]:
    """The paths of the ready documents whose file is no longer there (moved or deleted
    outside a watched folder: they stay searchable until their folder is indexed again;
    QA-77: listed "ready" as if there). One stat each: not on the GUI thread."""
    return {r.path for r in records if r.state is DocState.READY and not os.path.lexists(r.path)}


def is_temp_name(name: str) -> bool:
    return any(fnmatch.fnmatch(name, pat) for pat in TEMP_PATTERNS)


def is_candidate(path: Path) -> bool:
    """A file Docent would index: supported type, not hidden, not a temp file."""
    name = path.name
    return not name.startswith(".") and not is_temp_name(name) and is_supported(path)


def leaves_folder(path: str | Path, folder: str | Path) -> bool:
    """True when ``path`` (links resolved) lies outside ``folder`` (links resolved)."""
    return not inside(os.path.realpath(path), os.path.realpath(folder))


@dataclass(slots=True)
class Skipped:
    path: Path
    #: "special" | "outside" | "broken_link" | "unsupported" | "link_inside" | "docent_data"
    reason: str
    message: str


@dataclass(slots=True)
class Collected:
    files: list[Path] = field(default_factory=list)
    unsupported: list[Path] = field(default_factory=list)
    missing: list[Path] = field(default_factory=list)
    unreadable: list[Path] = field(default_factory=list)
    folders: list[Path] = field(default_factory=list)
    #: Left out with a reason the run reports: special files, links leaving a folder,
    #: broken links, and files of unsupported types named on their own.
    skipped: list[Skipped] = field(default_factory=list)


def describe_unsupported(paths: list[str]) -> str:
    """One sentence for files of types Docent does not read (the window's note and the
    command line's report say the same)."""
    names = [shown(Path(p).name) for p in paths]
    listed = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return f"Not added: {listed} — Docent reads {READABLE_KINDS}, not " + (
        "these types." if len(names) > 1 else "this type."
    )


def normalise(path: str | Path) -> Path:
    return Path(os.path.abspath(os.path.expanduser(str(path))))


def _special(path: Path, mode: int) -> Skipped:
    return Skipped(
        path,
        "special",
        f"{shown(path.name)} is {kind_of(mode)}; Docent reads only regular files.",
    )


def _check_entry(path: Path, real_root: str) -> Skipped | None:
    """Why the file at ``path`` (found in a folder walk) is not read, or None."""
    try:
        if path.is_symlink() and not inside(os.path.realpath(path), real_root):
            target = shown(os.path.realpath(path))
            return Skipped(
                path,
                "outside",
                f"{shown(path.name)} is a link to {target}, outside the folder; links "
                "leaving a folder are not followed (add the file itself to index it).",
            )
        mode = path.stat().st_mode
    except FileNotFoundError:
        return Skipped(path, "broken_link", f"{shown(path.name)} is a link to nothing.")
    except OSError as exc:
        return Skipped(path, "unreadable", f"{shown(path.name)} cannot be read: {exc.strerror}.")
    return None if stat.S_ISREG(mode) else _special(path, mode)


def walk_folder(root: Path, out: Collected, recursive: bool = True, avoid: str = "") -> None:
    """Supported regular files under ``root``; links are followed only inside it (and
    each folder once: loops are cut). ``avoid``: a folder left out (Docent's own data,
    by its real path)."""
    seen: set[str] = set()
    real_root = os.path.realpath(root)

    def onerror(err: OSError) -> None:
        out.unreadable.append(Path(err.filename or root))
        log.warning("cannot read folder %s: %s", shown(err.filename or root), err.strerror)

    for dirpath, dirnames, filenames in os.walk(root, onerror=onerror, followlinks=True):
        real = os.path.realpath(dirpath)
        if real in seen or not inside(real, real_root):
            dirnames[:] = []  # a loop, a second link to the same folder, or out of bounds
            if not inside(real, real_root):
                out.skipped.append(
                    Skipped(
                        Path(dirpath),
                        "outside",
                        f"{shown(dirpath)} links to {shown(real)}, outside the folder; "
                        "links leaving a folder are not followed.",
                    )
                )
            continue
        seen.add(real)
        if avoid and inside(real, avoid):
            dirnames[:] = []
            out.skipped.append(_own_data(Path(dirpath)))
            continue
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".")) if recursive else []
        for name in sorted(filenames):
            if name.startswith(".") or is_temp_name(name):
                continue
            p = Path(dirpath) / name
            if not is_supported(p):
                out.unsupported.append(p)
                continue
            skipped = _check_entry(p, real_root) or _walked_twice(p, real_root, recursive, avoid)
            if skipped is None:
                out.files.append(p)
            else:
                out.skipped.append(skipped)


def _walked_twice(path: Path, real_root: str, recursive: bool, avoid: str) -> Skipped | None:
    """A link to a file this walk reads anyway (``current.md -> 2024.md``): not a document
    of its own. Its copy kept the old text, since an edit is reported under the target's
    name only (review). A link to a file the walk does not read (``readme.txt -> README``,
    a hidden one) is the way in: read."""
    if not path.is_symlink():
        return None
    target = os.path.realpath(path)
    rel = Path(os.path.relpath(target, real_root)).parts
    hidden = any(part.startswith(".") for part in rel) or is_temp_name(rel[-1])
    if hidden or not is_supported(Path(target)) or (avoid and inside(target, avoid)):
        return None
    if not recursive and len(rel) > 1:
        return None
    return Skipped(
        path,
        "link_inside",
        f"{shown(path.name)} is a link to {shown(target)}, which is indexed itself.",
    )


def _own_data(path: Path) -> Skipped:
    return Skipped(
        path,
        "docent_data",
        f"{shown(path)} is Docent's own data (its index, text cache and settings); it is "
        "never indexed.",
    )


def collect(
    paths: list[str | Path], recursive: bool = True, avoid: str | Path | None = None
) -> Collected:
    """The files to index for ``paths`` (files and folders). ``avoid``: Docent's data
    folder, left out wherever it is met, through links too: its text cache and store
    files grew with every run that indexed them (review)."""
    out = Collected()
    real_avoid = os.path.realpath(avoid) if avoid else ""
    for raw in paths:
        p = normalise(raw)
        if real_avoid and inside(os.path.realpath(p), real_avoid):
            out.skipped.append(_own_data(p))
            continue
        try:
            mode = p.stat().st_mode
        except FileNotFoundError:
            out.missing.append(p)
            continue
        except OSError as exc:
            out.skipped.append(
                Skipped(p, "unreadable", f"{shown(p)} cannot be read: {exc.strerror}.")
            )
            continue
        if stat.S_ISDIR(mode):
            out.folders.append(p)
            walk_folder(p, out, recursive, real_avoid)
        elif not stat.S_ISREG(mode):
            out.skipped.append(_special(p, mode))
        elif is_supported(p):
            out.files.append(p)
        else:
            out.unsupported.append(p)
            out.skipped.append(Skipped(p, "unsupported", unsupported_message(p)))
    out.files = list(dict.fromkeys(out.files))  # a file named twice (or inside a named folder)
    return out
