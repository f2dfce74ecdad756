"""Checking and matching citations: which offered passage supports each sentence."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from docent.core.attribution import (
    THRESHOLDS,
    EmbedFn,
    Scorer,
    Thresholds,
    attribute,
    insert_markers,
)
from docent.core.citations import cited_numbers
from docent.core.embedding import Embedder
from docent.core.evaluation import cosine, gives_no_number, split_sentences
from docent.core.numbers import dates_in, spelled_numbers, stated_numbers, unstated_numbers

CONSOLE = (
    "Command lines entered at the console are limited to about 4095 bytes (not characters). "
    'The command sink("record.lis") will divert all subsequent output from the console to '
    "an external file."
)
PENGUINS = "Penguins are flightless birds of the southern hemisphere."
PDP11 = (
    "The PDP-11 has eight general registers, R0 to R7. R6 is the stack pointer and R7 the "
    "program counter; instructions address memory through them."
)
PASSAGES = {1: CONSOLE, 2: PENGUINS, 3: PDP11}


@pytest.fixture(scope="module")
def embed() -> object:
    embedder = Embedder()
    return embedder.embed_dense


def test_model_citations_are_checked_and_uncited_sentences_matched() -> None:
    answer = (
        "Console lines are limited to 4095 bytes [2]. Penguins are flightless birds. "
        "Yes. Output goes to an external file with sink [1]."
    )
    checked = attribute(answer, PASSAGES)
    wrong, matched, short, right = checked.faith.sentences
    assert not wrong.supported and wrong.better == 1  # cites [2], [1] clearly supports it
    assert matched.matched == 2 and matched.supported and matched.cited == ()
    assert not short.judged and short.supported
    assert right.supported and right.cited == (1,) and right.matched is None
    assert checked.model_cited == [2, 1] and checked.matched == [2]
    assert "Penguins are flightless birds [2]." in checked.text
    assert checked.faith.unsupported == ["Console lines are limited to 4095 bytes [2]."]
    assert [s.sentence for s in checked.misattributed] == [wrong.sentence]


def test_a_number_the_passage_does_not_state_is_not_supported(embed: EmbedFn) -> None:
    wrong = "Command lines at the console are limited to about 4096 bytes."
    right = "Command lines at the console are limited to about 4,095 bytes."
    checked = attribute(f"{wrong} {right}", PASSAGES, embed)
    bad, good = checked.faith.sentences
    assert not bad.supported and bad.matched is None and bad.score <= 0.25
    assert good.supported and good.matched == 1
    assert checked.faith.unsupported == [wrong]
    cited = attribute("Console lines are limited to 4096 bytes [1].", PASSAGES, embed)
    assert cited.faith.unsupported == ["Console lines are limited to 4096 bytes [1]."]


def test_a_day_the_passage_does_not_state_is_not_supported(embed: EmbedFn) -> None:
    """ "Work starts on 5 April 2026" was supported by a plan saying 6 April: its "five
    weeks" is a 5 (QA, session 31)."""
    plan = {
        1: "Work starts on 6 April 2026 and should take five weeks. "
        "Update: the start date moved to 13 April 2026."
    }
    wrong = "Work starts on 5 April 2026 and should take five weeks [1]."
    right = "Work starts on April 6th, 2026 [1]."
    moved = "The start moved to 2026-04-13 [1]."
    checked = attribute(f"{wrong} {right} {moved}", plan, embed)
    assert checked.faith.unsupported == [wrong]
    # a lower-case "may" is no month: "5 may" is no date the plan lacks
    assert dates_in("Version 5 may fail. It opens on 3 May.") == {"date:5-3"}
    # either end of a range is a day it states (review, session 31), "DEC 10" no date
    for source, said in [
        ("Work runs 6-10 April 2026.", "Work starts on 6 April."),
        ("Work runs 6–10 April 2026.", "It ends on 10 April."),
        ("Work runs between 6 and 10 April.", "Work starts on 6 April."),
        ("Held April 6–10, 2026.", "It ends on April 10."),
        ("The DEC 10 is in room 6. Held on 6 April.", "The DEC 10 arrived."),
    ]:
        assert not unstated_numbers(said, stated_numbers(source)), (source, said)
    assert unstated_numbers("It starts on 11 April.", stated_numbers("Held 6-10 April."))


