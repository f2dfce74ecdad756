"""Compare chunk-text and BM25 variants without re-indexing through the app.

    .venv/bin/python benchmarks/retrieval_lab.py --variant plain
    .venv/bin/python benchmarks/retrieval_lab.py --variant context --set dense_weight=0.5

Builds a fresh store per variant from the text cache of a library that
``retrieval_eval.py`` indexed (so extraction is never repeated), with dense vectors from
a disk cache by text (``embedcache.py``: a variant embeds only the texts it changes),
then scores the full pipeline like ``retrieval_eval.py``. It calls the same chunking,
context and BM25 code as the indexer; only the catalog and the worker process are left out.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from embedcache import install  # noqa: E402
from retrieval_eval import (  # noqa: E402
    CORPUS,
    DEV_QUESTIONS,
    DISTRACTORS,
    config_with,
    load_questions,
    print_table,
    score,
    time_searches,
)

VARIANTS = ("plain", "context", "context-reserve", "context-bm25")


def library_files(name: str, questions: list) -> list[Path]:  # type: ignore[type-arg]
    if name == "full":
        return sorted(CORPUS.glob("*.pdf"))
    wanted = {q.file for q in questions if q.file} | set(DISTRACTORS)
    return sorted(CORPUS / f for f in wanted)


def build(args: argparse.Namespace, files: list[Path]) -> tuple:  # type: ignore[type-arg]
    from docent.core.chunking import chunk_pages
    from docent.core.context import document_title, indexed_text
    from docent.core.embedding import Embedder
    from docent.core.indexer import content_hash
    from docent.core.store import SENTENCES, ChunkPoint, chunk_point_id, open_store
    from docent.core.textcache import TextCache, sha256_file

    emb = Embedder()
    cache = install(emb, args.vector_cache)
    cache_root = TextCache(args.text_cache)
    folder = args.work / args.variant
    size_file = folder / "size.json"
    if args.reuse and size_file.exists():
        size = tuple(json.loads(size_file.read_text()))
        return open_store(path=folder / "qdrant", dim=384), emb, size
    shutil.rmtree(folder, ignore_errors=True)
    store = open_store(path=folder / "qdrant", dim=384)
    docs = chunks_total = 0
    t0 = time.perf_counter()
    for path in files:
        doc = cache_root.get(sha256_file(path))
        if doc is None:
            print(f"not in the text cache (unreadable?): {path.name}", file=sys.stderr)
            continue
        title = document_title(doc.pages) if args.variant != "plain" else None
        reserve = args.reserve if args.variant == "context-reserve" else 0
        chunks = chunk_pages(doc.pages, emb.count_tokens, title=title, context_tokens=reserve)
        if not chunks:
            continue
        texts = [indexed_text(c.context, c.text) for c in chunks]
        plain = args.variant == "context-bm25"  # context for BM25 only
        bodies = [c.text for c in chunks]
        made = emb.embed_chunks(bodies if plain else texts, bodies)  # as the indexer does
        dense = [v.dense for v in made]
        sparse = emb.embed_sparse(texts)
        doc_id = hashlib.sha1(path.name.encode()).hexdigest()
        points = [
            ChunkPoint(
                chunk_point_id(doc_id, c.ordinal),
                v.dense,
                s,
                {
                    "doc_id": doc_id,
                    "path": str(path),
                    "file_name": path.name,
                    "page_start": c.page_start,
                    "page_end": c.page_end,
                    "ordinal": c.ordinal,
                    "text": c.text,
                    "context": c.context,
                    "content_hash": content_hash(t),
                    "heading": c.heading,
                    SENTENCES: v.sentences,
                },
            )
            for c, t, v, s in zip(chunks, texts, made, sparse, strict=True)
        ]
        store.upsert_chunks(points)
        first = dense[:3]
        mean = [sum(v[j] for v in first) for j in range(len(first[0]))]
        norm = sum(x * x for x in mean) ** 0.5 or 1.0
        store.upsert_document(doc_id, [x / norm for x in mean], {"file_name": path.name})
        docs += 1
        chunks_total += len(chunks)
    print(
        f"variant {args.variant}: {docs} documents, {chunks_total} chunks in "
        f"{time.perf_counter() - t0:.0f} s (embedded {cache.misses}, cached {cache.hits})",
        file=sys.stderr,
    )
    store.flush()
    size_file.write_text(json.dumps([docs, chunks_total]))
    return store, emb, (docs, chunks_total)


def main() -> int:
    from docent.core.retrieval import RetrievalConfig, Retriever

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--variant", choices=VARIANTS, default="plain")
    ap.add_argument("--library", choices=("dev", "full"), default="dev")
    ap.add_argument("--questions", nargs="*", type=Path, default=[DEV_QUESTIONS])
    ap.add_argument("--text-cache", type=Path, default=Path("/tmp/d16/text"))
    ap.add_argument("--vector-cache", type=Path, default=Path("/tmp/d16/vectors.sqlite"))
    ap.add_argument("--work", type=Path, default=Path("/tmp/d16/lab"))
    ap.add_argument("--reserve", type=int, default=32, help="context tokens kept free")
    ap.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE")
    ap.add_argument("--misses", action="store_true")
    ap.add_argument("--latency", action="store_true", help="time the first config's searches")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument(
        "--reuse", action="store_true", help="score the store a previous run built (configs only)"
    )
    ap.add_argument("--no-identifiers", action="store_true", help="BM25 without identifier terms")
    args = ap.parse_args()
    if args.no_identifiers:
        import docent.core.embedding

        docent.core.embedding.identifier_terms = lambda text: []

    questions = load_questions(args.questions)
    library = library_files(args.library, load_questions([DEV_QUESTIONS]))
    store, emb, size = build(args, library)
    names = {p.name for p in library}
    questions = [q for q in questions if not q.file or q.file in names]
    rows = []
    for spec in args.set or [""]:
        config = config_with(RetrievalConfig(), list(filter(None, spec.split(","))))
        retriever = Retriever(store, emb, config, library_size=lambda collection=None: size)

        def run(q: str, r: Retriever = retriever) -> tuple[list, str]:  # type: ignore[type-arg]
            res = r.search(q)
            return res.hits, res.confidence

        rows.append(score(f"{args.variant} {spec}".strip(), run, questions))
    print_table(
        rows, sum(q.answerable for q in questions), sum(not q.answerable for q in questions)
    )
    if args.misses:
        for r in rows:
            print(f"\n{r.mode} misses (top 5):")
            for m in r.misses:
                print("  " + m)
    if args.latency:
        first = filter(None, (args.set or [""])[0].split(","))
        config = config_with(RetrievalConfig(), list(first))
        timed = Retriever(store, emb, config, library_size=lambda collection=None: size)
        time_searches(
            lambda q: timed.search(q, debug=True),
            "lab Retriever.search",
            size,
            questions,
            args.repeats,
        )
    store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
