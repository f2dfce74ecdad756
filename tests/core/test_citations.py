"""The pure parts of answering: markers, follow-ups, prompts, confidence."""

from __future__ import annotations

from dataclasses import replace

import pytest

from docent.core.answering import Answer
from docent.core.citations import (
    Citation,
    citations_for,
    cite_echoed_headers,
    cited_numbers,
    distinct_names,
    drop_invalid,
    drop_unoffered_headers,
    dropped_places_note,
    named_pages_note,
    pages_not_given,
    strip_markers,
)
from docent.core.config import Settings
from docent.core.conversation import Conversation, fallback_query, parse_rewrite
from docent.core.evaluation import (
    Conflict,
    Faithfulness,
    SentenceSupport,
    answer_confidence,
    says_not_found,
    split_sentences,
    stem,
)
from docent.core.models import Hit
from docent.core.prompting import (
    DEFAULT_LAYOUT,
    INSTRUCTIONS,
    LAYOUTS,
    QUOTE_REMINDER,
    ROLE,
    SHOT_ANSWER,
    answer_budget,
    best_excerpt,
    build_prompt,
    context_plan,
    with_lead,
)

PASSAGE = (
    "Command lines entered at the console are limited to about 4095 bytes (not characters). "
    'The command sink("record.lis") will divert all subsequent output from the console to '
    "an external file."
)


def hit(n: int, text: str = PASSAGE, words: int = 0) -> Hit:
    body = text if not words else " ".join(f"word{n}x{i}" for i in range(words))
    return Hit(f"c{n}", "d", "R-intro.pdf", "/docs/R-intro.pdf", n, n, n, 1.0 / n, body)


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("a [1] b [2].", [1, 2]),
        ("a [1, 2] b", [1, 2]),
        ("a [1][2] b [2]", [1, 2]),
        ("a [3;1] b", [3, 1]),
        ("a [2-4]", [2, 3, 4]),
        ("a [0-9] regex, year [2005], [x], [ 7 ]", [7]),
        ("Use `x[6]` or `y[2]` to index [1].", [1]),  # the model's code is not a citation
        ("```r\nx[3] <- 1\n```\nSo [2].", [2]),
        ("an open `span and [1]", [1]),
    ],
)
def test_cited_numbers(text: str, numbers: list[int]) -> None:
    assert cited_numbers(text) == numbers


def test_drop_invalid_keeps_offered_numbers_only() -> None:
    text, dropped = drop_invalid("Yes [1, 9]. No [7]. Maybe [2][8] [1-2].", 2)
    assert text == "Yes [1]. No. Maybe [2] [1-2]."
    assert dropped == [9, 7, 8]
    assert drop_invalid("Fine [1].", 1) == ("Fine [1].", [])
    # R's indexing in the model's code stays as written, and is no dropped citation
    assert drop_invalid("Take `x[6]`, the sixth [1] [9].", 2) == (
        "Take `x[6]`, the sixth [1].",
        [9],
    )


def test_an_echoed_header_shared_by_two_passages_keeps_its_own_number() -> None:
    """Two passages of one page (common: two chunks of p.7): the header's number decides,
    then the page as written (review: the first passage took both)."""
    same_page = [
        Hit("c1", "d", "manual.pdf", "/d/manual.pdf", 7, 7, 10, 0.9, "The pump starts."),
        Hit("c2", "d", "manual.pdf", "/d/manual.pdf", 7, 7, 11, 0.8, "The tank holds 40 l."),
    ]
    assert cite_echoed_headers("[2] manual.pdf p.7: The tank holds 40 l.", same_page) == (
        "The tank holds 40 l [2]."
    )
    spans = [
        Hit("c1", "d", "manual.pdf", "/d/manual.pdf", 5, 6, 10, 0.9, "Spanning text."),
        Hit("c2", "d", "manual.pdf", "/d/manual.pdf", 5, 5, 9, 0.8, "The tank holds 40 l."),
    ]
    assert cite_echoed_headers("manual.pdf p.5: The tank holds 40 l.", spans) == (
        "The tank holds 40 l [2]."
    )
    assert cite_echoed_headers("manual.pdf pp.5-6: Spanning text.", spans) == ("Spanning text [1].")


