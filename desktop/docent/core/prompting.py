"""Prompts for answers: numbered passages within the model's context budget, the
sampling options and answer budget, and the extractive text used when no model answers.

The context budget is ``llm_context_tokens`` minus room for the answer (its budget, see
``answer_budget``), the instructions, the question and earlier turns. Passages are added
best-first (retrieval order) and the first one that does not fit ends the list, so a
passage is never skipped in favour of a worse one. Tokens are counted with the caller's
counter (the embedding model's tokenizer in the Engine) plus a safety margin, since the
chat model's tokenizer differs.

The layout (where the instructions go, a one-line example of a citation, how many
passages) was chosen by measuring several with a real small model on the dev questions
(``benchmarks/answer_eval.py --layout``; figures in docs/measurements/answers.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from docent.core.citations import Citation, distinct_names
from docent.core.config import Settings
from docent.core.conversation import (
    MAX_HISTORY_TURNS,
    UNSUPPORTED_LEAD,
    UNSUPPORTED_QUOTES,
    Conversation,
)
from docent.core.errors import (
    LLMConnectionCut,
    LLMError,
    LLMUnavailable,
    ModelNotFound,
    NotOllama,
)
from docent.core.evaluation import split_sentences, terms
from docent.core.models import Hit

CountFn = Callable[[str], int]

#: The answer's budget (``num_predict``) when sized to the question: short for a fact,
#: longer for how/why questions, never more than a quarter of the context.
FACT_ANSWER_TOKENS = 192
EXPLAIN_ANSWER_TOKENS = 384
_EXPLAIN = re.compile(
    r"\b(?:how (?:do|does|can|could|should|to|would)|why|explain|describe|steps?|list|"
    r"compare|difference|differences|walk me through|what are the)\b",
    re.I,
)
#: Sampling for answers: near-greedy, with a penalty on repeating recent tokens (small
#: models otherwise loop), and a fixed seed so the same question gets the same answer.
ANSWER_SAMPLING: dict[str, Any] = {
    "temperature": 0.1,
    "repeat_penalty": 1.15,
    "repeat_last_n": 128,
    "seed": 7,
    # A small model that has answered goes on with a "Question:" of its own.
    "stop": ["\nQuestion:"],
}
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
#: For layouts that put the instructions after the passages, where a small model still
#: sees them when it starts writing.
ROLE = "You answer questions from passages of the user's documents."
REMINDER = (
    "Answer the question in two or three sentences, using only the passages above. "
    "End each sentence with the number of the passage it comes from, in square brackets."
)
#: Quote what the passages say (a small model paraphrases into errors) and cite it.
QUOTE_REMINDER = (
    "Answer with the sentences of the passages above that answer the question, copied "
    "as they are, each followed by the number of its passage in square brackets."
)
#: About nothing in anyone's documents: small models copy an example word for word (an
#: example about R's console turned up in answers about Debian and the PDP-11).
EXAMPLE = "For example: The pump stops when the tank is full [2]."
#: A question and its answer shown as an earlier turn of the chat (a small model repeats
#: the form of the last answer it saw), about nothing in anyone's documents.
SHOT_PASSAGES = (
    "[2] manual.pdf p.3: Fill the tank with water. The tank holds 40 litres.\n\n"
    "[1] manual.pdf p.4: The pump starts when the switch is on. The pump stops when the "
    "tank is full."
)
SHOT_QUESTION = "When does the pump stop?"
SHOT_ANSWER = "The pump stops when the tank is full [1]."
#: The answer opened for the model (``Layout.prefill``): a small model that starts inside
#: a quotation of the best passage copies from it, and a copied sentence is one Docent can
#: cite (docs/measurements/answers.md, session 22). Docent wrote these words, so their
#: "[1]" is not the model's citation: only the opening quotation mark starts the answer
#: (``Layout.lead``), and what the model copies is cited by matching, as any sentence is.
OPENING = 'Passage [1] says: "'
QUOTE_MARK = '"'


@dataclass(frozen=True, slots=True)
class Layout:
    """Where the instructions go and how many passages a prompt lists."""

    name: str
    #: Instructions after the question (in the user message) instead of the system one.
    instructions_last: bool = False
    #: A one-line example of a cited sentence.
    example: bool = False
    #: Ask for the passages' own sentences rather than an answer in the model's words.
    quote: bool = False
    #: At most this many passages (0: as many as fit).
    max_passages: int = 0
    #: List the passages worst first, so the best one ends next to the question (a small
    #: model copies what is nearest). Their numbers stay by rank: [1] is the best.
    best_last: bool = False
    #: Show one question and a cited answer as an earlier turn of the chat.
    shot: bool = False
    #: The answer's first words, sent as the start of the model's reply (it goes on
    #: from them).
    prefill: str = ""
    #: What of ``prefill`` starts the answer's text.
    lead: str = ""


LAYOUTS = {
    layout.name: layout
    for layout in (
        Layout("system"),
        Layout("last", instructions_last=True),
        Layout("last-example", instructions_last=True, example=True),
        Layout("last-example-3", instructions_last=True, example=True, max_passages=3),
        Layout("last-3", instructions_last=True, max_passages=3),
        Layout("quote-3", instructions_last=True, quote=True, max_passages=3),
        Layout("quote-example-3", instructions_last=True, quote=True, example=True, max_passages=3),
        Layout("quote-3-last", instructions_last=True, quote=True, max_passages=3, best_last=True),
        Layout("quote-5-last", instructions_last=True, quote=True, max_passages=5, best_last=True),
        Layout("quote-2", instructions_last=True, quote=True, max_passages=2),
        Layout("quote-2-last", instructions_last=True, quote=True, max_passages=2, best_last=True),
        Layout("quote-1", instructions_last=True, quote=True, max_passages=1),
        # the reply begun in a quotation; the answer keeps only its opening mark
        *(
            Layout(
                name,
                instructions_last=True,
                quote=True,
                max_passages=3,
                best_last=last,
                prefill=opening,
                lead=QUOTE_MARK,
            )
            for name, opening, last in (
                ("opened-3-last", OPENING, True),
                ("opened-3", OPENING, False),
                ("quote-mark-3-last", QUOTE_MARK, True),
            )
        ),
        Layout(
            "shot-3-last",
            instructions_last=True,
            quote=True,
            max_passages=3,
            best_last=True,
            shot=True,
        ),
    )
}
DEFAULT_LAYOUT = LAYOUTS["opened-3-last"]


@dataclass(frozen=True, slots=True)
class ContextPlan:
    context_tokens: int
    answer_tokens: int
    count: CountFn

    def tokens(self, text: str) -> int:
        return int(self.count(text) * TOKEN_MARGIN) + 1


def answer_budget(question: str, settings: Settings) -> int:
    """Tokens the answer may take: ``llm_answer_tokens``, or sized to the question."""
    ctx = settings.llm_context_tokens
    if settings.llm_answer_tokens:
        return min(settings.llm_answer_tokens, ctx // 2)
    wanted = EXPLAIN_ANSWER_TOKENS if _EXPLAIN.search(question) else FACT_ANSWER_TOKENS
    return min(wanted, ctx // 4)


def context_plan(settings: Settings, count: CountFn, question: str = "") -> ContextPlan:
    return ContextPlan(settings.llm_context_tokens, answer_budget(question, settings), count)


@dataclass(slots=True)
class Prompt:
    messages: list[dict[str, str]]
    #: The passages listed, best first: ``offered[n - 1]`` is ``[n]``.
    offered: list[Hit]
    #: ``n`` -> the passage text exactly as the model saw it.
    shown: dict[int, str]
    options: dict[str, Any] = field(default_factory=dict)
    #: What of the reply begun for the model (the last message, ``Layout.prefill``)
    #: starts the answer's text (``with_lead``).
    lead: str = ""


def passage_line(n: int, hit: Hit) -> str:
    return f"[{n}] {hit.file_name} {hit.pages_label}: {_flat(hit.text)}"


def build_prompt(
    question: str,
    query: str,
    hits: Sequence[Hit],
    conv: Conversation,
    plan: ContextPlan,
    preamble: str = "",
    layout: Layout = DEFAULT_LAYOUT,
    *,
    follows: bool,
) -> Prompt:
    """``follows``: the question was searched as a follow-up (the Answerer decides, by
    ``conversation.is_follow_up``), so the turns before it go with it."""
    lead = ROLE if layout.instructions_last else INSTRUCTIONS
    system = f"{preamble.strip()}\n\n{lead}" if preamble.strip() else lead
    ask = f"Question: {question}"
    if query != question:
        ask += f"\n(In full: {query})"
    if layout.instructions_last:
        reminder = QUOTE_REMINDER if layout.quote else REMINDER
        ask += f"\n\n{reminder}" + (f" {EXAMPLE}" if layout.example else "")
    elif layout.example:
        system += f" {EXAMPLE}"
    shot = _shot(layout) if layout.shot else []
    begun = [{"role": "assistant", "content": layout.prefill}] if layout.prefill else []
    budget = (
        plan.context_tokens
        - plan.answer_tokens
        - plan.tokens(system)
        - plan.tokens(ask)
        - 2 * MESSAGE_OVERHEAD
        - SLACK
        - sum(plan.tokens(m["content"]) + MESSAGE_OVERHEAD for m in [*shot, *begun])
    )
    # only a follow-up is sent the turns before it: a question that names its own subject
    # needs none, and smollm2:135m answered one with the answer before it (QA, session 29);
    # nor a short one answered as asked (the Answerer says: its own search found it)
    history = _history(conv, plan, int(max(budget, 0) * HISTORY_SHARE)) if follows else []
    budget -= sum(plan.tokens(m["content"]) + MESSAGE_OVERHEAD for m in history)
    lines, offered = _passages(hits[: layout.max_passages or None], plan, budget)
    if layout.best_last:
        lines.reverse()
    user = "Passages from the documents:\n\n" + "\n\n".join(lines) + f"\n\n{ask}"
    messages = [{"role": "system", "content": system}, *shot, *history]
    messages.append({"role": "user", "content": user})
    messages += begun
    return Prompt(
        messages=messages,
        offered=offered,
        shown={n: _flat(h.text) for n, h in enumerate(offered, 1)},
        options={
            "num_ctx": plan.context_tokens,
            "num_predict": plan.answer_tokens,
            **ANSWER_SAMPLING,
        },
        lead=layout.lead,
    )


def asked_message(messages: Sequence[dict[str, Any]]) -> str:
    """The content of an answer request's last user message (the passages and the
    question); the request may end on the reply Docent began for the model."""
    return str(next(m for m in reversed(messages) if m["role"] == "user")["content"])


def with_lead(lead: str, text: str) -> str:
    """The answer's text: ``lead``, then what the model wrote after it; an opening
    quotation mark only when the model closed the quotation, that is when its first mark
    is a closing one (a curly one, or one not at the start nor after a space). A server
    that cannot go on from a begun reply answers afresh: a lone mark would open its answer,
    or one quoting a term ("GRUB"). The window streams the model's words as they come,
    then shows this; `docent ask` streams through ``LeadStream``, which waits for that
    mark (a terminal cannot put the mark back before the words)."""
    first = _FIRST_MARK.search(text)
    closes = first is not None and (
        first.group() == "”" or first.start() > 0 and not text[first.start() - 1].isspace()
    )
    if lead.endswith(QUOTE_MARK) and not closes:
        lead = lead[: -len(QUOTE_MARK)]
    return lead + text


_FIRST_MARK = re.compile(r"[\"“”]")
#: How much of a streamed answer waits for its first quotation mark (``LeadStream``):
#: about a passage's first half (160 let a copied passage go out without its opening
#: mark: QA, session 30); one that comes later is rare.
HOLD_CHARS = 600


class LeadStream:
    """A streamed answer handed on as ``with_lead`` will write it: its opening quotation
    mark, when the model closed the quotation its begun reply opened, before its words.
    The words are held until their first quotation mark says which, or ``HOLD_CHARS``
    came without one (`docent ask` printed "...stops simulation." with no opening mark:
    the lead was never streamed; QA, sessions 28 and 30). For a terminal: the window
    streams the words as they come (its count of words written follows each)."""

    def __init__(self, lead: str, emit: Callable[[str], None]) -> None:
        self.lead, self.emit = lead, emit
        self.held: list[str] | None = [] if lead else None  # None: handed on as it comes

    def __call__(self, token: str) -> None:
        if self.held is None:
            self.emit(token)
            return
        self.held.append(token)
        text = "".join(self.held)
        if _FIRST_MARK.search(text) or len(text) >= HOLD_CHARS:
            self.flush()

    def flush(self) -> None:
        """Hand on what is held (the stream ended, or was cut)."""
        if self.held is None:
            return
        text, self.held = "".join(self.held), None
        if text:
            self.emit(with_lead(self.lead, text))


def _shot(layout: Layout) -> list[dict[str, str]]:
    reminder = QUOTE_REMINDER if layout.quote else REMINDER
    user = f"Passages from the documents:\n\n{SHOT_PASSAGES}\n\nQuestion: {SHOT_QUESTION}"
    return [
        {"role": "user", "content": f"{user}\n\n{reminder}"},
        {"role": "assistant", "content": SHOT_ANSWER},
    ]


def _history(conv: Conversation, plan: ContextPlan, budget: int) -> list[dict[str, str]]:
    """The most recent turns (with their passages as markers) that fit ``budget``."""
    for turns in range(min(MAX_HISTORY_TURNS, len(conv.turns)), 0, -1):
        messages = conv.history_messages(turns)
        if sum(plan.tokens(m["content"]) + MESSAGE_OVERHEAD for m in messages) <= budget:
            return messages
    return []


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


def nearest_sentence(sentences: Sequence[str], query: str) -> int:
    """The index of the sentence sharing most content words with the query (the first
    on a tie)."""
    wanted = terms(query)
    return max(range(len(sentences)), key=lambda i: (len(terms(sentences[i]) & wanted), -i))


def best_excerpt(text: str, query: str, limit: int = EXCERPT_CHARS) -> str:
    """The part of a passage (whole sentences, about ``limit`` characters) nearest the query."""
    flat = _flat(text)
    if len(flat) <= limit:
        return flat
    sentences = split_sentences(flat) or [flat]
    best = nearest_sentence(sentences, query)
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


def extractive_text(
    query: str,
    quotes: Sequence[Citation],
    reason: str,
    model: str,
    answered: bool = False,
    too_long: bool = False,
    failure: LLMError | None = None,
) -> str:
    """Quoted passages, plainly labelled as not generated, with how to get a model; or,
    ``answered``: the model did answer, but with nothing usable (numbers, a loop); or,
    ``too_long``: the question left the model's context no room for a passage, so no
    model was asked (its answer would be its own knowledge, not the documents').
    ``failure``: the error that stopped the model, whose kind picks the advice."""
    if too_long:
        lead = f"**Not generated — the question leaves no room for a passage.** {reason}"
        advice = (
            "Shorten the question (a long text can be added to the library as a document "
            "instead), or raise llm_context_tokens in the settings if the model takes more."
        )
    elif answered:
        lead = f"**Not generated — {model}'s answer could not be used.** {reason}"
        advice = "A larger model answers more reliably than a small one."
    else:
        lead = f"**Not generated — no language model answered.** {reason}"
        advice = _model_advice(failure, model)
    parts = [
        lead.strip(),
        *([advice] if advice else []),
        "The passages that best match your question:" if quotes else "No passage matched.",
    ]
    return "\n\n".join(parts + quoted_passages(query, quotes))


def _model_advice(failure: LLMError | None, model: str) -> str:
    """How to get written answers, less what the failure's message says already: each
    error of llm.py names its own fix ("start it with `ollama serve`", "run `ollama pull
    x`", "set the Ollama host to …"). After a timeout or a server error Ollama is running,
    so "start Ollama" would be wrong advice (QA, session 26); after a cut connection it may
    not be ("Ollama is running: try again" under a banner saying it was not; QA-80): that
    error's message says to check."""
    pull = f"`ollama pull {model}`"
    if isinstance(failure, ModelNotFound | NotOllama | LLMConnectionCut):
        return ""
    if isinstance(failure, LLMUnavailable):  # its message says how to start it
        return f"Once it runs, make sure the model is installed ({pull})."
    if failure is not None:  # it answered, or took the request: a timeout, an error it sent
        return f"Ollama is running: try again, or check that the model is installed ({pull})."
    return f"To get written answers, start Ollama (`ollama serve`) and make sure the model is installed ({pull})."


def unsupported_text(words: str, query: str, quotes: Sequence[Citation]) -> str:
    """A generated answer no offered passage supports: said plainly first, the model's
    words as it wrote them, then the passages that best match, quoted with citations."""
    return "\n\n".join(
        [UNSUPPORTED_LEAD, words, UNSUPPORTED_QUOTES, *quoted_passages(query, quotes)]
    )


def quoted_passages(query: str, quotes: Sequence[Citation]) -> list[str]:
    """Each passage Docent lists as ``[n] file, p.N:`` and its part nearest the query,
    quoted; the header names the page the quote is on, as the chip's tooltip does
    ("pp.7-8, closest part on p.8")."""
    names = distinct_names(quotes)  # two notes.md: "archive/notes.md", "work/notes.md"
    return [f"[{c.n}] {names[c.path]}, {c.where}:\n> {best_excerpt(c.text, query)}" for c in quotes]


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
