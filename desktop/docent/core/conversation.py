"""A conversation: its answers and turns, its document scope and follow-ups.

This is the one model of a chat: the command line and the window both keep a
``Conversation``, ``Engine.ask`` adds exactly one ``Turn`` to it per question (answered,
stopped or failed), and the window draws ``turns`` as they are.

- ``scope`` (document paths, or None for the whole library) persists across turns until
  it is changed (``Engine.ask(files=[...])`` sets it, ``files=[]`` clears it).
- ``collection`` (an id, or None for all) is the collection the conversation was started
  in: every question searches only it, the scope too.
- Earlier turns go back to the model as question + answer only: their passages are
  replaced by a marker such as ``[passages from turn 2 omitted]``, so a long chat never
  resends old context. Turns without an answer are not sent.
- A follow-up ("and on the 11/70?") is rewritten into a standalone query: by the model
  when one is available (``rewrite_messages`` / ``parse_rewrite``), otherwise by
  ``fallback_query``: the question plus the previous question's keywords.
- A question asked again (Retry) keeps the answers it got before: the turn's other
  ``attempts`` stay with it, and ``show_attempt`` brings one back as the turn's answer
  (the one follow-ups follow and the export leads with).
- ``answer_notes.conversation_markdown`` is the one export of a chat, with each answer's
  notes in the words the window's footer uses.

Threads: while ``Engine.ask`` runs on a worker, that worker owns the conversation (it
reads the history and appends the turn); the window touches it only between questions.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from docent.core import words as text_words
from docent.core.citations import Citation, strip_markers
from docent.core.errors import Cancelled
from docent.core.evaluation import Conflict, terms
from docent.core.models import Hit
from docent.core.numbers import MONTH_NAMES, WEEKDAY_NAMES, numbers_in, stated_numbers
from docent.core.queryterms import analyse, content_words

Mode = Literal["generated", "extractive", "abstained"]


class AskStage(enum.StrEnum):
    """Where a question is, for a window to say while it waits (``Engine.ask``'s
    ``on_stage``); the answer's tokens follow ``WAITING``."""

    #: the model makes a follow-up into a standalone question
    REWRITING = "rewriting"
    SEARCHING = "searching"
    #: the model orders the passages found (``llm_rerank``, off by default)
    RERANKING = "reranking"
    #: the passages are sent to the model; no word of the answer yet
    WAITING = "waiting"
    #: the answer is in; its citations and sentences are being checked
    CHECKING = "checking"
    #: no passage supported that answer: the model is asked again, and the tokens that
    #: follow are its next answer (what was streamed before is dropped)
    RETRYING = "retrying"


StageCallback = Callable[[AskStage], None]


