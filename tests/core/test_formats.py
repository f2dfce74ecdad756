"""Word, PowerPoint, Excel, OpenDocument, EPUB and HTML files made here with the
libraries: indexed end to end, found by grep and search at their location, tables keep
their header with every row, scripts never become text, bad files say why and stop
nothing else."""

from __future__ import annotations

import os
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from docent.core.config import Settings
from docent.core.engine import Engine
from docent.core.errors import (
    DamagedDocument,
    DocumentError,
    EmptyDocument,
    EncryptedDocument,
)
from docent.core.extract import extract, is_supported
from docent.core.files import collect
from docent.core.formats.containers import OLE_MAGIC
from docent.core.index_events import IndexEvent, JobFinished
from docent.core.indexer import IndexReport
from docent.core.models import DocState
from fake_embedder import FakeEmbedder
from format_files import (
    PHRASES,
    make_docx,
    make_epub,
    make_odt,
    make_pptx,
    make_samples,
    make_xlsx,
)
from ollama_stub import unused_port


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("formats")
    make_samples(folder)
    return folder


@pytest.fixture(scope="module")
def indexed(
    library: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Engine, IndexReport]]:
    home = tmp_path_factory.mktemp("formats-home")
    # no model answers: ask quotes the passages it found, with their citations
    down = f"http://127.0.0.1:{unused_port()}"
    eng = Engine(Settings(data_dir=str(home), extract_in_subprocess=False, ollama_host=down))
    eng.open()
    report = eng.index([library])
    yield eng, report
    eng.close()


def test_a_folder_of_every_format_is_collected_and_indexed(
    library: Path, indexed: tuple[Engine, IndexReport]
) -> None:
    eng, report = indexed
    assert sorted(p.name for p in collect([library]).files) == sorted(PHRASES)
    assert not report.failed, report.failed
    for rec in eng.documents():
        assert rec.state is DocState.READY and rec.chunks > 0, rec


@pytest.mark.parametrize("name", sorted(PHRASES))
def test_grep_search_and_ask_find_a_phrase_at_its_location(
    indexed: tuple[Engine, IndexReport], name: str
) -> None:
    eng, _ = indexed
    phrase, location = PHRASES[name]
    matches = [m for m in eng.grep(phrase) if m.file_name == name]
    assert matches, f"grep found no {phrase!r} in {name}"
    assert matches[0].location == location
    hits = eng.search(phrase, files=[name]).hits
    assert hits and hits[0].file_name == name and phrase.lower() in hits[0].text.lower()
    assert hits[0].pages_label == location and hits[0].page_start == hits[0].page_end
    # The citation's unit in the extracted text holds the passage.
    unit = eng.extracted(eng.resolve(name)).pages[hits[0].page_start - 1]
    assert unit.label == location and phrase.lower() in unit.text.lower()
    # The answer cites it at that location, as chips and the sources pane show it.
    answer = eng.ask(f"Where does it say {phrase}?", files=[name])
    cited = [c for c in answer.citations if c.file_name == name]
    assert cited and cited[0].pages_label == location, (answer.mode, answer.citations)
    assert phrase.lower() in cited[0].text.lower()


def test_table_rows_keep_their_header(indexed: tuple[Engine, IndexReport]) -> None:
    eng, _ = indexed
    row = [m for m in eng.grep("Copperfield") if m.file_name == "ledger.xlsx"]
    assert row and "Supplier: Copperfield" in row[0].line
    keeper = eng.grep("Keeper 3")
    assert keeper and "Keeper: Keeper 3 | Lamp hours: 102" in keeper[0].line


def test_scripts_styles_and_frames_never_become_text(library: Path) -> None:
    doc = extract(library / "page.html")
    text = "\n".join(p.text for p in doc.pages)
    assert "saffron tide tables" in text
    for hidden in ("INJECTED", "document.write", "color: red", "FRAME TEXT", "example.invalid"):
        assert hidden not in text
    book = "\n".join(p.text for p in extract(library / "book.epub").pages)
    assert "cartographer" in book and "EPUB SCRIPT" not in book and "document.write" not in book


