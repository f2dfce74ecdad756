"""Issue 16's LLM rerank, tried outside the app: would the model reorder the passages?

    .venv/bin/python benchmarks/llm_rerank.py [--model smollm2:135m] [--host URL] [--top 10]

The pipeline's best ``--top`` passages are listed to the model, numbered, with the
question; its reply is held to a JSON schema (Ollama's ``format``): up to three of those
numbers, the best first. The passages it names move to the front, the rest keep their
order, and the figures are scored as ``retrieval_eval.py`` scores them, beside the
pipeline's own. Also printed: how often the model's first pick was simply [1] (the order
it was given) and its time per request.
"""

from __future__ import annotations

import argparse
import json
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

ASK = "Which passages answer the question? Reply with their numbers, the best first."
EXCERPT = 500


def excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= EXCERPT else flat[:EXCERPT].rsplit(" ", 1)[0] + " …"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    model_arguments(ap)
    ap.add_argument("--library", choices=("dev", "full"), default="dev")
    ap.add_argument("--home", type=Path)
    ap.add_argument("--questions", nargs="*", type=Path, default=[DEV_QUESTIONS])
    ap.add_argument("--top", type=int, default=10)
    args = ap.parse_args()
    import ollama

    from docent.core.retrieval import RetrievalConfig

    questions = load_questions(args.questions)
    eng = open_library(args.library, questions, args.home)
    client = ollama.Client(host=args.host, timeout=600)
    pipeline = pipeline_mode(eng, RetrievalConfig())
    seconds: list[float] = []
    kept_first = named_none = 0

    def reranked(question: str) -> tuple[list[Hit], str]:
        nonlocal kept_first, named_none
        hits, confidence = pipeline(question)
        head = hits[: args.top]
        listing = "\n\n".join(f"[{n}] {excerpt(h.text)}" for n, h in enumerate(head, 1))
        numbers = {"type": "integer", "enum": list(range(1, len(head) + 1))}
        schema = {
            "type": "object",
            "properties": {"best": {"type": "array", "items": numbers, "maxItems": 3}},
            "required": ["best"],
        }
        started = time.monotonic()
        reply = client.chat(
            model=args.model,
            messages=[
                {
                    "role": "user",
                    "content": f"Passages:\n\n{listing}\n\nQuestion: {question}\n\n{ASK}",
                }
            ],
            format=schema,
            options={"temperature": 0, "seed": 7, "num_predict": 40, "num_ctx": 4096},
        )
        seconds.append(time.monotonic() - started)
        try:
            best = [int(n) for n in json.loads(reply.message.content or "")["best"]]
        except (ValueError, KeyError, TypeError):
            best = []
        picked = [n for n in dict.fromkeys(best) if 1 <= n <= len(head)]
        kept_first += picked[:1] == [1]
        named_none += not picked  # an empty list, or a reply cut before it closed
        order = [head[n - 1] for n in picked]
        order += [h for n, h in enumerate(head, 1) if n not in picked]
        return order + hits[args.top :], confidence

    modes: list[tuple[str, Search]] = [
        ("full pipeline", pipeline),
        (f"+ {args.model} rerank of the top {args.top}", reranked),
    ]
    try:
        rows = [score(name, fn, questions) for name, fn in modes]
    finally:
        eng.close()
    n_ans = sum(q.answerable for q in questions)
    print_table(rows, n_ans, len(questions) - n_ans)
    print(
        f"\n{len(seconds)} requests: the first pick was [1] in {kept_first}, "
        f"no passage named in {named_none}; "
        f"median {statistics.median(seconds):.1f} s per request"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
