"""The model side of a summary: one call per section (map), then combining calls (reduce).

Every call goes through OllamaClient, so the loop and runaway guards (guards.py) watch
it: a reply cut for looping keeps the text before the loop. Each section summary then
passes the quality gate (summary_quality.py: no repeated line, not mostly the document's
name, content words from the section); one that fails it, or whose call fails, is asked
again with a simpler prompt, and if that fails too the section's most central sentences
stand in for it (``extract``), marked "extracted". The final summary ends with how many
sections came from the model and how many were extracted.

Every call gets ``summary_timeout_per_call``, cut to what is left of
``summary_timeout_total``; ``cancel`` is honoured between calls and, through
OllamaClient, within 50 ms during one. The calls are timed (summary_budget.Clock) so
progress says how long is left. LLMUnavailable and ModelNotFound are not retried: the
caller turns them into an extractive summary.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from docent.core.config import Settings
from docent.core.errors import (
    Cancelled,
    LLMError,
    LLMStreamError,
    LLMTimeout,
    LLMUnavailable,
    ModelNotFound,
)
from docent.core.guards import OutputCut, guard_for
from docent.core.llm import OllamaClient
from docent.core.sectioning import PAGES, Section
from docent.core.summary_budget import (
    COMBINE_WORDS,
    MAP_WORDS,
    Clock,
    describe,
    map_words,
    reduce_calls,
    reply_tokens,
    section_words,
)
from docent.core.summary_parts import (
    Extract,
    FailedSection,
    Reduced,
    SectionSummary,
    Span,
    SummaryProgress,
    SummaryProgressCallback,
    as_bullets,
    count_note,
    joined,
    uncovered,
    without_false_labels,
)
from docent.core.summary_prompts import (
    FINAL_WORDS,
    SIMPLE_TASK,
    Messages,
    Prompts,
    in_groups,
    instructions,
    render,
    shortened,
    word_count,
)
from docent.core.summary_quality import rejection

#: Reduce rounds at most; each round at least halves the number of summaries.
MAX_ROUNDS = 6


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
        *,
        limit: int,
        extract: Extract | None = None,
    ) -> None:
        self.settings = settings
        self.model = model
        self.name = name
        self.kind = kind
        self.places = PAGES
        self.prompts = Prompts(name, kind)
        self.report = report
        self.cancel = cancel
        self.limit = limit
        self.extract = extract
        self.deadline = time.monotonic() + settings.summary_timeout_total
        self.clock = Clock(0.0)
        self.done = 0
        self.total = 0
        self.calls_left = 0

    def run(self, sections: Sequence[Section], page_count: int) -> Reduced:
        n = self.total = len(sections)
        if sections:  # the document's own names for its pages (a text file's lines)
            self.places = sections[0].places
            self.prompts = Prompts(self.name, self.kind, self.places)
        self.clock = Clock(self.settings.summary_seconds_per_page * page_count)
        words = map_words(self.limit, n)
        self.calls_left = n + reduce_calls(n, words, self.limit)
        out = Reduced("")
        for s in sections:
            self._progress("section", s.index, n, s.pages, f"summarising section {s.index} of {n}")
            try:
                part = self._section(s, n, words, out)
            except (LLMUnavailable, ModelNotFound) as exc:
                if not out.sections or self.extract is None:
                    raise  # nothing from the model: the caller's extractive summary
                return self._model_gone(sections, s.index, out, exc)
            except Cancelled:
                raise
            except LLMError as exc:
                out.failed.append(FailedSection(s.index, s.pages, str(exc), s.where))
                continue
            finally:
                self.calls_left -= 1
            out.sections.append(part)
            self.done += 1
            got = [p.summary for p in out.sections if p.source == "model"]
            mean = sum(word_count(t) for t in got) // len(got) if got else words
            self.calls_left = (n - s.index) + reduce_calls(n, mean, self.limit)
            if self.clock.check(self.calls_left):
                words = MAP_WORDS[0]  # the reply is most of a small model's time
            done = f"section {s.index} of {n} summarised ({part.source})"
            self._progress("section_done", s.index, n, s.pages, done, finished=part)
        out.calls = len(self.clock.durations)
        if not out.sections:
            raise LLMStreamError(
                f"No part of {self.name} could be summarised: {out.failed[-1].error}"
            )
        if n == 1:
            out.summary = out.sections[0].summary
            if out.sections[0].source == "extracted":
                out.summary += "\n\n" + count_note(out.sections, n, places=self.places)
            elif self.kind == "bullets":
                out.summary = as_bullets(out.summary)
            return out
        gaps = uncovered(sections, {f.section for f in out.failed})
        whole = (1, page_count)
        try:
            out.summary = self._reduce(
                [(p.pages, p.summary) for p in out.sections],
                gaps,
                page_count,
                " ".join(s.text for s in sections),
            )
            out.summary = without_false_labels(out.summary, page_count)
            if self.kind == "bullets":
                out.summary = as_bullets(out.summary)
        except (LLMUnavailable, ModelNotFound, Cancelled):
            raise
        except LLMError as exc:
            out.failed.append(FailedSection(0, whole, f"synthesis: {exc}", self.places.span(whole)))
            out.summary = joined(out.sections, str(exc), places=self.places)
        if gaps:
            out.summary += f"\n\n_Not covered: {gaps} (the model failed on them)._"
        out.summary += "\n\n" + count_note(out.sections, n, places=self.places)
        out.calls = len(self.clock.durations)
        return out

    def _model_gone(
        self, sections: Sequence[Section], at: int, out: Reduced, exc: LLMError
    ) -> Reduced:
        """The model stopped answering at section ``at``: the sections it summarised are
        kept (they were thrown away for an extractive summary of the whole), the rest
        extracted; not cached, so a later try asks the model again."""
        assert self.extract is not None
        n = len(sections)
        for s in sections[at - 1 :]:
            extracted = self.extract(s)
            if extracted:
                part = SectionSummary(s.index, s.pages, extracted, "extracted", where=s.where)
                out.sections.append(part)
            else:
                out.failed.append(FailedSection(s.index, s.pages, str(exc), s.where))
        out.transient = True
        what = f"{self.model} stopped answering after section {at - 1} of {n}"
        out.summary = joined(out.sections, str(exc), what, self.places)
        why = f"{self.model} stopped answering"
        out.summary += "\n\n" + count_note(out.sections, n, why, self.places)
        out.calls = len(self.clock.durations)
        return out

    def _where(self, pages: Span) -> str:
        return f"on {self.places.span(pages)}"

    # Map -----------------------------------------------------------------------------

    def _section(self, s: Section, n: int, words: int, out: Reduced) -> SectionSummary:
        """The model's summary if it passes the gate, on the first or the simpler prompt;
        else the section's extracted sentences, marked."""
        first = self.prompts.single(s) if n == 1 else self.prompts.map(s, n, words)
        if n == 1:  # the final summary in one call, with its reply budget (sized for it)
            words = FINAL_WORDS[self.kind]
        why, failed_call = "", False
        for attempt, messages in enumerate((first, self.prompts.simple(s, n))):
            if attempt:
                msg = f"retrying section {s.index} with a simpler prompt: {why}"
                self._progress("retry", s.index, n, s.pages, msg)
            try:
                text = self._call(messages, reply_tokens(words), s.pages)
            except OutOfTime as exc:
                why, failed_call = str(exc), True
                break  # no time for a retry; extracting costs no model call
            except (LLMUnavailable, ModelNotFound, Cancelled):
                raise
            except LLMError as exc:
                why, failed_call = str(exc), True
                continue
            why, failed_call = rejection(text, s.text, self.name, instructions(messages)), False
            if not why:
                return SectionSummary(s.index, s.pages, text, where=s.where)
        if self.extract is None:
            raise LLMStreamError(f"The model's summary {self._where(s.pages)} was unusable: {why}.")
        extracted = self.extract(s)
        if not extracted:
            raise LLMStreamError(
                f"The model's summary {self._where(s.pages)} was unusable ({why}) and it has no "
                "sentence to extract."
            )
        out.transient = out.transient or failed_call
        return SectionSummary(s.index, s.pages, extracted, "extracted", why, s.where)

    # Reduce --------------------------------------------------------------------------

    def _reduce(self, items: list[tuple[Span, str]], gaps: str, page_count: int, text: str) -> str:
        """The summary of the section summaries ``items``, combined in rounds until they
        fit; the last one is checked against the document's ``text``, not only against
        the summaries it combines: one that invents on top of them ("the 1917 incident
        in the harbour of St. George's", smollm2:135m) shares words with them and passed."""
        rnd = 0
        final_words = FINAL_WORDS[self.kind]
        final_limit = section_words(self.settings, final_words)  # what the last call reads
        combine_limit = section_words(self.settings, COMBINE_WORDS)
        while (
            len(items) > 1
            and word_count(render(items, self.places)) > final_limit
            and rnd < MAX_ROUNDS
        ):
            rnd += 1
            groups = in_groups(items, combine_limit)
            target = max(MAP_WORDS[0], min(COMBINE_WORDS, final_limit // len(groups)))
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
                    f"main points and their {self.prompts.refs} like {self.places.example}."
                )
                prompt = self.prompts.combine(group, self.places.span(span), task)
                merged = self._gated(prompt, target, span, render(group, self.places))
                combined.append((span, merged or shortened(group, target)))
                self.calls_left -= 1
            items = combined
        span = (1, page_count)
        self._progress("synthesis", 1, 1, span, "writing the summary", rnd + 1)
        task = self.prompts.final_task(final_words)
        if gaps:
            task += f" There is no summary of {gaps}: say in one sentence that it is not covered."
        covering = self.places.span(span) if self.places.lines_per_page else f"{page_count} pages"
        prompt = self.prompts.combine(items, covering, task)
        final = self._gated(prompt, final_words, span, render(items, self.places), text)
        if not final:
            simple = self.prompts.combine(items, covering, SIMPLE_TASK.format(sentences=5))
            self._progress("retry", 1, 1, span, "retrying the summary with a simpler prompt")
            final = self._gated(simple, final_words, span, render(items, self.places), text)
        if not final:
            raise LLMStreamError("the model's combined summary was unusable")
        return final

    def _gated(
        self, messages: Messages, words: int, span: Span, source: str, text: str = ""
    ) -> str:
        """The reply if it passes the gate against ``source`` (and the document's
        ``text``, when given), "" if it does not (or the call failed)."""
        try:
            reply = self._call(messages, reply_tokens(words), span)
        except (LLMUnavailable, ModelNotFound, Cancelled, OutOfTime):
            raise
        except LLMError:
            return ""
        if rejection(reply, source, self.name, instructions(messages)):
            return ""
        return "" if text and rejection(reply, text, self.name) else reply

    # Calls ---------------------------------------------------------------------------

    def _call(self, messages: Messages, budget: int, pages: Span) -> str:
        """The reply; a degenerate stream cut by the guards gives the text before the cut."""
        if self.cancel is not None and self.cancel.is_set():
            raise Cancelled("Stopped: the summary was cancelled.")
        per_call = self.settings.summary_timeout_per_call
        remaining = self.deadline - time.monotonic()
        where = self._where(pages)
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
        start = time.monotonic()
        try:
            text = client.chat(
                messages,
                cancel=self.cancel,
                options=options,
                guard=guard_for(options, what=f"summary {where}"),
            )
        except OutputCut as cut:
            text = cut.cut.kept  # what came before the loop; rejection() judges it
        except LLMTimeout as exc:
            which = "summary_timeout_per_call" if limit == per_call else "summary_timeout_total"
            raise LLMTimeout(
                f"The model did not finish {where} within {limit:g} s ({which})."
            ) from exc
        finally:
            client.close()
            self.clock.record(time.monotonic() - start)
        return text.strip()

    def _progress(
        self,
        phase: str,
        step: int,
        total: int,
        pages: Span,
        msg: str,
        rnd: int = 0,
        *,
        finished: SectionSummary | None = None,
    ) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise Cancelled("Stopped: the summary was cancelled.")
        left = self.clock.seconds_left(self.calls_left)
        when = describe(left)
        where = "" if self.places == PAGES else self.places.span(pages)
        text = f"{msg} ({where or self.places.span(pages)})" + (f", {when}" if when else "")
        self.report(
            SummaryProgress(
                phase,
                step,
                total,
                pages,
                text,
                rnd,
                sections_done=self.done,
                sections_total=self.total,
                seconds_left=left,
                over_limit=self.clock.over_limit,
                finished=finished,
                where=where,
            )
        )
