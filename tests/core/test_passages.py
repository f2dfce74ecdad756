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
    # the page says "an odd message" where the passage says "an appropriate message": the
    # span stops at that word, and starts again after it
    odd = FOOT.replace("appropriate", "odd")
    spans = lit(f"Chapter 3\n{odd}\nSIMH Users' Guide 7", PASSAGE)
    assert spans and spans[0] == odd[: odd.index(" odd")], spans
    assert all("odd" not in span for span in spans)
    # nor into the end of a longer word: "reprinted" is not the passage's "printed"
    assert lit(f"It was reprinted. {HEAD}", PASSAGE) == [HEAD.rstrip(".")]
    assert not locate_spans("Nothing of it is here.", PASSAGE)


def test_a_footers_first_word_is_not_taken_for_the_passages_next_one() -> None:
    # the passage goes on with "For simulated ..." on the next page; this page's footer
    # also opens with "For": across a line break two words must follow on
    page = f"Chapter 3\n{FOOT}\nFor more see p. 7"
    assert lit(page, PASSAGE) == [FOOT.rstrip(".")]
    # a word alone on its line is the passage's still (a short last line, a heading)
    last_line = FOOT.replace(" is printed.", " is\nprinted.")
    assert lit(f"Chapter 3\n{last_line}\nSIMH Users' Guide", PASSAGE) == [last_line.rstrip(".")]
    first_line = HEAD.replace("For simulated", "For\nsimulated")
    assert lit(f"SIMH Users' Guide\n{first_line}", PASSAGE) == [first_line.rstrip(".")]
    # within a line one word is enough (the passage's next word, then its page ends),
    # a whole word: "Format" is not "For"
    assert lit(f"{FOOT} For", PASSAGE) == [f"{FOOT} For"]
    assert lit(f"{FOOT} Format", PASSAGE) == [FOOT.rstrip(".")]
    # the same before a passage's part: a running header that ends with the passage's
    # word before it ("printed") is not lit
    assert lit(f"Output printed\n{HEAD}", PASSAGE) == [HEAD.rstrip(".")]


def test_a_part_shorter_than_a_window_at_a_page_edge_is_lit() -> None:
    """A passage that starts on a page's last line: every fixed window crossed the break,
    and nothing was lit on that page (review). Its start, at the page's end, is."""
    head = (
        "For simulated magnetic tapes, the ATTACH command can specify the format of the "
        "attached tape image file. The default format is SIMH."
    )
    page7 = "3.3 Tapes\nTapes are sequential devices.\nUse ATTACH to mount a tape.\nSIMH Guide 7"
    passage = f"Use ATTACH to mount a tape. {head}"
    assert lit(page7, passage) == ["Use ATTACH to mount a tape"]
    # and its end at the next page's start
    page8 = "SIMH Guide 8\nattached tape image file. The default format is SIMH.\nMore."
    assert lit(page8, "Use ATTACH to mount a tape. " + head) == [
        "attached tape image file. The default format is SIMH"
    ]
    # three words of it elsewhere on a page are not its part
    middle = "Use ATTACH to load a disk.\nNotes.\nMore notes.\nThe end of the page."
    assert lit(middle, passage) == []


def test_a_passage_is_not_lit_inside_a_longer_word() -> None:
    page = "The bobcat sat on the mat. Later the cat sat on the mat."
    assert locate_spans(page, "cat sat on the mat.") == [(page.index(" cat sat") + 1, 18)]


def test_a_passage_made_whole_is_found_where_the_page_breaks_its_words() -> None:
    """The indexed passage says "documentation"; pdfium's page text still breaks it at a
    line's end (its U+FFFE mark, a hyphen or a soft hyphen): the span covers the broken
    word, in the page's own offsets."""
    for mark in ("-", "\ufffe", "\xad"):
        page = f"Intro.\r\nCareful docu{mark}\r\nmentation of the inter\xadnational office."
        ((start, length),) = locate_spans(page, "Careful documentation of the international")
        assert page[start : start + length] == page[page.index("Careful") : -len(" office.")]


def test_a_compound_kept_whole_is_found_where_the_page_breaks_it() -> None:
    for brk in ("-\r\n", "\ufffe"):
        page = f"The WRITE ALL function dumps non{brk}data words into the bit bucket."
        ((start, length),) = locate_spans(page, "dumps non-data words into the bit bucket")
        assert page[start : start + length] == page[page.index("dumps") : -1]


def test_the_mark_alone_is_a_break_as_qtpdf_gives_the_page() -> None:
    """QtPdf's text has pdfium's U+FFFE with no line break after it (review h20)."""
    page = "The analysis shows that out\ufffeliers were removed before the final step."
    ((start, length),) = locate_spans(page, "The analysis shows that outliers were removed")
    assert page[start : start + length] == page[: page.index(" before")]


def test_a_short_part_ending_the_page_is_lit_at_the_end_not_where_the_page_first_says_it() -> None:
    """A passage starts on the last line of p.4 with "The results show" and goes on to
    p.5. Lit with only its part on p.4 (Citation.part_on), the words matched whole at
    their first place on the page: an earlier line saying the same (review s21)."""
    page = (
        "The results show a clear trend in the first table.\n"
        "More text about the method and other matters here.\n"
        "The results show"
    )
    last = page.rindex("The results show")
    assert locate_spans(page, "The results show", edge="end") == [(last, 16)]
    assert locate_spans(page, "The", edge="end") == [(last, 3)]  # one word: still its place
    # ... and the same part, opening the next page, is lit at its start only
    nxt = "for the second table too.\nA later line: for the second table too."
    assert locate_spans(nxt, "for the second table too.", edge="start") == [(0, 24)]
    far = "A header\nnothing of it here\nnor here\nnor here either\nends here"
    assert locate_spans(far, "ends", edge="start") == []


def test_a_short_part_at_the_foot_above_footnotes_is_still_lit_nearest_the_foot() -> None:
    """The part ending p.4 is followed by four lines of footnotes and a page number: it
    was looked for within two lines of the page's end only, found nowhere, and the pane
    fell back to lighting the phrase's first place on the page (review s21)."""
    page = (
        "In summary the results show a first trend.\n"
        "Body text about the method.\n"
        "In summary the results show\n"
        "1 A footnote on the method.\n"
        "2 Another footnote.\n"
        "3 A third one.\n"
        "Journal of Examples 12 (2026)\n"
        "17"
    )
    last = page.rindex("In summary the results show")
    assert locate_spans(page, "In summary the results show", edge="end") == [(last, 27)]
    # one or two words far from the edge stay dark: they stand anywhere
    assert locate_spans(page, "In summary", edge="end") == []