def test_an_echoed_header_opening_a_quotation_is_known_capitalised() -> None:
    """Begun in a quotation (``Passage [1] says: "``), a small model copies the passage's
    header with a capital, as a sentence's first word (seen with smollm2:135m, session 22)."""
    hits = [
        Hit(
            "c1",
            "d",
            "debian-edu-manual.pdf",
            "/d/debian-edu-manual.pdf",
            9,
            9,
            3,
            0.9,
            "Below is a table of the services.",
        )
    ]
    echoed = '"Debian-edu-manual.pdf p.9: Below is a table of the services." It lists them.'
    assert cite_echoed_headers(echoed, hits) == (
        '"Below is a table of the services [1]." It lists them.'
    )
    assert cite_echoed_headers("DEBIAN-EDU-MANUAL.pdf p.9: Below.", hits) == (
        "DEBIAN-EDU-MANUAL.pdf p.9: Below."  # only the first letter's case is forgiven
    )
    # the header quoted alone, then the sentence: no empty quotation is left (QA, s29:
    # '"" The rainwater harvesting tank is painted ...')
    alone = '"Debian-edu-manual.pdf p.9:" Below is a table of the services.'
    assert cite_echoed_headers(alone, hits) == "Below is a table of the services [1]."


def test_a_header_for_a_page_never_offered_is_dropped_and_named() -> None:
    """ "debian-history__project-history.en.pdf p.34:" of a 27-page file stood in the
    answer as if a citation, with p.13 offered (QA, session 26)."""
    offered = [
        Hit("c1", "d", "history.en.pdf", "/d/history.en.pdf", 13, 13, 0, 0.5, "x"),
        Hit("c2", "e", "simh_doc.pdf", "/d/simh_doc.pdf", 9, 10, 4, 0.5, "x"),
    ]
    answer = cite_echoed_headers(
        "Bruce led it [1]. History.en.pdf p.34: When Ian left, he chose Bruce.\n"
        "[2] simh_doc.pdf pp. 3-4: The CPU idles. other.pdf p.2: Not offered, not ours.",
        offered,
    )
    text, dropped = drop_unoffered_headers(answer, offered)
    assert text == (
        "Bruce led it [1]. When Ian left, he chose Bruce.\n"
        "The CPU idles. other.pdf p.2: Not offered, not ours."
    )
    assert dropped == ["History.en.pdf p.34", "simh_doc.pdf pp. 3-4"]
    # the offered pages' headers were made citations first, and stay
    cited = cite_echoed_headers("history.en.pdf p.13: Ian left.", offered)
    assert drop_unoffered_headers(cited, offered) == ("Ian left [1].", [])
    # a page inside an offered passage was given: a citation of it, not dropped
    inside = "simh_doc.pdf p.10: The CPU idles."
    assert drop_unoffered_headers(inside, offered) == (inside, [])
    assert cite_echoed_headers(inside, offered) == "The CPU idles [2]."


def test_a_header_for_lines_never_offered_is_dropped_and_named() -> None:
    """smollm2:135m wrote "renovation-plan.md lines 20-3: # Renovation plan ..." of a
    passage of lines 1-3, shown as if a citation (session 33, under Xvfb)."""
    note = Hit("c1", "d", "plan.md", "/d/plan.md", 1, 1, 0, 0.5, "x", location="lines 1-3")
    written = "plan.md lines 20-3: The painter arrives on 1 June."
    assert drop_unoffered_headers(written, [note]) == (
        "The painter arrives on 1 June.",
        ["plan.md lines 20-3"],
    )
    said = "Dropped plan.md lines 20-3: the model named lines it was not given."
    assert dropped_places_note(["plan.md lines 20-3"]) == said
    inside = "plan.md line 2: The painter arrives on 1 June."
    assert drop_unoffered_headers(inside, [note]) == (inside, [])
    echoed = cite_echoed_headers("plan.md lines 1-3: The painter arrives on 1 June.", [note])
    assert echoed == "The painter arrives on 1 June [1]."


