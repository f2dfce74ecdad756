"""docent.core must not load Qt: the engine is used by the CLI and tests without it.

Its own import statements are held by the import-linter contract in pyproject.toml; this
checks what no static contract sees: a library core uses loading Qt when imported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "desktop" / "docent" / "core"
QT = ("PySide6", "shiboken6", "PyQt5", "PyQt6")


def test_importing_every_core_module_loads_no_qt() -> None:
    modules = sorted(f"docent.core.{p.stem}" for p in CORE.glob("*.py") if p.stem != "__init__")
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {QT!r}]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"Qt loaded by core: {out.stdout}"
