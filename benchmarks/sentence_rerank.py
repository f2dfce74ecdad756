"""Issue 16's "the question's similarity to each candidate's sentences": other pieces
than the pipeline's own sentence vectors, measured.

    .venv/bin/python benchmarks/sentence_rerank.py --weights 0,1,2
    .venv/bin/python benchmarks/sentence_rerank.py --vectors halves --weights 0,1,2
    .venv/bin/python benchmarks/sentence_rerank.py --library full --home DIR \
        --questions benchmarks/retrieval_questions.jsonl --weights 0,1
    .venv/bin/python benchmarks/sentence_rerank.py --cost

The pipeline weighs each candidate's best sentence by vectors pooled from the chunk's own
model pass (sentence_vectors.py, ``RetrievalConfig.sentence_weight``; measure it with
``retrieval_eval.py --set sentence_weight=W``). This lab replaces that factor with
``1 + weight x s``, where ``s`` is the best cosine between the question and one piece of
the candidate embedded on its own (weight 0: the pipeline without any sentence signal):

- ``sentences``: each sentence of the chunk (20 characters or more);
- ``halves``: the chunk in two halves split at the sentence end nearest its middle, each
  embedded with the chunk's context line.

Vectors are computed when a candidate is first met and kept for the run, so the figures
say nothing of latency; ``--cost`` prints what embedding the sentences on their own costs:
a search's 30 candidates', and all the library's against indexing's own embedding.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

sys.path.insert(0, str(Path(__file__).parent))
from retrieval_eval import (  # noqa: E402
    DEV_QUESTIONS,
    load_questions,
    open_library,
    pipeline_mode,
    print_table,
    score,
)

if TYPE_CHECKING:
    import numpy as np

    from docent.core.embedding import Embedder
    from docent.core.engine import Engine
    from docent.core.fusion import Candidate

REPO = Path(__file__).resolve().parents[1]
EXTRA = [
    REPO / "benchmarks" / "dev_extra_questions.jsonl",
    REPO / "benchmarks" / "dev_unanswerable_questions.jsonl",
]
MIN_SENTENCE = 20

Pieces = Callable[[dict[str, Any]], "np.ndarray"]


def sentences(text: str) -> list[str]:
    from docent.core.evaluation import split_sentences

    flat = " ".join(text.split())
    return [s for s in split_sentences(flat) if len(s) >= MIN_SENTENCE] or [flat]


def halves(text: str) -> list[str]:
    parts = sentences(text)
    if len(parts) < 2:
        return parts
    total, run = sum(map(len, parts)), 0
    for i, s in enumerate(parts):
        run += len(s)
        if run >= total / 2:
            cut = max(1, min(i + 1, len(parts) - 1))
            return [" ".join(parts[:cut]), " ".join(parts[cut:])]
    return [" ".join(parts)]


def unit(rows: Any) -> np.ndarray:
    import numpy as np

    a = np.asarray(rows, dtype=np.float32)
    return a / np.linalg.norm(a, axis=-1, keepdims=True)


def embedded_pieces(emb: Embedder, split: Callable[[str], list[str]], context: bool) -> Pieces:
    """Each piece embedded on its own (with the context line in front when ``context``)."""
    from docent.core.context import indexed_text

    cache: dict[str, np.ndarray] = {}

    def pieces(payload: dict[str, Any]) -> np.ndarray:
        ctx = payload.get("context", "") if context else ""
        texts = [indexed_text(ctx, p) for p in split(payload.get("text", ""))]
        missing = [t for t in dict.fromkeys(texts) if t not in cache]
        if missing:
            cache.update(zip(missing, unit(emb.embed_dense(missing)), strict=True))
        return unit([cache[t] for t in texts])

    return pieces


def with_pieces(pieces: Pieces) -> None:
    """Every Retriever's in-document rerank weighs its best piece's cosine
    (``sentence_weight``) instead of its stored sentence vectors'."""
    from docent.core.retrieval import Retriever

    def _sentence_cosines(
        self: Retriever, query_vec: Sequence[float], head: Sequence[Candidate]
    ) -> dict[str, float]:
        query = unit(query_vec)
        return {c.chunk_id: float((pieces(c.payload) @ query).max()) for c in head}

    Retriever._sentence_cosines = _sentence_cosines  # type: ignore[method-assign]