@dataclass(slots=True)
class Answer:
    question: str
    text: str
    mode: Mode
    citations: list[Citation] = field(default_factory=list)
    #: The passages given to the model: ``offered[n - 1]`` is ``[n]``. For extractive and
    #: abstained answers, the passages shown.
    offered: list[Hit] = field(default_factory=list)
    #: Numbers the model cited that were never offered (removed from ``text``).
    invalid_citations: list[int] = field(default_factory=list)
    #: Places the model wrote as a passage's header for a page it was not given
    #: ("history.pdf p.34"; removed from ``text``).
    unoffered_pages: list[str] = field(default_factory=list)
    #: Pages the answer names in its sentences ("on page 45") that no passage given to
    #: the model is from (left in ``text``; citations.pages_not_given).
    pages_not_given: list[str] = field(default_factory=list)
    unsupported_sentences: list[str] = field(default_factory=list)
    #: Those of ``unsupported_sentences`` that cite nothing: no offered passage supports
    #: them. The others cite a passage that does not clearly support them.
    uncited_sentences: list[str] = field(default_factory=list)
    #: Parts of supported sentences that their passages do not say, as written: the
    #: sentence copies the passage, then goes on with something it made up
    #: (``evaluation.SentenceSupport.unsaid``).
    unsaid_parts: list[str] = field(default_factory=list)
    #: Unsupported sentences that go against a statement of their passage, with it: a
    #: figure it gives only for something else ("Work ends on 1 June" of "The painter
    #: arrives on 1 June. Work ends on 15 June."), a sense turned, a name in another's
    #: place (``evaluation.Conflict``, ``binding``).
    conflicts: list[tuple[str, Conflict]] = field(default_factory=list)
    #: (sentence, support score) of each sentence long enough to judge.
    sentence_support: list[tuple[str, float]] = field(default_factory=list)
    confidence: str = ""  # "high" | "medium" | "low"
    #: Why the answer is extractive or abstained, or why a generated one is partial or
    #: cut ("" otherwise). What Docent's checks found is in the fields below, and worded
    #: once, for every place that shows it, by ``answer_notes.notes``.
    reason: str = ""
    model: str = ""
    seconds: float = 0.0
    #: The standalone query searched, and the rewrites passed to retrieval.
    query: str = ""
    rewrites: list[str] = field(default_factory=list)
    #: The stream broke or was stopped: ``text`` is what arrived.
    partial: bool = False
    #: Model requests made for this question (rewrite, rerank, answer, retries).
    requests: int = 0
    #: Why the answer was cut short (a loop, rambling, its budget), or for an extractive
    #: one, why the model's own output could not be used (cut before anything useful, or
    #: empty); "" when it was not, and for an extractive answer no model wrote.
    cut: str = ""
    #: Model citations whose passage does not support the sentence while another
    #: offered passage clearly does: (sentence, numbers cited, the better number).
    misattributed: list[tuple[str, tuple[int, ...], int]] = field(default_factory=list)
    #: The passage Docent matched to the answer as a whole (no sentence was supported
    #: alone); None otherwise. Its citation is among ``citations``, source "matched".
    answer_match: int | None = None
    #: Tokens streamed for the answer, and its budget (``num_predict``).
    tokens: int = 0
    budget: int = 0
    #: A generated answer of which no sentence is supported by an offered passage (the
    #: model cited nothing, Docent matched nothing): ``text`` says so first and quotes the
    #: best passages after the model's words. Not an answer "with a citation".
    unsupported_answer: bool = False
    #: The model's answers asked for: above 1 when its first answer had no supported
    #: sentence and it was asked again (``llm_answer_retries``); ``attempt`` is the one
    #: shown (1: no later one had a sentence a passage clearly says).
    attempts: int = 1
    attempt: int = 1
    #: Retrieval's verdict that the passages found do not answer the question, when the
    #: person asked the model anyway (an abstention overridden: "Ask anyway"); the notes
    #: say it. "" otherwise.
    overrode: str = ""
    #: The LLM rerank (``llm_rerank``): the search's ranks (1-based) of the passages the
    #: model put first, in its order; [] when it named none or its reply could not be
    #: used (the search's order stands); None when it was not asked (or Ollama was out
    #: of reach, which ``reason`` says).
    reranked: list[int] | None = None
    #: Why the rerank's reply could not be used (an error, a timeout, a cut); "" else.
    rerank_failed: str = ""
    #: A question asking how many or how much, answered with no count
    #: (``evaluation.gives_no_number``): one confidence step lower, and noted.
    no_number: bool = False
    #: Lines of code the model wrote that no passage offered holds
    #: (``citations.unsourced_code``): an invented command, which the sentence checks
    #: (code is no claim) let pass unmarked (QA-80).
    unsourced_code: list[str] = field(default_factory=list)
    #: Extractive because the question left the model's context no room for a passage:
    #: no model was asked (a Retry would do the same; a shorter question would not).
    too_long: bool = False

    @property
    def asked_anyway(self) -> bool:
        return bool(self.overrode)

    @property
    def search_note(self) -> str:
        """How a follow-up was searched when not as asked, in a sentence (the chat's
        footer; ``docent ask`` asks one question, never a follow-up); "" when it was
        searched as asked, and for an abstained answer, whose text says what was
        searched. Words of the previous question were added with no word of it (QA,
        session 27)."""
        if not self.query or self.query == self.question or self.mode == "abstained":
            return ""
        if self.rewrites:  # the model's rewrite, the keyword form beside it
            model = self.model or "the model"
            return f"Searched as a follow-up, as {model} rewrote it: “{self.query}”."
        return (
            f"Searched as a follow-up: “{self.query}” (your question with words of the "
            "one before it)."
        )

    @property
    def rerank_note(self) -> str:
        """What the LLM rerank did to the passages the answer was given, in a sentence
        (the chat's footer, ``docent ask``); "" when it was not asked."""
        if self.reranked is None:
            return ""
        model = self.model or "The model"
        if self.rerank_failed:
            why = self.rerank_failed.rstrip(".")
            return (
                f"{model} was asked which passages answer (LLM rerank), but "
                f"{why[:1].lower()}{why[1:]}: they are in the search's order."
            )
        if not self.reranked:
            return (
                f"{model} was asked which passages answer (LLM rerank) and named none: "
                "they are in the search's order."
            )
        if self.reranked == list(range(1, len(self.reranked) + 1)):
            first = "passage" if len(self.reranked) == 1 else f"{len(self.reranked)} passages"
            return (
                f"{model} was asked which passages answer (LLM rerank) and chose the "
                f"search's first {first}: the order is the search's."
            )
        ranks = [str(n) for n in self.reranked]
        said = ranks[0] if len(ranks) == 1 else ", ".join(ranks[:-1]) + " and " + ranks[-1]
        one = len(ranks) == 1
        return (
            f"{model} put first the {'passage' if one else 'passages'} it judged to answer "
            f"(LLM rerank): the search had {'it at rank' if one else 'them at ranks'} {said}."
        )

    @property
    def retrieval_abstained(self) -> bool:
        """Abstained on retrieval's verdict, before any model was asked, with passages to
        offer: the person may ask the model anyway (not when the model itself found no
        answer in them)."""
        return self.mode == "abstained" and not self.model and bool(self.offered)

    def parts(self) -> tuple[str, str, str]:
        """Docent's lead, the model's words and the passages quoted beneath them, for an
        unsupported answer; ("", text, "") for any other."""
        if not self.unsupported_answer:
            return "", self.text, ""
        body = self.text.removeprefix(UNSUPPORTED_LEAD)
        lead = UNSUPPORTED_LEAD if len(body) < len(self.text) else ""
        words, sep, quotes = body.partition(UNSUPPORTED_QUOTES)
        return lead, words.strip(), f"{sep}{quotes}"

    def citation(self, n: int) -> Citation | None:
        return next((c for c in self.citations if c.n == n), None)

    def as_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "answer": self.text,
            "mode": self.mode,
            "citations": [c.as_dict() for c in self.citations],
            "invalid_citations": self.invalid_citations,
            "unoffered_pages": self.unoffered_pages,
            "pages_not_given": self.pages_not_given,
            "misattributed_citations": [
                {"sentence": s, "cited": list(cited), "better": better}
                for s, cited, better in self.misattributed
            ],
            "unsupported_sentences": self.unsupported_sentences,
            "uncited_sentences": self.uncited_sentences,
            "unsaid_parts": self.unsaid_parts,
            "conflicts": [
                {"sentence": s, "passage": c.passage, "statement": c.statement, "kind": c.kind}
                for s, c in self.conflicts
            ],
            "answer_match": self.answer_match,
            "unsupported_answer": self.unsupported_answer,
            "sentence_support": [[s, score] for s, score in self.sentence_support],
            "confidence": self.confidence,
            "reason": self.reason,
            "model": self.model,
            "query": self.query,
            "partial": self.partial,
            "cut": self.cut,
            "tokens": self.tokens,
            "budget": self.budget,
            "requests": self.requests,
            "reranked": self.reranked,
            "rerank_failed": self.rerank_failed,
            "attempts": self.attempts,
            "attempt": self.attempt,
            "asked_anyway": self.asked_anyway,
            "overrode": self.overrode,
            "too_long": self.too_long,
            "no_number": self.no_number,
            "unsourced_code": self.unsourced_code,
            "seconds": round(self.seconds, 3),
        }


