"""`docent index`'s progress line."""

from __future__ import annotations

import io

import pytest

from docent.cli_progress import ProgressBar
from docent.cli_text import cells, fit, pad
from docent.core.api import Progress


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_bar_never_goes_back_when_the_next_file_is_read_early() -> None:
    """File 5 is read while file 4 is embedded: 4's steps came after 5's, and the bar
    shrank (QA, session 26)."""
    out = _Tty()
    bar = ProgressBar(out)
    for i, name in enumerate("abc", 1):
        bar(Progress("ready", i, 6, f"/d/{name}.pdf"))
    out.truncate(0)
    out.seek(0)
    bar(Progress("embedding", 4, 6, "/d/d.pdf", chunks_done=1, chunks_total=9))
    bar(Progress("extracting", 5, 6, "/d/e.pdf", message="reading page 2"))
    bar(Progress("embedding", 4, 6, "/d/d.pdf", chunks_done=5, chunks_total=9))
    bar(Progress("ready", 4, 6, "/d/d.pdf"))
    lines = [line for line in out.getvalue().split("\r\x1b[K") if line]
    fills = [line[1 : line.index("]")].count("#") for line in lines]
    assert fills == sorted(fills) and fills[0] == 12, lines  # 3 of 6 done: 12 of 24
    # the count is the files done too: it said "5/6" then "4/6", each event's own file
    counts = [line.split("] ")[1].split(" done · ")[0] for line in lines]
    assert counts == ["3/6", "3/6", "3/6", "4/6"], lines
    assert lines[1].endswith("e.pdf: reading page 2") and "d.pdf: ready" in lines[-1]


def counts(out: io.StringIO) -> list[str]:
    """The "done/total" of each line drawn."""
    lines = [line for line in out.getvalue().split("\r\x1b[K") if line.strip()]
    return [line.split("] ")[1].split(" done · ")[0] for line in lines]


def test_unchanged_files_told_first_are_not_the_files_before_them() -> None:
    """Files 2-4 are unchanged and told before file 1 is read: the count went to 4/4 (the
    bar full) while file 1 was still read and embedded (helper-58)."""
    out = _Tty()
    bar = ProgressBar(out)
    for i, name in enumerate("bcd", 2):
        bar(Progress("unchanged", i, 4, f"/d/{name}.txt"))
    bar(Progress("extracting", 1, 4, "/d/a.txt"))
    bar(Progress("embedding", 1, 4, "/d/a.txt", chunks_done=1, chunks_total=3))
    bar(Progress("ready", 1, 4, "/d/a.txt"))
    bar(Progress("removed", 1, 1, "/d/e.txt"))  # a file gone from the folder
    assert counts(out) == ["1/4", "2/4", "3/4", "3/4", "3/4", "4/4", "4/4"]


def test_a_second_run_of_as_many_files_starts_again() -> None:
    """`docent index` resumes two files, then indexes two: the second run's count went on
    from the first's (helper-58)."""
    out = _Tty()
    bar = ProgressBar(out)
    bar(Progress("ready", 1, 2, "/d/a.pdf"))
    bar(Progress("ready", 2, 2, "/d/b.pdf"))
    bar(Progress("ready", 1, 2, "/d/c.pdf"))
    assert counts(out) == ["1/2", "2/2", "1/2"]
    # the second run's first file, before it is done: 0 of 2, not the first run's 2/2
    # (QA-77: the bar stood full while gnuplot.pdf was read and embedded); cmd_index
    # says a new run begins
    out = _Tty()
    bar = ProgressBar(out)
    bar(Progress("ready", 1, 2, "/d/a.txt"))
    bar(Progress("ready", 2, 2, "/d/b.txt"))
    bar.new_run()
    bar(Progress("extracting", 1, 2, "/d/c.pdf"))
    bar(Progress("ready", 1, 2, "/d/c.pdf"))
    assert counts(out) == ["1/2", "2/2", "0/2", "1/2"]


def test_a_file_that_fails_as_it_is_read_ahead_counts_alone() -> None:
    """File 3 fails as it is read while file 2 is embedded: three files are done only once
    file 2 is; and a run of files that all fail ends with all of them done."""
    out = _Tty()
    bar = ProgressBar(out)
    bar(Progress("ready", 1, 4, "/d/a.pdf"))
    bar(Progress("embedding", 2, 4, "/d/b.pdf", chunks_done=1, chunks_total=9))
    bar(Progress("failed", 3, 4, "/d/c.pdf", message="not a PDF"))
    bar(Progress("ready", 2, 4, "/d/b.pdf"))
    assert counts(out) == ["1/4", "1/4", "2/4", "3/4"]
    out = _Tty()
    bar = ProgressBar(out)
    for i, name in enumerate("abc", 1):
        bar(Progress("failed", i, 3, f"/d/{name}.pdf", message="not a PDF"))
    assert (
        out.getvalue()
        .rstrip("\n")
        .rsplit("\r\x1b[K", 1)[-1]
        .startswith("[" + "#" * 24 + "] 3/3 done · c.pdf: failed")
    )


def test_the_bar_starts_again_for_the_next_run() -> None:
    """`docent index` resumes, then indexes, with one bar: the second run's bar was full
    and 60 characters wide (helper-55)."""
    out = _Tty()
    bar = ProgressBar(out)
    bar(Progress("ready", 5, 5, "/d/e.pdf"))
    bar(Progress("embedding", 1, 2, "/d/a.pdf", chunks_done=1, chunks_total=9))
    last = out.getvalue().split("\r\x1b[K")[-1]
    assert last.startswith("[" + "." * 24 + "] 0/2 done · a.pdf"), last


def test_the_line_fits_one_row_of_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """A line longer than the terminal wraps, and "\\r" clears only its last row: an
    80-column terminal filled with stale rows (QA, session 27)."""
    import os

    monkeypatch.setattr("shutil.get_terminal_size", lambda fallback: os.terminal_size((80, 24)))
    out = _Tty()
    bar = ProgressBar(out)
    name = "very_long_name_" + "x" * 120 + ".pdf"
    bar(Progress("embedding", 12, 13, f"/d/{name}", chunks_done=1, chunks_total=9))
    (line,) = [part for part in out.getvalue().split("\r\x1b[K") if part]
    assert cells(line) == 79 and line.endswith("…"), line


def test_names_are_cut_with_an_ellipsis_and_wide_characters_keep_the_column() -> None:
    """`docent list` cut names at 48 characters with no mark of it, and a name with
    Chinese or Japanese characters pushed the rest of its row out of line (QA, 27)."""
    assert fit("short.pdf", 12) == "short.pdf"
    assert fit("a" * 60, 48) == "a" * 47 + "…"
    wide = pad("Ünïcödé 日本語 skew scan.pdf", 48)
    assert cells(wide) == 48 and wide.startswith("Ünïcödé 日本語 skew scan.pdf")
    assert cells(pad("日本語" * 20, 48)) == 48  # cut inside the wide run, still 48 cells
    assert cells("e\u0301") == 1  # a combining accent takes no cell
