"""Which sentences of a model's summary the document does not clearly say.

A small model's summary passes the quality gate (summary_quality.py: it shares enough
words with its source) and still tells of things the document never says: smollm2:135m's
brief summary of a chapter on simple inference told of "mortality and water hardness of
juvenile sharks" and of "the VCF package", a summary of a 15-page chapter of its "250+
pages". Answers have their sentences checked against the passages the model was shown
(attribution.py); a summary's sources are whole sections, too long to score a sentence
against, so each sentence is scored against the document's own passages closest to it:

- the library's search, scoped to the document, finds the ``NEAREST`` chunks whose
  stored vectors are nearest the sentence's;
- the score is the one an answer's sentence gets (``attribution.THRESHOLDS``): the share
  of its content words those chunks hold, together, weighed with the best cosine between
  the sentence and one of the chunks or one of their sentences. The chunks' vectors and
  sentence vectors are the stored ones (sentence_vectors.py): nothing of the document is
  embedded again, so a 50-sentence summary is checked in about a second where embedding
  the chunks' sentences took 24 s (session 28);
- below ``THRESHOLDS.support``, the bar an answer's sentence must reach, the chunk that
  holds most of its words (BM25) is scored too, alone: a short sentence ("Python 2.6 and
  3.1") is not near the chunk that lists it by its vector;
- the words with which a summary says what the document does ("This document explores
  ...", "discusses") do not count: the passages rarely hold them;
- still below the bar, the sentence is **not clearly supported**; so is one stating a
  number the document states nowhere, in figures or in words (not just in those chunks:
  a summary sentence may join what two pages say; ``numbers.unstated_numbers``), and one
  naming what the document never writes (``unwritten_names``: "the movie The Mandalorian"
  in a history that says Toy Story; a name is what a sentence writes with a capital,
  except its first word; English summaries only); and one going against a statement of
  those chunks (``binding``): a figure they give only for something else while they
  give what the sentence is about another, read with the names of its section's
  heading (a list item "Go-live date: 15 September 2025." under "## Team Alpha" of a
  plan where that is Team Beta's date; QA, session 32), a sense turned, a name in
  another's place.

A sentence the document bears out is followed, where the summary is shown, by the place
of the passage that bears it out best ("(p. 4)": its page, of a passage over two the one
holding the sentence's words; a text file's lines, a slide), as an extractive summary's
sentences are.

Only sentences with enough content words are judged (``evaluation.MIN_TERMS``), as in
answers; Docent's own notes (italic paragraphs), section headings and a line that only
introduces a list ("The document's key points are:") are not claims. What is not found
is shown, never removed: the window underlines it and ``docent summarize`` lists it.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from docent.core.attribution import THRESHOLDS, cosine, plain
from docent.core.binding import contradicted, misplaced, names_in
from docent.core.embedding import Embedder
from docent.core.errors import Cancelled
from docent.core.evaluation import MIN_TERMS, split_sentences, stem, terms, words_of
from docent.core.focus import focus_page
from docent.core.numbers import PAGE_REFERENCE, stated_numbers, unstated_numbers
from docent.core.queryterms import is_english
from docent.core.retrieval import hit_from_point
from docent.core.sentence_vectors import best_cosine
from docent.core.store import ScoredPoint, Store
from docent.core.summary_parts import LIST_ITEM, PLACE_LABEL

#: The document's passages nearest a sentence that it is scored against, together ...
NEAREST = 3
#: ... and those that hold most of its words (BM25), when not among them.
BY_WORDS = 1
#: Words with which a summary says what the document does, not what it says: "This
#: document explores the concept of ...", "It also discusses ...". The passages rarely
#: hold them, so they counted against a sentence that was otherwise the document's.
_FRAMING_WORDS = """document documents text texts summary section sections chapter chapters
    page pages part parts paper manual guide report book article discuss discusses
    discussed discussing describe describes described explain explains explained explore
    explores explored exploring delve delves delving cover covers covered include includes
    included including mention mentions mentioned present presents presented provide
    provides provided highlight highlights outline outlines focus focuses introduce
    introduces concept concepts overview detail details detailed topic topics various
    several key main also brief briefly comprehensive application applications"""
_FRAMING = frozenset(stem(w) for w in _FRAMING_WORDS.split())
#: A line the model wrapped: it goes on in lower case.
_CONTINUES = re.compile(r"^\s*[a-z]")
#: A heading the model wrote ("## Results") or Docent's own ("**Pages 3–5.**", in a
#: summary whose combining step failed): not a claim; the text after a bold one is.
_HEADING = re.compile(r"^\s*(?:#{1,6}\s.*|\*\*[^*]+[.:]\*\*)\s*")


#: A word as a sentence writes it, with inner hyphens, apostrophes or dots ("VCF-R",
#: "RP-04", "Ian's"); a name when it starts with a capital ("Mandalorian", "Émile").
_WORD = re.compile(r"(?<![\w'’-])[^\W\d_]\w*(?:[-'’.]\w+)*")
#: What opens a sentence or a list item before its first word.
_OPENING = re.compile(r"^[\s\"“'‘(\[*#•\d.)-]*")
#: Punctuation after which a word is capitalised for being first, not for being a name
#: (an opening quotation mark or bracket: "“Yes”", "(Fig. 3)").
_FIRST_AFTER = (".", ":", "!", "?", "•", ";", '"', "“", "‘", "'", "(", "[")


def unwritten_names(sentence: str, words: Collection[str]) -> list[str]:
    """The names ``sentence`` writes that the document never does (``words``: its
    ``evaluation.words_of``, with its file name's): capitalised words but the first (and
    those after a colon), each part of a joined one ("VCF-R"), its digits aside (numbers
    are ``unstated_numbers``'), or the parts joined ("RP-04" of a text's "RP04"). An
    acronym of the capitalised words before it is not one: "the Free Software Foundation
    (FSF)" of a text that never abbreviates it."""
    text = _OPENING.sub("", plain(sentence), count=1)
    out: list[str] = []
    for m in _WORD.finditer(text):
        before = text[: m.start()].rstrip()
        if not m.group()[0].isupper() or not before or before.endswith(_FIRST_AFTER):
            continue
        name = re.sub(r"['’]s$", "", m.group())
        if len(name) < 2:
            continue  # "I", "R", "A"
        if "".join(words_of(name)) in words or _initials(name, before):
            continue
        if any(w not in words for w in words_of(name) if not w.isdigit()):
            out.append(m.group())
    return list(dict.fromkeys(out))


