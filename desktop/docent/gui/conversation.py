"""One question and its answer as the chat shows it, and the Markdown for it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docent.gui.markdown_view import linkify_citations

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|>~<-])")


@dataclass(slots=True)
class Turn:
    index: int
    question: str
    scope: list[str] = field(default_factory=list)
    #: the answer text: streamed tokens until the answer arrives, then the final text
    text: str = ""
    answer: Any = None
    mode: str = ""  # "generated" | "extractive" | "abstained" once answered
    citations: list[Any] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)
    invalid_citations: list[int] = field(default_factory=list)
    confidence: str = ""  # "high" | "medium" | "low"
    model: str = ""
    reason: str = ""
    stopped: bool = False
    error: str = ""

    def set_answer(self, answer: Any) -> None:
        self.answer = answer
        self.text = str(getattr(answer, "text", "") or self.text)
        self.mode = str(getattr(answer, "mode", "") or "generated")
        self.citations = list(getattr(answer, "citations", []) or [])
        self.unsupported = [str(s) for s in getattr(answer, "unsupported_sentences", []) or []]
        self.invalid_citations = list(getattr(answer, "invalid_citations", []) or [])
        self.confidence = str(getattr(answer, "confidence", "") or "")
        self.model = str(getattr(answer, "model", "") or "")
        self.reason = str(getattr(answer, "reason", "") or "")

    def citation(self, n: int) -> Any:
        for c in self.citations:
            if getattr(c, "n", None) == n:
                return c
        return None


def escape_markdown(text: str) -> str:
    """The user's words shown as typed, not as Markdown."""
    return _MD_SPECIAL.sub(r"\\\1", text)


def _footer(turn: Turn) -> str:
    notes: list[str] = []
    if turn.error:
        return f"**Could not answer:** {escape_markdown(turn.error)}"
    if turn.stopped:
        notes.append("Stopped.")
    if turn.mode == "generated":
        conf = f" · {turn.confidence} confidence" if turn.confidence else ""
        notes.append(f"Answered by {escape_markdown(turn.model or 'the model')}{conf}.")
    elif turn.mode == "extractive":
        notes.append("Quoted from your documents: no language model answered.")
    elif turn.mode == "abstained":
        notes.append("Not found in your documents: the sources listed are only the closest.")
    if turn.invalid_citations:
        nums = ", ".join(str(n) for n in turn.invalid_citations)
        notes.append(f"Dropped citation {nums}: the model cited passages it was not given.")
    if turn.unsupported:
        n = len(turn.unsupported)
        several = n > 1
        notes.append(
            f"⚠ {n} sentence{'s are' if several else ' is'} not clearly supported by "
            f"{'their' if several else 'its'} citation (underlined)."
        )
    # *italic*: with Qt's GitHub dialect, _text_ is underlined (it reads as a link)
    return " ".join(f"*{escape_markdown(note)}*" for note in notes)


def turn_markdown(turn: Turn, *, streaming: bool = False) -> str:
    question = "\n".join(f"> {escape_markdown(line)}" for line in turn.question.splitlines())
    scope = ""
    if turn.scope:
        scope = " *(in " + escape_markdown(", ".join(Path(p).name for p in turn.scope)) + ")*"
    parts = [f"**You**{scope}\n\n{question or '>'}"]
    body = turn.text.strip()
    if body:
        parts.append(linkify_citations(body, turn.index))
    elif streaming and not turn.answer and not turn.error and not turn.stopped:
        parts.append("*Searching your documents…*")
    footer = _footer(turn)
    if footer:
        parts.append(footer)
    return "\n\n".join(parts)


def conversation_markdown(turns: list[Turn]) -> str:
    """The chat as a Markdown file: questions, answers, and where each citation points."""
    out = ["# Docent conversation\n"]
    for turn in turns:
        out.append(f"## {turn.question}\n\n{turn.text.strip()}\n")
        for c in turn.citations:
            page = getattr(c, "page", "")
            out.append(f"- [{getattr(c, 'n', '?')}] {getattr(c, 'file_name', '')}, p. {page}")
        out.append("")
    return "\n".join(out)
