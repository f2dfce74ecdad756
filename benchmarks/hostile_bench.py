"""Hostile files and faults, run as a user would, at the default limits: what each case
ends in, how long the command took and the peak RSS of its largest process (the command
or its extraction worker).

Each case makes its files in a folder of its own and runs `docent` (this checkout's) in a
child process with its own DOCENT_HOME, under the wrapper of tests/hostile/cli_runner.py
(wall seconds, ``ru_maxrss`` of the process tree) and an outer timeout. Prints a Markdown
table with the load average before and after each case; the machine is shared, so read the
seconds with the load beside them.

    .venv/bin/python benchmarks/hostile_bench.py [--only NAME ...] [--keep]

Cases that need root (a read-only tmpfs, a full one) are skipped without it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "tests" / "hostile"), str(HERE.parent / "tests")]

from cli_runner import _command, _split_figures  # noqa: E402
from hostile_files import deflate_bomb_pdf, odd_names, self_referencing_pdf, text_pdf  # noqa: E402

OUTER = 900.0
GOOD = "Llamas hum when they are curious and spit when they are annoyed."


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


@dataclass
class Run:
    rc: int
    out: str
    err: str
    seconds: float
    rss_mb: float


@dataclass
class Row:
    case: str
    command: str
    outcome: str
    seconds: float
    rss_mb: float
    load_before: str
    load_after: str = ""


@dataclass
class Bench:
    root: Path
    rows: list[Row] = field(default_factory=list)

    def home(self, case: str) -> Path:
        return self.root / case / "home"

    def folder(self, case: str) -> Path:
        path = self.root / case / "lib"
        path.mkdir(parents=True, exist_ok=True)
        return path

    def env(self, home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
        env = {**os.environ, "DOCENT_HOME": str(home), **(extra or {})}
        env.pop("QT_QPA_PLATFORM", None)
        return env

    def run(
        self, case: str, args: list[str], home: Path, extra: dict[str, str] | None = None
    ) -> Run:
        before = load()
        done = subprocess.run(
            _command(tuple(args)), capture_output=True, env=self.env(home, extra), timeout=OUTER
        )
        err, fig = _split_figures(done.stderr.decode("utf-8", "replace"))
        run = Run(done.returncode, done.stdout.decode("utf-8", "replace"), err, *_fig(fig))
        self.rows.append(Row(case, _shown(args), "", run.seconds, run.rss_mb, before, load()))
        return run

    def start(
        self, args: list[str], home: Path, extra: dict[str, str] | None = None
    ) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            _command(tuple(args)),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=self.env(home, extra),
            start_new_session=True,
        )

    def outcome(self, text: str) -> None:
        text = re.sub(r"failed: \S*/lib/\S+: ", "failed: ", text)
        self.rows[-1].outcome = text.replace(str(self.root) + "/", "")


def _fig(fig: dict[str, float]) -> tuple[float, float]:
    return fig["seconds"], fig["rss_mb"]


def _shown(args: list[str]) -> str:
    return " ".join(Path(a).name if "/" in a else a for a in args)


def _line(text: str, needle: str) -> str:
    """The first line of ``text`` holding ``needle`` (the outcome a user reads)."""
    for line in text.splitlines():
        if needle in line:
            return line.strip()
    return f"(no line with {needle!r}) " + text.strip().splitlines()[-1][:160] if text else ""


def _summary(run: Run) -> str:
    for line in run.out.splitlines():
        if line.startswith(("indexed", "Indexed")) or " indexed " in line:
            return line.strip()
    return run.out.strip().splitlines()[0] if run.out.strip() else f"exit {run.rc}"


def _until_quiet(home: Path, started: float, timeout: float) -> float:
    """Seconds from ``started`` until no process has ``home`` as its DOCENT_HOME."""
    needle = f"DOCENT_HOME={home}\0".encode()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        alive = False
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                environ = Path(f"/proc/{entry}/environ").read_bytes() + b"\0"
                state = Path(f"/proc/{entry}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
            except OSError:
                continue
            if needle in environ and state != b"Z":
                alive = True
                break
        if not alive:
            return time.monotonic() - started
        time.sleep(0.1)  # polling other processes, in a benchmark (not a test)
    return float("inf")


def _wait_line(proc: subprocess.Popen[bytes], needle: str, timeout: float) -> None:
    assert proc.stderr is not None
    deadline = time.monotonic() + timeout
    os.set_blocking(proc.stderr.fileno(), True)
    for raw in iter(proc.stderr.readline, b""):
        if needle in raw.decode("utf-8", "replace"):
            return
        if time.monotonic() > deadline:
            break
    raise RuntimeError(f"no {needle!r} within {timeout} s")


# Cases -----------------------------------------------------------------------------------


def case_selfref(b: Bench) -> None:
    name = "self-referencing PDF (548 B)"
    lib, home = b.folder("selfref"), b.home("selfref")
    (lib / "selfref.pdf").write_bytes(self_referencing_pdf())
    (lib / "good.pdf").write_bytes(text_pdf(GOOD))
    run = b.run(name, ["index", str(lib)], home)
    b.outcome(f"exit {run.rc}; {_line(run.out, 'selfref.pdf took')}; {_summary(run)}")
    run = b.run(name, ["index", str(lib)], home)
    b.outcome(f"exit {run.rc}; not read again: {_summary(run)}")


def case_bomb(b: Bench) -> None:
    name = "deflate bomb PDF (3 MB, inflates to 3 GiB)"
    lib, home = b.folder("bomb"), b.home("bomb")
    (lib / "bomb.pdf").write_bytes(deflate_bomb_pdf(3072))
    (lib / "good.pdf").write_bytes(text_pdf(GOOD))
    run = b.run(name, ["index", str(lib)], home)
    b.outcome(f"exit {run.rc}; {_line(run.out, 'bomb.pdf')}; {_summary(run)}")


def case_docx_bomb(b: Bench) -> None:
    name = "Word file whose XML inflates to 300 MB (300 kB)"
    lib, home = b.folder("docxbomb"), b.home("docxbomb")
    from format_files import make_docx

    doc = make_docx(lib / "bomb.docx")
    block = b" " * (1 << 20)
    with (
        zipfile.ZipFile(doc, "a", compression=zipfile.ZIP_DEFLATED) as zf,
        zf.open("word/padding.xml", "w", force_zip64=True) as fh,
    ):
        for _ in range(300):
            fh.write(block)
    (lib / "good.txt").write_text(GOOD + "\n")
    run = b.run(name, ["index", str(lib)], home)
    b.outcome(f"exit {run.rc}; {_line(run.out, 'bomb.docx')}; {_summary(run)}")


def case_special(b: Bench) -> None:
    name = "FIFO x.txt and a link to /dev/zero in a folder"
    lib, home = b.folder("special"), b.home("special")
    os.mkfifo(lib / "x.txt")
    (lib / "zero.txt").symlink_to("/dev/zero")
    (lib / "good.txt").write_text(GOOD + "\n")
    run = b.run(name, ["index", str(lib)], home)
    b.outcome(f"exit {run.rc}; {_summary(run)}; {_line(run.out, 'x.txt')}")


def case_big_text(b: Bench) -> None:
    name = "20 MB text file"
    lib, home = b.folder("bigtext"), b.home("bigtext")
    with (lib / "big.txt").open("w") as fh:
        for i in range(330_000):
            fh.write(f"The quick brown fox studies {i} ledgers near the quiet harbour. \n")
    run = b.run(name, ["index", str(lib)], home)
    b.outcome(f"exit {run.rc}; {_line(run.out, 'big.txt is')}")


def case_long_line(b: Bench) -> None:
    name = "1 MB line without spaces"
    lib, home = b.folder("longline"), b.home("longline")
    (lib / "line.txt").write_text("x" * 1_000_000 + "\n")
    run = b.run(name, ["index", str(lib)], home)
    listed = b.run(name, ["list", "--json"], home)
    docs = json.loads(listed.out) if listed.rc == 0 else []
    chunks = docs[0]["chunks"] if docs else "?"
    b.rows[-2].outcome = f"exit {run.rc}; {_summary(run)}"
    b.outcome(f"{chunks} chunks of at most 2,000 characters")


def case_names(b: Bench) -> None:
    name = "non-UTF-8, newline and escape-code names"
    lib, home = b.folder("names"), b.home("names")
    odd_names(lib)
    run = b.run(name, ["index", str(lib)], home)
    b.outcome(f"exit {run.rc}; {_summary(run)}")
    listed = b.run(name, ["list"], home)
    names = [line.split()[0] for line in listed.out.splitlines() if ".txt" in line]
    b.outcome(f"printed escaped: {', '.join(names)}")


def case_scan(b: Bench) -> None:
    name = "2-page scan (OCR in the worker)"
    lib, home = b.folder("scan"), b.home("scan")
    from scan_files import page_image, save_scan

    save_scan(
        lib / "almanac.pdf",
        [
            page_image(["Harbour Almanac", "Printed for the keepers of the coast."]),
            page_image(["The second page explains the tides", "and the moon."]),
        ],
    )
    run = b.run(name, ["index", str(lib)], home)
    steps = sorted(
        {m for m in re.findall(r"reading scanned page \d+ by OCR \(\d+ of \d+\)", run.err)}
    )
    b.outcome(f"exit {run.rc}; {_summary(run)}; progress showed: {', '.join(steps)}")
    listed = b.run(name, ["list"], home)
    b.outcome(" ".join(_line(listed.out, "almanac.pdf").split()))


def _indexed(b: Bench, case: str) -> tuple[Path, Path]:
    lib, home = b.folder(case), b.home(case)
    for i, text in enumerate((GOOD, "Kelp forests shelter sea otters.", "Bronze bells ring.")):
        (lib / f"doc{i}.txt").write_text(text + "\n")
    run = b.run(case, ["index", str(lib)], home)
    b.outcome(f"setup: {_summary(run)}")
    return lib, home


def case_deleted_store(b: Bench) -> None:
    name = "store folder (qdrant/) deleted"
    lib, home = _indexed(b, name)
    import shutil

    shutil.rmtree(home / "qdrant")
    run = b.run(name, ["list"], home)
    b.outcome(f"exit {run.rc}; {_line(run.err, 'missing')[:140]}…")
    run = b.run(name, ["index", "--rebuild"], home)
    b.outcome(f"exit {run.rc}; {_summary(run)}")


def case_deleted_catalog(b: Bench) -> None:
    name = "catalog deleted"
    lib, home = _indexed(b, name)
    for p in home.glob("catalog.sqlite3*"):
        p.unlink()
    run = b.run(name, ["list"], home)
    b.outcome(f"exit {run.rc}; {_line(run.err, 'catalog')[:140]}…")


def case_damaged_catalog(b: Bench) -> None:
    name = "catalog header overwritten"
    lib, home = _indexed(b, name)
    cat = home / "catalog.sqlite3"
    cat.write_bytes(b"this is not a database" + cat.read_bytes()[22:])
    run = b.run(name, ["list"], home)
    b.outcome(f"exit {run.rc}; {run.err.strip()[:150]}…")
    run = b.run(name, ["index", "--rebuild"], home)
    b.outcome(f"exit {run.rc}; {_line(run.err, 'moved')[:110]}…; {_line(run.err, 'taken back')}")


def case_home_is_file(b: Bench) -> None:
    name = "DOCENT_HOME is a regular file"
    home = b.root / "homefile"
    home.write_text("I am a file")
    run = b.run(name, ["list"], home)
    b.outcome(f"exit {run.rc}; {run.err.strip()}")


def case_bad_env(b: Bench) -> None:
    name = "DOCENT_WATCHED_FOLDERS='[bad json'"
    home = b.home("badenv")
    run = b.run(name, ["list"], home, {"DOCENT_WATCHED_FOLDERS": "[bad json"})
    b.outcome(f"exit {run.rc}; {run.err.strip()}")


def _tmpfs(b: Bench, case: str) -> Path | None:
    mount = b.root / case / "tmpfs"
    mount.mkdir(parents=True)
    if os.geteuid() != 0:
        return None
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=400m", "tmpfs", str(mount)])
    return mount if done.returncode == 0 else None


def case_read_only(b: Bench) -> None:
    name = "read-only data folder (tmpfs remounted ro)"
    mount = _tmpfs(b, "readonly")
    if mount is None:
        b.rows.append(Row(name, "-", "skipped: needs root", float("nan"), float("nan"), load()))
        return
    try:
        lib, home = b.folder("readonly"), mount / "home"
        (lib / "good.txt").write_text(GOOD + "\n")
        b.run(name, ["index", str(lib)], home)
        b.outcome("setup")
        subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)
        run = b.run(name, ["list"], home)
        b.outcome(f"exit {run.rc}; {run.err.strip()[:160]}")
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def case_full_disk(b: Bench) -> None:
    name = "full disk (tmpfs with 40 MB free)"
    mount = _tmpfs(b, "full")
    if mount is None:
        b.rows.append(Row(name, "-", "skipped: needs root", float("nan"), float("nan"), load()))
        return
    try:
        lib, home = b.folder("full"), mount / "home"
        (lib / "good.txt").write_text(GOOD + "\n")
        b.run(name, ["index", str(lib)], home)
        b.outcome("setup")
        st = os.statvfs(mount)
        free = st.f_bavail * st.f_frsize
        subprocess.run(["fallocate", "-l", str(free - (40 << 20)), str(mount / "x")], check=True)
        run = b.run(name, ["index", str(lib)], home)
        b.outcome(f"exit {run.rc}; {run.err.strip()[:160]}")
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def case_ctrl_c(b: Bench) -> None:
    name = "Ctrl-C while an 8 MB text is cut into passages"
    lib, home = b.folder("ctrlc"), b.home("ctrlc")
    with (lib / "big.txt").open("w") as fh:
        for i in range(120_000):
            fh.write(f"The quick brown fox studies {i} ledgers near the harbour. ")
            fh.write("\n" if i % 7 == 0 else "")
    before = load()
    proc = b.start(["index", str(lib / "big.txt")], home)
    _wait_line(proc, "cutting the text into passages", OUTER)
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=OUTER)
    exited = time.monotonic() - sent
    quiet = _until_quiet(home, sent, 60)
    _, fig = _split_figures(err.decode("utf-8", "replace"))
    b.rows.append(
        Row(
            name,
            "index big.txt, then SIGINT",
            f"exit {proc.returncode} {exited:.1f} s after SIGINT; no process left "
            f"{quiet:.1f} s after it",
            fig["seconds"],
            fig["rss_mb"],
            before,
            load(),
        )
    )


def case_kill_9(b: Bench) -> None:
    name = "kill -9 of the command while the worker is stuck"
    lib, home = b.folder("kill9"), b.home("kill9")
    (lib / "selfref.pdf").write_bytes(self_referencing_pdf())
    before = load()
    proc = b.start(["index", str(lib)], home, {"DOCENT_EXTRACT_PAGE_TIMEOUT": "600"})
    _wait_line(proc, "opening the PDF", OUTER)
    child = int(Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()[0])
    sent = time.monotonic()
    os.kill(child, signal.SIGKILL)
    proc.communicate(timeout=OUTER)
    quiet = _until_quiet(home, sent, 120)
    b.rows.append(
        Row(
            name,
            "index, then kill -9",
            f"worker and tracker gone {quiet:.1f} s after the kill",
            float("nan"),
            float("nan"),
            before,
            load(),
        )
    )


def case_watch_sigterm(b: Bench) -> None:
    name = "`docent watch &` (SIGINT ignored), then SIGTERM"
    lib, home = b.folder("watch"), b.home("watch")
    (lib / "good.txt").write_text(GOOD + "\n")
    b.run(name, ["index", str(lib)], home)
    b.outcome("setup")
    before = load()
    proc = b.start(["watch", str(lib)], home, {"HOSTILE_IGNORE_SIGINT": "1"})
    _wait_line(proc, "Watching; Ctrl-C to stop.", OUTER)
    sent = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=OUTER)
    exited = time.monotonic() - sent
    _, fig = _split_figures(err.decode("utf-8", "replace"))
    b.rows.append(
        Row(
            name,
            "watch, then SIGTERM",
            f"exit {proc.returncode} {exited:.1f} s after SIGTERM, store closed",
            fig["seconds"],
            fig["rss_mb"],
            before,
            load(),
        )
    )


CASES: dict[str, Callable[[Bench], None]] = {
    "selfref": case_selfref,
    "bomb": case_bomb,
    "docxbomb": case_docx_bomb,
    "special": case_special,
    "bigtext": case_big_text,
    "longline": case_long_line,
    "names": case_names,
    "scan": case_scan,
    "deletedstore": case_deleted_store,
    "deletedcatalog": case_deleted_catalog,
    "damagedcatalog": case_damaged_catalog,
    "homefile": case_home_is_file,
    "badenv": case_bad_env,
    "readonly": case_read_only,
    "full": case_full_disk,
    "ctrlc": case_ctrl_c,
    "kill9": case_kill_9,
    "watch": case_watch_sigterm,
}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", choices=sorted(CASES), help="run these cases only")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="hostile-bench-"))
    bench = Bench(root)
    started = time.monotonic()
    for key in args.only or CASES:
        print(f"... {key} (load {load()})", file=sys.stderr, flush=True)
        try:
            CASES[key](bench)
        except Exception as exc:  # noqa: BLE001 - one broken case must not lose the table
            bench.rows.append(Row(key, "-", f"BENCH ERROR: {exc!r}", 0.0, 0.0, load()))
    print(
        f"\n2-core dev box, shared; {time.monotonic() - started:.0f} s in all; load at the end: "
        f"{load()}\n"
    )
    print("Peak RSS: the largest process of the run (the command or its extraction worker).\n")
    print("| case | command | outcome | seconds | peak RSS (MB) | load before → after |")
    print("|---|---|---|---:|---:|---|")
    for r in bench.rows:
        print(
            f"| {_cell(r.case)} | `{_cell(r.command)}` | {_cell(r.outcome)} | "
            f"{r.seconds:.1f} | {r.rss_mb:.0f} | {r.load_before} → {r.load_after} |"
        )
    if not args.keep:
        subprocess.run(["rm", "-rf", str(root)], check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
