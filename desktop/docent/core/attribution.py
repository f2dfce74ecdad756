"""Which offered passage supports each sentence of an answer.

Small models often cite nothing, or cite the wrong number. After an answer is streamed,
every sentence with enough content words (``evaluation.MIN_TERMS``) is scored against the
passages the model was shown:

- **overlap**: the share of the sentence's content words found in the passage (stemmed);
- **cosine**: the similarity of their embeddings (the library's own embedding model),
  the best of the whole passage and each of its sentences: a sentence that restates one
  sentence of a long passage is near that sentence but far from the whole.

``support = weight * overlap + (1 - weight) * cosine``, except that a passage missing a
number the sentence states (a year, a size, a count) cannot support it: small models get
numbers wrong in sentences that otherwise echo the passage word for word ("died on
December 31st, 2019" against "died in December 2015"), nor can one that states the
sentence's figure only for something else and gives what the sentence is about another
("Work ends on 1 June" of "The painter arrives on 1 June. Work ends on 15 June.";
``binding.misplaced``). Then:

- a sentence the model cited is supported when its cited passages reach ``support``;
  when they do not and another offered passage clearly does (``clear``, and ``margin``
  above the cited ones), the citation is reported as misattributed;
- a sentence the model left uncited is **matched** to its best passage when that passage
  reaches ``support``: the marker ``[n]`` is inserted at the end of the sentence and the
  citation is marked as matched (not written by the model);
- an answer of several sentences that cites nothing and has no sentence matched is
  matched **as a whole** to the passage that clearly supports all its sentences together
  (``whole``, ``whole_margin`` above any other): one marker after the answer; its
  sentences stay flagged, since none is supported alone;
- any other sentence is flagged as not clearly supported.

A citation Docent writes itself (a match, a whole-answer match, "passage [n] does") also
needs the sentence to copy ``copied_words`` words in a row from the passage, or the score
to reach ``paraphrase``: a small model recombines a passage's words into claims the
passage does not make, and those score 0.5-0.8 like its faithful sentences do. Read blind
(``benchmarks/citation_reading.py``), 58 % of the sentences matched at 0.5 were wrong, 24 %
of those this rule keeps. The model's own citations are checked by the score alone.

The thresholds were chosen on the dev questions (``benchmarks/answer_eval.py
--calibrate``; figures in docs/measurements/answers.md). Without an embedder the overlap
alone decides, at ``evaluation.SUPPORT_THRESHOLD``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from docent.core.binding import changed, contradicted, misplaced
from docent.core.citations import MARKER, cited_numbers, code_spans, in_spans, markers
from docent.core.evaluation import (
    MIN_TERMS,
    SUPPORT_THRESHOLD,
    WORD,
    Conflict,
    Faithfulness,
    SentenceSupport,
    cosine,
    split_sentences,
    terms,
    words_of,
)
from docent.core.numbers import stated_numbers, unstated_numbers

EmbedFn = Callable[[Sequence[str]], list[list[float]]]


@dataclass(frozen=True, slots=True)
class Thresholds:
    #: Weight of term overlap in the support score (the rest is cosine similarity).
    weight: float = 0.5
    #: A passage supports a sentence at or above this score.
    support: float = 0.5
    #: Another passage "clearly" supports a sentence at or above this score ...
    clear: float = 0.6
    #: ... and this much above the passages the model cited.
    margin: float = 0.15
    #: An answer of several sentences none of which is cited or matched is matched as a
    #: whole to the passage whose score for all its sentences together reaches this ...
    whole: float = 0.5
    #: ... and is this much above every other passage's.
    whole_margin: float = 0.1
    #: Cosine against windows of this many of the passage's sentences as well as the whole
    #: passage (the best counts). 0: the whole passage only.
    window: int = 1
    #: Docent puts a citation of its own (a match, a whole-answer match, "passage [n]
    #: does") only on a sentence that copies this many words in a row from the passage
    #: (all its words, when it has fewer) ...
    copied_words: int = 6
    #: ... or that the passage supports at this score without: a small model's sentence
    #: made of a passage's words recombined scores 0.5-0.8 and is rarely what the passage
    #: says (``benchmarks/citation_reading.py``: of 207 sentences matched at 0.5 and read
    #: blind, 121 wrong; this rule keeps 83 of them, 20 wrong).
    paraphrase: float = 0.8
    #: A supported sentence's words outside the runs of at least ``unsaid_run`` words it
    #: copies from its passage, when they hold ``unsaid_words`` content words or more
    #: that the passage lacks, are a part the passage does not say (``unsaid``): a small
    #: model copies half a sentence and makes up the rest. Read blind, this marks 32 of
    #: the 38 sentences "in part" that Docent cites, and 1 of the 25 "supported".
    unsaid_run: int = 3
    unsaid_words: int = 2


#: Chosen on the dev questions (see the module docstring).
THRESHOLDS = Thresholds()
#: Overlap alone (no embedder): the long-standing faithfulness threshold.
OVERLAP_ONLY = Thresholds(weight=1.0, support=SUPPORT_THRESHOLD, clear=0.75, margin=0.25)

#: How a small model says where a sentence is from: "Passage [2] says:", "According to
#: passage [1],": a frame, not a part of the claim its passage does not say (QA, s32).
_FRAMING = re.compile(
    r"\s*(?:[-*•]\s*)?(?:according\s+to\s+)?(?:the\s+)?passages?\s*(?:\[\d+\]\s*)*"
    r"(?:says?|states?|mentions?|notes?|explains?|reads?|shows?)?\s*(?:that\s*)?[:,]?",
    re.I,
)
#: A word written as a name ("England", "Brellmoor"), not a sentence's first.
_NAME = re.compile(r"[A-Z][a-z][\w'’-]*$")


def _is_name(k: int, word: str) -> bool:
    """Word ``k`` of a sentence is a name its passage must say: alone, one new name is a
    part the passage does not say ("founded in 1987 in Brellmoor, England [1]" of a
    passage naming no England; QA-75). Of the 249 blind-read sentences
    (``benchmarks/data/citation_reading.jsonl``), 0 of the 31 read as supported hold a
    name their passage does not, 22 of the 218 read as wrong or in part do."""
    return k > 0 and bool(_NAME.match(word))


#: A passage without one of the sentence's numbers scores at most this (no support).
NUMBER_MISMATCH_CAP = 0.25
_END_PUNCT = re.compile(r"([.!?:;]+[\"'”’)*_`]*)$")
#: One or more list bullets or item numbers: small models stack them ("1) 3) The ...").
_LIST_PREFIX = re.compile(r"^\s*(?:(?:[-*+•]|\d{1,2}[.):]|#{1,6})\s+)+")


@dataclass(slots=True)
class Attribution:
    #: The answer with a marker inserted after each matched sentence.
    text: str
    faith: Faithfulness
    #: Valid numbers the model wrote, in order of first appearance.
    model_cited: list[int]
    #: Numbers Docent matched to sentences the model left uncited, ascending (with
    #: ``whole`` among them).
    matched: list[int]
    #: The passage Docent matched to the answer as a whole (no single sentence was).
    whole: int | None = None

    @property
    def misattributed(self) -> list[SentenceSupport]:
        return [s for s in self.faith.sentences if s.better is not None]


class Scorer:
    """Support scores of sentences against the offered passages (one embedding call)."""

    def __init__(
        self,
        sentences: Sequence[str],
        passages: Mapping[int, str],
        embed: EmbedFn | None,
        thresholds: Thresholds,
        layout: Mapping[int, str] | None = None,
    ) -> None:
        self.passages = passages
        #: The passages as their files lay them out, where ``passages`` is what the model
        #: was shown, flattened: a heading or a paragraph ends a statement (``binding``).
        self.layout = layout or passages
        self.t = thresholds
        self._terms = {n: terms(text) for n, text in passages.items()}
        self._numbers = {n: stated_numbers(text) for n, text in passages.items()}
        self._words = {n: f" {' '.join(words_of(text))} " for n, text in passages.items()}
        self._conflicts: dict[tuple[str, tuple[int, ...]], Conflict | None] = {}
        self._cos: list[dict[int, float]] = [{} for _ in sentences]
        if embed is not None and sentences and passages and thresholds.weight < 1.0:
            owners = [
                (n, part) for n in passages for part in pieces(passages[n], thresholds.window)
            ]
            vectors = embed([plain(s) for s in sentences] + [part for _, part in owners])
            svecs, pvecs = vectors[: len(sentences)], vectors[len(sentences) :]
            for i, sv in enumerate(svecs):
                cos = self._cos[i]
                for (n, _), pv in zip(owners, pvecs, strict=True):
                    cos[n] = max(cos.get(n, -1.0), cosine(sv, pv))

    def overlap(self, sentence: str, numbers: Sequence[int]) -> float:
        wanted = terms(sentence)
        if not wanted:
            return 1.0
        have: set[str] = set()
        for n in numbers:
            have |= self._terms.get(n, set())
        return len(wanted & have) / len(wanted)

    def score(self, i: int, sentence: str, numbers: Sequence[int]) -> float:
        """Support of sentence ``i`` by the passages ``numbers`` together."""
        if not numbers:
            return 0.0
        overlap = self.overlap(sentence, numbers)
        if self.t.weight >= 1.0 or not self._cos[i]:
            score = overlap
        else:
            cos = max(self._cos[i].get(n, 0.0) for n in numbers)
            score = self.t.weight * overlap + (1 - self.t.weight) * cos
        have: set[str] = set().union(*(self._numbers.get(n, set()) for n in numbers))
        if unstated_numbers(plain(sentence), have) or self.conflict(sentence, numbers):
            return min(score, NUMBER_MISMATCH_CAP)
        return score

    def conflict(self, sentence: str, numbers: Sequence[int]) -> Conflict | None:
        """The statement of passages ``numbers`` that the sentence goes against
        (``binding``): one giving what it is about another figure than the sentence's,
        which those passages give only for something else ("Work ends on 15 June." of
        "Work ends on 1 June" and a passage where the painter arrives on 1 June); or one it
        says again with its sense turned ("did not deliver", "early" of "late") or with
        another name in a name's place ("Team Beta has spent ..." of "Team Alpha has
        spent ...")."""
        key = (sentence, tuple(numbers))
        if key not in self._conflicts:
            given = [n for n in numbers if n in self.layout]
            texts = [self.layout[n] for n in given]
            text = plain(sentence)
            found: Conflict | None = None
            if (figure := misplaced(text, texts)) is not None:
                found = Conflict(given[figure[0]], " ".join(figure[1].split()), "figure")
            elif (turned := contradicted(text, texts)) is not None:
                found = Conflict(given[turned[0]], " ".join(turned[1].split()), turned[2])
            elif (other := changed(text, texts)) is not None:  # the least said: last
                found = Conflict(given[other[0]], " ".join(other[1].split()), "changed")
            self._conflicts[key] = found
        return self._conflicts[key]

    def best(self, i: int, sentence: str, exclude: Sequence[int] = ()) -> tuple[int | None, float]:
        """The single passage that supports the sentence best (earlier ones win ties)."""
        best_n, best_score = None, -1.0
        for n in self.passages:
            if n in exclude:
                continue
            score = self.score(i, sentence, [n])
            if score > best_score:
                best_n, best_score = n, score
        return best_n, max(best_score, 0.0)

    def copies(self, sentence: str, n: int) -> bool:
        """Whether the sentence copies ``copied_words`` words in a row from passage ``n``
        (all of its words, when it has fewer), case and punctuation aside."""
        words = words_of(plain(sentence))
        k = min(self.t.copied_words, len(words))
        return any(copied(words, k, [self._words.get(n, "")]))

    def unsaid(self, sentence: str, numbers: Sequence[int]) -> tuple[str, ...]:
        """The parts of a sentence that passages ``numbers`` do not say (``unsaid_run``,
        ``unsaid_words``), as the sentence writes them; citation markers aside."""
        marks = [m.span() for m in MARKER.finditer(sentence)]
        if framed := _FRAMING.match(sentence):  # "Passage [2] says:" is no claim of its own
            marks.append(framed.span())
        spans = [
            m.span()
            for m in WORD.finditer(sentence)
            if not any(a <= m.start() < b for a, b in marks)
        ]
        words = [sentence[a:b].lower() for a, b in spans]
        covered = copied(words, self.t.unsaid_run, [self._words.get(n, "") for n in numbers])
        have: set[str] = set().union(*(self._terms.get(n, set()) for n in numbers))
        said = "".join(self._words.get(n, "") for n in numbers)
        parts: list[str] = []
        j = 0
        while j < len(words):
            if covered[j]:
                j += 1
                continue
            end = j
            while end < len(words) and not covered[end]:
                end += 1
            text = sentence[spans[j][0] : spans[end - 1][1]]
            new = terms(text) - have
            named = [
                w
                for k in range(j, end)
                if _is_name(k, w := sentence[slice(*spans[k])])
                and all(f" {n} " not in said for n in words_of(w))
            ]
            if len(new) >= self.t.unsaid_words or named:
                parts.append(text)
            j = end
        return tuple(parts)

    def vouches(self, i: int, sentence: str, n: int, bar: float) -> float | None:
        """The score of passage ``n`` for a citation Docent puts on the sentence itself: at
        least ``bar``, and the sentence copies from it or the score reaches ``paraphrase``;
        None otherwise."""
        score = self.score(i, sentence, [n])
        if score < bar or score < self.t.paraphrase and not self.copies(sentence, n):
            return None
        return score

    def best_vouched(
        self, i: int, sentence: str, bar: float, exclude: Sequence[int] = ()
    ) -> tuple[int, float] | None:
        """The passage Docent can cite for the sentence (:meth:`vouches`) with the best
        score (earlier ones win ties), or None."""
        found: tuple[int, float] | None = None
        for n in self.passages:
            score = None if n in exclude else self.vouches(i, sentence, n, bar)
            if score is not None and (found is None or score > found[1]):
                found = (n, score)
        return found


