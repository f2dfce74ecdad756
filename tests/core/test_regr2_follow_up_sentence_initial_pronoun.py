"""Regression (dc7bfc9, conversation.is_follow_up): the German, French and Spanish pronouns
count only as written in lower case, so a follow-up that opens with one ("Elle coûte
combien ...?", "¿Ella trabajó ...?", "Er wurde ...?") is taken for a standalone question:
it is searched without the previous question's subject and finds the wrong passages or
abstains. Before the commit these were follow-ups."""

from __future__ import annotations

import pytest

from docent.core.conversation import is_follow_up


@pytest.mark.parametrize(
    "question",
    [
        "Elle coûte combien en version professionnelle ?",
        "Il fonctionne sous Windows et macOS ?",
        "Ils sont disponibles dans quelles couleurs exactement ?",
        "¿Ella trabajó en la universidad de Madrid?",
        "Eso funciona con archivos PDF escaneados?",
        "Er wurde wann genau in Berlin gegründet?",
    ],
)
def test_a_follow_up_opening_with_a_capitalised_pronoun_is_a_follow_up(question: str) -> None:
    assert is_follow_up(question)