def test_a_number_the_passage_spells_out_is_one_it_states(embed: EmbedFn) -> None:
    """A passage's "nineteen metres" states 19: the answer's "19 metres" was capped as a
    number the passage never states. Only the passage's words are read as numbers: the
    answer's "one of" needs no 1 in the passage."""
    passages = {1: "The tower of local granite stands nineteen metres tall and is one of four."}
    said = "The tower stands 19 metres tall [1]."
    checked = attribute(f"{said} It is one of 4 towers of local granite [1].", passages, embed)
    assert checked.faith.unsupported == []
    wrong = attribute("The tower stands 45 metres tall [1].", passages, embed)
    assert wrong.faith.unsupported == ["The tower stands 45 metres tall [1]."]


def test_numbers_in_words() -> None:
    cases = {
        "nineteen metres": {"19"},
        "for thirty-one years": {"31"},
        "about four hundred members": {"400"},
        "a hundred and five ships": {"105"},
        "two thousand five hundred": {"2500"},
        "one hundred and twenty-three thousand": {"123000"},
        "ninety-nine and three": {"99", "3"},  # "and" joins only after hundred, thousand
        "a thousand": {"1000"},
        "no numbers here, none at all": set(),
        "opened in nineteen ninety-eight": {"1998"},  # a year, not 19 + 90 + 8
        "in twenty twenty-one": {"2021"},
        "the twenty-first and the nineteenth": {"21", "19"},
        "a second later": set(),  # a unit of time, not a number
        "a fifteen second delay": {"15"},
        "members: fifty. Second, it grew": {"50"},  # a mark ends a number (helper-60)
        "ten, twenty and thirty": {"10", "20", "30"},
    }
    assert {text: spelled_numbers(text) for text in cases} == cases


def test_centuries_decades_and_numbers_in_words_a_sentence_states() -> None:
    """A summary of a text on a tower built in 1871 said "a 19th-century marvel" and
    "electrified in the 1950s": flagged as numbers the text never states (QA, session 28);
    its "seventeen people" of a text's seven, and "five hundred loaves" of three hundred,
    went unchecked."""
    have = stated_numbers(
        "The tower was built in 1871 and electrified in 1953. The museum opened in nineteen "
        "ninety-eight. The bakery bakes about three hundred loaves with seven people. Lines "
        "hold 4,095 bytes."
    )
    stated = [
        "A 19th-century marvel.",
        "A nineteenth-century marvel.",
        "Electrified in the 1950s.",
        "The museum opened in 1998.",
        "About three hundred loaves, by 7 people.",
        "One of the towers, the first one.",
        "Roughly four thousand bytes; about 290 loaves; over and over; about a dozen.",
    ]
    unstated = [
        "An 18th-century marvel.",
        "Electrified in the 1960s.",
        "About five hundred loaves.",
        "Seventeen people work there.",
        "The 3rd floor.",
        "About five thousand loaves.",
    ]
    assert [s for s in stated if unstated_numbers(s, have)] == []
    assert [s for s in unstated if not unstated_numbers(s, have)] == []


def test_a_bound_is_not_a_rounding_and_a_year_is_no_count() -> None:
    """helper-60: "nearly 2,000 employees" passed on the year 2019, "over 100 people" on 91
    (a bound); "the twenty-first century" was read as "first century"."""
    have = stated_numbers("In 2019 the firm had 150 employees; 91 people came and 54 left.")
    assert unstated_numbers("Nearly 2,000 employees.", have)
    assert unstated_numbers("Over 200 people came.", have)
    assert not unstated_numbers("Over 140 employees, about 90 people.", have)
    assert unstated_numbers("Under 40 left.", have)
    assert not unstated_numbers("In the twenty-first century, under 60 left.", have)


