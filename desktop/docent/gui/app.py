"""Start the desktop app: logging, crash dialog, one window per data folder.

``main()`` builds the QApplication, opens the Engine (a second Docent on the same data
folder gets StoreLocked: we say so and exit), shows the window and runs the loop. An
uncaught exception on the GUI thread opens a crash dialog naming the log file instead of
ending silently.
"""

from __future__ import annotations

import logging
import signal
import sys
import threading
import traceback
from logging.handlers import RotatingFileHandler
from pathlib import Path
from types import TracebackType

from PySide6.QtCore import Qt, QThread, QTimer
from PySide6.QtGui import QGuiApplication, QIcon
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from docent.core.config import Settings, load_settings, resources_dir
from docent.core.engine import Engine
from docent.core.errors import (
    CatalogError,
    DocentError,
    SettingsError,
    StoreDamaged,
    StoreLocked,
)
from docent.gui.plain import ask, tell

log = logging.getLogger(__name__)

LOG_NAME = "docent.log"


def setup_logging(settings: Settings) -> Path:
    """Log to ``<data dir>/logs/docent.log`` (rotated); returns the file's path."""
    folder = settings.log_path
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOG_NAME
    root = logging.getLogger()
    for h in root.handlers:  # the terminal keeps the level it had (WARNING unless -v)
        if h.level == logging.NOTSET:
            h.setLevel(root.level)
    files = [h.baseFilename for h in root.handlers if isinstance(h, logging.FileHandler)]
    if str(path) not in files:
        handler = RotatingFileHandler(path, maxBytes=2_000_000, backupCount=3, encoding="utf-8")
        handler.setFormatter(
            logging.Formatter("%(asctime)s %(levelname)s %(threadName)s %(name)s: %(message)s")
        )
        root.addHandler(handler)
    root.setLevel(logging.INFO)
    return path


def stylesheet() -> str:
    qss = resources_dir() / "style" / "docent.qss"
    return qss.read_text(encoding="utf-8") if qss.exists() else ""


class CrashDialog(QDialog):
    def __init__(self, details: str, log_file: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Docent hit an unexpected error")
        self.log_file = log_file
        self.message = QLabel(
            "Something went wrong inside Docent. Your documents and library are safe.\n"
            f"The details were written to {log_file} — please attach that file if you "
            "report this. You can keep working, but restarting Docent is safest."
        )
        self.message.setWordWrap(True)
        self.details = QPlainTextEdit(details)
        self.details.setReadOnly(True)
        self.details.setAccessibleName("Details of the error")
        buttons = QDialogButtonBox()
        copy = QPushButton("Copy details")
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(details))
        buttons.addButton(copy, QDialogButtonBox.ButtonRole.ActionRole)
        self.quit_button = buttons.addButton("Quit Docent", QDialogButtonBox.ButtonRole.RejectRole)
        self.keep_button = buttons.addButton("Keep going", QDialogButtonBox.ButtonRole.AcceptRole)
        self.quit_button.clicked.connect(QApplication.quit)
        self.keep_button.clicked.connect(self.accept)
        layout = QVBoxLayout(self)
        layout.addWidget(self.message)
        layout.addWidget(self.details, 1)
        layout.addWidget(buttons)
        self.resize(640, 420)


class CrashHandler:
    """``sys.excepthook`` (and ``threading.excepthook``): log it, then show the dialog."""

    def __init__(self, log_file: Path) -> None:
        self.log_file = log_file
        self.dialog: CrashDialog | None = None
        self._previous = sys.excepthook

    def install(self) -> None:
        sys.excepthook = self.hook
        threading.excepthook = self._thread_hook

    def uninstall(self) -> None:
        sys.excepthook = self._previous

    def hook(
        self, exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None
    ) -> None:
        if issubclass(exc_type, KeyboardInterrupt):
            QApplication.quit()
            return
        log.critical("uncaught exception", exc_info=(exc_type, exc, tb))
        details = "".join(traceback.format_exception(exc_type, exc, tb))
        app = QApplication.instance()
        if app is None or QThread.currentThread() is not app.thread():
            sys.stderr.write(details)  # no widgets off the GUI thread
            return
        if self.dialog is not None and self.dialog.isVisible():
            self.dialog.details.appendPlainText("\n" + details)
            return
        self.dialog = CrashDialog(details, self.log_file, QApplication.activeWindow())
        self.dialog.show()

    def _thread_hook(self, args: threading.ExceptHookArgs) -> None:
        log.critical(
            "uncaught exception in thread %s",
            args.thread.name if args.thread else "?",
            exc_info=(args.exc_type, args.exc_value, args.exc_traceback),  # type: ignore[arg-type]
        )


