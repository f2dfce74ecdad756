"""Citation markers in answers: parse ``[n]``, drop numbers never offered, build Citations.

Numbering: a citation keeps the number its passage had in the prompt (``[3]`` in the
answer is ``Citation(n=3)``, the third passage offered). Answers are never renumbered, so
the chips a GUI draws while tokens stream in still point at the right passage once the
answer is final. A number that was not offered is removed from the text (``[1, 9]``
becomes ``[1]``; a lone ``[9]`` disappears) and reported in ``Answer.invalid_citations``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from docent.core.models import DocumentRecord, Hit, split_pages
from docent.core.numbers import PAGE_REFERENCE
from docent.core.passages import Edge
from docent.core.userfiles import distinct_paths

#: ``[1]``, ``[1, 2]``, ``[1;2]``, ``[1-3]`` (``[1][2]`` is two markers). 1 to 3 digits, no
#: leading zero, so ``[2005]`` or a character class ``[0-9]`` is not taken for a citation;
#: nor a Markdown link's text, ``[2](https://...)``, which the window draws as a link (a
#: marker before other brackets, "[2](p. 3)", is one); nor a part of a file's name,
#: ``gamma_server[2].md`` (smollm2:135m's header of a passage, seen under Xvfb in session
#: 35: chipped as a citation of [2]), while "bytes[1]." and "40 L [2].the" are markers.
MARKER = re.compile(
    r"(?:(?<!\w)|(?=\[[^\]\n]{1,40}\](?!\.[A-Za-z])))"
    r"\[\s*([1-9]\d{0,2}(?:\s*(?:[,;]|[-–])\s*[1-9]\d{0,2})*)\s*\]"
    r"(?!\((?:[A-Za-z][\w+.-]*:|www\.|[#/]))"
)
#: Code the model wrote (a fenced block, an inline span): ``x[6]`` in it is R's indexing,
#: not a citation.
_CODE = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)|`[^`\n]+`", re.DOTALL)
_MAX_RANGE = 20  # "[1-300]" is not a citation of 300 passages
_GONE = "\x00"  # stands for a marker removed whole, until the space before it goes too

#: Who put a citation there: the model wrote ``[n]``; Docent matched the passage to a
#: sentence the model left uncited (attribution.py); or Docent listed the passage itself
#: (an extractive answer's quotes, an abstained answer's closest passages).
#: "retrieved": a passage Docent quotes itself (an extractive, abstained or unsupported
#: answer's); "closest": the passage closest to the question, listed beside a written
#: answer that does not cite it (``answering._list_closest``).
CitationSource = Literal["model", "matched", "retrieved", "closest"]


@dataclass(frozen=True, slots=True)
class Citation:
    """One passage an answer cites, ready to show: chip ``[n]`` -> file, page, passage."""

    n: int
    chunk_id: str
    doc_id: str
    file_name: str
    path: str
    page: int
    page_end: int
    text: str
    #: See Chunk.location: "slide 3", "Sheet1 rows 2-51"; "" for PDF pages.
    location: str = ""
    source: CitationSource = "model"
    #: Of a passage that runs onto another page: the page holding the part the answer
    #: draws on (focus.py), which its chip opens; 0: the passage's first page.
    focus_page: int = 0
    #: See Hit.page_breaks: where the passage's text goes on to its next page.
    page_breaks: tuple[tuple[int, int], ...] = ()
    #: See Hit.name: "teamA/notes.md" when the library holds another notes.md.
    name: str = ""
    #: See Hit.sha256: the version of the document the passage is from.
    sha256: str = ""

    @property
    def where(self) -> str:
        """``pages_label``, and the page the cited part is on when the passage runs over
        two: "pp.4-5, cited part on p.5"; for a passage Docent lists itself (quoted, or
        the closest to a question it abstained on), "pp.4-5, closest part on p.5", the
        page of its sentence nearest the question."""
        if self.focus_page and self.focus_page != self.page:
            listed = self.source in ("retrieved", "closest")
            part = "closest part on" if listed else "cited part on"
            return f"{self.pages_label}, {part} p.{self.focus_page}"
        return self.pages_label

    def part_on(self, page: int) -> str:
        """The passage's text on ``page``: to light on that page only what is on it (a page
        it is not on lit a phrase it shares, and a repeated phrase drew the cited part away
        from its page; review h20). All of it where the breaks are not known."""
        if not self.page <= page <= self.page_end:
            return ""
        if not self.page_breaks:
            return self.text
        parts = dict(split_pages(self.text, self.page, self.page_breaks))
        return parts.get(page, "")

    def edge_on(self, page: int) -> Edge:
        """Where ``part_on(page)`` is on that page: "end" on the first page of a passage
        running on, "start" on its last; "" when it is all of the passage or a page
        between (to light a short part there, not where the page first says its words)."""
        if not self.page_breaks or self.page == self.page_end:
            return ""
        if page == self.page:
            return "end"
        return "start" if page == self.page_end else ""

    @property
    def opens_at(self) -> int:
        """The page a click on this citation shows."""
        return self.focus_page or self.page

    @property
    def pages_label(self) -> str:
        if self.location:
            return self.location
        return f"p.{self.page}" if self.page == self.page_end else f"pp.{self.page}-{self.page_end}"

    def as_dict(self) -> dict[str, object]:
        return {
            "n": self.n,
            "file_name": self.file_name,
            "name": self.name or self.file_name,
            "path": self.path,
            "page": self.page,
            "page_end": self.page_end,
            "chunk_id": self.chunk_id,
            "doc_id": self.doc_id,
            "text": self.text,
            "location": self.pages_label,
            "source": self.source,
            "focus_page": self.opens_at,
        }


def citation_for(n: int, hit: Hit, source: CitationSource = "model") -> Citation:
    return Citation(
        n=n,
        chunk_id=hit.chunk_id,
        doc_id=hit.doc_id,
        file_name=hit.file_name,
        path=hit.path,
        page=hit.page_start,
        page_end=hit.page_end,
        text=hit.text,
        location=hit.location,
        source=source,
        page_breaks=hit.page_breaks,
        name=hit.name,
        sha256=hit.sha256,
    )


def citations_for(
    numbers: Iterable[int],
    offered: list[Hit],
    source: CitationSource = "model",
    matched: Iterable[int] = (),
) -> list[Citation]:
    """Citations for valid numbers (1-based into ``offered``), ascending, each once;
    ``matched`` numbers not among ``numbers`` are added with source "matched"."""
    valid = {n for n in numbers if 1 <= n <= len(offered)}
    extra = {n for n in matched if 1 <= n <= len(offered)} - valid
    return [
        citation_for(n, offered[n - 1], "matched" if n in extra else source)
        for n in sorted(valid | extra)
    ]


def marker_numbers(group: str) -> list[int]:
    """The passages a marker's inside names: "1", "1, 2", "1-3", "1; 2"."""
    out: list[int] = []
    for part in re.split(r"\s*[,;]\s*", group.strip()):
        bounds = re.split(r"\s*[-–]\s*", part)
        if len(bounds) == 2:
            lo, hi = int(bounds[0]), int(bounds[1])
            if lo <= hi and hi - lo < _MAX_RANGE:
                out.extend(range(lo, hi + 1))
            else:
                out.extend((lo, hi))
        else:
            out.append(int(part))
    return out


