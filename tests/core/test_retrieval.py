"""Retrieval: fusion, caps, adaptive k, variants, exact-term boost, expansion, two-tier.

The pure rules are tested on plain candidates; the pipeline runs on a real Qdrant Edge
store filled with a small synthetic library embedded by the real (bundled) model.
"""

from __future__ import annotations

import hashlib
import itertools
import random
import shutil
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import pytest

from cross_encoder_files import cross_encoder_folder
from docent.core import fusion
from docent.core.config import Settings, resources_dir
from docent.core.embedding import Embedder, EmbeddingError
from docent.core.fusion import Candidate, RankedList
from docent.core.queryterms import PageRequest, analyse, is_exact_term, page_request
from docent.core.retrieval import RetrievalConfig, Retriever, SearchResult, build_variants
from docent.core.store import (
    SENTENCES,
    ChunkPoint,
    ScoredPoint,
    Store,
    chunk_point_id,
    open_store,
)
from docent.core.sufficiency import UNCOVERED_GAIN

# Pure rules ---------------------------------------------------------------------------


def sp(pid: str, doc: str = "d", score: float = 1.0, text: str = "") -> ScoredPoint:
    return ScoredPoint(
        pid,
        score,
        {
            "doc_id": doc,
            "text": text or pid,
            "content_hash": hashlib.sha1((text or pid).encode()).hexdigest(),
        },
    )


def test_rrf_sums_weighted_shares_and_keeps_one_entry_per_chunk() -> None:
    pool = fusion.rrf(
        [
            # x twice in one list: once
            RankedList("a", 1.0, [sp("x", score=3.0), sp("y", score=2.0), sp("x", score=1.0)]),
            RankedList("b", 0.5, [sp("y", score=3.0), sp("z", score=1.0)]),
        ],
        k=60,
    )
    assert set(pool) == {"x", "y", "z"}
    assert pool["x"].score == pytest.approx(1 / 61)
    assert pool["y"].score == pytest.approx(1 / 62 + 0.5 / 61)
    assert pool["z"].score == pytest.approx(0.5 / 62)
    assert pool["y"].ranks == {"a": 2, "b": 1} and pool["y"].scores["b"] == 3.0
    assert [c.chunk_id for c in fusion.ranked(pool)] == ["y", "x", "z"]


def test_rrf_adds_into_an_existing_pool() -> None:
    pool = fusion.rrf([RankedList("a", 1.0, [sp("x")])])
    # an exact term's list is unscored: its order gives the ranks
    fusion.rrf([RankedList("exact", 2.0, [sp("w"), sp("x")], scored=False)], pool=pool)
    assert pool["x"].score == pytest.approx(1 / 61 + 2 / 62)
    assert pool["w"].ranks == {"exact": 1}


def test_points_of_equal_score_share_a_rank_in_whatever_order_they_come() -> None:
    ranks = fusion.tied_ranks([sp("a", score=0.9), sp("b", score=0.5), sp("c", score=0.5)])
    assert [(r, p.id) for r, p in ranks] == [(1, "a"), (2, "b"), (2, "c")]
    tie = [sp("a", score=0.9), sp("b", score=0.5), sp("c", score=0.5), sp("d", score=0.1)]
    swapped = [tie[0], tie[2], tie[1], tie[3]]
    pools = [fusion.rrf([RankedList("bm25", 1.0, points)]) for points in (tie, swapped)]
    assert {c: (pools[0][c].score, pools[0][c].ranks) for c in "abcd"} == {
        c: (pools[1][c].score, pools[1][c].ranks) for c in "abcd"
    }
    assert pools[0]["c"].ranks == {"bm25": 2} and pools[0]["d"].ranks == {"bm25": 4}
    dense = [sp("c", score=0.8), sp("b", score=0.7)]
    fused = [fusion.hybrid([points, dense], limit=4) for points in (tie, swapped)]
    assert fused[0] == fused[1]
    assert [p.id for p in fused[0]] == ["c", "b", "a", "d"]  # b, c: 1/61 each from BM25


def test_dedup_text_keeps_the_first_copy() -> None:
    cands = [
        Candidate("1", sp("1", text="same").payload),
        Candidate("2", sp("2").payload),
        Candidate("3", sp("3", text="same").payload),
    ]
    assert [c.chunk_id for c in fusion.dedup_text(cands)] == ["1", "2"]


OUTLINE = (
    "Outline\n1 Introduction 2 Creating source packages 3 Building and testing packages "
    "4 Practical session 1: modifying the grep package 5 Advanced packaging topics 6 "
    "Maintaining packages in Debian 7 Conclusions"
)


@pytest.mark.parametrize(
    ("text", "navigation"),
    [
        ("Contents\n1 Introduction . . . . 1\n2 Vectors . . . . 7\n3 Lists . . . . 12", True),
        (OUTLINE, True),  # a slide deck's outline: numbered items of a few words, no leaders
        ("Outline\n1 Introduction 2 Vectors 3 Lists", False),  # too few items to tell
        # A slide's numbered steps hold commands and explanations, not only topics.
        (
            "Example: rebuilding dash\n1 Install packages needed to build dash, and devscripts "
            "sudo apt-get build-dep dash 2 Create a working directory 3 Grab the source "
            "package 4 Build the package 5 Check that it worked",
            False,
        ),
        ("The simulator provides 2 adapters and 3 disks, 4 tapes and 5 terminals.", False),
    ],
)
def test_contents_indexes_and_outlines_are_navigation(text: str, navigation: bool) -> None:
    assert fusion.is_navigation(text) is navigation


