"""Each format reads all of a file's current text, and only it, where a person would see it
(review): Word's tracked insertions, content controls, fields, nested tables and text
boxes; a sheet's real row numbers and a header starting in column B; the encoding of a
page or chapter that declares none; OpenDocument's deletions, comments and footnotes;
line numbers past a form feed; Windows text files; deeply nested pages; a slide's notes
page without its body. Every file is made here with the libraries."""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from docent.core.errors import DamagedDocument
from docent.core.extract import extract
from docent.core.models import ExtractedDocument
from format_files import MAKERS, write_epub


def text_of(doc: ExtractedDocument) -> str:
    return "\n".join(p.text for p in doc.pages)


def _body_end(d: object) -> None:
    """python-docx's sectPr must stay the body's last child after appending XML."""
    from docx.oxml.ns import qn

    body = d.element.body  # type: ignore[attr-defined]
    sect = body.find(qn("w:sectPr"))
    body.remove(sect)
    body.append(sect)


def test_word_reads_insertions_content_controls_and_fields(tmp_path: Path) -> None:
    import docx
    from docx.oxml import parse_xml
    from docx.oxml.ns import nsdecls

    d = docx.Document()
    d.add_heading("Contract", level=1)
    w, body = nsdecls("w"), d.element.body
    for xml in (
        f"<w:sdt {w}><w:sdtPr/><w:sdtContent><w:p><w:r><w:t>The tenant pays on the first."
        "</w:t></w:r></w:p></w:sdtContent></w:sdt>",
        f'<w:p {w}><w:r><w:t xml:space="preserve">Notice period is </w:t></w:r>'
        '<w:ins w:id="1" w:author="A" w:date="2024-01-01T00:00:00Z"><w:r><w:t>ninety</w:t>'
        '</w:r></w:ins><w:del w:id="2" w:author="A" w:date="2024-01-01T00:00:00Z"><w:r>'
        '<w:delText>thirty</w:delText></w:r></w:del><w:r><w:t xml:space="preserve"> days.'
        "</w:t></w:r></w:p>",
        f'<w:p {w}><w:r><w:t xml:space="preserve">Tenant name: </w:t></w:r><w:sdt><w:sdtPr/>'
        "<w:sdtContent><w:r><w:t>Ada Lovelace</w:t></w:r></w:sdtContent></w:sdt></w:p>",
        f'<w:p {w}><w:r><w:t xml:space="preserve">See clause </w:t></w:r><w:fldSimple '
        'w:instr=" REF _Ref1 \\h "><w:r><w:t>4.2</w:t></w:r></w:fldSimple><w:r>'
        '<w:t xml:space="preserve"> for details.</w:t></w:r></w:p>',
    ):
        body.append(parse_xml(xml))
    _body_end(d)
    d.save(tmp_path / "contract.docx")
    text = text_of(extract(tmp_path / "contract.docx"))
    for said in (
        "The tenant pays on the first.",
        "Notice period is ninety days.",  # the deleted "thirty" is not read
        "Tenant name: Ada Lovelace",
        "See clause 4.2 for details.",
    ):
        assert said in text, text


def test_word_reads_nested_tables_and_text_boxes_once(tmp_path: Path) -> None:
    import docx
    from docx.oxml import parse_xml
    from docx.oxml.ns import nsdecls

    d = docx.Document()
    d.add_paragraph("Body text.")
    t = d.add_table(rows=2, cols=2)
    t.cell(0, 0).text, t.cell(0, 1).text, t.cell(1, 0).text = "Region", "Detail", "North"
    inner = t.cell(1, 1).add_table(rows=1, cols=2)
    inner.cell(0, 0).text, inner.cell(0, 1).text = "Nested alpha", "Nested beta"
    mc = 'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"'
    vml = 'xmlns:v="urn:schemas-microsoft-com:vml"'
    wps = 'xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape"'

    def box(text: str) -> str:
        return f"<w:txbxContent><w:p><w:r><w:t>{text}</w:t></w:r></w:p></w:txbxContent>"

    d.element.body.append(
        parse_xml(
            f'<w:p {nsdecls("w")} {mc} {vml} {wps}><w:r><w:t xml:space="preserve">Anchor. '
            '</w:t></w:r><w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing>'
            f"<wps:txbx>{box('Sidebar warning')}</wps:txbx></w:drawing></mc:Choice><mc:Fallback>"
            f"<w:pict><v:shape><v:textbox>{box('Sidebar warning')}</v:textbox></v:shape>"
            "</w:pict></mc:Fallback></mc:AlternateContent></w:r><w:r><mc:AlternateContent>"
            f"<mc:Fallback><w:pict><v:shape><v:textbox>{box('Old-style box')}</v:textbox>"
            "</v:shape></w:pict></mc:Fallback></mc:AlternateContent></w:r></w:p>"
        )
    )
    _body_end(d)
    d.save(tmp_path / "nested.docx")
    text = text_of(extract(tmp_path / "nested.docx"))
    assert "Region: North | Detail: Nested alpha | Nested beta" in text, text
    assert text.count("Sidebar warning") == 1 and "Old-style box" in text, text
    assert "Anchor." in text


def test_word_reads_table_rows_and_cells_inside_content_controls(tmp_path: Path) -> None:
    """A form's repeating section wraps whole rows in a content control (``w:sdt`` in the
    table), and a form field may wrap a whole cell (``w:sdt`` in the row): python-docx
    sees neither, so those rows and cells were not read at all."""
    import docx
    from docx.oxml import parse_xml
    from docx.oxml.ns import nsdecls

    def cell(text: str) -> str:
        return f"<w:tc><w:p><w:r><w:t>{text}</w:t></w:r></w:p></w:tc>"

    def row(*cells: str) -> str:
        return f"<w:tr>{''.join(cells)}</w:tr>"

    def control(inner: str) -> str:
        return f"<w:sdt><w:sdtPr/><w:sdtContent>{inner}</w:sdtContent></w:sdt>"

    d = docx.Document()
    d.add_paragraph("Expense claim.")
    d.element.body.append(
        parse_xml(
            f"<w:tbl {nsdecls('w')}><w:tblGrid><w:gridCol/><w:gridCol/></w:tblGrid>"
            + row(cell("Item"), cell("Amount"))
            + control(row(cell("Train to Leeds"), cell("42.50")) + row(cell("Hotel"), cell("89")))
            + row(cell("Taxi"), control(cell("17.20")))
            + row(
                cell("Parts"),
                "<w:tc><w:tbl>"
                + control(row(cell("Bolt"), cell("12")))
                + row(cell("Nut"), control(cell("30")))
                + "</w:tbl><w:p/></w:tc>",
            )
            + "</w:tbl>"
        )
    )
    _body_end(d)
    d.save(tmp_path / "claim.docx")
    text = text_of(extract(tmp_path / "claim.docx"))
    for said in ("Item: Train to Leeds | Amount: 42.50", "Item: Hotel | Amount: 89"):
        assert said in text, text
    assert "Item: Taxi | Amount: 17.20" in text, text
    assert "Item: Parts | Amount: Bolt | 12 Nut | 30" in text, text  # a table in a cell


