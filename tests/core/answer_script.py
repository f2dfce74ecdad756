"""A scripted model for the stand-in Ollama: it reads Docent's prompts and answers from them.

Each request is recognised by its system message (answer, follow-up rewrite, rerank), so
one stub can serve a whole question. Answers quote the passage they cite, so the
faithfulness check has real support to find; ``extra`` adds sentences (e.g. an invented
one) and ``cite`` overrides the markers written.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from docent.core import llm_rerank
from docent.core.answering import Answer
from docent.core.config import Settings
from docent.core.engine import Engine
from docent.core.prompting import asked_message

MODEL = "stub-model:latest"
MEMORY_Q = "How is memory relocation and protection done in CTSS?"

PASSAGE = re.compile(r"^\[(\d+)\] (\S+) (pp?\.[\d-]+): (.*)$", re.M)


@dataclass(frozen=True)
class Offered:
    n: int
    file_name: str
    pages: str
    text: str


asked = asked_message  # the last user message: the request may end on the begun reply


def offered_in(messages: list[dict[str, Any]]) -> list[Offered]:
    """The passages listed in the last user message of an answer request."""
    user = asked(messages)
    return [Offered(int(n), f, p, t) for n, f, p, t in PASSAGE.findall(user)]


def first_sentence(text: str, min_words: int = 6) -> str:
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        if len(sentence.split()) >= min_words:
            return sentence.rstrip(".!?")
    return " ".join(text.split()[:20])


def kind(messages: list[dict[str, Any]]) -> str:
    system = messages[0]["content"] if messages and messages[0]["role"] == "system" else ""
    if asked(messages).endswith(llm_rerank.ASK):
        return "rerank"
    if system.startswith("Rewrite"):
        return "rewrite"
    return "answer"


@dataclass
class ScriptedModel:
    """``stub.responder = ScriptedModel(...)``; records what each request looked like."""

    #: Markers written after the quoted sentence; None: ``[1]`` (the best passage).
    cite: str | None = None
    #: Sentences appended to the answer (e.g. one that no passage supports).
    extra: list[str] = field(default_factory=list)
    #: Reply to a follow-up rewrite request (None: the last question, unchanged).
    rewrite: str | Callable[[str], str] | None = None
    #: Reply to an LLM rerank request (``llm_rerank``): the schema's JSON.
    rerank: str = '{"best": []}'
    #: Replace the whole answer text.
    answer: str | None = None
    seen: dict[str, list[list[dict[str, Any]]]] = field(default_factory=dict)

    def __call__(self, messages: list[dict[str, Any]], model: str) -> str:
        what = kind(messages)
        self.seen.setdefault(what, []).append(messages)
        if what == "rewrite":
            follow_up = re.search(r"Follow-up: (.*)", asked(messages))
            question = follow_up.group(1) if follow_up else ""
            if callable(self.rewrite):
                return self.rewrite(question)
            return self.rewrite if self.rewrite is not None else question
        if what == "rerank":
            return self.rerank
        if self.answer is not None:
            return self.answer
        # by number: [1] is the best passage, wherever the layout lists it
        passages = sorted(offered_in(messages), key=lambda p: p.n)
        if not passages:
            return "I could not find it in the documents."
        marks = self.cite if self.cite is not None else f"[{passages[0].n}]"
        text = f"{first_sentence(passages[0].text)} {marks}.".replace(" .", ".")
        return " ".join([text, *self.extra])


INVENTION = "The lunar rover carried twelve penguins to Jupiter in a basket."


class InventsFirst(ScriptedModel):
    """Invents its first answer, then quotes the best passage (as a small model may)."""

    def __call__(self, messages: list[dict[str, Any]], model: str) -> str:
        answers = len(self.seen.get("answer", []))
        self.answer = INVENTION if answers == 0 else None
        return super().__call__(messages, model)


class InventsThenCounts:
    """Invents its first answer, then counts "1) 2) 3) ..." (extractive on its own)."""

    def __init__(self) -> None:
        self.tries = 0

    def __call__(self, messages: list[dict[str, Any]], model: str) -> Iterator[str] | str:
        self.tries += 1
        return INVENTION if self.tries == 1 else (f"{i}) " for i in itertools.count(1))


def point_at(eng: Engine, host: str, **changes: object) -> Engine:
    """Give ``eng`` settings that reach the stand-in at ``host`` with short timeouts."""
    values: dict[str, object] = {
        "data_dir": eng.settings.data_dir,
        "extract_in_subprocess": False,
        "ollama_host": host,
        "ollama_model": MODEL,
        "llm_connect_timeout": 1.0,
        "llm_first_token_timeout": 5.0,
        "llm_total_timeout": 10.0,
    }
    values.update(changes)
    eng.settings = Settings.model_validate(values)
    return eng


def ask(eng: Engine, question: str = MEMORY_Q, **kw: object) -> tuple[Answer, list[str]]:
    tokens: list[str] = []
    answer = eng.ask(question, on_token=tokens.append, **kw)  # type: ignore[arg-type]
    return answer, tokens


@dataclass
class GoesOnFromTheOpening(ScriptedModel):
    """A model that goes on from the reply Docent began (``Passage [1] says: "``): it
    copies the best passage's first sentence, closes the quotation and adds a sentence of
    its own; ``echo``: the server sends the begun words back first (llama.cpp's does)."""

    echo: bool = False

    def __call__(self, messages: list[dict[str, Any]], model: str) -> str:
        what = kind(messages)
        if what != "answer":
            return super().__call__(messages, model)
        self.seen.setdefault(what, []).append(messages)
        best = min(offered_in(messages), key=lambda p: p.n)
        said = f'{first_sentence(best.text)}." That is how the book puts it.'
        return messages[-1]["content"] + said if self.echo else said
