"""`docent index`'s progress line."""

from __future__ import annotations

import io

from docent.cli_progress import ProgressBar
from docent.core.api import Progress


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_bar_never_goes_back_when_the_next_file_is_read_early() -> None:
    """File 5 is read while file 4 is embedded: 4's steps came after 5's, and the bar
    shrank (QA, session 26)."""
    out = _Tty()
    bar = ProgressBar(out)
    bar(Progress("embedding", 4, 6, "/d/d.pdf", chunks_done=1, chunks_total=9))
    bar(Progress("extracting", 5, 6, "/d/e.pdf", message="reading page 2"))
    bar(Progress("embedding", 4, 6, "/d/d.pdf", chunks_done=5, chunks_total=9))
    bar(Progress("ready", 4, 6, "/d/d.pdf"))
    lines = [line for line in out.getvalue().split("\r\x1b[K") if line]
    fills = [line[1 : line.index("]")].count("#") for line in lines]
    assert fills == sorted(fills) and fills[0] == 12, lines  # 3 of 6 done: 12 of 24


def test_the_bar_starts_again_for_the_next_run() -> None:
    """`docent index` resumes, then indexes, with one bar: the second run's bar was full
    and 60 characters wide (helper-55)."""
    out = _Tty()
    bar = ProgressBar(out)
    bar(Progress("ready", 5, 5, "/d/e.pdf"))
    bar(Progress("embedding", 1, 2, "/d/a.pdf", chunks_done=1, chunks_total=9))
    last = out.getvalue().split("\r\x1b[K")[-1]
    assert last.startswith("[" + "." * 24 + "] 1/2 a.pdf"), last
