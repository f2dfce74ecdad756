"""Loop and runaway guards for streamed model output, used by every model call (llm.py).

Small models degenerate in a few recognisable ways; each is caught while tokens arrive,
so the request can be cancelled on the server instead of running to its budget:

- a sentence repeated (compared without case, punctuation, citation markers or list
  numbers: "1. X." then "2. X." is a repeat), also as the start of a longer one ("X" then
  "X and Y.") or cut short;
- a long run of words repeated (``ngram_words`` in a row, even overlapping itself, list
  numbers left out, which catches loops with no sentence end such as "foo bar foo bar
  ..." and numbered items too short to count as sentences: "2. Debian packaging
  workflow", "3. Debian packaging workflow", ...);
- a long stretch of tokens with no sentence end and no line break (rambling, or a run of
  one character);
- a run of numbers without a word between them ("1) 2) 3) 4) ..." or "1 2 3 4 ...":
  SmolLM2 counts instead of answering; no two repeat, so the checks above miss it);
- lines of Markdown marks alone, one after another ("##", "###", ...: no word to repeat);
- more tokens than the budget (``max_tokens``): a backstop for servers that ignore
  ``num_predict``.

What is kept is the text before the degenerate part, ended at a sentence boundary, and
``Cut.reason`` says in one sentence why the rest was cut.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Literal

from docent.core import words
from docent.core.citations import MARKER
from docent.core.errors import LLMError

CutKind = Literal["repeat", "loop", "rambling", "noise", "budget"]

#: The end of a sentence (followed by space) or a line break: where a sentence is complete;
#: Chinese and Japanese full stops need no space after them.
#: Not after an abbreviation's full stop ("e.g. AES": ``words.NOT_ABBREVIATION``, as the
#: evaluation's sentences; a cut answer ended "... a strong cipher, e.g [1].": review).
_BOUNDARY = re.compile(
    r"(?<=[.!?])" + words.NOT_ABBREVIATION + r"[\"'”’)\]*_`]*\s+|\n\s*|(?<=[。！？])[」』）”’]*\s*"
)
#: Text that ends a finished sentence.
_FINISHED = re.compile(r"(?:[!?。！？]|\." + words.NOT_ABBREVIATION + r")[\"'”’)\]*_`」』）]*$")
#: A sentence end inside a token: not a decimal point ("Figure 11.5" ends nothing; a loop
#: of "shown in Figure 11.5 of ... Figure 11.61 of ..." reset the rambling count at each
#: number: QA, session 28).
_ENDS = re.compile(r"[!?\n。！？]|\.(?!\d)")
#: An item's mark: a bullet, "2.", a heading's hashes, or a label with its number ("Step 2:").
_LIST_PREFIX = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)]|#{1,6}|[^\W\d_]+ \d{1,3}[:.)])\s+")
_LIST_NUMBER = re.compile(r"\s*(?:\d{1,3}|[a-zA-Z])[.)]$")
#: A word for the n-gram check: a run between spaces, or one Chinese or Japanese character.
_WORD = re.compile(rf"[{words.CJK}]|[^\s{words.CJK}]+")
_CJK_CHAR = re.compile(rf"([{words.CJK}])")
_NOT_ALNUM = re.compile(r"[^\w]+")
#: A line of Markdown marks alone: headings' hashes, rules, bullets, a table's rule.
_MARKS_ONLY = re.compile(r"[#*=_~|:\-\s]+")
_LETTER = re.compile(r"[^\W\d_]")
_DIGIT = re.compile(r"\d")


#: An n-gram with Chinese or Japanese in it is this many times longer (its words are
#: characters).
CJK_NGRAM_FACTOR = 3


@dataclass(frozen=True, slots=True)
class GuardLimits:
    #: Sentences shorter than this (in words) may repeat ("See the manual.").
    min_sentence_words: int = 5
    #: This many words repeated in the same order is a loop.
    ngram_words: int = 12
    #: Tokens (stream chunks) without a sentence end or line break before it is rambling.
    max_tokens_without_end: int = 160
    #: This many words in a row with digits and no letter ("1)", "23") is noise when most
    #: of them count (list numbers "3)", or each one more than the last): a model
    #: counting instead of answering. A table of numbers, a list of ports or of dates
    #: ("| 2010 | 100 |", "20, 21, 22, 25, 53", "2019-01-15") is an answer.
    max_number_words: int = 16
    #: This many lines in a row of Markdown marks alone ("##", "---", "* *", "|---|") is
    #: noise: a model that wrote 386 lines of "##" after its summary (QA, session 28). A
    #: table's rule or a line between parts is one; code's closing braces, ASCII art and a
    #: table's ✓ cells are not marks.
    max_wordless_lines: int = 8
    #: Tokens in all; None: no client-side cap (the server's num_predict still applies).
    max_tokens: int | None = None
    #: The budget a cut at ``max_tokens`` names: the request's ``num_predict``, which the
    #: cap passes by a slack (a cut said "422 tokens" of a budget of 384; review, s35).
    budget: int | None = None


DEFAULT_LIMITS = GuardLimits()


@dataclass(frozen=True, slots=True)
class Cut:
    kind: CutKind
    #: One sentence: that the output was cut and why.
    reason: str
    #: The text before the degenerate part, at a sentence boundary (may be empty).
    kept: str
    #: Tokens received when the cut was made.
    tokens: int


def normalise(sentence: str) -> str:
    """A sentence reduced to what makes it the same sentence: words, lower case."""
    plain = _LIST_PREFIX.sub("", MARKER.sub(" ", sentence))
    plain = _CJK_CHAR.sub(r" \1 ", plain)  # each CJK character a word, as words.py counts
    return " ".join(_NOT_ALNUM.sub(" ", plain.lower()).split())


@dataclass
class OutputGuard:
    """Fed every token of one stream; ``feed`` returns a Cut once the output degenerates.

    One guard per stream. ``done_reason`` is filled in by the client from the server's
    last message ("stop", or "length" when ``num_predict`` ended it).
    """

    limits: GuardLimits = DEFAULT_LIMITS
    #: What the output is, for the reason: "The answer was cut because ...".
    what: str = "answer"
    text: str = ""
    tokens: int = 0
    cut: Cut | None = None
    done_reason: str = ""
    _since_end: int = 0  # tokens since the last sentence end or line break
    _dot_pending: bool = False  # the last token ended with "." (an end unless a digit follows)
    _scanned: int = 0  # text before this offset is split into finished sentences
    _boundaries: list[int] = field(default_factory=lambda: [0])
    _sentences: set[str] = field(default_factory=set)
    _last_key: str = ""  # the last finished sentence, normalised
    #: where a sentence said once before, after others, began: a step of a procedure
    #: said again, unless the sentence after it repeats too
    _repeat_at: int | None = None
    _word_end: int = 0  # words ending before this offset are counted
    _words: list[tuple[str, int]] = field(default_factory=list)  # (normalised, start)
    _ngrams: set[tuple[str, ...]] = field(default_factory=set)
    #: words with digits and no letter, in a row: whether each counts (see _noise)
    _numbers: list[bool] = field(default_factory=list)
    _last_number: int | None = None
    _noise_at: int = 0  # where that run began
    _line_start: int = 0  # the first line not yet looked at for words
    _wordless: int = 0  # lines with no letter or digit in a row
    _wordless_at: int = 0  # where that run began

    def feed(self, token: str) -> Cut | None:
        if self.cut is not None:
            return self.cut
        self.text += token
        self.tokens += 1
        # a token that ends with "." ends a sentence unless the next one begins with a
        # digit (a decimal point split across tokens: "11" "." "5")
        pending, self._dot_pending = self._dot_pending, token.endswith(".")
        body = token[:-1] if self._dot_pending else token
        ended = bool(_ENDS.search(body)) or (pending and not token[:1].isdigit())
        self._since_end = 0 if ended else self._since_end + 1
        self.cut = (
            self._sentence_repeat()
            or self._ngram_repeat()
            or self._wordless_lines()
            or self._overrun(token)
        )
        return self.cut

    def finish(self) -> Cut | None:
        """The stream ended: its last sentence, which no space or line break followed,
        is checked as the others were when the next one began (an answer that ends by
        saying again a sentence it said before is cut before it). So is a last line that
        opened the answer too and introduces what never comes ("The correct answer is:"
        at the start and at the end); a short answer said again ("Yes.") stays."""
        if self.cut is None:
            start = self._scanned
            key = normalise(self.text[start:])
            long_enough = len(key.split()) >= self.limits.min_sentence_words
            again = long_enough and (key in self._sentences or self._echoes(key, both_ways=True))
            if again or self._dangling_line_again(start):
                self.cut = self._make("repeat", start)
            elif self._repeat_at is not None and not long_enough:
                # it ended on a sentence said before (a step said again needs a new one
                # after it): "A. B. A." is cut before the second A
                self.cut = self._make("repeat", self._repeat_at)
        return self.cut

    def _dangling_line_again(self, start: int) -> bool:
        """The text from ``start`` is a whole last line ending with a colon that an earlier
        line said already."""
        last = self.text[start:].strip()
        if not last.endswith(":") or (start and self.text[start - 1] != "\n"):
            return False
        earlier = {normalise(line) for line in self.text[:start].split("\n")}
        return normalise(last) in earlier

    # Checks ------------------------------------------------------------------------

    def _sentence_repeat(self) -> Cut | None:
        for m in _BOUNDARY.finditer(self.text, self._scanned):
            start, end = self._scanned, m.start()
            if _LIST_NUMBER.match(self.text, start, end):
                continue  # "2. " starts an item; it does not end a sentence
            self._scanned = m.end()
            self._boundaries.append(m.end())
            key = normalise(self.text[start:end])
            if len(key.split()) < self.limits.min_sentence_words:
                continue
            if key in self._sentences:
                if self._repeat_at is not None or key == self._last_key:
                    return self._make(
                        "repeat", start if self._repeat_at is None else self._repeat_at
                    )
                self._repeat_at = start  # "4. Press OK to confirm." as in step 2
            elif self._echoes(key, both_ways=True):
                return self._make("repeat", start)
            else:
                self._repeat_at = None
                self._sentences.add(key)
            self._last_key = key
        # A sentence still being written that began by repeating an earlier one whole
        # ("Typing ^E stops simulation" then "Typing ^E stops simulation and ..."): cut
        # now rather than when (or if) it ends.
        if self._echoes(normalise(self.text[self._scanned :]), both_ways=False):
            return self._make("repeat", self._scanned)
        return None

    def _echoes(self, key: str, *, both_ways: bool) -> bool:
        """``key`` begins with an earlier sentence and goes on (or, ``both_ways``, an
        earlier sentence begins with ``key``): a repeat with words added or cut off."""
        return any(
            key.startswith(seen + " ") or (both_ways and seen.startswith(key + " "))
            for seen in self._sentences
        )

    def _ngram_repeat(self) -> Cut | None:
        n = self.limits.ngram_words
        for m in _WORD.finditer(self.text, self._word_end):
            if m.end() == len(self.text):
                break  # the word may go on in the next token
            self._word_end = m.end()
            if self._noise(m):
                return self._make("noise", self._noise_at)
            word = normalise(m.group())
            if not word or _LIST_NUMBER.fullmatch(m.group()):
                continue  # an item's number: "2. X" then "3. X" is the same words again
            self._words.append((word, m.start()))
            size = n
            if any(_CJK_CHAR.match(w) for w, _ in self._words[-n:]):
                # a CJK character is a word here, but 12 of them are a long name said
                # twice ("北京大学图书馆的开放时间"), not a loop (review)
                size = n * CJK_NGRAM_FACTOR
            if len(self._words) < size:
                continue
            gram = tuple(w for w, _ in self._words[-size:])
            if gram in self._ngrams:
                return self._make("loop", self._words[-size][1])
            self._ngrams.add(gram)
        return None

    def _noise(self, word: re.Match[str]) -> bool:
        """Counts words with digits and no letter in a row, and among them those that
        count: an item's number ("3)", "4.") or one more than the number before ("7"
        after "6"). Words of punctuation alone (a table's ``|`` and ``---``) neither
        count nor break the run. Noise: a run of ``max_number_words`` that mostly counts."""
        text = word.group()
        if _LETTER.search(text):
            self._numbers, self._last_number = [], None
            return False
        if not _DIGIT.search(text):
            return False
        if not self._numbers:
            self._noise_at = word.start()
        value = int(text) if text.isdigit() and len(text) < 10 else None
        last = self._last_number
        follows = value is not None and last is not None and value == last + 1
        self._numbers.append(bool(_LIST_NUMBER.fullmatch(text)) or follows)
        self._last_number = value
        run = self._numbers[-self.limits.max_number_words :]
        return len(run) == self.limits.max_number_words and 4 * sum(run) >= 3 * len(run)

    def _wordless_lines(self) -> Cut | None:
        """Lines of Markdown marks alone in a row (blank lines aside): ``max_wordless_lines``
        of them is noise, cut before the first."""
        end = self.text.rfind("\n", self._line_start)
        while 0 <= self._line_start <= end:
            stop = self.text.index("\n", self._line_start)
            raw = self.text[self._line_start : stop]
            line = raw.strip()
            if line and _MARKS_ONLY.fullmatch(line):
                if not self._wordless:  # (a boundary is after the line's indent)
                    self._wordless_at = self._line_start + len(raw) - len(raw.lstrip())
                self._wordless += 1
                if self._wordless >= self.limits.max_wordless_lines:
                    return self._make("noise", self._wordless_at, "lines with no words")
            elif line:
                self._wordless = 0
            self._line_start = stop + 1
        return None

    def _overrun(self, token: str) -> Cut | None:
        cap = self.limits.max_tokens
        if cap is not None and self.tokens > cap:
            return self._make("budget", len(self.text) - len(token))  # the cap's tokens only
        if self._since_end > self.limits.max_tokens_without_end:
            return self._make("rambling", len(self.text))
        return None

    def _make(self, kind: CutKind, at: int, noise: str = "numbers instead of words") -> Cut:
        """Cut before ``at``, back to the last sentence boundary at or before it (for a
        repeat or a loop, back before the short lines that began it too); ``noise``: what
        the model wrote, for a "noise" cut."""
        keep = max(b for b in self._boundaries if b <= at)
        if kind in ("repeat", "loop"):
            keep = self._before_repeated_lines(keep)
        cut = f"The {self.what} was cut"
        reasons = {
            "repeat": f"{cut} because the model began repeating a sentence.",
            "loop": f"{cut} because the model began repeating itself.",
            "rambling": (
                f"{cut} because the model wrote "
                f"{self.limits.max_tokens_without_end} tokens without ending a sentence."
            ),
            "noise": f"{cut} because the model wrote {noise}.",
            "budget": f"{cut} at its budget of {self.limits.budget or self.limits.max_tokens} tokens.",
        }
        return Cut(kind, reasons[kind], self.text[:keep].rstrip(), self.tokens)

    def _before_repeated_lines(self, keep: int) -> int:
        """``keep`` moved back over the sentences before it that were said earlier: short
        ones may repeat alone ("1086472935 (RX-N)"), but a loop of two lines is cut at
        its second line and must not keep the repeated first one."""
        bounds = sorted(b for b in self._boundaries if b <= keep)
        while len(bounds) >= 2:
            key = normalise(self.text[bounds[-2] : bounds[-1]])
            pairs = zip(bounds[:-2], bounds[1:-1], strict=True)
            if not key or key not in {normalise(self.text[a:b]) for a, b in pairs}:
                break
            bounds.pop()
        return bounds[-1]


def last_sentence_end(text: str) -> int:
    """The offset just after the last finished sentence or line of ``text`` (0: none)."""
    stripped = text.rstrip()
    if _FINISHED.search(stripped):
        return len(stripped)
    ends = [m.start() for m in _BOUNDARY.finditer(stripped)]
    return ends[-1] if ends else 0


class OutputCut(LLMError):
    """The model's output degenerated and the request was cancelled on the server.

    ``cut.kept`` is the text before the degenerate part; ``str(error)`` is ``cut.reason``.
    """

    def __init__(self, cut: Cut) -> None:
        super().__init__(cut.reason)
        self.cut = cut


def guard_for(
    options: Mapping[str, object] | None,
    limits: GuardLimits = DEFAULT_LIMITS,
    what: str = "answer",
) -> OutputGuard:
    """A guard whose token cap follows ``num_predict`` (with slack: chunks are not
    always single tokens), so a server that ignores the option is still stopped."""
    predict = (options or {}).get("num_predict")
    if limits.max_tokens is None and isinstance(predict, int) and predict > 0:
        limits = replace(limits, max_tokens=predict + max(8, predict // 10), budget=predict)
    return OutputGuard(limits, what)
