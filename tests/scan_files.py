"""Scanned PDFs made here: text drawn with PIL onto page images, saved as image-only PDFs
(no text layer), so a clone alone tests OCR."""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

DPI = 150
PAGE = (1240, 1754)  # A4 at 150 dpi
MARGIN = 100
LINE = 48


def _font(size: int = 30) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def page_image(
    lines: list[str], columns: list[list[str]] | None = None, skew: float = 0.0
) -> Image.Image:
    """A white page with ``lines`` from the top; then ``columns`` side by side below them."""
    img = Image.new("L", PAGE, 255)
    draw = ImageDraw.Draw(img)
    font = _font()
    y = MARGIN
    for line in lines:
        draw.text((MARGIN, y), line, fill=0, font=font)
        y += LINE
    if columns:
        y += LINE
        width = (PAGE[0] - 2 * MARGIN) // len(columns)
        for c, col in enumerate(columns):
            for r, line in enumerate(col):
                draw.text((MARGIN + c * width, y + r * LINE), line, fill=0, font=font)
    if skew:
        img = img.rotate(skew, resample=Image.Resampling.BICUBIC, fillcolor=255, expand=False)
    return img


def save_scan(path: Path, pages: list[Image.Image]) -> Path:
    pages[0].save(path, "PDF", resolution=DPI, save_all=True, append_images=pages[1:])
    return path
