"""Retrieval quality and latency on the real corpus.

    .venv/bin/python benchmarks/retrieval_eval.py                # dev library, quality table
    .venv/bin/python benchmarks/retrieval_eval.py --library full # all 46 PDFs, + latency
    .venv/bin/python benchmarks/retrieval_eval.py --questions benchmarks/retrieval_questions.jsonl

Libraries (persistent, so re-runs only index what changed):
- ``dev``: the PDFs the questions refer to plus look-alike distractors, in /tmp/docent-eval;
- ``full``: every PDF of the corpus, in /tmp/docent-eval-full.

For each mode (dense only, BM25 only, Qdrant hybrid, the full pipeline) it prints
page-level hit@1/5/10 and MRR@10 (right file and a gold page inside the chunk's page
range), file-level hit@5, and for unanswerable questions how often the retrieval
evaluation says "low" (and for answerable ones how often it wrongly does). With
``--latency``: p50/p95 of a whole ``Engine.search``, query embedding included, with the
load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("DOCENT_SHARED", REPO.parent / "shared"))
CORPUS = SHARED / "corpus" / "pdfs"
DEV_QUESTIONS = SHARED / "corpus" / "dev-questions.jsonl"
#: Manuals that share words with the dev documents (simh, R, Debian): hard negatives.
DISTRACTORS = [
    "simh__vax780_doc.pdf",
    "simh__ctss_hardware.pdf",
    "r-doc-pdf__R-data.pdf",
    "debian-edu-doc-legacy-en__debian-edu-itil-manual.pdf",
    "debian-history__project-history.en.pdf",
]
HOMES = {"dev": Path("/tmp/docent-eval"), "full": Path("/tmp/docent-eval-full")}

if TYPE_CHECKING:
    from docent.core.engine import Engine
    from docent.core.models import DocumentRecord, Hit
    from docent.core.retrieval import RetrievalConfig, Retriever, SearchResult

Search = Callable[[str], tuple[list["Hit"], str]]


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    question: str
    file: str | None
    pages: tuple[int, ...]

    @property
    def answerable(self) -> bool:
        return self.file is not None


def load_questions(paths: Sequence[Path]) -> list[Question]:
    out = []
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                d = json.loads(line)
                out.append(
                    Question(d["id"], d["question"], d.get("file"), tuple(d.get("pages") or ()))
                )
    return out


def open_library(
    name: str, questions: Sequence[Question], home: Path | None = None, vectors: Path | None = None
) -> Engine:
    """The library ``name`` under ``home`` (default HOMES[name]), indexed incrementally.

    ``vectors``: a disk cache of dense vectors by text (benchmarks/embedcache.py), so that a
    chunking variant in another folder embeds only the texts it changed.
    """
    from docent.core.config import Settings
    from docent.core.engine import Engine

    home = home or HOMES[name]
    if name == "full":
        files = sorted(p for p in CORPUS.glob("*.pdf"))
    else:
        wanted = {q.file for q in questions if q.file} | set(DISTRACTORS)
        files = sorted(CORPUS / f for f in wanted)
    eng = Engine(Settings(data_dir=str(home), extract_in_subprocess=True))
    if vectors is not None:
        sys.path.insert(0, str(Path(__file__).parent))
        from embedcache import install

        install(eng.embedder, vectors)
    eng.open()
    t0 = time.perf_counter()
    report = eng.index(files)
    if report.indexed:
        print(
            f"indexed {len(report.indexed)} files ({report.chunks_embedded} chunks) "
            f"in {time.perf_counter() - t0:.0f} s",
            file=sys.stderr,
        )
    return eng


# Modes ---------------------------------------------------------------------------


def single_mode(eng: Engine, use_dense: bool, use_sparse: bool, limit: int = 10) -> Search:
    from docent.core.retrieval import hit_from_point

    assert eng.store is not None
    store, emb = eng.store, eng.embedder

    def run(q: str) -> tuple[list[Hit], str]:
        from docent.core.sufficiency import evaluate_retrieval

        pts = store.query(
            dense=emb.query_dense(q) if use_dense else None,
            sparse=emb.query_sparse(q) if use_sparse else None,
            limit=limit,
            prefetch_limit=50,
        )
        hits = [hit_from_point(p) for p in pts]
        if use_dense and not use_sparse:
            for h in hits:
                h.debug["similarity"] = h.score
        return hits, evaluate_retrieval(q, hits).confidence

    return run


def pipeline_retriever(
    eng: Engine, config: RetrievalConfig, cross: Path | None = None
) -> tuple[Retriever, list[DocumentRecord]]:
    """The full pipeline over the library's ready documents (returned too); ``cross``: a
    cross-encoder's folder (``rerank_model_dir``) for the rerank."""
    from docent.core.cross_encoder import CrossEncoder
    from docent.core.retrieval import Retriever

    assert eng.store is not None
    docs = [d for d in eng.documents() if d.state.value == "ready"]
    size = (len(docs), sum(d.chunks for d in docs))  # the library does not change meanwhile
    retriever = Retriever(
        eng.store, eng.embedder, config, library_size=lambda collection=None: size
    )
    retriever.cross_encoder = CrossEncoder(cross) if cross else None
    return retriever, docs