def _initials(name: str, before: str) -> bool:
    """``name`` is the initials of the capitalised words just before it."""
    if not (name.isupper() and name.isalpha() and 2 <= len(name) <= 6):
        return False
    capitals = [w for w in re.findall(r"[\w'’-]+", before) if w[:1].isupper()]
    return "".join(w[0] for w in capitals[-len(name) :]).upper() == name


def claims(summary: str) -> list[str]:
    """The summary's sentences to check, as written (for the window to find them)."""
    return [sentence for sentence, _ in headed_claims(summary)]


def headed_claims(summary: str) -> list[tuple[str, str]]:
    """``claims``, each with the heading of its section ("" before any): a list item
    under "## Team Alpha" is about Team Alpha, though it never says so."""
    out: dict[str, str] = {}
    heading = ""
    for paragraph in summary.split("\n\n"):
        text = paragraph.strip()
        if not text or _is_note(text):
            continue
        for line in _lines(text):
            found = _HEADING.match(line)
            if found and found.group().strip():
                heading = found.group().strip().strip("#* ")
            body = _HEADING.sub("", line, count=1)
            for sentence in split_sentences(body):
                s = sentence.strip()
                if s.endswith(":") or s in out:
                    continue  # (a sentence said twice is one claim, underlined where first)
                if len(terms(PAGE_REFERENCE.sub(" ", s))) < MIN_TERMS:
                    continue  # too short to judge, or where only: "[pages 17–20]"
                out[s] = heading
    return list(out.items())


def _lines(paragraph: str) -> list[str]:
    """The paragraph's lines, a line the model wrapped joined to the one before: a
    sentence cut in two by a line break was judged as two halves. A wrapped line goes on
    in lower case ("... that allows\nfree software to ..."); a line in capitals, a list
    item or a heading starts a line of its own ("1.1 In the Beginning\nThe project ...")."""
    lines: list[str] = []
    for line in paragraph.splitlines():
        if lines and _CONTINUES.match(line) and not PLACE_LABEL.match(lines[-1]):
            lines[-1] = f"{lines[-1].rstrip()} {line.strip()}"
        else:
            lines.append(line)
    return lines


def searchable(summary: str, unsupported: Collection[str]) -> str:
    """The summary's sentences the document bears out, for the document to be searched by:
    its claims less ``unsupported``. Cutting those out of the text left headings bare, and
    missed a list item the split writes otherwise ("*   The ..." is "* The ...")."""
    kept = [LIST_ITEM.sub("", s) for s in claims(summary) if s not in unsupported]
    return " ".join(kept)


def _is_note(paragraph: str) -> bool:
    """Docent's italic notes ("_Sections: 2 of 2 summarised by the model ..._")."""
    return paragraph.startswith("_") and paragraph.endswith("_")


@dataclass(frozen=True, slots=True)
class SummaryCheck:
    """What the document says of a model's summary (``check_summary``)."""

    #: The sentences it does not clearly say, in order.
    unsupported: list[str]
    #: For each sentence it bears out, where the passage that does best is: its page
    #: ("p. 4"; of a passage over two, the one holding the sentence's words), or its own
    #: place ("lines 13-29", "slide 3"). A model's summary named no page: a reader could
    #: not find where a sentence came from (QA-79).
    places: dict[str, str] = field(default_factory=dict)