def _offset_workbook(path: Path) -> Path:
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Budget"
    sheet["B3"], sheet["C3"] = "Item", "Cost"  # rows 1-2 and column A left empty
    for i in range(4, 9):
        sheet[f"B{i}"], sheet[f"C{i}"] = f"Thing {i}", i * 10
    book.save(path)
    return path


def test_a_sheet_starting_below_row_1_and_in_column_b_is_cited_by_its_rows(
    tmp_path: Path,
) -> None:
    (page,) = extract(_offset_workbook(tmp_path / "budget.xlsx")).pages
    assert page.label == "Budget rows 4–8"
    lines = page.text.splitlines()
    assert lines[0] == "Item | Cost"
    assert lines[1] == "Item: Thing 4 | Cost: 40" and lines[-1] == "Item: Thing 8 | Cost: 80"


def test_a_utf8_page_without_a_charset_is_read_as_utf8(tmp_path: Path) -> None:
    page = tmp_path / "menu.html"
    page.write_bytes(
        "<html><body><h1>Café</h1><p>Crème brûlée à la carte.</p></body></html>".encode()
    )
    assert "Crème brûlée à la carte." in text_of(extract(page))
    old = tmp_path / "old.html"  # neither UTF-8 nor declared: Windows-1252
    old.write_bytes("<html><body><p>Crème brûlée — 5 €</p></body></html>".encode("cp1252"))
    assert "Crème brûlée — 5 €" in text_of(extract(old))


@pytest.mark.parametrize("declared", ["", '<?xml version="1.0" encoding="iso-8859-1"?>'])
def test_an_epub_chapter_is_read_in_its_xml_encoding(tmp_path: Path, declared: str) -> None:
    body = (
        f'{declared}<html xmlns="http://www.w3.org/1999/xhtml"><head><title>One</title></head>'
        "<body><h1>Début</h1><p>Le café était très chaud.</p></body></html>"
    )
    data = body.encode("iso-8859-1" if declared else "utf-8")
    doc = extract(write_epub(tmp_path / "livre.epub", [data]))
    assert "Le café était très chaud." in text_of(doc)
    assert doc.pages[0].label == "ch. 1 › Début"


def test_a_page_nested_hundreds_deep_is_read_whole(tmp_path: Path) -> None:
    items = "".join(f"<span class=x>Item {i}. " for i in range(600))  # never closed
    page = tmp_path / "list.html"
    page.write_text(f"<html><body><p>Intro.</p>{items}<p>The end of the list.</p></body></html>")
    text = text_of(extract(page))
    assert "Item 599." in text and "The end of the list." in text


def test_a_page_nested_past_the_parsers_depth_is_refused_with_why(tmp_path: Path) -> None:
    page = tmp_path / "deep.html"
    page.write_text("<html><body>" + "<div>x " * 3000 + "<p>End.</p></body></html>")
    with pytest.raises(DamagedDocument, match="nested more than 2,048 deep"):
        extract(page)


def test_a_word_document_nested_past_the_parsers_depth_is_refused_with_why(
    tmp_path: Path,
) -> None:
    """lxml stops at 256 levels: that was said as "not well-formed XML", which is not what
    is wrong with the file (the closing read of session 21)."""
    import docx

    path = tmp_path / "deep.docx"
    docx.Document().save(path)
    with zipfile.ZipFile(path) as zf:
        parts = {name: zf.read(name) for name in zf.namelist()}
    nested = "<w:sdt><w:sdtContent>" * 300 + "<w:p/>" + "</w:sdtContent></w:sdt>" * 300
    body = parts["word/document.xml"].decode().replace("<w:body>", "<w:body>" + nested)
    parts["word/document.xml"] = body.encode()
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in parts.items():
            zf.writestr(name, data)
    with pytest.raises(DamagedDocument, match="its XML is nested more than 256 deep") as info:
        extract(path)
    assert "well-formed" not in str(info.value)


def _odt(path: Path, body: str) -> Path:
    ns = (
        'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
        'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
        'xmlns:dc="http://purl.org/dc/elements/1.1/"'
    )
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        zf.writestr(
            "content.xml",
            f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {ns}>'
            f"<office:body><office:text>{body}</office:text></office:body>"
            "</office:document-content>",
        )
    return path


def test_opendocument_leaves_out_deletions_and_comments_and_sets_footnotes_apart(
    tmp_path: Path,
) -> None:
    body = (
        "<text:tracked-changes><text:changed-region text:id='c1'><text:deletion>"
        "<office:change-info><dc:creator>Bob</dc:creator></office:change-info>"
        "<text:p>The old price was 500 euros.</text:p></text:deletion></text:changed-region>"
        "</text:tracked-changes><text:h text:outline-level='1'>Prices</text:h>"
        "<text:p><text:change text:change-id='c1'/>The price is 900 euros.</text:p>"
        "<text:p>Delivery in <office:annotation><dc:creator>Alice Smith</dc:creator>"
        "<dc:date>2024-03-02T09:30:00</dc:date><text:p>Is this right?</text:p>"
        "</office:annotation>March.</text:p><text:p>The treaty was signed in 1648<text:note"
        " text:id='n1' text:note-class='footnote'><text:note-citation>1</text:note-citation>"
        "<text:note-body><text:p>See the archives.</text:p></text:note-body></text:note> by "
        "all parties.</text:p>"
    )
    text = text_of(extract(_odt(tmp_path / "prices.odt", body)))
    assert "500 euros" not in text and "The price is 900 euros." in text
    assert "Delivery in March." in text and "Alice" not in text
    assert "signed in 1648 by all parties.\n\nNote: See the archives." in text


def test_a_form_feed_does_not_shift_the_lines_cited(tmp_path: Path) -> None:
    lines: list[str] = []
    for page in range(1, 21):  # an RFC's layout: 58 lines, then a form feed on its own
        lines += [f"page {page} line {i}" for i in range(1, 59)]
        lines.append("\f")
    lines.append("Marker, the last line\u2028with a line separator inside it")
    path = tmp_path / "rfc.txt"
    path.write_text("\n".join(lines) + "\n")
    doc = extract(path)
    at = [
        (p.number - 1) * doc.lines_per_page + j + 1
        for p in doc.pages
        for j, line in enumerate(p.text.split("\n"))
        if line.startswith("Marker")
    ]
    assert at == [len(lines)]  # the file's own last line, as grep -n counts


def test_a_notes_page_without_its_body_leaves_the_deck_readable(tmp_path: Path) -> None:
    import pptx

    deck = pptx.Presentation()
    for title, body in [("Plan", "Dredging starts in spring."), ("Signals", "The beacon flashes.")]:
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text, slide.placeholders[1].text = title, body
    holder = deck.slides[1].notes_slide.notes_placeholder
    holder._element.getparent().remove(holder._element)
    deck.save(tmp_path / "deck.pptx")
    assert "The beacon flashes." in text_of(extract(tmp_path / "deck.pptx"))