@pytest.mark.parametrize(
    "text",
    [
        "See old_notes.pdf p.3: the pump runs.",  # another file, whose name ends so
        "see https://x.org/notes.pdf p.34: The war.",
        "Run `grep 'notes.pdf p.34:' log` to check [1].",  # code the model wrote
        "Per notes.pdf p.3:15 the war began.",  # a verse-like reference, not a header
    ],
)
def test_what_only_looks_like_a_header_for_a_page_never_offered_stays(text: str) -> None:
    """helper-55: "See old_notes.pdf p.3: the pump runs." became "See old_the pump
    runs."; a URL and code lost their words."""
    offered = [Hit("c1", "d", "notes.pdf", "/d/notes.pdf", 5, 5, 0, 0.5, "x")]
    assert drop_unoffered_headers(text, offered) == (text, [])
    assert cite_echoed_headers(text.replace("p.3", "p.5"), offered).startswith(text[:6])


def test_a_header_takes_no_marker_or_line_break_from_the_line_before() -> None:
    """The citation ending the line before was deleted with the header, and two
    paragraphs were joined (helper-55)."""
    offered = [Hit("c1", "d", "notes.pdf", "/d/notes.pdf", 5, 5, 0, 0.5, "x")]
    text = "The war ended in 1648 [1]\n\nnotes.pdf p.34: The treaty followed."
    assert drop_unoffered_headers(text, offered) == (
        "The war ended in 1648 [1]\n\nThe treaty followed.",
        ["notes.pdf p.34"],
    )
    assert cite_echoed_headers("Fact one [1]\nnotes.pdf p.5: the pump runs.", offered) == (
        "Fact one [1]\nthe pump runs [1]."
    )
    assert drop_unoffered_headers("NOTES.PDF p.9: Loud.", offered) == ("Loud.", ["NOTES.PDF p.9"])


def test_a_page_range_spread_over_two_offered_passages_is_not_dropped() -> None:
    """A header "notes.pdf pp.9-11:" of passages pp.9-10 and p.11 named pages the model was
    given, and was dropped as a page never offered (helper-55's gap)."""
    offered = [
        Hit("c1", "d", "notes.pdf", "/d/notes.pdf", 9, 10, 0, 0.5, "x"),
        Hit("c2", "d", "notes.pdf", "/d/notes.pdf", 11, 11, 1, 0.5, "y"),
    ]
    spread = "notes.pdf pp.9-11: The pump runs."
    assert drop_unoffered_headers(spread, offered) == (spread, [])
    past = "notes.pdf pp.9-12: The pump runs."
    assert drop_unoffered_headers(past, offered) == ("The pump runs.", ["notes.pdf pp.9-12"])
    backwards = "notes.pdf pp.34-9: The pump runs."  # an empty range: it was kept (review)
    assert drop_unoffered_headers(backwards, offered) == ("The pump runs.", ["notes.pdf pp.34-9"])


def test_a_marker_never_offered_before_a_dropped_header_is_named_too() -> None:
    """A header "[7] notes.pdf p.34:" with one passage offered: the header was dropped and named,
    and the marker went with it unnamed (helper-55's gap). drop_invalid now names it."""
    offered = [Hit("c1", "d", "notes.pdf", "/d/notes.pdf", 5, 5, 0, 0.5, "x")]
    text, pages = drop_unoffered_headers("Fact [1].\n[7] notes.pdf p.34: The war.", offered)
    assert pages == ["notes.pdf p.34"]
    assert drop_invalid(text, len(offered)) == ("Fact [1].\nThe war.", [7])
    # a marker that was offered goes with the header, as before: it was the header's
    valid = drop_unoffered_headers("[1] notes.pdf p.34: The war.", offered)
    assert valid == ("The war.", ["notes.pdf p.34"])


def test_a_header_for_a_slide_never_offered_is_dropped_and_named() -> None:
    """Slide headers were not checked: "talk.pptx, slide 9:" was shown as if a citation
    when only slide 3 was offered (helper-55's gap)."""
    deck = Hit("c3", "e", "talk.pptx", "/d/talk.pptx", 3, 3, 0, 0.4, "x", location="slide 3")
    text = "talk.pptx, slide 9: It ships in June."
    assert drop_unoffered_headers(text, [deck]) == ("It ships in June.", ["talk.pptx, slide 9"])
    offered = "talk.pptx, slide 3: It ships in May."
    assert drop_unoffered_headers(offered, [deck]) == (offered, [])
    assert drop_unoffered_headers(cite_echoed_headers(offered, [deck]), [deck]) == (
        "It ships in May [1].",
        [],
    )


