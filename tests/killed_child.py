"""A child Python process killed with SIGKILL at a point it reports itself (its own
progress, printed as JSON lines, never a timer): the crash tests' kill -9."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parent


def killed_when(
    script: str, args: list[str], when: Callable[[dict[str, Any]], bool]
) -> dict[str, Any]:
    """Run ``script`` with ``args`` and kill it at the first line it prints for which
    ``when`` holds (the child then waits on its stdin, so it is still there); that line."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), *sys.path])}
    child = subprocess.Popen(
        [sys.executable, "-c", script, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert child.stdout is not None
    try:
        for line in child.stdout:
            said: dict[str, Any] = json.loads(line)
            if when(said):
                child.send_signal(signal.SIGKILL)
                return said
        raise AssertionError("the child finished before it was killed")
    finally:
        child.kill()
        child.wait(timeout=60)
