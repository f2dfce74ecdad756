"""Running `docent` as a user would, against hostile files, with a bound on every wait.

``docent(*args)`` runs the command line in a child process under a small wrapper that
measures the run (seconds, peak RSS of the command and its extraction worker) and that
forwards SIGINT/SIGTERM to it. Every run has an outer timeout well above the code's own
limits: a regression fails the test instead of hanging it. The figures of every run are
printed in a table at the end of the session (copied into the README), also from
pytest-xdist's workers (they travel in the test reports: tests/conftest.py).
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

#: Generous: the code's own limits are seconds; a cold model load on a loaded 2-core
#: machine is ~20 s.
OUTER_TIMEOUT = 300.0
FIGURES_TAG = "@@figures "
#: The test report property tests/conftest.py prints the figures from.
FIGURE_PROPERTY = "docent_run_figures"

_WRAPPER = r"""
import json, os, resource, signal, subprocess, sys, time
ignore_int = os.environ.pop("HOSTILE_IGNORE_SIGINT", "") == "1"
def child_setup():
    signal.signal(signal.SIGINT, signal.SIG_IGN if ignore_int else signal.SIG_DFL)
started = time.perf_counter()
child = subprocess.Popen(sys.argv[1:], preexec_fn=child_setup)
for sig in (signal.SIGINT, signal.SIGTERM):
    signal.signal(sig, lambda s, f: child.send_signal(s))
code = child.wait()
figures = {
    "rc": code,
    "seconds": time.perf_counter() - started,
    "rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
}
sys.stderr.write("\n@@figures " + json.dumps(figures) + "\n")
sys.exit(code if code >= 0 else 128 - code)
"""


@dataclass(slots=True)
class Run:
    args: list[str]
    rc: int
    out: str
    err: str
    seconds: float
    rss_mb: float

    @property
    def text(self) -> str:
        return self.out + self.err


def _split_figures(err: str) -> tuple[str, dict[str, float]]:
    head, _, tail = err.rpartition(FIGURES_TAG)
    if not _:
        return err, {"seconds": float("nan"), "rss_mb": float("nan")}
    return head.rstrip("\n"), json.loads(tail.strip().splitlines()[0])


def _command(args: tuple[str, ...]) -> list[str]:
    return [sys.executable, "-c", _WRAPPER, sys.executable, "-m", "docent.cli", *args]


class Docent:
    """Runs `docent ...` in the test's DOCENT_HOME (``env`` adds variables)."""

    def __init__(self, request: pytest.FixtureRequest, home: Path) -> None:
        self.node = request.node
        self.home = home
        self.env: dict[str, str] = {}

    def environ(self) -> dict[str, str]:
        env = {**os.environ, "DOCENT_HOME": str(self.home), **self.env}
        env.pop("QT_QPA_PLATFORM", None)
        return env

    def __call__(self, *args: str, timeout: float = OUTER_TIMEOUT, note: str = "") -> Run:
        proc = subprocess.Popen(
            _command(args),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=self.environ(),
            start_new_session=True,  # a timeout kills the whole group
        )
        try:
            out_b, err_b = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            pytest.fail(f"`docent {' '.join(args)}` did not end within {timeout:.0f} s")
        return self._finish(list(args), proc.returncode, out_b, err_b, note)

    def _finish(self, args: list[str], rc: int, out_b: bytes, err_b: bytes, note: str) -> Run:
        err, fig = _split_figures(err_b.decode("utf-8", "replace"))
        run = Run(args, rc, out_b.decode("utf-8", "replace"), err, fig["seconds"], fig["rss_mb"])
        what = note or " ".join(a if len(a) < 40 else "…" + a[-30:] for a in args)
        figures = (self.node.name, what, run.seconds, run.rss_mb, rc)
        self.node.user_properties.append((FIGURE_PROPERTY, figures))
        return run

    def start(self, *args: str, ignore_sigint: bool = False) -> Started:
        env = self.environ()
        if ignore_sigint:
            env["HOSTILE_IGNORE_SIGINT"] = "1"
        proc = subprocess.Popen(
            _command(args),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            start_new_session=True,
        )
        return Started(self, list(args), proc)


class Started:
    """A `docent` run in the background: wait for a line, signal it, collect it."""

    def __init__(self, owner: Docent, args: list[str], proc: subprocess.Popen[bytes]) -> None:
        self.owner, self.args, self.proc = owner, args, proc
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._err: list[str] = []
        self._out: list[bytes] = []
        self._readers = [
            threading.Thread(target=self._read_err, daemon=True),
            threading.Thread(target=self._read_out, daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    def _read_err(self) -> None:
        assert self.proc.stderr is not None
        for raw in iter(self.proc.stderr.readline, b""):
            line = raw.decode("utf-8", "replace")
            self._err.append(line)
            self._lines.put(line)
        self._lines.put(None)

    def _read_out(self) -> None:
        assert self.proc.stdout is not None
        self._out.append(self.proc.stdout.read())

    def wait_for(self, needle: str, timeout: float = OUTER_TIMEOUT) -> str:
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self.kill()
                pytest.fail(f"no '{needle}' on stderr within {timeout:.0f} s")
            if line is None:
                pytest.fail(f"the command ended before saying '{needle}': {''.join(self._err)}")
            if needle in line:
                return line

    def signal(self, sig: int) -> float:
        """Send ``sig`` (the wrapper forwards it); returns when it was sent."""
        self.proc.send_signal(sig)
        return time.monotonic()

    def finish(self, timeout: float = OUTER_TIMEOUT, note: str = "") -> Run:
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            pytest.fail(f"`docent {' '.join(self.args)}` did not end within {timeout:.0f} s")
        for reader in self._readers:
            reader.join(OUTER_TIMEOUT)  # the pipes close with the process
        out = self._out[0] if self._out else b""
        err = "".join(self._err).encode()
        return self.owner._finish(self.args, self.proc.returncode, out, err, note)

    def kill(self) -> None:
        os.killpg(self.proc.pid, signal.SIGKILL)


def processes_with_home(home: Path) -> list[int]:
    """Pids of live processes whose environment holds ``DOCENT_HOME=home`` (the command,
    its extraction worker, multiprocessing's resource tracker)."""
    needle = f"DOCENT_HOME={home}\0".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as fh:
                environ = fh.read() + b"\0"
            with open(f"/proc/{entry}/stat", "rb") as fh:
                zombie = fh.read().rsplit(b")", 1)[1].split()[0] == b"Z"
        except OSError:
            continue
        if needle in environ and not zombie:
            found.append(int(entry))
    return found


def wait_until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    """Poll ``condition`` (a check of other processes, which send no signal) until true."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: still not the case after {timeout:.0f} s")
        threading.Event().wait(0.1)
