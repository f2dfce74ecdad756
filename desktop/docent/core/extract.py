"""Turn a file on disk into pages of text, or a typed error a user can act on.

PDFs are read one physical page at a time by pdfium, and the pages it reads poorly by
pdfplumber too (pdf_text.py says why); each page is closed after use (with pdfplumber,
1,000 pages take 53 MB that way and 6.5 GB without). Text files are cut into fixed
blocks of ``TEXT_LINES_PER_PAGE`` lines so that citations still point somewhere.

``extract`` raises only ``DocumentError`` subclasses. It keeps no global state and returns
plain dataclasses, so it can run in a worker process.
"""

from __future__ import annotations

import codecs
import io
import logging
import re
import stat
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING

from docent.core import gaps, normal_form
from docent.core.errors import (
    DamagedDocument,
    DocumentError,
    EmptyDocument,
    EncryptedDocument,
    FileVanished,
    NoTextLayer,
    UnreadableFile,
    UnsupportedType,
)
from docent.core.formats import FORMAT_SUFFIXES, extract_format
from docent.core.models import ExtractedDocument, Page
from docent.core.ocr_pdf import OcrCallback
from docent.core.pdf_text import (
    PdfiumRefused,
    better_text,
    is_weak,
    open_pdfium,
    pdfium_page_text,
    readable_chars,
)
from docent.core.userfiles import NotRegularFile, open_regular, shown

if TYPE_CHECKING:
    import pypdfium2
    from pdfplumber.pdf import PDF

log = logging.getLogger(__name__)

PDF_SUFFIXES = frozenset({".pdf"})
TEXT_SUFFIXES = frozenset(
    {".txt", ".md", ".markdown", ".rst", ".csv", ".tsv", ".json", ".log"}
    | {".py", ".js", ".ts", ".tsx", ".jsx", ".java", ".c", ".h", ".cpp", ".hpp", ".cc"}
    | {".go", ".rs", ".rb", ".php", ".sh", ".sql", ".yaml", ".yml", ".toml", ".ini", ".cfg"}
    | {".css", ".xml", ".tex", ".r", ".kt", ".swift", ".scala", ".lua", ".pl"}
)
SUPPORTED_SUFFIXES: frozenset[str] = PDF_SUFFIXES | TEXT_SUFFIXES | FORMAT_SUFFIXES
#: What Docent reads, in words: every message naming an unsupported file says it so.
READABLE_KINDS = (
    "PDFs, Word, PowerPoint, Excel, OpenDocument text, EPUB, HTML and plain-text files "
    "(text, Markdown, CSV, JSON, source code)"
)

TEXT_LINES_PER_PAGE = 60
#: Text files of rows and columns: read as a sheet's rows when they parse as a table.
TABLE_SUFFIXES = frozenset({".csv", ".tsv"})
#: Rows a table file must have, most of them of the same two or more cells, to be read
#: as one (a one-column list, a note saved as .csv, stays text).
_MIN_TABLE_ROWS = 2
#: How much of a text file is looked at for NUL bytes to call it binary.
BINARY_SNIFF_BYTES = 8192

# Word gaps in TeX PDFs are narrower than pdfplumber's default 3 pt tolerance, which
# glues words ("Permissionisgrantedtocopy"). A tolerance proportional to the glyph size
# separates them; on the corpus a fixed x_tolerance=1 also does, but it splits URLs,
# "f(x;" and "here." at kerned punctuation, which the ratio keeps whole.
_EXTRACT_OPTIONS: dict[str, float] = {"x_tolerance_ratio": 0.15}

#: Below this many non-space characters in the whole PDF, it is a scan.
MIN_DOCUMENT_CHARS = 20
#: Below this mean per page, every page has next to no text: a scan.
MIN_MEAN_PAGE_CHARS = 5
#: When at least half the pages are empty, a mean below this is a scan with stray OCR.
MIN_MEAN_CHARS_WHEN_MOSTLY_EMPTY = 25

_CID = re.compile(r"\(cid:\d+\)")
#: Dot leaders of a table of contents (". . . . . 42"): a token each for the model.
_LEADER = re.compile(r"(?: ?\.){4,}")
#: Rules drawn with characters ("/* ====...=== */"): one token per character, no meaning.
_RULE = re.compile(r"([-=_*~#+])\1{5,}")
_SPACES = re.compile(r"[ \t\f\v\u00a0\u2000-\u200a\u202f\u3000]+")
#: Control characters (C0 but tab and line breaks, DEL, C1: they drive terminals) and lone
#: surrogates (which no store accepts).
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
_BLANK_LINES = re.compile(r"\n{3,}")
_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
#: Unicode categories that text has next to none of: unassigned, private use, controls.
_NOT_TEXT = frozenset({"Cn", "Co", "Cc", "Cs"})
#: A UTF-16 file with more of those than this share of its characters is binary.
MAX_ODD_SHARE = 0.02