def explain_locked(exc: StoreLocked) -> QMessageBox:
    box = QMessageBox(
        QMessageBox.Icon.Warning,
        "Docent is already open",
        f"{exc}\n\nSwitch to the Docent window that is already open.",
    )
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setObjectName("storeLocked")
    return box


def open_engine(settings: Settings) -> Engine | None:
    """The opened engine, or None after telling the user why not (already open, ...).

    A damaged store or catalog is explained and a rebuild offered (core/consistency.py:
    the damaged part is set aside, not deleted)."""
    try:
        return Engine(settings, interactive=True).open()
    except StoreLocked as exc:
        log.warning("%s", exc)
        explain_locked(exc).exec()
    except (StoreDamaged, CatalogError) as exc:
        log.error("could not open the library: %s", exc)
        if ask(None, "Docent could not open the library", str(exc), "Rebuild"):
            return _open_rebuilt(settings)
    except DocentError as exc:
        log.error("could not open the library: %s", exc)
        tell(None, "Docent could not open the library", str(exc))
    return None


def _open_rebuilt(settings: Settings) -> Engine | None:
    try:
        return Engine(settings, interactive=True).open(rebuild=True)
    except DocentError as exc:
        log.error("could not rebuild the library: %s", exc)
        tell(None, "Docent could not rebuild the library", str(exc))
        return None


#: How long a Python thread may hold the GIL before another may take it (default 5 ms).
#: Workers run pure-Python stretches (chunking, scoring); a shorter interval lets the GUI
#: thread back in sooner, which is what keeps the window responsive.
GIL_SWITCH_INTERVAL = 0.0002


def create_app(argv: list[str] | None = None) -> QApplication:
    sys.setswitchinterval(GIL_SWITCH_INTERVAL)
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(argv or sys.argv)
    app.setApplicationName("Docent")
    app.setOrganizationName("Docent")
    app.setApplicationDisplayName("Docent")
    icon = resources_dir() / "icons" / "docent.svg"
    if icon.exists():
        app.setWindowIcon(QIcon(str(icon)))
    app.setStyleSheet(stylesheet())
    return app


def quit_on_signals(window: QWidget) -> QTimer:
    """Ctrl+C or SIGTERM in the terminal closes the window (saving its layout).

    Python handles signals only when it runs, so a slow no-op timer lets it look.
    """
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: window.close())
    timer = QTimer(window)
    timer.timeout.connect(lambda: None)
    timer.start(250)
    return timer


def main(argv: list[str] | None = None) -> int:
    app = create_app(argv)
    try:
        settings = load_settings()
    except SettingsError as exc:
        tell(None, "Docent settings", f"{exc}\n\nFix it and start again.")
        return 2
    # Opened first: a data folder that is a file, read-only or on a full disk is said in
    # a sentence, before the log file is put there.
    engine = open_engine(settings)
    if engine is None:
        return 2
    log_file = setup_logging(settings)
    log.info("starting; data folder %s", settings.data_path)
    crash = CrashHandler(log_file)
    crash.install()
    from docent.gui.launch import log_startup
    from docent.gui.main_window import MainWindow
    from docent.gui.workers import cancel_all, wait_for_all

    window = MainWindow(engine)
    log_startup(window)
    window.show()
    QTimer.singleShot(0, window.raise_)
    quit_on_signals(window)
    try:
        return int(app.exec())
    finally:
        cancel_all()
        wait_for_all(10_000)
        engine.close()
        crash.uninstall()