def test_an_offered_header_inside_code_the_model_wrote_stays_code() -> None:
    """``cite_echoed_headers`` read headers inside code, where ``drop_unoffered_headers``
    did not: "`grep 'notes.pdf p.5:' log`" lost its header and became a cited sentence
    (session 26's final read). A header after the code is still made a citation."""
    offered = [Hit("c1", "d", "notes.pdf", "/d/notes.pdf", 5, 5, 0, 0.5, "x")]
    inline = "Run `grep 'notes.pdf p.5: pump' log` to check."
    assert cite_echoed_headers(inline, offered) == inline
    fenced = "Search it:\n```\ngrep 'notes.pdf p.5: pump' log\n```\n"
    assert cite_echoed_headers(fenced, offered) == fenced
    both = inline + "\nnotes.pdf p.5: The pump runs."
    assert cite_echoed_headers(both, offered) == inline + "\nThe pump runs [1]."


def test_an_echoed_passage_header_becomes_a_citation() -> None:
    offered = [hit(1), Hit("c2", "d", "simh_doc.pdf", "/d/simh_doc.pdf", 9, 10, 4, 0.5, "x")]
    answer = (
        "1) [2] simh_doc.pdf pp.9-10: The CPU detects when it is idle. It saves power.\n"
        "2) R-intro.pdf p.1: Lines are limited to 4095 bytes\n"
        "3) other.pdf p.2: Not offered."
    )
    assert cite_echoed_headers(answer, offered) == (
        "1) The CPU detects when it is idle [2]. It saves power.\n"
        "2) Lines are limited to 4095 bytes [1]\n"
        "3) other.pdf p.2: Not offered."
    )
    assert cite_echoed_headers("simh_doc.pdf p.3: wrong page.", offered) == (
        "simh_doc.pdf p.3: wrong page."
    )
    deck = Hit("c3", "e", "talk.pptx", "/d/talk.pptx", 3, 3, 0, 0.4, "x", location="slide 3")
    assert cite_echoed_headers("talk.pptx, slide 3: It ships in May.", [deck]) == (
        "It ships in May [1]."
    )


def test_citations_for_valid_numbers_ascending() -> None:
    offered = [hit(1), hit(2), hit(3)]
    cites = citations_for([3, 1, 3, 5], offered)
    assert [(c.n, c.chunk_id, c.page, c.page_end) for c in cites] == [
        (1, "c1", 1, 1),
        (3, "c3", 3, 3),
    ]
    assert cites[0].as_dict()["file_name"] == "R-intro.pdf"
    assert strip_markers("Bytes [1][2], not characters [3].") == "Bytes, not characters."


def test_split_sentences_keeps_markers_with_their_sentence() -> None:
    text = "It is 4095 bytes. [1] Use sink() [2].\n- a list item [1]\n1. Numbered one. Two."
    assert split_sentences(text) == [
        "It is 4095 bytes. [1]",
        "Use sink() [2].",
        "- a list item [1]",
        "1. Numbered one.",
        "Two.",
    ]


def test_stem_meets_word_forms() -> None:
    assert {stem(w) for w in ("use", "uses", "used", "using")} == {"us"}
    assert stem("libraries") == stem("library")
    assert stem("lines") == stem("line")
    assert stem("status") == "status" and stem("4095") == "4095"


def conversation_about(question: str) -> Conversation:
    conv = Conversation()
    conv.add(question, question, Answer(question, "It is 4095 bytes [1].", "generated"))
    return conv


