"""How the chat shows a turn of the conversation (core's ``Turn``): safe Markdown with chips.

The conversation itself, and its export, live in ``core/conversation.py``; this module
only draws it.
"""

from __future__ import annotations

import re
from pathlib import Path

from docent.core.api import Turn, shown
from docent.gui.markdown_view import linkify_citations

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|>~<-])")
#: A citation marker after escape_markdown: "\\[12\\]".
_ESCAPED_CITE = re.compile(r"\\\[(\d{1,3})\\\]")


def escape_markdown(text: str) -> str:
    """The user's words shown as typed, not as Markdown."""
    return _MD_SPECIAL.sub(r"\\\1", text)


def quoted_markdown(text: str) -> str:
    """An extractive or abstained answer: document text quoted as text, not as Markdown
    (a passage's ``[link](https://...)`` or image must not become live). Its quote marks
    ("> ") and citation markers ("[1]") keep their meaning."""
    lines = []
    for line in text.split("\n"):
        quote = line.startswith("> ")
        body = escape_markdown(line[2:] if quote else line)
        lines.append(("> " if quote else "") + _ESCAPED_CITE.sub(r"[\1]", body))
    return "\n".join(lines)


def _footer(turn: Turn) -> str:
    if turn.error:
        return f"**Could not answer:** {escape_markdown(turn.error)}"
    notes: list[str] = []
    if turn.stopped:
        notes.append("Stopped.")
    answer = turn.answer
    if answer is None:
        return " ".join(f"*{escape_markdown(note)}*" for note in notes)
    if answer.mode == "generated":
        conf = f" · {answer.confidence} confidence" if answer.confidence else ""
        notes.append(f"Answered by {answer.model or 'the model'}{conf}.")
    elif answer.mode == "extractive":
        notes.append("Quoted from your documents: no language model answered.")
    elif answer.mode == "abstained":
        notes.append("Not found in your documents: the sources listed are only the closest.")
    if answer.invalid_citations:
        nums = ", ".join(str(n) for n in answer.invalid_citations)
        notes.append(f"Dropped citation {nums}: the model cited passages it was not given.")
    matched = [c.n for c in answer.citations if c.source == "matched"]
    if answer.mode == "generated" and matched:
        nums = ", ".join(f"[{n}]" for n in matched)
        one = len(matched) == 1
        notes.append(
            f"Docent matched {nums} to the {'sentence it supports' if one else 'sentences they support'} "
            f"(outlined): the model did not cite {'it' if one else 'them'}."
        )
    if answer.misattributed:
        notes.append(
            "; ".join(
                f"Citation [{', '.join(map(str, cited))}] does not support its sentence; "
                f"[{better}] does"
                for _, cited, better in answer.misattributed
            )
            + "."
        )
    if answer.unsupported_sentences:
        n = len(answer.unsupported_sentences)
        several = n > 1
        notes.append(
            f"⚠ {n} sentence{'s are' if several else ' is'} not clearly supported by "
            f"{'their' if several else 'its'} citation (underlined)."
        )
    # *italic*: with Qt's GitHub dialect, _text_ is underlined (it reads as a link)
    return " ".join(f"*{escape_markdown(note)}*" for note in notes)


def turn_markdown(turn: Turn, *, streamed: str = "", streaming: bool = False) -> str:
    """``turn`` as the chat shows it; ``streamed``: the tokens so far of a turn being
    answered (``streaming``), shown until the answer replaces them."""
    question = "\n".join(f"> {escape_markdown(line)}" for line in turn.question.splitlines())
    scope = ""
    if turn.scope:
        names = ", ".join(shown(Path(p).name) for p in turn.scope)
        scope = " *(in " + escape_markdown(names) + ")*"
    parts = [f"**You**{scope}\n\n{question or '>'}"]
    body = (turn.text or streamed).strip()
    if body and turn.answer is not None and turn.answer.mode in ("extractive", "abstained"):
        body = quoted_markdown(body)
    if body:
        parts.append(linkify_citations(body, turn.number))
    elif streaming and turn.answer is None and not turn.error and not turn.stopped:
        parts.append("*Searching your documents…*")
    footer = _footer(turn)
    if footer:
        parts.append(footer)
    return "\n\n".join(parts)