def code_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` holds code (fenced blocks, inline spans): brackets in it are no
    citation markers, here and in the chat's chips."""
    return [m.span() for m in _CODE.finditer(text)] if "`" in text or "~~~" in text else []


#: A line of code shorter than this is no command to check ("ls", "-p", "`x`").
CODE_CHECK_CHARS = 8
#: A shell's prompt before a command ("$ sudo apt install simh").
_PROMPT = re.compile(r"^(?:\$|%|>)\s+")
#: A comment line (or a root prompt: read as a comment when the passages lack it).
_COMMENT = re.compile(r"^(?:#|//)\s*")
_QUOTES = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'"})


def unsourced_code(text: str, passages: Sequence[str]) -> list[str]:
    """The lines of code in ``text`` (fenced blocks, inline spans) that none of
    ``passages`` holds (spaces, case, a prompt sign and curly quotes aside), in order: a
    small model invents commands ("sudo setup.local -b libs/…" in no document), and the
    checks of an answer's sentences leave code out (code is no claim). A comment the
    model added, a fence's language tag and lines shorter than ``CODE_CHECK_CHARS`` are
    left alone (QA-80; review 85)."""

    def norm(t: str) -> str:
        return " ".join(t.translate(_QUOTES).split()).casefold()

    hay = " ".join(norm(p) for p in passages)
    out: list[str] = []
    for a, b in code_spans(text):
        span = text[a:b]
        if span.startswith(("```", "~~~")):
            lines = span.splitlines()[1:]  # (the first holds the fence and its language)
            if lines and lines[-1].strip().startswith(("```", "~~~")):
                lines = lines[:-1]
        else:
            lines = [span.strip("`")]
        for line in lines:
            said = " ".join(line.split())
            bare = _PROMPT.sub("", said)
            if len(bare) < CODE_CHECK_CHARS or norm(bare) in hay or said in out:
                continue
            if _COMMENT.match(bare) and norm(_COMMENT.sub("", bare)) not in hay:
                continue  # a comment the model wrote: prose, not a command
            out.append(said)
    return out


