"""Opening the zip containers of DOCX, PPTX, XLSX, ODT and EPUB without trusting them.

- A password-protected Office file is not a zip at all: Office wraps it in an OLE
  compound file with an ``EncryptedPackage`` stream. Said so, instead of "damaged".
- A corrupt or truncated zip is damaged, said in the format's own words.
- What the parts would inflate to is read from the zip's directory before anything is
  inflated (zipfile never returns more than a member's declared size), and refused past
  ``MAX_UNZIPPED_MB``: a few kB can claim gigabytes of XML (or of a "picture").
- XML is parsed without entities, DTDs or network access (no billion laughs, no XXE).
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from itertools import takewhile
from pathlib import Path
from typing import IO, Any, TypeVar

from docent.core.errors import (
    DamagedDocument,
    DocumentError,
    EncryptedDocument,
    FileVanished,
    UnreadableFile,
    UnsupportedType,
)
from docent.core.userfiles import NotRegularFile, open_regular, shown

T = TypeVar("T")

#: Uncompressed size of a container's text parts (XML, HTML) Docent inflates at most.
MAX_UNZIPPED_MB = 256
#: Parts that are media, not text: their size does not count against MAX_UNZIPPED_MB.
_MEDIA = tuple(
    [
        ".png",
        ".jpg",
        ".jpeg",
        ".jpe",
        ".gif",
        ".bmp",
        ".tif",
        ".tiff",
        ".emf",
        ".wmf",
        ".svg",
        ".webp",
        ".jfif",
        ".wdp",
        ".jxr",
        ".heic",
        ".avif",
        ".emz",
        ".wmz",
        ".mp3",
        ".mp4",
        ".wav",
        ".m4a",
        ".avi",
        ".mov",
        ".m4v",
        ".wmv",
        ".mpg",
        ".mpeg",
        ".webm",
        ".wma",
        ".ogg",
        ".ttf",
        ".otf",
        ".woff",
        ".woff2",
        ".odttf",
        ".bin",
    ]
)
#: Media are stored compressed (JPEG, PNG, MP4) or compress a few times at most (BMP,
#: TIFF, EMF): a part inflating more than this many times its stored size is no picture.
MEDIA_RATIO = 20
#: Uncompressed pictures (a screenshot saved as BMP deflates ~60 times): a bomb of zeros
#: deflates ~1,000 times.
RAW_MEDIA = (".bmp", ".dib", ".tif", ".tiff", ".emf", ".wmf")
RAW_MEDIA_RATIO = 200
#: ... and one past this size counts whatever its ratio: 10 MB stored may claim 2 GB at
#: 200 times, which the readers would hold in memory (review s21); a 4K screenshot is 33 MB.
RAW_MEDIA_MB = 64
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
KIND_NAMES = {
    ".docx": "Word document",
    ".pptx": "PowerPoint presentation",
    ".xlsx": "Excel workbook",
    ".xlsm": "Excel workbook",
    ".odt": "OpenDocument text",
    ".epub": "EPUB book",
}


class TooBig(DocumentError):
    reason = "too_large"


def kind_name(path: Path) -> str:
    return KIND_NAMES.get(path.suffix.lower(), f"{path.suffix} file")


def open_container(path: Path) -> IO[bytes]:
    """The container opened once and checked (a DocumentError says what is wrong with it),
    at its start. Read through this handle, what was checked is what is parsed: a file
    put in its place meanwhile (a FIFO, which would block, or another file) is never
    opened by name again."""
    fh = open_file(path)
    try:
        try:
            head = fh.read(len(OLE_MAGIC))
        except OSError as exc:
            raise unreadable(path, exc) from exc
        if head == OLE_MAGIC:
            raise _ole(path, fh)
        fh.seek(0)
        try:
            zf = zipfile.ZipFile(fh)  # a handle passed in: closing zf leaves it open
        except (zipfile.BadZipFile, ValueError, EOFError, OSError) as exc:
            raise damaged(path, f"its zip container is corrupt ({exc})") from exc
        with zf:
            check_sizes(path, zf)
        fh.seek(0)
    except BaseException:
        fh.close()
        raise
    return fh


@contextmanager
def open_zip(path: Path) -> Iterator[zipfile.ZipFile]:
    """The container, checked (:func:`open_container`), as a zip read through its handle."""
    with open_container(path) as fh, zipfile.ZipFile(fh) as zf:
        yield zf


def open_file(path: Path) -> IO[bytes]:
    """``path`` opened if it is a regular file, or a DocumentError saying why not: opened
    as it was (``Path.open``), a FIFO named ``x.html`` waited for a writer for good."""
    try:
        return open_regular(path)
    except NotRegularFile as exc:
        if exc.kind == "a folder":
            raise UnreadableFile(str(path), f"{shown(path.name)} is a folder, not a file.") from exc
        raise UnsupportedType(str(path), f"{exc}; skipped.") from exc
    except FileNotFoundError as exc:
        raise FileVanished(
            str(path), f"{shown(path.name)} is no longer there (moved or deleted?)."
        ) from exc
    except OSError as exc:
        raise unreadable(path, exc) from exc


def unreadable(path: Path, exc: OSError) -> UnreadableFile:
    """``path`` could not be read (``exc``), said with the system's reason."""
    reason = exc.strerror or str(exc)
    return UnreadableFile(str(path), f"{shown(path.name)} cannot be read: {reason}.")


