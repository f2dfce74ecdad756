"""What a summary run produces and reports: section summaries, failed sections, progress
events, and the notes the final summary ends with (how many sections the model wrote,
which pages nothing covers).

Shared by the map-reduce (summary_mapreduce.py), the summarizer (summarizing.py) and,
through ``api``, the window's progress and section list.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from docent.core.evaluation import split_sentences
from docent.core.numbers import PAGE_REFERENCE
from docent.core.sectioning import PAGES, Places, Section

Span = tuple[int, int]
Source = Literal["model", "extracted"]
#: The extractive fallback: a section's most central sentences as text ("" when none).
Extract = Callable[[Section], str]


@dataclass(frozen=True, slots=True)
class SectionSummary:
    """``source`` "extracted": the model's summary failed the gate (``note`` says why)
    and these are the section's most central sentences."""

    section: int  # 1-based
    pages: Span
    summary: str
    source: Source = "model"
    note: str = ""
    #: where it is, as the document names it ("pages 3–5", "lines 1-180"; "": pages)
    where: str = ""


@dataclass(frozen=True, slots=True)
class FailedSection:
    """A section with no summary. ``section`` 0 means the synthesis step."""

    section: int
    pages: Span
    error: str
    #: where it is, as the document names it ("pages 3–5", "lines 1-180"; "": pages)
    where: str = ""

    @property
    def said(self) -> str:
        """What failed, in a line: the section's pages are not covered, or (section 0)
        combining the section summaries failed (every page was summarised)."""
        if self.section == 0:
            return f"combining the section summaries failed: {self.error}"
        where = self.where or PAGES.span(self.pages)
        return f"not covered: {where}: {self.error}"


@dataclass(frozen=True, slots=True)
class SummaryProgress:
    """``phase``: "section" (``step`` of ``total`` sections starts), "section_done"
    (section ``step`` has its summary: ``finished``), "retry", "synthesis" (``step`` of
    ``total`` calls in reduce ``round``), "extractive", "checking" (the model's summary is
    written and checked against the document: summary_support.py), "done".

    ``sections_done`` of ``sections_total`` have a summary; ``seconds_left`` is the
    estimate from the calls timed so far (None before the first); ``over_limit``: the
    estimate passed ``summary_seconds_per_page`` times the pages, so the caller may offer
    an extractive summary now and the model's in the background.
    """

    phase: str
    step: int
    total: int
    pages: Span
    message: str
    round: int = 0
    sections_done: int = 0
    sections_total: int = 0
    seconds_left: float | None = None
    over_limit: bool = False
    #: the section summary just finished ("section_done" only), to show as it grows
    finished: SectionSummary | None = None
    #: ``pages`` as the document names them ("lines 1-180"; "": a PDF's pages)
    where: str = ""


SummaryProgressCallback = Callable[[SummaryProgress], None]


@dataclass(slots=True)
class Reduced:
    summary: str
    sections: list[SectionSummary] = field(default_factory=list)
    failed: list[FailedSection] = field(default_factory=list)
    #: A section was extracted because a call failed (not because of its output): a later
    #: try may do better, so the result is not cached.
    transient: bool = False
    #: Model calls made, retries included.
    calls: int = 0


def uncovered(sections: Sequence[Section], failed: set[int]) -> str:
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
    places = sections[0].places if sections else PAGES
    return ", ".join(places.span(r) for r in runs)


def joined(
    sections: Sequence[SectionSummary],
    why: str,
    what: str = "Combining the section summaries failed",
    places: Places = PAGES,
) -> str:
    """The section summaries in page order, for a summary whose combining step failed
    (or whose model stopped answering: ``what``)."""
    parts = [f"**{_capital(places.span(p.pages))}.** {p.summary}" for p in sections]
    note = f"_{what} ({why}); here they are in page order._"
    return "\n\n".join([note, *parts])


def count_note(
    sections: Sequence[SectionSummary],
    total: int,
    why: str = "the model's summary was unusable",
    places: Places = PAGES,
) -> str:
    """How many sections the model summarised and how many were extracted, and why."""
    extracted = [p for p in sections if p.source == "extracted"]
    model = len(sections) - len(extracted)
    note = f"_Sections: {model} of {total} summarised by the model, {len(extracted)} extracted"
    if not extracted:
        return note + "._"
    which = ", ".join(places.span(p.pages) for p in extracted)
    # "(...; pages 4-7 are given as their most central sentences)", not "(...; their most
    # central sentences: pages 4-7)" (QA-77)
    one = len(extracted) == 1
    given = f"{'is' if one else 'are'} given as {'its' if one else 'their'} most central sentences"
    return f"{note} ({why}; {which} {given})._"