def attribute(
    answer: str,
    passages: Mapping[int, str],
    embed: EmbedFn | None = None,
    *,
    thresholds: Thresholds | None = None,
    layout: Mapping[int, str] | None = None,
) -> Attribution:
    """Check the model's citations, match uncited sentences, flag the rest.

    ``passages`` maps the offered numbers to the text the model was shown; numbers not in
    it are ignored (drop them first: ``citations.drop_invalid``). ``layout``:
    the same passages as their files lay them out (lines, headings), when ``passages``
    flattened them, for telling their statements apart (``binding``).
    """
    t = thresholds or (THRESHOLDS if embed is not None else OVERLAP_ONLY)
    sentences = split_sentences(answer)
    cites = _cited_by_sentence(answer, sentences)
    judged = _judged(sentences, cites)
    whole = " ".join(plain(sentences[i]) for i in judged)
    scorer = Scorer([*(sentences[i] for i in judged), whole], passages, embed, t, layout)
    checks: list[SentenceSupport] = []
    matches: dict[int, int] = {}
    for i, (sentence, (numbers, _)) in enumerate(zip(sentences, cites, strict=True)):
        cited = tuple(n for n in numbers if n in passages)
        if i not in judged:
            checks.append(SentenceSupport(sentence, cited, 1.0, True, judged=False))
            continue
        k = judged.index(i)
        check = _check(scorer, k, sentence, cited)
        if check.matched is not None:
            matches[i] = check.matched
        checks.append(check)
    model_cited = [n for n in cited_numbers(answer) if n in passages]
    as_whole = None
    if not model_cited and not matches and len(judged) >= 2:
        as_whole = whole_match(scorer, len(judged), whole)
    text = insert_markers(answer, sentences, matches)
    if as_whole is not None:
        text = f"{text.rstrip()}\n\n(Docent matched the answer as a whole to [{as_whole}].)"
    return Attribution(
        text=text,
        faith=Faithfulness(checks),
        model_cited=model_cited,
        matched=sorted(set(matches.values()) | ({as_whole} if as_whole else set())),
        whole=as_whole,
    )


