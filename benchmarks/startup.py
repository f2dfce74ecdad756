"""Time from launching Docent to a usable window, and to the embedding model loaded.

    python benchmarks/startup.py                                  # the venv's docent
    python benchmarks/startup.py --cmd dist/docent-*/docent       # the bundle
    python benchmarks/startup.py --display :99 --runs 7           # under an X server

Each run starts the window with an empty environment (HOME, PATH=/usr/bin:/bin and the
display only; Ollama pointed at a closed port so its check answers at once) on a library
of the bundled samples (indexed once before the runs; ``--empty`` for a first run), waits
for the milestones the app logs (``docent/gui/launch.py``), then closes it with SIGTERM.
Figures per run:

- ``usable``: the app's own figure: from the process's creation to its first paint having
  been handled with the event loop free (read from /proc, so it includes loading Python
  and the imports);
- ``seen``: from just before ``Popen`` to the log line appearing here (polled every 10 ms:
  adds up to ~10 ms and the exec);
- ``cpu``: the CPU time (user + system, all threads) the process had used when ``seen``:
  what startup costs whatever the load, and about the wall time on an idle machine
  (startup is mostly one thread);
- ``model``: the app's figure for the embedding model loaded (it loads after the window
  appears).

The first run reads the files from disk if they are not in the page cache; the median is
over all runs. The load average is printed before and after: on the shared 2-core machine
the figures are only comparable with the load they were taken at.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MILESTONES = {
    "usable": re.compile(r"window usable after ([\d.]+) s"),
    "model": re.compile(r"embedding model ready after ([\d.]+) s"),
}


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def environment(home: Path, display: str | None) -> dict[str, str]:
    env = {
        "HOME": str(home),
        "PATH": "/usr/bin:/bin",
        "DOCENT_HOME": str(home / "docent"),
        "DOCENT_OLLAMA_HOST": "http://127.0.0.1:9",  # discard port: refused at once
    }
    if display:
        env["DISPLAY"] = display
    else:
        env["QT_QPA_PLATFORM"] = "offscreen"
    return env


def cpu_seconds(pid: int) -> float:
    """User + system CPU the process has used so far (its threads included)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def one_run(cmd: list[str], env: dict[str, str], timeout: float) -> dict[str, float]:
    log = Path(env["DOCENT_HOME"]) / "logs" / "docent.log"
    start_size = log.stat().st_size if log.exists() else 0
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    found: dict[str, float] = {}
    try:
        while not MILESTONES.keys() <= found.keys() and time.monotonic() - t0 < timeout:
            if proc.poll() is not None:
                err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
                raise RuntimeError(f"docent exited with {proc.returncode}: {err[-2000:]}")
            text = log.read_text(errors="replace")[start_size:] if log.exists() else ""
            for name, pattern in MILESTONES.items():
                if name not in found and (m := pattern.search(text)):
                    found[name] = float(m.group(1))
                    if name == "usable":
                        found["seen"] = time.monotonic() - t0
                        found["cpu"] = cpu_seconds(proc.pid)
            time.sleep(0.01)
        if not MILESTONES.keys() <= found.keys():
            raise RuntimeError(f"no milestones within {timeout:.0f} s: {found}")
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cmd", default=str(ROOT / ".venv" / "bin" / "docent"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--display", default=None, help="an X display (default: offscreen)")
    ap.add_argument("--empty", action="store_true", help="start on an empty library")
    ap.add_argument("--timeout", type=float, default=180.0)
    ap.add_argument(
        "--home", type=Path, default=None, help="keep the library here (indexed once, reused)"
    )
    args = ap.parse_args()
    cmd = [str(Path(args.cmd).resolve())]
    with tempfile.TemporaryDirectory(prefix="docent-startup-") as tmp:
        home = args.home or Path(tmp)
        env = environment(home, args.display)
        library = "empty"
        if args.empty and args.home:
            ap.error("--empty takes no --home")
        if not args.empty:
            samples = Path(args.cmd).resolve().parent / "_internal" / "resources" / "samples"
            if not samples.is_dir():
                samples = ROOT / "resources" / "samples"
            subprocess.run([*cmd, "index", "-q", str(samples)], env=env, check=True)
            library = f"the {len(list(samples.glob('*.pdf')))} sample PDFs"
        where = f"X display {args.display}" if args.display else "offscreen"
        print(f"startup of {cmd[0]}, {where}, library: {library}")
        print(f"load average before: {loadavg()} (2 cores)")
        rows = []
        for i in range(args.runs):
            r = one_run(cmd, env, args.timeout)
            rows.append(r)
            print(
                f"run {i + 1}: usable {r['usable']:.2f} s (seen {r['seen']:.2f} s, "
                f"CPU {r['cpu']:.2f} s), "
                f"model ready {r['model']:.2f} s   load {loadavg()}"
            )
        for key in ("usable", "seen", "cpu", "model"):
            values = [r[key] for r in rows]
            print(
                f"{key:>6}: median {statistics.median(values):.2f} s, "
                f"min {min(values):.2f}, max {max(values):.2f} over {len(values)} runs"
            )
        print(f"load average after: {loadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
