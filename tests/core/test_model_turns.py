"""The embedding model's turns (embedding.QueriesFirst): a question's query runs before a
document's next batch, so a search beside indexing waits for one batch, not for a whole
document (session 33: 4 to 8 s, ``benchmarks/search_while_indexing.py``)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

from docent.core.embedding import Embedder, QueriesFirst

TIMEOUT = 10.0


def wait_until(condition: Callable[[], bool], what: str) -> None:
    """``condition`` of another thread's waiting, which signals nothing: checked until true."""
    deadline = time.monotonic() + TIMEOUT
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: still not the case after {TIMEOUT:.0f} s")
        threading.Event().wait(0.005)


def test_a_waiting_query_runs_before_the_next_batch() -> None:
    turns = QueriesFirst()
    order: list[str] = []
    running, release = threading.Event(), threading.Event()

    def batch(name: str, hold: bool = False) -> None:
        with turns.documents():
            order.append(name)
            if hold:
                running.set()
                release.wait(TIMEOUT)

    def query() -> None:
        with turns.query():
            order.append("query")

    first = threading.Thread(target=batch, args=("batch 1", True))
    first.start()
    assert running.wait(TIMEOUT)
    asked = threading.Thread(target=query)
    asked.start()
    wait_until(lambda: turns.waiting == (1, 0), "the query waits")
    second = threading.Thread(target=batch, args=("batch 2",))
    second.start()
    wait_until(lambda: turns.waiting == (1, 1), "the next batch waits too")
    release.set()
    for t in (first, asked, second):
        t.join(TIMEOUT)
    assert order == ["batch 1", "query", "batch 2"]
    assert turns.waiting == (0, 0)


def test_turns_go_in_order_of_asking() -> None:
    """A thread that gives its turn back and asks again waits behind the others: with a
    plain condition the indexer took turn after turn, and an answer's check waited for a
    document's whole BM25 (review, session 33)."""
    turns = QueriesFirst()
    order: list[str] = []
    running, release = threading.Event(), threading.Event()

    def indexer() -> None:
        with turns.documents():
            order.append("batch 1")
            running.set()
            release.wait(TIMEOUT)
        with turns.documents():  # at once: behind the batch that waited
            order.append("batch 2")

    def other() -> None:
        with turns.documents():
            order.append("other")

    first = threading.Thread(target=indexer)
    first.start()
    assert running.wait(TIMEOUT)
    waiting = threading.Thread(target=other)
    waiting.start()
    wait_until(lambda: turns.waiting == (0, 1), "the other batch waits")
    release.set()
    for t in (first, waiting):
        t.join(TIMEOUT)
    assert order == ["batch 1", "other", "batch 2"]


def test_queries_that_never_pause_cannot_stop_indexing() -> None:
    turns = QueriesFirst()
    order: list[str] = []
    running, release = threading.Event(), threading.Event()
    many = QueriesFirst.QUERY_STREAK + 2

    def hold() -> None:
        with turns.documents():
            running.set()
            release.wait(TIMEOUT)

    def batch() -> None:
        with turns.documents():
            order.append("batch")

    def query() -> None:
        with turns.query():
            order.append("query")

    holder = threading.Thread(target=hold)
    holder.start()
    assert running.wait(TIMEOUT)
    waiting = [threading.Thread(target=batch)]
    waiting[0].start()
    wait_until(lambda: turns.waiting == (0, 1), "a batch waits")
    for i in range(many):
        waiting.append(threading.Thread(target=query))
        waiting[-1].start()
        wait_until(lambda i=i: turns.waiting == (i + 1, 1), "the queries wait")
    release.set()
    for t in (holder, *waiting):
        t.join(TIMEOUT)
    streak = QueriesFirst.QUERY_STREAK
    assert order == ["query"] * streak + ["batch"] + ["query"] * (many - streak)


def test_a_turn_is_given_back_when_its_work_fails() -> None:
    turns = QueriesFirst()
    with pytest.raises(RuntimeError), turns.documents():
        raise RuntimeError("the model failed")
    with turns.query():  # not stuck waiting for the failed batch
        pass


def test_documents_are_embedded_a_batch_per_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the real model: one turn per batch of ``batch_size`` texts, for the dense
    vectors and for BM25 (whose whole document was one turn)."""
    embedder = Embedder(batch_size=4)
    embedder.ensure_loaded()
    turns = 0
    taken = QueriesFirst.documents

    def counted(self: QueriesFirst):  # type: ignore[no-untyped-def]
        nonlocal turns
        turns += 1
        return taken(self)

    monkeypatch.setattr(QueriesFirst, "documents", counted)
    texts = [f"The pump number {i} opens its valve at {i} bar." for i in range(10)]
    made = embedder.embed_chunks(texts, texts)
    assert len(made) == 10 and turns == 3  # 4 + 4 + 2
    assert len(embedder.embed_dense(texts)) == 10 and turns == 6
    assert len(embedder.embed_sparse(texts * 7)) == 70 and turns == 8  # 64 + 6