class AnswerCancelled(Cancelled):
    """The user stopped the answer; ``answer`` holds what had arrived (or None)."""

    def __init__(self, message: str, answer: Answer | None = None) -> None:
        super().__init__(message)
        self.answer = answer


#: Earlier turns sent back to the model (newest first, while they fit the budget).
MAX_HISTORY_TURNS = 4
#: An earlier answer is cut to this many characters in the prompt.
HISTORY_ANSWER_CHARS = 600
#: A generated answer no offered passage supports (answering.py) opens with this line,
#: then the model's text (its sentences flagged), then this heading and the passages
#: that best match the question, quoted with their citations ("retrieved").
UNSUPPORTED_LEAD = (
    "**Not supported by your documents.** The model cited nothing, and Docent found no "
    "passage it was given that supports what it wrote below. Check it against the passages "
    "quoted after it."
)
UNSUPPORTED_QUOTES = "**What your documents say:** the passages that best match your question."
#: Keywords of the previous question added to a follow-up when no model rewrites it.
FALLBACK_KEYWORDS = 6
_MAX_REWRITE_CHARS = 300

_REWRITE_SYSTEM = (
    "Rewrite the user's follow-up question as one standalone question that can be "
    "understood without the conversation. Keep names, numbers, commands and technical "
    "terms exactly. Reply with the question only."
)
_REWRITE_PREFIX = re.compile(r"^\s*(?:standalone\s+question|question|rewritten|user)\s*:\s*", re.I)


