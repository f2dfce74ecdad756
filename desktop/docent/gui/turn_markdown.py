"""How the chat shows a turn of the conversation (core's ``Turn``): safe Markdown with chips.

The conversation itself, and its export, live in ``core/conversation.py``; this module
only draws it.
"""

from __future__ import annotations

import re
from pathlib import Path

from docent.core.api import (
    Turn,
    distinct_names,
    notes,
    shown,
)
from docent.gui.markdown_view import cite_url, linkify_citations

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|>~<&-])")
#: A citation marker after escape_markdown: "\\[12\\]".
_ESCAPED_CITE = re.compile(r"\\\[(\d{1,3})\\\]")


def escape_markdown(text: str) -> str:
    """The user's words shown as typed, not as Markdown."""
    return _MD_SPECIAL.sub(r"\\\1", text)


#: After escape_markdown, Docent's own bold lead and commands: "\*\*...\*\*", "\`...\`".
_ESCAPED_BOLD = re.compile(r"\\\*\\\*(.+?)\\\*\\\*")
_ESCAPED_CODE = re.compile(r"\\`(.+?)\\`")
#: A passage's heading line: "[1] file name, p.3:" (the name is the user's: kept escaped).
_CITE_HEAD = re.compile(r"^\[\d{1,3}\] ")


def _own_words(body: str) -> str:
    """Bold and code spans back in Docent's own lines: both are inert (no link, no image)."""
    body = _ESCAPED_BOLD.sub(r"**\1**", body)
    return _ESCAPED_CODE.sub(lambda m: "`" + re.sub(r"\\(.)", r"\1", m.group(1)) + "`", body)


def quoted_markdown(text: str) -> str:
    """An extractive or abstained answer: document text quoted as text, not as Markdown
    (a passage's ``[link](https://...)`` or image must not become live). Its quote marks
    ("> ") and Docent's citation markers ("[1]", outside the quotes) keep their meaning,
    and Docent's own lines (the lead, how to get a model) their bold and code. A
    document's own brackets inside a quote (R's ``x[6]``) stay text, never a chip."""
    lines = []
    for line in text.split("\n"):
        quote = line.startswith("> ")
        body = escape_markdown(line[2:] if quote else line)
        if not quote:
            body = _ESCAPED_CITE.sub(r"[\1]", body)
        if not quote and not _CITE_HEAD.match(line):
            body = _own_words(body)
        lines.append(("> " if quote else "") + body)
    return "\n".join(lines)


def _footer(turn: Turn) -> str:
    """What the answer is: finished and by which model, or marked as stopped, cut short
    or failed (a cut answer must not look finished), with its checks (core's ``notes``:
    the words ``docent ask`` and the export use)."""
    if turn.error:
        return f"**Could not answer:** {escape_markdown(turn.error)}"
    answer = turn.answer
    if answer is None:
        return "*■ Stopped by you before any answer came.*" if turn.stopped else ""
    said = notes(answer, stopped=turn.stopped)
    return " ".join(f"*{escape_markdown(note)}*" for note in said)


#: A fence line as CommonMark reads one: backticks with no backtick after them on the line
#: ("```ls -la``` lists ..." is inline code), or tildes; and what follows the mark.
_FENCE = re.compile(r"^ {0,3}(`{3,}(?=[^`\n]*$)|~{3,})(.*)$", re.M)


def close_fences(body: str) -> str:
    """``body`` with a code block it leaves open closed: an answer stopped or cut inside
    one drew its footer, and every later turn, as code (review)."""
    opened = ""
    for m in _FENCE.finditer(body):
        mark, rest = m.group(1), m.group(2)
        if not opened:
            opened = mark
        elif mark[0] == opened[0] and len(mark) >= len(opened) and not rest.strip():
            opened = ""  # only a bare fence closes one
    return f"{body}\n{opened}" if opened else body


def turn_markdown(
    turn: Turn, *, streamed: str = "", streaming: bool = False, again: bool = False
) -> str:
    """``turn`` as the chat shows it; ``streamed``: the tokens so far of a turn being
    answered (``streaming``), shown until the answer replaces them; ``again``: the
    question is being asked again, below its earlier answer (not repeated)."""
    if again:
        parts = ["**Asking again** *(the answer above stays until this one is complete)*"]
    else:
        question = "\n".join(f"> {escape_markdown(line)}" for line in turn.question.splitlines())
        scope = ""
        if turn.scope:
            names = ", ".join(shown(Path(p).name) for p in turn.scope)
            scope = " *(in " + escape_markdown(names) + ")*"
        parts = [f"**You**{scope}\n\n{question or '>'}"]
    body = (turn.text or streamed).strip()
    answer = turn.answer
    if body and answer is not None and answer.mode in ("extractive", "abstained"):
        body = quoted_markdown(body)
    elif body and answer is not None and answer.unsupported_answer and turn.text:
        # the model's words as any answer's; the passages beneath, as document text
        lead, words, quotes = answer.parts()
        body = "\n\n".join(p for p in (lead, words, quoted_markdown(quotes)) if p)
    body = close_fences(body)
    # Plain [n]: asked again, its chips would name the earlier answer's passages; while
    # tokens stream in, the answer's citations are not checked yet and a click opened
    # nothing (review h20): chips once the answer replaces them.
    if body and (again or not turn.text):
        parts.append(body)
    elif body:
        parts.append(linkify_citations(body, turn.number))
    elif streaming and turn.answer is None and not turn.error and not turn.stopped:
        parts.append("*…*")
    footer = _footer(turn)
    if footer:
        parts.append(footer)
    return "\n\n".join(parts)


def matched_chips(turns: list[Turn]) -> set[str]:
    """The chips of citations Docent matched (the model did not cite them): drawn apart."""
    return {
        cite_url(t.number, c.n)
        for t in turns
        if t.answer
        for c in t.answer.citations
        if c.source == "matched"
    }


def chip_tips(turns: list[Turn]) -> dict[str, str]:
    """Each chip's tooltip: the file and the place it cites (a page, a slide, a sheet's
    rows, a section), as the sources pane names them."""
    tips: dict[str, str] = {}
    for t in turns:
        cited = t.answer.citations if t.answer else []
        names = distinct_names(cited)
        for c in cited:
            tips[cite_url(t.number, c.n)] = f"[{c.n}] {shown(names[c.path])}, {c.where}"
    return tips
