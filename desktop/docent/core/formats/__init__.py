"""Documents other than PDFs and plain text: Word, PowerPoint, Excel, OpenDocument text,
EPUB and HTML, each read into citable units (``Page`` with a ``label``).

Each reader raises only ``DocumentError`` subclasses with a sentence naming the file;
heavy libraries are imported by the reader that needs them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from docent.core.models import ExtractedDocument

Reader = Callable[[Path], ExtractedDocument]


def _docx(path: Path) -> ExtractedDocument:
    from docent.core.formats.office import extract_docx

    return extract_docx(path)


def _pptx(path: Path) -> ExtractedDocument:
    from docent.core.formats.office import extract_pptx

    return extract_pptx(path)


def _xlsx(path: Path) -> ExtractedDocument:
    from docent.core.formats.sheets import extract_xlsx

    return extract_xlsx(path)


def _odt(path: Path) -> ExtractedDocument:
    from docent.core.formats.odf import extract_odt

    return extract_odt(path)


def _html(path: Path) -> ExtractedDocument:
    from docent.core.formats.markup import extract_html

    return extract_html(path)


def _epub(path: Path) -> ExtractedDocument:
    from docent.core.formats.markup import extract_epub

    return extract_epub(path)


READERS: dict[str, Reader] = {
    ".docx": _docx,
    ".pptx": _pptx,
    ".xlsx": _xlsx,
    ".xlsm": _xlsx,
    ".odt": _odt,
    ".epub": _epub,
    ".html": _html,
    ".htm": _html,
    ".xhtml": _html,
}
FORMAT_SUFFIXES = frozenset(READERS)
#: Zip containers: what they unzip to is capped (containers.py), not their own size.
CONTAINER_SUFFIXES = frozenset({".docx", ".pptx", ".xlsx", ".xlsm", ".odt", ".epub"})


def extract_format(path: Path) -> ExtractedDocument:
    """Read a document of one of ``FORMAT_SUFFIXES``."""
    return READERS[path.suffix.lower()](path)