#: A list item's bullet or number, at the start of a line.
LIST_ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,2}[.)])\s+", re.MULTILINE)


#: A Markdown heading line ("## Tomatoes"): it heads bullets, it is none.
HEADING_LINE = re.compile(r"^\s*#{1,6}\s+\S")
#: A line that only announces what follows ("Here are the document's key points:", "The
#: document's key points are:", or the prompt's own "Here is the document ..." echoed).
LEAD_IN = re.compile(
    r"^\s*(?:(?:sure|okay|ok|certainly)\b[!,.]?\s*)?"
    r"(?:(?:here(?:'s|’s| is| are))\b[^\n]*"
    r"|(?:below (?:is|are)|the following)\b[^\n]*:"
    r"|(?:the\s+)?(?:(?:document|text|file|summary)(?:'s|’s)?\s+)?(?:key|main)\s+points"
    r"(?:\s+(?:of\s+the\s+(?:document|text|file))?\s*(?:are|is)?)?\s*:)\s*$",
    re.I,
)


def as_bullets(text: str) -> str:
    """A bullets summary the model wrote as a paragraph, one sentence to a bullet: asked
    for bullets, smollm2:135m wrote none in 4 of 4 runs (QA, session 28). The words are
    the model's; a text with a list item already keeps its list. A heading line stays
    a heading over its bullets, and a line announcing the points is left out ("- ##
    Tomatoes" and "- Here is the document's key points:", QA session 30)."""
    if LIST_ITEM.search(text):
        # its own list: only a line announcing it, before it, goes ("The document's key
        # points are:" over a numbered list stayed; QA, session 31); "Here is the catch:
        # ..." after it, or a heading of its own words ("The main points of disagreement
        # were:"), is content (review)
        lines = text.split("\n")
        first = next(i for i, line in enumerate(lines) if LIST_ITEM.match(line))
        kept = [
            line
            for i, line in enumerate(lines)
            if i >= first or not (LEAD_IN.match(line) and line.rstrip().endswith(":"))
        ]
        return "\n".join(kept).strip() or text
    out: list[str] = []
    for line in text.split("\n"):
        if LEAD_IN.match(line):
            continue
        if HEADING_LINE.match(line):
            out += ["", line.strip()] if out else [line.strip()]
            continue
        out += [f"- {s.strip()}" for s in split_sentences(line) if s.strip()]
    # a heading over nothing (the last one, or one before another) is left out
    kept = [
        line
        for i, line in enumerate(out)
        if not HEADING_LINE.match(line)
        or any(x.startswith("- ") for x in _until_heading(out[i + 1 :]))
    ]
    return "\n".join(kept).strip() or text  # (only a lead-in: as the model wrote it)


def _until_heading(lines: list[str]) -> list[str]:
    """The lines before the next heading."""
    return list(itertools.takewhile(lambda x: not HEADING_LINE.match(x), lines))


#: A line that only says where: "[pages 6–11]", "[lines 121–180]".
PLACE_LABEL = re.compile(r"^\s*\[[^\]\n]*\]\s*$")


def without_false_labels(text: str, page_count: int) -> str:
    """The model's summary without the place labels it made up: a label line naming a
    page past the document's last ("[pages 12–15]" in a 6-page file, smollm2:135m,
    session 29), or heading nothing (another label, or the end, comes next)."""
    lines = text.split("\n")
    keep: list[str] = []
    for i, line in enumerate(lines):
        if PLACE_LABEL.match(line):
            pages = (
                [int(n) for n in re.findall(r"\d+", line)] if PAGE_REFERENCE.search(line) else []
            )
            after = next((x for x in lines[i + 1 :] if x.strip()), "")
            if any(p > page_count for p in pages) or not after or PLACE_LABEL.match(after):
                continue
        keep.append(line)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(keep)).strip()


def _capital(text: str) -> str:
    """The first letter in capitals, the rest as written ("Sheet1 rows 2-26")."""
    return text[:1].upper() + text[1:]
