"""The window with the documents people have, as a user meets them: a folder of Word and
Excel files and a scan dropped on it is indexed (an old .doc is named, in words that list
what Docent does read); an answer's chip names the place it cites and, clicked, shows a
Word or Excel passage in its section or rows with the passage highlighted, and the scan's
page with the lines OCR read the passage from lit up."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gui_helpers import ANSWER_TIMEOUT_MS, INDEX_TIMEOUT_MS, click_chip, drop

from docent.gui.citation_pane import PDF, TEXT
from docent.gui.messages import bridge
from format_files import PHRASES, make_docx, make_xlsx
from scan_files import page_image, save_scan

SCAN_LINES = ["Minutes of the lighthouse board", "The board agreed to repaint the tower."]


def test_a_dropped_folder_of_office_files_and_a_scan_is_cited_where_it_reads(
    qtbot: Any, make_engine: Any, make_window: Any, tmp_path: Path, ollama_down_host: str
) -> None:
    folder = tmp_path / "inbox"
    folder.mkdir()
    make_docx(folder / "report.docx")
    make_xlsx(folder / "ledger.xlsx")
    save_scan(folder / "minutes.pdf", [page_image(SCAN_LINES)])
    (folder / "old.doc").write_bytes(b"\xd0\xcf\x11\xe0 an old binary Word file")
    window = make_window(make_engine(ollama_host=ollama_down_host))
    lib, chat, sources = window.library, window.chat, window.citations

    posted: list[str] = []  # what was said, whether or not its note timed out since
    bridge().message_posted.connect(lambda m: posted.append(m.text))
    with qtbot.waitSignal(lib.controller.run_finished, timeout=INDEX_TIMEOUT_MS):
        drop(window, [folder])
    rows = {r.file_name: r for r in lib.model.rows()}
    assert sorted(rows) == ["ledger.xlsx", "minutes.pdf", "report.docx"]
    assert [r.state for r in rows.values()] == ["ready"] * 3, [r.state_text for r in rows.values()]
    assert rows["minutes.pdf"].state_text == "ready · OCR"
    said = " ".join(posted)
    assert "old.doc" in said and "Word" in said and "EPUB" in said, said

    def ask_and_click(name: str, question: str) -> Any:
        chat.set_scope([str(folder / name)])
        with qtbot.waitSignal(chat.answer_finished, timeout=ANSWER_TIMEOUT_MS) as done:
            chat.ask(question)
        turn = done.args[0]
        cited = [c for c in turn.answer.citations if c.file_name == name]
        assert cited, (name, turn.answer.text)
        with qtbot.waitSignal(sources.page_shown, timeout=ANSWER_TIMEOUT_MS):
            tip = click_chip(chat.view, turn.number, cited[0].n)
        # the chip names the file and the place it cites before it is clicked
        assert tip.startswith(f"[{cited[0].n}] {name}, {cited[0].pages_label}"), tip
        return cited[0]

    for name in ("report.docx", "ledger.xlsx"):
        phrase, location = PHRASES[name]
        cite = ask_and_click(name, phrase)
        assert cite.location == location
        assert sources.header.text() == f"{name} — {location}"
        assert sources.stack.currentIndex() == TEXT
        assert phrase.lower() in sources.text_view.highlighted_text().lower()
        assert sources.note.text() == "The cited passage is highlighted."

    ask_and_click("minutes.pdf", "What did the lighthouse board agree?")
    assert sources.header.text() == "minutes.pdf — p. 1"
    assert sources.stack.currentIndex() == PDF
    render = sources.last_render
    # The scan has no text layer: the highlight comes from the lines OCR read.
    assert render is not None and render.method == "ocr" and render.rects
    assert sources.note.text() == "The cited passage is highlighted."