def test_text_read_by_an_older_reader_is_read_again_by_the_next_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    import docent.core.embedding
    from docent.core.config import load_settings
    from docent.core.engine import Engine
    from docent.core.textcache import TextCache

    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "menu.txt").write_bytes("Crème brûlée, five euros.\n".encode("cp1252"))
    settings = load_settings(extract_in_subprocess=False)
    with Engine(settings).open() as eng:
        eng.index([lib])
        (rec,) = eng.documents()
    # as the reader before Windows-1252 text files left it in the cache
    cache = TextCache(settings.text_cache_path)
    file = settings.text_cache_path / rec.sha256[:2] / f"{rec.sha256}.json"
    data = json.loads(file.read_text(encoding="utf-8"))
    data["pages"] = ["Cr\ufffdme br\ufffdl\ufffde, five euros."]
    del data["reader"]
    file.write_text(json.dumps(data), encoding="utf-8")
    assert cache.get(rec.sha256) is None  # not for indexing
    old = cache.get(rec.sha256, stale=True)  # but the text the passages came from, until then
    assert old is not None and old.pages[0].text.startswith("Cr\ufffdme")
    monkeypatch.setattr(
        docent.core.embedding, "INDEX_FORMAT", docent.core.embedding.INDEX_FORMAT + 1
    )
    with Engine(settings).open() as eng:
        eng.resume()
        assert [m.file_name for m in eng.grep("crème brûlée")] == ["menu.txt"]
        assert eng.extracted(eng.documents()[0]).pages[0].text == "Crème brûlée, five euros."


def test_a_word_tables_merged_cells_keep_the_columns_after_them(tmp_path: Path) -> None:
    import docx

    d = docx.Document()
    t = d.add_table(rows=4, cols=4)
    for c, name in enumerate(("Name", "Q1", "Q2", "Q3")):
        t.cell(0, c).text = name
    t.cell(1, 0).text, t.cell(1, 3).text = "Ada", "7"
    t.cell(1, 1).merge(t.cell(1, 2)).text = "on leave"  # one cell over Q1 and Q2
    for c, text in enumerate(("Bob", "1", "2", "3")):
        t.cell(2, c).text = text
    t.cell(3, 1).text, t.cell(3, 2).text, t.cell(3, 3).text = "4", "5", "6"
    tr = t.rows[3]._tr  # a row starting in the second column (w:gridBefore)
    tr.remove(tr.tc_lst[0])
    tr.get_or_add_trPr()._add_gridBefore(val=1)
    d.save(tmp_path / "merged.docx")
    lines = text_of(extract(tmp_path / "merged.docx")).splitlines()
    assert "Name: Ada | Q1: on leave | Q3: 7" in lines, lines
    assert "Name: Bob | Q1: 1 | Q2: 2 | Q3: 3" in lines, lines
    assert "Q1: 4 | Q2: 5 | Q3: 6" in lines, lines


def test_a_pages_spanning_cells_keep_the_columns_after_them(tmp_path: Path) -> None:
    page = tmp_path / "rota.html"
    page.write_text(
        "<html><body><table><tr><th>Name</th><th>Q1</th><th>Q2</th><th>Q3</th></tr>"
        "<tr><td>Ada</td><td colspan='2'>on leave</td><td>7</td></tr>"
        "<tr><td rowspan='2'>Bob</td><td>1</td><td>2</td><td>3</td></tr>"
        "<tr><td>4</td><td>5</td><td>6</td></tr></table></body></html>"
    )
    lines = text_of(extract(page)).splitlines()
    assert "Name: Ada | Q1: on leave | Q3: 7" in lines, lines
    assert "Name: Bob | Q1: 1 | Q2: 2 | Q3: 3" in lines, lines
    # the rows a cell spans down each say it: "cities in the North" finds the second too
    assert "Name: Bob | Q1: 4 | Q2: 5 | Q3: 6" in lines, lines


def cell(text: str, span: int = 1, extra: str = "") -> str:
    """An OpenDocument table cell; ``span`` columns; ``extra`` attributes as written."""
    spanned = f" table:number-columns-spanned='{span}'" if span > 1 else ""
    return f"<table:table-cell{spanned}{extra}><text:p>{text}</text:p></table:table-cell>"


def row(*cells: str) -> str:
    return f"<table:table-row>{''.join(cells)}</table:table-row>"


def test_opendocument_tables_keep_columns_after_merged_cells_and_read_nested_ones_once(
    tmp_path: Path,
) -> None:
    nested = (
        "<table:table-cell><table:table>"
        f"{row(cell('Nested alpha'), cell('Nested beta'))}</table:table></table:table-cell>"
    )
    body = (
        "<table:table>"
        + row(cell("Name"), cell("Q1"), cell("Q2"), cell("Q3"))
        + row(cell("Ada"), cell("on leave", 2), "<table:covered-table-cell/>", cell("7"))
        + row(cell("Bob"), cell("1"), nested, cell("3"))
        + row(cell("Cy"), "<table:table-cell table:number-columns-repeated='2'/>", cell("9"))
        + row(
            cell("Di"),
            cell("8", 3),
            "<table:covered-table-cell table:number-columns-repeated='2'/>",
        )
        + "</table:table>"
    )
    text = text_of(extract(_odt(tmp_path / "rota.odt", body)))
    lines = text.splitlines()
    assert "Name: Ada | Q1: on leave | Q3: 7" in lines, lines
    assert "Name: Bob | Q1: 1 | Q2: Nested alpha Nested beta | Q3: 3" in lines, lines
    assert "Name: Cy | Q3: 9" in lines and "Name: Di | Q1: 8" in lines, lines
    assert text.count("Nested alpha") == 1, text


def test_a_pages_charset_is_read_from_its_meta_tag_only_wherever_it_is(tmp_path: Path) -> None:
    # "charset" in a script's attribute declares nothing: the page is UTF-8
    page = tmp_path / "menu.html"
    page.write_bytes(
        '<html><head><script src="menu.js" charset="utf-8"></script></head><body>'
        "<p>Crème brûlée à la carte.</p></body></html>".encode()
    )
    assert "Crème brûlée à la carte." in text_of(extract(page))
    # a meta tag after a long head (scripts, styles) still says the page's encoding
    old = tmp_path / "old.html"
    head = "<style>p { margin: 0 }</style>" * 100
    old.write_bytes(
        f'<html><head>{head}<meta http-equiv="Content-Type" content="text/html; '
        'charset=windows-1251"></head><body><p>Привет, мир.</p></body></html>'.encode("cp1251")
    )
    assert "Привет, мир." in text_of(extract(old))


def _rewritten(src: Path, dst: Path, part: str, change: Callable[[bytes], bytes]) -> Path:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            zout.writestr(info, change(data) if info.filename == part else data)
    return dst


@pytest.mark.parametrize(
    ("name", "part"),
    [
        ("report.docx", "word/document.xml"),
        ("report.docx", "word/styles.xml"),
        ("deck.pptx", "ppt/slides/slide2.xml"),
    ],
)
def test_an_office_file_with_a_broken_xml_part_is_damaged_with_why(
    tmp_path: Path, name: str, part: str
) -> None:
    made = MAKERS[name](tmp_path / f"whole{Path(name).suffix}")
    broken = _rewritten(made, tmp_path / name, part, lambda data: data[:-50])
    with pytest.raises(DamagedDocument, match=f"{name} is not a readable .*re-saving it"):
        extract(broken)