def test_a_count_written_like_a_year_and_a_list_of_centuries() -> None:
    """Session 28's known-left: "about 2,000" was flagged of a text's "1,987 schools" (its
    value is a year's, and a year is no count), and "the 18th and 19th centuries" read 18
    as a number the text never states."""
    have = stated_numbers("A survey counted 1,987 schools. The bridges date from 1750 and 1871.")
    assert not unstated_numbers("There are about 2,000 schools.", have)
    assert not unstated_numbers("Bridges of the 18th and 19th centuries.", have)
    assert not unstated_numbers("Bridges of the 18th or the 19th centuries.", have)
    assert unstated_numbers("Bridges of the 17th and 19th centuries.", have)
    assert unstated_numbers("Bridges of the 18th and 19th centuries, 20 of them.", have)
    assert unstated_numbers("The 18th and 19th bridges.", have)  # no century: 18 and 19
    # a year is still no count
    assert unstated_numbers("About 2,000 bridges.", stated_numbers("Built in 2019."))


def test_a_sentence_no_passage_supports_stays_flagged_once() -> None:
    invented = "Jupiter has a ring of frozen bananas around its moons."
    answer = f"{invented} Penguins are flightless birds. {invented}"
    checked = attribute(answer, PASSAGES)
    assert checked.faith.unsupported == [invented]  # listed once, though written twice
    assert [s.matched for s in checked.faith.sentences] == [None, 2, None]
    assert cited_numbers(checked.text) == [2]


def test_matched_markers_go_before_the_final_punctuation() -> None:
    text = "First one. Second one!\n- third item\nFourth (done)."
    sentences = split_sentences(text)
    out = insert_markers(text, sentences, {0: 3, 1: 1, 2: 2, 3: 4})
    assert out == "First one [3]. Second one [1]!\n- third item [2]\nFourth (done) [4]."
    assert insert_markers(text, sentences, {}) == text


def test_a_marker_goes_in_where_the_text_has_more_spaces_than_its_sentence() -> None:
    """A bullet written with several spaces: the sentence as split has one, and its
    matched citation was listed with no marker in the text."""
    text = "Intro line here.\n•   The  console   limits lines to 4095 bytes."
    sentences = ["Intro line here.", "• The console limits lines to 4095 bytes."]
    out = insert_markers(text, sentences, {1: 2})
    assert out == "Intro line here.\n•   The  console   limits lines to 4095 bytes [2]."


def test_cosine_ranks_a_paraphrase_above_unrelated_passages(embed: object) -> None:
    fn = embed  # the bundled MiniLM, as the Engine passes it
    sentence = "Each line you type into the R prompt can hold roughly four thousand bytes."
    scorer = Scorer([sentence], PASSAGES, fn, Thresholds(weight=0.0))  # type: ignore[arg-type]
    cos = {n: scorer.score(0, sentence, [n]) for n in PASSAGES}
    assert cos[1] > cos[3] and cos[1] > cos[2]
    assert scorer.best(0, sentence) == (1, pytest.approx(cos[1]))
    assert cosine([1.0, 0.0], [0.0, 2.0]) == 0.0 and cosine(
        [1.0, 1.0], [2.0, 2.0]
    ) == pytest.approx(1.0)


def test_with_embeddings_uncited_answer_gets_matched_citations(embed: object) -> None:
    answer = (
        "The PDP-11 has eight general registers. R6 is the stack pointer. "
        "Command lines at the console are limited to 4095 bytes."
    )
    checked = attribute(answer, PASSAGES, embed)  # type: ignore[arg-type]
    assert [s.matched for s in checked.faith.sentences] == [3, 3, 1]
    assert checked.text == (
        "The PDP-11 has eight general registers [3]. R6 is the stack pointer [3]. "
        "Command lines at the console are limited to 4095 bytes [1]."
    )
    assert checked.faith.unsupported == []


def test_embedding_call_is_one_batch(embed: object) -> None:
    calls: list[int] = []

    def counting(texts: Sequence[str]) -> list[list[float]]:
        calls.append(len(texts))
        return embed(texts)  # type: ignore[operator, no-any-return]

    attribute("The PDP-11 has eight registers. Penguins do not fly at all.", PASSAGES, counting)
    # The two sentences, the answer as a whole, and the passages with, for CONSOLE and
    # PDP11, each of their two sentences: one call.
    assert calls == [2 + 1 + len(PASSAGES) + 2 + 2]
    assert THRESHOLDS.weight < 1.0  # the default uses the embeddings


