"""chunk_pages(): limits measured with MiniLM's own tokenizer, pages never lost."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from chunk_checks import (
    Counter,
    assert_cited_on_its_page,
    chunks_fit_and_cover,
    model_token_counter,
    ws,
)
from docent.core.chunking import chunk_pages, is_slide_deck
from docent.core.extract import extract
from docent.core.models import Chunk, ExtractedDocument, Page

MANUAL = "simh__vax780_doc.pdf"

WORDS = [
    *("data", "model", "vector", "index", "search", "page", "value", "table", "list", "file"),
    *("user", "system", "answer", "question", "manual", "section", "option", "command"),
    *("output", "input", "memory", "network", "server", "client"),
]


@pytest.fixture(scope="module")
def count_tokens() -> Counter:
    return model_token_counter()


def prose(rng: random.Random, n_sentences: int, tag: str, words: tuple[int, int] = (8, 20)) -> str:
    """Sentences "Tag3 model data ... index." with a unique tag word each, wrapped at 12 words."""
    sentences = []
    for i in range(n_sentences):
        body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(*words)))
        sentences.append(f"{tag}s{i} {body}.")
    text = " ".join(sentences)
    flat = text.split()
    return "\n".join(" ".join(flat[i : i + 12]) for i in range(0, len(flat), 12))


def tagged_pages(n_pages: int, per_page: int = 6, seed: int = 1) -> list[Page]:
    rng = random.Random(seed)
    return [Page(p, prose(rng, per_page, f"P{p}")) for p in range(1, n_pages + 1)]


def pages_of(chunk: Chunk) -> list[int]:
    return [int(m) for m in re.findall(r"\bP(\d+)s\d+\b", chunk.text)]


# Pages -----------------------------------------------------------------------------


def test_page_ranges_follow_the_sentences_across_page_breaks() -> None:
    chunks = chunk_pages(tagged_pages(12))
    assert len(chunks) > 3
    for c in chunks:
        seen = pages_of(c)
        assert seen, c.text
        assert (c.page_start, c.page_end) == (seen[0], seen[-1])
    assert any(c.page_start < c.page_end for c in chunks)
    assert {p for c in chunks for p in range(c.page_start, c.page_end + 1)} == set(range(1, 13))


def test_each_page_a_passage_runs_onto_is_placed_in_its_text() -> None:
    # a passage's citation opens the page its cited part is on: every sentence of every
    # chunk is put on the page it was printed on, from the offsets alone
    from docent.core.models import page_at

    chunks = chunk_pages(tagged_pages(12))
    spanning = [c for c in chunks if c.page_start < c.page_end]
    assert spanning
    for c in chunks:
        assert len(c.page_breaks) == c.page_end - c.page_start
        for m in re.finditer(r"\bP(\d+)s\d+\b", c.text):
            assert page_at(c.page_start, c.page_breaks, m.start()) == int(m.group(1)), c.text


def test_every_sentence_is_kept_in_order() -> None:
    pages = tagged_pages(8)
    chunks = chunk_pages(pages, overlap_sentences=0)
    assert " ".join(ws(c.text) for c in chunks) == " ".join(ws(p.text) for p in pages)


def test_ordinals_are_dense_and_chunking_is_deterministic() -> None:
    pages = tagged_pages(10, seed=7)
    first, second = chunk_pages(pages), chunk_pages(list(pages))
    assert first == second
    assert [c.ordinal for c in first] == list(range(len(first)))


def test_no_empty_chunks_and_blank_pages_give_none() -> None:
    assert chunk_pages([]) == []
    assert chunk_pages([Page(1, ""), Page(2, "  \n\n \t ")]) == []
    pages = [Page(1, ""), Page(2, "Short note here."), Page(3, "\n\n")]
    chunks = chunk_pages(pages)
    assert [(c.text, c.page_start, c.page_end) for c in chunks] == [("Short note here.", 2, 2)]


# Limits ----------------------------------------------------------------------------


def test_word_limits_are_respected() -> None:
    chunks = chunk_pages(tagged_pages(30, seed=3), target_words=120, max_words=150, min_words=30)
    sizes = [len(c.text.split()) for c in chunks]
    assert max(sizes) <= 150
    assert all(s >= 30 for s in sizes[:-1])
    assert sum(s >= 100 for s in sizes) >= 0.8 * len(sizes)  # filled close to the target


def test_token_limit_is_respected_with_the_real_tokenizer(count_tokens: Counter) -> None:
    # Identifiers and numbers run at ~4 tokens a word: 180 words would be ~700 tokens.
    rng = random.Random(5)
    dense = [
        " ".join(f"klu_{rng.choice(WORDS)}[{rng.randint(0, 999)}]" for _ in range(15)) + "."
        for _ in range(120)
    ]
    pages = [Page(n + 1, "\n".join(dense[n * 20 : (n + 1) * 20])) for n in range(6)]
    unbounded = chunk_pages(pages)
    assert max(count_tokens(c.text) for c in unbounded) > 400  # the test can fail
    chunks = chunk_pages(pages, count_tokens)
    counts = [count_tokens(c.text) for c in chunks]
    assert max(counts) <= 240
    assert sum(counts) / len(counts) > 160  # not cut needlessly small


def test_a_sentence_longer_than_the_limits_is_split_by_words(count_tokens: Counter) -> None:
    rng = random.Random(11)
    words = [f"{rng.choice(WORDS)}{i}" for i in range(700)]
    chunks = chunk_pages([Page(4, " ".join(words))], count_tokens)
    assert len(chunks) >= 4
    for c in chunks:
        assert len(c.text.split()) <= 220 and count_tokens(c.text) <= 240
        assert (c.page_start, c.page_end) == (4, 4)
    joined = [w for c in chunks for w in c.text.split()]
    assert joined == words  # nothing lost, nothing repeated (pieces too long to overlap)


def test_a_long_unpunctuated_table_is_cut_at_lines(count_tokens: Counter) -> None:
    rows = [f"option{i} sets the {WORDS[i % len(WORDS)]} mode for device{i}" for i in range(90)]
    chunks = chunk_pages([Page(1, "\n".join(rows))], count_tokens)
    assert len(chunks) >= 3
    for c in chunks:
        assert count_tokens(c.text) <= 240
        assert c.text.split("\n")[0] in rows  # every chunk starts at a row


def test_cjk_text_without_spaces_is_limited_by_tokens(count_tokens: Counter) -> None:
    sentence = "Debian プロジェクトは、フリーソフトウェアだけからなるオペレーティングシステムです。"
    assert count_tokens(sentence * 40) > 400
    chunks = chunk_pages([Page(1, sentence * 40)], count_tokens)
    assert len(chunks) >= 3
    assert all(count_tokens(c.text) <= 240 for c in chunks)
    assert all(c.text.endswith("。") for c in chunks)  # cut between sentences


# Overlap ---------------------------------------------------------------------------


def test_the_last_sentence_starts_the_next_chunk() -> None:
    chunks = chunk_pages(tagged_pages(10, seed=2))
    assert len(chunks) > 3
    for prev, nxt in zip(chunks, chunks[1:], strict=False):
        last = re.findall(r"P\d+s\d+ [^.]*\.", prev.text)[-1]
        assert ws(nxt.text).startswith(ws(last))


def test_long_sentences_are_not_repeated() -> None:
    pages = tagged_pages(10, seed=2)
    long_pages = [
        Page(p.number, prose(random.Random(p.number), 4, f"P{p.number}", (45, 50))) for p in pages
    ]
    chunks = chunk_pages(long_pages)
    tags = [t for c in chunks for t in re.findall(r"P\d+s\d+", c.text)]
    assert len(tags) == len(set(tags)) == 40


# Headings --------------------------------------------------------------------------


def section(heading: str, tag: str, n: int, seed: int) -> str:
    """A heading line, then ``n`` sentences of 15 words."""
    return heading + "\n" + prose(random.Random(seed), n, tag, (14, 14))


def test_headings_stay_with_the_text_that_follows() -> None:
    text = "\n".join(
        [
            section("1 Introduction", "A", 4, 1),
            section("2.1 Configuring The Network", "B", 9, 2),
            section("TROUBLESHOOTING", "C", 3, 3),
            section("Frequently Asked Questions", "D", 14, 4),
        ]
    )
    chunks = chunk_pages([Page(1, text)])
    for c in chunks:
        last_line = c.text.rstrip().split("\n")[-1]
        assert last_line not in {
            "1 Introduction",
            "2.1 Configuring The Network",
            "TROUBLESHOOTING",
            "Frequently Asked Questions",
        }
    starts = [c.text.split("\n")[0] for c in chunks]
    assert "2.1 Configuring The Network" in starts  # previous chunk was >= min_words
    assert "Frequently Asked Questions" in starts
    by_tag = {t[0]: c.heading for c in chunks for t in re.findall(r"\b[ABCD]s\d+", c.text)}
    assert by_tag["B"] == "2.1 Configuring The Network"
    assert chunks[-1].heading == "Frequently Asked Questions"


def test_a_short_first_section_is_not_cut_off_at_the_next_heading() -> None:
    text = section("Overview", "A", 1, 1) + "\n" + section("Details Of The Setup", "B", 6, 2)
    chunks = chunk_pages([Page(1, text)])
    assert chunks[0].text.startswith("Overview\nAs0")
    assert "Details Of The Setup" in chunks[0].text  # < min_words before it: kept together


def test_a_wrapped_line_is_not_taken_for_a_heading() -> None:
    text = (
        "The server keeps a copy of every file that the users store in\n"
        "Their Home Directory\n"
        "and the backup runs every night at two in the morning without fail."
    )
    (chunk,) = chunk_pages([Page(1, text)])
    assert chunk.heading == ""


def test_a_title_over_a_bulleted_line_is_a_heading() -> None:
    # A slide's title, then its first bullet (the bullet is no capital letter).
    text = "\n".join(
        [
            prose(random.Random(5), 4, "A", (14, 14)),
            "Doing things during installation",
            "▶ Decompressing the package is sometimes not enough for a working system",
            "▶ Create and remove system users, start and stop services, manage alternatives",
            "▶ All of it is done in the maintainer scripts: preinst, postinst, prerm, postrm",
            "▶ Prompting the user must be done with debconf, documented in debconf-devel",
        ]
    )
    first, second = chunk_pages([Page(1, text)])
    assert first.heading == "" and second.heading == "Doing things during installation"
    assert second.text.startswith("Doing things during installation\n▶ Decompressing")


def slides(titles: list[str], seed: int = 4) -> list[Page]:
    """A presentation printed to PDF: per page a title, bullets and the deck's footer."""
    rng = random.Random(seed)
    pages = []
    for n, title in enumerate(titles, 1):
        bullets = [
            f"▶ S{n}b{i} " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 14)))
            for i in range(4)
        ]
        pages.append(Page(n, "\n".join([title, *bullets, f"Packaging Tutorial {n} / 40"])))
    return pages


