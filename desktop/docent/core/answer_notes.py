"""What an answer is and what Docent checked in it, in one wording for the window's footer,
``docent ask`` and the Markdown export.

The three used to say it three ways (QA, session 32: an extractive answer showed its
confidence in the terminal only; an abstention named different words in each; the
terminal listed dropped citations the window did not). Each now shows ``notes(answer)``:
the headline (who wrote it, or why it is quoted or not found, and its confidence), then
each check that found something. Only how flagged sentences are shown differs: the window
underlines them, the terminal and the export list them (``marked``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from docent.core.citations import dropped_places_note, named_pages_note
from docent.core.evaluation import shortened

if TYPE_CHECKING:
    from docent.core.conversation import Answer, Conversation, Turn

#: How a broken answer's text ends: this, why, and ")" (answering.py writes it; the
#: notes, the window and ``docent ask`` find it).
INCOMPLETE = "(Answer incomplete: "
#: The note of an answer to "how many ...?" that states no count (evaluation.gives_no_number).
NO_NUMBER = "The question asks for a number, and the answer gives none."
#: Characters of a passage quoted under each citation in the export.
_QUOTE_CHARS = 700


def ordinal(n: int) -> str:
    """ "first", "second", ... as an answer's attempt is named in its notes."""
    return {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth"}.get(
        n, f"{n}th"
    )


def seconds_said(seconds: float) -> str:
    s = round(seconds)
    if s < 1:  # not "after 0 s" (review, session 35)
        return "less than a second"
    return f"{s} s" if s < 60 else f"{s // 60} min {s % 60:02d} s"


def _why_incomplete(answer: Answer) -> str:
    """Why a broken answer is incomplete: not again what its last line says (QA, session
    29: the same sentence twice, one above the other)."""
    if INCOMPLETE in answer.text:
        return " (its last line says why)."
    return f": {answer.reason}" if answer.reason else "."


def headline(answer: Answer, *, stopped: bool = False) -> str:
    """What the answer is: by which model and how trusted, or quoted from the documents
    and why, or not found."""
    model = answer.model or "the model"
    took = f" in {seconds_said(answer.seconds)}" if answer.seconds >= 1 else ""
    conf = f" · {answer.confidence} confidence" if answer.confidence else ""
    if answer.unsupported_answer:
        return (
            f"Written by {model}{took}, and not supported by your documents: the passages "
            "quoted beneath it are what they say."
        )
    if answer.mode == "generated" and not (stopped or answer.partial):
        return f"Answered by {model}{took}{conf}."
    if answer.mode == "generated":  # stopped or broken: its confidence all the same (QA-75)
        return f"Written by {model}{conf}."
    if answer.mode == "extractive":
        why = answer.reason.strip() or "no language model answered."
        # the answer opens with why (prompting.extractive_text): said once, not again here
        said = bool(answer.reason.strip()) and answer.reason.strip() in answer.text
        trust = f" ({answer.confidence} confidence)" if answer.confidence else ""
        return f"Quoted from your documents{trust}" + ("." if said else f": {why}")
    closest = "the sources listed are only the closest" if answer.offered else "no passage matched"
    return f"Not found in your documents: {closest}."