def test_parse_rewrite() -> None:
    conv = conversation_about("How long can an R console line be?")
    assert parse_rewrite('Standalone question: "Can R sink output?"', conv, "And sink?") == (
        "Can R sink output?"
    )
    assert parse_rewrite("Penguins are birds.", conv, "And sink?") is None  # drifted away
    assert parse_rewrite("", conv, "And sink?") is None
    assert parse_rewrite("x" * 400, conv, "And sink?") is None
    # A follow-up with no content words is anchored on the previous query.
    assert parse_rewrite("Why is an R console line limited?", conv, "Why?") is not None
    # smollm2:135m's rewrites that bring words nobody said, searched and named in the
    # refusal ("No passage found is about 'rhetorical'"; QA, session 30)
    follow = "And the sink function?"
    assert parse_rewrite("What does the sink function do in R console?", conv, follow)
    assert parse_rewrite("The sink is the main character of the story.", conv, follow) is None
    assert parse_rewrite("This is a rhetorical sink question.", conv, follow) is None
    assert parse_rewrite("User: How long can a sink line be?", conv, follow) == (
        "How long can a sink line be?"
    )
    # an answer, not a rewrite: a number nobody said (QA-77: "The budget approved for
    # phase one is 1000." was searched and shown as what was searched)
    line = "How long can a sink line be in R?"
    assert parse_rewrite("An R console line can be 8191 bytes long.", conv, line) is None
    assert parse_rewrite("Can an R console line be 8191 bytes?", conv, f"{line} 8191?")
    # a number said in another notation, or in words, is said (review, session 35)
    assert parse_rewrite("Can an R console line be 8,191 bytes?", conv, f"{line} 8191?")
    assert parse_rewrite("Is sink line one of R's?", conv, "And sink line 1?")
    assert parse_rewrite("Is sink line 1 of R's?", conv, "And sink line one?")
    assert parse_rewrite("Can an R sink line be 8192 bytes?", conv, f"{line} 8191?") is None


def test_fallback_query_adds_previous_keywords() -> None:
    conv = conversation_about("How long can an R console line be?")
    assert fallback_query(conv, "And in bytes?") == "And in bytes? long console line"
    assert fallback_query(Conversation(), "Alone?") == "Alone?"


def test_prompt_lists_numbered_passages_within_budget() -> None:
    hits = [hit(n, words=150) for n in range(1, 30)]
    plan = context_plan(Settings(llm_context_tokens=2048), lambda t: len(t.split()))
    prompt = build_prompt(
        "Q?", "Q?", hits, Conversation(), plan, layout=LAYOUTS["system"], follows=False
    )
    user = prompt.messages[-1]["content"]
    assert user.startswith("Passages from the documents:\n\n[1] R-intro.pdf p.1: word1x0")
    assert user.endswith("Question: Q?")
    assert prompt.messages[0]["content"] == INSTRUCTIONS
    assert prompt.offered == hits[: len(prompt.offered)] and 3 <= len(prompt.offered) < 29
    used = sum(plan.tokens(m["content"]) for m in prompt.messages)
    assert used + plan.answer_tokens <= 2048
    assert prompt.shown[2].startswith("word2x0")


def test_the_default_layout_quotes_three_passages_best_last_and_opens_the_reply() -> None:
    hits = [hit(n, words=40) for n in range(1, 10)]
    plan = context_plan(Settings(), lambda t: len(t.split()))
    prompt = build_prompt("Q?", "Q?", hits, Conversation(), plan, follows=False)
    assert DEFAULT_LAYOUT.quote and DEFAULT_LAYOUT.max_passages == 3 and DEFAULT_LAYOUT.best_last
    user = prompt.messages[-2]["content"]
    assert user.index("[3] R-intro.pdf p.3") < user.index("[1] R-intro.pdf p.1")
    assert prompt.offered == hits[:3] and prompt.messages[0]["content"] == ROLE
    assert user.endswith(f"Question: Q?\n\n{QUOTE_REMINDER}")
    # the reply begun for the model, in a quotation of the best passage; of it, the
    # answer's text keeps only the opening mark
    assert prompt.messages[-1] == {"role": "assistant", "content": 'Passage [1] says: "'}
    assert prompt.lead == '"'
    assert prompt.options["stop"] == ["\nQuestion:"]


