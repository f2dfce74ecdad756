"""Contextual chunk text (title + heading path), identifier terms in BM25, and the
proximity rerank inside documents: the pieces that pick the right page."""

from __future__ import annotations

import pytest

from docent.core.chunking import chunk_pages
from docent.core.context import (
    HeadingPath,
    context_line,
    document_title,
    heading_level,
    indexed_text,
)
from docent.core.embedding import Embedder, identifier_id, with_identifiers
from docent.core.fusion import Candidate
from docent.core.models import Page, SparseVec
from docent.core.queryterms import identifier_terms
from docent.core.rerank import (
    by_title,
    code_share,
    code_terms,
    proximity,
    scores,
    term_positions,
    title_names,
    title_share,
    within_documents,
)

# Context -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("heading", "level"),
    [
        ("5.7.3 Eigenvalues and eigenvectors", 3),
        ("2 Simple manipulations", 1),
        ("Chapter 4: Factors", 1),
        ("A.2 Invoking R", 2),
        ("## Usage", 2),
        ("Table of services", None),
        ("1996 was the year", None),
    ],
)
def test_heading_levels_come_from_their_numbering(heading: str, level: int | None) -> None:
    assert heading_level(heading) == level


def test_the_heading_path_follows_the_numbering() -> None:
    path = HeadingPath()
    for h in ["5 Arrays and matrices", "5.7 Matrix facilities", "5.7.1 Matrix multiplication"]:
        path.push(h)
    assert path.path == (
        "5 Arrays and matrices",
        "5.7 Matrix facilities",
        "5.7.1 Matrix multiplication",
    )
    path.push("5.8 Forming partitioned matrices")  # a sibling of 5.7 replaces it and its child
    assert path.path == ("5 Arrays and matrices", "5.8 Forming partitioned matrices")
    path.push("Examples")  # unnumbered: below the last numbered heading
    path.push("More examples")  # ...replacing an unnumbered sibling
    assert path.path == (
        "5 Arrays and matrices",
        "5.8 Forming partitioned matrices",
        "More examples",
    )
    path.push("6 Lists")
    assert path.path == ("6 Lists",)


def test_a_numbered_heading_is_never_put_under_a_chapter_of_another_number() -> None:
    # The Debian Edu manual's "6 Installation" is not found as a heading; its "6.3" must
    # not be filed under "4 Requirements", the last chapter heading found.
    path = HeadingPath()
    for h in ["4 Requirements", "4.1 Hardware", "6.3 Installing Debian Edu"]:
        path.push(h)
    assert path.path == ("6.3 Installing Debian Edu",)
    path.push("6.3.4 Installation types and options")
    assert path.path == ("6.3 Installing Debian Edu", "6.3.4 Installation types and options")
    path.push("Notes")  # unnumbered: still below the last numbered heading
    path.push("6.4 Download")
    assert path.path == ("6.4 Download",)
    path.push("A.1 Licence")  # an appendix's number is its own
    path.push("A.1.2 Terms")
    assert path.path == ("A.1 Licence", "A.1.2 Terms")
    path.push("B.1 History")
    assert path.path == ("B.1 History",)
    # headings as Word, HTML and Markdown files give them, "#" by level (review)
    assert path_after("# 4 Requirements", "## 4.1 Hardware", "## 6.3 Installing Debian Edu") == (
        "6.3 Installing Debian Edu",
    )
    # a chapter or appendix by word is closed by another's numbers; a part never is
    assert path_after("Chapter 2", "2.1 Foo", "3.1 Bar") == ("3.1 Bar",)
    assert path_after("Appendix A", "A.1 Licence", "B.1 History") == ("B.1 History",)
    assert path_after("Part II", "Chapter 4", "4.1 Setup") == ("Chapter 4", "4.1 Setup")


def path_after(*headings: str) -> tuple[str, ...]:
    """The heading path once ``headings`` are read, in order."""
    path = HeadingPath()
    for h in headings:
        path.push(h)
    return path.path


def test_the_title_is_the_first_line_when_it_reads_like_one() -> None:
    pages = [Page(1, ""), Page(2, "An Introduction to R\nNotes on R\n")]
    assert document_title(pages) == "An Introduction to R"
    assert document_title([Page(1, "# Options\n\ntext")]) == "Options"
    prose = "This first line is a long sentence of running prose that no title would ever be."
    assert document_title([Page(1, prose)]) == ""
    assert document_title([]) == ""