def notes(
    answer: Answer, *, stopped: bool = False, marked: str = "underlined", outlined: bool = True
) -> list[str]:
    """The answer's notes, in order: incomplete, the headline, then each check that found
    something. ``stopped``: the person stopped it (the caller's turn knows);
    ``marked``: how the flagged sentences are shown ("underlined", "listed below");
    ``outlined``: the citations Docent matched are drawn outlined (the window's chips)."""
    out: list[str] = []
    model = answer.model or "the model"
    # stopped while the model was asked again: what is shown is its first answer, whole
    again = stopped and answer.attempts > answer.attempt
    if again:
        out.append(
            f"■ Stopped by you while {model} was asked again (its "
            f"{ordinal(answer.attempts)} answer): this is its first answer"
            + ("." if answer.cut else ", complete.")
        )
    elif stopped:
        out.append(
            f"■ Stopped by you after {seconds_said(answer.seconds)}: the answer is incomplete."
        )
    elif answer.partial:
        out.append(f"⚠ Incomplete answer{_why_incomplete(answer)}")
    out.append(headline(answer, stopped=stopped and not again))
    if answer.mode == "abstained" and answer.reason:  # what was missing, in its words
        out.append(answer.reason)
    if answer.asked_anyway:
        out.append(f"Asked anyway: {answer.overrode}")
    if answer.attempts > 1 and not again:
        tries = "twice" if answer.attempts == 2 else f"{answer.attempts} times"
        if answer.attempt > 1:
            out.append(
                f"No passage supported {model}'s first answer, so Docent asked it again "
                f"(asked {tries}): this is the {ordinal(answer.attempt)}."
            )
        else:
            out.append(
                f"Docent asked {model} again (asked {tries}); no later answer had a "
                "sentence your documents clearly say, so this first one stands."
            )
    out += [n for n in (answer.search_note, answer.rerank_note) if n]
    if answer.invalid_citations:
        nums = ", ".join(f"[{n}]" for n in answer.invalid_citations)
        several = len(answer.invalid_citations) > 1
        out.append(
            f"Dropped citation{'s' if several else ''} {nums}: the model cited "
            f"{'passages' if several else 'a passage'} it was not given."
        )
    if answer.unoffered_pages:
        out.append(dropped_places_note(answer.unoffered_pages))
    if answer.pages_not_given:
        out.append(named_pages_note(answer.pages_not_given))
    if answer.no_number:
        out.append(NO_NUMBER)
    if answer.unsourced_code:
        out.append(unsourced_code_note(answer.unsourced_code))
    out += _citation_checks(answer, marked, " (outlined)" if outlined else "")
    return out


def unsourced_code_note(lines: list[str]) -> str:
    """What the notes say of code no passage holds (``Answer.unsourced_code``)."""
    first = lines[0] if len(lines[0]) <= 60 else lines[0][:59] + "…"
    more = (
        f" and {len(lines) - 1} more line{'s' if len(lines) > 2 else ''}" if len(lines) > 1 else ""
    )
    return (
        f"⚠ Code in this answer is in none of its passages (“{first}”{more}): the model "
        "may have made it up. Check it against your documents before you run it."
    )


def _citation_checks(answer: Answer, marked: str, outlined: str) -> list[str]:
    out: list[str] = []
    whole = answer.answer_match
    better = {b for _, _, b in answer.misattributed}  # their own note names them
    matched = [
        c.n
        for c in answer.citations
        if c.source == "matched" and c.n != whole and c.n not in better
    ]
    if answer.mode == "generated" and whole is not None:
        out.append(
            f"Docent matched [{whole}] to the answer as a whole{outlined}: it supports the sentences "
            "together, though none alone, and the model did not cite it."
        )
    if answer.mode == "generated" and matched:
        nums = ", ".join(f"[{n}]" for n in matched)
        one = len(matched) == 1
        out.append(
            f"Docent matched {nums} to the {'sentence it supports' if one else 'sentences they support'}"
            f"{outlined}: "
            f"the model did not cite {'it' if one else 'them'}."
        )
    for sentence, cited, n in answer.misattributed:
        marks = "".join(f"[{n}]" for n in cited)
        out.append(
            f"Citation {marks} does not support “{shortened(sentence)}”; passage [{n}] does "
            "(listed with the sources)."
        )
    uncited = set(answer.uncited_sentences)
    n = sum(s not in uncited for s in answer.unsupported_sentences)
    if n:
        several = n > 1
        out.append(
            f"⚠ {n} sentence{'s are' if several else ' is'} not clearly supported by "
            f"{'their' if several else 'its'} citation ({marked})."
        )
    if uncited:
        several = len(uncited) > 1
        # a whole-answer match supports them together (said above): not "no passage"
        support = (
            f"no single passage supports {'them' if several else 'it'}; [{whole}] supports the "
            "answer as a whole"
            if answer.mode == "generated" and whole is not None
            else f"no passage offered to the model supports {'them' if several else 'it'}"
        )
        out.append(
            f"⚠ {len(uncited)} sentence{'s cite' if several else ' cites'} nothing, and "
            f"{support} ({marked})."
        )
    for sentence, conflict in answer.conflicts:  # what the passage says instead
        out.append(f"⚠ {conflict.note(sentence)}")
    closest = [c.n for c in answer.citations if c.source == "closest"]
    if closest:
        out.append(
            f"The answer does not cite passage [{closest[0]}], the closest to your question: "
            "it is listed with the sources."
        )
    if answer.unsaid_parts:
        several = len(answer.unsaid_parts) > 1
        out.append(
            f"⚠ {len(answer.unsaid_parts)} part{'s' if several else ''} of cited sentences "
            f"{'go' if several else 'goes'} on past what the passage says ({marked})."
        )
    return out