def whole_match(scorer: Scorer, i: int, whole: str) -> int | None:
    """The passage that clearly supports the answer ``whole`` (scored as sentence ``i``)
    though none of its sentences is supported alone: a paraphrase spread over sentences
    that share the passage's words and meaning. A number the answer states that the
    passage lacks rules the passage out, as for a sentence."""
    scores = sorted(((scorer.score(i, whole, [n]), n) for n in scorer.passages), reverse=True)
    if not scores:
        return None
    best, n = scores[0]
    second = scores[1][0] if len(scores) > 1 else 0.0
    t = scorer.t
    if best - second < t.whole_margin or scorer.vouches(i, whole, n, t.whole) is None:
        return None
    return n


#: What a sentence quotes: a sentence (or list item) opening in a quotation mark, or what
#: it says a passage "says:", "states," or "reads" in one (``Passage [2] says: "..."``),
#: up to the closing mark. No two runs of spaces side by side: a long run would be split
#: every way before the search gives up (review).
_QUOTED = re.compile(
    r"""(?:^\s*(?:(?:[-*•]|\d+[.)])\s*)?|\b(?:says|states|reads)\s*(?:[:,]\s*)?)["“]"""
    r"""(?P<quote>[^"”]*)""",
    re.I,
)


def misquotes(scorer: Scorer, sentence: str, cited: Sequence[int]) -> bool:
    """The sentence puts words in quotation marks on passages ``cited`` that copy none of
    them (``copied_words`` in a row, or all of a shorter quotation). A small model begun in
    a quotation writes ``Passage [2] says: "..."`` itself, mostly about words the passage
    does not say (a blind reading, docs/measurements/answers.md, session 22): a quotation
    is held to what Docent's own citations are, a copy."""
    found = _QUOTED.search(sentence)
    quote = found.group("quote") if found else ""
    return bool(words_of(plain(quote))) and not any(scorer.copies(quote, n) for n in cited)