def test_units_are_named_as_citations_show_them(library: Path) -> None:
    assert [p.label for p in extract(library / "deck.pptx").pages] == [
        "slide 1",
        "slide 2",
        "slide 3",
    ]
    sheet = extract(library / "ledger.xlsx").pages
    assert [p.label for p in sheet] == [
        "Stock rows 2–26",
        "Stock rows 27–51",
        "Stock rows 52–61",
        "Notes rows 1–2",
    ]
    assert all(p.text.startswith("Name | Quantity | Supplier") for p in sheet[:3])
    notes = extract(library / "deck.pptx").pages[1].text
    assert "Notes: Mention the night trial." in notes


def test_every_new_type_is_supported_and_others_still_named(tmp_path: Path) -> None:
    for suffix in (".docx", ".pptx", ".xlsx", ".odt", ".epub", ".html", ".htm"):
        assert is_supported(f"x{suffix}")
    (tmp_path / "old.doc").write_bytes(b"\xd0\xcf\x11\xe0")
    (tmp_path / "new.docx").write_bytes(b"")
    found = collect([tmp_path])
    assert [p.name for p in found.unsupported] == ["old.doc"]
    assert [p.name for p in found.files] == ["new.docx"]


def test_a_watched_folder_indexes_every_new_type_moved_into_it(tmp_path: Path) -> None:
    """Files moved in from elsewhere (inotify says only 'created') are indexed and found at
    their location; a type Docent cannot read is left alone."""
    watched, made = tmp_path / "watched", tmp_path / "made"
    watched.mkdir()
    make_samples(made)
    settings = Settings(data_dir=str(tmp_path / "home"), extract_in_subprocess=False)
    eng = Engine(settings, embedder=FakeEmbedder()).open()
    indexed: set[str] = set()
    changed = threading.Condition()

    def on_event(event: IndexEvent) -> None:
        if isinstance(event, JobFinished):
            with changed:
                indexed.update(Path(p).name for p in event.report.indexed)
                changed.notify_all()

    try:
        eng.subscribe(on_event)
        eng.watch(watched)
        eng.start_watching()
        (watched / "old.doc").write_bytes(b"\xd0\xcf\x11\xe0 an old binary Word file")
        for p in made.iterdir():
            os.rename(p, watched / p.name)
        with changed:
            assert changed.wait_for(lambda: indexed >= set(PHRASES), timeout=120), indexed
        for name, (phrase, location) in PHRASES.items():
            found = [m for m in eng.grep(phrase) if m.file_name == name]
            assert found and found[0].location == location, (name, found)
        assert eng.wait_idle(30)
        assert sorted(d.file_name for d in eng.documents()) == sorted(PHRASES)
    finally:
        eng.close()


# Bad files ---------------------------------------------------------------------


def test_a_password_protected_docx_is_reported_as_such(tmp_path: Path) -> None:
    msoffcrypto = pytest.importorskip("msoffcrypto")
    from msoffcrypto.format.ooxml import OOXMLFile

    plain = make_docx(tmp_path / "plain.docx")
    locked = tmp_path / "locked.docx"
    with plain.open("rb") as src, locked.open("wb") as out:
        OOXMLFile(src).encrypt("secret", out)
    assert msoffcrypto.OfficeFile(locked.open("rb")).is_encrypted()
    with pytest.raises(EncryptedDocument, match="locked.docx is password-protected"):
        extract(locked)