def test_navigation_chunks_are_demoted() -> None:
    outline = Candidate("o", sp("o", text=OUTLINE).payload, score=1.0)
    text = "Prompting the user must be done with debconf."
    content = Candidate("c", sp("c", text=text).payload, score=1.0)
    assert fusion.demote_navigation([outline, content], 0.5) == 1
    assert (outline.score, content.score) == (0.5, 1.0)


def cands(*docs: str) -> list[Candidate]:
    return [Candidate(f"{d}{i}", {"doc_id": d}) for i, d in enumerate(docs)]


def test_cap_per_document_while_other_documents_remain() -> None:
    order = cands("a", "a", "a", "a", "a", "b", "c")
    got = [c.chunk_id for c in fusion.cap_per_document(order, cap=3, k=5)]
    assert got == ["a0", "a1", "a2", "b5", "c6"]


def test_cap_fills_from_capped_chunks_when_nothing_else_is_left() -> None:
    order = cands("a", "a", "a", "a", "b", "a")
    got = [c.chunk_id for c in fusion.cap_per_document(order, cap=2, k=5)]
    assert got == ["a0", "a1", "b4", "a2", "a3"]  # waiting ones in their order
    one_doc = cands(*"aaaaaaa")
    assert len(fusion.cap_per_document(one_doc, cap=3, k=5)) == 5  # one-file scope: still k


@pytest.mark.parametrize(
    ("chunks", "k"), [(0, 5), (100, 5), (101, 20), (200, 20), (201, 25), (100_000, 25)]
)
def test_adaptive_k(chunks: int, k: int) -> None:
    assert fusion.adaptive_k(chunks) == k


def test_adaptive_k_is_capped_at_25() -> None:
    assert fusion.adaptive_k(500, base=10) == 25


# Query terms and variants -------------------------------------------------------------


@pytest.mark.parametrize(
    "token",
    ["is.na()", "max_chunks", "PDP-11/40", "TM11", "4095", "SIMH", "setMarkdown", "debian/rules"],
)
def test_exact_terms_by_shape(token: str) -> None:
    assert is_exact_term(token)


@pytest.mark.parametrize("token", ["printer", "Debian", "e.g", "7", "I", "don't"])
def test_ordinary_words_are_not_exact_terms(token: str) -> None:
    assert not is_exact_term(token)


def test_analyse_keeps_exact_terms_and_quoted_phrases() -> None:
    terms = analyse('How do I tell "not a number" from NA with is.na() in R 4.2?')
    assert terms.exact == ("not a number", "NA", "is.na", "4.2")
    form = terms.keyword_form
    assert form.startswith("not a number NA is.na 4.2")
    assert "how" not in form.split() and "do" not in form.split()


def test_variants_question_keywords_and_two_rewrites() -> None:
    cfg = RetrievalConfig()
    q = "How can I make the simulator run slower?"
    vs = build_variants(
        q, analyse(q), ["throttle simulator speed", " ", q, "limit CPU use", "a third rewrite"], cfg
    )
    assert [v.name for v in vs] == ["question", "keywords", "rewrite1", "rewrite2"]
    assert [v.text for v in vs][1:] == [
        "make simulator run slower",
        "throttle simulator speed",
        "limit CPU use",
    ]


def test_no_keyword_variant_when_it_is_the_question() -> None:
    vs = build_variants("gnuplot terminal", analyse("gnuplot terminal"), (), RetrievalConfig())
    assert [v.name for v in vs] == ["question"]


@pytest.mark.parametrize(
    ("question", "spans", "rest", "label"),
    [
        ("And on page 3?", [(3, 3)], "And?", "page 3"),
        (
            "What does it say on pages 12-14 about tape?",
            [(12, 14)],
            "What does it about tape?",
            "pages 12-14",
        ),
        ("What is on p. 7 of the manual", [(7, 7)], "What is", "page 7"),
        ("pp. 5 to 3", [(3, 5)], "", "pages 3-5"),
        (
            "What is the SET CPU command on page 45",
            [(45, 45)],
            "What is the SET CPU command",
            "page 45",
        ),
        # the words that only ask for the page's content are no words it must hold
        ("What does page 3 say about memory?", [(3, 3)], "What does about memory?", "page 3"),
        ("What does page 3 of the manual say?", [(3, 3)], "What does?", "page 3"),
        # the document named, apart; a verb after "about" is the question's own word
        (
            "What does page 30 of R-intro say about lists?",
            [(30, 30)],
            "What does about lists?",
            "page 30",
        ),
        # two pages named apart are both read
        (
            "What is the difference between page 3 and page 4?",
            [(3, 3), (4, 4)],
            "What is the difference between?",
            "pages 3 and 4",
        ),
        ("Summarize page 3.", [(3, 3)], ".", "page 3"),
        ("Show me page 3", [(3, 3)], "", "page 3"),
        # "and" lists pages, it is no range (pages 3 and 5 are not page 4)
        ("What is on pages 3 and 5?", [(3, 3), (5, 5)], "What is?", "pages 3 and 5"),
        ("pages 3, 5 and 7-9", [(3, 3), (5, 5), (7, 9)], "", "pages 3, 5 and 7-9"),
        ("What is on slide 4?", [(4, 4)], "What is?", "slide 4"),
    ],
)
def test_a_question_about_pages(
    question: str, spans: list[tuple[int, int]], rest: str, label: str
) -> None:
    req = page_request(question)
    assert req is not None and (list(req.spans), req.rest, req.label) == (spans, rest, label)


