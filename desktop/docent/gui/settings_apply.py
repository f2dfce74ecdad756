"""Apply saved settings to the running app: what can change live does, the rest waits."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from docent.core.config import Settings
from docent.gui.messages import bridge
from docent.gui.settings_dialog import FIELD_LABELS
from docent.gui.workers import Report, run_in_worker

if TYPE_CHECKING:
    from docent.gui.main_window import MainWindow

#: Settings the running engine reads on each use, so they apply at once.
LIVE_KEYS = ("ollama_host", "ollama_model", "summary_type")


def apply_settings(window: MainWindow, new: Settings, restart: list[str]) -> None:
    engine: Any = window.engine
    old = engine.settings
    added = [f for f in new.watched_folders if f not in old.watched_folders]
    dropped = [f for f in old.watched_folders if f not in new.watched_folders]
    if hasattr(engine, "apply_settings"):
        engine.apply_settings(new)
    else:
        for key in LIVE_KEYS:
            setattr(old, key, getattr(new, key))
    if added or dropped:
        _rewatch(window, added, dropped)
    window.chat.set_models([], new.ollama_model)
    window.check_health()
    if restart:
        names = ", ".join(FIELD_LABELS.get(k, k) for k in restart)
        bridge().info(f"Saved. {names}: takes effect when Docent starts again.")
    else:
        bridge().info("Settings saved and applied.")


def _rewatch(window: MainWindow, added: list[str], dropped: list[str]) -> None:
    engine: Any = window.engine
    if not hasattr(engine, "watch"):
        return

    def job(report: Report, cancel: threading.Event) -> None:
        for folder in dropped:
            engine.unwatch(folder, False)
        for folder in added:
            engine.watch(folder)

    run_in_worker(
        job,
        name="rewatch",
        on_error=lambda exc: bridge().error(f"Watched folders: {exc}"),
        on_finished=window.library.watched.refresh,
    )
