"""How long the window took to become usable, written to the log at every start.

The lines are the figures ``benchmarks/startup.py`` reports and the milestones ``make
dist-check`` waits for:

- ``window usable after X s``: the first paint of the window is done and the event loop
  is free for input, counted from the moment the process was created (so a bundle's
  unpacking of Python and the imports count too);
- ``embedding model ready after X s``: the warm-up, which runs after the window appears;
- ``Ollama checked after X s: ...``: the first health check's result.
"""

from __future__ import annotations

import logging
import os
import time

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication

from docent.core.api import Health
from docent.gui.main_window import MainWindow

log = logging.getLogger(__name__)

_IMPORTED = time.monotonic()


def _process_start_boottime() -> float | None:
    """When this process was created, in CLOCK_BOOTTIME seconds (Linux), else None."""
    try:
        with open(f"/proc/{os.getpid()}/stat", encoding="ascii") as f:
            # the command name may hold spaces: the fields after it start after ")"
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22, starttime
    except (OSError, ValueError, IndexError, AttributeError):
        return None


_STARTED = _process_start_boottime()


def since_launch() -> float:
    """Seconds since the process was created; where that is unknown, since this import."""
    if _STARTED is not None and hasattr(time, "CLOCK_BOOTTIME"):
        return time.clock_gettime(time.CLOCK_BOOTTIME) - _STARTED
    return time.monotonic() - _IMPORTED


class _FirstPaint(QObject):
    """Logs once, after the first paint of any of the window's widgets has been handled."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            app = QApplication.instance()
            if app is not None:
                app.removeEventFilter(self)
            # queued behind the paint: when it runs, the loop is free for the user's input
            QTimer.singleShot(0, self, self._report)
        return False

    def _report(self) -> None:
        log.info("window usable after %.2f s", since_launch())


def log_startup(window: MainWindow) -> None:
    """Log the startup milestones of ``window`` (call just before showing it)."""
    app = QApplication.instance()
    if app is not None:
        app.installEventFilter(_FirstPaint(window))
    window.warmed_up.connect(lambda: log.info("embedding model ready after %.2f s", since_launch()))
    first = {"health": True}

    def on_health(health: Health) -> None:
        if first["health"]:
            first["health"] = False
            state = "found" if health.ok else "not available"
            log.info("Ollama checked after %.2f s: %s (%s)", since_launch(), state, health.message)

    window.health_changed.connect(on_health)