@pytest.mark.parametrize(
    "question",
    [
        "How many pages does it have?",
        "What does Page Up do?",
        "page 0",
        "pages 1-100",
        "page3",
        # ordinary questions that name a page (review, session 31)
        "How do I print pages 1 to 3 with lp?",
        "How do I print pages 1 to 3 of the report with lp?",
        "How do I jump to page 5 in less?",
        "How do I go to page 5 of the manual?",
        "What is the Page 2 setting in CUPS?",
        "How do I delete page 2 of the report?",
        "How do I start numbering at page 3?",
        "How do I make the header different on page 1?",
        'What does "continued on page 4" mean?',
    ],
)
def test_no_question_about_pages(question: str) -> None:
    assert page_request(question) is None


def test_the_document_a_page_is_of() -> None:
    both = page_request("Compare page 2 of R-intro with page 3")
    assert both is not None and (both.spans, both.document) == (((2, 2), (3, 3)), "R-intro")
    req = page_request("What does page 12 of the Debian reference say about apt?")
    assert req is not None and (req.document, req.rest) == (
        "the Debian reference",
        "What does about apt?",
    )
    # a pasted run of page phrases (it rescanned from the start for each: quadratic)
    long = page_request("page 1 " * 3000)
    assert long is not None and long.spans == ((1, 1),)


# The pipeline on a real store ---------------------------------------------------------

DOCS: dict[str, list[str]] = {
    "lighthouse.txt": [
        "The keeper climbs the tower at dusk to light the lamp.",
        "Lamp oil is stored in the cellar in sealed tins.",
        "The lens must be polished every morning to remove soot.",
        "Fog signals sound every thirty seconds when visibility is poor.",
        "The keeper logs passing ships and weather in the daybook.",
        "Storm shutters protect the lantern room windows in winter gales.",
    ],
    "bakery.txt": [
        "Sourdough starter is fed with flour and water each day.",
        "Loaves proof overnight in a cool room before baking.",
        "The oven is heated to a high temperature for a crisp crust.",
        "Call xq_flush_ring() before the dough mixer is cleaned.",
    ],
    "garden.txt": [
        "Tomatoes need full sun and regular watering.",
        "Compost improves the soil structure for vegetables.",
        "Prune the roses in early spring before new growth.",
    ],
}


def _payload(doc: str, i: int, text: str) -> dict[str, object]:
    return {
        "doc_id": doc,
        "path": f"/lib/{doc}",
        "file_name": doc,
        "page_start": i + 1,
        "page_end": i + 1,
        "ordinal": i,
        "text": text,
        "content_hash": hashlib.sha256(text.encode()).hexdigest(),
        "heading": "",
    }


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    emb = Embedder()
    emb.ensure_loaded()
    return emb


def fill(store: Store, embedder: Embedder, docs: dict[str, list[str]]) -> None:
    """As the indexer writes them: dense and sentence vectors from one pass, BM25."""
    for doc, texts in docs.items():
        made = embedder.embed_chunks(texts, texts)
        dense = [v.dense for v in made]
        sparse = embedder.embed_sparse(texts)
        store.upsert_chunks(
            [
                ChunkPoint(
                    chunk_point_id(doc, i),
                    v.dense,
                    s,
                    {**_payload(doc, i, t), SENTENCES: v.sentences},
                )
                for i, (t, v, s) in enumerate(zip(texts, made, sparse, strict=True))
            ]
        )
        mean = [sum(col) / len(dense) for col in zip(*dense, strict=True)]
        store.upsert_document(doc, mean, {"file_name": doc})


@pytest.fixture
def store(tmp_path: Path, embedder: Embedder) -> Iterator[Store]:
    st = open_store(path=tmp_path / "qdrant", dim=embedder.dim)
    fill(st, embedder, DOCS)
    yield st
    st.close()


def test_search_finds_the_passage_by_meaning_with_every_field(
    store: Store, embedder: Embedder
) -> None:
    res = Retriever(store, embedder).search("How often is the lighthouse lens cleaned?")
    top = res.hits[0]
    assert top.text.startswith("The lens must be polished")
    assert (top.doc_id, top.file_name, top.path) == (
        "lighthouse.txt",
        "lighthouse.txt",
        "/lib/lighthouse.txt",
    )
    assert (top.page_start, top.page_end, top.ordinal) == (3, 3, 2)
    assert top.chunk_id == chunk_point_id("lighthouse.txt", 2) and top.score > 0
    assert res.k == 5 and len(res.hits) == 5  # 13 chunks: a small library
    assert res.variants[0] == "How often is the lighthouse lens cleaned?"
    assert res.confidence in ("high", "medium") and res.sufficient
    assert res.evaluation is not None and res.evaluation.top_similarity is not None


def test_neighbours_are_context_not_hits(store: Store, embedder: Embedder) -> None:
    res = Retriever(store, embedder).search("polish the lens to remove soot", k=3)
    top = res.hits[0]
    assert top.ordinal == 2
    assert top.context_before == DOCS["lighthouse.txt"][1]
    assert top.context_after == DOCS["lighthouse.txt"][3]
    assert len(res.hits) == 3
    first = Retriever(store, embedder).search("keeper climbs the tower at dusk", k=1).hits[0]
    assert first.ordinal == 0 and first.context_before == ""
    assert first.context_after == DOCS["lighthouse.txt"][1]


def test_per_document_cap(store: Store, embedder: Embedder) -> None:
    q = "lighthouse keeper lamp lens lantern"
    capped = Retriever(store, embedder).search(q, k=5)
    assert sum(h.doc_id == "lighthouse.txt" for h in capped.hits) == 3
    loose = Retriever(store, embedder, RetrievalConfig(max_chunks_per_document=10))
    assert sum(h.doc_id == "lighthouse.txt" for h in loose.search(q, k=5).hits) == 5
    one_file = Retriever(store, embedder).search(q, k=5, doc_ids=["lighthouse.txt"])
    assert len(one_file.hits) == 5 and {h.doc_id for h in one_file.hits} == {"lighthouse.txt"}


