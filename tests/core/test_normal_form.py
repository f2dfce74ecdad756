"""Decomposed text (NFD: "e" + U+0301 for "é", as a Mac may write it) is composed as it
enters (core/normal_form.py), so a question typed with composed letters finds it, and a
passage found in a page that is still decomposed (pdfium's text) lights up the right words."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest

from docent.core.config import load_settings
from docent.core.conversation import Conversation
from docent.core.engine import Engine
from docent.core.models import ExtractedDocument, LineBox, Page
from docent.core.normal_form import composed, document
from docent.core.passages import locate_spans, passage_boxes
from docent.core.textcache import TextCache


def nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


@pytest.mark.parametrize(
    "text",
    [
        "Le café du résumé, naïve Ångström.",
        "한국어 텍스트와 café",
        "a" + "\u0301\u0302" * 100 + " zalgo",  # marks stacked past the run limit
        "\u0301 a mark before any letter, then é",
    ],
)
def test_composed_text_is_nfc_and_maps_back_to_the_original(text: str) -> None:
    original = nfd(text)
    assert original != nfc(original)  # the case at hand: not composed to begin with
    out, where = composed(original)
    assert out == nfc(original)
    assert len(where) == len(out) + 1 and where[-1] == len(original)
    assert where == sorted(where)
    # each word maps back to the original characters it was composed from
    for word in out.split():
        i = out.index(word)
        assert nfc(original[where[i] : where[i + len(word)]]) == word


def test_a_passage_is_found_in_decomposed_page_text_at_the_original_offsets() -> None:
    page_text = nfd("Opening hours. Le café du résumé ouvre à sept heures. Fin.")
    passage = "Le café du résumé ouvre à sept heures"  # a span runs from word to word
    ((start, length),) = locate_spans(page_text, passage + ".")
    assert nfc(page_text[start : start + length]) == passage
    # and a decomposed passage (a library indexed before) in composed page text
    ((start, length),) = locate_spans(nfc(page_text), nfd(passage))
    assert nfc(page_text)[start : start + length] == passage


def test_an_ocr_pages_lines_keep_their_text_when_it_is_composed() -> None:
    lines = [nfd("Résumé de la réunion"), nfd("Thé et café à midi")]
    text = "\n".join(lines)
    boxes = (
        LineBox(0, len(lines[0]), 0.1, 0.1, 0.9, 0.2),
        LineBox(len(lines[0]) + 1, len(text), 0.1, 0.3, 0.9, 0.4),
    )
    doc = document(ExtractedDocument("/x.pdf", "pdf", [Page(1, text, ocr=True, lines=boxes)]))
    (page,) = doc.pages
    assert page.text == nfc(text)
    assert [page.text[b.start : b.end] for b in page.lines] == [nfc(s) for s in lines]
    (box,) = passage_boxes(page, "Thé et café à midi")
    assert (box.y0, box.y1) == (0.3, 0.4)


def test_composed_text_is_left_as_it_is() -> None:
    doc = ExtractedDocument("/x.txt", "text", [Page(1, "Le café, composed already.")])
    assert document(doc) is doc


def test_text_cached_decomposed_comes_back_composed(tmp_path: Path) -> None:
    cache = TextCache(tmp_path)
    sha = "ab" * 32
    cache.put(sha, ExtractedDocument("/x.txt", "text", [Page(1, "plain")]))
    # as a Docent that did not compose what it extracted would have written it
    file = tmp_path / sha[:2] / f"{sha}.json"
    data = json.loads(file.read_text(encoding="utf-8"))
    data["pages"] = [nfd("Un résumé décomposé.")]
    file.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    got = cache.get(sha)
    assert got is not None and got.pages[0].text == "Un résumé décomposé."


def test_a_decomposed_file_is_found_by_the_words_as_typed(
    tmp_path: Path, ollama_down_host: str
) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "notes.txt").write_text(
        nfd(
            "Minutes of the board.\n\nThe café on the quay sends its résumé of sales every "
            "Friday; the naïve forecast is kept in the ledger.\n"
        ),
        encoding="utf-8",
    )
    (lib / "other.txt").write_text(
        "The harbour master counts the ships that enter after dark.\n", encoding="utf-8"
    )
    settings = load_settings(extract_in_subprocess=False, ollama_host=ollama_down_host)
    with Engine(settings).open() as eng:
        eng.index([lib])
        (match,) = eng.grep("résumé")  # typed composed, as a keyboard writes it
        assert match.file_name == "notes.txt" and "café on the quay" in match.line
        hit = eng.search("résumé of sales").hits[0]
        assert hit.file_name == "notes.txt" and "résumé of sales" in hit.text
        # BM25 sees the same word in the question and the passage, not "re" + "sume"
        assert eng.store is not None
        question = set(eng.embedder.query_sparse("résumé").indices)
        (passage,) = eng.embedder.embed_sparse([hit.text])
        assert question <= set(passage.indices)
        # and a question pasted decomposed is searched composed
        pasted = eng.search(nfd("résumé"), debug=True).hits
        typed = eng.search("résumé", debug=True).hits
        assert [(h.doc_id, h.ordinal, h.debug) for h in pasted] == [
            (h.doc_id, h.ordinal, h.debug) for h in typed
        ]
        # a question pasted decomposed is asked composed, and answered from the passage
        conv = Conversation()
        answer = eng.ask(nfd("Who sends a résumé of sales every Friday?"), conversation=conv)
        assert conv.turns[0].question == "Who sends a résumé of sales every Friday?"
        assert answer.citations and answer.citations[0].file_name == "notes.txt"
