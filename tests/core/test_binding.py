"""A sentence's figure is the one its passage gives for what the sentence is about.

QA (session 31): "Work ends on 1 June" passed the number check against a plan where the
painter arrives on 1 June and work ends on 15 June; Team B's budget passed as Team A's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docent.core.attribution import Attribution, attribute, plain
from docent.core.binding import changed, contradicted, misplaced, names_in
from docent.core.conversation import Answer
from docent.core.evaluation import Conflict
from docent.core.numbers import figures

PLAN = "The painter arrives on 1 June. Work ends on 15 June."
TEAMS = "Team A has a budget of 25,000. Team B has a budget of 40,000."


@pytest.mark.parametrize(
    ("sentence", "passage", "instead"),
    [
        # a day, a count, a year, taken from the statement beside
        ("Work ends on 1 June.", PLAN, "Work ends on 15 June."),
        ("Team A's budget is 40,000.", TEAMS, "Team A has a budget of 25,000."),
        (
            "Helga's team has 3 people.",
            "Helga's team has 5 people. Tomas's team has 3 people.",
            "Helga's team has 5 people.",
        ),
        (
            "The lamp was lit in 1871.",
            "The tower was built in 1871. The lamp was first lit in 1875.",
            "The lamp was first lit in 1875.",
        ),
        # over several passages
        ("Work ends on 1 June.", "The painter arrives on 1 June.", None),
        # the heading line of a PDF's or a document's passage is no part of a statement
        (
            "The renovation work ends on 1 June.",
            f"Renovation plan\n{PLAN}",
            "Work ends on 15 June.",
        ),
        ("Team A has a budget of 40,000.", TEAMS, "Team A has a budget of 25,000."),
        (
            "The meeting starts at 9:00.",
            "Lunch is at 9:00. The meeting starts at 10:30.",
            "The meeting starts at 10:30.",
        ),
    ],
)
def test_a_figure_from_the_statement_beside(
    sentence: str, passage: str, instead: str | None
) -> None:
    if instead is None:  # the painter's passage alone gives no other day for the work
        assert misplaced(sentence, [passage]) is None
        assert misplaced(sentence, [passage, "Work ends on 15 June."]) == (
            1,
            "Work ends on 15 June.",
        )
    else:
        assert misplaced(sentence, [passage]) == (0, instead)


@pytest.mark.parametrize(
    ("sentence", "passage"),
    [
        ("Work ends on 15 June.", PLAN),
        ("The painter arrives on 1 June.", PLAN),
        ("Team B has a budget of 40,000 euros.", TEAMS),
        ("Team A's budget is 25,000.", TEAMS),
        # a paraphrase: no other statement is about "project" or "finish"
        ("The project finishes on 15 June.", PLAN),
        # ... nor about "project" and "conclude" together
        (
            "The project concludes on 15 June.",
            "The project starts on 5 April. Work ends on 15 June.",
        ),
        # two statements joined, each with its own figure
        (
            "Work starts on 5 April and ends on 15 June.",
            "Work starts on 5 April. It ends on 15 June.",
        ),
        # a statement naming no one is read with the one before
        ("Helga's team has 5 people.", "Helga Brandt leads a team of 3 squads. It has 5 people."),
        # telegraphic: the budget is the budget, though the team's line has a count
        ("Team A has a budget of 25,000.", "Team A: lead Helga, 5 people. Budget: 25,000."),
        # a section's number, codes and units are no figures of a subject
        (
            "4.1 Hardware Requirements: the profiles.",
            "4.1 Hardware requirements\nThe profiles. "
            "See the LTSP Hardware Requirements page. Clients need 256 MiB RAM.",
        ),
        ("The first one uses 22b addressing.", "Adapters implement 22b addressing. RH70 has 4."),
        # a figure the passage does not state at all is the number check's, not this one's
        ("Work ends on 20 June.", PLAN),
        # a table without full stops is one statement: never judged
        ("Team A's budget is 40,000.", "Team | Budget\nA | 25,000\nB | 40,000"),
        # ... nor when it gives the figure, beside a sentence that gives another
        (
            "Team A's budget is 25,000.",
            "Budgets for 2024\n\nTeam | Budget\nA | 25,000\nB | 40,000\n\n"
            "Team A also received 5,000 in grants.",
        ),
        # review, session 32: a name beside a figure is not always whose it is
        (
            "Helga Brandt, CEO of Acme, earns 50,000.",
            "Acme Corp has 200 employees. Its CEO Helga Brandt earns 50,000.",
        ),
        (
            "Helga joined in 2015, after Tomas.",
            "Helga joined the club in 2015. Helga and Tomas founded the club in 2018.",
        ),
        (
            "In 2019, Helga hired 3 people.",
            "In 2010, Helga led Team A, which had 5 people. The team grew over time. "
            "In 2019 she hired 3 people.",
        ),
        # one word in common is not enough
        ("The salary is 50,000.", "She earns 50,000 a year. The salary of her deputy is 42,000."),
        (
            "The deadline is 15 June.",
            "Applications close on 15 June. The deadline for references is 30 June.",
        ),
        # German writes every noun with a capital: its names are not told by them
        (
            "Im Jahr 2023 stieg der Umsatz auf 3,2 Millionen Euro.",
            "Der Umsatz lag 2022 bei 2,9 Millionen Euro. Im Jahr 2023 erreichte er 3,2 "
            "Millionen Euro.",
        ),
    ],
)
def test_figures_in_their_place_are_not_flagged(sentence: str, passage: str) -> None:
    assert misplaced(sentence, [passage]) is None


def test_names_and_figures() -> None:
    assert names_in("Team A's budget is 40,000.") == {"team", "a"}
    assert names_in("Helga Brandt leads it. The RAM is 2 GiB in May.") == {"helga", "brandt"}
    assert names_in("Work ends on 15 June.") == set()  # an opening word is no name alone
    assert names_in("Then Müller's team came.") == {"müller"}
    assert [f.kind for f in figures("On 1 June 2026, 3 of the RH70s, p. 4, 1871.")] == [
        "date",
        "year",
        "number",
        "year",
    ]


def test_the_answer_says_what_the_passage_gives_instead() -> None:
    passages = {1: f"{PLAN} The budget is 4,000 euros.", 2: TEAMS}
    checked = attribute(
        "Work ends on 1 June [1]. Team B has a budget of 40,000 [2]. The work on the house "
        "ends on 1 June.",
        passages,
    )
    wrong, right, uncited = checked.faith.sentences
    ends = Conflict(1, "Work ends on 15 June.", "figure")
    assert not wrong.supported and wrong.conflict == ends
    assert right.supported and right.conflict is None
    assert not uncited.supported and uncited.conflict == ends
    assert [c for _, c in checked.faith.conflicts] == [ends, ends]
    notes = conflict_notes(checked)
    assert (
        "“Work ends on 1 June” states a figure that passage [1] gives for something else; "
        "about this, it says “Work ends on 15 June”." in notes
    )
    shown = Answer(
        question="q",
        text=checked.text,
        mode="generated",
        conflicts=checked.faith.conflicts,
    )
    assert shown.as_dict()["conflicts"][0] == {
        "sentence": "Work ends on 1 June [1].",
        "passage": 1,
        "statement": "Work ends on 15 June.",
        "kind": "figure",
    }


def test_sentences_read_blind_as_supported_are_not_flagged() -> None:
    """The blind reading of real answers (benchmarks/citation_reading.py): no sentence a
    reader found supported, or supported in part, is flagged for a misplaced figure."""
    data = Path(__file__).parents[2] / "benchmarks" / "data" / "citation_reading.jsonl"
    rows = [json.loads(line) for line in data.read_text(encoding="utf-8").splitlines()]
    with_figures = [r for r in rows if figures(r["sentence"])]
    assert len(with_figures) > 30
    flagged = [r for r in with_figures if misplaced(r["sentence"], [r["passage"]])]
    assert all(r["label"] == "wrong" for r in flagged), flagged


REPORT = (
    "Norvik Devices delivered the first batch of 400 sensors on 12 June 2025, two weeks "
    "late. Team Alpha has spent EUR 97,300 of its EUR 184,500 budget by the end of June."
)
HERON = (
    "## Team Alpha (hardware)\nTeam Alpha is led by Daniel Ferreira.\n"
    "- Budget: EUR 184,500 for 2025.\n- Hardware delivery deadline: 30 May 2025.\n"
    "## Team Beta (software)\nTeam Beta is led by Priya Natarajan.\n"
    "- Budget: EUR 96,000 for 2025.\n- Go-live date: 15 September 2025.\n"
)


@pytest.mark.parametrize(
    ("sentence", "passage", "kind"),
    [
        # QA, session 32: each was supported at 0.89-0.96
        ("Norvik Devices did not deliver the first batch of 400 sensors.", REPORT, "opposite"),
        (
            "Norvik Devices delivered the first batch of 400 sensors on 12 June 2025, two weeks "
            "early.",
            REPORT,
            "opposite",
        ),
        (
            "Team Beta has spent EUR 97,300 of its EUR 184,500 budget by the end of June.",
            REPORT,
            "name",
        ),
        ("Team Alpha is led by Priya Natarajan.", HERON, "name"),
        # said as the passage says it
        ("Norvik Devices delivered the first batch two weeks late.", REPORT, None),
        ("Team Alpha has spent EUR 97,300 of its budget.", REPORT, None),
        ("Team Beta is led by Priya Natarajan.", HERON, None),
        ("Priya Natarajan leads Team Beta.", HERON, None),
        # review, session 32: said the same way, or in other words
        (
            "The feature is enabled by default.",
            "The feature is enabled by default, but cannot be used offline.",
            None,
        ),
        (
            "The project was delivered on time.",
            "The project was delivered on time, not late.",
            None,
        ),
        (
            "The project was not delivered late.",
            "The project was delivered on time, not late.",
            None,
        ),
        (
            "The device does not start unless the battery is charged.",
            "The device starts only when the battery is charged.",
            None,
        ),
        (
            "Prices were higher in Oslo than in Bergen.",
            "Prices in Bergen were lower than in Oslo.",
            None,
        ),
        (
            "Backups run before the nightly build starts.",
            "The nightly build starts after backups run.",
            None,
        ),
        (
            "The service feeds stock levels into the ERP system every 15 minutes rather than "
            "replacing it.",
            "The sync service does not replace the existing ERP system; it feeds stock levels "
            "into it every 15 minutes.",
            None,
        ),
        (
            "If the disk is not mounted, the nightly backup fails.",
            "The nightly backup fails when the disk is unmounted.",
            None,
        ),
        (
            "Email Helga Brandt about the budget for Team Alpha.",
            "Contact Helga Brandt about the budget for Team Alpha.",
            None,
        ),
        # a table's rows are not read, nor a sentence sharing few of its words
        (
            "Team A's budget is 25,000.",
            "| Team | Budget |\n|---|---|\n| A | 25,000 |\n| B | 40,000 |",
            None,
        ),
        (
            "Helga Brandt's team has 5 people.",
            "Helga Brandt leads. Her team, based in Oslo, has 5 people.",
            None,
        ),
    ],
)
def test_a_sentence_that_turns_its_statement_around(
    sentence: str, passage: str, kind: str | None
) -> None:
    found = contradicted(sentence, [passage])
    assert (found[2] if found else None) == kind


def test_a_list_item_is_a_statement_read_with_the_name_above_it() -> None:
    """QA, session 32: a summary gave Team Alpha Team Beta's go-live date."""
    assert misplaced("Team Alpha's go-live date is 15 September 2025.", [HERON]) == (
        0,
        "- Hardware delivery deadline: 30 May 2025.",
    )
    assert misplaced("Team Beta's budget is EUR 184,500.", [HERON]) == (
        0,
        "- Budget: EUR 96,000 for 2025.",
    )
    assert misplaced("Team Beta's budget is EUR 96,000 for 2025.", [HERON]) is None


