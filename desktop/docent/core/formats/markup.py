"""HTML pages and EPUB books (lxml's HTML parser; no browser engine).

Only text is taken: scripts, styles, embedded objects, frames and forms' hidden parts are
dropped unread, nothing is fetched (no images, no stylesheets, no entities), and nothing
is ever rendered as HTML later (the text view shows plain text).

An EPUB is a zip with a package document (OPF) whose *spine* lists the chapters in
reading order; each is an XHTML file read like an HTML page. Units are the chapters'
sections ("ch. 3 › The Return"). Without a spine there is no reading order to follow,
and the book is refused with that reason. DRM-encrypted books are refused as such.
"""

from __future__ import annotations

import codecs
import posixpath
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from docent.core.errors import EmptyDocument, EncryptedDocument
from docent.core.formats.blocks import (
    MAX_COLUMNS,
    SPANNED,
    Block,
    Heading,
    Para,
    clean,
    paginate,
    table,
    to_pages,
)
from docent.core.formats.containers import (
    damaged,
    leading,
    open_file,
    open_zip,
    own_rows,
    parse_xml,
    read_member,
    unreadable,
)
from docent.core.models import ExtractedDocument
from docent.core.userfiles import shown

#: Elements whose content is never text for a reader.
DROP = frozenset(
    {"script", "style", "noscript", "template", "iframe", "frame", "frameset", "object"}
    | {"embed", "applet", "svg", "math", "canvas", "head", "select", "button", "map"}
)
#: Elements that end the text before them (and their own text) as a paragraph.
BLOCK = frozenset(
    {"p", "div", "li", "dd", "dt", "blockquote", "pre", "section", "article", "header"}
    | {"footer", "main", "aside", "figure", "figcaption", "address", "ul", "ol", "dl"}
    | {"nav", "body", "html", "hr", "br", "form", "fieldset", "legend", "details"}
    | {"summary", "caption", "center"}
)
HEADINGS = {f"h{i}": i for i in range(1, 7)}
#: The most columns and rows one table cell spans, as browsers cap them.
MAX_COLSPAN, MAX_ROWSPAN = 1000, 65534
_OPF_NS = {"opf": "http://www.idpf.org/2007/opf"}
_CONTAINER_NS = {"c": "urn:oasis:names:tc:opendocument:xmlns:container"}