@dataclass(slots=True)
class Turn:
    number: int  # 1-based
    question: str
    #: What was searched: the standalone form of the question ("" if it never got there).
    query: str = ""
    #: None when the question was stopped or failed before any answer.
    answer: Answer | None = None
    #: The scope (document paths) in force for this turn; None: the whole library.
    scope: list[str] | None = None
    stopped: bool = False
    #: Why the question could not be answered ("" unless it failed).
    error: str = ""
    #: Which time the question was asked (1: first; a Retry asks it again).
    attempt: int = 1
    #: The other times it was asked, in order (their answers are kept: a Retry does not
    #: throw away what the user had).
    others: list[Turn] = field(default_factory=list)

    @property
    def text(self) -> str:
        return self.answer.text if self.answer is not None else ""

    @property
    def next_attempt(self) -> int:
        """The number a Retry of this turn's question gets."""
        return max(t.attempt for t in [self, *self.others]) + 1

    @property
    def citations(self) -> list[Citation]:
        return self.answer.citations if self.answer is not None else []


@dataclass(slots=True)
class Conversation:
    turns: list[Turn] = field(default_factory=list)
    #: Document paths the questions are limited to; None: the whole library.
    scope: list[str] | None = None
    #: The collection (id) it was started in, searched by every question (the scope is
    #: inside it); None: every collection.
    collection: str | None = None

    def add(self, question: str, query: str, answer: Answer, *, stopped: bool = False) -> Turn:
        scope = list(self.scope) if self.scope else None
        turn = Turn(len(self.turns) + 1, question, query, answer, scope, stopped)
        self.turns.append(turn)
        return turn

    def add_unanswered(self, question: str, *, stopped: bool = False, error: str = "") -> Turn:
        """A question that got no answer: stopped before one, or failed with ``error``."""
        scope = list(self.scope) if self.scope else None
        turn = Turn(len(self.turns) + 1, question, "", None, scope, stopped, error)
        self.turns.append(turn)
        return turn

    def pop(self) -> Turn | None:
        """Take back the last turn (to ask it again: see ``retried``)."""
        return self.turns.pop() if self.turns else None

    def retried(self, earlier: Turn) -> Turn:
        """The last turn asked ``earlier``'s question again (``earlier`` was popped for
        it): both stay, as attempts of one turn. The new answer is shown, unless it got
        none (stopped or failed before an answer) while the earlier one had one."""
        new = self.turns[-1] if self.turns else None
        if new is None or new.number != earlier.number:
            self.turns.append(earlier)
            return earlier
        attempts = [*earlier.others, earlier]
        new.attempt = earlier.next_attempt
        attempts.append(new)
        keep_earlier = new.answer is None and earlier.answer is not None
        return self._show(earlier if keep_earlier else new, attempts)

    def attempts(self, turn: Turn) -> list[Turn]:
        """Every time ``turn``'s question was asked, in order."""
        return sorted([turn, *turn.others], key=lambda t: t.attempt)

    def show_attempt(self, attempt: int) -> Turn:
        """Make the last turn's ``attempt`` (1-based) its answer; returns that turn."""
        if not self.turns:
            raise IndexError("no turn to show another answer of")
        attempts = self.attempts(self.turns[-1])
        chosen = next((t for t in attempts if t.attempt == attempt), None)
        if chosen is None:
            raise IndexError(f"turn {self.turns[-1].number} has no attempt {attempt}")
        return self._show(chosen, attempts)

    def _show(self, chosen: Turn, attempts: list[Turn]) -> Turn:
        for t in attempts:
            t.others = []
        chosen.others = [t for t in attempts if t is not chosen]
        self.turns[-1] = chosen
        return chosen

    def clear(self) -> None:
        """Forget the turns (the scope stays)."""
        self.turns.clear()

    @property
    def answered(self) -> list[Turn]:
        return [t for t in self.turns if t.answer is not None]

    @property
    def last(self) -> Turn | None:
        """The last turn with an answer: what a follow-up follows."""
        answered = self.answered
        return answered[-1] if answered else None

    def history_messages(self, turns: int = MAX_HISTORY_TURNS) -> list[dict[str, str]]:
        """The last ``turns`` answered turns as chat messages, passages replaced by a marker.
        A turn the model did not answer (its passages were quoted) is left out: a small
        model repeated the placeholder that stood for its answer as its own. So is one
        whose answer no passage supports: smollm2:135m gave the invention again, word for
        word, as its answer to the next question (QA, session 29)."""
        out: list[dict[str, str]] = []
        answered = [
            (t, a)
            for t, a in _answered(self.turns)
            if a.mode != "extractive" and not a.unsupported_answer
        ]
        for turn, answer in answered[-turns:] if turns > 0 else []:
            marker = f"[passages from turn {turn.number} omitted]"
            out.append({"role": "user", "content": f"{marker}\nQuestion: {turn.question}"})
            out.append({"role": "assistant", "content": _history_answer(answer)})
        return out