@pytest.mark.parametrize(
    ("went_on", "text"),
    [
        ('The pump stops when full [1]." That is it.', '"The pump stops when full [1]." That'),
        ("The pump stops when full [1].” That is it.", '"The pump stops when full [1].”'),
        ("The pump stops when full [1].", "The pump stops when full [1]."),  # never closed
        # answered afresh, quoting a term: its first mark opens a quotation (review)
        ('The manual calls it "GRUB" [1].', 'The manual calls it "GRUB" [1].'),
        ('"GRUB" is the loader [1].', '"GRUB" is the loader [1].'),
    ],
)
def test_the_opening_mark_is_kept_only_when_the_model_closed_the_quotation(
    went_on: str, text: str
) -> None:
    assert with_lead('"', went_on).startswith(text)


def test_a_best_last_layout_ends_with_the_best_passage_keeping_its_number() -> None:
    hits = [hit(n, words=40) for n in range(1, 10)]
    plan = context_plan(Settings(), lambda t: len(t.split()))
    prompt = build_prompt(
        "Q?", "Q?", hits, Conversation(), plan, layout=LAYOUTS["quote-3-last"], follows=False
    )
    user = prompt.messages[-1]["content"]
    # Listed [3] [2] [1]: the best passage is the one next to the question ...
    assert user.index("[3] R-intro.pdf p.3") < user.index("[2] R-intro.pdf p.2")
    assert user.index("[2] R-intro.pdf p.2") < user.index("[1] R-intro.pdf p.1")
    assert user.split("\n\n")[-3].startswith("[1] R-intro.pdf p.1: word1x0")
    # ... and [n] still means the n-th best, for the citations and the pointer line.
    assert prompt.offered == hits[:3] and prompt.shown[1].startswith("word1x0")


def test_a_shot_layout_shows_one_cited_answer_as_an_earlier_turn() -> None:
    """Measured in session 10 (docs/measurements/answers.md), not the default: the example
    exchange comes before the conversation's history, and its tokens come out of the
    passages' budget."""
    hits = [hit(n, words=150) for n in range(1, 30)]
    plan = context_plan(Settings(llm_context_tokens=2048), lambda t: len(t.split()))
    conv = conversation_about("How long can an R console line be?")
    shot = build_prompt("Q?", "Q?", hits, conv, plan, layout=LAYOUTS["shot-3-last"], follows=True)
    roles = [m["role"] for m in shot.messages]
    assert roles == ["system", "user", "assistant", "user", "assistant", "user"]
    assert shot.messages[2]["content"] == SHOT_ANSWER
    assert "[1] manual.pdf p.4" in shot.messages[1]["content"]
    assert "R console" in shot.messages[3]["content"]  # the history follows the example
    assert shot.offered == hits[:3] and shot.messages[-1]["content"].endswith(QUOTE_REMINDER)
    used = sum(plan.tokens(m["content"]) for m in shot.messages)
    assert used + plan.answer_tokens <= 2048
    # As many passages as fit: the example's room is counted (it is longer than one).
    short = [hit(n, words=10) for n in range(1, 200)]
    wide = replace(LAYOUTS["shot-3-last"], max_passages=0)
    with_shot = build_prompt("Q?", "Q?", short, conv, plan, layout=wide, follows=True)
    without = build_prompt(
        "Q?", "Q?", short, conv, plan, layout=replace(wide, shot=False), follows=True
    )
    assert len(with_shot.offered) < len(without.offered) < len(short)


def test_the_answer_budget_fits_the_question() -> None:
    settings = Settings()
    assert answer_budget("Which port does it use?", settings) == 192
    assert answer_budget("How do I set the port, step by step?", settings) == 384
    assert answer_budget("Why is it slow?", Settings(llm_context_tokens=1024)) == 256
    assert answer_budget("Which port?", Settings(llm_answer_tokens=50)) == 50


def test_best_excerpt_centres_on_the_question() -> None:
    text = (
        "Intro words here. " * 30 + "The sink function diverts output to a file. " + "Tail. " * 30
    )
    excerpt = best_excerpt(text, "How do I divert output with sink?", limit=120)
    assert excerpt.startswith("… The sink function diverts output to a file.")
    assert excerpt.endswith(" …")


@pytest.mark.parametrize(
    "text",
    [
        "I could not find this in the documents.",
        "I can't find that in the passages.",
        "The passages do not contain the answer.",
        "It is not mentioned in the documents.",
        "I'm unable to find that in the passages.",
        "We could not locate it.",
        "Unable to find the answer in the passages given.",
        "This is not stated in the provided passages.",
    ],
)
def test_says_not_found(text: str) -> None:
    assert says_not_found(text)