DECK = [
    "Packaging Tutorial",
    "Outline",
    "Example: rebuilding a package",
    "Source packages",
    "Doing things during installation",
    "Monitoring upstream versions",
    "Outline",
    "Conclusions",
]


def test_a_slide_deck_is_chunked_a_slide_at_a_time_under_its_title() -> None:
    pages = slides(DECK)
    # A numbered step on a slide is no chapter heading.
    pages[2] = Page(3, pages[2].text.replace("\n", "\n5 Check that it worked\n", 1))
    assert is_slide_deck(pages)
    chunks = chunk_pages(pages, title="Packaging Tutorial")
    assert [(c.page_start, c.page_end) for c in chunks] == [(n, n) for n in range(1, 9)]
    for c, page in zip(chunks, pages, strict=True):
        assert c.text.split("\n")[0] == page.text.split("\n")[0]
        # The slide's own title, never an earlier slide's or a numbered step.
        want = DECK[page.number - 1]
        assert c.context == ("Packaging Tutorial" + (f" › {want}" if page.number > 1 else ""))
        assert "/ 40" not in c.text  # the footer is furniture


def test_manuals_and_short_documents_are_no_slide_decks() -> None:
    assert not is_slide_deck(tagged_pages(12))  # prose pages
    assert not is_slide_deck(slides(DECK[:4]))  # too few pages to tell
    # Long pages under titles: a manual's sections, one a page.
    manual = [
        Page(n, f"{n} Section Heading Number {n}\n" + prose(random.Random(n), 12, f"P{n}"))
        for n in range(1, 9)
    ]
    assert not is_slide_deck(manual)
    # The same first line on every page is a running header the furniture missed.
    same = [Page(p.number, "Packaging Tutorial iii\n" + p.text) for p in slides(DECK)]
    same = [Page(p.number, p.text.replace(DECK[p.number - 1] + "\n", "", 1)) for p in same]
    assert not is_slide_deck(same)


