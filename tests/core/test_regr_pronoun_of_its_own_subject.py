"""QA-80: "Which bus does the emulated PDP-11/40 model use, and how much memory can it
address at most?" after an unrelated question was searched as a follow-up, with that
question's words added: its "it" is the PDP-11/40 it names in its first clause. A
pronoun in a later clause than a subject the question names itself (an identifier or a
name, with words enough) no longer makes it a follow-up; one clause, a pronoun first, or
"this", "those", "else" still do."""

from __future__ import annotations

import pytest

from docent.core.conversation import is_follow_up


@pytest.mark.parametrize(
    "question",
    [
        "Which bus does the emulated PDP-11/40 model use, and how much memory can it address at most?",
        "Who founded the Harbour Light Society, and when did they build its tower?",
    ],
)
def test_a_pronoun_for_the_subject_the_question_names_is_not_a_follow_up(question: str) -> None:
    assert not is_follow_up(question)


@pytest.mark.parametrize(
    "question",
    [
        "What does Debian Edu say about it?",  # one clause: "it" is what was said before
        "Does it run on the VAX?",
        "And how much memory can it address?",
        "How do I configure the network settings for it?",  # no name of its own
        "I read the PDP-11 manual, what does it say about this?",
        "Which CPU does the Debian Edu server need, and does it support those?",
    ],
)
def test_a_question_leaning_on_the_one_before_still_is_a_follow_up(question: str) -> None:
    assert is_follow_up(question)