@pytest.mark.parametrize(
    "text",
    [
        "You can find the option in the CPU menu.",
        # review, session 35: instructions, not the model abstaining
        "If you cannot see the menu, hold the reset button for ten seconds.",
        "If the file is not found in the documents folder, reinstall the app.",
    ],
)
def test_not_found_words_of_an_answer(text: str) -> None:
    assert not says_not_found(text)


def test_a_markdown_links_text_is_no_citation() -> None:
    """The window draws "[2](https://...)" as a link (review, session 35)."""
    text = "See the manual [2](https://example.org/manual). It says so [1]."
    assert cited_numbers(text) == [1]
    assert drop_invalid(text, 1) == (text, [])
    # nor a part of a file's name (a small model's header of a passage)
    assert cited_numbers('"gamma_server[2].md lines 4-5" It is in rack 7 [1].') == [1]
    assert cited_numbers("It is in rack 7 [1].Then slot 3 [2].") == [1, 2]
    assert cited_numbers("It is 40 L [2].the end, in bytes[1].") == [2, 1]
    assert cited_numbers("See notes[2].MD and [3](p. 3).") == [3]


def test_says_not_found_only_for_short_refusals() -> None:
    assert not says_not_found("I could not find a limit. " + "But here is more. " * 30)


def faith(*supported: bool) -> Faithfulness:
    return Faithfulness([SentenceSupport(f"s{i}", (1,), 1.0, ok) for i, ok in enumerate(supported)])


def test_answer_confidence() -> None:
    clean = {"cited": True, "invalid": False, "partial": False}
    assert answer_confidence("high", faith(True, True), **clean) == "high"
    assert answer_confidence("", faith(True), **clean) == "medium"  # retrieval did not say
    assert answer_confidence("high", faith(True, True, False), **clean) == "high"  # 1/3
    assert answer_confidence("high", faith(True, False), **clean) == "medium"
    assert answer_confidence("high", faith(True), cited=True, invalid=True, partial=True) == "low"
    assert answer_confidence("high", faith(True), cited=False, invalid=False, partial=False) == (
        "low"
    )
    assert answer_confidence("high", faith(False, False, True), **clean) == "medium"  # 2/3
    assert answer_confidence("high", faith(False, False, False, True), **clean) == "low"
    # Citations Docent matched because the model wrote none: one step down.
    assert answer_confidence("high", faith(True), **clean, matched_only=True) == "medium"
    # A sentence going against its passage's figure: one step down (QA-78: "high").
    against = Conflict(1, "The yearly fee is 450 kroner.", "changed")
    sentences = [
        SentenceSupport("The fee is 450 kroner [1].", (1,), 1.0, True),
        SentenceSupport("It opens at 9 [1].", (1,), 1.0, True),
        SentenceSupport("The fee is 26 [1].", (1,), 0.4, False, conflict=against),
    ]
    assert answer_confidence("high", Faithfulness(sentences), **clean) == "medium"


def test_a_citation_lights_on_each_page_only_its_part_there() -> None:
    """A passage from the foot of p.4 onto p.5: p.5 searches only the words on p.5, and
    a page the passage is not on searches nothing (review h20)."""
    text = "End of page four words.\nStart of page five words."
    h = replace(hit(1, text), page_start=4, page_end=5, page_breaks=((5, 24),))
    [c] = citations_for([1], [h])
    assert (c.part_on(4), c.part_on(5)) == ("End of page four words.", "Start of page five words.")
    assert c.part_on(3) == c.part_on(6) == ""
    whole = replace(c, page_breaks=())  # indexed before the breaks were recorded
    assert whole.part_on(5) == text


def test_a_citation_says_at_which_edge_of_a_page_its_part_there_is() -> None:
    text = "End of page four words.\nAll of page five.\nStart of page six words."
    h = replace(hit(1, text), page_start=4, page_end=6, page_breaks=((5, 24), (6, 42)))
    [c] = citations_for([1], [h])
    assert [c.edge_on(p) for p in (3, 4, 5, 6, 7)] == ["", "end", "", "start", ""]
    assert replace(c, page_breaks=()).edge_on(4) == ""  # the part is the whole passage