#: R-intro p.11 as retrieval offers it: the line limit is one sentence among eight.
R_PROMPT = (
    "R has an inbuilt help facility similar to the man facility of UNIX. "
    "To get more information on any specific named function, the command is help(solve). "
    "Elementary commands consist of either expressions or assignments. "
    "If an expression is given as a command, it is evaluated, printed, and the value is lost. "
    "Commands are separated either by a semi-colon or by a newline. "
    "Command lines entered at the console are limited to about 4095 bytes (not characters). "
    "Comments can be put almost anywhere, starting with a hashmark, everything to the end "
    "of the line is a comment. "
    "If a command is not complete at the end of a line, R will give a different prompt."
)


def test_a_restated_sentence_of_a_long_passage_is_scored_by_its_window(embed: EmbedFn) -> None:
    # smollm2:135m's answer to dev question q001, word for word: right, and uncited.
    said = (
        "The length of a single line written on the R console cannot exceed 4095 bytes "
        "(not characters)."
    )
    passages = {1: PENGUINS, 2: R_PROMPT}
    whole = Scorer([said], passages, embed, Thresholds(window=0))
    windows = Scorer([said], passages, embed, Thresholds(window=1))
    # Far from the whole passage, near its one sentence about the limit:
    assert whole.score(0, said, [2]) < THRESHOLDS.support <= windows.score(0, said, [2])
    # A passage of one sentence is its only window: scored as before.
    assert windows.score(0, said, [1]) == whole.score(0, said, [1])
    # Its longest run of the passage's words is four ("4095 bytes not characters"), and it
    # scores under the paraphrase bar: Docent puts no citation of its own on it (the cost
    # of the rule below: such sentences are rarely right).
    assert windows.score(0, said, [2]) < THRESHOLDS.paraphrase
    assert attribute(said, passages, embed).matched == []
    # In the passage's own words, it is matched, to the window's sentence.
    copied = "On the R console, command lines entered at the console are limited to 4095 bytes."
    checked = attribute(copied, passages, embed)
    assert checked.matched == [2] and checked.text.endswith("4095 bytes [2].")


#: Words of R_PROMPT recombined into a claim it does not make: what a small model writes.
RECOMBINED = "Commands typed after a hashmark are evaluated twice, and R prints a different prompt."


def test_a_passages_words_recombined_are_not_matched(embed: EmbedFn) -> None:
    passages = {1: PENGUINS, 2: R_PROMPT}
    scorer = Scorer([RECOMBINED], passages, embed, THRESHOLDS)
    # Above the support bar: it shares the passage's words and topic ...
    assert THRESHOLDS.support <= scorer.score(0, RECOMBINED, [2]) < THRESHOLDS.paraphrase
    # ... but copies no six of them in a row.
    assert not scorer.copies(RECOMBINED, 2)
    checked = attribute(RECOMBINED, passages, embed)
    assert checked.matched == [] and checked.faith.unsupported == [RECOMBINED]
    # The model's own citation of it is checked by the score, as before: supported.
    cited = attribute(RECOMBINED.replace(".", " [2]."), passages, embed)
    assert cited.faith.sentences[0].supported and cited.model_cited == [2]
    # Six words in a row from the passage (case and punctuation aside) are a copy.
    copy = "If a command is not complete at the end of a line R gives another prompt."
    assert scorer.copies(copy, 2) and not scorer.copies(copy, 1)
    assert attribute(copy, passages, embed).matched == [2]


