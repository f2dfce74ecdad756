"""Where a cited passage is in a page's text (passages.locate_spans), as the PDF view,
the text view and OCR'd pages light it up."""

from __future__ import annotations

from docent.core.passages import WINDOW_WORDS, locate_spans

FOOT = (
    "The ATTACH command associates a unit with a file. If the file does not exist, "
    "a new file is created and an appropriate message is printed."
)
HEAD = (
    "For simulated magnetic tapes, the ATTACH command can specify the format of the "
    "attached tape image file."
)
PASSAGE = f"{FOOT} {HEAD}"


def lit(page_text: str, passage: str) -> list[str]:
    return [page_text[start : start + length] for start, length in locate_spans(page_text, passage)]


def test_a_whole_passage_is_one_span_whatever_its_spacing() -> None:
    passage = PASSAGE.replace(" ", "\n", 3)
    (span,) = lit(f"Intro line.\n{passage}\nNext section.", PASSAGE)
    assert span == passage.rstrip(".")


def test_the_part_of_a_passage_that_opens_the_next_page_is_lit_from_its_first_word() -> None:
    # the passage's second page holds only its tail; the window across the page break
    # matches neither page, and the tail's first words must still be lit
    assert len(FOOT.split()) % WINDOW_WORDS  # the tail does not start on a window's edge
    page = f"3.4 Attaching files\n{HEAD}\n   ATTACH -f <tape_unit> <format> <filename>"
    (span,) = lit(page, PASSAGE)
    assert span == HEAD.rstrip(".")


def test_the_part_that_ends_the_first_page_is_lit_to_its_last_word() -> None:
    page = f"Chapter 3 Commands\nSome other paragraph.\n{FOOT}\nSIMH Users' Guide 7"
    (span,) = lit(page, PASSAGE)
    assert span == FOOT.rstrip(".")


def test_growing_stops_at_a_word_the_page_does_not_hold_there() -> None:
    # the page says "a new tape" where the passage says "a new file": the span is not
    # stretched over it, nor into the middle of a longer word
    page = f"Retape: {HEAD}\nOther text, a new tape is created."
    spans = lit(page, PASSAGE)
    assert spans == [HEAD.rstrip(".")]
    assert not locate_spans("Nothing of it is here.", PASSAGE)