def test_pages_an_answer_names_that_no_passage_given_is_from() -> None:
    offered = [
        Hit("c1", "d", "manual.pdf", "/d/manual.pdf", 3, 4, 10, 0.9, "The pump starts."),
        Hit("c2", "d", "guide.pdf", "/d/guide.pdf", 10, 10, 11, 0.8, "See page 45 for the tank."),
    ]
    text = (
        "The pump starts on page 3, pp. 3-4 say so, and p.10 too. The tank is on page 45. "
        "The valve is on page 77 and pages 9-12 list the parts; page 77 again. "
        "Run `grep 'page 88' log` to see it."
    )
    assert pages_not_given(text, offered) == ["page 77", "pages 9-12"]
    assert pages_not_given("Nothing named here; 77 pages in all.", offered) == []
    # helper-60: a range a passage names, copied or in part; a file's name; other pages
    ranged = [
        Hit("c3", "d", "Notes page 12.pdf", "/d/n.pdf", 2, 2, 1, 0.9, "See pages 12-15."),
    ]
    said = (
        "As Notes page 12.pdf explains, see pages 12-15, and page 13 above all; report "
        "p.5.pdf too. Huge pages 2 MB wide, page 0 reserved, (p. 0.05)."
    )
    assert pages_not_given(said, ranged) == []
    assert named_pages_note(["page 77"]).startswith(
        "The answer names page 77, but no passage given to the model is from that page"
    )
    assert "from those pages: check them" in named_pages_note(["page 77", "pages 9-12"])


def test_every_page_of_a_list_an_answer_names_is_checked() -> None:
    """ "pages 3 and 4" checked page 3 only (session 28's left item)."""
    offered = [Hit("c1", "d", "manual.pdf", "/d/manual.pdf", 3, 4, 10, 0.9, "See pages 20 and 21.")]
    assert pages_not_given("It is on pages 3 and 4, and pp. 3, 4 or 20-21.", offered) == []
    said = "It is on pages 3 and 40. See pp. 4, 7-9 & 3 too; p. 3, 2 MB of it."
    assert pages_not_given(said, offered) == ["pages 3 and 40", "pp. 4, 7-9 & 3"]
    # one page, then a number of the sentence: no page 45 (review, session 29)
    assert pages_not_given("On page 3, 45 patients improved [1].", offered) == []


def test_cited_files_of_one_name_are_told_apart_by_their_folders() -> None:
    """QA, session 29: archive/meeting.md and notes/meeting.md made two chips "meeting.md,
    lines 1-12" and "meeting.md, lines 1-2"."""

    def cited(n: int, path: str) -> Citation:
        return Citation(n, f"c{n}", f"d{n}", path.rsplit("/", 1)[1], path, 1, 1, "Text.")

    names = distinct_names(
        [
            cited(1, "/w/archive/meeting.md"),
            cited(2, "/w/notes/meeting.md"),
            cited(3, "/w/notes/meeting.md"),
            cited(4, "/a/x/plan.pdf"),
            cited(5, "/b/x/plan.pdf"),
            cited(6, "/w/garden.txt"),
            cited(7, "/a/log.md"),
            cited(8, "/b/a/log.md"),
        ]
    )
    assert names == {
        "/w/archive/meeting.md": "archive/meeting.md",
        "/w/notes/meeting.md": "notes/meeting.md",
        "/a/x/plan.pdf": "a/x/plan.pdf",
        "/b/x/plan.pdf": "b/x/plan.pdf",
        "/w/garden.txt": "garden.txt",
        "/a/log.md": "a/log.md",  # not "//a/log.md" (review, session 29)
        "/b/a/log.md": "b/a/log.md",
    }
    # a file cited alone keeps the name the search gave it against the library's others
    # of its name (Engine.search: the sources pane showed "notes.md" for one of two)
    lone = cited(1, "/w/oslo/notes.md")
    assert distinct_names([lone]) == {"/w/oslo/notes.md": "notes.md"}
    named = replace(lone, name="oslo/notes.md")
    assert distinct_names([named]) == {"/w/oslo/notes.md": "oslo/notes.md"}