def test_a_quotation_the_model_puts_on_a_passage_must_copy_it(embed: EmbedFn) -> None:
    """A model begun in a quotation (``Passage [1] says: "``) goes on to write ``Passage
    [2] says: "..."`` itself, mostly about words the passage does not say (a blind reading
    in session 22: 25 of its 39 own citations wrong). A sentence that says a passage says
    something, in quotation marks, is held to what Docent's own citations are: a copy."""
    passages = {1: PENGUINS, 2: R_PROMPT}
    for quoted in (
        f'Passage [2] says: "{RECOMBINED}"',
        f'"{RECOMBINED[:-1]} [2]."',
        f"[2] says: “{RECOMBINED}”",
        f'Passage [2] states, "{RECOMBINED}"',
        f'- "{RECOMBINED[:-1]}" [2].',  # a list item (review)
    ):
        checked = attribute(quoted, passages, embed)
        (sentence,) = checked.faith.sentences
        assert not sentence.supported and checked.model_cited == [2], quoted
        assert checked.faith.unsupported == [quoted]
    copy = "If a command is not complete at the end of a line R gives another prompt."
    checked = attribute(f'Passage [2] says: "{copy}"', passages, embed)
    assert checked.faith.sentences[0].supported and checked.faith.unsupported == []
    # Not a quotation: the model's citation is checked by the score, as before.
    plain_cited = attribute(RECOMBINED.replace(".", " [2]."), passages, embed)
    assert plain_cited.faith.sentences[0].supported
    said = attribute(f'I would say "{RECOMBINED[:-1]}" [2].', passages, embed)
    assert said.faith.sentences[0].supported  # "say" is no passage saying it


def test_a_name_the_passage_does_not_say_is_a_part_it_does_not_say(embed: EmbedFn) -> None:
    """smollm2:135m: "... founded in 1987 in the town of Brellmoor, England [1]" of a
    passage naming no England was neither underlined nor listed (QA-75): one new word is
    under ``unsaid_words``, but a new name alone is a claim of its own."""
    passage = (
        "The Zephyr Garden Society was founded in 1987 in the town of Brellmoor. Student "
        "membership costs 12 pounds a year."
    )
    sentence = (
        "The Zephyr Garden Society was founded in 1987 in the town of Brellmoor, England [1]."
    )
    (s,) = attribute(sentence, {1: passage}, embed).faith.sentences
    assert s.supported and s.unsaid == ("England",)
    # a name the passage says, a sentence's first word, a plain word of its own: none
    for said in (
        "The Zephyr Garden Society was founded in Brellmoor in 1987 [1].",
        "Founded in 1987, the Zephyr Garden Society is in the town of Brellmoor [1].",
        "The Zephyr Garden Society was founded in 1987 in the little town of Brellmoor [1].",
    ):
        (s,) = attribute(said, {1: passage}, embed).faith.sentences
        assert s.supported and s.unsaid == (), said


def test_the_part_of_a_cited_sentence_its_passage_does_not_say(embed: EmbedFn) -> None:
    # smollm2:135m copies half a sentence and makes up the rest (dev question q012).
    passage = (
        "dh (aka Debhelper 7, or dh7) was introduced in 2008 as a CDBS killer. It is used "
        "by most packages in debian/rules."
    )
    made_up = (
        "is not available anymore and its documentation has been removed from the "
        "official Debian website"
    )
    sentence = f"Dh (aka Debhelper 7, or dh7), introduced in 2008 as a CDBS killer, {made_up}."
    checked = attribute(sentence, {1: passage}, embed)
    (s,) = checked.faith.sentences
    assert s.supported and s.matched == 1  # it copies the passage: Docent cites it ...
    assert s.unsaid == (made_up,)  # ... and names what it goes on with, as written
    assert checked.faith.unsaid == [made_up]
    # The model's own citation of it: the same part, its marker aside.
    own = attribute(sentence.replace(".", " [1]."), {1: passage}, embed)
    assert own.faith.sentences[0].unsaid == (made_up,)
    # What the passage says, in its words, has no such part; nor has a sentence that only
    # leaves words out or adds one word of its own.
    for said in (
        "Dh was introduced in 2008 as a CDBS killer.",
        "Dh, also known as dh7, was introduced in 2008 as a CDBS killer by Debian.",
    ):
        (s,) = attribute(said, {1: passage}, embed).faith.sentences
        assert s.supported and s.unsaid == (), said
    # An unsupported sentence is flagged whole: no part of it is listed apart.
    (s,) = attribute(RECOMBINED, {1: PENGUINS, 2: R_PROMPT}, embed).faith.sentences
    assert not s.supported and s.unsaid == ()


