"""Regression (ef26f35, guards._WORD): the n-gram loop check now counts each Chinese or
Japanese character as a word, with the English threshold of 12 words. 12 characters are
a long noun phrase, not a loop: a Chinese answer that names "北京大学图书馆的开放时间"
twice (a normal thing to write) is cut as "loop" at the second mention. Before the commit
the check never cut it."""

from __future__ import annotations

from docent.core.guards import GuardLimits, OutputGuard

ANSWER = (
    "北京大学图书馆的开放时间是早上八点到晚上十点[1]。"
    "周末北京大学图书馆的开放时间是早上九点到下午五点[2]。"
    "借书证需要在服务台办理[1]。"
)


def feed_chars(text: str) -> OutputGuard:
    guard = OutputGuard(GuardLimits())
    for ch in text:  # a model streams Chinese a character or two at a time
        if guard.feed(ch) is not None:
            break
    else:
        guard.finish()
    return guard


def test_a_chinese_answer_naming_a_long_phrase_twice_is_not_cut_as_a_loop() -> None:
    guard = feed_chars(ANSWER)
    assert guard.cut is None, (guard.cut.kind, guard.cut.kept) if guard.cut else None
