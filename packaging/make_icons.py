"""Render resources/icons/docent.svg into the icon files each platform's bundle wants.

    .venv/bin/python packaging/make_icons.py

writes packaging/icons/docent.png (256 px, Linux menus), docent.ico (Windows) and
docent.icns (macOS). The outputs are committed, so building needs neither this script
nor a display; run it again after changing the SVG.
"""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PIL import Image  # noqa: E402
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt  # noqa: E402
from PySide6.QtGui import QGuiApplication, QImage, QPainter  # noqa: E402
from PySide6.QtSvg import QSvgRenderer  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SVG = ROOT / "resources" / "icons" / "docent.svg"
OUT = ROOT / "packaging" / "icons"


def render(renderer: QSvgRenderer, size: int) -> Image.Image:
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    renderer.render(painter)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return Image.open(io.BytesIO(bytes(data.data()))).convert("RGBA")


def main() -> int:
    _app = QGuiApplication(sys.argv[:1])
    renderer = QSvgRenderer(str(SVG))
    if not renderer.isValid():
        print(f"cannot read {SVG}", file=sys.stderr)
        return 1
    OUT.mkdir(parents=True, exist_ok=True)
    big = render(renderer, 1024)
    render(renderer, 256).save(OUT / "docent.png")
    big.save(OUT / "docent.ico", sizes=[(s, s) for s in (16, 24, 32, 48, 64, 128, 256)])
    big.save(OUT / "docent.icns")
    for name in ("docent.png", "docent.ico", "docent.icns"):
        print(f"{OUT / name}: {(OUT / name).stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
