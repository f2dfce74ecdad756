"""How big a summary's model calls are, how many there will be, and how long is left.

The section size comes from the model's context (``llm_context_tokens``): the section,
the prompt and the reply must fit in it. The reduce step combines section summaries in
calls of the same size, so the number of rounds follows from the context too. How fast
the model is, only a call can tell: the ``Clock`` times each call, and from the first
one on, the time left is the mean call time by the calls still planned. A summary whose
estimate is over ``summary_seconds_per_page`` times its pages (and over ``LIMIT_FLOOR``) is
"over the limit": the
caller offers an extractive summary now and lets the model's finish in the background,
and the remaining sections ask for fewer words (the reply is most of a call's time on a
small model).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from docent.core.config import Settings

#: Words asked of each section summary, before scaling to the number of sections.
MAP_WORDS = (60, 250)
#: Tokens per English word (with room for the page markers and Markdown).
TOKENS_PER_WORD = 1.4
#: Tokens of the prompt around the text: system message, instructions, page label.
PROMPT_TOKENS = 300
#: Seconds a summary is never "over the limit" within, whatever its pages: a one-page
#: file's limit is 4 s, and a small model takes longer for any reply, so the offer of an
#: extractive summary came on a 143-word file, where it saves nothing worth the question
#: (session 28's QA).
LIMIT_FLOOR = 30.0


def reply_tokens(words: int) -> int:
    """``num_predict`` for a reply of ``words`` words."""
    return int(words * 2) + 64


#: Words of a combined summary at most (a reduce round's call).
COMBINE_WORDS = 400


def section_words(settings: Settings, reply_words: int = MAP_WORDS[1]) -> int:
    """Words of text a call reads: ``max_words_per_section``, but never more than the
    context holds with the prompt and a reply of ``reply_words`` (a section summary's by
    default; a detailed final summary asks 600 words, which at 2,048 tokens of context
    left room for half the text it was given: review)."""
    room = settings.llm_context_tokens - PROMPT_TOKENS - reply_tokens(reply_words)
    return max(100, min(settings.max_words_per_section, int(room / TOKENS_PER_WORD)))


def map_words(limit: int, sections: int) -> int:
    """Words asked of each section summary: together they should fit one combine call."""
    return max(MAP_WORDS[0], min(MAP_WORDS[1], limit // max(sections, 1)))


def reduce_calls(items: int, words_each: int, limit: int, rounds: int = 6) -> int:
    """Model calls to combine ``items`` summaries of ``words_each`` words, final included."""
    if items <= 1:
        return 0
    calls = 0
    for _ in range(rounds):
        if items * words_each <= limit:
            break
        per_group = max(2, limit // max(words_each, 1))
        groups = -(-items // per_group)
        calls += groups
        items, words_each = groups, min(400, limit // groups)
    return calls + 1


@dataclass
class Clock:
    """Times the model calls of one summary; estimates what is left from the mean."""

    limit_seconds: float  # 0: no limit
    start: float = field(default_factory=time.monotonic)
    durations: list[float] = field(default_factory=list)
    over_limit: bool = False

    def record(self, seconds: float) -> None:
        self.durations.append(seconds)

    def seconds_left(self, calls_left: int) -> float | None:
        """None until a call has been timed."""
        if not self.durations:
            return None
        return sum(self.durations) / len(self.durations) * max(calls_left, 0)

    def check(self, calls_left: int) -> bool:
        """Whether the estimate is over the limit (once over, it stays over)."""
        left = self.seconds_left(calls_left)
        if left is not None and self.limit_seconds > 0:
            elapsed = time.monotonic() - self.start
            limit = max(self.limit_seconds, LIMIT_FLOOR)
            self.over_limit = self.over_limit or elapsed + left > limit
        return self.over_limit


def describe(seconds: float | None) -> str:
    """The time left in words ("about 3 min left"); "" before the first call is timed."""
    if seconds is None:
        return ""
    if seconds >= 90:
        return f"about {round(seconds / 60)} min left"
    return f"about {max(5, round(seconds / 5) * 5)} s left"
