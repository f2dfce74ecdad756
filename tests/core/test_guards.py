"""Loop and runaway guards: fed token by token as a stream arrives, and on a real stream."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

import pytest

from docent.core.guards import (
    Cut,
    GuardLimits,
    OutputCut,
    OutputGuard,
    guard_for,
    last_sentence_end,
    normalise,
)
from docent.core.llm import OllamaClient
from ollama_stub import OllamaStub, split_tokens

MODEL = "stub-model:latest"
QUESTION = [{"role": "user", "content": "What does the manual say about registers?"}]
FIRST = "The PDP-11 has eight general registers [1]. "
LOOP = "Register R7 is the program counter and R6 the stack pointer [2]. "


def feed_all(text: str, limits: GuardLimits | None = None) -> tuple[OutputGuard, Cut | None]:
    guard = OutputGuard(limits or GuardLimits())
    cut = None
    for token in split_tokens(text):
        cut = guard.feed(token)
        if cut is not None:
            break
    return guard, cut


def test_plain_answer_is_not_cut() -> None:
    text = FIRST + LOOP + "See the manual for the rest.\n\n1. Item one.\n2. Item two."
    guard, cut = feed_all(text)
    assert cut is None and guard.text == text


def test_repeated_sentence_is_cut_before_the_repeat() -> None:
    guard, cut = feed_all(FIRST + LOOP + LOOP + LOOP)
    assert cut is not None
    assert cut.kind in ("repeat", "loop")
    assert cut.kept == (FIRST + LOOP).strip()
    assert "repeating" in cut.reason
    # Cut at the end of the second copy at the latest, not later.
    assert cut.tokens <= len(split_tokens(FIRST + LOOP + LOOP))


def test_repeat_ignores_case_markers_and_list_numbers() -> None:
    text = "1. Use sink() to divert all output to a file [1].\n2. use SINK() to divert all output to a file [3].\n"
    guard, cut = feed_all(text, GuardLimits(ngram_words=50))
    assert cut is not None and cut.kind == "repeat"
    assert cut.kept == "1. Use sink() to divert all output to a file [1]."
    assert normalise("2. Use sink() [3].") == "use sink"


def test_a_loop_of_a_short_line_and_a_long_one_keeps_neither_again() -> None:
    """SmolLM2 (session 12, q021): a short line then a longer one, said twice; the repeat
    of the longer one is caught, and the short one before it must go too."""
    block = "1086472935 (RX-N)\n[PDP-11_TX] PDB-11_DDR, RX-N unit ready\n"
    text = FIRST + "\n\n" + block + LOOP + "\n\n" + block + block
    _, cut = feed_all(text)
    assert cut is not None and cut.kind == "repeat"
    assert cut.kept == (FIRST + "\n\n" + block + LOOP).strip()
    keys = [normalise(line) for line in cut.kept.splitlines() if line.strip()]
    assert len(keys) == len(set(keys))


def test_short_sentences_may_repeat() -> None:
    text = "Yes. It does. Yes. It does. The rest is in the manual."
    assert feed_all(text)[1] is None


def test_words_looping_without_a_sentence_end() -> None:
    text = "The options are " + "foo bar baz " * 30
    guard, cut = feed_all(text)
    assert cut is not None and cut.kind == "loop"
    assert cut.kept == ""  # no finished sentence before the loop
    assert cut.tokens < 30


def test_a_numbered_list_of_one_short_item_repeated_is_a_loop() -> None:
    """smollm2:135m on q011 (quiet, repeat_penalty 1.05): items too short to be judged as
    sentences, each with its own number, 47 times until the budget ended it."""
    text = "1. Building and testing packages\n" + "".join(
        f"{i}. Debian packaging workflow\n" for i in range(2, 50)
    )
    guard, cut = feed_all(text)
    assert cut is not None and cut.kind == "loop"
    assert cut.kept == "1. Building and testing packages\n2. Debian packaging workflow"
    assert cut.tokens < len(split_tokens(text)) // 4


def test_rambling_without_a_sentence_end() -> None:
    words = (f"word{i}" for i in itertools.count())
    text = "A first sentence. " + " ".join(itertools.islice(words, 400))
    guard, cut = feed_all(text, GuardLimits(max_tokens_without_end=50))
    assert cut is not None and cut.kind == "rambling"
    assert cut.kept == "A first sentence."
    assert cut.tokens == 3 + 51
    assert "50 tokens without ending a sentence" in cut.reason


def test_a_decimal_point_is_no_sentence_end() -> None:
    """smollm2:135m's detailed summary of a survival analysis chapter: "Figure 11.4 of the
    Kaplan-Meier estimation ..., shown in Figure 11.5 of ..., shown in Figure 11.61 of ..."
    for 4,932 characters. Each number's point counted as a sentence end and the rambling
    count started again, and no two windows of words were alike (QA, session 28)."""
    loop = " ".join(
        f"Figure 11.{i} of the Kaplan-Meier estimation of the survival function, shown in"
        for i in range(4, 200)
    )
    guard, cut = feed_all(loop, GuardLimits(max_tokens_without_end=120))
    assert cut is not None and cut.kind == "rambling", guard.text[-200:]
    # as a real server streams it: "11" "." "5" (the point is a token of its own)
    guard = OutputGuard(GuardLimits(max_tokens_without_end=120))
    tokens = [t for word in loop.split(" ") for t in re.split(r"(\.)", word + " ") if t]
    cuts = [c for c in (guard.feed(t) for t in tokens) if c is not None]
    assert cuts and cuts[0].kind == "rambling"
    # a point that does end a sentence still does, split from the next word or not
    steady = " ".join(f"Part{i} takes {i}.5 s." for i in range(60))
    guard, cut = feed_all(steady, GuardLimits(max_tokens_without_end=20))
    assert cut is None and guard.text == steady
    guard = OutputGuard(GuardLimits(max_tokens_without_end=20))  # the points alone too
    tokens = [t for word in steady.split(" ") for t in re.split(r"(\.)", word + " ") if t]
    assert all(guard.feed(t) is None for t in tokens) and guard.text == steady + " "


def test_lines_with_no_words_are_cut() -> None:
    """smollm2:135m copied a text, then wrote 386 lines of "##" and "###": no word to
    repeat, and each line break reset the rambling count (QA, session 28)."""
    said = "The glacier lost 40 metres of ice in 2019.\nIt grew back in 2021.\n"
    guard, cut = feed_all(said + "  ##\n  ###\n" * 200)  # (indented: kept to the line before)
    assert cut is not None and cut.kind == "noise" and cut.kept == said.strip()
    assert "wrote lines with no words" in cut.reason
    # code's closing braces, a table of ticks, ASCII art: an answer (helper-60)
    code = (
        "Use a callback:\n\n```js\nitems.forEach((k) => {\n  if (k) {\n    out.push(k);\n"
        "  }\n  }\n}\n});\n});\n});\n});\n```\n\n| a | b |\n|---|---|\n| ✓ | ✗ |\n"
        "| ✗ | ✓ |\n\n```\n+---+\n| / |\n+---+\n```\nDone."
    )
    guard, cut = feed_all(code)
    assert cut is None and guard.text == code
    # a table's rule, a line between parts, blank lines: an answer
    table = "".join(
        f"| site {i} | loss |\n|---|---|\n| {2010 + i} | {30 + i} |\n\n---\n\n" for i in range(5)
    )
    guard, cut = feed_all(table + "Done.")
    assert cut is None and guard.text == table + "Done."


def test_budget_backstop_follows_num_predict() -> None:
    guard = guard_for({"num_predict": 40})
    assert guard.limits.max_tokens == 48
    assert guard_for(None).limits.max_tokens is None
    words = " ".join(f"w{i}." for i in range(100))
    cut = None
    for token in split_tokens(words):
        cut = cut or guard.feed(token)
    assert cut is not None and cut.kind == "budget" and cut.tokens == 49
    assert cut.kept.endswith("w47.")
    # the budget named is the request's, not the cap's slack (review, session 35)
    assert cut.reason == "The answer was cut at its budget of 40 tokens."


def test_last_sentence_end() -> None:
    assert last_sentence_end("One. Two and thr") == len("One.")
    assert last_sentence_end("One. Two.") == len("One. Two.")
    assert last_sentence_end("no end at all") == 0
    # an abbreviation's full stop ends no sentence (review, session 35: "... e.g [1].")
    cipher = "Encrypt it first. Use a strong cipher, e.g. AES-256, before copying it to"
    assert last_sentence_end(cipher) == len("Encrypt it first.")
    assert last_sentence_end("Use a cipher, e.g.") == 0
    assert last_sentence_end("See Fig. 3 for it.") == len("See Fig. 3 for it.")


def endless(text: str) -> Iterator[str]:
    yield from split_tokens(FIRST)
    while True:
        yield from split_tokens(text)


def test_endless_loop_is_cut_and_the_server_sees_the_hang_up(ollama_stub: OllamaStub) -> None:
    ollama_stub.responder = lambda messages, model: endless(LOOP)
    client = OllamaClient(ollama_stub.url, MODEL, 1.0, 5.0, 30.0)
    received: list[str] = []
    with pytest.raises(OutputCut) as info:
        for token in client.stream_chat(QUESTION):
            received.append(token)
    cut = info.value.cut
    assert cut.kept == (FIRST + LOOP).strip()
    # Bounded: the cut comes by the end of the second copy of the looping sentence.
    bound = len(split_tokens(FIRST)) + 2 * len(split_tokens(LOOP))
    assert len(received) < bound
    # The stub sets this when a write fails because the client hung up, and then stops
    # streaming: an endless generation ends on the server, not only in the client.
    assert ollama_stub.client_disconnected.wait(5.0), "the server never saw the hang-up"


def test_chat_raises_the_cut_too(ollama_stub: OllamaStub) -> None:
    ollama_stub.responder = lambda messages, model: endless("again and again and again ")
    client = OllamaClient(ollama_stub.url, MODEL, 1.0, 5.0, 30.0)
    with pytest.raises(OutputCut):
        client.chat(QUESTION)
    assert ollama_stub.client_disconnected.wait(5.0)


def test_done_reason_reaches_the_guard(ollama_stub: OllamaStub) -> None:
    ollama_stub.done_reason = "length"
    client = OllamaClient(ollama_stub.url, MODEL, 1.0, 5.0, 30.0)
    guard = OutputGuard()
    assert "".join(client.stream_chat(QUESTION, guard=guard)) == "The stub model says hello."
    assert guard.done_reason == "length"


@pytest.mark.parametrize(
    "count", [" ".join(str(i) for i in range(1, 40)), " ".join(f"{i})" for i in range(1, 40))]
)
def test_counting_instead_of_answering_is_noise(count: str) -> None:
    guard, cut = feed_all("The steps are listed below.\n" + count)
    assert cut is not None and cut.kind == "noise"
    assert cut.kept == "The steps are listed below."
    assert "numbers instead of words" in cut.reason
    assert guard.text.count(")") < 20 and guard.tokens < 45


def test_a_table_of_numbers_is_not_noise() -> None:
    rows = "\n".join(f"| 11/{i} | {i * 4}K | {i} |" for i in range(20, 26))
    text = f"| model | memory | slots |\n|---|---|---|\n{rows}\nThat is all."
    assert feed_all(text)[1] is None


@pytest.mark.parametrize(
    "answer",
    [
        "Units sold per year [1]:\n\n| Year | Units |\n|---|---|\n"
        + "".join(f"| {2010 + i} | {100 + 7 * i} |\n" for i in range(9)),
        "The firewall opens TCP ports 20, 21, 22, 25, 53, 80, 110, 119, 123, 143, 161, 389, "
        "443, 465, 587, 993 and 995 [1].",
        "Releases [2]:\n" + "".join(f"- 2.{i}: 2019-0{i}-15 [2]\n" for i in range(1, 8)),
    ],
    ids=["years-table", "ports", "release-dates"],
)
def test_answers_made_of_numbers_are_not_noise(answer: str) -> None:
    """A run of 16 numbers is noise only when it counts (review: these were cut, and
    their answer replaced by "numbers instead of words")."""
    assert feed_all(answer)[1] is None


def test_counting_over_lines_is_noise() -> None:
    """What smollm2:135m writes: list numbers, a line each."""
    guard, cut = feed_all("Here:\n" + "\n".join(f"{i})" for i in range(1, 40)))
    assert cut is not None and cut.kind == "noise"


def test_a_line_repeated_as_the_start_of_the_next_is_cut() -> None:
    # The shape that got past the guard: a line, then the same line going on.
    line = "Typing the interrupt character stops simulation"
    text = f"{line}\n{line} and returns to the command prompt of the simulator.\n"
    guard, cut = feed_all(text, GuardLimits(ngram_words=50))
    assert cut is not None and cut.kind == "repeat"
    assert cut.kept == line
    # Cut as soon as the second line went past the first, not at its end.
    assert cut.tokens < len(split_tokens(text)) - 3


def test_a_sentence_repeated_cut_short_is_a_repeat() -> None:
    first = "Typing the interrupt character stops simulation and prints the PC."
    text = f"{first} Typing the interrupt character stops simulation. Then more."
    guard, cut = feed_all(text, GuardLimits(ngram_words=50))
    assert cut is not None and cut.kind == "repeat"
    assert cut.kept == first


def test_sentences_sharing_a_start_are_not_repeats() -> None:
    text = (
        "Run the installer as root to set up the server. "
        "Run the installer as root again to add a workstation.\n"
        "The main server provides DHCP.\nThe main server provides DNS as well.\n"
    )
    guard, cut = feed_all(text, GuardLimits(ngram_words=50))
    assert cut is None and guard.text == text


# The real model's q007 (session 9): three list items, the last ending with a sentence the
# first had said, and then the stream ended: no space followed it, so no boundary did.
LAST_REPEAT = (
    "1) 3) The main server provides DHCP for the whole school network [1]. "
    "This is possible only when there is one machine doing this setup.\n\n"
    "2) 2) Services can be moved from the main server to another machine [1].\n"
    "3) 1) The Internet connection runs over a separate router (the gateway) [1]. "
    "This is possible only when there is one machine doing this setup."
)


def test_a_sentence_said_again_as_the_last_is_cut_when_the_stream_ends() -> None:
    guard, cut = feed_all(LAST_REPEAT)
    assert cut is None  # while it streamed, the last sentence might have gone on
    cut = guard.finish()
    assert cut is not None and cut.kind == "repeat"
    assert cut.kept.endswith("runs over a separate router (the gateway) [1].")
    assert guard.finish() is cut  # asked again, the same
    ended, _ = feed_all("The lamp is lit at dusk every day. It burns until dawn.")
    assert ended.finish() is None  # a last sentence said once stays


def test_an_answer_ending_on_a_short_line_it_said_before_drops_it() -> None:
    # smollm2:135m (answer_eval, q003): the line that opened its answer, again at the end.
    text = (
        "The correct answer is:\n\n1) x == NA is TRUE both for NaNs and NAs [1].\n\n"
        "2) There is a second kind of missing value [1].\nThe correct answer is:"
    )
    guard, cut = feed_all(text)
    assert cut is None  # short lines may repeat while the answer goes on
    cut = guard.finish()
    assert cut is not None and cut.kind == "repeat"
    assert cut.kept.endswith("second kind of missing value [1].")
    assert cut.kept.startswith("The correct answer is:")  # said once, it stays
    for kept in (
        "Is the pump covered? Yes.\nIs the seal covered? Yes.",  # a short answer again
        "Is the pump covered?\nYes.\nIs the seal covered?\nYes.",
        "Steps:\n1) Open the valve [1].\nThen:",  # dangling, but said once
    ):
        guard, cut = feed_all(kept)
        assert cut is None and guard.finish() is None, kept


def test_a_stream_ending_in_a_repeat_raises_the_cut(ollama_stub: OllamaStub) -> None:
    ollama_stub.responder = lambda messages, model: split_tokens(LAST_REPEAT)
    client = OllamaClient(ollama_stub.url, MODEL, 1.0, 5.0, 30.0)
    with pytest.raises(OutputCut) as info:
        "".join(client.stream_chat(QUESTION))
    assert info.value.cut.kept.endswith("(the gateway) [1].")