def test_opendocument_numbers_that_are_not_numbers_are_read_as_none_given(tmp_path: Path) -> None:
    body = (
        "<text:h text:outline-level='one'>Prices</text:h><text:p>Tea<text:s text:c='x'/>"
        "costs two euros.</text:p><table:table><table:table-row><table:table-cell "
        "table:number-columns-repeated='many'><text:p>Cell</text:p></table:table-cell>"
        "</table:table-row></table:table>"
    )
    doc = extract(_odt(tmp_path / "odd.odt", body))
    assert doc.pages[0].label == "§ Prices"
    assert "Tea costs two euros." in text_of(doc) and "Cell" in text_of(doc)


def test_section_labels_name_one_section_each_and_no_section_is_a_lone_heading(
    tmp_path: Path,
) -> None:
    import docx

    d = docx.Document()
    for level, heading, text in [
        (1, "Chapter 1", ""),
        (2, "Overview", "The ship left at dawn."),
        (2, "Summary", "It sailed south."),
        (1, "Chapter 2", "Storms came."),
        (2, "Summary", "It sailed north."),
        (1, "Appendix A", ""),
        (1, "Appendix B", "Tide tables."),
    ]:
        d.add_heading(heading, level=level)
        if text:
            d.add_paragraph(text)
    d.save(tmp_path / "voyage.docx")
    pages = extract(tmp_path / "voyage.docx").pages
    assert [p.label for p in pages] == [
        "§ Chapter 1 › Overview",  # a chapter's heading opens its first section
        "§ Summary",
        "§ Chapter 2",
        "§ Chapter 2 › Summary",  # not a second "§ Summary"
        "§ Appendix A",
        "§ Appendix B",
    ]
    assert pages[0].text == "# Chapter 1\n\n## Overview\n\nThe ship left at dawn."


def test_a_merged_header_cell_names_every_column_it_spans(tmp_path: Path) -> None:
    """A header "Name | Score (over two columns) | Year": the spanned column was an empty
    header cell, so the table was taken to have no header and no value was named
    ('Ada | 9 | 10 | 1843'; review s21)."""
    import docx

    page = tmp_path / "scores.html"
    page.write_text(
        "<html><body><table><tr><th>Name</th><th colspan='2'>Score</th><th>Year</th></tr>"
        "<tr><td>Ada</td><td>9</td><td>10</td><td>1843</td></tr></table></body></html>"
    )
    d = docx.Document()
    t = d.add_table(rows=2, cols=4)
    t.cell(0, 0).text, t.cell(0, 3).text = "Name", "Year"
    t.cell(0, 1).merge(t.cell(0, 2)).text = "Score"
    for c, text in enumerate(("Ada", "9", "10", "1843")):
        t.cell(1, c).text = text
    d.save(tmp_path / "scores.docx")
    for path in (page, tmp_path / "scores.docx"):
        lines = text_of(extract(path)).splitlines()
        assert "Name: Ada | Score: 9 | Score: 10 | Year: 1843" in lines, (path.name, lines)
    # a title over the whole table is no header: its one name would label every value
    title = tmp_path / "title.html"
    title.write_text(
        "<html><body><table><tr><th colspan='3'>Quarterly results</th></tr>"
        "<tr><td>Ada</td><td>9</td><td>10</td></tr></table></body></html>"
    )
    lines = text_of(extract(title)).splitlines()
    assert "Ada | 9 | 10" in lines, lines


def test_huge_spans_and_grid_offsets_are_capped(tmp_path: Path) -> None:
    """colspan=1000 on every cell made each row a thousand columns (a 1.2 MB page: 10 s,
    432 MB), and a Word row's w:gridBefore of 2,000,000,000 a list of that many cells
    (MemoryError); review s21. A row holds at most blocks.MAX_COLUMNS columns."""
    import docx

    from docent.core.formats.blocks import MAX_COLUMNS

    cells = "".join(f"<td colspan='1000'>v{i}</td>" for i in range(50))
    page = tmp_path / "wide.html"
    page.write_text(
        f"<html><body><table>{'<tr>' + cells + '</tr>'}"
        f"{('<tr>' + cells + '</tr>') * 200}</table></body></html>"
    )
    import lxml.html

    from docent.core.formats import markup

    root = lxml.html.document_fromstring(page.read_bytes())
    rows = list(markup._html_rows(root.find(".//table")))
    assert rows and all(len(r) <= MAX_COLUMNS for r in rows)
    assert "v0" in text_of(extract(page))

    d = docx.Document()
    t = d.add_table(rows=2, cols=2)
    t.cell(0, 0).text, t.cell(0, 1).text = "Name", "Q1"
    t.cell(1, 0).text, t.cell(1, 1).text = "Ada", "7"
    tr = t.rows[1]._tr
    tr.get_or_add_trPr()._add_gridBefore(val=5_000_000)
    d.save(tmp_path / "offset.docx")
    from docent.core.formats import office

    table = docx.Document(str(tmp_path / "offset.docx")).tables[0]
    assert all(len(r) <= MAX_COLUMNS for r in office._docx_rows(table._tbl))


def test_an_opendocument_header_cell_merged_over_the_last_columns_names_them(
    tmp_path: Path,
) -> None:
    body = (
        "<table:table>"
        + row(cell("Name"), cell("Score", 2), "<table:covered-table-cell/>")
        + row(cell("Ada"), cell("9"), cell("10"))
        + "</table:table>"
    )
    lines = text_of(extract(_odt(tmp_path / "scores.odt", body))).splitlines()
    assert "Name: Ada | Score: 9 | Score: 10" in lines, lines


@pytest.mark.parametrize(
    "label, text, codec",
    [
        ("gb2312", "朱镕基 测试", "gbk"),  # 镕 is GBK, not GB2312: browsers read GBK
        ("shift_jis", "①番 テスト", "cp932"),  # ① is Windows' Shift_JIS
        ("euc-kr", "똠방각하", "cp949"),  # 똠 is UHC
        ("iso-8859-9", "Çalışma “özet”", "cp1254"),  # curly quotes: Windows-1254
        ("utf-16", "Crème brûlée", "utf-8"),  # a UTF-8 page saying utf-16, as browsers read
    ],
)
def test_a_pages_legacy_charset_is_read_as_browsers_read_it(
    tmp_path: Path, label: str, text: str, codec: str
) -> None:
    """The meta tag's label decoded with Python's strict codec of that name lost what
    browsers read in its Windows superset ('朱�F基'), and a UTF-8 page saying utf-16
    came out as CJK (review s21)."""
    page = tmp_path / "page.html"
    page.write_bytes(
        f"<html><head><meta charset='{label}'></head><body><p>{text}</p></body></html>".encode(
            codec
        )
    )
    assert text in text_of(extract(page))


def test_a_form_whose_first_row_merges_a_value_is_not_read_as_a_header(tmp_path: Path) -> None:
    """ "Applicant | Jane Doe (over three columns)", then "Phone | 555-1234 | Email | ...":
    with a merged header naming the columns it spans, the form's first row named every
    value after it ('Jane Doe: Email'; review s21). Spanned columns must be the fewer."""
    import docx

    d = docx.Document()
    t = d.add_table(rows=2, cols=4)
    t.cell(0, 0).text = "Applicant"
    t.cell(0, 1).merge(t.cell(0, 3)).text = "Jane Doe"
    for c, text in enumerate(("Phone", "555-1234", "Email", "jane@example.org")):
        t.cell(1, c).text = text
    d.save(tmp_path / "form.docx")
    lines = text_of(extract(tmp_path / "form.docx")).splitlines()
    assert "Phone | 555-1234 | Email | jane@example.org" in lines, lines
    assert not any("Jane Doe:" in line for line in lines), lines