def _check(scorer: Scorer, i: int, sentence: str, cited: tuple[int, ...]) -> SentenceSupport:
    t = scorer.t
    if cited:
        score = scorer.score(i, sentence, cited)
        if score >= t.support and (score >= t.paraphrase or not misquotes(scorer, sentence, cited)):
            return SentenceSupport(
                sentence, cited, score, True, unsaid=scorer.unsaid(sentence, cited)
            )
        other = scorer.best_vouched(i, sentence, t.clear, exclude=cited)
        clearly = other is not None and other[1] - score >= t.margin
        better = other[0] if other is not None and clearly else None
        conflict = None if better is not None else scorer.conflict(sentence, cited)
        return SentenceSupport(sentence, cited, score, False, better=better, conflict=conflict)
    match = scorer.best_vouched(i, sentence, t.support)
    if match is not None:
        n, score = match
        unsaid = scorer.unsaid(sentence, [n])
        return SentenceSupport(sentence, (), score, True, matched=n, unsaid=unsaid)
    best, score = scorer.best(i, sentence)
    conflict = scorer.conflict(sentence, [best]) if best is not None else None
    return SentenceSupport(sentence, (), score, False, conflict=conflict)


def insert_markers(text: str, sentences: Sequence[str], matches: Mapping[int, int]) -> str:
    """``text`` with ``[n]`` put at the end of each matched sentence, before its final
    punctuation ("... registers [2]."). The sentences may have their spaces collapsed
    ("•   Item" in the text, "• Item" as split): found with any run of spaces between
    their words. A sentence not found at all is left as is."""
    return insert_after(text, sentences, {i: f"[{n}]" for i, n in matches.items()})


