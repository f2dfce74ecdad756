"""A watched folder of 10,000 small files: first index, restart sweep, a burst of 500.

    .venv/bin/python benchmarks/folder_scale.py [--files 10000] [--distinct 1000] [--burst 500]

1. First index: the folder (50 subfolders of small text notes) is watched by a real
   Engine and indexed until idle. The notes hold ``--distinct`` different texts; files
   that share one differ only in trailing spaces (which extraction drops), so every file
   has its own hash and goes through the whole pipeline (hash, read, chunk, BM25, store
   and catalog writes) while only ``--distinct`` chunks are embedded: the rest reuse a
   vector by content hash. Embedding 10,000 chunks would take ~15 min quiet, ~1 h busy.
2. Restart sweep, twice: a fresh Engine starts watching; time to idle, texts embedded
   (target 0) and changes found (target 0). Target < 5 s.
3. Burst, in the real window (offscreen): the main window opens the library (its own
   startup sweep runs in a worker), and once that sweep is done, ``--burst`` new notes
   with texts never seen (each one embedded) are written into the watched folder by
   another thread. A 10 ms heartbeat on the GUI thread (gui_stall.py's) measures the
   longest stall until every new note is ready.

``--keep DIR`` keeps the indexed library (home and folder) in DIR and, on a later run,
copies it back to the same place instead of indexing again (the catalog's paths stay
true), so the window's figures can be re-measured in minutes. ``--dump-stalls PREFIX``
writes every thread's stack to PREFIX-boot.txt / PREFIX-burst.txt whenever the GUI loop
misses a tick by 50 ms (gui_stall.py's watchdog).

Prints figures with the load average; asserts nothing but the sweep's zero work.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from gui_stall import Heartbeat

REPO = Path(__file__).resolve().parents[1]
WORDS = [
    "lantern",
    "harbour",
    "ledger",
    "crate",
    "seal",
    "tin",
    "oil",
    "inspector",
    "season",
    "north",
    "quay",
    "tide",
    "cargo",
    "rope",
    "anchor",
    "gull",
    "pier",
    "storm",
    "beacon",
    "mast",
    "hull",
    "keel",
    "sail",
    "chart",
    "compass",
]
FOLDERS = 50


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def note_text(i: int, tag: str = "") -> str:
    words = " ".join(WORDS[(i * 7 + k * (1 + i % 5)) % len(WORDS)] for k in range(30))
    return f"{tag}Note {i}: {words}. Entry number {i}.\n"


def make_folder(root: Path, files: int, distinct: int) -> None:
    for i in range(files):
        sub = root / f"part-{i % FOLDERS:02d}"
        sub.mkdir(parents=True, exist_ok=True)
        pad = " " * (i // distinct)  # its own hash, the same chunk text
        text = note_text(i % distinct).replace("\n", f"{pad}\n")
        (sub / f"note-{i:05d}.txt").write_text(text)


def first_index(library: Path) -> int:
    from docent.core.config import load_settings
    from docent.core.engine import Engine

    t0 = time.perf_counter()
    with Engine(load_settings()) as eng:
        eng.watch(library)
        eng.start_watching()
        if not eng.wait_idle(7200):
            raise SystemExit("the first indexing did not finish")
        docs = len(eng.documents())
        embedded = eng.embedder.texts_embedded
    wall = time.perf_counter() - t0
    print(
        f"first index            {docs} files in {wall:.0f} s = {docs / wall:.1f} files/s, "
        f"{embedded} texts embedded; load {_load()}",
        flush=True,
    )
    return docs


def restart_sweep(docs: int) -> bool:
    from docent.core.config import load_settings
    from docent.core.engine import Engine
    from docent.core.index_events import IndexEvent, JobFailed, JobFinished

    results: list[JobFinished | JobFailed] = []

    def on_event(event: IndexEvent) -> None:
        if isinstance(event, JobFinished | JobFailed):
            results.append(event)

    t_open = time.perf_counter()
    with Engine(load_settings()) as eng:
        eng.subscribe(on_event)
        t0 = time.perf_counter()
        eng.start_watching()
        idle = eng.wait_idle(600)
        wall = time.perf_counter() - t0
        opened = t0 - t_open
        embedded = eng.embedder.texts_embedded
        after = len(eng.documents())
    changes = [c for r in results for c in r.changes()]
    ok = idle and not embedded and not changes and after == docs
    print(
        f"restart sweep          {wall:.2f} s to idle (open {opened:.2f} s before it), "
        f"{embedded} embedded, {len(changes)} changes{'' if ok else '  FAIL'}; "
        f"load {_load()}",
        flush=True,
    )
    return ok


def burst(library: Path, count: int, docs: int, dump: str | None = None) -> None:
    from PySide6.QtCore import QTimer

    from docent.core.config import load_settings
    from docent.core.engine import Engine
    from docent.core.index_events import DocumentChanged, IndexEvent, JobFinished, JobKind
    from docent.core.models import DocState
    from docent.gui.app import create_app
    from docent.gui.main_window import MainWindow

    app = create_app([sys.argv[0]])
    engine = Engine(load_settings(), interactive=True).open()
    swept, ready = threading.Event(), threading.Event()
    new_paths = {
        str(library / f"part-{i % FOLDERS:02d}" / f"burst-{i:04d}.txt") for i in range(count)
    }
    seen: set[str] = set()
    times: dict[str, float] = {}

    def on_event(event: IndexEvent) -> None:  # on the indexing thread
        if isinstance(event, JobFinished) and event.job.kind is JobKind.SWEEP:
            swept.set()
        rec = event.record if isinstance(event, DocumentChanged) else None
        if rec is not None and rec.state is DocState.READY and rec.path in new_paths:
            seen.add(rec.path)
            if len(seen) == count:
                times["ready"] = time.perf_counter()
                ready.set()

    engine.subscribe(on_event)
    window = MainWindow(engine)
    window.resize(1400, 900)
    window.show()
    boot, beat = Heartbeat(), Heartbeat()
    beat.watch_flushes(engine.store)
    if dump:
        boot.dump_stalls_to(f"{dump}-boot.txt")
        beat.dump_stalls_to(f"{dump}-burst.txt")

    def write_burst() -> None:  # another thread, as another program would
        times["start"] = time.perf_counter()
        for i, path in enumerate(sorted(new_paths)):
            Path(path).write_text(note_text(docs + i, tag=f"Burst {i}. "))
        times["written"] = time.perf_counter()

    def poll() -> None:
        if "boot" not in times and swept.is_set():
            times["boot"] = time.perf_counter()
            boot.stop()
            beat.start()
            threading.Thread(target=write_burst, daemon=True).start()
        elif ready.is_set():
            app.quit()

    timer = QTimer()
    timer.timeout.connect(poll)
    timer.start(100)
    boot.start()
    t_shown = time.perf_counter()
    QTimer.singleShot(3_600_000, app.quit)
    app.exec()
    beat.stop()
    window.close()
    engine.close()
    b, s = boot.summary(), beat.summary()
    print(
        f"window startup sweep   {times.get('boot', t_shown) - t_shown:.1f} s from the window "
        f"shown to its sweep done: max stall {b['max_ms']} ms, p99 {b['p99_ms']} ms; "
        f"GUI thread's own CPU: at most {b['max_gui_cpu_ms']} ms in one gap, "
        f"{b['longest_stall_gui_cpu_ms']} ms in the longest (the process: "
        f"{b['longest_stall_process_cpu_ms']} ms)"
    )
    if "ready" in times:
        took = times["ready"] - times["start"]
        print(
            f"burst of {count}          written in {times['written'] - times['start']:.1f} s, "
            f"all ready {took:.0f} s after the first write ({count / took:.1f} files/s)"
        )
    else:
        print(f"burst of {count}          NOT all ready: {len(seen)} seen")
    print(
        f"  heartbeat 10 ms: max stall {s['max_ms']} ms, p99 {s['p99_ms']} ms, "
        f"{s['over_50ms']} ticks over 50 ms; outside store flushes max "
        f"{s['max_ms_outside_flush']} ms ({s['flushes']} flushes, longest "
        f"{s['max_flush_ms']} ms); load {_load()} (2-core dev box, shared)"
    )
    print(
        f"  GUI thread's own CPU: at most {s['max_gui_cpu_ms']} ms in one gap, "
        f"{s['longest_stall_gui_cpu_ms']} ms in the longest stall; "
        f"{s['over_50ms_gui_cpu_over_50ms']} of the {s['over_50ms']} stalls over 50 ms "
        "had over 50 ms of it (the rest waited for the GIL or a core); in "
        f"{s['over_50ms_process_idle']} of them the whole process ran less than half the "
        f"time (the machine's other work); the longest: the process ran "
        f"{s['longest_stall_process_cpu_ms']} ms"
    )


def main() -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--distinct", type=int, default=1000)
    ap.add_argument("--burst", type=int, default=500)
    ap.add_argument("--sweeps", type=int, default=2)
    ap.add_argument("--keep", metavar="DIR", help="keep the indexed library here; reuse it")
    ap.add_argument("--dump-stalls", metavar="PREFIX", help="stacks of the window's stalls")
    args = ap.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    print(f"load average           {_load()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="docent-folder-scale-") as tmp:
        work = Path(args.keep).resolve() / "run" if args.keep else Path(tmp)
        snapshot = work.parent / "indexed"
        os.environ["DOCENT_HOME"] = str(work / "home")
        library = work / "library"
        if args.keep and snapshot.exists():
            shutil.rmtree(work, ignore_errors=True)
            subprocess.run(["cp", "-a", str(snapshot), str(work)], check=True)
            docs = args.files
            print(f"reused                 the library indexed in {snapshot}", flush=True)
        else:
            t0 = time.perf_counter()
            make_folder(library, args.files, args.distinct)
            print(f"made                   {args.files} files in {time.perf_counter() - t0:.1f} s")
            docs = first_index(library)
            if args.keep:
                subprocess.run(["cp", "-a", str(work), str(snapshot)], check=True)
        ok = all([restart_sweep(docs) for _ in range(args.sweeps)])
        if args.burst:
            burst(library, args.burst, docs, args.dump_stalls)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