#: Overlap alone, so the scores below can be worked out by hand: the first sentence shares 3
#: of its 7 content words with CONSOLE (0.43 < 0.5), the second 5 of 11 (0.45) and copies
#: seven of its words in a row ("output from the console to an external file"); the two
#: together 7 of 17 (0.41).
SPREAD = (
    "Lines typed at the console have a limit in Norway and Sweden today. "
    "Vikings and elves count it in bytes at dawn, gladly sending output from the console "
    "to an external file."
)
#: The same share of CONSOLE's words without a run of them: 5 of 13 (0.38).
SCATTERED = (
    "Lines typed at the console have a limit in Norway and Sweden today. "
    "The limit is counted in bytes by Vikings and elves, not in characters gladly."
)
BY_HAND = Thresholds(weight=1.0, support=0.5, whole=0.35, whole_margin=0.1)


def test_an_answer_no_sentence_of_which_is_supported_alone_is_matched_as_a_whole() -> None:
    checked = attribute(SPREAD, PASSAGES, None, thresholds=BY_HAND)
    assert checked.whole == 1 and checked.matched == [1] and checked.model_cited == []
    assert checked.text == f"{SPREAD}\n\n(Docent matched the answer as a whole to [1].)"
    # Each sentence stays flagged: no passage supports it alone, and it cites nothing.
    assert checked.faith.unsupported == split_sentences(SPREAD)
    assert checked.faith.uncited == split_sentences(SPREAD)


def test_no_whole_answer_match_when_it_is_not_clear() -> None:
    # Above the threshold but not clear of the next passage: no match.
    close = Thresholds(weight=1.0, support=0.5, whole=0.35, whole_margin=0.5)
    assert attribute(SPREAD, PASSAGES, None, thresholds=close).whole is None
    # A number the passage does not state rules it out, as for a sentence.
    dated = SPREAD.replace("today", "in 1987")
    assert attribute(dated, PASSAGES, None, thresholds=BY_HAND).whole is None
    # A sentence matched on its own: the answer has a citation, no whole-answer match.
    one = f"{SPREAD} Command lines at the console are limited to 4095 bytes."
    checked = attribute(one, PASSAGES, None, thresholds=BY_HAND)
    assert checked.whole is None and checked.matched == [1]


def test_an_answer_that_copies_no_run_of_words_is_not_matched_as_a_whole() -> None:
    checked = attribute(SCATTERED, PASSAGES, None, thresholds=BY_HAND)
    assert checked.whole is None and checked.matched == []
    assert checked.faith.uncited == split_sentences(SCATTERED)


def test_an_invented_answer_is_not_matched_as_a_whole(embed: object) -> None:
    made_up = "The lunar rover carried twelve astronauts to Jupiter. It rained cheese on Mars."
    checked = attribute(made_up, PASSAGES, embed)  # type: ignore[arg-type]
    assert checked.whole is None and checked.matched == []
    assert checked.faith.uncited == split_sentences(made_up)


def test_stacked_list_numbers_are_not_numbers_the_sentence_states() -> None:
    # SmolLM2 writes "1) 3) ..."; the "3" is not a claim the passage must back.
    checked = attribute("1) 3) The console limits lines to 4095 bytes.", PASSAGES, None)
    assert checked.matched == [1]
    assert checked.text == "1) 3) The console limits lines to 4095 bytes [1]."


def test_a_fenced_code_line_cites_nothing_and_is_no_claim() -> None:
    """A line of a fenced block is split as a sentence without its fence: its brackets
    (R's ``values[2]``) were read as citations of passages 2 and 3, then flagged as
    misattributed (review). Code cites nothing, is not judged, and gets no marker."""
    passages = {
        1: "To add offsets in R, index the vectors: result <- values[2] + offsets[3] adds "
        "the second value and the third offset.",
        2: "Lighthouses guide ships along rocky coasts at night.",
        3: "The zebra Quimby eats hay every morning at the zoo.",
    }
    answer = "Index the vectors like this [1]:\n```r\nresult <- values[2] + offsets[3]\n```"
    checked = attribute(answer, passages, None)
    (code,) = [s for s in checked.faith.sentences if "values" in s.sentence]
    assert code.cited == () and not code.judged and code.matched is None
    assert checked.faith.unsupported == [] and checked.misattributed == []
    assert checked.faith.conflicts == [] and checked.faith.unsaid == [] and not checked.matched
    assert checked.text == answer  # no marker put into the code
    assert checked.model_cited == [1]


