"""Regression (ef26f35, words.NOT_ABBREVIATION used by evaluation._SENTENCE_END): the
lookbehinds ``(?<!\\b[A-Z]\\.)`` and ``(?<!\\betc\\.)`` stop a sentence ending on a single
capital ("Appendix B.", "terminal B.", "vitamin C.", "Plan A.") or on "etc." from ending:
two sentences become one. Before the commit they were split. Attribution then matches
the merged "sentence" to one passage only, so the first sentence loses the citation
Docent used to put on it."""

from __future__ import annotations

from docent.core.attribution import attribute
from docent.core.evaluation import split_sentences


def test_a_sentence_ending_on_a_single_capital_still_ends() -> None:
    assert split_sentences("The wiring is shown in Appendix B. Then restart the server [1].") == [
        "The wiring is shown in Appendix B.",
        "Then restart the server [1].",
    ]


def test_a_sentence_ending_on_etc_still_ends() -> None:
    assert split_sentences("It reads PDF, Word, HTML, etc. The index is stored locally.") == [
        "It reads PDF, Word, HTML, etc.",
        "The index is stored locally.",
    ]


def test_each_sentence_keeps_its_matched_citation() -> None:
    passages = {
        1: "To wire the controller, connect the green relay cable to terminal B.",
        2: "The cooling fan then runs at 1200 rpm during normal operation of the unit.",
    }
    a = attribute(
        "Connect the green relay cable to terminal B. "
        "The cooling fan then runs at 1200 rpm during normal operation.",
        passages,
    )
    assert a.matched == [1, 2]
    assert a.text.startswith("Connect the green relay cable to terminal B [1].")