def test_scope_and_exclusion(store: Store, embedder: Embedder) -> None:
    r = Retriever(store, embedder)
    q = "what do plants need"
    assert {h.doc_id for h in r.search(q, doc_ids=["garden.txt"]).hits} == {"garden.txt"}
    got = r.search(q, exclude_doc_ids=["garden.txt"]).hits
    assert got and "garden.txt" not in {h.doc_id for h in got}
    assert r.search(q, doc_ids=[]).hits == []


def test_exact_term_boost_uses_the_text_index(store: Store, embedder: Embedder) -> None:
    q = "what must happen before xq_flush_ring is called"
    res = Retriever(store, embedder).search(q, k=3, debug=True)
    assert "xq_flush_ring()" in res.hits[0].text
    assert res.debug["exact_terms"] == {"xq_flush_ring": 1}
    ranks = res.hits[0].debug["ranks"]
    assert isinstance(ranks, dict) and "exact:xq_flush_ring" in ranks


@pytest.mark.parametrize("term", ["ZX81Frobnicator", "Frobnix-Lite"])
def test_unknown_exact_term_lowers_confidence(store: Store, embedder: Embedder, term: str) -> None:
    res = Retriever(store, embedder).search(f"How do I configure the {term}?")
    assert res.evaluation is not None
    assert any(term in issue for issue in res.evaluation.issues)
    assert res.confidence == "low" and not res.sufficient


def test_a_compound_term_with_known_words_is_not_called_absent(
    store: Store, embedder: Embedder
) -> None:
    res = Retriever(store, embedder).search("When is the lamp-oil cellar-tin checked?")
    assert res.evaluation is not None
    assert not any("never mention" in issue for issue in res.evaluation.issues)


def test_a_name_and_number_are_found_written_together_or_apart(
    store: Store, embedder: Embedder
) -> None:
    """A table writes "NGC4414", the question "NGC 4414" (the fresh questions' f22: "the
    documents searched never mention 'NGC', '4414'"), or the other way round."""
    fill(
        store,
        embedder,
        {"galaxies.txt": ["Galaxy velocities: NGC4414 619 17.70 and IC 342 31 3.3."]},
    )
    r = Retriever(store, embedder)
    for question in ("What velocity has NGC 4414?", "What velocity has IC342?"):
        res = r.search(question, debug=True)
        assert res.evaluation is not None
        assert not any("never mention" in i for i in res.evaluation.issues), question
        assert res.hits[0].file_name == "galaxies.txt", question
        assert res.confidence != "low", question
        assert any(n == 1 for n in res.debug["exact_terms"].values()), question
    # as before, a number no page writes is absent
    missing = r.search("What velocity has NGC 4415?")
    assert missing.evaluation is not None and "'4415'" in missing.evaluation.issues[0]


def test_spellings_of_a_name_and_its_number() -> None:
    assert analyse("the galaxy NGC 4414?").spellings == {
        "NGC": ("NGC4414",),
        "4414": ("NGC4414",),
    }
    assert analyse("Is NGC4414 near?").spellings == {"NGC4414": ("NGC 4414",)}
    assert analyse("Is the lamp lit at dusk?").spellings == {}


def test_a_name_the_library_never_mentions_is_reported(store: Store, embedder: Embedder) -> None:
    res = Retriever(store, embedder).search("Does the Keeper log ships with Harbour Master?")
    assert res.evaluation is not None
    issue = res.evaluation.issues[0]
    assert "'Harbour'" in issue and "'Harbour Master'" in issue
    assert "'Keeper'" not in issue  # the library has that word (any case)


def test_names_and_checkable_terms() -> None:
    terms = analyse('Can I load an Apache Parquet file with is.na() or "Mac Roman"?')
    assert terms.names == ("Apache", "Parquet", "Apache Parquet")
    assert terms.checkable == ("Mac Roman", "Apache", "Parquet", "Apache Parquet")


def test_adaptive_k_grows_with_the_library(store: Store, embedder: Embedder) -> None:
    filler = [f"Filler note number {i} about nothing in particular." for i in range(120)]
    vec = embedder.embed_dense(["filler"])[0]
    sparse = embedder.embed_sparse(["filler"])[0]
    store.upsert_chunks(
        [
            ChunkPoint(chunk_point_id("filler", i), vec, sparse, _payload("filler", i, t))
            for i, t in enumerate(filler)
        ]
    )
    r = Retriever(store, embedder)
    assert r.search("lighthouse lamp").k == 20  # 133 chunks
    assert len(r.search("lighthouse lamp").hits) == 20
    assert r.search("lighthouse lamp", k=7).k == 7  # k overrides
    assert r.search("lighthouse lamp", doc_ids=["garden.txt"]).k == 5  # scope decides
    fixed = Retriever(store, embedder, RetrievalConfig(results_k=9))
    assert fixed.search("lighthouse lamp").k == 9


def test_two_tier_searches_within_the_best_documents(store: Store, embedder: Embedder) -> None:
    cfg = RetrievalConfig(two_tier_min_docs=2, two_tier_docs=1)
    res = Retriever(store, embedder, cfg).search("sourdough bread baking", debug=True)
    tier = res.debug["two_tier_docs"]
    assert tier[0] == "bakery.txt"  # the best document vector first, then the documents
    assert set(tier) <= set(DOCS)  # of the question's best chunks
    assert res.hits[0].doc_id == "bakery.txt"
    only = Retriever(store, embedder, cfg).search("sourdough", doc_ids=["garden.txt"], debug=True)
    assert only.debug["two_tier_docs"] is None  # a small scope is searched whole
    small = Retriever(store, embedder, RetrievalConfig(two_tier_min_docs=10))
    assert small.search("sourdough", debug=True).debug["two_tier_docs"] is None


