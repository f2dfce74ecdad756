"""The one OS file lock: exclusive, non-blocking, held until released or the process ends.

The engine holds one on ``<data dir>/docent.lock`` (one Docent per data folder) and the
embedded store one in its own folder (the store folder may be shared by another data
folder's settings). The operating system drops the lock when the process dies, so a crash
never leaves a stale lock behind.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import IO

from docent.core.errors import StoreLocked


class FileLock:
    """``acquire()`` raises StoreLocked with ``message`` when another process holds it."""

    def __init__(self, path: Path, message: str) -> None:
        self.path = path
        self.message = message
        self._fh: IO[bytes] | None = None

    @property
    def held(self) -> bool:
        return self._fh is not None

    def acquire(self) -> FileLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fh = open(self.path, "a+b")  # noqa: SIM115 - held open until release()
        try:
            if sys.platform == "win32":
                import msvcrt

                fh.seek(0)
                msvcrt.locking(fh.fileno(), msvcrt.LK_NBLCK, 1)
            else:
                import fcntl

                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            fh.close()
            raise StoreLocked(self.message) from exc
        # Who holds it, for a person looking at the folder.
        fh.seek(0)
        fh.truncate()
        fh.write(str(os.getpid()).encode())
        fh.flush()
        self._fh = fh
        return self

    def release(self) -> None:
        if self._fh is not None:
            self._fh.close()  # closing the file drops the lock
            self._fh = None
