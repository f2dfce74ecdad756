"""The summary quality gate and the budget arithmetic, on their own."""

from __future__ import annotations

from typing import Any

from docent.core.config import Settings
from docent.core.summary_budget import Clock, describe, map_words, reduce_calls, section_words
from docent.core.summary_quality import rejection

SOURCE = (
    "Ian Murdock founded the Debian project in August 1993. Bruce Perens led it from 1996, "
    "when Debian 1.1 was released with the dpkg package manager. The Social Contract was "
    "ratified in July 1997."
)
NAME = "debian-history__project-history.en.pdf"


def test_a_real_summary_passes() -> None:
    good = "Ian Murdock founded Debian in 1993; Bruce Perens led it from 1996 (dpkg, 1.1)."
    assert rejection(good, SOURCE, NAME) == ""


def test_the_document_name_over_and_over_is_rejected() -> None:
    text = "Debian-History-Summary-1.1 Debian-History-Summary-1.2 Debian-History-Summary-1.3 Deb"
    assert rejection(text, SOURCE, NAME) == "it was mostly the document's name"


def test_a_repeated_line_is_rejected() -> None:
    text = "- Debian was founded by Ian Murdock.\n- Debian was founded by Ian Murdock!\n"
    assert rejection(text, SOURCE, NAME).startswith("it repeated a line")
    short = "- See above.\n- See above.\n- Ian Murdock founded Debian in 1993."
    assert rejection(short, SOURCE, NAME) == ""  # two-word lines may repeat


def test_the_instructions_said_back_are_rejected() -> None:
    """smollm2:135m's summary of SIMH's manual, pp. 4-7, began with the task it was given."""
    from types import SimpleNamespace

    from docent.core.summary_prompts import Prompts, instructions

    section: Any = SimpleNamespace(index=2, where="pages 4–7", text=SOURCE)  # what map() reads
    asked = instructions(Prompts(NAME, "brief").map(section, 3, 60))  # as the map call checks
    said = (
        "The document summarises these pages in at most 60 words: their topics, main points "
        "and key facts. Ian Murdock founded Debian in 1993; Bruce Perens led it from 1996."
    )
    assert rejection(said, SOURCE, NAME, asked).startswith("it said back the instructions")
    good = "Ian Murdock founded Debian in 1993; Bruce Perens led it from 1996 (dpkg, 1.1)."
    assert rejection(good, SOURCE, NAME, asked) == ""


def test_words_the_text_does_not_have_are_rejected() -> None:
    generic = "This document provides an overview of important topics and their history."
    assert rejection(generic, SOURCE, NAME) == "it had no content words from the text"
    assert rejection("   ", SOURCE, NAME) == "it was empty"
    # the name's words do not count as content shared with the text
    assert rejection("The Debian history of the project.", SOURCE, NAME) != ""


def test_a_summary_of_the_style_not_the_content_is_rejected() -> None:
    # smollm2:135m's summary of pages 1-4 of a CTSS hardware manual (the rig, Dec 1)
    said = (
        "The document contains pages 1–4, which summarise the contents of the document. "
        "The text is in a clear and concise style. The text is written in a clear and "
        "easy-to-read style."
    )
    manual = (
        "The 7750 contains the interval timer; location 5 is incremented at 60Hz. A drum "
        "read is written through channel B, and a clear instruction clears the trap word."
    )
    assert rejection(said, manual, "simh__ctss_hardware.pdf") == (
        "it had no content words from the text"
    )
    real = "Location 5 holds the interval timer, incremented at 60Hz; drum reads use channel B."
    assert rejection(real, manual, "simh__ctss_hardware.pdf") == ""


def test_a_summary_of_something_else_is_rejected() -> None:
    # smollm2:135m's combined summary of four CTSS manual sections (the rig, Dec 1)
    invented = (
        "The document is a comprehensive guide to a high-speed digital television system, "
        "created by the National Cable and Wireless Technology (NCRT) team. The project "
        "aimed to create a high-speed digital television system that used a hybrid "
        "technology combining a high-speed digital television (HDTV) with a high-speed "
        "digital telecommunication (DSL) technology."
    )
    sections = (
        "For examples, on an STR trap, CTSS simulates the behavior by copying A-core "
        "location 0 to B-core location 0 and resuming execution at B-core location 2. The "
        "list of privileged instructions is derived from the CTSS background task emulation "
        "routine. CTSS allows the background processor to use drives 1-7 and 0. The 7631 in "
        "turn supports ten logical units (called modules), of which CTSS uses 5. The system "
        "runs at high speed."
    )
    why = rejection(invented, sections, "simh__ctss_hardware.pdf")
    assert why.startswith("most of its words are not in the text"), why
    faithful = (
        "CTSS simulates an STR trap by copying A-core location 0 to B-core and resuming at "
        "location 2; the background processor uses drives 1-7 and ten logical units."
    )
    assert rejection(faithful, sections, "simh__ctss_hardware.pdf") == ""


def test_section_size_fits_the_context() -> None:
    assert section_words(Settings(max_words_per_section=1500)) == 1500  # 4,096 tokens
    small = section_words(Settings(max_words_per_section=1500, llm_context_tokens=1024))
    assert 100 <= small < 300
    assert section_words(Settings(max_words_per_section=200, llm_context_tokens=32768)) == 200


def test_reduce_calls_and_map_words() -> None:
    assert reduce_calls(1, 200, 1500) == 0
    assert reduce_calls(6, 200, 1500) == 1  # they fit one final call
    assert reduce_calls(30, 100, 1500) == 3  # 2 combining calls (15 each), then the final
    assert reduce_calls(100, 100, 1500) == 8  # 7 combining calls (7 x 214 words fit), final
    assert map_words(1500, 2) == 250 and map_words(1500, 100) == 60


def test_clock_estimates_from_timed_calls_and_flags_over_limit() -> None:
    clock = Clock(limit_seconds=10.0, start=0.0)
    assert clock.seconds_left(5) is None and not clock.check(5)
    clock.record(2.0)
    clock.record(4.0)
    assert clock.seconds_left(5) == 15.0
    assert clock.check(5)  # started at monotonic 0: long ago, and 15 s more
    assert clock.check(0)  # stays over once over
    # a short summary is never over the limit: a one-page file's is 4 s (session 28's QA)
    one_page = Clock(limit_seconds=4.0)
    one_page.record(6.0)
    assert not one_page.check(1)  # 6 s left: over 4 s, under LIMIT_FLOOR
    one_page.record(60.0)
    assert one_page.check(1)
    assert describe(None) == "" and describe(150) == "about 2 min left"
    assert describe(12) == "about 10 s left"