def test_a_word_cell_merged_down_says_its_value_on_each_row(tmp_path: Path) -> None:
    """Region "North" merged over two rows: the second row lost it ('City: Inverness'),
    where python-docx's row.cells had repeated it (review s21)."""
    import docx

    d = docx.Document()
    t = d.add_table(rows=3, cols=2)
    t.cell(0, 0).text, t.cell(0, 1).text = "Region", "City"
    t.cell(1, 0).merge(t.cell(2, 0)).text = "North"
    t.cell(1, 1).text, t.cell(2, 1).text = "Aberdeen", "Inverness"
    d.save(tmp_path / "regions.docx")
    lines = text_of(extract(tmp_path / "regions.docx")).splitlines()
    assert "Region: North | City: Aberdeen" in lines, lines
    assert "Region: North | City: Inverness" in lines, lines


def test_opendocument_spans_merged_down_and_negative_spans(tmp_path: Path) -> None:
    body = (
        "<table:table>"
        + row(cell("Region"), cell("City"), cell("Year"))
        + row(cell("North", extra=" table:number-rows-spanned='2'"), cell("Aberdeen"), cell("1891"))
        + row("<table:covered-table-cell/>", cell("Inverness"), cell("1903"))
        # a hostile span: -20,000,000 columns made 20 million empty cells (review s21)
        + row(
            cell("South", extra=" table:number-columns-spanned='-20000000'"),
            "<table:covered-table-cell/>",
            cell("1911"),
        )
        + "</table:table>"
    )
    lines = text_of(extract(_odt(tmp_path / "regions.odt", body))).splitlines()
    assert "Region: North | City: Aberdeen | Year: 1891" in lines, lines
    assert "Region: North | City: Inverness | Year: 1903" in lines, lines
    assert "Region: South | Year: 1911" in lines, lines


def test_an_epubs_chapters_are_numbered_without_its_cover_and_contents(tmp_path: Path) -> None:
    """A book's reading order opens with a cover (a picture) and its table of contents:
    its "Chapter 1" was cited as "ch. 3 › Chapter 1" (helper-40, s21). The contents are
    read, labelled so; the cover, no text, is no chapter."""

    def page(body: str) -> str:
        return f'<html xmlns="http://www.w3.org/1999/xhtml"><body>{body}</body></html>'

    book = write_epub(
        tmp_path / "book.epub",
        [
            page('<img src="cover.jpg" alt=""/>'),
            page("<nav><ol><li>Chapter 1</li><li>Chapter 2</li></ol></nav>"),
            page("<h1>Chapter 1</h1><p>The lamp is lit at dusk.</p>"),
            page("<h1>Chapter 2</h1><p>The lens is polished at dawn.</p>"),
        ],
        nav=2,
    )
    labels = {p.label: p.text for p in extract(book).pages}
    assert "ch. 1 › Chapter 1" in labels and "ch. 2 › Chapter 2" in labels, list(labels)
    assert "lamp is lit" in labels["ch. 1 › Chapter 1"]
    assert not any(label.startswith("ch. 3") for label in labels), list(labels)


def test_a_moved_groups_text_keeps_its_place_on_the_slide(tmp_path: Path) -> None:
    """Shapes in a group carry the group's own coordinates, which PowerPoint leaves as they
    were when the group is moved: sorted by them, a group moved to the top of the slide
    was read after the text below it (helper-40, s21)."""
    import pptx
    from pptx.util import Inches

    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[6])  # blank
    below = slide.shapes.add_textbox(Inches(1), Inches(3), Inches(4), Inches(1))
    below.text_frame.text = "Then the keeper logs the weather."
    group = slide.shapes.add_group_shape()
    box = group.shapes.add_textbox(Inches(1), Inches(5), Inches(4), Inches(1))
    box.text_frame.text = "First the keeper lights the lamp."
    group.top = Inches(1)  # moved up: its child still says 5 inches inside the group
    deck.save(str(tmp_path / "deck.pptx"))
    text = text_of(extract(tmp_path / "deck.pptx"))
    assert text.index("First the keeper") < text.index("Then the keeper"), text


def test_a_header_row_the_file_marks_as_one_names_its_columns(tmp_path: Path) -> None:
    """A header of years ("Region | 2021 | 2022") has numbers in it, and "Name | Scores
    (over three columns)" as many spanned columns as names: guessed, neither is a header,
    and no value was named. A row the file marks as its table's header (HTML ``<th>`` or
    ``<thead>``, Word's "repeat as header row", OpenDocument's header rows) is one, if it
    has two names or more."""
    import docx
    import pptx
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn
    from pptx.util import Inches

    years = [["Region", "2021", "2022"], ["North", "7", "9"]]
    want = "Region: North | 2021: 7 | 2022: 9"
    page = tmp_path / "years.html"
    page.write_text(
        "<html><body><table><thead><tr><td>Region</td><td>2021</td><td>2022</td></tr></thead>"
        "<tr><td>North</td><td>7</td><td>9</td></tr></table>"
        "<table><tr><th>Name</th><th colspan='3'>Scores</th></tr>"
        "<tr><td>Ada</td><td>9</td><td>10</td><td>11</td></tr></table>"
        # the same, not marked: guessed as before
        "<table><tr><td>Town</td><td>2021</td></tr><tr><td>Leeds</td><td>5</td></tr></table>"
        "</body></html>"
    )
    lines = text_of(extract(page)).splitlines()
    assert want in lines, lines
    assert "Name: Ada | Scores: 9 | Scores: 10 | Scores: 11" in lines, lines
    assert "Leeds | 5" in lines, lines
    # a corner cell left empty is still a header row; an empty marked row, dropped, marks
    # nothing: the row under it is data (review)
    page.write_text(
        "<html><body><table><tr><td></td><th>2021</th><th>2022</th></tr>"
        "<tr><th>North</th><td>7</td><td>9</td></tr></table>"
        "<table><thead><tr><th>&nbsp;</th><th> </th></tr></thead>"
        "<tr><td>Q1</td><td>10</td></tr><tr><td>Q2</td><td>11</td></tr></table></body></html>"
    )
    lines = text_of(extract(page)).splitlines()
    assert "North | 2021: 7 | 2022: 9" in lines, lines
    assert "Q2 | 11" in lines, lines

    d = docx.Document()

    def word_table(rows: list[list[str]], mark: str | None) -> None:
        """A table of ``rows``; ``mark``: its first row's w:tblHeader value ("" for none
        written, None for no mark)."""
        t = d.add_table(rows=len(rows), cols=len(rows[0]))
        for r, cells in enumerate(rows):
            for c, text in enumerate(cells):
                t.cell(r, c).text = text
        if mark is not None:
            header = OxmlElement("w:tblHeader")
            if mark:
                header.set(qn("w:val"), mark)
            t.rows[0]._tr.get_or_add_trPr().append(header)

    word_table(years, "")
    word_table([["Town", "2021"], ["Leeds", "5"]], None)  # not marked
    word_table([["City", "2020"], ["York", "3"]], "false")  # marked, then unmarked
    d.save(tmp_path / "years.docx")
    lines = text_of(extract(tmp_path / "years.docx")).splitlines()
    assert want in lines and "Leeds | 5" in lines and "York | 3" in lines, lines

    body = (
        "<table:table><table:table-header-rows>"
        + row(*(cell(c) for c in years[0]))
        + "</table:table-header-rows>"
        + row(*(cell(c) for c in years[1]))
        + "</table:table>"
    )
    lines = text_of(extract(_odt(tmp_path / "years.odt", body))).splitlines()
    assert want in lines, lines

    # PowerPoint's "header row" is a style every new table has on, data or not: its
    # header is guessed (review)
    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    shape = slide.shapes.add_table(2, 2, Inches(1), Inches(2), Inches(6), Inches(1))
    assert shape.table.first_row
    for r, cells in enumerate([["Q1", "10"], ["Q2", "11"]]):
        for c, text in enumerate(cells):
            shape.table.cell(r, c).text = text
    deck.save(str(tmp_path / "quarters.pptx"))
    lines = text_of(extract(tmp_path / "quarters.pptx")).splitlines()
    assert "Q2 | 11" in lines, lines


