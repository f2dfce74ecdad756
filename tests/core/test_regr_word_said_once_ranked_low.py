"""A word or name the library says once, in a passage mostly about nothing, came 10th to
16th of 25 under a long manual's passages on the question's other words (QA-75: "How
often does the office wifi password rotate?" and "LanternNet" over the Debian Edu
manual; `docent grep LanternNet` found it). Asked with ``-k 5`` it came first: a missing
word was looked for only outside all 25, and the 10th held it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from test_retrieval import fill

from docent.core.embedding import Embedder
from docent.core.retrieval import RetrievalConfig, Retriever
from docent.core.store import Store, open_store

FILLER = "Filler line {n}: routine operational notes about nothing in particular, item {i}."
WIFI = "The office wifi password rotates every 90 days; the current SSID is LanternNet."
BACKUP = "The backup server is named kestrel-07 and sits in rack B4 of the basement."


def notes() -> list[str]:
    """Passages of 14 lines, as a text file's: one of them says something."""
    lines = [FILLER.format(n=n, i=n % 13) for n in range(1, 71)]
    lines[32], lines[56] = WIFI, BACKUP
    return [" ".join(lines[i : i + 14]) for i in range(0, 70, 14)]


def manual() -> list[str]:
    """A manual's passages on passwords, users, networks and servers."""
    topics = [
        "Every user should change her or his password regularly by using the web interface.",
        "A good password contains letters, numbers and punctuation and is changed often.",
        "The network configuration of the main server is done with DHCP and DNS.",
        "Teachers can reset the passwords of pupils from the administration page.",
        "The main server provides the network services for the whole school network.",
        "Passwords of workstations are managed centrally; a new password takes effect at once.",
        "Wireless access points can be combined into groups for the school network.",
        "The administrator password must be set when the system is first installed.",
    ]
    return [
        f"{t} Section {n}: the office of the school keeps the printed instructions. {t}"
        for n in range(6)
        for t in topics
    ]


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    emb = Embedder()
    emb.ensure_loaded()
    return emb


@pytest.fixture
def store(tmp_path: Path, embedder: Embedder) -> Iterator[Store]:
    st = open_store(path=tmp_path / "qdrant", dim=embedder.dim)
    fill(st, embedder, {"manual.pdf": manual(), "ops-notes.txt": notes()})
    yield st
    st.close()


@pytest.mark.parametrize(
    ("question", "says"),
    [
        ("How often does the office wifi password rotate?", WIFI),
        ("What is the office wifi SSID?", WIFI),
        ("LanternNet", WIFI),
        ("Where is kestrel-07?", BACKUP),
    ],
)
def test_the_passage_saying_it_comes_first(
    store: Store, embedder: Embedder, question: str, says: str
) -> None:
    result = Retriever(store, embedder, RetrievalConfig(results_k=25)).search(question)
    assert says in result.hits[0].text
    assert result.confidence != "low"


def test_looked_for_in_all_25_it_was_not(store: Store, embedder: Embedder) -> None:
    """The library reproduces what QA-75 saw: with the word looked for outside all 25
    candidates, as before, the notes were not first."""
    before = replace(RetrievalConfig(results_k=25), missing_head=0, missing_exact=False)
    hits = Retriever(store, embedder, before).search("What is the office wifi SSID?").hits
    assert all(WIFI not in h.text for h in hits[:5])