def is_supported(path: str | Path) -> bool:
    """True when the file name ends with a suffix Docent can read."""
    return Path(path).suffix.lower() in SUPPORTED_SUFFIXES


#: ``on_page(n)``: page ``n`` (from 1; 0: the document's structure) is about to be read;
#: the extraction worker times each page from there (see preparing.py).
PageCallback = Callable[[int], None]


def _no_page(number: int) -> None:
    return None


def _no_ocr_progress(number: int, done: int, total: int) -> None:
    return None


def extract(
    path: str | Path,
    password: str | None = None,
    *,
    ocr: bool = True,
    on_ocr: OcrCallback = _no_ocr_progress,
    on_page: PageCallback = _no_page,
    pdfium: bool = True,
) -> ExtractedDocument:
    """Read ``path`` into pages of text.

    ``ocr``: read PDF pages without a usable text layer from their image (ocr_pdf.py),
    announcing each through ``on_ocr``; ``on_page`` announces each page read.
    ``pdfium`` False: read a PDF with pdfplumber alone (pdfium crashed on it).
    Every page's text comes composed (NFC, normal_form.py).
    Raises only ``DocumentError`` subclasses, each with a sentence naming the file (and
    ``MemoryError``, which the worker turns into one).
    """
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix in SUPPORTED_SUFFIXES and _zero_bytes(p):
        # any format: "damaged or not really a PDF" would send the user looking for a fault
        raise EmptyDocument(
            str(p),
            f"{shown(p.name)} is empty (0 bytes): there is nothing to read. A file still "
            "being copied or downloaded looks like this: index it again once it is whole (a "
            "watched folder does so by itself).",
        )
    if suffix in PDF_SUFFIXES:
        return normal_form.document(_extract_pdf(p, password, ocr, on_ocr, on_page, pdfium))
    if suffix in FORMAT_SUFFIXES:
        return normal_form.document(extract_format(p))
    if suffix in TABLE_SUFFIXES:
        return normal_form.document(_extract_table(p))
    if suffix in TEXT_SUFFIXES:
        return normal_form.document(_extract_text(p))
    raise UnsupportedType(str(p), unsupported_message(p))


def _zero_bytes(path: Path) -> bool:
    """A regular file of no bytes (a folder, a missing file: no; the readers say why)."""
    try:
        st = path.stat()
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_size == 0


def unsupported_message(path: str | Path) -> str:
    p = Path(path)
    kind = f"'{shown(p.suffix)}' files" if p.suffix else "files without an extension"
    return f"{shown(p.name)}: Docent cannot read {kind}; it reads {READABLE_KINDS}."


def iter_pdf_pages(path: str | Path, password: str | None = None) -> Iterator[Page]:
    """Yield each physical page of a PDF, numbered from 1, as soon as it is read.

    Errors opening the file are raised at the first ``next()``. A page that fails on its
    own is logged and yielded empty, so one bad page does not lose the document.
    """
    yield from _read_pdf_pages(Path(path), password, _no_page, True)


def _read_pdf_pages(
    p: Path, password: str | None, on_page: PageCallback, pdfium: bool
) -> Iterator[Page]:
    """pdfium reads every page; pdfplumber re-reads the weak ones (pdf_text.py), or the
    whole file when pdfium refuses it (or crashed on it: ``pdfium`` False). A page
    neither could read is empty, and says so (``Page.unread``)."""
    on_page(0)
    with _open_binary(p) as fh:
        pdf = _open_pdfium(p, fh, password) if pdfium else None
        if pdf is None:
            fh.seek(0)
            for number, (raw, ok) in _plumber_pages(p, fh, password, on_page, None):
                yield _pdf_page(number, raw, ok)
            return
        try:
            read = [_pdfium_page(p, pdf, number, on_page) for number in range(1, len(pdf) + 1)]
        finally:
            pdf.close()
        weak = {number for number, (raw, _ok) in enumerate(read, start=1) if is_weak(raw)}
        second: dict[int, tuple[str, bool]] = {}
        if weak:
            fh.seek(0)
            try:
                second = dict(_plumber_pages(p, fh, password, on_page, weak))
            except DocumentError as exc:  # pdfium's reading stands
                log.info("%s: pdfplumber cannot reread its weak pages (%s)", p, exc)
        for number, (raw, ok) in enumerate(read, start=1):
            raw2, ok2 = second.get(number, ("", False))
            text = better_text(raw, raw2) if ok2 else raw
            yield _pdf_page(number, text, ok or ok2)


