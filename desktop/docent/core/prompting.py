"""Prompts for answers: numbered passages within the model's context budget, and the
extractive text used when no model answers.

The context budget is ``llm_context_tokens`` minus room for the answer
(``answer_tokens``), the instructions, the question and earlier turns. Passages are added
best-first (retrieval order) and the first one that does not fit ends the list, so a
passage is never skipped in favour of a worse one. Tokens are counted with the caller's
counter (the embedding model's tokenizer in the Engine) plus a safety margin, since the
chat model's tokenizer differs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from docent.core.config import Settings
from docent.core.conversation import MAX_HISTORY_TURNS, Conversation
from docent.core.evaluation import split_sentences, terms
from docent.core.models import Hit

CountFn = Callable[[str], int]

#: Tokens reserved for the answer: a quarter of the context, at most this many.
MAX_ANSWER_TOKENS = 1024
#: The chat model's tokenizer differs from the counter's: count this much more.
TOKEN_MARGIN = 1.15
#: Per-message overhead of the chat template, and slack for everything else.
MESSAGE_OVERHEAD = 8
SLACK = 48
#: Earlier turns may take at most this share of the passage budget.
HISTORY_SHARE = 0.25
#: Characters quoted from each passage in an extractive answer.
EXCERPT_CHARS = 400

INSTRUCTIONS = (
    "Answer the question using only the numbered passages from the user's documents. "
    "After each sentence, cite the passages it comes from with their numbers in square "
    "brackets, like [1] or [2][3]. If the passages do not contain the answer, say that "
    "you could not find it in the documents. Do not use outside knowledge. Be brief."
)


@dataclass(frozen=True, slots=True)
class ContextPlan:
    context_tokens: int
    answer_tokens: int
    count: CountFn

    def tokens(self, text: str) -> int:
        return int(self.count(text) * TOKEN_MARGIN) + 1


def context_plan(settings: Settings, count: CountFn) -> ContextPlan:
    ctx = settings.llm_context_tokens
    return ContextPlan(ctx, min(MAX_ANSWER_TOKENS, ctx // 4), count)


@dataclass(slots=True)
class Prompt:
    messages: list[dict[str, str]]
    #: The passages listed, best first: ``offered[n - 1]`` is ``[n]``.
    offered: list[Hit]
    #: ``n`` -> the passage text exactly as the model saw it.
    shown: dict[int, str]
    options: dict[str, Any] = field(default_factory=dict)
    history_turns: int = 0


def passage_line(n: int, hit: Hit) -> str:
    return f"[{n}] {hit.file_name} {hit.pages_label}: {_flat(hit.text)}"


def build_prompt(
    question: str,
    query: str,
    hits: Sequence[Hit],
    conv: Conversation,
    plan: ContextPlan,
    preamble: str = "",
) -> Prompt:
    system = f"{preamble.strip()}\n\n{INSTRUCTIONS}" if preamble.strip() else INSTRUCTIONS
    ask = f"Question: {question}"
    if query != question:
        ask += f"\n(In full: {query})"
    budget = (
        plan.context_tokens
        - plan.answer_tokens
        - plan.tokens(system)
        - plan.tokens(ask)
        - 2 * MESSAGE_OVERHEAD
        - SLACK
    )
    history, turns = _history(conv, plan, int(max(budget, 0) * HISTORY_SHARE))
    budget -= sum(plan.tokens(m["content"]) + MESSAGE_OVERHEAD for m in history)
    lines, offered = _passages(hits, plan, budget)
    user = "Passages from the documents:\n\n" + "\n\n".join(lines) + f"\n\n{ask}"
    messages = [{"role": "system", "content": system}, *history]
    messages.append({"role": "user", "content": user})
    return Prompt(
        messages=messages,
        offered=offered,
        shown={n: _flat(h.text) for n, h in enumerate(offered, 1)},
        options={
            "num_ctx": plan.context_tokens,
            "num_predict": plan.answer_tokens,
            "temperature": 0.2,
        },
        history_turns=turns,
    )


def _history(
    conv: Conversation, plan: ContextPlan, budget: int
) -> tuple[list[dict[str, str]], int]:
    """The most recent turns (with their passages as markers) that fit ``budget``."""
    for turns in range(min(MAX_HISTORY_TURNS, len(conv.turns)), 0, -1):
        messages = conv.history_messages(turns)
        if sum(plan.tokens(m["content"]) + MESSAGE_OVERHEAD for m in messages) <= budget:
            return messages, turns
    return [], 0


def _passages(hits: Sequence[Hit], plan: ContextPlan, budget: int) -> tuple[list[str], list[Hit]]:
    lines: list[str] = []
    offered: list[Hit] = []
    used = 0
    for hit in hits:
        line = passage_line(len(offered) + 1, hit)
        cost = plan.tokens(line) + 2
        if used + cost > budget:
            if not offered and budget > 0:  # the best passage, cut to fit, rather than none
                keep = max(200, int(len(line) * budget / cost))
                lines.append(line[:keep].rsplit(" ", 1)[0] + " …")
                offered.append(hit)
            break
        lines.append(line)
        offered.append(hit)
        used += cost
    return lines, offered


def _flat(text: str) -> str:
    return " ".join(text.split())


# Extractive answers -------------------------------------------------------------


def best_excerpt(text: str, query: str, limit: int = EXCERPT_CHARS) -> str:
    """The part of a passage (whole sentences, about ``limit`` characters) nearest the query."""
    flat = _flat(text)
    if len(flat) <= limit:
        return flat
    sentences = split_sentences(flat) or [flat]
    wanted = terms(query)
    best = max(range(len(sentences)), key=lambda i: (len(terms(sentences[i]) & wanted), -i))
    picked: list[str] = []
    for sentence in sentences[best:]:
        if picked and len(" ".join(picked)) + len(sentence) > limit:
            break
        picked.append(sentence)
    excerpt = " ".join(picked)
    if len(excerpt) > limit:
        excerpt = excerpt[:limit].rsplit(" ", 1)[0]
    lead = "… " if best > 0 else ""
    tail = " …" if not flat.endswith(excerpt) else ""
    return f"{lead}{excerpt}{tail}"


def extractive_text(query: str, hits: Sequence[Hit], reason: str, model: str) -> str:
    """Quoted passages, plainly labelled as not generated, with how to get a model."""
    parts = [
        f"**Not generated — no language model answered.** {reason}".strip(),
        "To get written answers, start Ollama (`ollama serve`) and make sure the model is "
        f"installed (`ollama pull {model}`).",
        "The passages that best match your question:" if hits else "No passage matched.",
    ]
    for n, hit in enumerate(hits, 1):
        parts.append(
            f"[{n}] {hit.file_name}, {hit.pages_label}:\n> {best_excerpt(hit.text, query)}"
        )
    return "\n\n".join(parts)


def abstain_text(searched: Sequence[str], scope: str, recommendation: str, shown: int) -> str:
    """What an abstained answer says: not found, what was searched where, what next."""
    lines = ["I could not find an answer to this in your documents."]
    lines.append("Searched for: " + "; ".join(f"“{q}”" for q in searched) + f" in {scope}.")
    if recommendation:
        lines.append(str(recommendation))
    if shown:
        marks = " ".join(f"[{n}]" for n in range(1, shown + 1))
        lines.append(f"The closest passages, which do not seem to answer it: {marks}")
    return "\n\n".join(lines)
