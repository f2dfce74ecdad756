"""docent.core must not import Qt: the engine is used by the CLI and tests without it."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "desktop" / "docent" / "core"
QT = ("PySide6", "shiboken6", "PyQt5", "PyQt6")


def test_no_qt_import_statement_in_core() -> None:
    offenders = []
    for py in CORE.rglob("*.py"):
        for node in ast.walk(ast.parse(py.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{py.name}: {n}" for n in names if n.split(".")[0] in QT]
    assert not offenders, offenders


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