def test_a_workbook_tables_header_row_names_its_columns(tmp_path: Path) -> None:
    """A sheet formatted as a table (Excel's "Format as Table") says which row is its
    header: "Region | 2021 | 2022" names the columns though its names are numbers; a
    table saved with no header row (headerRowCount 0), and a sheet with no table, are
    guessed as before."""
    import openpyxl
    from openpyxl.worksheet.table import Table

    book = openpyxl.Workbook()
    sales = book.active
    sales.title = "Sales"
    sales.append(["Region", "2021", "2022"])
    sales.append(["North", 7, 9])
    sales.add_table(Table(displayName="Sales", ref="A1:C2"))
    bare = book.create_sheet("Bare")
    bare.append(["City", "2020", None, "Note", "By"])
    bare.append(["York", 3, None, "ok", "Ann"])
    untitled = Table(displayName="Untitled", ref="A1:B2", headerRowCount=0)
    bare.add_table(untitled)
    # a table with a header on the same row does not make the headerless one's data names
    bare.add_table(Table(displayName="Notes", ref="D1:E2"))
    plain = book.create_sheet("Plain")
    plain.append(["Town", "2021"])
    plain.append(["Leeds", 5])
    book.save(tmp_path / "sales.xlsx")
    lines = text_of(extract(tmp_path / "sales.xlsx")).splitlines()
    assert "Region: North | 2021: 7 | 2022: 9" in lines, lines
    assert "York | 3 | ok | Ann" in lines and "Leeds | 5" in lines, lines

    # as Excel writes them: relative targets, headerRowCount left out; sheets told apart
    # by their place, not their name (two may share one as written); a part too large to
    # be a table's is not read for a mark (review)
    def rewrite(name: str, data: bytes) -> bytes:
        data = data.replace(b'Target="/xl/worksheets/', b'Target="worksheets/')
        data = data.replace(b'Target="/xl/tables/', b'Target="../tables/')
        data = data.replace(b' headerRowCount="1"', b"")
        return data.replace(b'name="Plain"', b'name="Sales"') if name.endswith("book.xml") else data

    excel = tmp_path / "excel.xlsx"
    with zipfile.ZipFile(tmp_path / "sales.xlsx") as zin, zipfile.ZipFile(excel, "w") as zout:
        assert b'headerRowCount="1"' in zin.read("xl/tables/table1.xml")
        for info in zin.infolist():
            zout.writestr(info, rewrite(info.filename, zin.read(info)))
    lines = text_of(extract(excel)).splitlines()
    assert "Region: North | 2021: 7 | 2022: 9" in lines, lines
    assert "York | 3 | ok | Ann" in lines and "Leeds | 5" in lines, lines

    from docent.core.formats import sheets

    big = b"<table xmlns='x' ref='A1:B2'>" + b" " * (sheets.MAX_MARK_PART + 1) + b"</table>"
    with zipfile.ZipFile(excel) as zf:
        assert len(sheets._table_headers(zf)) == 3
    huge = tmp_path / "huge.xlsx"
    with zipfile.ZipFile(excel) as zin, zipfile.ZipFile(huge, "w") as zout:
        for info in zin.infolist():
            zout.writestr(info, big if info.filename == "xl/tables/table1.xml" else zin.read(info))
    with zipfile.ZipFile(huge) as zf:
        assert sheets._table_headers(zf)[0] == []

    # a table part that cannot be parsed loses its mark only: the sheets are read
    damaged = tmp_path / "damaged.xlsx"
    with zipfile.ZipFile(tmp_path / "sales.xlsx") as zin, zipfile.ZipFile(damaged, "w") as zout:
        for info in zin.infolist():
            zout.writestr(info, b"<not xml" if "tables/" in info.filename else zin.read(info))
    lines = text_of(extract(damaged)).splitlines()
    assert "North | 7 | 9" in lines and "Leeds | 5" in lines, lines


def test_a_workbook_tables_rows_appended_below_it_and_an_empty_table_keep_their_names(
    tmp_path: Path,
) -> None:
    """Rows a script appended right under a table (its range not grown) are the table's;
    a note after an empty row is not. A new table's header with no row yet under it is
    kept, a unit of its own (review)."""
    import openpyxl
    from openpyxl.worksheet.table import Table

    book = openpyxl.Workbook()
    data = book.active
    data.title = "Data"
    for r in (["Region", "Sales"], ["R2", 2], ["R3", 3], ["R4", 4], ["R5", 5], ["R6", 6]):
        data.append(r)
    data.append([])
    data.append(["Checked by Ann"])
    data.add_table(Table(displayName="Sales", ref="A1:B4"))  # rows 5-6 appended later
    log = book.create_sheet("Log")
    log.append(["Expense log"])
    log.append([])
    log.append(["Date", "Vendor", "Amount"])  # row 3, the body (row 4) still empty
    log.append([])
    log.append([])
    log.append(["Approved by finance"])
    log.add_table(Table(displayName="Expenses", ref="A3:C4"))
    book.save(tmp_path / "book.xlsx")
    doc = extract(tmp_path / "book.xlsx")
    lines = text_of(doc).splitlines()
    assert "Region: R6 | Sales: 6" in lines and "Checked by Ann" in lines, lines
    assert "Date | Vendor | Amount" in lines and "Approved by finance" in lines, lines
    assert [p.label for p in doc.pages if p.label.startswith("Log")] == [
        "Log row 1",
        "Log row 3",
        "Log row 6",
    ]