def test_the_pages_a_sentence_names_are_no_numbers_it_states() -> None:
    """ "pages 3 and 4" left its 4 to be read as a number the source must state."""
    have = stated_numbers("The pump starts when the tank holds 40 litres.")
    assert not unstated_numbers(
        "The pump (pages 3 and 4, pp. 7, 9-11 or 12) holds 40 litres.", have
    )
    assert unstated_numbers("The pump (page 3) holds 45 litres.", have)
    assert unstated_numbers("It fills pages 2 MB wide.", have)  # a size, not a page
    # a list only after "pages": "page 3, 45 ..." states 45 (review, session 29)
    assert unstated_numbers("According to page 3, 45 litres came.", have)
    assert unstated_numbers("Page 5 and 2 others hold 40 litres.", have)


def test_centuries_listed_in_their_other_forms_and_a_grouped_count_whole() -> None:
    """Review s30: "1,987" was also found inside "0,1987" and "1,9870" (decimals), which
    then bore out "about 200" and "about 2,000"; a century list in the singular or as an
    adjective was not read as one."""
    have = stated_numbers("The bridges date from 1750 and 1871.")
    assert not unstated_numbers("Bridges of the 18th and 19th century.", have)
    assert not unstated_numbers("Its 18th- and 19th-century bridges.", have)
    assert unstated_numbers("Its 17th- and 19th-century bridges.", have)
    assert unstated_numbers("About 200.", stated_numbers("The ratio is 0,1987."))
    assert unstated_numbers("About 2,000 m.", stated_numbers("It is 1,9870 m long."))
    assert not unstated_numbers("About 2,000,000 people.", stated_numbers("2,000,000 people"))


@pytest.mark.parametrize(
    ("question", "answer", "none"),
    [
        ("How many parking spaces are there?", "It moves there on 10 November 2025 [1].", True),
        ("How many parking spaces are there?", "It has thirty-five spaces [1].", False),
        ("How much does it cost?", "It costs EUR 96,000 [2].", False),
        ("How much does it cost?", "It is on page 4 [1].", True),  # a page is no amount
        ("What percentage passed?", "Most of them passed [1].", True),
        ("Who leads Team Beta?", "Priya Natarajan leads it [1].", False),  # not asked
        # review, session 32: a figure with its unit, a count in words
        ("How much memory does it need?", "It needs 512MB [1].", False),
        ("How many parking spaces are there?", "There are no parking spaces [1].", False),
        ("How much does it cost?", "It is free of charge [1].", False),
        ("How much does the order matter?", "It matters a lot [1].", False),
    ],
)
def test_an_answer_giving_no_number_to_how_many(question: str, answer: str, none: bool) -> None:
    assert gives_no_number(question, answer) is none


def test_saying_which_passage_says_it_is_no_part_the_passage_does_not_say() -> None:
    """QA, session 32: "Passage [2] says" was listed under "Parts of cited sentences that
    their passage does not say"."""
    passages = {2: "Team Beta is led by Priya Natarajan and writes the inventory sync service."}
    for said in (
        "Passage [2] says: Team Beta is led by Priya Natarajan and writes the inventory sync "
        "service.",
        "According to passage [2], Team Beta is led by Priya Natarajan and writes the "
        "inventory sync service.",
    ):
        checked = attribute(said, passages)
        assert checked.faith.sentences[0].supported and checked.faith.unsaid == [], said
    made_up = "Team Beta is led by Priya Natarajan and writes the inventory sync service [2], "
    made_up += "and it keeps a huge purple dragon."
    assert attribute(made_up, passages).faith.unsaid == ["and it keeps a huge purple dragon"]