def in_spans(at: int, spans: Sequence[tuple[int, int]]) -> bool:
    return any(a <= at < b for a, b in spans)


def markers(text: str) -> list[re.Match[str]]:
    """The citation markers of ``text``, leaving out those inside code the model wrote."""
    code = code_spans(text)
    return [m for m in MARKER.finditer(text) if not in_spans(m.start(), code)]


def cited_numbers(text: str) -> list[int]:
    """Every number cited in ``text``, in order of first appearance."""
    seen: dict[int, None] = {}
    for m in markers(text):
        for n in marker_numbers(m.group(1)):
            seen.setdefault(n, None)
    return list(seen)


def strip_markers(text: str) -> str:
    """``text`` without citation markers (and without the space left before them)."""
    return re.sub(r"\s*" + MARKER.pattern, "", text)


def drop_invalid(text: str, offered: int) -> tuple[str, list[int]]:
    """Remove numbers outside ``1..offered`` from the markers; return (text, dropped)."""
    dropped: dict[int, None] = {}
    real = {m.start() for m in markers(text)}

    def fix(m: re.Match[str]) -> str:
        if m.start() not in real:
            return m.group(0)  # inside code: not a citation
        numbers = marker_numbers(m.group(1))
        keep = [n for n in dict.fromkeys(numbers) if 1 <= n <= offered]
        for n in numbers:
            if not 1 <= n <= offered:
                dropped.setdefault(n, None)
        if len(keep) == len(numbers):
            return m.group(0)  # untouched, as the model wrote it
        return "[" + ", ".join(str(n) for n in keep) + "]" if keep else _GONE

    # A marker removed whole takes the space before it along: "word [9]." -> "word."
    fixed = re.sub(r"[ \t]*" + _GONE, "", MARKER.sub(fix, text))
    return fixed, list(dropped)


def cite_echoed_headers(text: str, offered: Sequence[Hit]) -> str:
    """A small model copies a passage's header (``[2] manual.pdf p.7:``) into its answer
    instead of citing it. Each header of an offered passage is taken out and becomes the
    marker ``[n]`` at the end of the sentence it introduces; a marker the model wrote
    before the header is dropped with it. Where several passages share the file and page
    (two passages of p.7), the header's own number decides, then the page as written
    (``p.5`` is not ``pp.5-6``'s). What the sentence says is checked like any citation of
    the model's (attribution.py). A header inside code the model wrote ("grep 'manual.pdf
    p.7:' log") is code, left as written, as ``drop_unoffered_headers`` leaves it."""
    headers = [(n, hit, _header(hit)) for n, hit in enumerate(offered, 1)]
    start = 0
    while True:
        best: tuple[tuple[int, bool, bool, int], int, re.Match[str]] | None = None
        code = code_spans(text)
        for n, hit, pattern in headers:
            m = pattern.search(text, start)
            while m is not None and in_spans(m.start(), code):
                m = pattern.search(text, m.start() + 1)
            if m is None:
                continue
            key = (m.start(), m.group("n") != str(n), not _same_pages(hit, m.group("pages")), n)
            if best is None or key < best[0]:
                best = (key, n, m)
        if best is None:
            return text
        _, n, m = best
        before, rest = text[: m.start()], text[m.end() :]
        if before.endswith(('"', "“")) and rest.startswith(('"', "”")):
            # the header quoted alone ('"manual.pdf p.7:" The pump ...', the reply Docent
            # began with its quotation mark): no empty quotation left behind (QA, s29)
            before, rest = before[:-1], rest[1:].lstrip()
        end = re.search(r"[.!?](?=[\"')\]]*(?:\s|$))|\n|$", rest)
        at = end.start() if end else len(rest)
        text = f"{before}{rest[:at].rstrip()} [{n}]{rest[at:]}"
        start = len(before)


#: A passage header the model wrote, as both ``cite_echoed_headers`` and
#: ``drop_unoffered_headers`` read it: a marker before it on its line (one ending the line
#: before is that line's citation), the file name whole (not the end of "old_notes.pdf" or
#: of a URL), and a colon followed by words, not a digit ("p.3:15"). Reviews, session 26.
_HEADER_MARKER = r"(?:\[[ \t]*(?P<n>\d{1,3})[ \t]*\][ \t]*)?"
_NAME_STARTS = r"(?<![\w/.\\-])"
_HEADER_ENDS = r"[ \t]*:(?!\d)[ \t]*"