def test_debug_shows_variants_stages_and_timings(store: Store, embedder: Embedder) -> None:
    res = Retriever(store, embedder).search(
        "When are the roses pruned?", debug=True, rewrites=["rose pruning season"]
    )
    dbg = res.debug
    assert [v["name"] for v in dbg["variants"]] == ["question", "keywords", "rewrite1"]
    assert {"question", "keywords", "rewrite1", "dense"} <= set(dbg["stages"])
    first = dbg["stages"]["question"][0]
    assert set(first) == {"rank", "score", "chunk"} and first["rank"] == 1
    assert dbg["fused"][0]["rank"] == 1 and dbg["hits"][0]["ranks"]
    assert {"embed", "hybrid", "fuse", "cap", "expand", "total"} <= set(dbg["timings_ms"])
    assert res.hits[0].text.startswith("Prune the roses")
    assert Retriever(store, embedder).search("roses").debug == {}


class CountingStore:
    """The real store, counting the calls the retriever makes into it."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self.calls: Counter[str] = Counter()
        self.kwargs: dict[str, list[dict[str, Any]]] = {}

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._store, name)
        if not callable(attr):
            return attr

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls[name] += 1
            self.kwargs.setdefault(name, []).append(kwargs)
            return attr(*args, **kwargs)

        return counted


def test_a_search_reads_every_neighbour_in_one_store_call(store: Store, embedder: Embedder) -> None:
    counting = CountingStore(store)
    res = Retriever(cast(Store, counting), embedder).search(
        "lighthouse lamp, sourdough loaves and tomatoes", k=6
    )
    assert len({h.doc_id for h in res.hits}) == 3
    assert counting.calls["chunks_at"] == 1  # not one read per document hit
    lamp = next(h for h in res.hits if h.doc_id == "lighthouse.txt" and h.ordinal > 0)
    assert lamp.context_before == DOCS["lighthouse.txt"][lamp.ordinal - 1]
    garden = next(h for h in res.hits if h.doc_id == "garden.txt")
    assert (garden.context_before or garden.context_after) in DOCS["garden.txt"]


def test_a_word_no_passage_covers_makes_it_low(store: Store, embedder: Embedder) -> None:
    """Every other word is in the library (the keeper, the ships, calling): only the best
    passage's vector, once 'radio' is left out, shows the passages are about the rest."""
    checking = Retriever(store, embedder)  # on by default (session 9)
    assert checking.config.uncovered_check
    res = checking.search("Which radio channel does the keeper use to call ships?", debug=True)
    ev = res.evaluation
    assert ev is not None and res.confidence == "low" and not res.sufficient
    assert next(iter(ev.uncovered)) == "radio" and sum(ev.uncovered.values()) >= UNCOVERED_GAIN
    assert "'radio'" in ev.recommendation
    assert "uncovered" in res.debug["timings_ms"]
    # Off: the same question is medium, and nothing more is embedded.
    unchecked = Retriever(store, embedder, RetrievalConfig(uncovered_check=False)).search(
        "Which radio channel does the keeper use to call ships?", debug=True
    )
    assert unchecked.sufficient and "uncovered" not in unchecked.debug["timings_ms"]
    # A paraphrase the passage covers ('cleaned' for 'polished') brings it no closer.
    covered = checking.search("How often is the lighthouse lens cleaned?")
    assert covered.evaluation is not None and covered.sufficient
    assert sum(covered.evaluation.uncovered.values()) < UNCOVERED_GAIN


def test_a_word_the_library_never_uses_needs_less_to_make_it_low(
    store: Store, embedder: Embedder
) -> None:
    """'brand' is in no passage (by its BM25 stem): leaving it out brings the lamp-oil
    passage 0.04 closer, under the bar of a word the library holds somewhere, over that
    of one it never uses. Only in a library large enough (``unused_min_chunks``) for a
    word it lacks to say something, and by the whole library's words, scoped or not."""
    question = "What brand of lamp oil is stored in the cellar?"
    wide = RetrievalConfig(unused_min_chunks=0)  # this library of 13 passages as a large one
    res = Retriever(store, embedder, wide).search(question)
    assert res.confidence == "low" and res.evaluation is not None
    assert "'brand'" in res.evaluation.recommendation
    assert 0 < res.evaluation.uncovered["brand"] < UNCOVERED_GAIN
    assert Retriever(store, embedder, replace(wide, unused_gain=0)).search(question).sufficient
    # as it is: too small a library for a word it lacks to tell
    assert Retriever(store, embedder).search(question).sufficient
    fill(store, embedder, {"shop.txt": ["The shop sells two brands of candles."]})
    for scope in ({}, {"doc_ids": ["lighthouse.txt"]}, {"exclude_doc_ids": ["shop.txt"]}):
        assert Retriever(store, embedder, wide).search(question, **scope).sufficient, scope