def test_a_marked_title_row_over_a_marked_header_of_years_names_the_columns(
    tmp_path: Path,
) -> None:
    """A title row and a header of years under it, both marked as the table's header
    (HTML ``<thead>`` or ``<th>`` rows, Word's repeated header rows, OpenDocument's header
    rows): the title is said once and the years name the columns, though they are numbers.
    A title marked alone leaves the row under it guessed: it may be data."""
    import docx
    from docx.oxml import OxmlElement

    want = "Region: North | 2021: 7 | 2022: 9"
    page = tmp_path / "sales.html"
    page.write_text(
        "<html><body><table><thead><tr><th colspan='3'>Sales</th></tr>"
        "<tr><td>Region</td><td>2021</td><td>2022</td></tr></thead>"
        "<tr><td>North</td><td>7</td><td>9</td></tr><tr><td>South</td><td>1</td><td>2</td></tr>"
        "</table>"
        "<table><tr><th colspan='3'>Costs</th></tr><tr><th>Region</th><th>2021</th>"
        "<th>2022</th></tr><tr><td>East</td><td>3</td><td>4</td></tr>"
        "<tr><td>West</td><td>5</td><td>6</td></tr></table>"
        # the title alone marked: the rows under it are guessed (numbers: data)
        "<table><tr><th colspan='2'>Prices</th></tr><tr><td>Apple</td><td>3</td></tr>"
        "<tr><td>Pear</td><td>4</td></tr></table>"
        # a title written in a <td> across the table, over a marked header
        "<table><tr><td colspan='3'>Stock</td></tr><tr><th>Shop</th><th>2021</th>"
        "<th>2022</th></tr><tr><td>Leeds</td><td>8</td><td>9</td></tr>"
        "<tr><td>York</td><td>1</td><td>2</td></tr></table>"
        # a <td> title over unmarked rows: guessed
        "<table><tr><td colspan='2'>Weights</td></tr><tr><td>Box</td><td>3</td></tr>"
        "<tr><td>Crate</td><td>4</td></tr></table></body></html>"
    )
    lines = text_of(extract(page)).splitlines()
    assert lines[lines.index("Sales") + 2] == want, lines
    assert "Region: East | 2021: 3 | 2022: 4" in lines, lines
    assert "Apple | 3" in lines and "Pear | 4" in lines, lines
    assert lines[lines.index("Stock") + 2] == "Shop: Leeds | 2021: 8 | 2022: 9", lines
    assert "Box | 3" in lines and "Crate | 4" in lines, lines

    d = docx.Document()
    t = d.add_table(rows=4, cols=3)
    t.cell(0, 0).merge(t.cell(0, 2)).text = "Sales"
    for r, cells in enumerate((("Region", "2021", "2022"), ("North", "7", "9")), start=1):
        for c, text in enumerate(cells):
            t.cell(r, c).text = text
    t.cell(3, 0).text = "South"
    for r in (0, 1):
        t.rows[r]._tr.get_or_add_trPr().append(OxmlElement("w:tblHeader"))
    d.save(tmp_path / "sales.docx")
    lines = text_of(extract(tmp_path / "sales.docx")).splitlines()
    assert want in lines, lines

    title = (
        "<table:table-row><table:table-cell table:number-columns-spanned='3'><text:p>Sales"
        "</text:p></table:table-cell><table:covered-table-cell/><table:covered-table-cell/>"
        "</table:table-row>"
    )
    body = (
        "<table:table><table:table-header-rows>"
        + title
        + row(*(cell(c) for c in ("Region", "2021", "2022")))
        + "</table:table-header-rows>"
        + row(*(cell(c) for c in ("North", "7", "9")))
        + row(*(cell(c) for c in ("South", "1", "2")))
        + "</table:table>"
    )
    lines = text_of(extract(_odt(tmp_path / "sales.odt", body))).splitlines()
    assert want in lines, lines


def test_a_group_row_over_a_sub_header_names_each_column_by_both(tmp_path: Path) -> None:
    """Two header rows the file marks, a group over its columns ("2021" over "Q1 | Q2")
    and the sub-header under it: each column is named by both, "2021 Q1", in HTML
    (``<thead>``, a corner cell spanning both rows), Word and OpenDocument. The sub-header
    was taken for a row of data, named by the years alone."""
    import docx
    from docx.oxml import OxmlElement

    want = "Region: West | 2021 Q1: 5 | 2021 Q2: 6 | 2022 Q1: 7 | 2022 Q2: 8"
    page = tmp_path / "sales.html"
    page.write_text(
        "<html><body><table><thead><tr><th rowspan='2'>Region</th>"
        "<th colspan='2'>2021</th><th colspan='2'>2022</th></tr>"
        "<tr><th>Q1</th><th>Q2</th><th>Q1</th><th>Q2</th></tr></thead>"
        "<tr><td>West</td><td>5</td><td>6</td><td>7</td><td>8</td></tr>"
        "<tr><td>East</td><td>1</td><td>2</td><td>3</td><td>4</td></tr></table></body></html>"
    )
    lines = text_of(extract(page)).splitlines()
    assert "Region | 2021 Q1 | 2021 Q2 | 2022 Q1 | 2022 Q2" in lines, lines
    assert (
        want in lines
        and "Region: East | 2021 Q1: 1 | 2021 Q2: 2 | 2022 Q1: 3 | 2022 Q2: 4" in lines
    )

    d = docx.Document()
    t = d.add_table(rows=3, cols=5)
    t.cell(0, 1).merge(t.cell(0, 2)).text = "2021"
    t.cell(0, 3).merge(t.cell(0, 4)).text = "2022"
    for r, cells in enumerate(
        (("Region", "Q1", "Q2", "Q1", "Q2"), ("West", "5", "6", "7", "8")), 1
    ):
        for c, text in enumerate(cells):
            t.cell(r, c).text = text
    for r in (0, 1):
        t.rows[r]._tr.get_or_add_trPr().append(OxmlElement("w:tblHeader"))
    d.save(tmp_path / "sales.docx")
    lines = text_of(extract(tmp_path / "sales.docx")).splitlines()
    assert want in lines, lines

    def group(year: str) -> str:
        return (
            f"<table:table-cell table:number-columns-spanned='2'><text:p>{year}</text:p>"
            "</table:table-cell><table:covered-table-cell/>"
        )

    body = (
        "<table:table><table:table-header-rows>"
        + row(cell(""), group("2021"), group("2022"))
        + row(*(cell(c) for c in ("Region", "Q1", "Q2", "Q1", "Q2")))
        + "</table:table-header-rows>"
        + row(*(cell(c) for c in ("West", "5", "6", "7", "8")))
        + "</table:table>"
    )
    lines = text_of(extract(_odt(tmp_path / "sales.odt", body))).splitlines()
    assert want in lines, lines