#: How deep libxml2 nests elements with ``huge_tree`` (256 without: sloppy pages with a few
#: hundred unclosed ``<span>`` lost the rest of their text, review).
MAX_DEPTH = 2048
_XML_DECLARATION = re.compile(rb"^\s*<\?xml[^>]*?encoding\s*=\s*[\"']([A-Za-z0-9._-]+)")
_BOMS = (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
#: A page's declaration of its encoding: a meta tag's ``charset`` (HTML5's, or in the
#: ``content`` of an ``http-equiv`` one), looked for in the page's first HEAD_BYTES.
_META_CHARSET = re.compile(rb"<meta\b[^>]*?charset\s*=\s*[\"']?\s*([A-Za-z0-9._:-]+)", re.I)
HEAD_BYTES = 1 << 20
#: Read as Windows-1252, as browsers read them: its superset (what 0x80-0x9f mean there).
_AS_WINDOWS_1252 = frozenset({"latin-1", "iso8859-1", "ascii"})
#: The other labels browsers read as a superset (the WHATWG Encoding Standard's table), by
#: Python's name for them: strict GB2312 or Shift_JIS lost the Windows characters pages use
#: ('朱�F基'), and a page saying utf-16 in its meta tag is ASCII-compatible, so not UTF-16
#: (it came out as CJK; review s21).
_AS_BROWSERS_READ = {
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "shift_jis": "cp932",
    "euc_kr": "cp949",
    "iso8859-9": "cp1254",
    "tis-620": "cp874",
    "iso8859-11": "cp874",
    "big5": "big5hkscs",
    "utf-16": "utf-8",
    "utf-16-le": "utf-8",
    "utf-16-be": "utf-8",
}


def parse_html(path: Path, data: bytes, *, xhtml: bool = False) -> Any:
    """The page's element tree, or None when lxml finds none. ``xhtml``: an EPUB chapter,
    XML, so UTF-8 unless its declaration says otherwise. Raises DamagedDocument for a
    page nested deeper than MAX_DEPTH (what lies past it would be lost unsaid)."""
    import lxml.html
    from lxml import etree

    encoding = _encoding(data, xhtml)
    if encoding not in (None, "utf-8"):
        # decoded here: libxml2 knows another set of names, and told UTF-8 it reads it
        data, encoding = data.decode(encoding, errors="replace").encode("utf-8"), "utf-8"
    parser = lxml.html.HTMLParser(
        remove_comments=True,
        remove_pis=True,
        no_network=True,
        recover=True,
        huge_tree=True,
        encoding=encoding,
    )
    try:
        root = lxml.html.document_fromstring(data, parser=parser)
    except (etree.ParserError, ValueError):
        return None
    if any("Excessive depth" in e.message for e in parser.error_log):
        raise damaged(path, f"its elements are nested more than {MAX_DEPTH:,} deep")
    return root


def _encoding(data: bytes, xhtml: bool) -> str | None:
    """The encoding to read ``data`` in; None: lxml's own guess (a byte-order mark).
    An EPUB chapter is XML: its declaration's, else UTF-8. A page: its meta tag's (where
    its head puts it: lxml looks in the first 2 kB only; and "charset" in a script's
    attribute is no declaration), an XHTML page's declaration's, else UTF-8 when it reads
    as UTF-8 and Windows-1252 when not. Left to libxml2, a page without a declaration was
    read as Latin-1: "Crème brûlée" came out as "CrÃ¨me brÃ»lÃ©e" (review)."""
    if data.startswith(_BOMS):
        return None
    declared = _XML_DECLARATION.match(data)
    if not xhtml:
        declared = _META_CHARSET.search(data[:HEAD_BYTES]) or declared
    if declared or xhtml:
        try:
            name = codecs.lookup(declared.group(1).decode("ascii") if declared else "utf-8").name
        except LookupError:
            name = ""
        if name:
            if name in _AS_WINDOWS_1252:
                return "windows-1252"
            return name if xhtml else _AS_BROWSERS_READ.get(name, name)
        if xhtml:
            return "utf-8"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return "windows-1252"
    return "utf-8"


def html_blocks(root: Any) -> list[Block]:
    """Headings, paragraphs and tables in document order (walked without recursion: a page
    may nest MAX_DEPTH elements, past Python's recursion limit)."""
    out: list[Block] = []
    buf: list[str] = []

    def flush() -> None:
        text = clean("".join(buf))
        buf.clear()
        if text:
            out.append(Para(text))

    def enter(el: Any) -> bool:
        """Reads ``el`` if it is read whole; True when its children are to be walked."""
        tag = el.tag.lower() if isinstance(el.tag, str) else ""
        if tag in DROP or not tag:
            return False
        if tag in HEADINGS:
            flush()
            text = " ".join(el.text_content().split())
            if text:
                out.append(Heading(HEADINGS[tag], text))
            return False
        if tag == "table":
            flush()
            t = table(_html_rows(el), header_rows=_marked_rows(el))
            if t is not None:
                out.append(t)
            return False
        if tag == "pre":
            flush()
            text = el.text_content().strip("\n")
            if text.strip():
                out.append(Para(text))
            return False
        if tag in BLOCK:
            flush()
        if el.text:
            buf.append(el.text)
        return True

    def leave(el: Any) -> None:
        tag = el.tag.lower()
        if tag == "br":
            buf.append("\n")
        if tag in BLOCK:
            flush()

    # (element, False): enter it; (element, True): leave it, then its tail follows
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        el, leaving = stack.pop()
        if leaving:
            leave(el)
        elif enter(el):
            stack.append((el, True))
            stack.extend((child, False) for child in reversed(el))
            continue
        if el is not root and el.tail:  # the text after an element, once it is read
            buf.append(el.tail)
    flush()
    return out


def _html_rows(tbl: Any) -> Iterator[list[str]]:
    """Each row's cells by column, so the cells after a spanning one stay under their own
    header (they were shifted left; review): a cell spanning columns (``colspan``) has its
    text once and its other columns SPANNED; one spanning rows (``rowspan``) is said again
    in each row it takes (s21)."""
    # column: (for how many rows, this one on, a cell above takes it; what it says there)
    taken: dict[int, tuple[int, str]] = {}

    def from_above(row: list[str]) -> None:
        """The columns a cell above spans down into, from the row's end on."""
        while len(row) < MAX_COLUMNS and taken.get(len(row), (0, ""))[0] > 0:
            row.append(taken[len(row)][1])

    for tr in own_rows(tbl, "tr", "table"):
        row: list[str] = []
        for c in tr:
            if c.tag not in ("td", "th") or len(row) >= MAX_COLUMNS:
                continue
            from_above(row)
            rows = _span(c.get("rowspan"), MAX_ROWSPAN)
            text = " ".join(_cell_text(c).split())
            for k in range(min(_span(c.get("colspan"), MAX_COLSPAN), MAX_COLUMNS - len(row))):
                if rows > 1:
                    taken[len(row)] = (rows, SPANNED if k else text)
                row.append(SPANNED if k else text)
        from_above(row)  # at the row's end too
        taken = {col: (n - 1, t) for col, (n, t) in taken.items() if n > 1}
        yield row


def _marked_rows(tbl: Any) -> int:
    """How many of the table's first rows are marked as its header: in ``<thead>``, or all
    ``<th>`` (an empty corner ``<td>`` over a column of row names aside). A title written
    in one ``<td>`` across the table counts with the marked header under it."""
    rows = list(own_rows(tbl, "tr", "table"))
    count = leading(rows, _is_marked)
    if count == 0 and len(rows) > 1 and _is_title_row(rows[0]) and _is_marked(rows[1]):
        count = 1 + leading(rows[1:], _is_marked)
    return count


def _is_marked(tr: Any) -> bool:
    cells = [c for c in tr if c.tag in ("td", "th")]
    parent = tr.getparent()
    named = [c for c in cells if c.tag == "th" or c.text_content().strip()]
    in_head = parent is not None and parent.tag == "thead" and bool(cells)
    return in_head or bool(named) and all(c.tag == "th" for c in named)


def _is_title_row(tr: Any) -> bool:
    """A row of one cell spanning columns: a title over the table."""
    cells = [c for c in tr if c.tag in ("td", "th")]
    return len(cells) == 1 and _span(cells[0].get("colspan"), MAX_COLUMNS) > 1


def _span(value: str | None, most: int) -> int:
    """A ``colspan`` or ``rowspan`` as browsers read it: 1 unless a number from 1 up."""
    try:
        return min(max(int((value or "1").strip()), 1), most)
    except ValueError:
        return 1


def _cell_text(cell: Any) -> str:
    for dropped in cell.iter(*DROP):
        dropped.drop_tree()
    return str(cell.text_content())


def _title(root: Any) -> str:
    found = root.find(".//title")
    return " ".join(found.text_content().split()) if found is not None else ""


def extract_html(path: Path) -> ExtractedDocument:
    with open_file(path) as fh:
        try:
            data = fh.read()
        except OSError as exc:
            raise unreadable(path, exc) from exc
    root = parse_html(path, data) if data.strip() else None
    blocks = html_blocks(root) if root is not None else []
    if not blocks:
        raise EmptyDocument(str(path), f"{shown(path.name)} has no text (only markup or scripts).")
    title = _title(root)
    pages = to_pages(paginate(blocks, f"§ {title or 'start'}", prefix="§ "))
    return ExtractedDocument(str(path), "html", pages, page_unit="section")


# ---------------------------------------------------------------------------- EPUB


def extract_epub(path: Path) -> ExtractedDocument:
    with open_zip(path) as zf:
        names = set(zf.namelist())
        if "META-INF/encryption.xml" in names and _drm(path, zf):
            raise EncryptedDocument(
                str(path),
                f"{shown(path.name)} is DRM-protected; Docent can only read DRM-free books.",
            )
        opf_name = _opf_name(path, zf)
        opf = parse_xml(path, read_member(path, zf, opf_name), "package document (OPF)")
        chapters = _spine(path, opf, opf_name)
        units: list[tuple[str, str]] = []
        n = 0  # chapters so far: a cover (no text) and the contents are none (s21)
        for name, contents in chapters:
            if name not in names:
                continue  # a spine entry pointing nowhere: skip it, keep the rest
            root = parse_html(path, read_member(path, zf, name), xhtml=True)
            if root is None:
                continue
            if contents:
                units += paginate(html_blocks(root), "contents", prefix="contents › ")
                continue
            # The chapter's first heading (before any text) names its first unit.
            read = paginate(html_blocks(root), f"ch. {n + 1}", prefix=f"ch. {n + 1} › ")
            n += bool(read)
            units += read
    pages = to_pages(units)
    if not pages:
        raise EmptyDocument(str(path), f"{shown(path.name)} has no text in its chapters.")
    return ExtractedDocument(str(path), "epub", pages, page_unit="chapter")


def _opf_name(path: Path, zf: Any) -> str:
    container = parse_xml(path, read_member(path, zf, "META-INF/container.xml"), "container.xml")
    rootfile = container.find(".//c:rootfile", _CONTAINER_NS)
    full = rootfile.get("full-path") if rootfile is not None else None
    if not full:
        raise damaged(path, "its container.xml names no package document")
    return str(full)


def _spine(path: Path, opf: Any, opf_name: str) -> list[tuple[str, bool]]:
    """The book's reading order: each part's name in the zip, and whether it is the
    book's table of contents (EPUB 3's ``nav`` item)."""
    base = posixpath.dirname(opf_name)
    items = [
        item
        for item in opf.iterfind(".//opf:manifest/opf:item", _OPF_NS)
        if item.get("id") and item.get("href")
    ]
    hrefs = {item.get("id"): item.get("href") for item in items}
    navs = {item.get("id") for item in items if "nav" in (item.get("properties") or "").split()}
    spine = opf.find(".//opf:spine", _OPF_NS)
    refs = [] if spine is None else [r.get("idref") for r in spine.iterfind("opf:itemref", _OPF_NS)]
    chapters = [
        (posixpath.normpath(posixpath.join(base, unquote(hrefs[r]).split("#")[0])), r in navs)
        for r in refs
        if r in hrefs
    ]
    if not chapters:
        raise damaged(path, "it has no spine (the list of chapters in reading order)")
    return chapters


def _drm(path: Path, zf: Any) -> bool:
    """True when encryption.xml encrypts more than fonts (font obfuscation is not DRM)."""
    root = parse_xml(path, read_member(path, zf, "META-INF/encryption.xml"), "encryption.xml")
    for ref in root.iter("{http://www.w3.org/2001/04/xmlenc#}CipherReference"):
        uri = ref.get("URI", "")
        if not uri.lower().endswith((".ttf", ".otf", ".woff", ".woff2")):
            return True
    return False
