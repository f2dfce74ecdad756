"""Scanned PDFs made here: text drawn with PIL onto page images, saved as image-only PDFs
(no text layer), so a clone alone tests OCR."""

from __future__ import annotations

import zlib
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


def save_scan_over_garbage(path: Path, page: Image.Image, layer: str) -> Path:
    """One scanned page under an invisible text layer that reads as garbage: its font maps
    every character to the private-use area, as fonts without a Unicode map come out.
    Written by hand (PIL cannot add a text layer)."""
    w, h = page.size
    pw, ph = w * 72 / DPI, h * 72 / DPI
    text = layer.encode("latin-1").replace(b"(", b"\\(").replace(b")", b"\\)")
    content = b"q %.2f 0 0 %.2f 0 0 cm /Im1 Do Q BT 3 Tr /F1 12 Tf 72 %.2f Td (%s) Tj ET" % (
        pw,
        ph,
        ph - 72,
        text,
    )
    pixels = zlib.compress(page.convert("L").tobytes())
    cmap = (
        b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Garbage def "
        b"1 begincodespacerange <00> <FF> endcodespacerange "
        b"1 beginbfrange <20> <7E> <E020> endbfrange "
        b"endcmap CMapName currentdict /CMap defineresource pop end end"
    )
    resources = b"<< /XObject << /Im1 5 0 R >> /Font << /F1 6 0 R >> >>"
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %.2f %.2f] /Contents 4 0 R /Resources %s >>"
        % (pw, ph, resources),
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
        b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
        b"/BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream"
        % (w, h, len(pixels), pixels),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 7 0 R >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(cmap), cmap),
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, obj in enumerate(objs, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (i, obj)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    path.write_bytes(bytes(out))
    return path


def save_scan_with_stamp(path: Path, page: Image.Image, stamp: str) -> Path:
    """One scanned page with a small visible line of real text on it, as a phone scanner
    app ("Scanned with CamScanner") or a fax header leaves one."""
    import pdf_files

    w, h = page.size
    pw, ph = w * 72 / DPI, h * 72 / DPI
    pixels = zlib.compress(page.convert("L").tobytes())
    content = b"q %.2f 0 0 %.2f 0 0 cm /Im1 Do Q BT /F1 9 Tf 400 20 Td (%s) Tj ET" % (
        pw,
        ph,
        stamp.encode("latin-1"),
    )
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [5 0 R] /Count 1 >>",
        pdf_files.FONT,
        b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
        b"/BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream"
        % (w, h, len(pixels), pixels),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %.2f %.2f] /Contents 6 0 R "
        b"/Resources << /Font << /F1 3 0 R >> /XObject << /Im1 4 0 R >> >> >>" % (pw, ph),
        pdf_files.stream(content),
    ]
    path.write_bytes(pdf_files.pdf(objs))
    return path


def save_dot_pages(path: Path, pages: int) -> Path:
    """Pages with no text whose only image is one 1x1 pixel (a tracking pixel, a spacer)."""
    import pdf_files

    dot = zlib.compress(b"\x00")
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"",
        pdf_files.stream(
            dot,
            b"/Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray "
            b"/BitsPerComponent 8 /Filter /FlateDecode ",
        ),
        pdf_files.stream(b"q 2 0 0 2 300 400 cm /Im1 Do Q"),
    ]
    kids = list(range(5, 5 + pages))
    objs += [
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /XObject << /Im1 3 0 R >> >> >>"
    ] * pages
    objs[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % k for k in kids),
        pages,
    )
    path.write_bytes(pdf_files.pdf(objs))
    return path