def pipeline_mode(eng: Engine, config: RetrievalConfig, cross: Path | None = None) -> Search:
    retriever, _ = pipeline_retriever(eng, config, cross)

    def run(q: str) -> tuple[list[Hit], str]:
        res = retriever.search(q)
        return res.hits, res.confidence

    return run


def scoped_mode(
    eng: Engine, config: RetrievalConfig, questions: Sequence[Question], cross: Path | None = None
) -> Search:
    """The full pipeline inside one document, as a question scoped to it (or a library
    of that one file): an answerable question's gold document; an unanswerable one's
    first document when searched unscoped (the one a person would scope it to)."""
    retriever, docs = pipeline_retriever(eng, config, cross)
    doc_of = {d.file_name: d.doc_id for d in docs}
    gold = {q.question: q.file for q in questions if q.file}

    def run(q: str) -> tuple[list[Hit], str]:
        file = gold.get(q)
        if file is None:
            first = retriever.search(q).hits
            scope = [first[0].doc_id] if first else None
        else:
            scope = [doc_of[file]]
        res = retriever.search(q, doc_ids=scope)
        return res.hits, res.confidence

    return run


# Scoring -------------------------------------------------------------------------


@dataclass(slots=True)
class Row:
    mode: str
    hit1: float
    hit5: float
    hit10: float
    mrr10: float
    file5: float
    unans_low: float
    ans_low: float
    misses: list[str]


def first_right_rank(hits: Sequence[Hit], file_name: str, pages: Sequence[int]) -> int | None:
    """1-based rank of the first hit in the gold file whose page range holds a gold page."""
    for i, h in enumerate(hits, 1):
        if h.file_name == file_name and any(h.page_start <= p <= h.page_end for p in pages):
            return i
    return None


def score(mode: str, search: Search, questions: Sequence[Question]) -> Row:
    ranks: list[int | None] = []
    file5: list[bool] = []
    unans_low: list[bool] = []
    ans_low: list[bool] = []
    misses: list[str] = []
    for q in questions:
        hits, confidence = search(q.question)
        if not q.answerable:
            unans_low.append(confidence == "low")
            if confidence != "low":
                misses.append(f"{q.id} unanswerable, {confidence}")
            continue
        assert q.file is not None
        ans_low.append(confidence == "low")
        if confidence == "low":
            misses.append(f"{q.id} answerable, low")
        r = first_right_rank(hits[:10], q.file, q.pages)
        ranks.append(r)
        file5.append(any(h.file_name == q.file for h in hits[:5]))
        if r is None or r > 5:
            got = ", ".join(f"{h.file_name.split('__')[-1]} p{h.page_start}" for h in hits[:3])
            misses.append(f"{q.id} rank={r} want p{list(q.pages)}: {got}")
    n = max(len(ranks), 1)

    def share(xs: Sequence[bool]) -> float:
        return sum(xs) / len(xs) if xs else float("nan")

    return Row(
        mode=mode,
        hit1=sum(r == 1 for r in ranks) / n,
        hit5=sum(r is not None and r <= 5 for r in ranks) / n,
        hit10=sum(r is not None for r in ranks) / n,
        mrr10=sum(1 / r for r in ranks if r is not None) / n,
        file5=share(file5),
        unans_low=share(unans_low),
        ans_low=share(ans_low),
        misses=misses,
    )