def test_marked_rows_that_are_no_group_over_a_sub_header_are_not_merged(
    tmp_path: Path,
) -> None:
    """Rows the HTML reader counts as marked (all ``<th>``) that are no group over a
    sub-header: a section row under the header ("Europe" across the table, or in its
    first cell), and rows of data written in ``<th>`` cells. They stay rows, named by the
    header as before (review: they were merged into it, "Country Europe: France"). A
    cell over both header rows and two columns names them once."""
    page = tmp_path / "countries.html"
    page.write_text(
        "<html><body><table><tr><th>Country</th><th>Population</th><th>Capital</th></tr>"
        "<tr><th colspan='3'>Europe</th></tr>"
        "<tr><td>France</td><td>67</td><td>Paris</td></tr>"
        "<tr><th colspan='3'>Asia</th></tr><tr><td>Japan</td><td>125</td><td>Tokyo</td></tr>"
        "</table>"
        "<table><tr><th>City</th><th>Rain</th></tr><tr><th>North</th><td></td></tr>"
        "<tr><td>Leeds</td><td>800</td></tr></table>"
        "<table><tr><th>Name</th><th>Age</th></tr><tr><th>Ada</th><th>36</th></tr>"
        "<tr><th>Alan</th><th>41</th></tr><tr><td>Total</td><td>77</td></tr></table>"
        "<table><thead><tr><th rowspan='2' colspan='2'>Where</th><th colspan='2'>2021</th>"
        "</tr><tr><th>Q1</th><th>Q2</th></tr></thead>"
        "<tr><td>West</td><td>coast</td><td>5</td><td>6</td></tr></table>"
        # a group and its sub-header, then rows of data in <th> cells too
        "<table><tr><th rowspan='2'>Area</th><th colspan='2'>2020</th></tr>"
        "<tr><th>H1</th><th>H2</th></tr><tr><th>Hull</th><th>5</th><th>6</th></tr>"
        "<tr><th>Bath</th><th>7</th><th>8</th></tr></table>"
        # a header over two columns, a row of data in <th> cells: no sub-header
        "<table><tr><th>Pupil</th><th colspan='2'>Score</th></tr>"
        "<tr><th>Ada</th><th>5</th><th>6</th></tr><tr><td>Alan</td><td>7</td><td>8</td></tr>"
        "</table></body></html>"
    )
    lines = text_of(extract(page)).splitlines()
    assert "Country | Population | Capital" in lines, lines
    assert "Country: France | Population: 67 | Capital: Paris" in lines, lines
    assert "Country: Europe" in lines and "Country: Asia" in lines, lines
    assert "City: Leeds | Rain: 800" in lines, lines
    assert "Name: Ada | Age: 36" in lines and "Name: Total | Age: 77" in lines, lines
    assert "Where | 2021 Q1 | 2021 Q2" in lines, lines
    assert "Where: West | Where: coast | 2021 Q1: 5 | 2021 Q2: 6" in lines, lines
    assert "Area | 2020 H1 | 2020 H2" in lines, lines
    assert "Area: Bath | 2020 H1: 7 | 2020 H2: 8" in lines, lines
    assert "Pupil: Ada | Score: 5 | Score: 6" in lines, lines


def test_one_group_after_an_empty_corner_names_the_columns_as_two_do(tmp_path: Path) -> None:
    """One group over the columns after an empty corner, over a sub-header, both marked:
    "2021 Q1" as with two groups, not "2021" said once as a title over the table; a
    title over every column is still said once (review)."""
    page = tmp_path / "sales.html"
    page.write_text(
        "<html><body><table><thead><tr><th></th><th colspan='2'>2021</th></tr>"
        "<tr><th>Region</th><th>Q1</th><th>Q2</th></tr></thead>"
        "<tr><td>West</td><td>5</td><td>6</td></tr></table>"
        "<table><thead><tr><th colspan='3'>Quarterly</th></tr>"
        "<tr><th></th><th colspan='2'>2022</th></tr>"
        "<tr><th>Region</th><th>Q1</th><th>Q2</th></tr></thead>"
        "<tr><td>East</td><td>7</td><td>8</td></tr></table></body></html>"
    )
    lines = text_of(extract(page)).splitlines()
    assert "Region: West | 2021 Q1: 5 | 2021 Q2: 6" in lines, lines
    assert lines[lines.index("Quarterly") + 2] == "Region: East | 2022 Q1: 7 | 2022 Q2: 8", lines


def test_a_workbook_table_under_a_title_or_another_table_is_named_by_its_own_header(
    tmp_path: Path,
) -> None:
    """A sheet whose table starts below a title ("Quarterly sales", then a blank row), and
    a second table further down: each marked header row names the rows under it, to its
    table's last row, not only a header on the sheet's first row. The title stays a row of
    its own; a note below the tables, and a table beside another whose header row is the
    other's data, are named by nothing (review)."""
    import openpyxl
    from openpyxl.worksheet.table import Table

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Report"
    sheet.append(["Quarterly sales"])
    sheet.append([])
    sheet.append(["Region", "2021", "2022"])  # row 3
    sheet.append(["North", 7, 9])
    sheet.append(["South", 12, 4])
    sheet.append([])
    sheet.append(["Store", "Staff"])  # row 7
    sheet.append(["Leeds", 14])
    sheet.append([])
    sheet.append(["Figures are provisional", "see the appendix"])  # row 10: a note
    sheet.add_table(Table(displayName="Sales", ref="A3:C5"))
    sheet.add_table(Table(displayName="Stores", ref="A7:B8"))
    # side by side: a table whose header row is the other's data row names nothing there
    side = book.create_sheet("Side")
    for r in (["Name", "Team"], ["Ann", "Red"], ["Bob", "Blue", None, "Year", "Count"]):
        side.append(r)
    side.append(["Cy", "Green", None, "2021", 5])
    side.add_table(Table(displayName="People", ref="A1:B4"))
    side.add_table(Table(displayName="Counts", ref="D3:E4"))
    book.save(tmp_path / "report.xlsx")
    doc = extract(tmp_path / "report.xlsx")
    assert [p.label for p in doc.pages][:3] == ["Report row 1", "Report rows 4–5", "Report row 8"]
    lines = text_of(doc).splitlines()
    assert "Quarterly sales" in lines, lines
    assert "Region: North | 2021: 7 | 2022: 9" in lines, lines
    assert "Region: South | 2021: 12 | 2022: 4" in lines, lines
    assert "Store: Leeds | Staff: 14" in lines, lines
    # below the table, rows are not the table's
    assert "Figures are provisional | see the appendix" in lines, lines
    assert "Name: Bob | Team: Blue | Year | Count" in lines, lines
    assert "Name: Cy | Team: Green | 2021 | 5" in lines, lines


def test_a_title_row_over_a_header_row_leaves_the_header_its_names(tmp_path: Path) -> None:
    """A table whose first row is its title, one cell merged over every column ("Quarterly
    results"), then its header: the title was the only row looked at for a header, so no
    value was named. The title is said once, and the row under it is weighed as the
    header, as any first row is."""
    import docx

    page = tmp_path / "results.html"
    page.write_text(
        "<html><body><table><tr><th colspan='3'>Quarterly results</th></tr>"
        "<tr><td>Name</td><td>Q1</td><td>Q2</td></tr>"
        "<tr><td>Ada</td><td>9</td><td>10</td></tr></table>"
        # a title over rows of numbers: no header under it either
        "<table><tr><th colspan='2'>Readings</th></tr>"
        "<tr><td>1</td><td>2</td></tr><tr><td>3</td><td>4</td></tr></table></body></html>"
    )
    lines = text_of(extract(page)).splitlines()
    i = lines.index("Quarterly results")
    assert lines[i + 1 : i + 3] == ["Name | Q1 | Q2", "Name: Ada | Q1: 9 | Q2: 10"], lines
    j = lines.index("Readings")
    assert lines[j + 1 : j + 3] == ["1 | 2", "3 | 4"], lines

    d = docx.Document()
    t = d.add_table(rows=3, cols=3)
    t.cell(0, 0).merge(t.cell(0, 2)).text = "Quarterly results"
    for r, cells in enumerate((("Name", "Q1", "Q2"), ("Ada", "9", "10")), start=1):
        for c, text in enumerate(cells):
            t.cell(r, c).text = text
    d.save(tmp_path / "results.docx")
    lines = text_of(extract(tmp_path / "results.docx")).splitlines()
    assert "Name: Ada | Q1: 9 | Q2: 10" in lines, lines