def insert_after(text: str, sentences: Sequence[str], labels: Mapping[int, str]) -> str:
    """``text`` with ``labels[i]`` put at the end of sentence ``i`` of ``sentences`` (in
    the order ``text`` has them), before its final punctuation ("... registers [2].",
    "... every evening (p. 4).")."""
    out: list[str] = []
    cursor = 0
    for i, end in enumerate(_sentence_ends(text, sentences)):
        if end is None:
            continue
        if i in labels:
            head = text[cursor:end]
            punct = _END_PUNCT.search(head)
            cut = punct.start() if punct else len(head)
            out.append(f"{head[:cut].rstrip()} {labels[i]}{head[cut:]}")
        else:
            out.append(text[cursor:end])
        cursor = end
    out.append(text[cursor:])
    return "".join(out)


def _sentence_ends(text: str, sentences: Sequence[str]) -> list[int | None]:
    """Where each of ``sentences`` (split from ``text``, in order) ends in ``text``; found
    by its last words with any run of spaces between them (a split may collapse them:
    "•   Item" in the text, "• Item" as split). None for one not found."""
    ends: list[int | None] = []
    cursor = 0
    for sentence in sentences:
        words = sentence[-40:].split()
        found = (
            re.compile(r"\s+".join(map(re.escape, words))).search(text, cursor) if words else None
        )
        ends.append(found.end() if found else None)
        cursor = found.end() if found else cursor
    return ends