def _pdf_page(number: int, raw: str, read: bool) -> Page:
    return Page(number=number, text=clean_pdf_text(raw), unread="" if read else gaps.UNREADABLE)


def _open_pdfium(p: Path, fh: IO[bytes], password: str | None) -> pypdfium2.PdfDocument | None:
    """The document, or None when pdfium refuses it or finds no page (pdfminer repairs
    some of those)."""
    try:
        pdf = open_pdfium(fh, password)
    except PdfiumRefused as exc:  # pdfminer, reading /Encrypt itself, says if it is locked
        log.info("%s: pdfium cannot open it (%s); trying pdfplumber", p, exc)
        return None
    if len(pdf) == 0:  # a page tree pdfium cannot follow: pdfminer may
        pdf.close()
        return None
    return pdf


def _pdfium_page(
    p: Path, pdf: pypdfium2.PdfDocument, number: int, on_page: PageCallback
) -> tuple[str, bool]:
    on_page(number)
    try:
        return pdfium_page_text(pdf, number - 1), True
    except MemoryError:
        raise  # not this page's fault alone: the worker reports the whole file
    except Exception as exc:  # one bad page must not fail the whole document
        log.warning("%s: page %d could not be read (%r); left empty", p, number, exc)
        return "", False


def _plumber_pages(
    p: Path, fh: IO[bytes], password: str | None, on_page: PageCallback, only: set[int] | None
) -> Iterator[tuple[int, tuple[str, bool]]]:
    """(number, (raw text, read)) of each page of ``only`` (None: every page), by pdfplumber."""
    with _open_pdf(p, fh, password) as pdf:
        try:
            pages = pdf.pages
        except Exception as exc:  # pdfminer raises many types on a broken page tree
            raise _damaged(p, exc) from exc
        for number, page in enumerate(pages, start=1):
            if only is not None and number not in only:
                page.close()
                continue
            on_page(number)
            try:
                raw, ok = page.extract_text(**_EXTRACT_OPTIONS), True
            except MemoryError:
                raise
            except Exception as exc:
                log.warning("%s: page %d could not be read (%r); left empty", p, number, exc)
                raw, ok = "", False
            finally:
                page.close()
            yield number, (raw, ok)


def clean_pdf_text(text: str) -> str:
    """Drop glyph codes, shorten dot leaders and rules, collapse spaces; keep line breaks."""
    text = _RULE.sub(r"\1\1\1", _LEADER.sub(" … ", _CID.sub("", text)))
    text = _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    text = _SPACES.sub(" ", text)
    lines = (line.strip() for line in text.split("\n"))
    return _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()


def _extract_pdf(
    path: Path,
    password: str | None,
    ocr: bool,
    on_ocr: OcrCallback,
    on_page: PageCallback,
    pdfium: bool,
) -> ExtractedDocument:
    pages = list(_read_pdf_pages(path, password, on_page, pdfium))
    if not pages:
        if _cut_short(path):  # no page read of a file that ends before its end (QA-78)
            raise DamagedDocument(
                str(path),
                f"{shown(path.name)} is cut short (it stops before a PDF's end: an "
                "interrupted download or copy?); Docent cannot read it. Download or copy it "
                "again.",
            )
        raise EmptyDocument(str(path), f"{shown(path.name)} has no pages.")
    if all(page.unread for page in pages):
        raise _damaged(path, RuntimeError(f"none of its {len(pages)} pages could be read"))
    if ocr:
        from docent.core.ocr_pdf import ocr_pages

        pages = ocr_pages(path, password, pages, on_ocr, clean=clean_pdf_text)
    elif pdfium:  # its scanned pages, said unread (turning OCR on reads the file again);
        # not in the careful read of a PDF pdfium crashed on (review 83)
        from docent.core.ocr_pdf import not_ocred

        pages = not_ocred(path, password, pages)
    # a text layer of glyphs with no Unicode meaning is no text layer (OCR off: say so)
    readable = [round(readable_chars(pg.text)) for pg in pages]
    # OCR on and no page needed it: no scan hides behind a short text layer ("Invoice 4471
    # paid" was called a scan with no text; review)
    words = [w for w in _WORDS.findall(" ".join(pg.text for pg in pages)) if w != "cid"]
    short_but_real = ocr and len(words) >= 2 and not any(pg.ocr for pg in pages)
    if _looks_scanned(readable) and not short_but_real:
        if any(pg.ocr for pg in pages):
            raise EmptyDocument(
                str(path), f"{shown(path.name)} is a scan in which OCR found no text to read."
            )
        if ocr:
            raise EmptyDocument(
                str(path), f"{shown(path.name)} has no text: no text layer and no scanned pages."
            )
        raise NoTextLayer(
            str(path),
            f"{shown(path.name)} has no text layer (a scan?) and OCR is off; turn on "
            f"{gaps.OCR_SETTING}, to read it.",
        )
    return ExtractedDocument(
        path=str(path),
        kind="pdf",
        pages=pages,
        page_unit="page",
        ocr_checked=ocr,
        gaps=gaps.note(pages),
        scans_unread=sum(1 for page in pages if page.unread == gaps.NOT_OCRED),
    )


