"""Is the data folder usable? One sentence instead of a traceback (or a SIGBUS).

Checked before anything is opened in it, so a fault leaves the library as it was:

- ``DOCENT_HOME`` (or ``data_dir``) that is a file, or that cannot be created;
- a folder Docent cannot write to (its lock file, the catalog's journal and the store's
  write-ahead log all need writing, even to list documents);
- a disk too full: Qdrant Edge memory-maps sparse files (write-ahead log segments of
  32 MB, vector and payload storage) and a write to a page that the disk cannot back is
  a SIGBUS, which kills the process, ``docent list`` included. Measured on a small
  tmpfs: opening a two-document store with 70 MB free crashed, with 100 MB it did not.
  So the library is not opened with less than ``MIN_FREE_MB`` free, and indexing stops
  (the document stays queued) when a write would go below it.
"""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
from pathlib import Path

from docent.core.errors import DataFolderError

MIN_FREE_MB = 256
MB = 1 << 20


def _named(folder: Path) -> str:
    """``folder`` and the variable that set it: DOCENT_DATA_DIR went unnamed (QA, 27)."""
    for name in ("DOCENT_DATA_DIR", "DOCENT_HOME"):
        value = os.environ.get(name)
        if value and Path(value).expanduser() == folder:
            return f"{folder} ({name})"
    return str(folder)


def check_data_folder(folder: Path) -> None:
    """Create ``folder`` if needed; DataFolderError when it cannot hold a library."""
    if folder.exists() and not folder.is_dir():
        raise DataFolderError(
            f"Docent's data folder {_named(folder)} is a file, not a folder. "
            "Point DOCENT_HOME (or data_dir) at a folder."
        )
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DataFolderError(
            f"Docent cannot create its data folder {_named(folder)}: {exc.strerror}."
        ) from exc
    check_writable(folder)
    check_free_space(folder)


def check_writable(folder: Path) -> None:
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        if exc.errno == errno.ENOSPC:
            raise disk_full(folder, 0) from exc
        raise DataFolderError(
            f"Docent cannot write to its data folder {_named(folder)}: {exc.strerror}. "
            "It needs to write there even to list documents; fix its permissions "
            "or set DOCENT_HOME to a folder you can write to."
        ) from exc


def free_bytes(folder: Path) -> int:
    return shutil.disk_usage(folder).free


def existing_parent(path: Path) -> Path:
    """``path`` or its nearest ancestor that exists (to ask its disk for free space)."""
    while not path.exists() and path.parent != path:
        path = path.parent
    return path


def check_free_space(folder: Path, needed_mb: int = MIN_FREE_MB) -> None:
    free = free_bytes(folder)
    if free < needed_mb * MB:
        raise disk_full(folder, free, needed_mb)


def disk_full(folder: Path, free: int, needed_mb: int = MIN_FREE_MB) -> DataFolderError:
    return DataFolderError(
        f"The disk holding {_named(folder)} is full ({free / MB:.0f} MB free); Docent needs "
        f"{needed_mb} MB free to work on its library safely. Nothing was changed: free "
        "some space, then try again."
    )


#: Where the conversations the window is done with are kept, in the data folder.
CONVERSATIONS_DIR = "conversations"


def keep_conversation(data_path: Path, markdown: str) -> Path:
    """Write a conversation the window no longer shows (a new one started; one kept at
    the last close whose collection began another before it was read back; those open
    when the window closed before that read) to ``conversations/`` in the data folder,
    as Markdown (the export's text), named by the time; returns the file. Ctrl+N lost it
    for good (QA-80). The conversations the window shows are kept by conversation_store.py."""
    import time

    folder = data_path / CONVERSATIONS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y-%m-%d %H-%M-%S")
    path = folder / f"{stamp}.md"
    n = 1
    while path.exists():  # two in one second (each collection's conversation, at quit)
        n += 1
        path = folder / f"{stamp} ({n}).md"
    path.write_text(markdown, encoding="utf-8")
    return path