def _judged(sentences: Sequence[str], cites: Sequence[tuple[tuple[int, ...], bool]]) -> list[int]:
    return [i for i, s in enumerate(sentences) if len(terms(s)) >= MIN_TERMS and not cites[i][1]]


def _cited_by_sentence(answer: str, sentences: Sequence[str]) -> list[tuple[tuple[int, ...], bool]]:
    """The numbers each sentence cites, and whether it is code. A line of a fenced code
    block is a "sentence" without the fence that makes it code, so its brackets
    (``values[2]``) are read by where they stand in the whole answer: no citation inside
    code; and code is no claim to check (nor a place for a marker)."""
    code = code_spans(answer)
    if not code:
        return [(tuple(cited_numbers(s)), False) for s in sentences]
    real = markers(answer)
    out: list[tuple[tuple[int, ...], bool]] = []
    start = 0
    for sentence, end in zip(sentences, _sentence_ends(answer, sentences), strict=True):
        if end is None:  # not found as written: its own markers, as before
            out.append((tuple(cited_numbers(sentence)), False))
            continue
        first = start + len(answer[start:end]) - len(answer[start:end].lstrip())
        found = (cited_numbers(m.group(0)) for m in real if start <= m.start() < end)
        numbers = tuple(dict.fromkeys(n for ns in found for n in ns))
        out.append((numbers, in_spans(first, code) and in_spans(end - 1, code)))
        start = end
    return out


def plain(sentence: str) -> str:
    """A sentence without citation markers or a list bullet (what is embedded)."""
    return " ".join(_LIST_PREFIX.sub("", MARKER.sub(" ", sentence)).split())


def pieces(passage: str, window: int) -> list[str]:
    """The passage, then its windows of ``window`` consecutive sentences (none for 0, or
    when the passage is no longer than one window)."""
    if window <= 0:
        return [passage]
    sentences = split_sentences(passage)
    if len(sentences) <= window:
        return [passage]
    return [passage] + [
        " ".join(sentences[i : i + window]) for i in range(len(sentences) - window + 1)
    ]


def copied(words: Sequence[str], k: int, passages: Sequence[str]) -> list[bool]:
    """Which of ``words`` lie in a run of ``k`` or more of them that one of ``passages``
    (each its words joined by single spaces, with a space at either end) holds too."""
    covered = [False] * len(words)
    for j in range(len(words) - k + 1):
        run = f" {' '.join(words[j : j + k])} "
        if any(run in hay for hay in passages):
            covered[j : j + k] = [True] * k
    return covered
