"""An optional LLM rerank (``llm_rerank``, off by default): the answering model puts the
passages that answer the question first, before it is asked for the answer.

The search's best ``RERANK_TOP`` passages are listed to the model, numbered, with the
question. Its reply is held by a JSON schema (Ollama's ``format``) to up to
``RERANK_PICKS`` of those numbers, the best first. The passages it names move to the
front, in its order; the rest keep theirs. A reply that names none, is cut short or is
not JSON leaves the search's order as it was. The rerank only reorders the passages the
search found; since the answer is offered the first few, a passage it picks from further
down is offered in place of the search's last one.

Off by default, because it was measured and moved nothing: with the only model here
(smollm2:135m) the figures are the same with and without it, and it costs each answer
one more request (README, issue 16). A person whose model follows instructions may turn
it on (Settings → LLM rerank, ``settings.toml``, ``DOCENT_LLM_RERANK``) and measure it on
their library (``benchmarks/llm_rerank.py``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from docent.core.guards import guard_for

if TYPE_CHECKING:
    from docent.core.llm import OllamaClient
    from docent.core.models import Hit

#: Passages listed to the model at most.
RERANK_TOP = 10
#: Numbers the model may name.
RERANK_PICKS = 3
#: Characters of each passage listed (the model's context holds ten).
EXCERPT = 500
ASK = "Which passages answer the question? Reply with their numbers, the best first."
#: Greedy and short: a list of three numbers needs few tokens.
OPTIONS: dict[str, Any] = {"temperature": 0, "seed": 7, "num_predict": 40}
#: Tokens kept free in the context beside the listing and the reply (the chat template's
#: own tokens; a count that runs a little short).
MARGIN_TOKENS = 64
#: Seconds the reply may take after the first-token timeout's: it is a few numbers, and
#: the answer waits behind it.
REPLY_SECONDS = 30.0

CountFn = Callable[[str], int]


@dataclass(frozen=True, slots=True)
class Reranked:
    hits: list[Hit]
    #: The search's ranks (1-based) of the passages the model put first, in its order;
    #: empty when it named none or its reply could not be used (the search's order stands).
    picks: list[int]
    #: Why the reply could not be used ("" when it could, picks or none).
    unusable: str = ""


def excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= EXCERPT else flat[:EXCERPT].rsplit(" ", 1)[0] + " …"


def _line(n: int, hit: Hit) -> str:
    return f"[{n}] {hit.file_name} {hit.pages_label}: {excerpt(hit.text)}"


def messages(question: str, hits: Sequence[Hit]) -> list[dict[str, str]]:
    listing = "\n\n".join(_line(n, h) for n, h in enumerate(hits, 1))
    return [{"role": "user", "content": f"Passages:\n\n{listing}\n\nQuestion: {question}\n\n{ASK}"}]


def schema(n: int) -> dict[str, Any]:
    """Up to ``RERANK_PICKS`` of the numbers 1..n."""
    numbers = {"type": "integer", "enum": list(range(1, n + 1))}
    return {
        "type": "object",
        "properties": {"best": {"type": "array", "items": numbers, "maxItems": RERANK_PICKS}},
        "required": ["best"],
    }


def picks(reply: str, n: int) -> list[int] | None:
    """The numbers 1..n the reply names, once each, in its order (at most
    ``RERANK_PICKS``); None for a reply that is not the schema's JSON (cut short, or a
    server that ignored the schema): a list of whole numbers under "best"."""
    try:
        best = json.loads(reply)["best"]
    except (ValueError, KeyError, TypeError):
        return None
    if not isinstance(best, list):
        return None
    named = [x for x in best if isinstance(x, int) and not isinstance(x, bool)]
    return [x for x in dict.fromkeys(named) if 1 <= x <= n][:RERANK_PICKS]


def reordered(hits: Sequence[Hit], chosen: Sequence[int]) -> list[Hit]:
    """``hits`` with the passages ranked ``chosen`` (1-based) first, in that order."""
    front = [hits[x - 1] for x in chosen]
    return front + [h for x, h in enumerate(hits, 1) if x not in set(chosen)]


def listed(question: str, hits: Sequence[Hit], context_tokens: int, count: CountFn) -> list[Hit]:
    """The passages listed to the model: the best ``RERANK_TOP`` of ``hits``, as many
    as the context holds beside the question and the reply (``count``: the tokens of a
    text)."""
    room = context_tokens - OPTIONS["num_predict"] - MARGIN_TOKENS
    room -= count(messages(question, [])[0]["content"])
    out: list[Hit] = []
    for n, h in enumerate(hits[:RERANK_TOP], 1):
        room -= count(_line(n, h)) + 2  # and the blank line between
        if room < 0:
            break
        out.append(h)
    return out


def rerank(
    llm: OllamaClient,
    question: str,
    head: Sequence[Hit],
    rest: Sequence[Hit] = (),
    *,
    context_tokens: int,
    model: str | None = None,
    cancel: threading.Event | None = None,
    sampling: dict[str, Any] | None = None,
) -> Reranked:
    """Ask the model which of ``head`` (``listed``) answer ``question``; the passages it
    names first, then the rest of ``head``, then ``rest``. With the answer's ``num_ctx``
    (``context_tokens``: Ollama would load the model again for another); ``sampling``:
    options instead of ``OPTIONS``' (a Retry's seed). The reply may take
    ``REPLY_SECONDS`` past the client's first-token timeout, not the answer's whole
    time. The client's errors (LLMError, Cancelled) pass through to the caller."""
    options = {**(sampling or OPTIONS), "num_ctx": context_tokens}
    reply = llm.chat(
        messages(question, head),
        model=model,
        cancel=cancel,
        options=options,
        guard=guard_for(options, what="reply"),
        schema=schema(len(head)),
        total_timeout=llm.first_token_timeout + REPLY_SECONDS,
    )
    chosen = picks(reply, len(head))
    unusable = "" if chosen is not None else "its reply was not a list of passage numbers"
    return Reranked(reordered(head, chosen or []) + list(rest), chosen or [], unusable)
