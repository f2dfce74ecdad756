"""The model side of a summary: one call per section (map), then combining calls (reduce).

Every call gets ``summary_timeout_per_call``, cut to what is left of
``summary_timeout_total``; ``cancel`` is honoured between calls and, through
OllamaClient, within 50 ms during one. A failed call is retried once. A section that
still fails is reported and the summary names the pages it could not cover; a failed
synthesis falls back to the section summaries themselves. LLMUnavailable and
ModelNotFound are not retried: the caller turns them into an extractive summary.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from docent.core.config import Settings
from docent.core.errors import (
    Cancelled,
    LLMError,
    LLMStreamError,
    LLMTimeout,
    LLMUnavailable,
    ModelNotFound,
)
from docent.core.llm import OllamaClient
from docent.core.sectioning import Section, pages_label

#: Reduce rounds at most; each round at least halves the number of summaries.
MAX_ROUNDS = 6
#: Words asked of each section summary, before scaling to the number of sections.
MAP_WORDS = (60, 250)
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
Span = tuple[int, int]


@dataclass(frozen=True, slots=True)
class SummaryProgress:
    """``phase``: "section" (``step`` of ``total`` sections), "retry", "synthesis"
    (``step`` of ``total`` calls in reduce ``round``), "extractive", "done"."""

    phase: str
    step: int
    total: int
    pages: Span
    message: str
    round: int = 0


SummaryProgressCallback = Callable[[SummaryProgress], None]


@dataclass(slots=True)
class Reduced:
    summary: str
    sections: list[tuple[int, Span, str]] = field(default_factory=list)
    failed: list[tuple[int, Span, str]] = field(default_factory=list)


class OutOfTime(LLMTimeout):
    """``summary_timeout_total`` ran out before this call. Fix: raise it."""


class MapReduce:
    def __init__(
        self,
        settings: Settings,
        model: str,
        name: str,
        kind: str,
        report: SummaryProgressCallback,
        cancel: threading.Event | None,
    ) -> None:
        self.settings = settings
        self.model = model
        self.name = name
        self.kind = kind
        self.report = report
        self.cancel = cancel
        self.limit = settings.max_words_per_section
        self.deadline = time.monotonic() + settings.summary_timeout_total

    def run(self, sections: Sequence[Section], page_count: int) -> Reduced:
        n = len(sections)
        words = max(MAP_WORDS[0], min(MAP_WORDS[1], self.limit // n))
        out = Reduced("")
        last: LLMError | None = None
        for s in sections:
            self._progress("section", s.index, n, s.pages, f"summarising section {s.index} of {n}")
            messages = self._single(s) if n == 1 else self._map(s, n, words)
            try:
                text = self._attempt(messages, self._budget(words), s.index, n, s.pages)
            except (LLMUnavailable, ModelNotFound):
                raise
            except LLMError as exc:
                out.failed.append((s.index, s.pages, str(exc)))
                last = exc
                continue
            out.sections.append((s.index, s.pages, text))
        if not out.sections:
            assert last is not None
            raise type(last)(f"No part of {self.name} could be summarised: {last}")
        if n == 1:
            out.summary = out.sections[0][2]
            return out
        gaps = _uncovered(sections, {i for i, _, _ in out.failed})
        try:
            out.summary = self._reduce([(p, t) for _, p, t in out.sections], gaps, page_count)
        except LLMError as exc:
            out.failed.append((0, (1, page_count), f"synthesis: {exc}"))
            out.summary = _joined(out.sections, exc)
        if gaps:
            out.summary += f"\n\n_Not covered: {gaps} (the model failed on them)._"
        return out

    # Reduce --------------------------------------------------------------------------

    def _reduce(self, items: list[tuple[Span, str]], gaps: str, page_count: int) -> str:
        rnd = 0
        while len(items) > 1 and _words(_render(items)) > self.limit and rnd < MAX_ROUNDS:
            rnd += 1
            groups = _groups(items, self.limit)
            target = max(MAP_WORDS[0], min(400, self.limit // len(groups)))
            combined: list[tuple[Span, str]] = []
            for j, group in enumerate(groups, 1):
                span = (group[0][0][0], group[-1][0][1])
                if len(group) == 1:
                    combined.append(group[0])
                    continue
                msg = f"combining section summaries (round {rnd}: {j} of {len(groups)})"
                self._progress("synthesis", j, len(groups), span, msg, rnd)
                task = (
                    f"Combine them into one summary of at most {target} words that keeps the "
                    "main points and their page references like (p. 12)."
                )
                prompt = self._combine_prompt(group, pages_label(span), task)
                combined.append((span, self._attempt(prompt, self._budget(target), j, 0, span)))
            items = combined
        span = (1, page_count)
        self._progress("synthesis", 1, 1, span, "writing the summary", rnd + 1)
        final_words = FINAL_WORDS[self.kind]
        task = FINAL_TASK[self.kind].format(w=final_words)
        if gaps:
            task += f" There is no summary of {gaps}: say in one sentence that it is not covered."
        prompt = self._combine_prompt(items, f"{page_count} pages", task)
        return self._attempt(prompt, self._budget(final_words), 1, 1, span)

    # Prompts -------------------------------------------------------------------------

    def _single(self, s: Section) -> list[dict[str, str]]:
        w = FINAL_WORDS[self.kind]
        intro = f'Here is the document "{self.name}" ({pages_label(s.pages)}).'
        return self._messages(intro, FINAL_TASK[self.kind].format(w=w), s.text)

    def _map(self, s: Section, n: int, words: int) -> list[dict[str, str]]:
        intro = f'Here are {pages_label(s.pages)} of the document "{self.name}" (section {s.index} of {n}).'
        task = (
            f"Summarise these pages in at most {words} words: their topics, main points and key "
            "facts, names or numbers, with page references like (p. 12) for the main points."
        )
        return self._messages(intro, task, s.text)

    def _combine_prompt(
        self, items: Sequence[tuple[Span, str]], covering: str, task: str
    ) -> list[dict[str, str]]:
        intro = (
            f'Below are summaries of consecutive parts of the document "{self.name}" '
            f"({covering}), in page order."
        )
        return self._messages(intro, task, _render(items))

    def _messages(self, intro: str, task: str, text: str) -> list[dict[str, str]]:
        marks = ' "[page N]" marks where each page starts.' if "[page " in text else ""
        user = f"{intro}{marks}\n\n{task}\n\n---\n{text}\n---"
        return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]

    # Calls ---------------------------------------------------------------------------

    def _attempt(
        self, messages: list[dict[str, str]], budget: int, step: int, total: int, pages: Span
    ) -> str:
        try:
            return self._call(messages, budget, pages)
        except (LLMUnavailable, ModelNotFound, OutOfTime):
            raise
        except LLMError as exc:
            self._progress("retry", step, total, pages, f"retrying after: {exc}")
            return self._call(messages, budget, pages)

    def _call(self, messages: list[dict[str, str]], budget: int, pages: Span) -> str:
        if self.cancel is not None and self.cancel.is_set():
            raise Cancelled("Stopped: the summary was cancelled.")
        per_call = self.settings.summary_timeout_per_call
        remaining = self.deadline - time.monotonic()
        where = f"on {pages_label(pages)}"
        if remaining <= 0:
            raise OutOfTime(
                f"Not reached {where}: the summary ran out of time "
                f"(summary_timeout_total = {self.settings.summary_timeout_total:g} s)."
            )
        limit = min(per_call, remaining)
        s = self.settings
        client = OllamaClient(
            s.effective_ollama_host(), self.model, s.llm_connect_timeout, limit, limit
        )
        options = {"num_ctx": s.llm_context_tokens, "num_predict": budget, "temperature": 0.2}
        try:
            text = client.chat(messages, cancel=self.cancel, options=options)
        except LLMTimeout as exc:
            which = "summary_timeout_per_call" if limit == per_call else "summary_timeout_total"
            raise LLMTimeout(
                f"The model did not finish {where} within {limit:g} s ({which})."
            ) from exc
        finally:
            client.close()
        if not text.strip():
            raise LLMStreamError(f"The model returned nothing {where}.")
        return text.strip()

    def _budget(self, words: int) -> int:
        return int(words * 2) + 64  # tokens: ~1.3 per English word, with room for Markdown

    def _progress(
        self, phase: str, step: int, total: int, pages: Span, msg: str, rnd: int = 0
    ) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise Cancelled("Stopped: the summary was cancelled.")
        self.report(
            SummaryProgress(phase, step, total, pages, f"{msg} ({pages_label(pages)})", rnd)
        )


def _render(items: Sequence[tuple[Span, str]]) -> str:
    return "\n\n".join(f"[{pages_label(span)}]\n{text}" for span, text in items)


def _words(text: str) -> int:
    return len(text.split())


def _groups(items: list[tuple[Span, str]], limit: int) -> list[list[tuple[Span, str]]]:
    """Consecutive groups that fit ``limit`` words, at least two items each (progress)."""
    groups: list[list[tuple[Span, str]]] = []
    current: list[tuple[Span, str]] = []
    for item in items:
        if len(current) >= 2 and _words(_render([*current, item])) > limit:
            groups.append(current)
            current = []
        current.append(item)
    if current:
        groups.append(current)
    return groups


def _uncovered(sections: Sequence[Section], failed: set[int]) -> str:
    """The pages new in failed sections, as "pages 4–6, page 9" ("" when none).

    A page the next section repeats as its overlap still counts: the overlap is only the
    end of it.
    """
    pages = sorted({p.page for s in sections if s.index in failed for p in s.new_pieces})
    runs: list[Span] = []
    for page in pages:
        if runs and page == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], page)
        else:
            runs.append((page, page))
    return ", ".join(pages_label(r) for r in runs)


def _joined(sections: Sequence[tuple[int, Span, str]], exc: LLMError) -> str:
    parts = [f"**{pages_label(p).capitalize()}.** {t}" for _, p, t in sections]
    note = f"_Combining the section summaries failed ({exc}); here they are in page order._"
    return "\n\n".join([note, *parts])
