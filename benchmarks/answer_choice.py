"""Can a small model choose the sentence that answers, when it cannot write one?

    .venv/bin/python benchmarks/answer_choice.py [--model smollm2:135m] [--host URL] [--home DIR]

A measurement for issue 11 (session 9), not part of the app. For each answerable dev
question it builds the default prompt's passages (the same search and layout as
``answer_eval.py``), then asks the model to reply with one sentence of those passages,
its reply held to a JSON schema whose only allowed values are the passages' sentences
(Ollama's ``format``, which llama.cpp turns into a grammar), so whatever it writes is a
sentence a passage says. Whether that sentence is on a gold page is compared with three
choices that need no model: the first sentence listed, the last (the best passage is
listed last, next to the question), and the sentence sharing most words with the question.
If the model's choice were no better than those, a chosen sentence would be Docent's
quote with a model's name on it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from answer_eval import (  # noqa: E402
    is_gold,
    load1,
    load_questions,
    model_arguments,
    open_library,
)

CHOOSE = "Reply with the sentence of the passages above that answers the question."


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    model_arguments(ap)
    ap.add_argument("--home", default="/tmp/docent-answer-eval")
    ap.add_argument("--context", type=int, default=4096)
    args = ap.parse_args()
    import ollama

    from docent.core.conversation import Conversation
    from docent.core.evaluation import split_sentences, terms
    from docent.core.prompting import (
        DEFAULT_LAYOUT,
        ROLE,
        asked_message,
        build_prompt,
        context_plan,
    )

    eng = open_library(Path(args.home), load_questions([]), args.host, args.model, args.context)
    client = ollama.Client(host=args.host, timeout=600)
    rules = ("model", "first listed", "last listed", "most question words")
    gold = dict.fromkeys(rules, 0)
    asked = unparsed = 0
    print(f"{args.model} at {args.host}, load {load1():.1f}", file=sys.stderr)
    try:
        for q in (q for q in load_questions([]) if q.answerable):
            result = eng.search(q.question)
            plan = context_plan(eng.settings, eng.embedder.count_tokens, q.question)
            prompt = build_prompt(
                q.question,
                q.question,
                result.hits,
                Conversation(),
                plan,
                "",
                DEFAULT_LAYOUT,
                follows=False,
            )
            owner: dict[str, int] = {}  # sentence -> its passage's number, in listed order
            numbers = range(1, len(prompt.offered) + 1)
            for n in reversed(numbers) if DEFAULT_LAYOUT.best_last else numbers:
                for s in split_sentences(prompt.shown[n]):
                    if len(terms(s)) >= 3 and len(s) <= 400:
                        owner.setdefault(s, n)
            if not owner:
                continue
            options = list(owner)
            user = asked_message(prompt.messages).rsplit("\n\n", 1)[0] + f"\n\n{CHOOSE}"
            schema = {
                "type": "object",
                "properties": {"sentence": {"type": "string", "enum": options}},
                "required": ["sentence"],
            }
            started = time.monotonic()
            reply = client.chat(
                model=args.model,
                messages=[{"role": "system", "content": ROLE}, {"role": "user", "content": user}],
                format=schema,
                options={**prompt.options, "num_predict": 256},
            )
            asked += 1
            try:
                chosen = json.loads(reply.message.content or "")["sentence"]
            except (ValueError, KeyError, TypeError):
                chosen = None
            wanted = terms(q.question)
            picks = {
                "model": chosen if chosen in owner else None,
                "first listed": options[0],
                "last listed": options[-1],
                "most question words": max(options, key=lambda s: len(terms(s) & wanted)),
            }
            on_gold = {
                rule: s is not None and is_gold(q, prompt.offered[owner[s] - 1])
                for rule, s in picks.items()
            }
            for rule, hit in on_gold.items():
                gold[rule] += hit
            unparsed += chosen is None
            where = f"{options.index(chosen) + 1}/{len(options)}" if chosen in owner else "-"
            print(
                f"{q.id} model {'gold' if on_gold['model'] else '-   '} option {where:>6} "
                f"{time.monotonic() - started:5.1f} s  {str(chosen)[:90]}",
                flush=True,
            )
    finally:
        eng.close()
    print(f"\n{asked} answerable questions asked; {unparsed} replies not a listed sentence")
    print("\n| choice | on a gold page |\n|---|---|")
    for rule in rules:
        print(f"| {rule} | {gold[rule]}/{asked} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