# The conversation's Markdown export -------------------------------------------------


def _quote(text: str) -> str:
    flat = " ".join(text.split())
    if len(flat) > _QUOTE_CHARS:
        flat = flat[:_QUOTE_CHARS].rsplit(" ", 1)[0] + " …"
    return "> " + flat


def unsupported_groups(answer: Answer) -> list[tuple[str, list[str]]]:
    """What the answer says that its passages do not, under what is wrong with it, for
    listing: sentences with a citation that does not support them, sentences no passage
    supports, and the parts of cited sentences that their passage does not say."""
    uncited = set(answer.uncited_sentences)
    groups = [
        (
            "Sentences the passage they cite does not clearly support",
            [s for s in answer.unsupported_sentences if s not in uncited],
        ),
        (
            "Sentences that cite nothing, and that no passage offered to the model supports",
            [s for s in answer.unsupported_sentences if s in uncited],
        ),
        ("Parts of cited sentences that their passage does not say", answer.unsaid_parts),
    ]
    return [(heading, sentences) for heading, sentences in groups if sentences]


def conversation_markdown(conversation: Conversation) -> str:
    """The chat with every citation's file, page and passage, and each answer's notes."""
    parts = ["# Docent conversation\n"]
    for turn in conversation.turns:
        parts.append(_turn_markdown(turn))
    return "\n".join(parts).rstrip() + "\n"


def _turn_markdown(turn: Turn) -> str:
    out = [f"## {turn.number}. {' '.join(turn.question.split())}\n"]
    if turn.others:
        n = len(turn.others) + 1
        out.append(f"_Asked {n} times; answer {turn.attempt} is shown first._\n")
    out.extend(_attempt_markdown(turn))
    for other in sorted(turn.others, key=lambda t: t.attempt):
        out.append(f"### Answer {other.attempt} of {len(turn.others) + 1}\n")
        out.extend(_attempt_markdown(other))
    return "\n".join(out)


def _attempt_markdown(turn: Turn) -> list[str]:
    answer = turn.answer
    out: list[str] = []
    if turn.scope:
        out.append("_Scope: " + ", ".join(Path(p).name for p in turn.scope) + "_\n")
    if turn.query and turn.query != turn.question:
        out.append(f"_Searched as: {turn.query}_\n")
    if answer is None:
        why = f"Could not answer: {turn.error}" if turn.error else "Stopped before an answer."
        out.append(f"_{why}_\n")
        return out
    out.append(answer.text.strip() + "\n")
    for note in notes(answer, stopped=turn.stopped, marked="listed below", outlined=False):
        out.append(f"_{note}_\n")
    for heading, sentences in unsupported_groups(answer):
        out.append(f"{heading}:\n")
        out.extend(f"- {s}" for s in sentences)
        out.append("")
    if answer.citations:
        out.append("### Citations\n")
        for c in answer.citations:
            out.append(f"**[{c.n}] {c.file_name}, {c.pages_label}** — `{c.path}`\n")
            out.append(_quote(c.text) + "\n")
    return out