def print_table(rows: Sequence[Row], n_ans: int, n_unans: int) -> None:
    print(f"\n{n_ans} answerable + {n_unans} unanswerable questions\n")
    print(
        "| mode | hit@1 | hit@5 | hit@10 | MRR@10 | file hit@5 | unanswerable -> low "
        "| answerable -> low |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r.mode} | {r.hit1:.2f} | {r.hit5:.2f} | {r.hit10:.2f} | {r.mrr10:.3f} "
            f"| {r.file5:.2f} | {r.unans_low:.2f} | {r.ans_low:.2f} |"
        )


def percentiles(values: Sequence[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def latency(
    eng: Engine,
    config: RetrievalConfig,
    questions: Sequence[Question],
    repeats: int,
    cross: Path | None = None,
) -> None:
    """Engine.search as the window and the CLI call it (with ``--set`` or
    ``--rerank-model``, a Retriever with that config over the engine's store instead)."""
    from docent.core.retrieval import RetrievalConfig

    retriever, docs = pipeline_retriever(eng, config, cross)
    size = (len(docs), sum(d.chunks for d in docs))
    if config == RetrievalConfig() and cross is None:
        timed: Callable[[str], SearchResult] = lambda q: eng.search(q, debug=True)  # noqa: E731
        what = "Engine.search"
    else:
        timed = lambda q: retriever.search(q, debug=True)  # noqa: E731
        what = "Retriever.search (--set, --rerank-model)"
    time_searches(timed, what, size, questions, repeats)


def time_searches(
    search: Callable[[str], SearchResult],
    what: str,
    size: tuple[int, int],
    questions: Sequence[Question],
    repeats: int,
) -> None:
    """p50/p95 of whole searches (query embedding included) and of each stage, with the
    load average before and after (the machine is shared: say how busy it was)."""
    for q in questions[:3]:
        search(q.question)  # warm-up: model load, first-query caches
    load_before = Path("/proc/loadavg").read_text().split()[:3]
    wall: list[float] = []
    cpu: list[float] = []
    stages: dict[str, list[float]] = {}
    for _ in range(repeats):
        for q in questions:
            t0, c0 = time.perf_counter(), time.process_time()
            res = search(q.question)
            wall.append((time.perf_counter() - t0) * 1e3)
            cpu.append((time.process_time() - c0) * 1e3)
            for stage, ms in res.debug["timings_ms"].items():
                stages.setdefault(stage, []).append(ms)
    load_after = Path("/proc/loadavg").read_text().split()[:3]
    p50, p95 = percentiles(wall)
    c50, c95 = percentiles(cpu)
    print(
        f"\n{what} latency, in process, over {size[0]} documents / {size[1]} chunks, "
        f"{len(wall)} searches on the 2-core dev box: p50 {p50:.1f} ms, p95 {p95:.1f} ms "
        f"(/proc/loadavg before {' '.join(load_before)}, after {' '.join(load_after)})"
    )
    # CPU time barely depends on how many other processes share the cores; wall time does.
    # It counts every thread of the process (the embedding model may use two).
    print(f"CPU time per search (all threads): p50 {c50:.1f} ms, p95 {c95:.1f} ms")
    # A stage that runs only for some questions (uncovered) is timed over those.
    print(
        "stages (p50 / p95 ms): "
        + ", ".join(
            f"{name} {a:.1f}/{b:.1f}"
            for name, (a, b) in ((n, percentiles(v)) for n, v in stages.items())
            if name != "total"
        )
    )


def config_with(config: RetrievalConfig, items: Sequence[str]) -> RetrievalConfig:
    """``config`` with the fields ``KEY=VALUE`` (as ``--set`` writes them) changed, each
    value of its field's type (a bool is "1" or anything else)."""
    for item in items:
        key, value = item.split("=", 1)
        kind = type(getattr(config, key))
        config = replace(config, **{key: kind(value) if kind is not bool else value == "1"})
    return config


def set_bars(items: Sequence[str]) -> None:
    """The evaluation's bars are module constants, read at each call: set them for the run."""
    import docent.core.sufficiency as sufficiency

    for item in items:
        name, _, value = item.partition("=")
        if not isinstance(getattr(sufficiency, name, None), float):
            raise SystemExit(f"--bar {item}: sufficiency.py has no bar {name!r}")
        setattr(sufficiency, name, float(value))


def main() -> int:
    from docent.core.retrieval import RetrievalConfig

    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--library", choices=sorted(HOMES), default="dev")
    ap.add_argument("--home", type=Path, help="the library's folder (default: per library)")
    ap.add_argument(
        "--vector-cache", type=Path, help="disk cache of dense vectors by text (sqlite file)"
    )
    ap.add_argument("--questions", nargs="*", type=Path, default=[DEV_QUESTIONS])
    ap.add_argument("--latency", action="store_true", help="time the full pipeline")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument(
        "--set",
        nargs="*",
        default=[],
        metavar="KEY=VALUE",
        help="override RetrievalConfig fields for the full pipeline",
    )
    ap.add_argument(
        "--rerank-model",
        type=Path,
        help="a cross-encoder's folder (rerank_model_dir) for the full pipeline's rerank",
    )
    ap.add_argument(
        "--bar",
        nargs="*",
        default=[],
        metavar="NAME=VALUE",
        help="override a bar of the retrieval evaluation (sufficiency.py), e.g. "
        "UNCOVERED_SENTENCE_GAIN=0.06",
    )
    ap.add_argument(
        "--misses",
        action="store_true",
        help="list the questions missed (not in the top 5, or judged wrongly)",
    )
    ap.add_argument("--only-pipeline", action="store_true")
    ap.add_argument(
        "--scoped",
        action="store_true",
        help="also the full pipeline inside one document per question (the gold one, or "
        "an unanswerable question's first): a scoped question, or a one-file library",
    )
    args = ap.parse_args()

    questions = load_questions(args.questions)
    config = config_with(RetrievalConfig(), args.set)
    set_bars(args.bar)
    eng = open_library(args.library, questions, args.home, args.vector_cache)
    try:
        indexed = {d.file_name for d in eng.documents()}
        skipped = [q.id for q in questions if q.file and q.file not in indexed]
        if skipped:
            print(f"skipped (file not in this library): {' '.join(skipped)}", file=sys.stderr)
        questions = [q for q in questions if q.id not in skipped]
        st = eng.status()
        print(
            f"library '{args.library}': {st.ready} documents, {st.chunks} chunks", file=sys.stderr
        )
        modes: list[tuple[str, Search]] = []
        if not args.only_pipeline:
            modes += [
                ("dense only", single_mode(eng, True, False)),
                ("BM25 only", single_mode(eng, False, True)),
                ("hybrid (Qdrant RRF)", single_mode(eng, True, True)),
            ]
        full = "full pipeline" + (" + cross-encoder" if args.rerank_model else "")
        modes.append((full, pipeline_mode(eng, config, args.rerank_model)))
        if args.scoped:
            scoped = scoped_mode(eng, config, questions, args.rerank_model)
            modes.append((f"{full}, scoped to one document", scoped))
        rows = [score(name, fn, questions) for name, fn in modes]
        print_table(
            rows, sum(q.answerable for q in questions), sum(not q.answerable for q in questions)
        )
        if args.misses:
            for r in rows:
                print(f"\n{r.mode} misses (top 5):")
                for m in r.misses:
                    print("  " + m)
        if args.latency:
            latency(eng, config, questions, args.repeats, args.rerank_model)
    finally:
        eng.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