def test_a_question_about_a_page_gets_that_pages_passages_best_first(
    store: Store, embedder: Embedder
) -> None:
    """lighthouse.txt's passage i is on page i + 1 (``_payload``)."""
    r = Retriever(store, embedder)
    docs = ["lighthouse.txt", "bakery.txt"]
    asked = r.search("keeper", doc_ids=docs, pages=PageRequest(((5, 5),), "keeper"))
    assert [(h.file_name, h.page_start) for h in asked.hits] == [("lighthouse.txt", 5)]
    assert asked.hits[0].text.startswith("The keeper logs") and asked.confidence != "low"
    # the whole page, nothing else asked: its passages in their order, of every document
    whole = r.search("What is on?", doc_ids=docs, pages=PageRequest(((3, 4),), "What is on?"))
    assert [(h.file_name, h.ordinal) for h in whole.hits] == [
        ("bakery.txt", 2),
        ("bakery.txt", 3),
        ("lighthouse.txt", 2),
        ("lighthouse.txt", 3),
    ]
    assert whole.sufficient and whole.confidence == "high"
    # a page no document searched has
    none = r.search("keeper", doc_ids=docs, pages=PageRequest(((40, 40),), "keeper"))
    assert none.hits == [] and none.confidence == "low" and not none.sufficient
    assert none.evaluation is not None
    assert "No document searched has page 40" in none.evaluation.recommendation
    # of more documents than it reads pages of: those nearest the question
    many = [f"doc{i}.txt" for i in range(30)]
    fill(store, embedder, {d: [f"Filler passage {i} of {d}." for i in range(3)] for d in many})
    near = r.search(
        "lens polished", doc_ids=[*many, *docs], pages=PageRequest(((3, 3),), "lens polished")
    )
    assert near.hits[0].file_name == "lighthouse.txt" and near.debug["documents"] == 32
    # and a whole page of each of them is no answer: which document?
    which = r.search("", doc_ids=[*many, *docs], pages=PageRequest(((3, 3),), ""))
    assert which.hits == [] and which.evaluation is not None
    assert "32 documents have page 3: name the one you mean" in which.evaluation.recommendation


#: A long history full of contracts and a short plan naming its contractor: the history's
#: passages fill the dense lists (contract ~ contractor). helper-67's QA, session 30.
_CONTRACTS = ["the social contract", "the hosting contract", "a support contract"]
CONTRACT_LIBRARY = {
    "history.pdf": [
        f"In {year} the project revised {topic}. The developers voted on {topic} and the "
        "leader signed it after a long debate."
        for year, topic in zip(range(1900, 2020), itertools.cycle(_CONTRACTS))
    ],
    "renovation.md": [
        "## Roof\nThe roof of the main house gets new cedar shingles. The boathouse roof "
        "stays as it is.",
        "## Budget\nThe painting budget is 4,800 euros; the roof is 11,200 euros. The "
        "contractor is Halvorsen & Daughters from Tampere.",
    ],
}