def cost(eng: Engine, questions: Sequence[Any]) -> None:
    """What embedding the sentences costs: per search (30 candidates) and per library."""
    from docent.core.retrieval import RetrievalConfig, Retriever

    assert eng.store is not None
    emb = eng.embedder
    emb.ensure_loaded()
    retriever = Retriever(eng.store, emb, RetrievalConfig())
    per_search, tokens, pieces = [], [], []
    for q in [q for q in questions if q.answerable][:8]:
        hits = retriever.search(q.question, k=30).hits
        texts = sorted({s for h in hits for s in sentences(h.text)}, key=len)
        started = time.perf_counter()
        emb.embed_dense(texts)
        per_search.append(time.perf_counter() - started)
        tokens.append(sum(emb.count_tokens(t) for t in texts))
        pieces.append(len(texts))
    from docent.core.context import indexed_text

    payloads = [p for d in eng.documents() for p, _ in eng.store.iter_chunks(d.doc_id)]
    n_sentences = sum(len(sentences(p.get("text", ""))) for p in payloads)
    print(
        f"a search's 30 candidates: median {statistics.median(pieces):.0f} sentences, "
        f"{statistics.median(tokens):.0f} tokens, embedded in "
        f"{statistics.median(per_search) * 1000:.0f} ms (median of {len(per_search)})"
    )
    print(
        f"the library: {len(payloads)} chunks, {n_sentences} sentences "
        f"({n_sentences / max(len(payloads), 1):.1f} per chunk) to embed besides the chunks"
    )
    # Indexing's own work for a sample of chunks, against their sentences' (each sorted
    # by length, so a batch is not padded to one long text).
    sample = payloads[:: max(1, len(payloads) // 200)][:200]
    chunk_texts = sorted((indexed_text(p.get("context", ""), p["text"]) for p in sample), key=len)
    sentence_texts = sorted((s for p in sample for s in sentences(p["text"])), key=len)
    took = []
    for texts in (chunk_texts, sentence_texts):
        started = time.perf_counter()
        emb.embed_dense(texts)
        took.append(time.perf_counter() - started)
    print(
        f"{len(sample)} chunks embedded in {took[0]:.1f} s, their {len(sentence_texts)} "
        f"sentences in {took[1]:.1f} s: indexing would embed {1 + took[1] / took[0]:.2f}x as long"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--library", choices=("dev", "full"), default="dev")
    ap.add_argument("--home", type=Path)
    ap.add_argument("--questions", nargs="*", type=Path, default=[DEV_QUESTIONS, *EXTRA])
    ap.add_argument("--vectors", choices=("sentences", "halves"), default="sentences")
    ap.add_argument("--weights", default="0,1")
    ap.add_argument("--cost", action="store_true")
    ap.add_argument("--misses", action="store_true")
    args = ap.parse_args()
    from docent.core.retrieval import RetrievalConfig

    questions = load_questions(args.questions)
    eng = open_library(args.library, questions, args.home)
    try:
        indexed = {d.file_name for d in eng.documents()}
        questions = [q for q in questions if not q.file or q.file in indexed]
        if args.cost:
            cost(eng, questions)
            return 0
        split = sentences if args.vectors == "sentences" else halves
        with_pieces(embedded_pieces(eng.embedder, split, context=args.vectors == "halves"))
        rows = []
        for weight in (float(w) for w in args.weights.split(",")):
            config = RetrievalConfig(sentence_weight=weight)
            name = f"pipeline, {args.vectors} x {weight:g}"
            rows.append(score(name, pipeline_mode(eng, config), questions))
        n_ans = sum(q.answerable for q in questions)
        print_table(rows, n_ans, len(questions) - n_ans)
        if args.misses:
            for r in rows:
                print(f"\n{r.mode} misses (top 5):")
                for m in r.misses:
                    print("  " + m)
    finally:
        eng.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
