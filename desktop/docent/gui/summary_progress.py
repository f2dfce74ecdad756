"""What a summary run is doing, told honestly: model calls done out of those known, and
the stage it is in.

The summarizer (core/summary_mapreduce.py) reports each step as it *starts*: section i
of n, a retry, a combining call j of g in reduce round r, the final write (a synthesis
call 1 of 1), extractive sections, done; and each section as it ends ("section_done",
with its summary). So when section i starts, i - 1 are done; when
the final write starts, every call but that one is done. The bar counts calls, and the
calls still to come include the final write: it never reaches the end before the summary
is there (a 27-page summary used to sit at 100 % for minutes while the model wrote).
"""

from __future__ import annotations

from dataclasses import dataclass

from docent.core.api import SummaryProgress


def pages_text(span: tuple[int, int]) -> str:
    a, b = span
    return f"p. {a}" if a == b else f"pp. {a}–{b}"


def elapsed_text(seconds: float) -> str:
    s = int(seconds)
    if s < 60:
        return f"{s} s"
    m, s = divmod(s, 60)
    if m < 60:
        return f"{m} min {s:02d} s"
    h, m = divmod(m, 60)
    return f"{h} h {m:02d} min"


@dataclass(slots=True)
class SummaryTracker:
    """Follows a run's progress events; ``fraction`` and ``label`` say where it is."""

    kind: str = "brief"
    #: sections in the document (the map stage's calls)
    sections: int = 0
    #: model calls finished, and the calls known so far (the final write included)
    done: int = 0
    total: int = 0
    stage: str = ""
    #: combining calls of the reduce rounds already over, and of the round under way
    _combined: int = 0
    _round: int = 0
    _round_calls: int = 0
    finished: bool = False
    #: the summarizer's estimate from the calls it timed (None before the first), and
    #: whether it passed the user's limit (summary_seconds_per_page)
    left: float | None = None
    #: the run's seconds when ``left`` was given: the label counts down from there
    _left_at: float = 0.0
    over_limit: bool = False
    #: the highest fraction shown: calls found later (a reduce round) slow the bar down
    #: rather than send it back
    _high: float = 0.0

    def update(self, p: SummaryProgress, at: float = 0.0) -> None:
        """``at``: the run's seconds when ``p`` came (the time left counts down from it)."""
        if p.seconds_left != self.left or p.phase == "done":
            self._left_at = at
        self.left = p.seconds_left if p.phase != "done" else None
        self.over_limit = self.over_limit or p.over_limit
        if p.phase == "done":
            self.finished = True
            self.done = self.total = max(self.total, 1)
            self.stage = "Done"
            return
        in_synthesis = self.sections > 1 and self.done >= self.sections
        if p.phase == "retry" and in_synthesis:  # a combining or final call, once more
            if not self.stage.endswith("(again)"):
                self.stage += " (again)"
        elif p.phase in ("section", "retry") and p.total:
            self.sections = p.total
            self.done = p.step - 1
            self.total = p.total + 1 if p.total > 1 else 1
            what = "Retrying" if p.phase == "retry" else "Summarising"
            if p.total == 1:
                self.stage = f"Writing the {self.kind} summary ({p.where or pages_text(p.pages)})"
            else:
                self.stage = (
                    f"Stage 1 of 2: summarising the sections, {p.step - 1} of {p.total} "
                    f"done · {what.lower()} {p.where or pages_text(p.pages)}"
                )
        elif p.phase == "section_done" and p.total > 1:
            self.sections, self.done = p.total, max(self.done, p.step)
            self.total = max(self.total, p.total + 1)
            self.stage = f"Stage 1 of 2: summarising the sections, {p.step} of {p.total} done"
        elif p.phase == "synthesis":
            self._synthesis(p)
        elif p.phase == "checking":  # every model call is done
            self.done = self.total
            self.stage = "Checking the summary against the document"
        elif p.phase == "extractive":
            self.sections = p.total
            self.done, self.total = p.step - 1, p.total
            self.stage = (
                f"No model answered: picking central sentences, section {p.step} of {p.total}"
            )

    def _synthesis(self, p: SummaryProgress) -> None:
        n = self.sections
        final = p.total == 1  # combining rounds always have two groups or more
        if not final and p.round != self._round:  # a new reduce round
            self._combined += self._round_calls
            self._round, self._round_calls = p.round, p.total
        if final:
            self._combined += self._round_calls
            self._round_calls = 0
            self.done = n + self._combined
            self.total = self.done + 1
            self.stage = (
                f"Stage 2 of 2: writing the {self.kind} summary from the {n} section summaries"
            )
        else:
            self.done = n + self._combined + p.step - 1
            self.total = n + self._combined + p.total + 1
            self.stage = (
                f"Stage 2 of 2: combining the section summaries (round {p.round}, "
                f"{p.step} of {p.total})"
            )

    @property
    def fraction(self) -> float | None:
        """Share of the calls done (None: nothing known yet); 1.0 only once finished."""
        if self.finished:
            return 1.0
        if self.total <= 1:  # one call: how far it is, nobody knows
            return None
        self._high = max(self._high, min(self.done / self.total, (self.total - 1) / self.total))
        return self._high

    def label(self, seconds: float) -> str:
        calls = ""
        if self.done >= self.sections > 1 and not self.finished:  # past the sections
            calls = f" · {self.done} of {self.total} model calls done"
        left = ""
        if self.left is not None and not self.finished:
            # counted down between estimates (QA-79: "about 55 s left" stood still 13 s)
            now = self.left - max(seconds - self._left_at, 0.0)
            left = f" · about {elapsed_text(max(now, 1))} left"
        return f"{self.stage}{calls} · {elapsed_text(seconds)}{left}"