def test_running_headers_are_left_out_and_do_not_stretch_ranges() -> None:
    rng = random.Random(9)
    pages = [
        Page(n, f"Chapter 2: Simple manipulations {n + 4}\n{prose(rng, 6, f'P{n}')}\n{n + 4}")
        for n in range(1, 9)
    ]
    chunks = chunk_pages(pages)
    assert not any("Simple manipulations" in c.text for c in chunks)
    for c in chunks:
        seen = pages_of(c)
        assert c.page_start == seen[0] and c.page_end <= seen[-1] + 1


def test_running_lines_go_only_at_a_pages_edges_and_numbers_are_not_headers() -> None:
    """A running "#" (a folio) took every lone number of the body with it, and a table's
    rows of numbers ending pages ("1994 12 3,400") were furniture dropped everywhere: 48
    rows of a table lost, "π = 4(1 − 1/3 + ..." read "4(1 − 3 + ..." (review)."""
    pages = []
    year = 1980
    for n in range(1, 5):
        rows = [f"{year + i} {(year + i) % 97} {(year * 7 + i) % 9000 + 1000:,}" for i in range(12)]
        year += 12
        body = "The coolant temperature in degrees was\n312\nand the pressure was\n155"
        pages.append(
            Page(
                n,
                f"Millbrook plant report\n{body}\nYear Incidents Cost\n"
                + "\n".join(rows)
                + f"\n{n}",
            )
        )
    text = "\n".join(c.text for c in chunk_pages(pages))
    for row in (line for p in pages for line in p.text.split("\n") if line[:2] in ("19", "20")):
        assert row in text  # every row of the table
    assert text.count("was 312 and") == 4 and text.count("was 155") == 4  # the lone numbers
    assert "Millbrook plant report" not in text  # the running header still goes
    assert not re.search(r"\n[1-4]$", text)  # and the folio


