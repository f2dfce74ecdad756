"""Regression (ef26f35, conversation._POINTING): German, French and Spanish pronouns were
added to the words that make a question lean on the one before, matched against every
word of any question, lower-cased. Several are English words or names too: "dies",
"ER" (diagram, room), "ESA", "ESO", "Ella", "Elle". A question that names its own subject
now counts as a follow-up, so (as the docstring of is_follow_up explains) it is searched
with the previous question's keywords added, finds the previous subject's passages, and
abstains on its own. Before the commit these were standalone."""

from __future__ import annotations

import pytest

from docent.core.conversation import is_follow_up


@pytest.mark.parametrize(
    "question",
    [
        "Which missions has ESA launched to Mars since the year 2000?",
        "How is an ER diagram turned into relational database tables?",
        "Who accompanied Ella Fitzgerald on the 1956 songbook recordings?",
        "What happens when a worker process dies during a database transaction commit?",
    ],
)
def test_an_english_question_naming_its_subject_is_not_a_follow_up(question: str) -> None:
    assert not is_follow_up(question)
