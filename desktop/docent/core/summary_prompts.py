"""What a summary asks the model: the prompts of the map, retry and reduce calls, and the
rendering of section summaries into the text a combining call reads.

Every prompt puts the text first and the task last: small models follow an ask that comes
last, and a retry with another task shares the whole prefix, so a server that caches
prompts (Ollama, llama.cpp) does not read the section again.
"""

from __future__ import annotations

from collections.abc import Sequence

from docent.core import words
from docent.core.sectioning import PAGES, Places, Section
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
    "as short bullets. End each point with its {refs}, like {ref}.",
    "bullets": "Write the document's key points as 5 to 10 Markdown bullets ('- '), most "
    "important first, one sentence each, with {refs} like {ref}.",
}
#: The second try, for a model that failed the first: no system message, one plain ask.
SIMPLE_TASK = (
    "In {sentences} short sentences, say what this text is about. Name the people, places, "
    "dates and numbers it mentions."
)
Messages = list[dict[str, str]]
#: Between the text and the task in a prompt.
TASK_AFTER = "\n---\n\n"


class Prompts:
    """The prompts for one document (``name``) and one kind of summary; ``places``: how
    the document's pages are named (a text file's lines, a deck's slides)."""

    def __init__(self, name: str, kind: str, places: Places = PAGES) -> None:
        self.name = name
        self.kind = kind
        self.places = places

    @property
    def refs(self) -> str:
        """What a summary's references are called in a task: "page references"."""
        if self.places.lines_per_page:
            return "line references"
        return "references" if self.places.labels else "page references"

    def final_task(self, words: int | None = None) -> str:
        w = FINAL_WORDS[self.kind] if words is None else words
        return FINAL_TASK[self.kind].format(w=w, refs=self.refs, ref=self.places.example)

    def single(self, s: Section) -> Messages:
        """A document of one section: the final summary in one call."""
        return self._messages(self._intro(s, 1), self.final_task(), s.text)

    def map(self, s: Section, n: int, words: int) -> Messages:
        task = (
            f"Summarise these pages in at most {words} words: their topics, main points and key "
            f"facts, names or numbers, with {self.refs} like {self.places.example} for the "
            "main points."
        )
        return self._messages(self._intro(s, n), task, s.text)

    def simple(self, s: Section, n: int) -> Messages:
        """The first prompt with a simpler ask and the same prefix."""
        return self._messages(self._intro(s, n), SIMPLE_TASK.format(sentences=3), s.text)

    def combine(self, items: Sequence[tuple[Span, str]], covering: str, task: str) -> Messages:
        intro = (
            f'Below are summaries of consecutive parts of the document "{self.name}" '
            f"({covering}), in page order."
        )
        return messages(intro, task, render(items, self.places))

    def _intro(self, s: Section, n: int) -> str:
        if n == 1:
            return f'Here is the document "{self.name}" ({s.where}).'
        return f'Here are {s.where} of the document "{self.name}" (section {s.index} of {n}).'

    def _messages(self, intro: str, task: str, text: str) -> Messages:
        if self.places.lines_per_page:
            marks = ' "[lines N-M]" marks where those lines start.'
        elif self.places.labels:
            marks = f' "[{self.places.example[1:-1]}]" and the like mark where each part starts.'
        else:
            marks = ' "[page N]" marks where each page starts.'
        return messages(intro + marks, task, text)


def messages(intro: str, task: str, text: str) -> Messages:
    """The text, then the task (see the module's docstring)."""
    user = f"{intro}\n\n---\n{text}{TASK_AFTER}{task}"
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def instructions(prompt: Messages) -> str:
    """What ``prompt`` tells the model to do (the system message and the task), which a
    summary must not say back; not the intro naming the pages and the document, which a
    faithful summary may well open with ("Pages 4–7 of the document describe ...")."""
    system = " ".join(m["content"] for m in prompt if m["role"] == "system")
    user = " ".join(m["content"] for m in prompt if m["role"] == "user")
    return f"{system} {user.rpartition(TASK_AFTER)[2]}"


def render(items: Sequence[tuple[Span, str]], places: Places = PAGES) -> str:
    return "\n\n".join(f"[{places.span(span)}]\n{text}" for span, text in items)


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