def _answered(turns: list[Turn]) -> list[tuple[Turn, Answer]]:
    return [(t, t.answer) for t in turns if t.answer is not None]


def _history_answer(answer: Answer) -> str:
    if answer.mode == "abstained":
        return "I could not find this in the documents."
    if answer.mode == "extractive":
        return "[no model answer: passages were quoted]"
    text = strip_markers(answer.parts()[1]).strip()
    if len(text) > HISTORY_ANSWER_CHARS:
        text = text[:HISTORY_ANSWER_CHARS].rsplit(" ", 1)[0] + " …"
    return text


# Follow-ups -------------------------------------------------------------------


def rewrite_messages(conversation: Conversation, question: str) -> list[dict[str, str]]:
    """The request for a follow-up's rewrite. An answer no passage supports is left out,
    as ``history_messages`` leaves it out, and counts as unsaid (``_texts``): a rewrite
    built on its invention was searched in place of the question (review 84)."""
    lines = []
    for turn, answer in _answered(conversation.turns)[-MAX_HISTORY_TURNS:]:
        lines.append(f"User: {turn.question}")
        if not answer.unsupported_answer:
            lines.append(f"Assistant: {_history_answer(answer)[:300]}")
    history = "\n".join(lines)
    user = f"Conversation:\n{history}\n\nFollow-up: {question}\nStandalone question:"
    return [{"role": "system", "content": _REWRITE_SYSTEM}, {"role": "user", "content": user}]


#: Words of a rewrite that the conversation never said, at most: "How many registers
#: does the CTSS have?" may add "many"; smollm2:135m's "The contractor is the main
#: character, and the story is about him." adds three (QA, session 30).
REWRITE_NEW_WORDS = 1


