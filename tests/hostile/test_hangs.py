"""Nothing hangs: files that loop, explode or never end are stopped, named and skipped.

Each case runs the real command line in a child process; the code's own limits end the
run, the test's outer timeout only turns a regression into a failure.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

from cli_runner import Docent, processes_with_home, wait_until
from hostile_files import deflate_bomb_pdf, self_referencing_pdf, text_pdf

GOOD = "Llamas hum when they are curious and spit when they are annoyed."


def _listed(docent: Docent) -> dict[str, dict[str, str]]:
    run = docent("list", "--json")
    assert run.rc == 0, run.text
    return {d["file_name"]: d for d in json.loads(run.out)}


def test_a_pdf_whose_contents_refer_to_themselves_is_stopped_and_not_read_again(
    docent: Docent, folder: Path
) -> None:
    (folder / "selfref.pdf").write_bytes(self_referencing_pdf())
    (folder / "good.pdf").write_bytes(text_pdf(GOOD))
    (folder / "notes.txt").write_text("Alpacas are smaller than llamas.\n")
    docent.env["DOCENT_EXTRACT_PAGE_TIMEOUT"] = "2"

    run = docent("index", str(folder))
    assert run.rc == 0, run.text
    assert "indexed 2" in run.out and "failed 1" in run.out
    # pdfium reads the page as empty; pdfplumber, rereading it, loops
    assert "selfref.pdf took longer than 2 s reading page 1" in run.out
    docs = _listed(docent)
    assert docs["good.pdf"]["state"] == docs["notes.txt"]["state"] == "ready"
    assert docs["selfref.pdf"]["state"] == "failed"

    again = docent("index", str(folder), note="index again")
    assert again.rc == 0 and "unchanged 2" in again.out and "failed 1" in again.out
    assert "extracting" not in again.err, "the looping file was read again"
    search = docent("search", "llamas hum")
    assert "good.pdf" in search.out


def test_a_deflate_bomb_is_stopped_at_the_stream_cap(docent: Docent, folder: Path) -> None:
    (folder / "bomb.pdf").write_bytes(deflate_bomb_pdf(1024))  # ~1 MB that inflates to 1 GiB
    (folder / "good.pdf").write_bytes(text_pdf(GOOD))
    docent.env["DOCENT_EXTRACT_MEMORY_MB"] = "256"  # streams capped at 64 MB

    run = docent("index", str(folder))
    assert run.rc == 0, run.text
    assert "bomb.pdf holds a compressed stream that expands to more than 64 MB" in run.out
    docs = _listed(docent)
    assert docs["bomb.pdf"]["state"] == "failed" and docs["good.pdf"]["state"] == "ready"


def test_a_fifo_and_a_link_to_dev_zero_are_skipped_and_named(docent: Docent, folder: Path) -> None:
    os.mkfifo(folder / "x.txt")
    (folder / "zero.txt").symlink_to("/dev/zero")
    (folder / "good.txt").write_text(GOOD + "\n")

    run = docent("index", str(folder))
    assert run.rc == 0, run.text
    assert "indexed 1" in run.out and "skipped 2" in run.out
    assert "x.txt is a FIFO (named pipe); Docent reads only regular files." in run.out
    assert "zero.txt is a link to /dev/zero, outside the folder" in run.out
    assert set(_listed(docent)) == {"good.txt"}

    named = docent(
        "index", str(folder / "x.txt"), str(folder / "zero.txt"), note="index both by name"
    )
    assert named.rc == 0 and "skipped 2" in named.out
    assert "x.txt is a FIFO (named pipe)" in named.out
    assert "zero.txt is a device; Docent reads only regular files." in named.out


def test_ctrl_c_during_a_large_text_ends_the_run_at_once(docent: Docent, folder: Path) -> None:
    big = folder / "big.txt"
    sentence = "The quick brown fox studies {} ledgers near the quiet harbour. "
    with big.open("w") as fh:
        for i in range(120_000):  # ~8 MB: minutes of chunking
            fh.write(sentence.format(i) + ("\n" if i % 7 == 0 else ""))
    started = docent.start("index", str(big))
    started.wait_for("cutting the text into passages")
    started.signal(signal.SIGINT)
    run = started.finish(timeout=30, note="index 8 MB text, Ctrl-C while chunking")
    assert run.rc == 130 and "Cancelled" in run.err
    wait_until(lambda: not processes_with_home(docent.home), 15, "a process outlived the run")


def test_no_worker_outlives_a_killed_command(docent: Docent, folder: Path) -> None:
    (folder / "selfref.pdf").write_bytes(self_referencing_pdf())
    docent.env["DOCENT_EXTRACT_PAGE_TIMEOUT"] = "600"  # the worker is stuck for good
    started = docent.start("index", str(folder))
    started.wait_for("opening the PDF")
    assert len(processes_with_home(docent.home)) >= 3  # wrapper, command, worker (+ tracker)
    os.kill(_command_pid(started.proc.pid), signal.SIGKILL)
    started.finish(timeout=30, note="kill -9 the command mid-file")
    wait_until(lambda: not processes_with_home(docent.home), 20, "the worker outlived its parent")


def _command_pid(wrapper: int) -> int:
    """The `docent` process under the test's wrapper."""
    children = Path(f"/proc/{wrapper}/task/{wrapper}/children").read_text().split()
    assert len(children) == 1, children
    return int(children[0])