def test_context_line_leaves_out_a_heading_equal_to_the_title() -> None:
    assert context_line("Manual", ["Manual", "2 Setup"]) == "Manual › 2 Setup"
    assert indexed_text("", "body") == "body"
    assert indexed_text("Manual › 2 Setup", "body") == "Manual › 2 Setup\nbody"


PAGES = [
    Page(1, "PDP-11 Simulator Usage\n\nThe simulator runs old programs. " * 3),
    Page(
        2,
        "2.1 CPU and System\n\nThe CPU options include the CPU type. " * 4
        + "\n\n2.1.1 History\n\nThe maximum length for the history is 262144 entries. " * 3,
    ),
]


def test_chunks_carry_their_context_but_their_text_is_the_documents_own() -> None:
    chunks = chunk_pages(PAGES, title="PDP-11 Simulator Usage", target_words=40, min_words=10)
    last = chunks[-1]
    assert last.context == "PDP-11 Simulator Usage › 2.1 CPU and System › 2.1.1 History"
    assert "262144" in last.text and "Simulator Usage" not in last.text
    assert all(c.context.startswith("PDP-11 Simulator Usage") for c in chunks)
    assert [c.text for c in chunk_pages(PAGES, target_words=40, min_words=10)] == [
        c.text for c in chunks
    ]  # the context never changes how text is cut
    assert all(c.context == "" for c in chunk_pages(PAGES, target_words=40, min_words=10))
    assert {c.title for c in chunks} == {"PDP-11 Simulator Usage"}  # for the title factor


def test_a_context_is_shortened_to_the_tokens_kept_free_for_it() -> None:
    emb = Embedder()
    chunks = chunk_pages(
        PAGES, emb.count_tokens, title="PDP-11 Simulator Usage " * 8, context_tokens=12
    )
    for c in chunks:
        assert emb.count_tokens(indexed_text(c.context, c.text)) <= 240 + 1  # "\n" joins them
        assert emb.count_tokens(c.context) - 2 <= max(12, 240 - emb.count_tokens(c.text))


# Identifiers ---------------------------------------------------------------------------


def test_identifier_terms_by_shape() -> None:
    assert identifier_terms("Use SET CPU HISTORY=n to keep a trace") == [
        "history=n",
        "set cpu",
        "cpu history",
    ]
    assert identifier_terms("debuild -us -uc; is.na(x) and PDP-11/40") == [
        "-us",
        "-uc",
        "is.na",
        "pdp-11/40",
    ]
    assert identifier_terms("a well-known e.g. non-option x-y and 3-5") == [
        "well-known",
        "non-option",
    ]


def test_identifiers_join_the_bm25_vector_weighted_like_bm25() -> None:
    emb = Embedder()
    (doc,) = emb.embed_sparse(["Run the tool with -p to keep its state between runs."])
    assert identifier_id("-p") in doc.indices
    plain = with_identifiers(SparseVec([], []), "nothing special here")
    assert plain.indices == []
    query = emb.query_sparse("What does -p do?")
    assert query.values[query.indices.index(identifier_id("-p"))] == 1.0


def test_bm25_finds_an_option_by_its_identifier(tmp_path: object) -> None:
    from pathlib import Path

    from docent.core.store import ChunkPoint, open_store

    emb = Embedder()
    texts = [
        "Use the -p switch to keep the state between runs of the tool.",
        "The p switch is the paper tape punch; p is also a unit of pressure.",
        "Options p and q are described in the appendix on pressure units.",
    ]
    store = open_store(path=Path(str(tmp_path)) / "q", dim=384)
    try:
        store.upsert_chunks(
            [
                ChunkPoint(
                    f"00000000-0000-0000-0000-00000000000{i}",
                    d,
                    s,
                    {"doc_id": "d", "text": t, "ordinal": i, "content_hash": str(i)},
                )
                for i, (t, d, s) in enumerate(
                    zip(texts, emb.embed_dense(texts), emb.embed_sparse(texts), strict=True)
                )
            ]
        )
        top = store.query(sparse=emb.query_sparse("-p"), limit=3)
        assert top[0].payload["text"] == texts[0]
    finally:
        store.close()


# Rerank --------------------------------------------------------------------------------