@pytest.fixture(scope="module")
def contract_store(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> Iterator[Store]:
    st = open_store(path=tmp_path_factory.mktemp("contracts") / "qdrant", dim=embedder.dim)
    fill(st, embedder, CONTRACT_LIBRARY)
    yield st
    st.close()


@pytest.mark.parametrize("question", ["Who is the contractor?", "contractor"])
def test_a_rare_word_the_best_passages_lack_brings_in_the_passage_holding_it(
    contract_store: Store, embedder: Embedder, question: str
) -> None:
    said = chunk_point_id("renovation.md", 1)
    res = Retriever(contract_store, embedder).search(question, debug=True)
    assert said in [h.chunk_id for h in res.hits[:3]]
    assert res.confidence != "low" and res.debug["missing_words"] == {"contractor": 1}
    # Without it, the one passage saying "contractor" is lost among the contracts.
    off = RetrievalConfig(missing_word_weight=0)
    lost = Retriever(contract_store, embedder, off).search(question)
    assert said not in [h.chunk_id for h in lost.hits[:5]] and lost.confidence == "low"


def test_a_name_the_best_three_passages_lack_brings_in_the_passage_holding_it(
    tmp_path: Path, embedder: Embedder
) -> None:
    """The evaluation reads the best three for the question's names: "Who is Helga?" was
    refused ("no passage found mentions 'Helga'") with her team's notes 8th of 25, where
    the word rule (a word none of the 25 holds) does not reach (QA, session 31). Here the
    word rule is off, so that the name rule alone is seen."""
    leaders = ["Ian Murdock", "Bruce Perens", "Ian Jackson", "Ben Collins", "Bdale Garbee"]
    lines = [
        f"In {year} {who} was elected project leader; he led the developers and was a "
        "contributor who maintained packages for years."
        for year, who in zip(range(1900, 2020), itertools.cycle(leaders))
    ]
    notes = (
        "# Warehouse migration\nThe warehouse migration to the new site starts in May: "
        "crates, shelving, pallets and two forklifts are ordered, the racks are measured and "
        "the loading dock is repaired. The budget is 42,000 euros. Helga Brandt leads Team A."
    )
    library = {"history.pdf": lines[:40], "leaders.pdf": lines[40:80], "people.pdf": lines[80:]}
    st = open_store(path=tmp_path / "qdrant", dim=embedder.dim)
    try:
        fill(st, embedder, {**library, "notes.md": [notes]})
        said = chunk_point_id("notes.md", 0)

        def search(names: float) -> SearchResult:
            config = RetrievalConfig(missing_word_weight=0, missing_name_weight=names)
            return Retriever(st, embedder, config).search("Who is Helga?", k=25)

        found, lost = search(1.0), search(0.0)
        assert said in [h.chunk_id for h in found.hits[:3]] and found.confidence != "low"
        assert said not in [h.chunk_id for h in lost.hits[:3]] and lost.confidence == "low"
    finally:
        st.close()


def test_a_word_missing_from_the_best_passages_is_not_probed_in_their_documents(
    contract_store: Store, embedder: Embedder
) -> None:
    """Scoped to the history, which never says "contractor": nothing to probe (inside
    the head's documents the rerank ranks the places; measured, probing there cost)."""
    res = Retriever(contract_store, embedder).search(
        "Who is the contractor?", doc_ids=["history.pdf"], debug=True
    )
    assert res.debug["missing_words"] == {}
    assert {h.doc_id for h in res.hits} == {"history.pdf"}


def test_a_cross_encoder_from_the_users_folder_reorders_the_best(
    store: Store, embedder: Embedder, tmp_path: Path
) -> None:
    """The stand-in cross-encoder (tests/data/cross_encoder) scores a passage by how often
    it says "zebra": with its folder set, that passage comes first; off, it does not."""
    fill(store, embedder, {"signs.txt": ["The daymark is painted in zebra stripes, zebra."]})
    question = "Where is the lamp oil kept?"
    plain = Retriever(store, embedder)
    plain.apply_settings(Settings())
    off = plain.search(question, debug=True)
    assert plain.cross_encoder is None and "cross_encoder" not in off.debug["timings_ms"]
    assert "cellar" in off.hits[0].text
    folder = cross_encoder_folder(tmp_path / "ce")
    reranked = Retriever(store, embedder)
    reranked.apply_settings(Settings(rerank_model_dir=str(folder)))
    on = reranked.search(question, debug=True)
    assert on.hits[0].doc_id == "signs.txt" and "cross_encoder" in on.debug["timings_ms"]
    assert [h.chunk_id for h in on.hits[1:]][:2] == [h.chunk_id for h in off.hits][:2]
    # turned off again: the next search is the plain one
    reranked.apply_settings(Settings())
    assert reranked.cross_encoder is None
    assert reranked.search(question).hits[0].chunk_id == off.hits[0].chunk_id


def test_the_question_searches_the_dense_index_once(store: Store, embedder: Embedder) -> None:
    """Its dense list serves both the similarity and its hybrid list (fused here with its
    BM25 list); the keyword variant's lists are fused here too, never by Qdrant's hybrid
    query (it ranks a tie in any order)."""
    counting = CountingStore(store)
    res = Retriever(cast(Store, counting), embedder).search(
        "When are the roses pruned?", debug=True
    )
    assert [v["name"] for v in res.debug["variants"]] == ["question", "keywords"]
    queries = counting.kwargs["query"]
    question = embedder.query_dense("When are the roses pruned?")
    with_question = [q for q in queries if q.get("dense") == question]
    assert len(with_question) == 1 and with_question[0].get("sparse") is None
    assert not any(q.get("dense") is not None and q.get("sparse") is not None for q in queries)
    assert len(queries) == 4  # dense and BM25, for the question and for its keywords


class TieShufflingStore(CountingStore):
    """The real store, returning points of equal score in another order each time, as
    Qdrant may (seen: a BM25 tie ranked 30th in one search and 31st in the next)."""

    def __init__(self, store: Store, seed: int) -> None:
        super().__init__(store)
        self.rng = random.Random(seed)
        self.shuffled = 0  # the queries that returned a tie

    def query(self, **kwargs: Any) -> list[ScoredPoint]:
        points = list(self._store.query(**kwargs))
        out: list[ScoredPoint] = []
        for _, group in itertools.groupby(points, key=lambda p: p.score):
            tie = list(group)
            self.rng.shuffle(tie)
            out += tie
        self.shuffled += len(out) != len({p.score for p in out})
        return out


def test_a_search_ranks_alike_whatever_order_the_store_returns_a_tie_in(
    tmp_path: Path, embedder: Embedder
) -> None:
    """Eight passages the keyword "lamp" scores alike (one mention, the same length): the
    hits, their ranks and scores are the same for any order of the tie."""
    st = open_store(path=tmp_path / "qdrant", dim=embedder.dim)
    colours = ["red", "blue", "green", "black", "white", "grey", "brown", "gold"]
    fill(st, embedder, {"lamps.txt": [f"The {c} lamp hangs by the door." for c in colours]})
    try:
        runs = []
        for seed in range(4):
            shuffling = TieShufflingStore(st, seed)
            res = Retriever(cast(Store, shuffling), embedder).search("the lamp", k=8, debug=True)
            assert shuffling.shuffled, "no tie came back: nothing was checked"
            runs.append([(h.chunk_id, h.score, h.debug["ranks"]) for h in res.hits])
        assert all(run == runs[0] for run in runs[1:])
    finally:
        st.close()


class TieSubsetStore:
    """A store whose BM25 list is 40 points of distinct scores, then 30 of one score; asked
    for fewer than all, it returns any of the tied ones (as a real store may: which of a
    tie make the cut is its choice), each time another choice."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.points = [sp(f"p{i:02d}", score=10.0 - i / 10) for i in range(40)]
        self.tie = [sp(f"t{i:02d}", score=1.0) for i in range(30)]
        self.limits: list[int] = []

    def query(self, *, limit: int, **_: Any) -> list[ScoredPoint]:
        self.limits.append(limit)
        tie = self.rng.sample(self.tie, len(self.tie))
        return (self.points + tie)[:limit]


def test_a_tie_across_a_lists_depth_is_read_whole_and_cut_by_id(embedder: Embedder) -> None:
    kept = []
    for seed in range(4):
        store = TieSubsetStore(seed)
        got = Retriever(cast(Store, store), embedder)._list(None, None, 50, None, [], None)
        assert store.limits == [60, 120], store.limits  # the tie ran past 60: read again
        kept.append([p.id for p in got])
    assert all(k == kept[0] for k in kept[1:])
    assert kept[0][40:] == [f"t{i:02d}" for i in range(10)]  # the tie's first ids


def test_the_hybrid_list_fused_here_scores_as_qdrants_own(store: Store, embedder: Embedder) -> None:
    q = "polish the lens of the lighthouse lamp"
    dense, sparse = embedder.query_dense(q), embedder.query_sparse(q)
    qdrant = store.query(dense=dense, sparse=sparse, limit=10, prefetch_limit=10)
    lists = [store.query(dense=dense, limit=10), store.query(sparse=sparse, limit=10)]
    ours = fusion.hybrid(lists, 10)
    assert {p.id for p in ours} == {p.id for p in qdrant}
    theirs = {p.id: p.score for p in qdrant}
    # a point tied with another in a list shares the better position (Qdrant gives each
    # its own, in the order it happened to return them); any other scores as Qdrant's
    tied = {
        p.id
        for points in lists
        for i, p in enumerate(points)
        if any(q.score == p.score for q in points[max(i - 1, 0) : i + 2] if q is not p)
    }
    assert tied, "no tie to check: a BM25 list of this library has some"
    for p in ours:
        if p.id in tied:
            assert p.score >= theirs[p.id] - 1e-9
        else:
            assert p.score == pytest.approx(theirs[p.id], abs=1e-6)
    assert [p.score for p in ours] == sorted((p.score for p in ours), reverse=True)


def test_hybrid_fusion_sums_reciprocal_positions() -> None:
    got = fusion.hybrid(
        [[sp("a", score=2.0), sp("b", score=1.0)], [sp("b", score=2.0), sp("c", score=1.0)]],
        limit=2,
    )
    assert [p.id for p in got] == ["b", "a"]
    assert got[0].score == pytest.approx(1 / 61 + 1 / 60) and got[1].score == pytest.approx(1 / 60)


def test_the_embedding_model_does_not_spin_between_runs(embedder: Embedder) -> None:
    """onnxruntime's threads spin after each run by default: on two cores that took the
    core the store's search needed right after the query embedding."""
    import onnxruntime as ort

    session = embedder._dense.model.model  # fastembed's model -> its InferenceSession
    options = session.get_session_options()
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    assert options.get_session_config_entry("session.inter_op.allow_spinning") == "0"
    # the class fastembed calls was put back after loading
    assert ort.SessionOptions is ort.capi.onnxruntime_pybind11_state.SessionOptions


def test_a_model_folder_embeds_as_the_same_model_bundled_does(
    tmp_path: Path, embedder: Embedder
) -> None:
    """embedding_model may name a folder (a sentence-transformers model in ONNX)."""
    folder = tmp_path / "minilm"
    shutil.copytree(resources_dir() / "models" / "all-MiniLM-L6-v2-int8", folder)
    from_folder = Embedder(str(folder))
    question = "How often is the lens polished?"
    assert from_folder.query_dense(question) == pytest.approx(embedder.query_dense(question))
    assert from_folder.dim == 384


def test_a_model_that_no_longer_loads_says_which_setting_and_what_to_do(tmp_path: Path) -> None:
    """The setting was checked when saved; a folder can still go or break before the next
    start. The message is a sentence for the user, not fastembed's advice to call
    TextEmbedding.list_supported_models()."""
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "model.onnx").write_bytes(b"not a model")
    (broken / "tokenizer.json").write_text("{}")
    for folder, why in ((tmp_path / "gone", "is not a folder"), (broken, "did not load")):
        with pytest.raises(EmbeddingError) as err:
            Embedder(str(folder)).ensure_loaded()
        message = str(err.value)
        assert message.startswith("Could not load the embedding model: "), message
        assert why in message and str(folder) in message
        assert "Set embedding_model in Settings" in message and "start Docent again" in message
        assert "list_supported_models" not in message