def drop_unoffered_headers(text: str, offered: Sequence[Hit]) -> tuple[str, list[str]]:
    """Headers the model wrote for a page of an offered file that it was not given
    ("history.pdf p.34:" of a 27-page file, when p.13 was offered; "talk.pptx, slide 9:"
    when slide 3 was: a slide's number is its page's): the place is taken
    out, as a marker never offered is (``drop_invalid``), and returned as written; a marker
    before it that was never offered either ("[7] history.pdf p.34:") is left for
    ``drop_invalid`` to take out and name. Run after ``cite_echoed_headers``, which makes the offered pages' headers citations; a
    page the reader would otherwise take for a citation was shown unflagged (QA,
    session 26)."""
    names = sorted({h.file_name for h in offered if h.file_name}, key=len, reverse=True)
    if not names:
        return text, []
    alternatives = "|".join(re.escape(n) for n in names)
    pattern = re.compile(
        rf"{_HEADER_MARKER}{_NAME_STARTS}(?P<place>(?P<name>(?i:{alternatives})),?[ \t]+"
        rf"(?P<unit>pp?\.|slides?[ \t]|lines?[ \t])[ \t]*(?P<first>\d+)"
        rf"(?:[ \t]*[-–][ \t]*(?P<last>\d+))?)"
        rf"{_HEADER_ENDS}"
    )
    dropped: dict[str, None] = {}
    code = code_spans(text)

    def drop(m: re.Match[str]) -> str:
        if in_spans(m.start(), code):
            return m.group(0)  # code the model wrote ("grep 'a.pdf p.3:' log")
        first = int(m.group("first"))
        last = int(m.group("last") or first)
        name = m.group("name").lower()
        same = [h for h in offered if h.file_name.lower() == name]
        if m.group("unit").startswith("line"):  # a text file's passage: its own lines
            pages = {n for h in same for n in _lines(h.location)}
        else:
            pages = {p for h in same for p in range(h.page_start, h.page_end + 1)}
        low, high = min(first, last), max(first, last)  # "pp.34-3" named p.34 too (review)
        if all(p in pages for p in range(low, high + 1)):
            # every page was given: inside an offered passage ("p.10" of pp.9-10), or
            # spread over two ("pp.9-11" of pp.9-10 and p.11): left as written
            return m.group(0)
        dropped.setdefault(" ".join(m.group("place").split()), None)
        n = m.group("n")
        if n and not 1 <= int(n) <= len(offered):
            return f"[{n}]"  # a marker never offered: drop_invalid takes it out and names it
        return ""

    return pattern.sub(drop, text), list(dropped)


#: A text passage's place ("lines 12-30", "line 4"): ``Hit.location``.
_LINES = re.compile(r"^lines?[ \t]+(\d+)(?:[ \t]*[-–][ \t]*(\d+))?$")


def _lines(location: str) -> range:
    """The lines a text passage's ``location`` names; none for any other place."""
    m = _LINES.match(location)
    if m is None:
        return range(0)
    first = int(m.group(1))
    return range(first, int(m.group(2) or first) + 1)


#: One page or range of a ``PAGE_REFERENCE``'s list ("7-9" of "pp. 3, 7-9").
_PAGE_SPAN = re.compile(r"(\d+)(?:[ \t]*[-–][ \t]*(\d+))?")
#: A file's name, to leave out of the sentences looked at for pages.
_FILE_NAME = re.compile(
    r"\S+\.(?:pdf|docx?|pptx?|xlsx?|odt|odp|ods|epub|txt|md|html?|csv|rtf)\b", re.I
)


def pages_not_given(text: str, offered: Sequence[Hit]) -> list[str]:
    """The pages an answer names in its sentences ("as stated on page 45") that no passage
    given to the model is from, as written, each once. A small model names pages from
    nowhere, and a reader takes a page for a citation. Left in the text (unlike a header
    for a page not given: ``drop_unoffered_headers``), and said.

    Not counted: a page inside an offered passage (of any of its files: the sentence does
    not say whose page); a page an offered passage's own text names ("see page 45",
    copied); a page in code the model wrote. A slide's page is its number ("slide 3" is
    page 3)."""
    given = {p for h in offered for p in range(h.page_start, h.page_end + 1)}
    quoted = {p for h in offered for m in PAGE_REFERENCE.finditer(h.text) for p in _pages(m)}
    # a file's name is no sentence: "Notes page 12.pdf", "report p.5.pdf"
    names = sorted({h.file_name for h in offered if h.file_name}, key=len, reverse=True)
    for name in names:
        text = re.sub(re.escape(name), lambda m: " " * len(m.group()), text, flags=re.I)
    text = _FILE_NAME.sub(lambda m: " " * len(m.group()), text)
    code = code_spans(text)
    named: dict[str, None] = {}
    for m in PAGE_REFERENCE.finditer(text):
        if in_spans(m.start(), code):
            continue
        pages = _pages(m)
        if 0 in pages or all(p in given or p in quoted for p in pages):
            continue  # (page 0: "huge pages", a memory's page 0, not a document's)
        named.setdefault(" ".join(m.group(0).split()), None)
    return list(named)


