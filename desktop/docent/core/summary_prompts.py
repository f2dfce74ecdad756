"""What a summary asks the model: the prompts of the map, retry and reduce calls, and the
rendering of section summaries into the text a combining call reads.

Every prompt puts the text first and the task last: small models follow an ask that comes
last, and a retry with another task shares the whole prefix, so a server that caches
prompts (Ollama, llama.cpp) does not read the section again.
"""

from __future__ import annotations

from collections.abc import Sequence

from docent.core import words
from docent.core.sectioning import Section, pages_label
from docent.core.summary_parts import Span

#: Words of the final summary per type.
FINAL_WORDS = {"brief": 150, "detailed": 600, "bullets": 250}

SYSTEM = (
    "You summarise documents faithfully. Use only the text you are given and add no "
    "facts of your own. Write in the language of the text. No preamble."
)
FINAL_TASK = {
    "brief": "Write a brief summary: one paragraph of at most {w} words on what the document "
    "is about and its main points. Plain prose: no headings, no lists.",
    "detailed": "Write a detailed summary in Markdown of at most {w} words: a one-sentence "
    "overview, then a '## ' heading for each main part of the document with its key points "
    "as short bullets. End each point with its page reference, like (p. 12) or (pp. 12-14).",
    "bullets": "Write the document's key points as 5 to 10 Markdown bullets ('- '), most "
    "important first, one sentence each, with page references like (p. 12).",
}
#: The second try, for a model that failed the first: no system message, one plain ask.
SIMPLE_TASK = (
    "In {sentences} short sentences, say what this text is about. Name the people, places, "
    "dates and numbers it mentions."
)
Messages = list[dict[str, str]]


class Prompts:
    """The prompts for one document (``name``) and one kind of summary."""

    def __init__(self, name: str, kind: str) -> None:
        self.name = name
        self.kind = kind

    def single(self, s: Section) -> Messages:
        """A document of one section: the final summary in one call."""
        w = FINAL_WORDS[self.kind]
        return messages(self._intro(s, 1), FINAL_TASK[self.kind].format(w=w), s.text)

    def map(self, s: Section, n: int, words: int) -> Messages:
        task = (
            f"Summarise these pages in at most {words} words: their topics, main points and key "
            "facts, names or numbers, with page references like (p. 12) for the main points."
        )
        return messages(self._intro(s, n), task, s.text)

    def simple(self, s: Section, n: int) -> Messages:
        """The first prompt with a simpler ask and the same prefix."""
        return messages(self._intro(s, n), SIMPLE_TASK.format(sentences=3), s.text)

    def combine(self, items: Sequence[tuple[Span, str]], covering: str, task: str) -> Messages:
        intro = (
            f'Below are summaries of consecutive parts of the document "{self.name}" '
            f"({covering}), in page order."
        )
        return messages(intro, task, render(items))

    def _intro(self, s: Section, n: int) -> str:
        if n == 1:
            return f'Here is the document "{self.name}" ({pages_label(s.pages)}).'
        return (
            f'Here are {pages_label(s.pages)} of the document "{self.name}" '
            f"(section {s.index} of {n})."
        )


def messages(intro: str, task: str, text: str) -> Messages:
    """The text, then the task (see the module's docstring)."""
    marks = ' "[page N]" marks where each page starts.' if "[page " in text else ""
    user = f"{intro}{marks}\n\n---\n{text}\n---\n\n{task}"
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def render(items: Sequence[tuple[Span, str]]) -> str:
    return "\n\n".join(f"[{pages_label(span)}]\n{text}" for span, text in items)


def word_count(text: str) -> int:
    return words.count(text)


def shortened(group: Sequence[tuple[Span, str]], count: int) -> str:
    """A failed combine: each summary's opening words, so the next round still fits."""
    each = max(10, count // len(group))
    return "\n".join(" ".join(words.first(text, each).split()) for _, text in group)


def in_groups(items: list[tuple[Span, str]], limit: int) -> list[list[tuple[Span, str]]]:
    """Consecutive groups that fit ``limit`` words, at least two items each (progress)."""
    out: list[list[tuple[Span, str]]] = []
    current: list[tuple[Span, str]] = []
    for item in items:
        if len(current) >= 2 and word_count(render([*current, item])) > limit:
            out.append(current)
            current = []
        current.append(item)
    if current:
        out.append(current)
    return out
