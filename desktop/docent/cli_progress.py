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


#: The phases that end the indexing of one of the run's files.
FINAL = frozenset({"ready", "unchanged", "renamed", "failed"})


class ProgressBar:
    """One status line on stderr: a bar with counts when a terminal, sparse lines otherwise."""

    def __init__(self, stream: Any = None, quiet: bool = False) -> None:
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.quiet = quiet
        self._last = 0.0
        self._key: tuple[int, str] = (0, "")
        #: The run's files that are done (by number), how many it has, and how many are
        #: done: the bar never goes back (it did when the next file was read early; QA,
        #: session 26).
        self._finished: set[int] = set()
        self._count = 0
        self._done = 0

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
        if p.phase == "removed":  # a file gone from its folder: not one of the run's files
            done, count = self._done, max(self._count, 1)
        else:
            again = p.phase in FINAL and p.file_index in self._finished
            if p.file_count != self._count or again:  # another run (resume, then index)
                self._count, self._finished = p.file_count, set()
            # Every file ends with one final event. The next file is read while one is
            # embedded, and the unchanged ones are told first, so a file's own number says
            # nothing of how many are done (it showed 3/13 then 2/13; QA, session 27).
            if p.phase in FINAL:
                self._finished.add(p.file_index)
            done = self._done = len(self._finished)
            count = p.file_count
        width = 24
        filled = min(width, int(width * done / max(count, 1)))
        line = f"[{'#' * filled}{'.' * (width - filled)}] {done}/{count} done · {name}: {detail}"
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

    def new_run(self) -> None:
        """The next events are another run's (the resume's, then the paths'): its count
        starts again, also when it has as many files (the bar stood full through the
        second run's first file; QA-77)."""
        self._count, self._finished, self._done = 0, set(), 0

    def close(self) -> None:
        if self.tty and not self.quiet:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