def test_a_name_only_other_passages_hold_makes_it_low_unless_a_heading_does(
    tmp_path: Path, embedder: Embedder
) -> None:
    """The library mentions Fresnel (in the garden notes), the passage found does not:
    they are not about the Fresnel light, until its heading path says so."""
    docs = {
        **DOCS,
        "garden.txt": [*DOCS["garden.txt"], "Fresnel, the gardener, waters at dawn."],
    }
    st = open_store(path=tmp_path / "qdrant", dim=embedder.dim)
    try:
        fill(st, embedder, docs)
        question = "How often is the lens of the Fresnel light polished?"
        res = Retriever(st, embedder).search(question, k=1)
        assert [h.file_name for h in res.hits] == ["lighthouse.txt"]
        ev = res.evaluation
        assert ev is not None and (res.confidence, res.sufficient) == ("low", False)
        assert "no passage found mentions 'Fresnel'" in ev.issues
        assert not any("never mention" in i for i in ev.issues)  # the library does
        st.set_chunks_payload("lighthouse.txt", {"context": "Fresnel light › Care of the lens"})
        res = Retriever(st, embedder).search(question, k=1)
        assert [h.file_name for h in res.hits] == ["lighthouse.txt"] and res.sufficient
    finally:
        st.close()


def test_the_words_the_best_passages_document_uses_throughout(
    store: Store, embedder: Embedder
) -> None:
    """``RetrievalConfig.document_words``: the question's words held by that many chunks
    of the best passage's document, counted in the store (its own chunks only)."""
    fill(
        store,
        embedder,
        {
            "school.txt": [f"Room {i} of the school has {i} desks." for i in range(12)]
            + ["Clients turn off at night when a flag file exists."],
            "ferry.txt": [f"The ferry leaves at {i} o'clock." for i in range(12)],
        },
    )
    r = Retriever(store, embedder, RetrievalConfig(document_words=10))
    best = Candidate(chunk_point_id("school.txt", 12), _payload("school.txt", 12, "Clients"))
    common = r._common(best, None)
    assert common(["school", "ferry", "night", "desks"]) == ["school", "desks"]
    assert (
        Retriever(store, embedder, RetrievalConfig(document_words=13))._common(best, None)(
            ["school"]
        )
        == []
    )  # in 12 chunks of it: fewer than asked
    assert RetrievalConfig().document_words == 10  # on by default (session 21)
