"""The CLI's progress line for indexing (stderr)."""

from __future__ import annotations

import re
import shutil
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docent.cli_text import fit
from docent.core.userfiles import shown

if TYPE_CHECKING:
    from docent.core.indexer import Progress


#: The phases that end a file's indexing.
FINAL = frozenset({"ready", "unchanged", "renamed", "removed", "failed"})


class ProgressBar:
    """One status line on stderr: a bar with counts when a terminal, sparse lines otherwise."""

    def __init__(self, stream: Any = None, quiet: bool = False) -> None:
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.quiet = quiet
        self._last = 0.0
        self._key: tuple[int, str] = (0, "")
        #: Files done, the most seen: the next file is read while one is embedded, so its
        #: steps come in between and the bar went back (QA, session 26).
        self._done = 0
        self._count = 0
        #: every file up to this one is done; and the files seen done (any order)
        self._floor = 0
        self._finished: set[int] = set()

    def __call__(self, p: Progress) -> None:
        if self.quiet:
            return
        name = shown(Path(p.path).name)
        if p.phase == "embedding" and p.chunks_total:
            detail = f"embedding {p.chunks_done}/{p.chunks_total} chunks"
        elif p.phase == "failed":
            detail = f"failed: {p.message}"
        elif p.phase in ("extracting", "optimizing") and p.message:
            detail = p.message  # the step under way: "reading page 12"
        else:
            detail = p.phase
        if p.file_count != self._count:  # another run (resume, then index): anew
            self._count, self._done, self._floor, self._finished = p.file_count, 0, 0, set()
        # Files are embedded in order, and the next one is read meanwhile: a file being
        # embedded, or indexed, has every file before it done; a file read ahead (or
        # failing as it is read) is done alone.
        if p.phase in FINAL:
            self._finished.add(p.file_index)
        if p.phase in ("ready", "unchanged", "renamed", "removed"):
            self._floor = max(self._floor, p.file_index)
        elif p.phase == "embedding":
            self._floor = max(self._floor, p.file_index - 1)
        after = sum(1 for i in self._finished if i > self._floor)
        done = self._done = max(self._done, self._floor + after)
        width = 24
        filled = min(width, int(width * done / max(p.file_count, 1)))
        # the files done, as the bar: the file of each event went 3/13 then 2/13 when the
        # next file was read while one was embedded (QA, session 27)
        line = f"[{'#' * filled}{'.' * (width - filled)}] {done}/{p.file_count} done · {name}: {detail}"
        if self.tty:
            # one row of the terminal: a longer line wraps, and "\r" then clears only its
            # last row, so the screen filled with stale rows (QA, session 27)
            columns = shutil.get_terminal_size((80, 24)).columns
            self.stream.write("\r\x1b[K" + fit(line, max(columns - 1, 20)))
            if p.phase in ("failed",):
                self.stream.write("\n")
        else:
            # A line per step (numbers aside: "reading page 12" is the step of page 13),
            # else one every 2 s: a long step still shows what it is doing.
            now = time.monotonic()
            key = (p.file_index, re.sub(r"\d+", "#", detail))
            final = p.phase in ("ready", "failed", "renamed")
            if final or key != self._key or now - self._last > 2.0:
                self.stream.write(line + "\n")
                self._last, self._key = now, key
        self.stream.flush()

    def close(self) -> None:
        if self.tty and not self.quiet:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
