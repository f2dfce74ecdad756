"""The extraction worker process: its limits, its restarts, and that it always stops."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from cli_runner import wait_until
from hostile_files import self_referencing_pdf, text_pdf

from docent.core.embedding import Embedder
from docent.core.errors import Cancelled
from docent.core.extract import extract
from docent.core.preparing import Limits, Preparer
from docent.core.sandbox import ProcessPreparer
from docent.core.userfiles import NotRegularFile, open_regular

OUTER = 120.0  # the code's limits are a few seconds; this only bounds a regression


@pytest.fixture(scope="module")
def tokenizer() -> tuple[str, str | None]:
    e = Embedder()
    return e.tokenizer_json(), e.cache_dir


def _preparer(tokenizer: tuple[str, str | None], tmp_path: Path, limits: Limits) -> ProcessPreparer:
    return ProcessPreparer(*tokenizer, str(tmp_path / "cache"), limits)


def _collect(prep: ProcessPreparer, tasks: list[int]) -> list[tuple[str, str]]:
    never = threading.Event()
    out = []
    for task in tasks:
        got = prep.result(task, never, lambda label, pages: None)
        out.append((got.reason, got.message))
    return out


def test_a_looping_file_times_out_and_the_files_behind_it_still_come(
    tokenizer: tuple[str, str | None], tmp_path: Path
) -> None:
    (tmp_path / "a.pdf").write_bytes(
        text_pdf("The first good file is about llamas and their humming.")
    )
    (tmp_path / "loop.pdf").write_bytes(self_referencing_pdf())
    (tmp_path / "b.pdf").write_bytes(
        text_pdf("The second good file is about kelp forests and otters.")
    )
    prep = _preparer(tokenizer, tmp_path, Limits(page_seconds=1))
    try:
        tasks = [prep.submit(str(tmp_path / n), "") for n in ("a.pdf", "loop.pdf", "b.pdf")]
        got = _collect(prep, tasks)
    finally:
        prep.close()
    assert got[0][0] == got[2][0] == "", got
    # pdfium reads the page as empty; pdfplumber, rereading it, loops
    assert got[1][0] == "timeout" and "loop.pdf took longer than 1 s reading page 1" in got[1][1]
    assert prep.stalls == 0, "the worker's own timer should have ended the step"
    assert prep.starts == 2, "an interrupted worker is replaced before the next file"


def test_a_file_past_its_whole_limit_is_stopped_though_no_step_ran_past_its_own(
    tokenizer: tuple[str, str | None], tmp_path: Path
) -> None:
    """The looping page gets the 600 s of a page; the file only has 2 s in all."""
    (tmp_path / "loop.pdf").write_bytes(self_referencing_pdf())
    (tmp_path / "b.pdf").write_bytes(
        text_pdf("The second good file is about kelp forests and otters.")
    )
    prep = _preparer(tokenizer, tmp_path, Limits(page_seconds=600, file_seconds=2))
    try:
        tasks = [prep.submit(str(tmp_path / n), "") for n in ("loop.pdf", "b.pdf")]
        got = _collect(prep, tasks)
    finally:
        prep.close()
    assert got[0][0] == "timeout", got
    assert "loop.pdf took longer than the 2 s a file of its size may take" in got[0][1]
    assert "extract_file_timeout" in got[0][1]
    assert got[1] == ("", ""), "the file after it was lost"
    assert prep.stalls == 0, "the worker's own timer should have ended it"


def test_a_worker_stuck_outside_python_is_killed_and_replaced(
    tokenizer: tuple[str, str | None], tmp_path: Path
) -> None:
    """SIGSTOP stands for a stall in C code, where the worker's timer cannot fire."""
    (tmp_path / "a.pdf").write_bytes(
        text_pdf("The first good file is about llamas and their humming.")
    )
    (tmp_path / "b.pdf").write_bytes(
        text_pdf("The second good file is about kelp forests and otters.")
    )
    prep = _preparer(tokenizer, tmp_path, Limits(page_seconds=1))
    try:
        first = prep.submit(str(tmp_path / "a.pdf"), "")
        assert _collect(prep, [first]) == [("", "")]
        stuck = prep.submit(str(tmp_path / "b.pdf"), "")
        after = prep.submit(str(tmp_path / "a.pdf"), "")
        os.kill(prep._proc.pid, signal.SIGSTOP)  # noqa: SLF001 - the test plays the stall
        got = _collect(prep, [stuck, after])
    finally:
        prep.close()
    assert got[0][0] == "timeout" and "b.pdf took longer than" in got[0][1]
    assert got[1] == ("", ""), "the file after the stuck one was lost"
    assert prep.starts == 2 and prep.stalls == 1


