"""Issue 16's LLM rerank (``llm_rerank``, off by default): does the model reorder well?

    .venv/bin/python benchmarks/llm_rerank.py [--model smollm2:135m] [--host URL]
        [--library dev|full] [--home DIR] [--questions FILE ...] [--context 4096]

The app's own rerank (``docent.core.llm_rerank.rerank``, what an answer does with
``llm_rerank`` on) is run on the pipeline's passages for each question: the best ten are
listed to the model, numbered, with the question; its reply is held to a JSON schema
(Ollama's ``format``): up to three of those numbers, the best first. The passages it names
move to the front, the rest keep their order, and the figures are scored as
``retrieval_eval.py`` scores them, beside the pipeline's own. Also printed: how often the
model's first pick was simply [1] (the order it was given), how often it named none, and
its time per request.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).parent))
from answer_eval import model_arguments  # noqa: E402
from retrieval_eval import (  # noqa: E402
    DEV_QUESTIONS,
    Search,
    load_questions,
    open_library,
    pipeline_mode,
    print_table,
    score,
)

if TYPE_CHECKING:
    from docent.core.models import Hit


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    model_arguments(ap)
    ap.add_argument("--library", choices=("dev", "full"), default="dev")
    ap.add_argument("--home", type=Path)
    ap.add_argument("--questions", nargs="*", type=Path, default=[DEV_QUESTIONS])
    ap.add_argument("--context", type=int, default=4096, help="llm_context_tokens (num_ctx)")
    args = ap.parse_args()

    from docent.core import llm_rerank
    from docent.core.errors import LLMError
    from docent.core.llm import OllamaClient
    from docent.core.retrieval import RetrievalConfig

    questions = load_questions(args.questions)
    eng = open_library(args.library, questions, args.home)
    client = OllamaClient(args.host, args.model, 5.0, 600.0, 600.0)
    pipeline = pipeline_mode(eng, RetrievalConfig())
    seconds: list[float] = []
    kept_first = named_none = failed = 0

    def reranked(question: str) -> tuple[list[Hit], str]:
        nonlocal kept_first, named_none, failed
        hits, confidence = pipeline(question)
        started = time.monotonic()
        head = llm_rerank.listed(question, hits, args.context, eng.embedder.count_tokens)
        try:
            done = llm_rerank.rerank(
                client, question, head, hits[len(head) :], context_tokens=args.context
            )
        except LLMError:
            failed += 1
            return hits, confidence
        finally:
            seconds.append(time.monotonic() - started)
        kept_first += done.picks[:1] == [1]
        named_none += not done.picks  # an empty list, or a reply not the schema's JSON
        return done.hits, confidence

    modes: list[tuple[str, Search]] = [
        ("full pipeline", pipeline),
        (f"+ {args.model} rerank of the top {llm_rerank.RERANK_TOP}", reranked),
    ]
    try:
        rows = [score(name, fn, questions) for name, fn in modes]
    finally:
        eng.close()
        client.close()
    n_ans = sum(q.answerable for q in questions)
    print_table(rows, n_ans, len(questions) - n_ans)
    print(
        f"\n{len(seconds)} requests: the first pick was [1] in {kept_first}, "
        f"no passage named in {named_none}, failed {failed}; "
        f"median {statistics.median(seconds):.1f} s per request"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
