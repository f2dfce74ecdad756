"""Hostile files, made by the tests themselves (a clone alone can run every case)."""

from __future__ import annotations

import os
import zlib
from pathlib import Path

from pdf_files import FONT, pdf
from pdf_files import stream as _stream


def _one_page(contents: bytes) -> list[bytes]:
    return [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        contents,
        FONT,
    ]


def text_pdf(words: str) -> bytes:
    """A one-page PDF whose text layer reads ``words`` (ASCII, no parentheses)."""
    return pdf(_one_page(_stream(b"BT /F1 12 Tf 72 720 Td (%s) Tj ET" % words.encode())))


def self_referencing_pdf() -> bytes:
    """The page's /Contents is object 4, and object 4 is ``4 0 R``: pdfminer's resolve1
    follows it forever (the 548-byte file of issue 13)."""
    return pdf(_one_page(b"4 0 R"))


def deflate_bomb_pdf(inflated_mb: int) -> bytes:
    """A page whose content stream is a few words and then ``inflated_mb`` MB of spaces,
    deflated (~1 KB per MB)."""
    z = zlib.compressobj(9)
    data = z.compress(b"BT /F1 12 Tf 72 720 Td (A bomb) Tj ET\n")
    block = b" " * (1 << 20)
    for _ in range(inflated_mb):
        data += z.compress(block)
    data += z.flush()
    return pdf(_one_page(_stream(data, b"/Filter /FlateDecode ")))


def odd_names(folder: Path) -> dict[str, Path]:
    """Files whose names are not UTF-8, hold a newline, or a terminal escape code."""
    made = {
        "not_utf8": os.fsencode(folder) + b"/caf\xe9-\xff.txt",
        "newline": os.fsencode(folder) + b"/two\nlines.txt",
        "escape": os.fsencode(folder) + b"/red\x1b[31mtext\x1b[0m.txt",
    }
    out = {}
    for key, raw in made.items():
        with open(raw, "wb") as fh:
            fh.write(f"The {key} file talks about zebu herding in the Andes.\n".encode())
        out[key] = Path(os.fsdecode(raw))
    return out


#: Three one-line texts (the library conftest's ``indexed_library`` holds).
TEXTS = {
    "llamas.txt": "Llamas hum when they are curious and spit when they are annoyed.",
    "kelp.txt": "Kelp forests shelter sea otters, which wrap themselves in the fronds.",
    "bells.txt": "Bronze bells are tuned by shaving metal from the inside of the lip.",
}


def write_texts(folder: Path) -> None:
    for name, text in TEXTS.items():
        (folder / name).write_text(text + "\n")