def test_a_tiny_tail_merges_into_the_previous_chunk() -> None:
    text = prose(random.Random(3), 9, "A", (19, 19)) + "\nThe end."  # 180 words, then 2
    (merged,) = chunk_pages([Page(1, text)], overlap_sentences=0)
    assert merged.text.endswith("The end.")
    # When the merge would break max_words, the tail stays alone rather than overflow.
    alone = chunk_pages([Page(1, text)], overlap_sentences=0, max_words=181)
    assert [c.text for c in alone][-1] == "The end."


def test_bad_limits_are_refused() -> None:
    with pytest.raises(ValueError):
        chunk_pages([Page(1, "x")], target_words=300, max_words=200)


# A real manual (resources/samples; R-intro of the shared corpus, at scale, in
# tests/e2e/test_extract_corpus.py) ---------------------------------------------------

#: Sentences of the VAX-11/780 simulator manual and the page each is on, read off the PDF.
MANUAL_EVIDENCE = {
    "The LOAD command supports a simple binary format, consisting of a stream of binary "
    "bytes without origin or checksum, for loading memory.": 5,
    "The line printer (LPT) writes data to a disk file.": 12,
    "The TU controller implements the Massbus family of 800/1600bpi magnetic tape drives.": 17,
    "When reading plain ASCII files, lines longer than 80 characters are silently truncated.": 22,
}


@pytest.fixture(scope="module")
def manual(samples_dir: Path) -> ExtractedDocument:
    return extract(samples_dir / MANUAL)


def test_a_manuals_chunks_fit_the_model_and_cover_every_page(
    manual: ExtractedDocument, count_tokens: Counter
) -> None:
    chunks, with_text = chunks_fit_and_cover(manual, count_tokens)
    assert len(manual.pages) == 24 and len(chunks) > 24 and len(with_text) > 20


def test_a_manuals_evidence_lands_in_a_chunk_citing_its_page(
    manual: ExtractedDocument, count_tokens: Counter
) -> None:
    chunks = chunk_pages(manual.pages, count_tokens)
    for evidence, page in MANUAL_EVIDENCE.items():
        assert ws(evidence) in ws(manual.pages[page - 1].text), (page, evidence)
        assert_cited_on_its_page(chunks, evidence, page)


def test_a_line_that_is_all_of_each_page_is_content_not_a_running_header() -> None:
    # pikepdf's badlin1.pdf: 30 pages that each say only "Potato N".
    pages = [Page(n, f"Potato {n}") for n in range(1, 31)]
    chunks = chunk_pages(pages)
    assert chunks and "Potato 1" in chunks[0].text
    assert chunks[0].page_start == 1 and chunks[-1].page_end == 30


def test_words_hyphenated_across_lines_are_whole_in_passages() -> None:
    """ "docu- mentation" could be neither searched nor grepped: R-intro has 71 such
    breaks, debian-reference 96 (review)."""
    page = Page(
        1,
        "Careful docu-\nmentation of the thermo-\ncouple readings is kept by the inter\xad"
        "\nnational office. The S-\nPlus manual is on pages 4-\n5, and the op\xadtional "
        "appendix too. The WRITE ALL function dumps non-\ndata words into the bit bucket; "
        "non-data words are never read back.",
    )
    (chunk,) = chunk_pages([page])
    assert "Careful documentation of the thermocouple readings" in chunk.text
    assert "international office." in chunk.text and "optional appendix" in chunk.text
    assert "S- Plus" in chunk.text and "pages 4- 5" in chunk.text  # not a word broken in two
    # a compound the document writes whole elsewhere keeps its hyphen ("nondata" was made)
    assert "dumps non-data words" in chunk.text
