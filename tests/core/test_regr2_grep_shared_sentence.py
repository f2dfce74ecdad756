"""Regression (dc7bfc9, lookup.grep): whether the passage before listed its match inside
the sentence two passages share is judged by the text *before* that match, with its
trailing space dropped by the spacing normalisation: a match that opens the shared
sentence counts as "earlier", so the next passage lists the same occurrence again (the
duplicate a104b2f fixed). And a second occurrence inside the shared sentence is never
listed when the passage before listed the first one there."""

from __future__ import annotations

from typing import Any

from docent.core import lookup


class _Point:
    def __init__(self, pid: str, ordinal: int, text: str) -> None:
        self.id = pid
        self.payload = {
            "doc_id": "d1",
            "path": "/docs/manual.txt",
            "file_name": "manual.txt",
            "ordinal": ordinal,
            "text": text,
            "page_start": 1,
            "page_end": 1,
        }


class _Store:
    def __init__(self, points: list[_Point]) -> None:
        self.points = points

    def grep(self, pattern: str, **_: Any) -> list[_Point]:
        return [p for p in self.points if pattern.lower() in p.payload["text"].lower()]


SHARED = "Relays close when the coil is powered and the fan starts."


def test_a_match_opening_the_shared_sentence_is_listed_once() -> None:
    store = _Store(
        [
            _Point("a", 0, "The unit has two boards. " + SHARED),
            _Point("b", 1, SHARED + " The board then cools down."),
        ]
    )
    found = lookup.grep(store, "relays", set())  # type: ignore[arg-type]
    assert [m.chunk_id for m in found] == ["a"], [(m.chunk_id, m.line) for m in found]


def test_a_second_occurrence_in_the_shared_sentence_is_listed() -> None:
    shared = "The fan stops, then the fan starts again after a second."
    store = _Store(
        [
            _Point("a", 0, "The unit has two boards. " + shared),
            _Point("b", 1, shared + " The board then cools down."),
        ]
    )
    found = lookup.grep(store, "fan", set())  # type: ignore[arg-type]
    # passage a lists the first, and the second is on its line (every occurrence in a
    # passage, on a line listed once: session 32); b, which opens with the sentence
    # holding them, lists neither again
    assert [m.chunk_id for m in found] == ["a"], [(m.chunk_id, m.line) for m in found]
    assert found[0].line.count("fan") == 2