def parse_rewrite(output: str, conversation: Conversation, question: str) -> str | None:
    """The standalone question from a rewrite reply, or None when it is unusable.

    A rewrite must share a content word with the follow-up (or, when the follow-up has
    none, with the previous query): a small model that answers instead of rewriting, or
    drifts to another subject, is not searched. Nor one that brings words the person
    never wrote and no answer said ("rhetorical", "Intel 80386"): they were searched,
    and the refusal named them as what no passage holds (QA, session 30); nor one stating
    a number no one said: the model answered ("The budget approved for phase one is
    1000.", shown as what was searched; QA-77).
    """
    for line in output.splitlines():
        text = _REWRITE_PREFIX.sub("", strip_markers(line)).strip().strip("\"'`*“”").strip()
        if not text:
            continue
        words = terms(text)
        anchor = terms(question)
        if not anchor and conversation.last is not None:
            anchor = terms(conversation.last.query)
        if len(text) > _MAX_REWRITE_CHARS or not words or (anchor and not words & anchor):
            return None
        # (its numbers are checked below, whichever way they are written)
        new = {w for w in words - _said(conversation, question) if not w[:1].isdigit()}
        if len(new) > REWRITE_NEW_WORDS:
            return None
        # every number, a page's too ("... on page 12?" steers the search to it)
        said = set().union(*map(stated_numbers, _texts(conversation, question)))
        if any(not readings & said for readings in numbers_in(text)):
            return None
        return text
    return None


def _said(conversation: Conversation, question: str) -> set[str]:
    """The stems of what the person asked in the conversation, and of its answers."""
    return set().union(*map(terms, _texts(conversation, question)))


def _texts(conversation: Conversation, question: str) -> list[str]:
    """The question, and every question and answer of the conversation (but an answer no
    passage supports)."""
    texts = [question]
    for turn in conversation.turns:
        texts.append(turn.question)
        if turn.answer is not None and not turn.answer.unsupported_answer:
            texts.append(turn.answer.text)
    return texts


#: Words that point back at something said before ("does *it* ...", "*those* files").
_POINTING = frozenset(
    {"it", "its", "they", "them", "their", "theirs", "this", "these", "those", "he", "him"}
    | {"his", "she", "her", "hers", "same", "former", "latter", "else"}
)
#: "one" after these is a number, not a word for something said before: "phase one",
#: "version one" (QA-77: a new question searched with the last one's words). Anywhere
#: else it points back ("the small one", "the Dell one"): when in doubt, a follow-up.
_NUMBERED = frozenset(
    {"phase", "version", "chapter", "step", "stage", "level", "day", "week", "month", "year"}
    | {"page", "part", "section", "round", "season", "episode", "volume", "book", "lesson"}
    | {"unit", "item", "option", "number", "no", "server", "node", "team", "player", "room"}
    | {"floor", "table", "figure", "appendix", "slide", "line", "row", "column", "release"}
    | {"issue", "case", "test", "type", "grade", "class", "track", "tier", "zone"}
)
#: German, French, Spanish ones, matched only as written, in lower case: "ESA", "ER
#: diagram", "Ella Fitzgerald" name their subject (review). Not their articles ("das",
#: "la", "lo" open questions too), nor words English has ("dies").
_POINTING_ELSEWHERE = frozenset(
    {"sie", "er", "ihn", "ihm", "ihr", "ihnen", "diese", "dieser", "dieses"}
    | {"il", "elle", "ils", "elles", "lui", "leur", "leurs", "ça", "cela", "celui", "celle"}
    | {"ceux", "él", "ella", "ellos", "ellas", "eso", "esto", "esa", "ese", "esos", "esas"}
)
#: Chinese and Japanese ones, found anywhere (no spaces between words): "它的价格是多少？"
#: ("what is its price?"), "それはいくらですか？" (review, session 35).
_POINTING_CJK = (
    "它",
    "他",
    "她",
    "这个",
    "那个",
    "这些",
    "那些",
    "それ",
    "あれ",
    "これ",
    "彼",
    "その",
    "あの",
    "この",
)
#: German "es" ("Wie viel kostet es?"), told from Spanish "es" ("¿Qué es Docker?").
_GERMAN_ES = re.compile(r"\b(?:ist|kostet|hat|gibt|geht|dauert|funktioniert|hält) es\b", re.I)
#: How a follow-up opens ("and on the 11/70?", "what about the registers?"; "und ...?",
#: "et ...?", "¿y ...?").
_FOLLOW_UP_OPENING = re.compile(
    r"^\s*[¿¡]?(?:and|but|also|or|so|then|what about|how about|what else|why not|same"
    r"|und|aber|auch|oder|et|mais|aussi|ou|y|pero|también)\b",
    re.I,
)
#: A question with fewer content words of its own leans on the one before it.
STANDALONE_WORDS = 3