def test_proximity_rewards_terms_close_together() -> None:
    terms = ["tm11", "ts11", "both"]
    weights = dict.fromkeys(terms, 1.0)
    near = term_positions("The PDP-11 can support either a TM11 or a TS11, but not both.", terms)
    assert near == [(6, "tm11"), (9, "ts11"), (12, "both")]
    far = term_positions(" ".join(["TM11", "x " * 40, "TS11", "x " * 40, "both"]), terms)
    assert proximity(near, weights) == pytest.approx(1.0)
    assert proximity(far, weights) == pytest.approx(1 / 3)
    assert proximity([], weights) == 0.0


def cand(cid: str, doc: str, text: str, score: float = 0.0) -> Candidate:
    return Candidate(cid, {"doc_id": doc, "text": text}, score=score)


def test_scores_weigh_rare_terms_in_the_pool_more() -> None:
    pool = [
        cand("a", "d", "the tape controller drives tapes"),
        cand("b", "d", "the TM11 controller is a tape controller"),
        cand("c", "d", "a tape controller and another controller"),
    ]
    got = scores("Which tape controller is the TM11?", pool)
    assert got[1] == pytest.approx(1.0) and got[1] > got[0] and got[1] > got[2]


def test_within_documents_only_swaps_a_documents_own_places() -> None:
    order = [cand("a1", "a", ""), cand("b1", "b", ""), cand("a2", "a", ""), cand("c1", "c", "")]
    better = {"a1": 0.1, "b1": 0.5, "a2": 0.9, "c1": 0.3}
    got = within_documents(order, lambda i: better[order[i].chunk_id])
    assert [c.chunk_id for c in got] == ["a2", "b1", "a1", "c1"]


def test_code_terms_are_options_and_code_not_product_names() -> None:
    assert code_terms("What is R's -d name option for?") == ["-d"]
    assert code_terms("What does SET CPU HISTORY=n do on the PDP-11?") == [
        "history=n",
        "set cpu",
        "cpu history",
    ]
    assert code_terms("How does is.na() differ on a PDP-11/40 in Debian-Edu?") == ["is.na"]


def test_code_share_counts_terms_written_as_tokens_of_their_own() -> None:
    pool = [
        cand("a", "d", "-d name  Run R through debugger name."),
        cand("b", "d", "--debugger=name and R-devel; d is a letter, not an option."),
        cand("c", "d", "Use -d and SET CPU HISTORY=n together."),
    ]
    assert code_share("What does -d do with HISTORY=n?", pool) == [0.5, 0.0, 1.0]
    assert code_share("What does the debugger do?", pool) == [0.0, 0.0, 0.0]


#: A manual whose option page uses the question's words less than its neighbours do.
MANUAL = [
    "Names of debugger commands: each name in the debugger table is a command name; "
    "the name option of a debugger command sets the name it is listed under.",
    "The d command of the debugger shows data; d takes a name, and the name option "
    "of d chooses which debugger name is shown.",
    "Command line: -q start quietly. -d name run the program under the named tool. "
    "--vanilla skip every profile.",
]


@pytest.mark.parametrize("weight", [0.0, 1.0])
def test_an_option_lifts_the_page_that_writes_it(tmp_path: object, weight: float) -> None:
    from pathlib import Path

    from docent.core.retrieval import RetrievalConfig, Retriever
    from docent.core.store import ChunkPoint, chunk_point_id, open_store

    emb = Embedder()
    store = open_store(path=Path(str(tmp_path)) / "q", dim=384)
    try:
        dense, sparse = emb.embed_dense(MANUAL), emb.embed_sparse(MANUAL)
        store.upsert_chunks(
            [
                ChunkPoint(
                    chunk_point_id("m", i),
                    d,
                    s,
                    {
                        "doc_id": "m",
                        "path": "/m.txt",
                        "file_name": "m.txt",
                        "page_start": i + 1,
                        "page_end": i + 1,
                        "ordinal": i,
                        "text": t,
                        "content_hash": str(i),
                    },
                )
                for i, (t, d, s) in enumerate(zip(MANUAL, dense, sparse, strict=True))
            ]
        )
        config = RetrievalConfig(identifier_weight=weight, expand_neighbours=False)
        res = Retriever(store, emb, config).search("What is the -d name option for?", k=3)
        top = res.hits[0]
        if weight:
            assert top.page_start == 3 and top.debug["scores"]["identifiers"] == 1.0
        else:  # without the signal, the pages richer in the question's words win
            assert top.page_start != 3
    finally:
        store.close()


