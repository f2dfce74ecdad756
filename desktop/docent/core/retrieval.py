"""Retrieval: find the passages a question is about, from the question's words or its meaning.

Stages of :meth:`Retriever.search` (each one's ranks, scores and time go to ``debug``):

1. variants: the question, its keyword form (stopwords out, exact terms kept), and up
   to two rewrites the caller got from an LLM;
2. the question through Qdrant's hybrid query (dense + BM25 prefetch fused with RRF);
3. two-tier (libraries of more than ``two_tier_min_docs`` documents): the candidate
   documents are the best by their ``documents`` vector plus those of the question's
   best chunks, and the other variants search only within them;
4. the other variants through the hybrid query, and the question's dense-only list,
   which also gives each chunk its cosine similarity (for the evaluation);
5. all lists fused with weighted RRF (one dict entry per chunk id: O(1) dedup);
6. keyword boost: chunks holding the question's rare exact terms (Qdrant's full-text
   index) join the fusion as one more list, weighted by how rare the term is; so do
   those holding a rare plain word of the question that the best candidates lack;
7. tables of contents and indexes demoted; the rerank (rerank.py) re-sorts each
   document's candidates among its own places by how close together they hold the
   question's terms, the question's options as written, and how near the question their
   best sentence is (its sentence vectors, read for these candidates only:
   sentence_vectors.py), then over all documents favours those whose title names what
   the question names (``R``, ``PDP-11``: ``title_weight``); with a cross-encoder (``rerank_model_dir``, off by default:
   cross_encoder.py) the best ``cross_depth`` are then re-sorted by its scores;
8. identical text dropped, the per-document cap
   (``max_chunks_per_document`` for every 5 results), adaptive k;
9. neighbour expansion (ordinal ±1 as context, not as hits: one read by point id for
   all hits) and the retrieval evaluation (sufficiency.py), which with ``uncovered_check``
   embeds the question without each word no passage holds and compares it with the best
   passage's vector and with the top passages' sentences (read by the rerank).

A search in one collection passes its id to every store query above (the hybrid
prefetches, the dense list, the ``documents`` search of two-tier, the exact-term probes,
the neighbours), so Qdrant filters inside each query; adaptive k and the two-tier
threshold count that collection's documents.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from docent.core import fusion, rerank
from docent.core.config import Settings
from docent.core.cross_encoder import CrossEncoder
from docent.core.embedding import Embedder
from docent.core.evaluation import cosine
from docent.core.fusion import Candidate, RankedList
from docent.core.models import Hit, SparseVec, page_breaks_of, part_on_pages
from docent.core.queryterms import PageRequest, QueryTerms, analyse, content_words
from docent.core.store import ScoredPoint, Store
from docent.core.sufficiency import (
    TOP_HITS,
    Gain,
    GainOf,
    RetrievalEvaluation,
    evaluate_retrieval,
    masked_questions,
    uncovered_gains,
)

MAX_REWRITES = 2
#: The most passages a question about whole pages gets ("What is on pages 3-5?").
MAX_PAGE_HITS = fusion.MAX_ADAPTIVE_K
#: A question about a page of more documents than this reads the page of those whose
#: whole is nearest the question (a store read of every document's page 3 reached an
#: arbitrary 200 of 7,500 passages in a library of 2,500 documents; review, session 31).
MAX_PAGE_DOCS = 10
#: Points read past a ranked list's depth, so that a tie at its end is cut by id (``_list``).
TIE_MARGIN = 10
#: A tie at a list's end is read whole up to this many points (boilerplate repeated on
#: every page of a long manual ties in BM25).
MAX_TIE_READ = 1000


def _by_score_then_id(points: Sequence[ScoredPoint]) -> list[ScoredPoint]:
    return sorted(points, key=lambda p: (-p.score, p.id))


@dataclass(frozen=True, slots=True)
class RetrievalConfig:
    """Knobs of the pipeline; the defaults are the ones benchmarks/retrieval_eval.py chose."""

    #: At most this many hits per document while other documents still have some.
    max_chunks_per_document: int = 3
    #: Fixed number of hits; 0 = adaptive (5, 20 or 25 by the size of the scope).
    results_k: int = 0
    #: Depth of every ranked list (and of Qdrant's dense/BM25 prefetch).
    depth: int = 50
    #: RRF constant for fusing the lists (Qdrant's own hybrid fusion uses store.RRF_K).
    rrf_k: int = fusion.RRF_K
    question_weight: float = 1.0
    keyword_weight: float = 0.7
    rewrite_weight: float = 0.7
    #: Weight of the question's dense-only list in the fusion (0: similarity only).
    dense_weight: float = 1.0
    #: Weight of the exact-term list for a term found in very few chunks.
    exact_weight: float = 0.5
    #: How many chunks a term may match and still count as rare.
    exact_probe: int = 40
    #: Weight of the same list for a plain word of the question found in few chunks, none
    #: of them in a document of the best candidates, and in none of those (0: off). 1.0:
    #: dev and held-out figures as at 0, scoped or not, and "contractor", said only by one
    #: short document, comes first. Within the head's documents it cost scoped dev MRR@10
    #: 0.893 -> 0.876 and one unanswerable question's "low" (session 31).
    missing_word_weight: float = 1.0
    #: The best candidates a missing word is looked for in (0: all ``want``). 5 since
    #: session 33: looked for in all 25 of an unscoped search, a word held only by the
    #: 10th ("wifi", said once in the library) was not missing, so that passage stayed
    #: 10th and the evaluation, reading the first 5, said "not in the passages found:
    #: office, wifi"; asked with -k 5 it came first (QA-75). Dev, scoped dev and
    #: held-out figures as at 0.
    missing_head: int = TOP_HITS
    #: Exact terms (``LanternNet``, ``kestrel-07``) are looked for as missing words too:
    #: their own list's weight (``exact_weight``) lost to the dense lists, and a name
    #: ``docent grep`` found in one passage was 16th of 25 (QA-75). Figures as without.
    missing_exact: bool = True
    #: The same for a capitalised name of the question that none of the best
    #: ``TOP_HITS`` candidates holds (those the evaluation reads for names): "Who is
    #: Helga?" was refused, "no passage found mentions 'Helga'", her team's notes 8th of
    #: 25 (QA, session 31). 1: dev, held-out and scoped figures as at 0 (so at 2).
    missing_name_weight: float = 1.0
    #: How many chunks such a word may be found in (a smaller probe than exact terms':
    #: most questions have a word their best passages lack, and reading 40 chunks for a
    #: common one cost 4-12 ms).
    missing_probe: int = 10
    #: Two-tier retrieval above this many documents in the library.
    two_tier_min_docs: int = 25
    #: Documents kept as candidates by two-tier retrieval.
    two_tier_docs: int = 6
    #: Fused score factor for table-of-contents and index chunks (1: no demotion).
    navigation_factor: float = 0.5
    #: "hard": at most max_chunks_per_document while others remain; "scaled": that
    #: many per 5 results; "none".
    cap_mode: str = "scaled"
    expand_neighbours: bool = True
    #: Rerank (rerank.py): fused score x (1 + proximity_weight x term proximity) for the
    #: best ``rerank_depth`` candidates; "document": only within each document's places.
    #: 0.5 since session 21: beside the sentence factor (weight 2), 1 let the question's
    #: words close together outweigh the sentence that says the answer (all dev 34
    #: MRR@10 0.812 -> 0.848; held-out, checked once, 0.846 -> 0.887).
    proximity_weight: float = 0.5
    #: ... x (1 + identifier_weight x the share of the question's options and code-like
    #: names the candidate holds as written).
    identifier_weight: float = 1.0
    #: ... x (1 + sentence_weight x the best cosine between the question and one of the
    #: candidate's sentences, sentence_vectors.py; 0 for a chunk indexed without them).
    sentence_weight: float = 2.0
    #: Then over all documents: rank-weighted x (1 + title_weight x the share of the
    #: question's names the candidate's document title holds; rerank.by_title).
    title_weight: float = 0.5
    rerank_depth: int = 30
    rerank_scope: str = "document"
    #: With a cross-encoder (``rerank_model_dir``): the best this many candidates are
    #: re-sorted by its scores, over all documents.
    cross_depth: int = 20
    #: Weigh the question's uncovered words with the embedding (sufficiency.py); off, they
    #: only lower the keyword overlap (and the search skips their embeddings). Chosen on
    #: the dev questions; off until the sentence factor above (session 9): before it, it
    #: lost 2 of 32 held-out answerable questions, with it 1 (and 0 of 34 dev ones).
    uncovered_check: bool = True
    #: A question's word held by at least this many chunks of the best passage's document
    #: is the document's setting, not something the passages fail to cover (0: off): with
    #: "school" weighed, dev q010 on the Debian Edu manual (a school's) went low when its
    #: fifth passage changed. 10: no dev or held-out unanswerable question lost on the
    #: whole corpus, one answerable scoped question fewer low; 3 lost two (session 21).
    document_words: int = 10
    #: Bar of the passage's or the best sentence's gain (the larger) for an uncovered word
    #: no passage of the library holds, by its BM25 stem (0: off; see
    #: ``sufficiency.UNUSED_GAIN``). On the dev and fresh questions 0.02: 5 more of 54
    #: unanswerable low ("dplyr", "lid", "isotope", "vaccine", "surrender"), 1 more of 74
    #: answerable ("protein" for a table's "type"); held-out unchanged (session 35).
    unused_gain: float = 0.02
    #: ... only in a library of at least this many passages, and never used anywhere in
    #: it (scoped or not): one document leaves out everyday words, and scoped to its
    #: document, the words it never uses made 8 of 34 dev answerable questions low, not 1.
    unused_min_chunks: int = 2000


@dataclass(frozen=True, slots=True)
class Variant:
    name: str
    text: str
    weight: float


@dataclass(slots=True)
class SearchResult:
    query: str
    hits: list[Hit]
    confidence: str = ""
    sufficient: bool = True
    debug: dict[str, Any] = field(default_factory=dict)
    #: The query texts searched (question, keyword form, rewrites).
    variants: list[str] = field(default_factory=list)
    evaluation: RetrievalEvaluation | None = None
    #: The number of hits asked for (adaptive unless given).
    k: int = 0


def build_variants(
    query: str, terms: QueryTerms, rewrites: Sequence[str], config: RetrievalConfig
) -> list[Variant]:
    out = [Variant("question", query, config.question_weight)]
    seen = {" ".join(query.lower().split())}
    keywords = terms.keyword_form
    if keywords and config.keyword_weight > 0 and keywords.lower() not in seen:
        out.append(Variant("keywords", keywords, config.keyword_weight))
        seen.add(keywords.lower())
    for text in rewrites:
        norm = " ".join(text.split())
        if len(out) >= 2 + MAX_REWRITES or sum(v.name.startswith("rewrite") for v in out) >= 2:
            break
        if norm and norm.lower() not in seen and config.rewrite_weight > 0:
            n = 1 + sum(v.name.startswith("rewrite") for v in out)
            out.append(Variant(f"rewrite{n}", norm, config.rewrite_weight))
            seen.add(norm.lower())
    return out


def hit_from_point(p: ScoredPoint) -> Hit:
    pl = p.payload
    return Hit(
        chunk_id=p.id,
        doc_id=pl["doc_id"],
        file_name=pl["file_name"],
        path=pl["path"],
        page_start=int(pl["page_start"]),
        page_end=int(pl["page_end"]),
        ordinal=int(pl["ordinal"]),
        score=p.score,
        text=pl["text"],
        location=str(pl.get("location", "")),
        page_breaks=page_breaks_of(pl),
    )


def _place(p: ScoredPoint) -> tuple[str, str, int]:
    pl = p.payload
    return str(pl.get("file_name", "")), str(pl.get("path", "")), int(pl.get("ordinal", 0))


def unanswered(
    query: str, why: str, advice: str, debug: dict[str, Any] | None = None
) -> SearchResult:
    """A search that found nothing to read, saying why: low, no hits."""
    evaluation = RetrievalEvaluation(0.0, False, "low", [why], advice)
    return SearchResult(query, [], "low", False, debug=debug or {}, evaluation=evaluation)


def _whole_pages(
    query: str,
    found: Sequence[ScoredPoint],
    pages: PageRequest,
    k: int | None,
    debug: dict[str, Any],
) -> SearchResult:
    """ "What is on page 3?": the page's passages in their order, with nothing else asked
    (each cut to its part on the pages asked)."""
    chosen = sorted(found, key=_place)[: k or MAX_PAGE_HITS]
    hits = _on_pages_only([hit_from_point(p) for p in chosen], pages)
    evaluation = RetrievalEvaluation(1.0, True, "high")
    return SearchResult(query, hits, "high", True, debug=debug, evaluation=evaluation, k=len(hits))


def _on_pages_only(hits: list[Hit], pages: PageRequest) -> list[Hit]:
    """The hits cut to their part on the pages asked (``models.part_on_pages``), those
    with next to nothing there left out, unless that leaves none."""
    cut = [part_on_pages(h, pages.spans) for h in hits]
    return [h for h in cut if h is not None] or hits


class _Clock:
    def __init__(self) -> None:
        self.ms: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.ms[name] = round(self.ms.get(name, 0.0) + (time.perf_counter() - t0) * 1e3, 2)


class LibrarySize(Protocol):
    """(ready documents, their chunks) in the library or in one collection (by id), from a
    cheaper source than the store."""

    def __call__(self, collection: str | None = None) -> tuple[int, int]: ...


class Retriever:
    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        config: RetrievalConfig | None = None,
        library_size: LibrarySize | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.config = config or RetrievalConfig()
        #: The Engine passes the catalog's counts; without it the store is asked.
        self.library_size = library_size
        #: The user's cross-encoder (``rerank_model_dir``); None: off, the default.
        self.cross_encoder: CrossEncoder | None = None

    def apply_settings(self, settings: Settings) -> None:
        """Take the user's result count, per-document cap and cross-encoder folder (they
        can change any time)."""
        folder = Path(settings.rerank_model_dir).expanduser() if settings.rerank_model_dir else None
        current = self.cross_encoder.folder if self.cross_encoder else None
        if folder != current:
            self.cross_encoder = CrossEncoder(folder) if folder else None
        cfg = self.config
        if (cfg.results_k, cfg.max_chunks_per_document) != (
            settings.results_k,
            settings.max_chunks_per_document,
        ):
            self.config = replace(
                cfg,
                results_k=settings.results_k,
                max_chunks_per_document=settings.max_chunks_per_document,
            )

    def search(
        self,
        query: str,
        *,
        k: int | None = None,
        doc_ids: Sequence[str] | None = None,
        exclude_doc_ids: Sequence[str] | None = None,
        debug: bool = False,
        rewrites: Sequence[str] = (),
        collection: str | None = None,
        pages: PageRequest | None = None,
    ) -> SearchResult:
        """``collection``: search only that collection (by id); every store query below
        carries its filter, so the others cost nothing. ``pages``: a question about pages
        of the documents of ``doc_ids`` (``query`` without its page phrase): the hits are
        those pages' passages, the best for the rest of the question first."""
        cfg, clock = self.config, _Clock()
        t0 = time.perf_counter()
        scope = list(doc_ids) if doc_ids is not None else None
        exclude = list(exclude_doc_ids or ())
        if pages is not None:
            return self._on_pages(query, pages, scope or [], k, exclude, collection)
        coll = collection
        terms = analyse(query)
        variants = build_variants(query, terms, rewrites, cfg)
        with clock.stage("count"):
            want = k or cfg.results_k or fusion.adaptive_k(self._chunks_in(scope, coll))
        depth = max(cfg.depth, 2 * want)
        with clock.stage("load_model"):
            self.embedder.ensure_loaded()  # once per process; reported apart from embed
        with clock.stage("embed"):
            dense = self.embedder.query_dense_many([v.text for v in variants])
            sparse = [self.embedder.query_sparse(v.text) for v in variants]
        with clock.stage("dense"):
            dense_pts = self._list(dense[0], None, depth, scope, exclude, coll)
            similarity = {p.id: p.score for p in dense_pts}
        with clock.stage("hybrid"):
            # The question's hybrid list fused here from its dense list and its BM25 list.
            bm25 = self._list(None, sparse[0], depth, scope, exclude, coll)
            first = fusion.hybrid([dense_pts, bm25], depth)
            # a hybrid list is in order of its sums, then of the lists it fused: by place
            lists = [RankedList(variants[0].name, variants[0].weight, first, scored=False)]
        with clock.stage("two_tier"):
            tier_docs = self._two_tier(dense[0], first, scope, exclude, coll)
        with clock.stage("hybrid"):
            restrict = tier_docs if tier_docs is not None else scope
            for v, d, s in zip(variants[1:], dense[1:], sparse[1:], strict=True):
                pts = self._hybrid(d, s, depth, restrict, exclude, coll)
                lists.append(RankedList(v.name, v.weight, pts, scored=False))
        if cfg.dense_weight > 0:
            lists.append(RankedList("dense", cfg.dense_weight, dense_pts))
        with clock.stage("fuse"):
            pool = fusion.rrf(lists, k=cfg.rrf_k)
        with clock.stage("exact"):
            exact_info = self._exact_boost(pool, terms, want, scope, exclude, coll)
        with clock.stage("cap"):
            order = fusion.ranked(pool)
            if cfg.navigation_factor != 1.0:
                # Only the head can reach the hits; a demoted chunk only moves down.
                head = order[: 3 * want + 10]
                if fusion.demote_navigation(head, cfg.navigation_factor):
                    order = sorted(head, key=fusion.sort_key) + order[len(head) :]
        with clock.stage("rerank"):
            order = self._rerank(query, dense[0], order)
        if self.cross_encoder is not None:
            with clock.stage("cross_encoder"):
                order = self._cross_rerank(self.cross_encoder, query, order)
        with clock.stage("cap"):
            order = fusion.dedup_text(order)
            chosen = fusion.cap_per_document(order, self._cap(want), want)
            hits = [self._hit(c, similarity) for c in chosen]
        if cfg.expand_neighbours:
            with clock.stage("expand"):
                self.expand(hits, coll)
        with clock.stage("evaluate"):
            evaluation = self._evaluate(
                query, dense[0], terms, chosen, hits, exact_info["absent"], coll, clock
            )
        clock.ms["total"] = round((time.perf_counter() - t0) * 1e3, 2)
        info: dict[str, Any] = {}
        if debug:
            info = self._debug(variants, lists, exact_info, order, hits, tier_docs, want)
            info["timings_ms"] = clock.ms
        return SearchResult(
            query=query,
            hits=hits,
            confidence=evaluation.confidence,
            sufficient=evaluation.sufficient,
            debug=info,
            variants=[v.text for v in variants],
            evaluation=evaluation,
            k=want,
        )

    def _on_pages(
        self,
        query: str,
        pages: PageRequest,
        doc_ids: list[str],
        k: int | None,
        exclude: list[str],
        collection: str | None,
    ) -> SearchResult:
        """The passages on those pages of these documents, the best for the rest of the
        question first: its meaning (cosine with each passage's vector) and its words (how
        many of them a passage holds), fused. A page has a few passages, so they are all
        ranked, not searched for; of more than ``MAX_PAGE_DOCS`` documents, those whose
        whole is nearest the question."""
        clock, t0 = _Clock(), time.perf_counter()
        info: dict[str, Any] = {"pages": pages.label, "documents": len(doc_ids)}
        docs = [d for d in doc_ids if d not in set(exclude)]
        terms = analyse(query)
        question: list[float] = []
        if terms.words:
            self.embedder.ensure_loaded()
            with clock.stage("embed"):
                question = self.embedder.query_dense_many([query])[0]
        if len(docs) > MAX_PAGE_DOCS:
            if not question:  # "What is on page 3?" of a whole library: of which?
                return unanswered(
                    query,
                    f"{len(docs):,} documents have {pages.label}",
                    f"{len(docs):,} documents have {pages.label}: name the one you mean "
                    f'("{pages.label} of the manual"), or ask in a chat about one file.',
                    info,
                )
            with clock.stage("documents"):
                near = self.store.query_documents(question, len(docs) + 50, collection)
                wanted = set(docs)
                near = [p for p in near if str(p.payload.get("doc_id", "")) in wanted]
                docs = [str(p.payload.get("doc_id", "")) for p in near][:MAX_PAGE_DOCS]
        with clock.stage("pages"):
            found = self.store.chunks_on_pages(docs, pages.spans)
        info["passages"] = len(found)
        if not found:
            unit = "slide deck" if pages.unit == "slide" else "document"
            of = (
                "only slide decks have slides"
                if pages.unit == "slide"
                else ("only PDFs and slide decks have pages")
            )
            return unanswered(
                query,
                f"no {unit} searched has {pages.label}",
                f"No {unit} searched has {pages.label} ({of}): name one it has, or ask "
                f"without a {pages.unit}.",
                info,
            )
        if not question:
            return _whole_pages(query, found, pages, k, info)
        with clock.stage("rank"):
            vectors = self.store.dense_vectors([p.id for p in found])
            similarity = {
                p.id: cosine(question, vectors[p.id]) if p.id in vectors else 0.0 for p in found
            }
            asked = set(terms.words)
            held = {
                p.id: len(asked & set(content_words(str(p.payload.get("text", ""))))) for p in found
            }
            by_meaning = sorted(found, key=lambda p: (-similarity[p.id], _place(p)))
            by_words = sorted(found, key=lambda p: (-held[p.id], -similarity[p.id], _place(p)))
            scored = [replace(p, score=similarity[p.id]) for p in by_meaning]
            pool = fusion.rrf(
                [
                    RankedList("dense", 1.0, scored),
                    RankedList("words", 1.0, by_words, scored=False),
                ],
                k=self.config.rrf_k,
            )
            want = k or self.config.results_k or fusion.adaptive_k(len(found))
            chosen = fusion.ranked(pool)[:want]
            hits = _on_pages_only([self._hit(c, similarity) for c in chosen], pages)
        if self.config.expand_neighbours:
            with clock.stage("expand"):
                self.expand(hits, collection)
        with clock.stage("evaluate"):
            evaluation = self._evaluate(query, question, terms, chosen, hits, [], collection, clock)
        clock.ms["total"] = round((time.perf_counter() - t0) * 1e3, 2)
        info["timings_ms"] = clock.ms
        info["hits"] = [{"chunk": f"{h.file_name} {h.pages_label}", **h.debug} for h in hits]
        return SearchResult(
            query=query,
            hits=hits,
            confidence=evaluation.confidence,
            sufficient=evaluation.sufficient,
            debug=info,
            variants=[query],
            evaluation=evaluation,
            k=want,
        )

    def _evaluate(
        self,
        query: str,
        query_vec: list[float],
        terms: QueryTerms,
        chosen: Sequence[Candidate],
        hits: list[Hit],
        absent: Sequence[str],
        collection: str | None,
        clock: _Clock,
    ) -> RetrievalEvaluation:
        """Can the hits answer the question (sufficiency.py), with the signals of the best
        ``TOP_HITS``: their headings, their words weighed by the embedding, the words
        their document uses throughout."""
        cfg = self.config
        top = list(chosen[:TOP_HITS])
        check = top and cfg.uncovered_check
        return evaluate_retrieval(
            query,
            hits,
            absent_terms=absent,
            gain_of=self._gain_of(query, query_vec, top, clock) if check else None,
            names=(*terms.names, *terms.exact),
            headings=[str(c.payload.get("context", "")) for c in top],
            common=self._common(top[0], collection) if top and cfg.document_words else None,
            unused=self._unused(collection) if cfg.unused_gain > 0 else None,
            unused_gain=cfg.unused_gain,
        )

    # Stages ----------------------------------------------------------------------

    def _rerank(
        self, query: str, query_vec: Sequence[float], order: list[Candidate]
    ) -> list[Candidate]:
        cfg = self.config
        weights = (cfg.proximity_weight, cfg.identifier_weight, cfg.sentence_weight)
        head = order[: cfg.rerank_depth]
        if all(w <= 0 for w in weights):
            return self._by_title(query, head) + order[len(head) :]
        prox = rerank.scores(query, head)
        code = rerank.code_share(query, head)
        near = self._sentence_cosines(query_vec, head) if cfg.sentence_weight > 0 else {}
        combined = []
        for c, p, i in zip(head, prox, code, strict=True):
            c.scores["proximity"] = round(p, 4)
            if i:
                c.scores["identifiers"] = round(i, 4)
            s = near.get(c.chunk_id)
            if s is not None:
                c.scores["sentence"] = round(s, 4)
            combined.append(
                c.score
                * (1 + cfg.proximity_weight * p)
                * (1 + cfg.identifier_weight * i)
                * (1 + cfg.sentence_weight * max(s or 0.0, 0.0))
            )
        if cfg.rerank_scope == "document":
            head = rerank.within_documents(head, combined.__getitem__)
        else:
            head = [head[i] for i in sorted(range(len(head)), key=lambda i: -combined[i])]
        return self._by_title(query, head) + order[len(head) :]

    def _by_title(self, query: str, head: list[Candidate]) -> list[Candidate]:
        shares = rerank.title_share(query, head)
        for c, s in zip(head, shares, strict=True):
            if s:
                c.scores["title"] = round(s, 4)
        return rerank.by_title(head, shares, self.config.title_weight)

    def _sentence_cosines(
        self, query_vec: Sequence[float], head: Sequence[Candidate]
    ) -> dict[str, float]:
        """Each candidate's best cosine between the question and one of its sentences, read
        in one call; a chunk indexed before sentence vectors were kept has none."""
        from docent.core.sentence_vectors import best_cosine

        packed = self.store.sentence_vectors([c.chunk_id for c in head])
        out = {}
        for c in head:
            c.sentences = packed.get(c.chunk_id, "")
            cos = best_cosine(c.sentences, query_vec)
            if cos is not None:
                out[c.chunk_id] = cos
        return out

    def _cross_rerank(
        self, model: CrossEncoder, query: str, order: list[Candidate]
    ) -> list[Candidate]:
        """The best candidates re-sorted by the cross-encoder's score of (question, the
        candidate's context line and text); ties keep the fused order."""
        head = order[: self.config.cross_depth]
        texts = [
            f"{c.payload.get('context', '')}\n{c.payload.get('text', '')}".strip() for c in head
        ]
        scores = model.scores(query, texts)
        for c, score in zip(head, scores, strict=True):
            c.scores["cross"] = round(score, 4)
        ranked = sorted(range(len(head)), key=lambda i: -scores[i])
        return [head[i] for i in ranked] + order[len(head) :]

    def _cap(self, k: int) -> int:
        cfg = self.config
        if cfg.cap_mode == "none":
            return 0
        if cfg.cap_mode == "scaled":
            return cfg.max_chunks_per_document * math.ceil(k / 5)
        return cfg.max_chunks_per_document

    def _chunks_in(self, scope: list[str] | None, collection: str | None) -> int:
        if scope is None and self.library_size:
            return self.library_size(collection)[1]
        if scope is None:
            return self.store.count_chunks()
        total = 0
        for doc_id in scope:
            total += self.store.count_chunks(doc_id)
            if total > 200:  # adaptive k does not grow beyond this
                break
        return total

    def _list(
        self,
        dense: list[float] | None,
        sparse: SparseVec | None,
        depth: int,
        doc_ids: list[str] | None,
        exclude: list[str],
        collection: str | None,
    ) -> list[ScoredPoint]:
        """The best ``depth`` points by one vector, points of equal score in the order of
        their ids: the store returns a tie in any order, even for the same search twice, and
        a tie cut at ``depth`` would let another point in each time. ``TIE_MARGIN`` more are
        read, and more again while the last one read still ties with the one at ``depth``
        (up to ``MAX_TIE_READ``), so a tie across the cut is read whole."""
        limit = depth + TIE_MARGIN
        while True:
            pts = self.store.query(
                dense=dense,
                sparse=sparse,
                limit=limit,
                doc_ids=doc_ids,
                exclude_doc_ids=exclude,
                collection=collection,
            )
            whole = len(pts) < limit or pts[depth - 1].score != pts[-1].score
            if whole or limit >= MAX_TIE_READ:
                break
            limit = min(2 * limit, MAX_TIE_READ)
        return _by_score_then_id(pts)[:depth]

    def _hybrid(
        self,
        dense: list[float],
        sparse: SparseVec,
        depth: int,
        doc_ids: list[str] | None,
        exclude: list[str],
        collection: str | None,
    ) -> list[ScoredPoint]:
        """A variant's hybrid list: its dense and BM25 lists fused here (``fusion.hybrid``),
        as the question's are. The store's own hybrid query fuses them alike but ranks points
        of equal score in any order, so a search ranked differently from one time to the
        next (two dev questions, their pools one chunk apart)."""
        return fusion.hybrid(
            [
                self._list(dense, None, depth, doc_ids, exclude, collection),
                self._list(None, sparse, depth, doc_ids, exclude, collection),
            ],
            depth,
        )

    def _two_tier(
        self,
        dense: list[float],
        first: Sequence[ScoredPoint],
        scope: list[str] | None,
        exclude: list[str],
        collection: str | None,
    ) -> list[str] | None:
        """Candidate documents for the other variants when the library (or the collection
        searched) is large, else None.

        The best documents by their ``documents`` vector, plus the documents of the
        question's own best chunks (a document vector made from the first pages misses
        what a long manual says on page 200).
        """
        cfg = self.config
        if scope is not None and len(scope) <= cfg.two_tier_min_docs:
            return None
        if (
            scope is None
            and self.library_size
            and self.library_size(collection)[0] <= cfg.two_tier_min_docs
        ):
            return None
        probe = max(cfg.two_tier_min_docs + 1, cfg.two_tier_docs + len(exclude))
        # documents of equal score (one file at two paths) cut by id, as ``_list`` does
        more = self.store.query_documents(dense, limit=probe + TIE_MARGIN, collection=collection)
        docs = _by_score_then_id(more)[:probe]
        if len(docs) <= cfg.two_tier_min_docs:
            return None
        allowed = set(scope) if scope is not None else None
        skip = set(exclude)
        by_vector = [str(p.payload.get("doc_id", "")) for p in docs]
        by_vector = [d for d in by_vector if d and d not in skip]
        by_vector = [d for d in by_vector if allowed is None or d in allowed]
        by_chunks = [str(p.payload.get("doc_id", "")) for p in first[: cfg.two_tier_docs * 2]]
        return list(dict.fromkeys([*by_vector[: cfg.two_tier_docs], *by_chunks]))

    def _exact_boost(
        self,
        pool: dict[str, Candidate],
        terms: QueryTerms,
        want: int,
        scope: list[str] | None,
        exclude: list[str],
        collection: str | None,
    ) -> dict[str, Any]:
        """Chunks holding a rare exact term join the fusion, ranked by their fused score;
        then those holding a rare word the best ``want`` candidates lack."""
        cfg = self.config
        info: dict[str, Any] = {"terms": {}, "absent": [], "missing": {}}
        checkable = terms.checkable
        for name in terms.names:  # names only say whether the library knows them
            if name in checkable and not self.store.text_match(
                name, limit=1, doc_ids=scope, exclude_doc_ids=exclude, collection=collection
            ):
                info["absent"].append(name)
        phrases = terms.phrases
        spellings = terms.spellings
        for term in terms.exact:
            # as written, then as a page may write it ("NGC 4414" as "NGC4414")
            for written in (term, *spellings.get(term, ())):
                pts = self.store.text_match(
                    written,
                    limit=cfg.exact_probe,
                    doc_ids=scope,
                    exclude_doc_ids=exclude,
                    collection=collection,
                    phrase=term in phrases or written != term,
                )
                if pts:
                    break
            n = len(pts)
            info["terms"][term] = n
            if n == 0:
                if term in checkable or self._unknown_part(term, scope, exclude, collection):
                    info["absent"].append(term)
                continue
            self._join(pool, f"exact:{term}", cfg.exact_weight, pts, n)
        if cfg.missing_word_weight > 0:
            # those the library holds in few chunks (one found nowhere, or in many, is
            # not probed again: review, session 33)
            found = info["terms"]
            exact = [
                e.lower()
                for e in terms.exact
                if e.lower() in terms.words and 0 < found.get(e, 0) < cfg.missing_probe
            ]
            self._missing_words(
                pool,
                terms,
                [*terms.plain_words, *exact] if cfg.missing_exact else terms.plain_words,
                min(want, cfg.missing_head or want),
                cfg.missing_word_weight,
                scope,
                exclude,
                collection,
                info,
            )
        names = [n.lower() for n in terms.names if n in terms.checkable]
        if cfg.missing_name_weight > 0 and names:
            self._missing_words(
                pool,
                terms,
                names,
                TOP_HITS,
                cfg.missing_name_weight,
                scope,
                exclude,
                collection,
                info,
            )
        return info

    def _missing_words(
        self,
        pool: dict[str, Candidate],
        terms: QueryTerms,
        words: Sequence[str],
        want: int,
        weight: float,
        scope: list[str] | None,
        exclude: list[str],
        collection: str | None,
        info: dict[str, Any],
    ) -> None:
        """A plain word of the question that none of the best ``want`` candidates holds,
        found in few chunks of documents none of them is from: those of the chunks that
        hold more of the question's words than any of the best join the fusion as for a
        rare exact term.

        "Who is the contractor?" over a long history of Debian's Social Contract and a
        short renovation plan naming its contractor: the history's passages filled the
        dense lists (contract ~ contractor), and the one passage saying "contractor" was
        24th. Only a word missing from the head is probed, so a question whose words the
        head already holds is ranked as before (dev and held-out figures unchanged). A
        gardener named Fresnel does not join the passages on the lighthouse's Fresnel
        lens: they hold more of the question than he does.
        """
        cfg = self.config
        if not terms.words:
            return
        # one pass of a regex per passage: tokenizing the head's 25 passages cost ~2 ms
        alternatives = "|".join(map(re.escape, sorted(terms.words, key=len, reverse=True)))
        asked = re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)")

        def says(payload: dict[str, Any]) -> set[str]:
            return set(asked.findall(str(payload.get("text", "")).lower()))

        head = fusion.ranked(pool)[:want]
        said = [says(c.payload) for c in head]
        held = set().union(*said)
        most = max(map(len, said), default=0)
        head_docs = [str(c.payload.get("doc_id", "")) for c in head]
        if scope is not None:
            scope = [d for d in scope if d not in head_docs]
            if not scope:
                return  # one document (a scoped question): its places are the rerank's
        for word in words:
            if word in held:
                continue
            pts = self.store.text_match(
                word,
                limit=cfg.missing_probe,
                doc_ids=scope,
                exclude_doc_ids=[*exclude, *head_docs],
                collection=collection,
            )
            found = info["missing"][word] = len(pts)
            if found < cfg.missing_probe:  # else not rare: BM25 weighs it
                more = [p for p in pts if len(says(p.payload)) > most]
                self._join(pool, f"missing:{word}", weight, more, found)

    def _join(
        self,
        pool: dict[str, Candidate],
        name: str,
        weight: float,
        pts: list[ScoredPoint],
        found: int,
    ) -> None:
        """Chunks holding a term ``found`` in few chunks join the fusion as one more list,
        weighted by how few, in the order of their fused scores (new ones after)."""
        cfg = self.config
        if not pts or found >= cfg.exact_probe or weight <= 0:
            return  # a common word in this library: BM25 already weighs it
        weight *= 1.0 - math.log(found) / math.log(cfg.exact_probe)
        known = sorted((p for p in pts if p.id in pool), key=lambda p: fusion.sort_key(pool[p.id]))
        fresh = sorted((p for p in pts if p.id not in pool), key=lambda p: p.id)
        fusion.rrf(
            [RankedList(name, weight, [*known, *fresh], scored=False)], k=cfg.rrf_k, pool=pool
        )

    def _unknown_part(
        self, term: str, scope: list[str] | None, exclude: list[str], collection: str | None
    ) -> bool:
        """A compound term (``Vega-Lite``) with a word the library never uses (``Vega``).

        Its words may stand apart in a passage (``PDP-11/40`` written ``11/40``), so only
        a word of four letters or more found nowhere counts.
        """
        parts = [p for p in re.split(r"[\W_]+", term) if len(p) >= 4 and p.isalpha()]
        return any(
            not self.store.text_match(
                p, limit=1, doc_ids=scope, exclude_doc_ids=exclude, collection=collection
            )
            for p in parts
        )

    def _common(
        self, best: Candidate, collection: str | None
    ) -> Callable[[Sequence[str]], list[str]]:
        """The words held by ``document_words`` chunks or more of ``best``'s document."""
        doc = str(best.payload.get("doc_id", ""))
        least = self.config.document_words

        def common(words: Sequence[str]) -> list[str]:
            return [
                w
                for w in words
                if len(self.store.text_match(w, limit=least, doc_ids=[doc], collection=collection))
                >= least
            ]

        return common

    def _unused(self, collection: str | None) -> Callable[[Sequence[str]], list[str]]:
        """The words no passage of the library (the collection searched) holds: none has
        a BM25 stem of them (``used`` and ``uses`` meet; a word BM25 drops, a stopword, is
        never unused). None in a library too small for a word it lacks to say something
        (``unused_min_chunks``). Asked only when a word's gain passes the bar: the size is
        read then, not on every search."""

        def unused(words: Sequence[str]) -> list[str]:
            if self._chunks_in(None, collection) < self.config.unused_min_chunks:
                return []
            out = []
            for w in words:
                stems = self.embedder.query_sparse(w).indices
                if stems and not any(
                    self.store.query(sparse=SparseVec([i], [1.0]), limit=1, collection=collection)
                    for i in stems
                ):
                    out.append(w)
            return out

        return unused

    def _gain_of(
        self, query: str, query_vec: list[float], top: Sequence[Candidate], clock: _Clock
    ) -> GainOf:
        """How much closer the best passage's stored vector, and the best sentence of the
        top passages (their vectors the rerank read), come to the question without each of
        some words (called by the evaluation only when it needs it)."""
        from docent.core.sentence_vectors import best_cosines

        def gains(words: Sequence[str]) -> list[Gain]:
            with clock.stage("uncovered"):
                stored = self.store.dense_vectors([top[0].chunk_id]).get(top[0].chunk_id)
                if stored is None:
                    return [Gain(0.0)] * len(words)
                masked = self.embedder.query_dense_many(masked_questions(query, words))
                passage = uncovered_gains(query_vec, masked, stored)
                best = best_cosines([c.sentences for c in top], [query_vec, *masked])
                sentence = [b - best[0] for b in best[1:]] if best else [0.0] * len(words)
                return [Gain(p, s) for p, s in zip(passage, sentence, strict=True)]

        return gains

    def _hit(self, c: Candidate, similarity: dict[str, float]) -> Hit:
        hit = hit_from_point(ScoredPoint(c.chunk_id, c.score, c.payload))
        hit.debug = {"ranks": dict(c.ranks), "scores": dict(c.scores)}
        sim = similarity.get(c.chunk_id)
        if sim is not None:
            hit.debug["similarity"] = sim
        return hit

    def expand(self, hits: Sequence[Hit], collection: str | None = None) -> None:
        """Fill each hit's context with its neighbours (ordinal ±1), all read in one store
        call (and only from ``collection``, when one is searched)."""
        places = [(h.doc_id, h.ordinal + step) for h in hits for step in (-1, 1)]
        texts = {
            (str(pl["doc_id"]), int(pl["ordinal"])): str(pl.get("text", ""))
            for pl in self.store.chunks_at(places, collection)
        }
        for h in hits:
            h.context_before = texts.get((h.doc_id, h.ordinal - 1), "")
            h.context_after = texts.get((h.doc_id, h.ordinal + 1), "")

    # Debug -----------------------------------------------------------------------

    @staticmethod
    def _debug(
        variants: list[Variant],
        lists: list[RankedList],
        exact: dict[str, Any],
        order: list[Candidate],
        hits: list[Hit],
        tier_docs: list[str] | None,
        k: int,
    ) -> dict[str, Any]:
        def label(pl: dict[str, Any]) -> str:
            """As a hit names its place: a text file's lines, not its block (QA-75)."""
            a, b = pl.get("page_start"), pl.get("page_end")
            where = pl.get("location") or (f"p.{a}" if b == a else f"pp.{a}-{b}")
            return f"{pl.get('file_name')} {where}"

        return {
            "k": k,
            "variants": [{"name": v.name, "text": v.text, "weight": v.weight} for v in variants],
            "two_tier_docs": tier_docs,
            "exact_terms": exact["terms"],
            "missing_words": exact["missing"],
            "stages": {
                rl.name: [
                    {"rank": i, "score": round(p.score, 5), "chunk": label(p.payload)}
                    for i, p in enumerate(rl.points[:10], 1)
                ]
                for rl in lists
            },
            "fused": [
                {"rank": i, "score": round(c.score, 5), "chunk": label(c.payload), "ranks": c.ranks}
                for i, c in enumerate(order[:15], 1)
            ],
            "hits": [
                {"chunk_id": h.chunk_id, "chunk": f"{h.file_name} {h.pages_label}", **h.debug}
                for h in hits
            ],
        }
