"""Finding things the user names: a document by name or path, text by exact words, a
document's text as Markdown."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from docent.core import files as filemod
from docent.core.catalog import Catalog
from docent.core.errors import AmbiguousFile, UnknownCollection, UnknownFile
from docent.core.models import (
    Collection,
    DocumentRecord,
    ExtractedDocument,
    line_span,
    page_at,
    page_breaks_of,
)
from docent.core.store import ScoredPoint, Store

GREP_LIMIT = 100
#: Passages a grep reads at most, to list the first ``GREP_LIMIT`` matches in order
#: (twice as many for a pattern with spaces: as written, and word by word).
GREP_SCAN = 1000


@dataclass(slots=True)
class GrepMatch:
    file_name: str
    path: str
    page_start: int
    page_end: int
    chunk_id: str
    line: str
    #: "slide 3", "Sheet1 rows 2-26", "§ Setup": where, for formats without pages
    location: str = ""


def find_collection(catalog: Catalog, name: str) -> Collection:
    """A collection by name (any case); UnknownCollection lists the existing ones."""
    found = catalog.find_collection(name)
    if found is None:
        raise UnknownCollection(name, [c.name for c in catalog.collections()])
    return found


def resolve(catalog: Catalog, name_or_path: str, collection: str | None = None) -> DocumentRecord:
    """One document by path, file name, or unique part of a name; with ``collection``
    (an id), only among that collection's documents.

    Raises AmbiguousFile with the candidates when several match, UnknownFile when none.
    """

    def inside(recs: list[DocumentRecord]) -> list[DocumentRecord]:
        return [r for r in recs if collection is None or collection in r.collections]

    rec = catalog.by_path(str(filemod.normalise(name_or_path)))
    if rec and inside([rec]):
        return rec
    matches = inside(catalog.by_name(Path(name_or_path).name))
    if "/" in name_or_path or "\\" in name_or_path:
        # A path names one file: "a/notes.txt" is the notes.txt whose path ends that way,
        # never a namesake elsewhere (`docent remove /x/a/notes.txt` removed b's).
        tail = "/" + name_or_path.replace("\\", "/").lstrip("./")
        matches = [r for r in matches if r.path.replace("\\", "/").endswith(tail)]
    elif not matches:
        needle = name_or_path.lower()
        matches = [r for r in catalog.all(collection) if needle in r.file_name.lower()]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise AmbiguousFile(name_or_path, [r.path for r in matches])
    found = catalog.collection(collection) if collection is not None else None
    if found is None:
        raise UnknownFile(
            f"No indexed document matches '{name_or_path}'. See `docent list` for what is indexed."
        )
    raise UnknownFile(
        f"No indexed document in the collection '{found.name}' matches '{name_or_path}'. "
        f'See `docent list --collection "{found.name}"` for what it holds.'
    )


#: Words that name no document in particular ("the manual", "this PDF").
_GENERIC_NAME_WORDS = frozenset(
    [
        "the",
        "a",
        "an",
        "my",
        "this",
        "that",
        "your",
        "of",
        "manual",
        "document",
        "file",
        "pdf",
        "doc",
        "book",
        "paper",
        "deck",
        "slides",
        "guide",
        "text",
    ]
)


def _name_words(text: str) -> set[str]:
    return {w for w in re.split(r"[^0-9a-z]+", text.lower()) if w} - _GENERIC_NAME_WORDS


def named_by(phrase: str, records: list[DocumentRecord]) -> list[DocumentRecord]:
    """The documents whose file names ``phrase`` names (``named_files``)."""
    names = set(named_files(phrase, [r.file_name for r in records]))
    return [r for r in records if r.file_name in names]


def named_files(phrase: str, file_names: Sequence[str]) -> list[str]:
    """The file names ``phrase`` names ("R-intro", "the Debian reference",
    "harbour.pptx"): those holding the most of its words, at least half of them (letters
    and digits; "-", "_", "." and spaces alike). None when no name holds that many: the
    phrase may name a title instead."""
    wanted = _name_words(phrase)
    if not wanted:
        return []
    scored = [(len(wanted & _name_words(Path(n).stem + " " + n)), n) for n in file_names]
    best = max((n for n, _ in scored), default=0)
    if best == 0 or 2 * best < len(wanted):
        return []
    return [name for n, name in scored if n == best]


def grep(
    store: Store,
    pattern: str,
    busy: set[str],
    limit: int = GREP_LIMIT,
    collection: str | None = None,
) -> list[GrepMatch]:
    """Case-insensitive exact text over chunks (of one collection, by id): at most
    ``limit`` (≤ 100) matches, none from the documents in ``busy`` (half-written)."""
    limit = max(1, min(limit, GREP_LIMIT))
    # Half-written documents are left out by the store, not after it: one holding more
    # matches than were asked for hid every ready document's (review). More passages
    # than are listed are read (GREP_SCAN), so that those listed are the first in the
    # documents' order among them (the store's first are any: a file's line 1 was
    # missing, QA session 29); past GREP_SCAN matching passages, the first of those.
    needle = _needle(pattern)
    points: list[ScoredPoint] = []
    seen: set[str] = set()
    # as typed, and with its apostrophes the other way ("Debian's" finds "Debian’s", the
    # PDF's typographic one: QA, session 30)
    for spelling in dict.fromkeys([pattern, *_apostrophes(pattern)]):
        found_here = store.grep(
            spelling, limit=GREP_SCAN, collection=collection, exclude_doc_ids=busy
        )
        words = spelling.split()
        if words and re.search(r"\s", spelling):
            # a passage holds "Chapter 2\nLeadership" where grep's own line shows "Chapter
            # 2 Leadership" (spacing made single): copied from it, the phrase found nothing
            # (QA, session 30). The passages holding each of its words, spacing aside.
            found_here += [
                p
                for p in store.grep(
                    words[0],
                    limit=GREP_SCAN,
                    collection=collection,
                    exclude_doc_ids=busy,
                    also=words[1:],
                )
                if needle.search(p.payload["text"])
            ]
        for p in found_here:
            if p.id not in seen:
                seen.add(p.id)
                points.append(p)
    # In the document's order, not the store's (point ids look random), and once: a match
    # in the sentence two neighbouring passages share was listed twice (review).
    points.sort(key=lambda p: (p.payload["path"], int(p.payload.get("ordinal", 0))))
    found: list[GrepMatch] = []
    listed: tuple[ScoredPoint, int] | None = None  # the passage before, its match's end
    for p in points:
        shared = 0
        if listed is not None:
            before, end_before = listed
            shared = _overlap(before, p)
            # only the occurrence the passage before listed is listed already, and those
            # before it: this passage's matches in the shared sentence from the one after
            # it on are its own (review)
            text = " ".join(before.payload["text"].split())
            end = len(" ".join(before.payload["text"][:end_before].split()))
            skip = end - (len(text) - shared)
            shared = skip if end_before >= 0 and skip > 0 else 0
        listed = None
        # every occurrence in the passage, each once (QA, session 32: a name said three
        # times in the minutes was listed once); none when all are in what the one
        # before holds
        shown_to = -1  # where the line listed last ends: a match inside it is on it
        for m in _matches_after(p.payload["text"], needle, shared):
            listed = (p, m[1])
            if m[0] >= 0 and m[1] + GREP_AFTER // 3 <= shown_to:
                continue  # on the line listed, with words after it
            found.append(_grep_match(p, m))
            shown_to = m[1] + GREP_AFTER
            if len(found) == limit:
                return found
    return found


#: Characters of a passage shown before and after a match on its line.
GREP_BEFORE, GREP_AFTER = 60, 120
#: Characters an excerpt's end moves at most to fall between words.
_WORD_TRIM = 20
_SPACE = re.compile(r"\s+")
#: An apostrophe as typed, and as typeset.
_APOSTROPHE = re.compile("['’]")


def _apostrophes(pattern: str) -> list[str]:
    """``pattern`` with every apostrophe straight, and every one typographic."""
    if not _APOSTROPHE.search(pattern):
        return []
    return [_APOSTROPHE.sub("'", pattern), _APOSTROPHE.sub("’", pattern)]


def _needle(pattern: str) -> re.Pattern[str]:
    """``pattern`` as written, any case, a run of spacing in it matching any run, an
    apostrophe either one."""
    parts = re.split(r"(\s+)", pattern)
    return re.compile(
        "".join(
            r"\s+" if part.isspace() else _APOSTROPHE.sub("['’]", re.escape(part)) for part in parts
        ),
        re.IGNORECASE,
    )


def _matches_after(text: str, needle: re.Pattern[str], shared: int) -> list[tuple[int, int]]:
    """Where each match of ``needle`` in ``text`` past its first ``shared`` characters
    (spacing made single) begins and ends; [(-1, -1)] when there is none at all (a match
    the store found that this search does not), [] when every one is in them."""
    matches = list(needle.finditer(text))
    if not matches:
        return [(-1, -1)]
    return [
        (m.start(), m.end())
        for m in matches
        if not shared or len(" ".join(text[: m.end()].split())) > shared
    ]


def _overlap(before: ScoredPoint, after: ScoredPoint) -> int:
    """How many characters ``after`` opens with that ``before``, the passage just before
    it in its document, ends with (spacing made single): the sentence neighbouring
    passages share, where a match was listed twice (review). 0 for other passages."""
    pa, pb = before.payload, after.payload
    if pa["doc_id"] != pb["doc_id"] or int(pb.get("ordinal", 0)) != int(pa.get("ordinal", 0)) + 1:
        return 0
    a, b = " ".join(pa["text"].split()).lower(), " ".join(pb["text"].split()).lower()
    probe = b[:30]
    at = a.find(probe)
    while at != -1:
        if b.startswith(a[at:]):
            return len(a) - at
        at = a.find(probe, at + 1)
    return 0


def _grep_match(p: ScoredPoint, match: tuple[int, int]) -> GrepMatch:
    """The match (start, end) in the passage's text (-1: none found)."""
    pl = p.payload
    text: str = pl["text"]
    at, end = match
    start = max(0, at - GREP_BEFORE) if at >= 0 else 0
    stop = max(end, start) + GREP_AFTER
    # whole words at both ends, an ellipsis where the passage goes on (QA-78: "a meeting
    # notes." of "Beta meeting notes.")
    # (at most _WORD_TRIM characters: a long URL after the match is cut, not dropped)
    if start > 0 and not text[start - 1].isspace():
        space = _SPACE.search(text, start, min(max(at, start), start + _WORD_TRIM))
        start = space.end() if space else start
    if stop < len(text) and not text[stop].isspace():
        spaces = list(_SPACE.finditer(text, max(end, start, stop - _WORD_TRIM), stop))
        stop = spaces[-1].start() if spaces else stop
    line = " ".join(text[start:stop].split())
    line = ("… " if start > 0 else "") + line + (" …" if stop < len(text) else "")
    first, last = int(pl["page_start"]), int(pl["page_end"])
    breaks = page_breaks_of(pl)
    if at >= 0 and breaks:  # the page the match is on, not the passage's first
        first = last = page_at(first, breaks, at)
    return GrepMatch(
        pl["file_name"],
        pl["path"],
        first,
        last,
        p.id,
        line,
        str(pl.get("location", "")),
    )


def as_markdown(rec: DocumentRecord, doc: ExtractedDocument) -> str:
    """The extracted text with page markers (``docent dump``, Show extracted text)."""
    per_block = doc.lines_per_page
    parts = [f"# {rec.file_name}\n\n_Source: {rec.path}_\n"]
    for page in doc.pages:
        # Named units (slides, rows, sections) by their name, a text file's blocks by
        # their lines (as their passages are cited); OCR'd pages say so.
        first = (page.number - 1) * per_block + 1
        unit = line_span(first, first + page.text.count("\n")).capitalize() if per_block else ""
        title = (page.label or unit or f"Page {page.number}") + (" (OCR)" if page.ocr else "")
        parts.append(f"\n<!-- page {page.number} -->\n## {title}\n\n{page.text}\n")
    return "".join(parts)
