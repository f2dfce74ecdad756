"""Which sentences of a model's summary the document does not clearly say.

A small model's summary passes the quality gate (summary_quality.py: it shares enough
words with its source) and still tells of things the document never says: smollm2:135m's
brief summary of a chapter on simple inference told of "mortality and water hardness of
juvenile sharks" and of "the VCF package", a summary of a 15-page chapter of its "250+
pages". Answers have their sentences checked against the passages the model was shown
(attribution.py); a summary's sources are whole sections, too long to score a sentence
against, so each sentence is scored against the document's own passages closest to it:

- the library's search, scoped to the document, finds the ``NEAREST`` chunks whose stored
  vectors are nearest the sentence's (nothing of the document is embedded again but the
  sentences of those chunks, which the score compares one by one);
- the sentence is scored against them together, as an answer's sentence is against the
  passages it cites (``attribution.Scorer``: term overlap and cosine), and is **not
  found** below ``THRESHOLDS.support``, the bar an answer's cited sentence must reach;
- a number it states must be somewhere in the document (not just in those chunks: a
  summary sentence may join what two pages say).

Only sentences with enough content words are judged (``evaluation.MIN_TERMS``), as in
answers; Docent's own notes (italic paragraphs), section headings and a line that only
introduces a list ("The document's key points are:") are not claims. What is not found
is shown, never removed: the window underlines it and ``docent summarize`` lists it.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Collection

from docent.core.attribution import THRESHOLDS, Scorer, plain, stated_numbers, unstated_numbers
from docent.core.embedding import Embedder
from docent.core.errors import Cancelled
from docent.core.evaluation import MIN_TERMS, split_sentences, terms
from docent.core.store import Store

#: The document's passages nearest a sentence that it is scored against, together.
NEAREST = 3
#: A heading the model wrote ("## Results") or Docent's own ("**Pages 3–5.**", in a
#: summary whose combining step failed): not a claim; the text after a bold one is.
#: A list item's bullet or number, as ``split_sentences`` writes it.
_LIST = re.compile(r"^(?:[-*+•]|\d{1,2}[.)])\s+")
_HEADING = re.compile(r"^\s*(?:#{1,6}\s.*|\*\*[^*]+[.:]\*\*)\s*")


def claims(summary: str) -> list[str]:
    """The summary's sentences to check, as written (for the window to find them)."""
    out: list[str] = []
    for paragraph in summary.split("\n\n"):
        text = paragraph.strip()
        if not text or _is_note(text):
            continue
        for line in text.splitlines():
            body = _HEADING.sub("", line, count=1)
            for sentence in split_sentences(body):
                s = sentence.strip()
                if s.endswith(":") or len(terms(s)) < MIN_TERMS or s in out:
                    continue  # (a sentence said twice is one claim, underlined where first)
                out.append(s)
    return out


def searchable(summary: str, unsupported: Collection[str]) -> str:
    """The summary's sentences the document bears out, for the document to be searched by:
    its claims less ``unsupported``. Cutting those out of the text left headings bare, and
    missed a list item the split writes otherwise ("*   The ..." is "* The ...")."""
    kept = [_LIST.sub("", s) for s in claims(summary) if s not in unsupported]
    return " ".join(kept)


def _is_note(paragraph: str) -> bool:
    """Docent's italic notes ("_Sections: 2 of 2 summarised by the model ..._")."""
    return paragraph.startswith("_") and paragraph.endswith("_")


def unsupported_sentences(
    summary: str,
    doc_id: str,
    text: str,
    store: Store,
    embedder: Embedder,
    cancel: threading.Event | None = None,
) -> list[str] | None:
    """The sentences of ``summary`` the document (``doc_id``, whose whole extracted text
    is ``text``) does not clearly say, in order; None when the library holds no passage
    of it to check against (it is being indexed again). Raises Cancelled."""
    sentences = claims(summary)
    if not sentences:
        return []
    nearest: list[list[int]] = []
    passages: dict[int, str] = {}
    for vector in embedder.query_dense_many([plain(s) for s in sentences]):
        if cancel is not None and cancel.is_set():
            raise Cancelled("Stopped: the summary was cancelled.")
        hits = store.query(dense=vector, limit=NEAREST, doc_ids=[doc_id])
        ordinals = []
        for hit in hits:
            ordinal = int(hit.payload["ordinal"])
            passages[ordinal] = str(hit.payload["text"])
            ordinals.append(ordinal)
        nearest.append(ordinals)
    if not passages:
        return None
    scorer = Scorer(sentences, passages, embedder.embed_dense, THRESHOLDS)
    have = stated_numbers(text)
    return [
        s
        for i, s in enumerate(sentences)
        if unstated_numbers(s, have) or scorer.words_score(i, s, nearest[i]) < THRESHOLDS.support
    ]


def not_found_note(n: int, how: str = "") -> str:
    """What the window and the CLI say of ``n`` sentences the document does not clearly
    say ("" for none); ``how``: where they are ("underlined", "below")."""
    if n == 0:
        return ""
    which, verb, them = ("1 sentence", "is", "it") if n == 1 else (f"{n} sentences", "are", "them")
    shown = f" ({how})" if how else ""
    return (
        f"{which} of this summary{shown} {verb} not clearly supported by the document; "
        f"a small model can make things up, so check {them} against the document."
    )
