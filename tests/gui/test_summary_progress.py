"""A summary's progress told honestly: calls done out of those known, the stage, and a bar
that is never full while the model is still writing."""

from __future__ import annotations

from docent.core.api import SummaryProgress
from docent.gui.summary_progress import SummaryTracker, elapsed_text


def run(tracker: SummaryTracker, events: list[SummaryProgress]) -> list[tuple[float | None, str]]:
    seen = []
    for p in events:
        tracker.update(p)
        seen.append((tracker.fraction, tracker.label(75)))
    return seen


def section(i: int, n: int) -> SummaryProgress:
    return SummaryProgress("section", i, n, (i, i), f"summarising section {i} of {n}")


def test_the_bar_counts_calls_and_the_final_write_is_never_at_100_percent() -> None:
    n = 4
    events = [section(i, n) for i in range(1, n + 1)]
    events.append(SummaryProgress("synthesis", 1, 1, (1, n), "writing the summary", 1))
    seen = run(SummaryTracker("brief"), events)
    fractions = [f for f, _ in seen]
    assert fractions == [0 / 5, 1 / 5, 2 / 5, 3 / 5, 4 / 5]
    final = seen[-1][1]
    assert final.startswith("Stage 2 of 2: writing the brief summary from the 4 section summaries")
    assert "4 of 5 model calls done" in final and final.endswith("· 1 min 15 s")
    assert seen[1][1].startswith("Stage 1 of 2: summarising the sections, 1 of 4 done")
    tracker = SummaryTracker("brief")
    run(tracker, [*events, SummaryProgress("done", 1, 1, (1, n), "brief summary ready")])
    assert tracker.fraction == 1.0


def test_reduce_rounds_add_their_calls_and_a_retry_is_said() -> None:
    n = 6
    events = [section(i, n) for i in range(1, n + 1)]
    events += [
        SummaryProgress("synthesis", 1, 2, (1, n), "combining", 1),
        SummaryProgress("synthesis", 2, 2, (1, n), "combining", 1),
        SummaryProgress("synthesis", 1, 1, (1, n), "writing the summary", 2),
        SummaryProgress("retry", 1, 1, (1, n), "retrying after: timed out"),
    ]
    seen = run(SummaryTracker("detailed"), events)
    fractions = [f for f, _ in seen]
    assert all(f is not None and f < 1.0 for f in fractions)
    assert fractions == sorted(fractions), "the bar went backwards"
    assert seen[6][1].startswith("Stage 2 of 2: combining the section summaries (round 1, 1 of 2)")
    assert "8 of 9 model calls done" in seen[8][1] and "(again)" in seen[9][1]
    assert seen[9][0] == seen[8][0]


def test_a_one_section_document_is_one_call_of_unknown_length() -> None:
    tracker = SummaryTracker("bullets")
    tracker.update(section(1, 1))
    assert tracker.fraction is None, "one call: a busy bar, not a made-up fraction"
    assert tracker.label(3).startswith("Writing the bullets summary (p. 1)")


def test_elapsed_text() -> None:
    assert [elapsed_text(s) for s in (0, 59.9, 60, 870, 3725)] == [
        "0 s",
        "59 s",
        "1 min 00 s",
        "14 min 30 s",
        "1 h 02 min",
    ]


def test_the_time_left_is_the_summarizers_estimate() -> None:
    tracker = SummaryTracker("brief")
    tracker.update(section(1, 3))
    assert "left" not in tracker.label(5)  # nothing timed yet
    timed = SummaryProgress(
        "section", 2, 3, (2, 2), "", sections_done=1, sections_total=3, seconds_left=150.0
    )
    tracker.update(timed, at=40)
    assert tracker.label(40).endswith("· 40 s · about 2 min 30 s left")
    assert not tracker.over_limit
    last = SummaryProgress("section", 3, 3, (3, 3), "", seconds_left=80.0, over_limit=True)
    tracker.update(last, at=70)
    assert tracker.over_limit and tracker.label(70).endswith("about 1 min 20 s left")
    tracker.update(SummaryProgress("done", 1, 1, (1, 3), "brief summary ready"))
    assert "left" not in tracker.label(120)


def test_checking_the_summary_comes_after_every_call() -> None:
    n = 3
    events = [section(i, n) for i in range(1, n + 1)]
    events.append(SummaryProgress("synthesis", 1, 1, (1, n), "writing the summary", 1))
    events.append(SummaryProgress("checking", 1, 1, (1, n), "checking the summary"))
    seen = run(SummaryTracker("brief"), events)
    fraction, label = seen[-1]
    assert label.startswith("Checking the summary against the document")
    assert "4 of 4 model calls done" in label
    assert fraction is not None and fraction < 1.0  # full only once it is done


def test_the_time_left_counts_down_between_estimates() -> None:
    """QA-79: "about 55 s left" stood still from 40 s to 53 s, until the next estimate."""
    tracker = SummaryTracker("brief")
    first = SummaryProgress("section", 2, 4, (2, 2), "section 2 of 4", seconds_left=55.0)
    tracker.update(first, at=40.0)
    assert tracker.label(40.0).endswith("about 55 s left")
    assert tracker.label(53.0).endswith("about 42 s left")
    assert tracker.label(200.0).endswith("about 1 s left")  # late: never "0 s" or less
    again = SummaryProgress("section", 3, 4, (3, 3), "section 3 of 4", seconds_left=30.0)
    tracker.update(again, at=60.0)
    assert tracker.label(65.0).endswith("about 25 s left")