def test_sentences_read_blind_as_supported_are_not_turned_around() -> None:
    data = Path(__file__).parents[2] / "benchmarks" / "data" / "citation_reading.jsonl"
    rows = [json.loads(line) for line in data.read_text(encoding="utf-8").splitlines()]
    flagged = [r for r in rows if contradicted(plain(r["sentence"]), [r["passage"]])]
    assert all(r["label"] != "supported" for r in flagged), flagged


SPECS = (
    "The workstation ships with a graphics card with 48 GB of video memory and 128 GB of "
    "system memory. Backups run every night at 02:00 and are kept for 30 days."
)


def test_a_figure_no_passage_states_is_said_with_the_one_it_gives_instead() -> None:
    """The number check flags "24 GB of video memory"; the notes say the passage's 48 GB
    (session 32 left "24 GB of video memory" against a 128 GB passage unexplained)."""
    statement = (
        "The workstation ships with a graphics card with 48 GB of video memory and 128 GB "
        "of system memory."
    )
    assert changed("The workstation has 24 GB of video memory.", [SPECS]) == (0, statement)
    assert changed("Backups are kept for 45 days.", ["Notes.", SPECS])[0] == 1
    # stated somewhere: misplaced's to judge, not this; no shared words: nothing to say
    assert changed("The workstation has 128 GB of video memory.", [SPECS]) is None
    assert changed("The office has 24 desks and a kitchen.", [SPECS]) is None
    # a statement naming someone the sentence does not is about them; a table's rows
    # are not read
    named = "Team Beta has 48 GB of video memory on the workstation."
    assert changed("The workstation has 24 GB of video memory.", [named]) is None
    table = "video memory 48 GB\nsystem memory 128 GB\nworkstation graphics card"
    assert changed("The workstation has 24 GB of video memory.", [table]) is None
    checked = attribute("The workstation has 24 GB of video memory [1].", {1: SPECS})
    ((sentence, conflict),) = checked.faith.conflicts
    assert conflict.kind == "changed" and conflict.note(sentence) == (
        "“The workstation has 24 GB of video memory” gives another figure than passage [1], "
        f"which says “{statement.rstrip('.')}”."
    )


def test_the_reason_says_which_statement_is_turned_around() -> None:
    checked = attribute(
        "Norvik Devices did not deliver the first batch of 400 sensors [1]. Team Beta has "
        "spent EUR 97,300 of its EUR 184,500 budget by the end of June [1].",
        {1: REPORT},
    )
    assert [c.kind for _, c in checked.faith.conflicts] == ["opposite", "name"]
    notes = conflict_notes(checked)
    assert any(
        n.startswith("“Norvik Devices did not deliver")
        and "says the contrary of passage [1], which says “Norvik Devices delivered" in n
        for n in notes
    )
    assert any(
        "names another than passage [1] does, which says “Team Alpha has spent" in n for n in notes
    )


def conflict_notes(checked: Attribution) -> list[str]:
    """What the answer's notes say of each conflict (answer_notes)."""
    return [conflict.note(sentence) for sentence, conflict in checked.faith.conflicts]
