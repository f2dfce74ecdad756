"""Startup milestones in the log: what benchmarks/startup.py and make dist-check read."""

from __future__ import annotations

import logging
import re
import time
from typing import Any

import psutil
from fakes import FakeEngine

from docent.core.api import Health
from docent.gui import launch as launch_module
from docent.gui.launch import log_startup, since_launch
from docent.gui.main_window import MainWindow


def test_since_launch_counts_from_the_process_start() -> None:
    # psutil's create_time is /proc/stat's boot time (whole seconds, wall clock) plus the
    # process's start tick, so it can be off by up to a second: its start tick alone is
    # exact, and the boot clock it counts on is read here
    started = psutil.Process().create_time() - psutil.boot_time()
    age = time.clock_gettime(time.CLOCK_BOOTTIME) - started
    assert abs(since_launch() - age) < 0.1
    # this worker imported pytest and the app before the test: counted from the process
    assert since_launch() > time.monotonic() - launch_module._IMPORTED


def test_the_window_logs_usable_model_ready_and_ollama_checked(
    qtbot: Any, fake: FakeEngine, caplog: Any, drain: None
) -> None:
    caplog.set_level(logging.INFO, logger="docent.gui.launch")
    fake.health = Health(False, [], "Ollama is not running at http://127.0.0.1:9.")
    window = MainWindow(fake)
    qtbot.addWidget(window)
    log_startup(window)
    with qtbot.waitSignal(window.warmed_up, timeout=10_000):
        window.show()

    def lines() -> str:
        return "\n".join(r.getMessage() for r in caplog.records)

    qtbot.waitUntil(lambda: "Ollama checked" in lines(), timeout=10_000)
    qtbot.waitUntil(lambda: "window usable after" in lines(), timeout=10_000)
    qtbot.waitUntil(lambda: "embedding model ready after" in lines(), timeout=10_000)
    usable = float(re.search(r"window usable after ([\d.]+) s", lines()).group(1))
    assert 0 < usable <= since_launch() + 0.01  # logged with 2 decimals
    assert "Ollama checked after" in lines() and "not available" in lines()
    window.close()