def test_watch_in_the_background_stops_on_sigint_and_sigterm(docent: Docent, folder: Path) -> None:
    (folder / "good.txt").write_text(GOOD + "\n")
    assert docent("index", str(folder)).rc == 0
    for sig, name in ((signal.SIGINT, "SIGINT"), (signal.SIGTERM, "SIGTERM")):
        started = docent.start("watch", str(folder), ignore_sigint=True)  # as `docent watch &`
        started.wait_for("Watching; Ctrl-C to stop.")
        started.signal(sig)
        run = started.finish(timeout=60, note=f"watch in the background, {name}")
        assert run.rc == 0, run.text
        assert f"Stopped watching ({name})" in run.err
        listed = docent("list", note="list right after watch stopped")  # the store is closed
        assert listed.rc == 0 and "good.txt" in listed.out


def test_watch_says_what_it_reads_while_its_sweep_runs(docent: Docent, folder: Path) -> None:
    """Its first sweep of a folder printed nothing until the sweep ended: 78 s of silence
    for 12 files (QA, session 29)."""
    (folder / "good.txt").write_text(GOOD + "\n")
    started = docent.start("watch", str(folder), ignore_sigint=True)
    started.wait_for("good.txt (1 of 1)")  # on stderr, while it reads
    started.signal(signal.SIGTERM)
    run = started.finish(timeout=60, note="watch a folder of one new file")
    assert run.rc == 0, run.text


def test_an_answer_stops_on_sigterm_as_on_ctrl_c(docent: Docent, folder: Path) -> None:
    """Every command ends on SIGTERM as on Ctrl-C: ask and summarize were killed outright
    (exit -15, the model's request left running, the library not closed; review)."""
    from ollama_stub import OllamaStub

    (folder / "good.txt").write_text(GOOD + "\n")
    assert docent("index", str(folder)).rc == 0
    with OllamaStub(models=["stub-model:latest"], stall_after_tokens=2) as stub:
        docent.env["OLLAMA_HOST"] = stub.url
        started = docent.start("ask", "Why do llamas hum?", "--model", "stub-model:latest")
        assert stub.stalled.wait(60), "the answer never began"
        started.signal(signal.SIGTERM)
        run = started.finish(timeout=60, note="ask, SIGTERM while the model answers")
        assert run.rc == 130, run.text
        assert stub.client_disconnected.wait(10), "the model's request went on"
    listed = docent("list", note="list right after ask stopped")  # the library was closed
    assert listed.rc == 0 and "good.txt" in listed.out