def is_follow_up(question: str) -> bool:
    """Does ``question`` lean on the one before it? One that names its subject itself
    ("How many kilograms of hay does the zebra Quimby eat?") does not: searched with
    the previous question's words added, it found the previous subject's passages and
    abstained on its own. Conservative: when in doubt, it is a follow-up (rewritten as
    before), unless it names an identifier of its own."""
    if points_back(question):
        return True
    # short, and naming nothing of its own ("How much memory?", "Which CPU?"); one that
    # asks what an identifier of its own is ("What is a t-test used for?", "What does WRU
    # do?") was searched with the previous question's words and quoted their passages
    # (QA, session 27)
    return word_count(question) < STANDALONE_WORDS and not _asks_what_it_names(question)


#: A short question with at least this many content words may name its own subject
#: ("What colour will the boathouse be?"); with one it is elliptical ("Which CPU?", "How
#: much memory?", "In 2020?": answered from whatever document held the word; review s30).
OWN_SUBJECT_WORDS = 2


def may_stand_alone(question: str) -> bool:
    """A follow-up only by being short, with a subject of its own: the Answerer searches
    it as asked too when its follow-up words find nothing."""
    return not points_back(question) and word_count(question) >= OWN_SUBJECT_WORDS


def word_count(question: str) -> int:
    """The question's content words; a run of Chinese or Japanese counts a word for each
    two of its characters (those scripts write no spaces: "北京大学图书馆的电话号码是多少"
    was one word, so every such question was taken for a follow-up; review, session 35)."""
    n = 0
    for w in content_words(question):
        cjk = sum(map(text_words.is_cjk, w))
        n += max(1, cjk // 2) if cjk else 1
    return n


def points_back(question: str) -> bool:
    """The question's words say it follows another: it opens like a follow-up ("and on
    the 11/70?") or points at something said before ("it", "those", "es"). Not only
    short: a short question may be whole ("What colour will the boathouse be?")."""
    if _FOLLOW_UP_OPENING.match(question) or _GERMAN_ES.search(question):
        return True
    found = re.findall(r"[^\W\d_]+", question)
    if found and found[0].istitle() and not (len(found) > 1 and found[1][:1].isupper()):
        found.append(found[0].lower())  # "Elle coûte ...?", but not "Ella Fitzgerald"
    lower = [w.lower() for w in found]
    ones = any(
        w in ("one", "ones") and not _a_number(lower[i - 1 : i], lower[i + 1 : i + 2])
        for i, w in enumerate(lower)
    )
    cjk = any(w in question.replace("其他", "") for w in _POINTING_CJK)  # (其他: "other")
    pointing = set(lower) & _POINTING | set(found) & _POINTING_ELSEWHERE
    # ("this", "those", "else" anywhere: what was said before, whatever the clauses)
    inside = pointing <= _PRONOUNS and _points_inside(question)
    return ones or cjk or (bool(pointing) and not inside)


#: Pointing words that may stand for a subject the question itself named before them.
_PRONOUNS = frozenset({"it", "its", "they", "them", "their", "he", "him", "his", "she", "her"})
#: Words a question opens with: a first clause that opens so asks of its own subject.
_ASKS = frozenset(
    {"what", "which", "who", "whom", "whose", "where", "when", "why", "how", "is", "are"}
    | {"was", "were", "do", "does", "did", "can", "could", "should", "would", "will"}
    | {"has", "have", "had", "may", "might", "must", "shall"}
)
#: Where a question's second clause begins: "…, and how much memory can it address?"
_CLAUSE_BREAK = re.compile(r",|;|\s(?:and|or|but)\s", re.I)


def _points_inside(question: str) -> bool:
    """Its pointing words come in a later clause than a subject it names itself, an
    identifier or a name: "Which bus does the emulated PDP-11/40 model use, and how much
    memory can it address at most?" (its "it" is the PDP-11/40; searched with the words
    of an unrelated question before it, QA-80). Not "What does Debian Edu say about it?"
    (one clause: "it" is what was said before) nor "Does it run on the VAX?". Asked of
    a question whose pointing words are all ``_PRONOUNS`` (``points_back``)."""
    first = re.search(r"\b(?:" + "|".join(sorted(_PRONOUNS)) + r")\b", question, re.I)
    if first is None:
        return False
    breaks = list(_CLAUSE_BREAK.finditer(question, 0, first.start()))
    opening = re.match(r"\s*([^\W\d_]+)", question)
    if not breaks or opening is None or opening.group(1).lower() not in _ASKS:
        # (a first clause that sets a scene, "Using Docker Compose v2, how do I configure
        # it?", is no question of its own: "it" is what was said before; review 85)
        return False
    own = analyse(question[: breaks[-1].start()])
    return bool(own.exact or own.names) and word_count(question[: breaks[-1].start()]) >= 3


def _a_number(before: list[str], after: list[str]) -> bool:
    """Whether "one" between these words is a number: "phase one", "one of the options"."""
    return bool(before and before[0] in _NUMBERED) or after == ["of"]


#: A question that asks what something is or does ("What is ...", "What does ... do?",
#: "Who was ..."), or to explain or define it.
_DEFINING = re.compile(
    r"^\s*(?:(?:what|who)(?:'s|\s+(?:is|are|was|were|does|do|did|means?))\b"
    r"|explain\b|define\b|tell me about\b)",
    re.I,
)


def _asks_what_it_names(question: str) -> bool:
    """A short question asking what an identifier or a name it names is ("What is KLU?",
    "What is the Casa do Farol?", "Who is Helga?"): its subject is its own. Elliptical
    ones ("Which CPU?", "In 2020?", "Page 12?") are not, though they name one too (review,
    session 27). A name that is the whole subject counts since session 31: "What is the
    Casa do Farol?" after a question on the lighthouse keeper was searched with the
    keeper's words, and answered about him (QA)."""
    if not _DEFINING.match(question):
        return False
    if _NAMED_SUBJECT.match(question) and not _WHEN_NAMES.search(question):
        return True
    return any(not term.isdigit() for term in analyse(question).exact)


#: "What is the Casa do Farol?", "Who is Helga?", "Who was Ian Murdock?": a question whose
#: subject is a name it gives (capitalised words, joined by short ones), to its end. Not
#: "What are the hours on Sunday?" nor "What is the default on Windows?": a name after a
#: preposition is where or when, and the question leans on the one before (review, s31).
_NAMED_SUBJECT = re.compile(
    r"^\s*(?i:what|who)(?:'s|\s+(?i:is|are|was|were))\s+(?:(?i:the|an?)\s+)?"
    r"[A-Z][\w'’.-]*(?:\s+(?:(?:do|da|de|del|della|di|du|van|von|der|of|the|la|le|y|and|&)"
    r"\s+)*[A-Z][\w'’.-]*)*\s*[?.!]?\s*$"
)
#: Months and weekdays are no subject of their own ("Who was there in January?").
#: (``numbers``' names, whole: not "Jan" or "Mar", which may be someone's.)
_WHEN_NAMES = re.compile(
    r"\b(?:"
    + "|".join(sorted(n.title() for n in MONTH_NAMES | WEEKDAY_NAMES if len(n) > 3 or n == "may"))
    + r")\b"
)


def fallback_query(conversation: Conversation, question: str) -> str:
    """The follow-up plus the previous question's keywords it does not already have."""
    last = conversation.last
    if last is None:
        return question
    have = set(content_words(question))
    before = analyse(last.query)
    # "What about Tomas Okafor?" after "Who is Helga Brandt?": a name of its own stands in
    # for the one before, which is not added (it found Helga again; QA, session 31)
    named = analyse(question).names
    gone = {w.lower() for n in before.names for w in n.split()} if named else set()
    extra = [
        w for w in before.keyword_form.split() if w.lower() not in have and w.lower() not in gone
    ]
    extra = list(dict.fromkeys(extra))[:FALLBACK_KEYWORDS]
    return f"{question} {' '.join(extra)}".strip() if extra else question
