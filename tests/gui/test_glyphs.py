"""Every symbol the window writes (◀ ▶ ⚠ ✓ ■ …) is drawn by some font on this machine: a
glyph no font has shows as an empty box (the Stop mark ⏹ did, under Xvfb on Debian 12)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QFont, QFontDatabase, QFontMetrics

import docent.core.answer_notes
import docent.gui

GUI = Path(docent.gui.__file__).parent
#: Core's words the window shows as they are: the answer's notes (its footer).
SHOWN_FROM_CORE = [Path(docent.core.answer_notes.__file__)]


def symbols() -> set[str]:
    found: set[str] = set()
    for module in [*GUI.glob("*.py"), *SHOWN_FROM_CORE]:
        found |= set(re.findall(r"[^\x00-\x7f]", module.read_text(encoding="utf-8")))
    return found


def test_every_symbol_in_the_window_has_a_font_that_draws_it(qtbot: Any) -> None:
    families = QFontDatabase.families()
    if not families:
        pytest.skip("no fonts on this machine: nothing draws any text")
    metrics = [QFontMetrics(QFont(f)) for f in families]
    used = symbols()
    assert {"◀", "■", "⚠"} <= used, "the scan of the GUI's text is broken"
    missing = sorted(c for c in used if not any(m.inFontUcs4(ord(c)) for m in metrics))
    assert missing == [], f"no font draws {missing} ({[hex(ord(c)) for c in missing]})"
