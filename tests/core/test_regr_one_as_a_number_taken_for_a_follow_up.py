"""Regression (QA-77): "one" counted as a word pointing back wherever it stood, so "What
is the budget approved for phase one?", a new question, was searched with the last
question's words (SIMH's) and a rewrite the model made up ("The budget approved for phase
one is 1000."), and abstained. After a noun that numbers ("phase", "version", "server")
and before "of" it is a number; anywhere else it still points back."""

from __future__ import annotations

import pytest

from docent.core.conversation import is_follow_up, points_back


@pytest.mark.parametrize(
    "question",
    [
        "What is the budget approved for phase one?",
        "Which port does the database use in version one?",
        "What is one of the options of the SET CPU command?",
        "Where is server one of the cluster located?",
    ],
)
def test_one_as_a_number_is_no_follow_up(question: str) -> None:
    assert not points_back(question) and not is_follow_up(question)


@pytest.mark.parametrize(
    "question",
    [
        "Which one is faster?",
        "Is the largest one in stock?",
        "What do the first ones cost?",
        # after any adjective or name: when in doubt, a follow-up (review, session 34)
        "What does the small one cost?",
        "Is the Dell one faster?",
        "Can the blue ones be washed?",
    ],
)
def test_one_standing_for_what_was_asked_before_points_back(question: str) -> None:
    assert points_back(question)