#: Words of a short text layer worth indexing (a folio such as "p.3" is none, nor the
#: "(cid:12)" glyph codes of a font without a Unicode map).
_WORDS = re.compile(r"[^\W\d_]{2,}")


def _looks_scanned(chars_per_page: list[int]) -> bool:
    total = sum(chars_per_page)
    n = len(chars_per_page)
    if total < MIN_DOCUMENT_CHARS or total < MIN_MEAN_PAGE_CHARS * n:
        return True
    # Image pages with an OCR'd chart label here and there (ocrmypdf's multipage.pdf:
    # 77 characters over 6 pages, 5 of them empty) are still scans; a document that is
    # half scans but has real text pages keeps what it has.
    empty = sum(1 for c in chars_per_page if c == 0)
    return 2 * empty >= n and total < MIN_MEAN_CHARS_WHEN_MOSTLY_EMPTY * n


def _open_binary(path: Path) -> IO[bytes]:
    try:
        return open_regular(path)
    except OSError as exc:
        raise _os_error(path, exc) from exc


def _open_pdf(path: Path, fh: IO[bytes], password: str | None) -> PDF:
    import pdfplumber  # heavy: imported only when a PDF is read
    from pdfminer.pdfdocument import PDFEncryptionError
    from pdfplumber.utils.exceptions import PdfminerException

    try:
        return pdfplumber.open(fh, password=password or "")  # type: ignore[arg-type]
    except PdfminerException as exc:
        cause = exc.args[0] if exc.args else exc
        if isinstance(cause, PDFEncryptionError):
            raise _encrypted(path, password) from exc
        raise _damaged(path, exc) from exc
    except PDFEncryptionError as exc:
        raise _encrypted(path, password) from exc
    except OSError as exc:
        raise _os_error(path, exc) from exc
    except Exception as exc:  # pdfminer raises many types on garbage input
        raise _damaged(path, exc) from exc


def _encrypted(path: Path, password: str | None) -> EncryptedDocument:
    if password:
        msg = f"{shown(path.name)} is password-protected and the password given was not accepted."
    else:
        msg = (
            f"{shown(path.name)} is password-protected; Docent cannot open encrypted PDFs "
            "yet. Save a copy without the password (your PDF viewer's Print → Save as PDF, "
            "or `qpdf --decrypt`) and add that."
        )
    return EncryptedDocument(str(path), msg)


def _cut_short(path: Path) -> bool:
    """Whether the PDF lacks the ``%%EOF`` that ends every complete one (in its last KiB:
    some writers add a few bytes after it)."""
    try:
        with path.open("rb") as fh:
            fh.seek(max(0, path.stat().st_size - 1024))
            return b"%%EOF" not in fh.read()
    except OSError:
        return False


def _damaged(path: Path, exc: BaseException) -> DamagedDocument:
    log.info("%s: cannot parse: %r", path, exc)
    return DamagedDocument(
        str(path),
        f"{shown(path.name)} is damaged or not really a PDF; Docent cannot read it. "
        "Try re-downloading it or re-saving it from another program.",
    )