def _pages(m: re.Match[str]) -> list[int]:
    """The pages a ``PAGE_REFERENCE`` match names, each of its ranges by its first 51 (a
    range of a thousand pages is checked by its start)."""
    spans = [(m.group("first"), m.group("last"))]
    spans += [(a, b) for a, b in _PAGE_SPAN.findall(m.group("more") or "")]
    out: list[int] = []
    for first, last in spans:
        low, high = sorted((int(first), int(last or first)))
        out.extend(range(low, min(high, low + 50) + 1))
    return out


def dropped_places_note(places: Sequence[str]) -> str:
    """What the answer's notes say of ``unoffered_pages``: headers the
    model wrote for a page, slide or lines of a file that it was not given."""
    several = len(places) > 1
    if all(re.search(r"\blines?\s+\d", p) for p in places):
        what = "lines"
    elif all(re.search(r"\bslides?\s+\d", p) for p in places):
        what = "slides" if several else "a slide"
    else:
        what = "places" if several else "a page"
    # each place has a comma in it ("talk.pptx, slide 9"): joined by semicolons
    return f"Dropped {'; '.join(places)}: the model named {what} it was not given."


def _is_range(place: str) -> bool:
    """ "pp. 40-45", "pages 3 and 4": more than one page."""
    return bool(re.search(r"\d\s*(?:[-–]|and|or|&|,)\s*\d", place)) or place.lower().startswith(
        ("pp", "pages")
    )


def named_pages_note(named: Sequence[str]) -> str:
    """What the answer's notes (the window, ``docent ask``) say of ``pages_not_given``."""
    places = ", ".join(named)
    several = len(named) > 1 or _is_range(named[0])
    return (
        f"The answer names {places}, but no passage given to the model is from "
        f"{'those pages' if several else 'that page'}: check "
        f"{'them' if several else 'it'} in the document."
    )


def _header(hit: Hit) -> re.Pattern[str]:
    """An echo of ``hit``'s header, its page loosely (``p.5`` or ``pp.5-6``), the file
    name's first letter in either case (copied as a sentence's first word)."""
    first, rest = hit.file_name[:1], hit.file_name[1:]
    name = f"(?i:{re.escape(first)})"
    # the passage's first page, its range, or any page inside it ("p.10" of pp.9-10 was
    # left as raw header text: helper-55)
    within = range(hit.page_end, hit.page_start, -1)[:20]  # the last first ("10" before "1")
    inside = "|".join(str(n) for n in [*within, hit.page_start])
    pages = (
        re.escape(hit.location)
        if hit.location
        else rf"pp?\.\s*(?:{inside})(?:\s*[-–]\s*{hit.page_end})?"
    )
    return re.compile(
        rf"{_HEADER_MARKER}{_NAME_STARTS}{name}{re.escape(rest)},?[ \t]+(?P<pages>{pages})"
        rf"{_HEADER_ENDS}"
    )


def _same_pages(hit: Hit, written: str) -> bool:
    """The echoed page label is the passage's own (``p.7``, ``pp.5-6``)."""
    if hit.location:
        return True
    s, e = hit.page_start, hit.page_end
    want = f"p.{s}" if s == e else f"pp.{s}-{e}"
    return re.sub(r"\s", "", written).replace("–", "-") == want


def cited_older(citation: Citation, record: DocumentRecord | None) -> bool:
    """Whether the document was indexed again, another text, since ``citation`` was made:
    its passage is the old version's (QA-77: an answer's chip opened the new file's page
    under the old citation, saying only that the passage was not found there)."""
    return bool(citation.sha256) and record is not None and record.sha256 != citation.sha256


def distinct_names(citations: Sequence[Citation]) -> dict[str, str]:
    """Each cited path's name as a reader is shown it (``userfiles.distinct_paths``): two
    chips read "meeting.md, lines 1-12" for two files of that name (QA session 29). A
    citation's own ``name`` wins: it tells the file from the library's others of its
    name, cited or not ("teamA/notes.md" though teamB's is not cited)."""
    among = distinct_paths(c.path for c in citations)
    return {c.path: c.name or among[c.path] for c in citations}