def check_sizes(path: Path, zf: zipfile.ZipFile) -> None:
    total = sum(i.file_size for i in zf.infolist() if _counted(i))
    if total > MAX_UNZIPPED_MB << 20:
        raise TooBig(
            str(path),
            f"{shown(path.name)} would unpack to {total >> 20:,} MB, more than the "
            f"{MAX_UNZIPPED_MB} MB Docent reads from one {kind_name(path)} (its text, markup "
            "and any part inflating like a zip bomb).",
        )


def _counted(info: zipfile.ZipInfo) -> bool:
    """Text and markup count against MAX_UNZIPPED_MB, and so does a "picture" inflating
    more than MEDIA_RATIO times: the readers load every part the document links to, and
    a few kB named bomb.png inflated to gigabytes unchecked (review)."""
    name = info.filename.lower()
    if not name.endswith(_MEDIA):
        return True
    if name.endswith(RAW_MEDIA):
        if info.file_size > RAW_MEDIA_MB << 20:
            return True
        return info.file_size > RAW_MEDIA_RATIO * max(info.compress_size, 1 << 10)
    return info.file_size > MEDIA_RATIO * max(info.compress_size, 1 << 10)


def _ole(path: Path, fh: IO[bytes]) -> DocumentError:
    """An OLE compound file where a zip was expected (``fh``, the file as opened and
    checked): encrypted, or an old binary file."""
    try:
        fh.seek(0)
        data = fh.read(1 << 20)
    except OSError:
        data = b""
    if "EncryptedPackage".encode("utf-16-le") in data or b"E\x00n\x00c\x00r\x00y" in data:
        return EncryptedDocument(
            str(path),
            f"{shown(path.name)} is password-protected; Docent cannot open encrypted Office files. "
            "Save a copy without a password (File ▸ Info ▸ Protect) and add that.",
        )
    return damaged(
        path,
        "it is an old binary Office file (.doc/.xls/.ppt) with a new name, not a zip "
        "container; save it in the new format",
    )


def damaged(path: Path, why: str) -> DamagedDocument:
    return DamagedDocument(
        str(path),
        f"{shown(path.name)} is not a readable {kind_name(path)}: {why}. "
        "Try re-saving it from the program that made it.",
    )


def read_member(path: Path, zf: zipfile.ZipFile, name: str) -> bytes:
    try:
        with zf.open(name) as fh:
            return fh.read()
    except KeyError as exc:
        raise damaged(path, f"it has no {name}") from exc
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        raise damaged(path, f"{name} is corrupt ({exc})") from exc


def leading(items: Iterable[T], test: Callable[[T], bool]) -> int:
    """How many of ``items``, from the first, pass ``test`` (a table's marked header rows)."""
    return sum(1 for _ in takewhile(test, items))


def own_rows(tbl: Any, row: str, table: str) -> Iterator[Any]:
    """The rows (``row`` tags) of the table element ``tbl``, not those of a table
    (``table`` tags) nested in its cells: they belong to that cell, read in its text."""
    for el in tbl.iter(row):
        if next(el.iterancestors(table), None) is tbl:
            yield el


def xml_parser() -> Any:
    from lxml import etree

    return etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False, recover=False
    )


def parse_xml(path: Path, data: bytes | IO[bytes], what: str) -> Any:
    from lxml import etree

    try:
        if isinstance(data, bytes):
            return etree.fromstring(data, xml_parser())
        return etree.parse(data, xml_parser()).getroot()
    except etree.XMLSyntaxError as exc:
        raise damaged(path, f"its {what} is not well-formed XML ({exc})") from exc