def _os_error(path: Path, exc: OSError) -> DocumentError:
    if isinstance(exc, NotRegularFile) and exc.kind != "a folder":
        return UnsupportedType(str(path), f"{exc}; skipped.")
    if isinstance(exc, FileNotFoundError):
        return FileVanished(
            str(path), f"{shown(path.name)} is no longer there (moved or deleted?)."
        )
    if isinstance(exc, IsADirectoryError | NotRegularFile):
        return UnreadableFile(str(path), f"{shown(path.name)} is a folder, not a file.")
    if isinstance(exc, PermissionError):
        return UnreadableFile(
            str(path),
            f"{shown(path.name)} cannot be read: permission denied. Check its permissions.",
        )
    reason = exc.strerror or str(exc)
    return UnreadableFile(str(path), f"{shown(path.name)} cannot be read: {reason}.")


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _extract_table(path: Path) -> ExtractedDocument:
    """A CSV or TSV file as a sheet (``sheets.extract_rows``): each row's cells named by the
    header; as text when it does not parse as a table of two or more columns."""
    import csv
    from collections import Counter

    from docent.core.formats.sheets import extract_rows

    text = _read_text(path)
    try:
        if path.suffix.lower() == ".tsv":
            dialect: type[csv.Dialect] | csv.Dialect = csv.excel_tab
        else:
            dialect = csv.Sniffer().sniff(text[:65536], delimiters=",;\t|")
        rows = [
            [" ".join(c.split()) for c in row] for row in csv.reader(io.StringIO(text), dialect)
        ]
    except (csv.Error, ValueError):
        return _extract_text(path, text)
    widths = Counter(len(r) for r in rows if any(r))
    width, count = widths.most_common(1)[0] if widths else (0, 0)
    if width < 2 or count < _MIN_TABLE_ROWS or count < 0.8 * sum(widths.values()):
        return _extract_text(path, text)
    return extract_rows(path, rows)


def _read_text(path: Path) -> str:
    try:
        with open_regular(path) as fh:
            data = fh.read()
    except OSError as exc:
        raise _os_error(path, exc) from exc
    text = _decode(path, data)
    if not text.strip():
        raise EmptyDocument(str(path), f"{shown(path.name)} is empty: it contains no text.")
    return text


def _extract_text(path: Path, text: str | None = None) -> ExtractedDocument:
    """``text``: the file's, read already."""
    text = _read_text(path) if text is None else text
    # Lines end at a line break only, as an editor and ``grep -n`` count them: splitlines
    # also ends one at a form feed (an RFC's page break) and shifted every later citation.
    lines = [line.rstrip() for line in _LINE_BREAK.split(text)]
    if lines and not lines[-1]:
        lines.pop()  # the file's last line break ends a line, it does not begin one
    pages = [
        # Leading blank lines stay: a block's lines are counted from its first, so that
        # a passage's citation ("lines 61-120") names the lines of the file.
        Page(number=i // TEXT_LINES_PER_PAGE + 1, text="\n".join(block).rstrip("\n"))
        for i in range(0, len(lines), TEXT_LINES_PER_PAGE)
        for block in [lines[i : i + TEXT_LINES_PER_PAGE]]
    ]
    return ExtractedDocument(
        path=str(path), kind="text", pages=pages, page_unit=f"lines:{TEXT_LINES_PER_PAGE}"
    )


def _decode(path: Path, data: bytes) -> str:
    if data.startswith(_UTF16_BOMS):
        return _CONTROL.sub("", _decode_utf16(path, data))
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        raise _binary(path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = _not_utf8(data)
    return _CONTROL.sub("", text)


def _not_utf8(data: bytes) -> str:
    """Text that is not all UTF-8: UTF-8 with a few broken bytes (a file cut short) when
    most of its other characters are, else Windows-1252 (Latin-1 and its superset, what
    such a file from Windows almost always is): read as UTF-8, every "é" of a cp1252
    file became U+FFFD (review)."""
    utf8 = data.decode("utf-8", errors="replace")
    broken = utf8.count("\ufffd") - data.count("\ufffd".encode())  # not the file's own
    decoded = sum(1 for ch in utf8 if ord(ch) > 0x7F and ch != "\ufffd")
    if decoded > broken:
        return utf8
    return data.decode("cp1252", errors="replace")


def _binary(path: Path) -> UnsupportedType:
    return UnsupportedType(
        str(path), f"{shown(path.name)} looks like a binary file, not text; Docent cannot read it."
    )


def _decode_utf16(path: Path, data: bytes) -> str:
    """UTF-16 after its byte-order mark, unless the rest is not really UTF-16 text.

    Random bytes decode to a code point almost every time, so the BOM alone proves
    nothing: real text has no broken surrogate pairs and next to no unassigned or
    private-use characters (random pairs of bytes land there ~13 % of the time).
    """
    try:
        text = data.decode("utf-16")
    except UnicodeDecodeError:
        raise _binary(path) from None
    sample = text[:BINARY_SNIFF_BYTES]
    odd = sum(1 for ch in sample if unicodedata.category(ch) in _NOT_TEXT and ch not in "\n\r\t")
    if sample and odd > MAX_ODD_SHARE * len(sample):
        raise _binary(path)
    return text