# The document's title ------------------------------------------------------------------


def titled(chunk_id: str, doc: str, title: str) -> Candidate:
    c = cand(chunk_id, doc, "")
    c.payload["title"] = title
    return c


def test_title_names_are_words_written_as_names() -> None:
    assert title_names("Is there a cap on a line typed at the R console?") == ["R"]
    assert title_names("In R, how do I repeat a vector?") == ["R"]  # not the first word
    assert title_names("SIMH: can an emulated PDP-11 have a TM11 and Debian Edu?") == [
        "SIMH",
        "PDP-11",
        "TM11",
        "Debian",
        "Edu",
    ]
    assert title_names("how long can a line be?") == []


def test_title_share_counts_names_the_title_holds_as_words() -> None:
    pool = [
        titled("a", "ctss", "CTSS Hardware Manual"),
        titled("b", "r", "An Introduction to R"),
        titled("c", "rd", "R Data Import/Export"),
        titled("d", "deb", "Debian Reference"),  # "R" inside a word is no "R"
    ]
    question = "Is there a cap on a line typed at the R console?"
    assert title_share(question, pool) == [0.0, 1.0, 1.0, 0.0]
    # no title tells the candidates apart: nothing to favour
    assert title_share("Which Manual is it?", pool[:1]) == [0.0]
    same = [titled("a", "x", "R notes"), titled("b", "y", "R manual")]
    assert title_share(question, same) == [0.0, 0.0]


def test_by_title_moves_a_named_document_up_by_rank_not_to_the_top_from_anywhere() -> None:
    order = [titled(f"c{i}", f"d{i}", "") for i in range(8)]
    shares = [0.0] * 8
    shares[4] = 1.0  # at rank 4 (from 0): 1.5 / 14 passes rank 0's 1 / 10
    assert [c.chunk_id for c in by_title(order, shares, 0.5)][:2] == ["c4", "c0"]
    shares = [0.0] * 8
    shares[6] = 1.0  # at rank 6: 1.5 / 16 does not (it passes rank 1's 1 / 11)
    assert [c.chunk_id for c in by_title(order, shares, 0.5)][:3] == ["c0", "c6", "c1"]
    assert by_title(order, shares, 0.0) == order


#: Two documents: a terminal manual whose page uses the question's words, and the R
#: manual whose page answers it in its own words (the shape of dev question q001).
TERMINALS = [
    "Terminal Hardware Manual",
    "Is there a cap on how long a single line typed at the console can be? A single "
    "line typed at the console of a terminal has a cap on how long it can be: the "
    "console echoes each single line typed, however long.",
]
R_MANUAL = [
    "An Introduction to R",
    "Command lines entered at the console are limited to about 4095 bytes.",
]


@pytest.mark.parametrize("weight", [0.0, 0.5])
def test_a_question_naming_a_documents_title_finds_that_document(
    tmp_path: object, weight: float
) -> None:
    from pathlib import Path

    from docent.core.retrieval import RetrievalConfig, Retriever
    from docent.core.store import ChunkPoint, chunk_point_id, open_store

    emb = Embedder()
    store = open_store(path=Path(str(tmp_path)) / "q", dim=384)
    try:
        points = []
        for doc, (title, text) in (("t", TERMINALS), ("r", R_MANUAL)):
            indexed = indexed_text(title, text)
            (dense,), (sparse,) = emb.embed_dense([indexed]), emb.embed_sparse([indexed])
            payload = {
                "doc_id": doc,
                "path": f"/{doc}.pdf",
                "file_name": f"{doc}.pdf",
                "page_start": 1,
                "page_end": 1,
                "ordinal": 0,
                "text": text,
                "content_hash": doc,
                "context": title,
                "title": title,
            }
            points.append(ChunkPoint(chunk_point_id(doc, 0), dense, sparse, payload))
        store.upsert_chunks(points)
        config = RetrievalConfig(title_weight=weight, expand_neighbours=False)
        question = "Is there a cap on how long a single line typed at the R console can be?"
        top = Retriever(store, emb, config).search(question, k=2).hits[0]
        if weight:
            assert top.file_name == "r.pdf" and top.debug["scores"]["title"] == 1.0
        else:  # without the title, the page richer in the question's words wins
            assert top.file_name == "t.pdf"
    finally:
        store.close()
