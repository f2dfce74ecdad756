"""How much of a passage over two pages is lit on each of its pages.

    DOCENT_HOME=/work/lib-full .venv/bin/python benchmarks/highlight_parts.py

On a library already indexed (the whole corpus: ``retrieval_eval.py --library full``),
every passage that runs onto another page (``page_breaks``) is located in each of its
pages' text as pdfium reads it (pypdfium2 here; the window's QtPdf is pdfium too) by
``passages.locate_spans``, the function the PDF view, the text view and OCR'd pages
light passages up with. For each page's part of the passage it prints how many of its
words fall inside the lit spans: the median and mean share, the parts lit whole, and
the parts not lit at all (pdfium's text differs from what was indexed: OCR'd pages,
ligatures, glyphs with no Unicode). No model is asked; nothing is timed.
"""

from __future__ import annotations

import re
import statistics
from difflib import SequenceMatcher

import pypdfium2

from docent.core.config import load_settings
from docent.core.engine import Engine
from docent.core.models import page_breaks_of, split_pages
from docent.core.passages import locate_spans

WORD = re.compile(r"\w+")


def share_lit(page_text: str, passage: str, part: str) -> float:
    """Of ``part``'s words, the share found in order in the spans lit for ``passage`` on
    the page (the longest matching runs of the two word sequences, so a common word lit
    elsewhere on the page does not count)."""
    lit = " ".join(page_text[a : a + n] for a, n in locate_spans(page_text, passage))
    lit_words = [w.lower() for w in WORD.findall(lit)]
    words = [w.lower() for w in WORD.findall(part)]
    runs = SequenceMatcher(None, words, lit_words, autojunk=False).get_matching_blocks()
    return sum(r.size for r in runs) / len(words)


def main() -> int:
    engine = Engine(load_settings()).open()
    assert engine.store is not None
    shares: list[float] = []
    for doc in engine.documents():
        if doc.state.value != "ready" or not doc.path.lower().endswith(".pdf"):
            continue
        pdf = pypdfium2.PdfDocument(doc.path)
        texts: dict[int, str] = {}
        for payload, _ in engine.store.iter_chunks(doc.doc_id):
            breaks = page_breaks_of(payload)
            if not breaks:
                continue
            text = payload["text"]
            for page, part in split_pages(text, payload["page_start"], breaks):
                if len(WORD.findall(part)) < 3 or page > len(pdf):
                    continue
                if page not in texts:
                    texts[page] = pdf[page - 1].get_textpage().get_text_range()
                shares.append(share_lit(texts[page], text, part))
        pdf.close()
    engine.close()
    print(f"page parts of passages over two pages: {len(shares)}")
    print(f"share of a part's words lit: median {statistics.median(shares):.3f}, ", end="")
    print(f"mean {statistics.mean(shares):.3f}")
    print(f"lit whole: {sum(s >= 0.999 for s in shares)}, not lit: {sum(s == 0 for s in shares)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
