"""The page of a cited passage that the answer draws on.

A passage can run from the foot of one page onto the next (``Hit.page_breaks``). Its
citation opens the page holding the part the answer's sentences copy or share words
with, and for a passage Docent quotes itself, the page of the sentence it quotes first;
not always the passage's first page, which may hold only its opening line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from docent.core.attribution import copied, plain
from docent.core.citations import Citation
from docent.core.evaluation import SentenceSupport, sentence_bounds, terms, words_of
from docent.core.models import Hit, page_at, split_pages
from docent.core.prompting import nearest_sentence

#: Words in a row that a sentence and a page's part of the passage must share to count
#: as copied from there.
COPIED_RUN = 3


def page_parts(hit: Hit) -> list[tuple[int, str]]:
    """Each page of the passage with its part of the passage's text."""
    return split_pages(hit.text, hit.page_start, hit.page_breaks)


def focus_page(hit: Hit, focus: Sequence[str]) -> int:
    """The page of ``hit`` whose part of it holds most of ``focus`` (words copied in runs
    of ``COPIED_RUN``, then content words shared); its first page on a tie."""
    if not hit.page_breaks or not focus:
        return hit.page_start
    sentences = [(words_of(plain(s)), terms(s)) for s in focus]
    best_page, best = hit.page_start, (0, 0)
    for page, part in page_parts(hit):
        hay = f" {' '.join(words_of(part))} "
        held = terms(part)
        copies = shares = 0
        for words, wanted in sentences:
            k = min(COPIED_RUN, len(words))
            copies += sum(copied(words, k, [hay])) if k else 0
            shares += len(wanted & held)
        if (copies, shares) > best:
            best_page, best = page, (copies, shares)
    return best_page


def quoted_page(hit: Hit, query: str) -> int:
    """The page where a quote of ``hit`` starts: its sentence nearest the query
    (prompting.best_excerpt), or, quoted whole, the sentence it is quoted for."""
    bounds = sentence_bounds(hit.text)  # where best_excerpt splits its flattened text
    if not hit.page_breaks or not bounds:
        return hit.page_start
    best = nearest_sentence([hit.text[a:b] for a, b in bounds], query)
    return page_at(hit.page_start, hit.page_breaks, bounds[best][0])


def focused(
    citations: Sequence[Citation],
    offered: Sequence[Hit],
    support: Sequence[SentenceSupport],
    query: str,
) -> list[Citation]:
    """``citations`` with the page each opens: for the model's and matched citations, the
    page the sentences citing it draw on; for passages Docent lists, its quote's page."""
    out: list[Citation] = []
    for c in citations:
        hit = offered[c.n - 1] if 1 <= c.n <= len(offered) else None
        if hit is None or not hit.page_breaks or hit.chunk_id != c.chunk_id:
            out.append(c)
            continue
        if c.source in ("retrieved", "closest"):
            page = quoted_page(hit, query)
        else:
            focus = [s.sentence for s in support if c.n in s.cited or s.matched == c.n]
            page = focus_page(hit, focus)
        out.append(replace(c, focus_page=page) if page != c.page else c)
    return out