def test_a_corrupt_zip_is_damaged_with_its_kind_named(tmp_path: Path) -> None:
    good = make_docx(tmp_path / "good.docx").read_bytes()
    broken = tmp_path / "broken.docx"
    broken.write_bytes(good[: len(good) // 2])
    with pytest.raises(DamagedDocument, match="broken.docx is not a readable Word document"):
        extract(broken)
    not_zip = tmp_path / "text.pptx"
    not_zip.write_text("just some text, not a presentation")
    with pytest.raises(DamagedDocument, match="PowerPoint presentation"):
        extract(not_zip)


def _with_empty_rows(path: Path, rows: int) -> Path:
    """The workbook with ``rows`` empty (formatted) rows appended to its first sheet."""
    src = zipfile.ZipFile(path)
    out_path = path.with_name("huge-" + path.name)
    with zipfile.ZipFile(out_path, "w", zipfile.ZIP_DEFLATED) as out:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "xl/worksheets/sheet1.xml":
                filler = "".join(
                    f'<row r="{r}" ht="15" customHeight="1"/>' for r in range(100, 100 + rows)
                )
                data = data.replace(b"</sheetData>", filler.encode() + b"</sheetData>")
                data = data.replace(
                    b'<dimension ref="A1:C61"/>', f'<dimension ref="A1:C{99 + rows}"/>'.encode()
                )
            out.writestr(info, data)
    return out_path


def test_an_xlsx_with_a_million_empty_rows_reads_its_data_and_stops(tmp_path: Path) -> None:
    huge = _with_empty_rows(make_xlsx(tmp_path / "ledger.xlsx"), 1_000_000)
    doc = extract(huge)
    assert [p.label for p in doc.pages][-1] == "Notes rows 1–2"
    assert any("Copperfield" in p.text for p in doc.pages)


def test_an_xlsx_of_only_empty_rows_has_no_values(tmp_path: Path) -> None:
    import openpyxl

    book = openpyxl.Workbook()
    book.active.row_dimensions[1].height = 20
    book.save(tmp_path / "blank.xlsx")
    huge = _with_empty_rows(tmp_path / "blank.xlsx", 1_000_000)
    with pytest.raises(EmptyDocument, match="has no values"):
        extract(huge)


def test_an_epub_with_no_spine_says_so(tmp_path: Path) -> None:
    book = make_epub(tmp_path / "nospine.epub", spine=False)
    with pytest.raises(DamagedDocument, match="no spine"):
        extract(book)


def test_bad_files_stop_nothing_else(tmp_path: Path) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    make_epub(folder / "nospine.epub", spine=False)
    (folder / "broken.xlsx").write_bytes(b"PK\x03\x04 truncated")
    make_docx(folder / "fine.docx")
    eng = Engine(Settings(data_dir=str(tmp_path / "home"), extract_in_subprocess=False)).open()
    try:
        report = eng.index([folder])
        assert [Path(p).name for p in report.indexed] == ["fine.docx"]
        reasons = {Path(f.path).name: (f.reason, f.message) for f in report.failed}
        assert reasons["nospine.epub"][0] == "damaged" and "spine" in reasons["nospine.epub"][1]
        assert reasons["broken.xlsx"][0] == "damaged" and "Excel" in reasons["broken.xlsx"][1]
    finally:
        eng.close()


def _with_media(path: Path, name: str, data: bytes) -> Path:
    """The Word document with a picture part ``name`` the document links to (python-docx
    loads every part a relationship names)."""
    out_path = path.with_name("media-" + path.name)
    rel = (
        f'<Relationship Id="rIdPic" Target="{name.removeprefix("word/")}" Type="http://'
        'schemas.openxmlformats.org/officeDocument/2006/relationships/image"/>'
    ).encode()
    kind = f'<Override PartName="/{name}" ContentType="image/jpeg"/>'.encode()
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(out_path, "w", zipfile.ZIP_DEFLATED) as out:
        for info in src.infolist():
            part = src.read(info)
            if info.filename == "word/_rels/document.xml.rels":
                part = part.replace(b"</Relationships>", rel + b"</Relationships>")
            if info.filename == "[Content_Types].xml":
                part = part.replace(b"</Types>", kind + b"</Types>")
            out.writestr(info, part)
        out.writestr(name, data)
    return out_path


def test_media_do_not_count_against_the_cap_unless_they_inflate_like_a_bomb(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import docent.core.formats.containers as containers

    monkeypatch.setattr(containers, "MAX_UNZIPPED_MB", 2)
    plain = make_docx(tmp_path / "report.docx")
    for name in ("photo.jpg", "clip.wmv", "movie.m4v", "hdphoto1.wdp", "pic.jfif"):
        photo = _with_media(plain, f"word/media/{name}", os.urandom(3 << 20))  # as JPEGs are
        assert "lighthouse inspection" in " ".join(p.text for p in extract(photo).pages), name
    bomb = _with_media(plain, "word/media/bomb.png", bytes(3 << 20))  # ~3 kB stored
    with pytest.raises(containers.TooBig, match="media-report.docx would unpack to 3 MB"):
        extract(bomb)
    # an uncompressed screenshot (BMP) deflates ~60 times: a picture, not a bomb (s21)
    rows = b"".join(os.urandom(512) + bytes(30_000) for _ in range(100))  # ~3 MB
    shot = _with_media(plain, "word/media/screen.bmp", rows)
    with zipfile.ZipFile(shot) as zf:
        info = zf.getinfo("word/media/screen.bmp")
        assert 40 < info.file_size / info.compress_size < 100  # as the review measured
    assert "lighthouse inspection" in " ".join(p.text for p in extract(shot).pages)
    monkeypatch.setattr(containers, "RAW_MEDIA_MB", 1)  # a raw picture past the size counts
    with pytest.raises(containers.TooBig):
        extract(shot)
    monkeypatch.setattr(containers, "RAW_MEDIA_MB", 64)
    bmp_bomb = _with_media(plain, "word/media/bomb.bmp", bytes(3 << 20))
    with pytest.raises(containers.TooBig) as err:
        extract(bmp_bomb)
    assert "text and markup" not in str(err.value)  # a picture's size is not text (s21)


@pytest.mark.parametrize("name", ["x.html", "x.docx", "x.epub"])
def test_a_fifo_named_as_a_format_is_refused_not_waited_on(tmp_path: Path, name: str) -> None:
    fifo = tmp_path / name
    os.mkfifo(fifo)
    raised: list[BaseException] = []

    def read() -> None:
        try:
            extract(fifo)
        except BaseException as exc:  # noqa: BLE001 - looked at below
            raised.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout=10)
    if reader.is_alive():  # blocked opening the FIFO: a writer's open lets it go
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(timeout=10)
    assert raised and f"{name} is a FIFO (named pipe)" in str(raised[0]), raised


def _encrypted_docx(path: Path) -> Path:
    """An OLE compound file holding an ``EncryptedPackage`` stream's name, as Office
    writes a password-protected file."""
    path.write_bytes(OLE_MAGIC + b"\0" * 504 + "EncryptedPackage".encode("utf-16-le"))
    return path


@pytest.mark.parametrize("kind", ["docx", "pptx", "xlsx", "odt", "epub", "ole"])
def test_a_container_is_read_through_the_handle_it_was_checked_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """A FIFO put in the file's place once it was opened and checked is never opened: the
    checked handle is what the reader parses (python-docx, python-pptx and openpyxl had
    opened the file again by its name, and would have waited on the FIFO for good)."""
    import docent.core.formats.containers as containers

    name, make = {
        "docx": ("report.docx", make_docx),
        "pptx": ("deck.pptx", make_pptx),
        "xlsx": ("ledger.xlsx", make_xlsx),
        "odt": ("notes.odt", make_odt),
        "epub": ("book.epub", make_epub),
        "ole": ("secret.docx", _encrypted_docx),  # told apart by what the handle holds
    }[kind]
    path = make(tmp_path / name)
    want = PHRASES[name][0] if name in PHRASES else "secret.docx is password-protected"
    real_open = containers.open_regular

    def opened_then_swapped(p: str | Path) -> Any:
        fh = real_open(p)
        fifo = tmp_path / "fifo"
        os.mkfifo(fifo)
        os.replace(fifo, p)  # the name is now a FIFO; the handle is the file checked
        return fh

    monkeypatch.setattr(containers, "open_regular", opened_then_swapped)
    read: list[str] = []

    def run() -> None:
        try:
            read.append(" ".join(p.text for p in extract(path).pages))
        except DocumentError as exc:
            read.append(str(exc))

    reader = threading.Thread(target=run, daemon=True)
    reader.start()
    reader.join(timeout=30)
    if reader.is_alive():  # blocked opening the FIFO by name: a writer's open lets it go
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(timeout=10)
        pytest.fail(f"the {kind} reader opened the file again by its name")
    assert read and want in read[0], read


def test_a_format_readers_message_shows_a_control_character_in_a_name_escaped(
    tmp_path: Path,
) -> None:
    """A file name holding ESC ("\\x1b[2J" clears a terminal) was printed raw by the format
    readers' messages, where the text and PDF readers escape it (``userfiles.shown``)."""
    import openpyxl

    page = tmp_path / "a\x1b[2Jpage.html"
    page.write_text("<html><head><script>var x = 1;</script></head><body></body></html>")
    book = openpyxl.Workbook()
    book.save(tmp_path / "b\x1b[2Jbook.xlsx")
    for path in (page, tmp_path / "b\x1b[2Jbook.xlsx"):
        with pytest.raises(EmptyDocument) as err:
            extract(path)
        assert "\x1b" not in str(err.value) and "\\x1b[2J" in str(err.value), str(err.value)


def test_a_workbook_saved_without_its_formulas_values_keeps_the_formulas(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A workbook a script wrote (openpyxl, pandas) holds formulas and no values for them,
    until a spreadsheet program opens and saves it: those cells were read as empty, so a
    total was silently missing from the text (helper-40, s21). Its formula is kept."""
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["Item", "Cost"])
    sheet.append(["Lamp oil", 12])
    sheet.append(["Wicks", 3])
    sheet.append(["Total", "=SUM(B2:B3)"])
    book.save(tmp_path / "costs.xlsx")
    text = " ".join(p.text for p in extract(tmp_path / "costs.xlsx").pages)
    assert "Item: Total | Cost: =SUM(B2:B3)" in text, text
    assert "Item: Lamp oil | Cost: 12" in text, text
    # saved by a spreadsheet program, with the values: the value, and one pass only
    saved = tmp_path / "saved.xlsx"
    with zipfile.ZipFile(tmp_path / "costs.xlsx") as src, zipfile.ZipFile(saved, "w") as out:
        for info in src.infolist():
            part = src.read(info)
            if info.filename.startswith("xl/worksheets/"):
                assert b"</f><v></v></c>" in part  # as openpyxl writes it: no value
                part = part.replace(b"</f><v></v></c>", b"</f><v>15</v></c>")
            out.writestr(info, part)
    import docent.core.formats.sheets as sheets

    def no_second_pass(path: Path) -> None:
        raise AssertionError("the formulas were read again")

    monkeypatch.setattr(sheets, "_formulas_book", no_second_pass)
    text = " ".join(p.text for p in extract(saved).pages)
    assert "Item: Total | Cost: 15" in text, text


def test_a_formula_whose_value_is_an_empty_string_stays_empty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Excel saves a formula whose result is "" (=IF(B2="","",B2*10) filled down) as
    <c t="str"><f>...</f><v/></c>: read as its formula text, every blank row said
    'Bonus: =IF(...)' (review s21). Only a formula saved with no value at all is read so,
    and an array formula's text too."""
    import openpyxl
    from openpyxl.worksheet.formula import ArrayFormula

    import docent.core.formats.sheets as sheets

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["Name", "Bonus"])
    sheet.append(["Ada", '=IF(C2="","",C2*10)'])
    book.save(tmp_path / "raw.xlsx")
    excel = tmp_path / "bonus.xlsx"
    with zipfile.ZipFile(tmp_path / "raw.xlsx") as src, zipfile.ZipFile(excel, "w") as out:
        for info in src.infolist():
            part = src.read(info)
            if info.filename.startswith("xl/worksheets/"):
                part = part.replace(b'<c r="B2">', b'<c r="B2" t="str">')
                part = part.replace(b"<v></v>", b"<v/>")
            out.writestr(info, part)

    def no_second_pass(path: Path) -> None:
        raise AssertionError("the formulas were read again")

    with monkeypatch.context() as m:
        m.setattr(sheets, "_formulas_book", no_second_pass)
        text = " ".join(p.text for p in extract(excel).pages)
    assert "=IF" not in text and "Ada" in text, text

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["Label", "Value"])
    sheet.append(["array total", None])
    sheet["B2"] = ArrayFormula("B2", "=SUM(C1:C3*2)")
    book.save(tmp_path / "array.xlsx")
    text = " ".join(p.text for p in extract(tmp_path / "array.xlsx").pages)
    assert "Value: =SUM(C1:C3*2)" in text, text


def test_a_damaged_sheet_is_damaged_not_a_fault_while_formulas_are_looked_for(
    tmp_path: Path,
) -> None:
    import openpyxl

    book = openpyxl.Workbook()
    book.active.append(["Name", "Total"])
    book.active.append(["Ada", "=SUM(1,2)"])
    book.save(tmp_path / "ok.xlsx")
    data = bytearray((tmp_path / "ok.xlsx").read_bytes())
    with zipfile.ZipFile(tmp_path / "ok.xlsx") as zf:
        info = zf.getinfo("xl/worksheets/sheet1.xml")
        at = info.header_offset + 30 + len(info.filename) + len(info.extra) + 5
    data[at] ^= 0xFF  # one byte of the sheet's compressed data: a bad CRC when read
    bad = tmp_path / "bad.xlsx"
    bad.write_bytes(bytes(data))
    with pytest.raises(DamagedDocument):
        extract(bad)