def test_a_worker_that_dies_mid_file_is_reported_not_waited_on_for_good(
    tokenizer: tuple[str, str | None], tmp_path: Path
) -> None:
    """Killed mid-step, its pipe and its sentinel close together: the parent must see the
    death (it once spun for good on the closed pipe, as after a deflate bomb's abort)."""
    (tmp_path / "loop.pdf").write_bytes(self_referencing_pdf())
    (tmp_path / "b.pdf").write_bytes(
        text_pdf("The second good file is about kelp forests and otters.")
    )
    prep = _preparer(tokenizer, tmp_path, Limits(page_seconds=600))
    killed: list[int] = []

    def on_step(label: str, pages: int) -> None:
        if label == "opening the PDF":  # pdfium's try, then pdfplumber's: both die
            pid = prep._proc.pid  # noqa: SLF001 - the test plays the crash
            killed.append(pid)
            os.kill(pid, signal.SIGKILL)
            # Dead (a zombie: both its pipe and its sentinel are closed) before the parent
            # looks again, so that it sees both at once, as it did after a bomb's abort.
            wait_until(lambda: _state(pid) in ("Z", "X", ""), 10, "the worker outlived a kill")

    got: list[tuple[str, str]] = []

    def wait() -> None:
        first = prep.result(loop, threading.Event(), on_step)
        got.append((first.reason, first.message))
        got.extend(_collect(prep, [after]))

    loop = prep.submit(str(tmp_path / "loop.pdf"), "")
    after = prep.submit(str(tmp_path / "b.pdf"), "")
    waiter = threading.Thread(target=wait, daemon=True)
    waiter.start()
    waiter.join(OUTER)
    try:
        assert not waiter.is_alive(), "the parent never noticed that its worker died"
    finally:
        prep.close()
    assert len(killed) == 2, killed
    assert got[0][0] == "crashed" and "loop.pdf made the document reader crash" in got[0][1]
    assert got[1] == ("", ""), "the file after the crash was lost"


def _worker_main_module(monkeypatch: pytest.MonkeyPatch, main: Path, source: str) -> None:
    """Workers started from now on run ``source`` as their copy of the main module, while
    Python starts them, before they read anything they were started with."""
    import multiprocessing.spawn

    main.write_text(source)
    own = multiprocessing.spawn.get_preparation_data

    def with_main(name: str) -> dict[str, object]:
        data = own(name)
        data.pop("init_main_from_name", None)
        data["init_main_from_path"] = str(main)
        return data

    monkeypatch.setattr(multiprocessing.spawn, "get_preparation_data", with_main)


