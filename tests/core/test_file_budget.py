"""The whole file's time limit: a file whose every step stays under its own limit still
ends, and pages read by OCR are outside it."""

from __future__ import annotations

from docent.core.config import load_settings
from docent.core.preparing import MB, WHOLE_FILE, FileBudget, Limits


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _budget(seconds: float) -> tuple[FileBudget, Clock, list[tuple[str, float, int]]]:
    clock, seen = Clock(), []
    budget = FileBudget(lambda label, s, pages: seen.append((label, s, pages)), seconds, clock)
    return budget, clock, seen


def test_steps_keep_their_own_limit_while_the_file_has_time_left() -> None:
    budget, clock, seen = _budget(100.0)
    for page in range(1, 4):
        budget.step(f"reading page {page}", 30.0, page - 1)
        clock.now += 20.0
    assert seen == [(f"reading page {p}", 30.0, p - 1) for p in range(1, 4)]
    assert budget.spent == 40.0  # the third page's time is counted at the next step


def test_near_the_end_a_step_gets_only_what_is_left_and_says_why() -> None:
    budget, clock, seen = _budget(100.0)
    budget.step("reading page 1", 30.0, 0)
    clock.now += 89.5
    budget.step("reading page 2", 30.0, 1)
    clock.now += 20.0
    budget.step("reading page 3", 30.0, 2)
    assert seen[1] == (f"reading page 2; {WHOLE_FILE} 100 s", 11.0, 1)
    # past the end: a second more at most (the worker's timer fires then)
    assert seen[2] == (f"reading page 3; {WHOLE_FILE} 100 s", 1.0, 2)


def test_pages_read_by_ocr_are_outside_the_whole_files_limit() -> None:
    budget, clock, seen = _budget(100.0)
    budget.step("looking for scanned pages", 40.0, 0)
    clock.now += 10.0
    for n in range(1, 6):
        budget.step(f"reading scanned page {n} by OCR", 180.0, n - 1, counted=False)
        clock.now += 150.0  # 750 s of OCR in all
    budget.step("cutting the text into passages", 30.0, 5)
    assert budget.spent == 10.0
    assert all(s == 180.0 for label, s, _ in seen if "by OCR" in label)
    assert seen[-1] == ("cutting the text into passages", 30.0, 5)


def test_the_limit_grows_with_the_files_size_and_comes_from_the_settings() -> None:
    limits = Limits.of(load_settings(extract_file_timeout=300))
    assert limits.whole_file(0) == 300.0
    assert limits.whole_file(20 * MB) == 900.0
    assert Limits().whole_file(0) == 600.0
