"""What every screenshot script shares: a scratch library, the corpus, the real window over
a real engine, and the orderly end (workers cancelled and waited for, the engine closed).

    with Window(size=(1560, 940), prefix="docent-shots-", ollama_host=url) as w:
        ... connect to w.window's signals, w.later(800, start) ...
        w.run(timeout_ms=1_800_000)

The scripts run under Xvfb (``xvfb-run -a -s "-screen 0 1600x1000x24"``); each names the
model that wrote any answer it saves, so the README's caption can too.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

REPO = Path(__file__).resolve().parents[2]
OUT = Path(__file__).resolve().parent
CORPUS = Path(os.environ.get("DOCENT_CORPUS", REPO.parent / "shared" / "corpus" / "pdfs"))


def copy_corpus(names: dict[str, str] | list[str] | tuple[str, ...], folder: Path) -> Path:
    """Copy corpus PDFs into ``folder`` (a dict renames them: corpus name -> shown name)."""
    folder.mkdir(parents=True, exist_ok=True)
    pairs = names.items() if isinstance(names, dict) else ((n, n) for n in names)
    for name, shown in pairs:
        shutil.copy(CORPUS / name, folder / shown)
    return folder


def log(message: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} {message}", flush=True)


def save(widget: Any, path: Path) -> Path:
    """Save what ``widget`` shows (the window or a dialog) as a PNG."""
    path.parent.mkdir(parents=True, exist_ok=True)
    widget.grab().save(str(path))
    log(f"saved {path}")
    return path


class Window:
    """The app, its engine and main window in a scratch ``DOCENT_HOME`` (or ``home``);
    ``settings`` override the defaults (model timeouts are long: a tiny model on a busy
    machine can take minutes)."""

    def __init__(
        self,
        *,
        size: tuple[int, int] = (1560, 940),
        prefix: str = "docent-shots-",
        home: Path | None = None,
        keep: bool = False,
        **settings: Any,
    ) -> None:
        self.scratch = home or Path(tempfile.mkdtemp(prefix=prefix))
        self.keep = keep or home is not None
        os.environ["DOCENT_HOME"] = str(self.scratch / "home")
        self.size = size
        self.settings = {"llm_first_token_timeout": 900, "llm_total_timeout": 1800, **settings}

    def __enter__(self) -> Window:
        from docent.core.config import load_settings
        from docent.gui.app import create_app, open_engine
        from docent.gui.main_window import MainWindow

        self.app = create_app([sys.argv[0]])
        engine = open_engine(load_settings(**self.settings))
        assert engine is not None, "the engine did not open (see the message above)"
        self.engine = engine
        self.window = MainWindow(engine)
        self.window.resize(*self.size)
        self.window.show()
        return self

    def later(self, ms: int, fn: Callable[[], object]) -> None:
        from PySide6.QtCore import QTimer

        QTimer.singleShot(ms, fn)

    def run(self, timeout_ms: int) -> None:
        """Run the event loop until a step quits it, or ``timeout_ms`` passes."""
        self.later(timeout_ms, self.quit)
        self.app.exec()

    def quit(self) -> None:
        self.app.quit()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        from PySide6.QtWidgets import QApplication

        from docent.gui.workers import cancel_all, wait_for_all

        self.window.close()
        cancel_all()
        wait_for_all(30_000)
        self.engine.close()
        QApplication.processEvents()
        if self.keep:
            log(f"library kept in {self.scratch}")
        else:
            shutil.rmtree(self.scratch, ignore_errors=True)
