"""PDFs written by the tests themselves, byte by byte (no PDF writer is a dependency):
pages of text, a password-protected copy, a truncated one. With them, and the three
samples in resources/samples, a clone of the project alone tests what the shared corpus
also covers at scale."""

from __future__ import annotations

import hashlib
import struct
import zlib
from collections.abc import Callable, Sequence

FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"

#: The padding string of the standard security handler (PDF 1.7, 7.6.3.3, Algorithm 2).
_PAD = bytes.fromhex("28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a")
#: Every permission bit a revision 2 handler knows, printing and copying included.
_ALL_ALLOWED = -4
_FILE_ID = hashlib.md5(b"docent test pdf").digest()

#: ``encrypt(object number, data)``: the bytes as they are stored in the file.
Cipher = Callable[[int, bytes], bytes]


def pdf(objects: Sequence[bytes], trailer: bytes = b"") -> bytes:
    """A PDF of ``objects`` (numbered from 1; 1 is the catalog) with a correct xref;
    ``trailer`` adds entries to the trailer dictionary."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R %s>>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        trailer,
        xref,
    )
    return bytes(out)


def stream(data: bytes, extra: bytes = b"") -> bytes:
    return b"<< /Length %d %s>>\nstream\n" % (len(data), extra) + data + b"\nendstream"


def _escape(line: str) -> bytes:
    raw = line.encode("latin-1")
    return raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")


def page_content(lines: Sequence[str], size: int = 11) -> bytes:
    """A content stream that writes ``lines`` down the page in Helvetica."""
    leading = size + 3
    ops = [b"BT /F1 %d Tf %d TL 72 740 Td" % (size, leading)]
    ops += [b"(%s) Tj T*" % _escape(line) for line in lines]
    ops.append(b"ET")
    return b"\n".join(ops)


def text_pdf_objects(pages: Sequence[Sequence[str]], cipher: Cipher | None = None) -> list[bytes]:
    """The objects of a PDF with one page per entry of ``pages`` (lines of Latin-1 text);
    ``cipher`` encrypts the content streams."""
    n = len(pages)
    kids = b" ".join(b"%d 0 R" % (4 + 2 * i) for i in range(n))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, n),
        FONT,
    ]
    for i, lines in enumerate(pages):
        page_number, content_number = 4 + 2 * i, 5 + 2 * i
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
            b"/Resources << /Font << /F1 3 0 R >> >> >>" % content_number
        )
        data = page_content(lines)
        objects.append(stream(cipher(content_number, data) if cipher else data))
        assert len(objects) == page_number + 1
    return objects


def text_pdf(pages: Sequence[Sequence[str]]) -> bytes:
    """A PDF of Latin-1 text, one page per entry of ``pages``, each a list of lines."""
    return pdf(text_pdf_objects(pages))


# Encryption: the standard security handler, revision 2 (RC4, 40-bit key), which pdfium
# and pdfminer both open. Written out here because no PDF writer is installed.


def _rc4(key: bytes, data: bytes) -> bytes:
    s = list(range(256))
    j = 0
    for i in range(256):
        j = (j + s[i] + key[i % len(key)]) % 256
        s[i], s[j] = s[j], s[i]
    out = bytearray()
    i = j = 0
    for byte in data:
        i = (i + 1) % 256
        j = (j + s[i]) % 256
        s[i], s[j] = s[j], s[i]
        out.append(byte ^ s[(s[i] + s[j]) % 256])
    return bytes(out)


def _padded(password: str) -> bytes:
    return (password.encode("latin-1") + _PAD)[:32]


def encrypted_text_pdf(
    pages: Sequence[Sequence[str]], user_password: str, owner_password: str = "owner"
) -> bytes:
    """``text_pdf(pages)`` encrypted: it opens with ``user_password`` (or the owner's);
    an empty user password opens it for anyone, as a copy-protected file does."""
    owner = _rc4(hashlib.md5(_padded(owner_password)).digest()[:5], _padded(user_password))
    permissions = struct.pack("<i", _ALL_ALLOWED)
    key = hashlib.md5(_padded(user_password) + owner + permissions + _FILE_ID).digest()[:5]
    user = _rc4(key, _PAD)

    def cipher(number: int, data: bytes) -> bytes:
        object_key = hashlib.md5(key + struct.pack("<i", number)[:3] + b"\0\0").digest()[:10]
        return _rc4(object_key, data)

    objects = text_pdf_objects(pages, cipher)
    objects.append(
        b"<< /Filter /Standard /V 1 /R 2 /O <%s> /U <%s> /P %d >>"
        % (owner.hex().encode(), user.hex().encode(), _ALL_ALLOWED)
    )
    file_id = _FILE_ID.hex().encode()
    trailer = b"/Encrypt %d 0 R /ID [<%s> <%s>] " % (len(objects), file_id, file_id)
    return pdf(objects, trailer)


def truncated(data: bytes, keep: float = 0.5) -> bytes:
    """The first ``keep`` of a file, as an interrupted download leaves it."""
    return data[: int(len(data) * keep)]


# Fonts without the Latin-1 of Helvetica: a CID font (two bytes a glyph, Identity-H),
# with or without a ToUnicode map, as CJK documents and subsetted fonts are written.


def _to_unicode(chars: dict[int, str]) -> bytes:
    entries = b"".join(
        b"<%04X> <%s>\n" % (code, ch.encode("utf-16-be").hex().upper().encode())
        for code, ch in chars.items()
    )
    return stream(
        b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /U def "
        b"1 begincodespacerange <0000> <FFFF> endcodespacerange "
        b"%d beginbfchar\n%sendbfchar "
        % (len(chars), entries)
        + b"endcmap CMapName currentdict /CMap defineresource pop end end"
    )


def cid_font_pdf(latin: Sequence[str], codes: Sequence[int], chars: dict[int, str] | None) -> bytes:
    """One page: ``latin`` lines in Helvetica, then one line of the glyph ``codes`` in a
    CID font; ``chars`` (code -> character) is its ToUnicode map, or None for none, so
    that pdfminer can only print ``(cid:N)``."""
    glyphs = b"BT /F2 12 Tf 72 400 Td <%s> Tj ET" % "".join(f"{c:04X}" for c in codes).encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R /F2 6 0 R >> >> >>",
        stream(page_content(latin) + b"\n" + glyphs),
        FONT,
        b"<< /Type /Font /Subtype /Type0 /BaseFont /Gothic /Encoding /Identity-H "
        b"/DescendantFonts [7 0 R] %s>>" % (b"/ToUnicode 9 0 R " if chars else b""),
        b"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Gothic /CIDSystemInfo "
        b"<< /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /FontDescriptor 8 0 R "
        b"/DW 1000 >>",
        b"<< /Type /FontDescriptor /FontName /Gothic /Flags 4 /FontBBox [0 -200 1000 900] "
        b"/ItalicAngle 0 /Ascent 900 /Descent -200 /CapHeight 700 /StemV 80 >>",
    ]
    if chars:
        objects.append(_to_unicode(chars))
    return pdf(objects)


def cjk_pdf(text: str) -> bytes:
    """One page whose only line is ``text`` (any script), in a CID font with a ToUnicode map."""
    chars = {code: ch for code, ch in enumerate(text, 1)}
    return cid_font_pdf([], list(chars), chars)


def scan_with_text_layer(pages: Sequence[Sequence[str]]) -> bytes:
    """Scanned pages (a grey image over each whole page) under an invisible text layer
    (render mode 3) of ``pages``' lines, as OCR software leaves a scan."""
    n = len(pages)
    kids = b" ".join(b"%d 0 R" % (5 + 2 * i) for i in range(n))
    grey = zlib.compress(bytes([200]) * 64 * 64)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, n),
        FONT,
        stream(
            grey,
            b"/Type /XObject /Subtype /Image /Width 64 /Height 64 /ColorSpace /DeviceGray "
            b"/BitsPerComponent 8 /Filter /FlateDecode ",
        ),
    ]
    for i, lines in enumerate(pages):
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
            b"/Resources << /Font << /F1 3 0 R >> /XObject << /Im1 4 0 R >> >> >>" % (6 + 2 * i)
        )
        text = page_content(lines).replace(b"BT ", b"BT 3 Tr ", 1)
        objects.append(stream(b"q 612 0 0 792 0 0 cm /Im1 Do Q\n" + text))
    return pdf(objects)


def with_a_broken_xref(data: bytes) -> bytes:
    """``data`` with bytes inserted after the header: every offset of its xref table is
    off, as after a careless edit; readers must rebuild it by scanning the objects."""
    return data.replace(b"%PDF-1.4\n", b"%PDF-1.4\n% a comment that shifts every object\n", 1)