def check_summary(
    summary: str,
    doc_id: str,
    text: str,
    store: Store,
    embedder: Embedder,
    cancel: threading.Event | None = None,
    file_name: str = "",
) -> SummaryCheck | None:
    """The sentences of ``summary`` the document (``doc_id``, whose whole extracted text
    is ``text``, its file ``file_name``) does not clearly say, and where it says each
    of the others (``SummaryCheck.places``); None when the summary has no sentence to
    judge, or the library holds no passage of it to check against (it is being indexed
    again). Raises Cancelled."""
    headed = headed_claims(summary)
    sentences = [sentence for sentence, _ in headed]
    if not sentences:
        return None  # nothing to check: not "each sentence was found"
    have = stated_numbers(text)
    written = set(words_of(text)) | set(words_of(file_name))
    english = is_english(words_of(summary))
    # (a summary of bullets has few stopwords: its document tells whether names are)
    prose = english or is_english(words_of(text))
    # a heading's words that the document writes in small letters are no names ("Early
    # Releases" of a history that says "early releases": review, session 32)
    lower = frozenset(re.findall(r"\b[a-z][a-z'’-]*\b", text))
    t = THRESHOLDS
    found: list[str] = []
    places: dict[str, str] = {}
    searched = False
    for (sentence, heading), vector in zip(
        headed, embedder.query_dense_many([plain(s) for s in sentences]), strict=True
    ):
        if cancel is not None and cancel.is_set():
            raise Cancelled("Stopped: the summary was cancelled.")
        near = store.query(dense=vector, limit=NEAREST, doc_ids=[doc_id])
        if not near:
            continue
        searched = True
        wanted = (terms(sentence) - _FRAMING) or terms(sentence)
        scored = _scored(store, vector, near, [h.score for h in near])
        support = _together(wanted, scored)
        if support < t.support:
            # or the chunk richest in its words, alone: a short sentence ("Python 2.6 and
            # 3.1") is not near the chunk that lists it, whose other lines its vector blurs
            sparse = embedder.query_sparse(plain(sentence))
            for hit in store.query(sparse=sparse, limit=BY_WORDS, doc_ids=[doc_id]):
                whole = [cosine(vector, v) for v in store.dense_vectors([hit.id]).values()]
                alone = _scored(store, vector, [hit], [max([0.0, *whole])])
                if (by_words := _together(wanted, alone)) > support:
                    support, scored = by_words, [*scored, *alone]
        texts = [str(h.payload.get("text", "")) for h in near]
        if (
            support < t.support
            or unstated_numbers(plain(sentence), have)
            or (english and unwritten_names(sentence, written))
            or misplaced(plain(sentence), texts, about=names_in(heading) - lower, english=prose)
            or contradicted(plain(sentence), texts)
        ):
            found.append(sentence)
        elif not PAGE_REFERENCE.search(sentence):  # (one naming its pages needs no more)
            best = hit_from_point(max(scored, key=lambda s: _together(wanted, [s])).hit)
            places[sentence] = best.location or f"p. {focus_page(best, [sentence])}"
    return SummaryCheck(found, places) if searched else None


@dataclass(frozen=True, slots=True)
class _Scored:
    """A chunk a sentence is scored against: the content words it holds, and its best
    cosine with the sentence (the whole chunk's or one of its sentences')."""

    hit: ScoredPoint
    said: frozenset[str]
    cosine: float


def _scored(
    store: Store, vector: list[float], hits: Sequence[ScoredPoint], whole: Sequence[float]
) -> list[_Scored]:
    """``hits`` with their cosines: ``whole`` (a dense search's scores are those) or one
    of their sentences' (the stored vectors: nothing is embedded again)."""
    packed = store.sentence_vectors([h.id for h in hits])
    out = []
    for hit, cos in zip(hits, whole, strict=True):
        best = best_cosine(packed.get(hit.id, ""), vector)  # (None: no sentence vectors)
        said = frozenset(terms(str(hit.payload["text"])))
        out.append(_Scored(hit, said, max(0.0, cos, best or 0.0)))
    return out


def _together(wanted: set[str], scored: Sequence[_Scored]) -> float:
    """An answer's support score (attribution.py) of a sentence (its content words
    ``wanted``) by the chunks ``scored`` together: the share of its words they hold,
    weighed with its best cosine with one of them."""
    t = THRESHOLDS
    said: set[str] = set().union(*(s.said for s in scored))
    overlap = len(wanted & said) / len(wanted)
    return t.weight * overlap + (1 - t.weight) * max([0.0, *(s.cosine for s in scored)])


def check_note(unsupported: Sequence[str] | None, how: str = "") -> str:
    """What the window and the CLI say of a summary's check: how many sentences the
    document does not clearly support (``how``: where they are, "underlined", "below"),
    or that none was flagged; "" when it was not checked (an extractive summary)."""
    if unsupported is None:
        return ""
    n = len(unsupported)
    if n == 0:
        # not "found in the document": it read as quoted from it (QA-77, of a summary
        # calling the IBM 1301 disk "a high-performance computer")
        return (
            "No sentence of this summary was flagged: each is close to a passage of the "
            "document (a check, not a guarantee)."
        )
    which, verb, them = ("1 sentence", "is", "it") if n == 1 else (f"{n} sentences", "are", "them")
    shown = f" ({how})" if how else ""
    return (
        f"{which.capitalize()} of this summary{shown} {verb} not clearly supported by the "
        f"document; a small model can make things up, so check {them} against the document."
    )