def test_a_worker_that_dies_as_it_starts_never_holds_the_parent(
    tokenizer: tuple[str, str | None], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker that dies while Python starts it (here: its copy of the main module exits
    on import) never reads what it was started with. The tokenizer (466 kB) was part of
    that, written by the parent into a 64 kB pipe it also holds: the parent waited there
    for good, holding the preparer's lock (and a window closing would have waited too)."""
    _worker_main_module(monkeypatch, tmp_path / "dies_on_import.py", "raise SystemExit(7)\n")
    (tmp_path / "a.pdf").write_bytes(text_pdf("Llamas hum when they are content."))
    prep = _preparer(tokenizer, tmp_path, Limits(page_seconds=5))
    got: list[tuple[str, str]] = []

    def run() -> None:
        got.extend(_collect(prep, [prep.submit(str(tmp_path / "a.pdf"), "")]))

    waiter = threading.Thread(target=run, daemon=True)
    waiter.start()
    waiter.join(OUTER)
    if waiter.is_alive():  # holding the lock close() takes: left to die with the run
        pytest.fail("the parent waited for good on a worker that died as it started")
    prep.close()
    assert got and got[0][0] == "crashed" and "a.pdf made the document reader crash" in got[0][1]
    assert "exit 7" in got[0][1], got


def test_a_worker_stalled_as_it_starts_holds_neither_submit_nor_close(
    tokenizer: tuple[str, str | None], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker stalled while Python starts it (a slow import, a network home) has read
    nothing yet: submit() still returns, and close() ends it. The tokenizer sent to it
    under the lock kept submit() (and close()) waiting until the worker read it (review)."""
    release = tmp_path / "release"
    wait = f"import os, time\nwhile not os.path.exists({str(release)!r}):\n    time.sleep(0.05)\n"
    _worker_main_module(monkeypatch, tmp_path / "stalls_on_import.py", wait)
    (tmp_path / "a.pdf").write_bytes(text_pdf("Llamas hum when they are content."))
    prep = _preparer(tokenizer, tmp_path, Limits(page_seconds=5))
    submitted: list[int] = []
    submitter = threading.Thread(
        target=lambda: submitted.append(prep.submit(str(tmp_path / "a.pdf"), "")), daemon=True
    )
    submitter.start()
    submitter.join(OUTER)
    stuck = submitter.is_alive()
    if stuck:
        release.touch()  # let the worker read what it was sent, so the run can end
    assert not stuck, "submit() waited on a worker that had not started"
    closer = threading.Thread(target=prep.close, daemon=True)
    closer.start()
    closer.join(OUTER)
    assert not closer.is_alive(), "close() waited on a worker that had not started"
    release.touch()


def test_the_worker_gets_the_tokenizer_from_a_whole_file_or_else_as_it_is(
    tokenizer: tuple[str, str | None], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tokenizer goes to the worker in a file of the cache's folder, written again
    when it was cut short; when no file can be written it is passed as it is. Files are
    read each time."""
    import docent.core.sandbox as sandbox

    def read(name: str, fresh: bool = False) -> list[tuple[str, str]]:
        """``name`` read by a worker of a new preparer (so a new start)."""
        prep = _preparer(tokenizer, tmp_path, Limits(page_seconds=30))
        try:
            return _collect(prep, [prep.submit(str(tmp_path / name), "", fresh=fresh)])
        finally:
            prep.close()

    (tmp_path / "a.pdf").write_bytes(text_pdf("Llamas hum when they are content."))
    got = read("a.pdf")
    assert got == [("", "")], got
    (kept,) = (tmp_path / "cache").glob("worker-tokenizer-*.json")
    # cut short (a power cut after its write): written again at the next start
    whole = kept.read_bytes()
    kept.write_bytes(whole[: len(whole) // 2])
    got = read("a.pdf", fresh=True)
    assert got == [("", "")], got
    assert kept.read_bytes() == whole
    assert not list((tmp_path / "cache").glob("*.part")), "a part file was left"

    monkeypatch.setattr(sandbox, "_tokenizer_file", lambda root, text: "")
    (tmp_path / "b.pdf").write_bytes(text_pdf("Kelp forests shelter otters."))
    got = read("b.pdf")
    assert got == [("", "")], got


def test_an_earlier_models_tokenizer_file_is_removed_when_a_new_one_is_written(
    tmp_path: Path,
) -> None:
    """One 466 kB file per model change was left for good (review). Those older than
    ``OLD_TOKENIZER_SECONDS`` go as a worker starts, whether its own file is written or
    found; a fresh one stays (the lock keeps one engine on a cache, and this is only a
    second guard), and so does any file Docent did not name."""
    import docent.core.sandbox as sandbox

    root = tmp_path / "cache"
    root.mkdir()
    week = time.time() - 7 * 86400
    older = root / "worker-tokenizer-0123456789abcdef.json"
    part = root / "worker-tokenizer-0123456789abcdef.json.x1y2.part"
    fresh = root / "worker-tokenizer-fedcba9876543210.json"
    others = [root / "notes.json", root / "worker-tokenizer-notes.json.bak"]
    for f in (older, part, fresh, *others):
        f.write_text("{}", encoding="utf-8")
    for f in (older, part, *others):
        os.utime(f, (week, week))
    made = Path(sandbox._tokenizer_file(str(root), '{"model": "new"}'))
    assert made.read_text(encoding="utf-8") == '{"model": "new"}'
    kept = sorted([made.name, fresh.name, *(f.name for f in others)])
    assert sorted(p.name for p in root.iterdir()) == kept
    # found whole at the next start: not written again, and what has aged since goes
    before = made.stat().st_mtime_ns
    os.utime(fresh, (week, week))
    assert sandbox._tokenizer_file(str(root), '{"model": "new"}') == str(made)
    assert made.stat().st_mtime_ns == before and not fresh.exists()


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return ""


def test_cancel_stops_a_stuck_file_at_once(
    tokenizer: tuple[str, str | None], tmp_path: Path
) -> None:
    (tmp_path / "loop.pdf").write_bytes(self_referencing_pdf())
    prep = _preparer(tokenizer, tmp_path, Limits(page_seconds=600))
    cancel, stuck, outcome = threading.Event(), threading.Event(), []

    def on_step(label: str, pages: int) -> None:
        if label == "opening the PDF":
            stuck.set()

    def wait() -> None:
        try:
            prep.result(task, cancel, on_step)
        except Cancelled as exc:
            outcome.append(exc)

    task = prep.submit(str(tmp_path / "loop.pdf"), "")
    waiter = threading.Thread(target=wait)
    waiter.start()
    assert stuck.wait(OUTER)
    pid = prep._proc.pid  # noqa: SLF001
    cancel.set()
    waiter.join(OUTER)
    assert not waiter.is_alive() and outcome, "cancel did not end the wait"
    wait_until(lambda: not Path(f"/proc/{pid}").exists(), 10, "the worker survived a cancel")
    prep.close()


def test_the_memory_cap_turns_a_huge_allocation_into_memory_error() -> None:
    code = (
        "from docent.core.sandbox import _cap_memory\n"
        "_cap_memory(64 << 20)\n"
        "try:\n    bytearray(1 << 30)\nexcept MemoryError:\n    print('capped')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=OUTER)
    assert done.stdout.strip() == b"capped", done.stderr


def test_special_files_are_refused_before_any_read(tmp_path: Path) -> None:
    fifo = tmp_path / "x.txt"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFile, match="FIFO"):
        open_regular(fifo)  # O_NONBLOCK: opening a FIFO with no writer does not wait
    with pytest.raises(NotRegularFile, match="device"):
        open_regular("/dev/zero")
    with pytest.raises(Exception, match="is a FIFO"):
        extract(fifo)
    here = Preparer(lambda text: len(text.split()) + 2, lambda texts: [])
    got = here.prepare(str(fifo), str(tmp_path / "cache"), "")
    assert got.reason == "unsupported" and "x.txt is a FIFO (named pipe)" in got.message


def test_a_file_sent_to_a_worker_left_idle_gets_its_full_time(
    tokenizer: tuple[str, str | None], tmp_path: Path
) -> None:
    """The worker stays up between runs. The first file of a later run was failed at once,
    "took longer than 30 s starting", for the pause before it (seen in the window: a second
    drop of files, minutes after the first)."""
    (tmp_path / "a.pdf").write_bytes(text_pdf("The first run's file is about llamas."))
    (tmp_path / "b.pdf").write_bytes(text_pdf("The later run's file is about kelp forests."))
    prep = _preparer(tokenizer, tmp_path, Limits(page_seconds=1))
    try:
        assert _collect(prep, [prep.submit(str(tmp_path / "a.pdf"), "")])[0][0] == ""
        # what a pause longer than a step's limit leaves: the last file's deadline is past
        prep._deadline = time.monotonic() - 1
        got = _collect(prep, [prep.submit(str(tmp_path / "b.pdf"), "")])
    finally:
        prep.close()
    assert got[0][0] == "", got
    assert prep.starts == 1 and prep.stalls == 0
