"""Sentence vectors (sentence_vectors.py): where a chunk's sentences are, their vectors
pooled from the chunk's own pass of the real model, packed into the payload, read by the
rerank, and made again for a library indexed before they were kept."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import docent.core.embedding
from docent.core.config import load_settings
from docent.core.embedding import Embedder
from docent.core.engine import Engine
from docent.core.evaluation import sentence_bounds
from docent.core.retrieval import RetrievalConfig, Retriever
from docent.core.sentence_vectors import (
    MIN_CHARS,
    best_cosine,
    best_cosines,
    pack,
    pool,
    sentence_spans,
    unpack,
)
from docent.core.store import SENTENCES, ChunkPoint, Store, chunk_point_id, open_store
from docent.core.store_base import ChunkVectors
from docent.core.sufficiency import UNCOVERED_SENTENCE_GAIN, masked_questions

DIM = 384


def unit_rows(rng: np.random.Generator, n: int) -> np.ndarray:
    rows = rng.normal(size=(n, DIM))
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


# Where the sentences are -------------------------------------------------------------


def test_sentence_bounds_are_the_sentences_in_the_text_itself() -> None:
    text = "  The lamp is lit at dusk.\nIts wick is trimmed\nat noon.  Oil: 2 l. \n"
    pieces = [text[a:b] for a, b in sentence_bounds(text)]
    # A line break inside a sentence stays in it; the whitespace around each is left out.
    assert pieces == ["The lamp is lit at dusk.", "Its wick is trimmed\nat noon.", "Oil: 2 l."]
    assert sentence_bounds("") == [] and sentence_bounds(" ... \n") == []


def test_spans_leave_out_short_sentences_or_keep_the_whole_body() -> None:
    body = "Fog bell. The keeper rings the fog bell every thirty seconds. Ok."
    assert [body[a:b] for a, b in sentence_spans(body)] == [
        "The keeper rings the fog bell every thirty seconds."
    ]
    short = "Lamp. Oil. Wick."  # no sentence of MIN_CHARS: the body is one span
    assert len(short) < 2 * MIN_CHARS
    assert [short[a:b] for a, b in sentence_spans(short)] == [short]
    assert sentence_spans("   ") == []


def test_pool_means_the_tokens_inside_each_span() -> None:
    hidden = np.array([[9.0, 9.0], [1.0, 0.0], [3.0, 0.0], [0.0, 2.0], [9.0, 9.0]])
    # [CLS] "ab" "cd" "ef" [SEP]; the body starts at character 4 of the text.
    offsets = [(0, 0), (4, 6), (7, 9), (10, 12), (0, 0)]
    got = pool(hidden, offsets, [(0, 5), (6, 8), (20, 30)], base=4)
    assert got.shape == (2, 2)  # the span past the text has no tokens: left out
    assert np.allclose(got[0], [1.0, 0.0]) and np.allclose(got[1], [0.0, 1.0])
    assert pool(hidden, offsets, [], base=4).shape == (0, 2)


def test_packed_vectors_keep_their_cosines() -> None:
    rng = np.random.default_rng(7)
    rows, query = unit_rows(rng, 5), unit_rows(rng, 1)[0]
    packed = pack(rows)
    assert len(packed) == 4 * ((5 * DIM + 2) // 3)  # int8, base64
    back = unpack(packed, DIM)
    assert back.shape == rows.shape
    assert np.abs(back @ query - rows @ query).max() < 0.01
    best = best_cosine(packed, query)
    assert best == pytest.approx(float((rows @ query).max()), abs=0.01)
    assert best_cosine("", query) is None


def test_best_cosines_look_at_every_sentence_of_every_chunk() -> None:
    rng = np.random.default_rng(8)
    a, b, queries = unit_rows(rng, 2), unit_rows(rng, 3), unit_rows(rng, 2)
    best = best_cosines([pack(a), "", pack(b)], [list(q * 3.0) for q in queries])  # any norm
    want = (np.vstack([a, b]) @ queries.T).max(axis=0)
    assert best == pytest.approx(list(want), abs=0.01)
    assert best_cosines(["", ""], list(queries)) is None  # no chunk has sentence vectors
    assert best_cosines([pack(a)], []) == []


# The real model ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    emb = Embedder()
    emb.ensure_loaded()
    return emb


BODY = (
    "The keeper climbs the tower at dusk to light the lamp. "
    "Lamp oil is stored in the cellar in sealed tins.\n"
    "Ships call the station on radio channel 16 when fog rolls in."
)


def test_one_pass_gives_the_dense_vector_and_each_sentences(embedder: Embedder) -> None:
    text = f"Lighthouse manual › 2 Duties\n{BODY}"
    made = embedder.embed_chunks([text, BODY], [BODY, BODY])
    plain = embedder.embed_dense([text, BODY])
    for got, want in zip(made, plain, strict=True):
        assert np.allclose(got.dense, want, atol=1e-6)  # exactly what embed_dense gives
    sentences = [BODY[a:b] for a, b in sentence_spans(BODY)]
    late = unpack(made[0].sentences, DIM)
    assert len(sentences) == 3 and late.shape == (3, DIM)
    # Each pooled vector is nearest its own sentence embedded alone.
    alone = np.asarray(embedder.embed_dense(sentences))
    assert list((late @ alone.T).argmax(axis=1)) == [0, 1, 2]
    query = np.asarray(embedder.query_dense("Which radio channel do ships use?"))
    assert int((late @ query).argmax()) == 2
    assert embedder.texts_embedded >= 2


def test_texts_run_in_batches_of_like_length_come_back_in_their_order(
    embedder: Embedder,
) -> None:
    """Texts are batched by length (a batch is padded to its longest); each chunk's
    vectors still come back in the order given, with its own sentences."""
    short = "Fog rolls in at dawn. Ships call on channel 16."
    texts = [BODY * 3, short, BODY, "One line about the cellar and its sealed tins of oil.", short]
    alone = [embedder.embed_chunks([t], [t])[0] for t in texts]
    size = embedder.batch_size
    embedder.batch_size = 2  # three batches: an offset wrong across batches shows
    try:
        made = embedder.embed_chunks(texts, texts)
    finally:
        embedder.batch_size = size
    for got, want in zip(made, alone, strict=True):
        assert float(np.dot(got.dense, want.dense)) > 0.999
        assert unpack(got.sentences, DIM).shape == unpack(want.sentences, DIM).shape


def test_a_body_the_model_never_reaches_keeps_the_chunks_vector(embedder: Embedder) -> None:
    context = " ".join(["heading"] * 300)  # past the model's 256 tokens on its own
    (made,) = embedder.embed_chunks([f"{context}\n{BODY}"], [BODY])
    (rows,) = [unpack(made.sentences, DIM)]
    assert rows.shape == (1, DIM)
    assert np.allclose(rows[0], made.dense, atol=0.01)


def test_a_body_must_end_its_text(embedder: Embedder) -> None:
    with pytest.raises(ValueError, match="must end"):
        embedder.embed_chunks(["context\nsome text"], ["other text"])


# The rerank --------------------------------------------------------------------------

QUESTION = "Which radio channel do ships use to reach the keeper?"
MANUAL = [
    "Ships pass the point day and night. The keeper watches the ships from the gallery.",
    "The tower was painted white in 1921. Its stair has 112 steps to the lantern room.",
    "The lens came from Paris. It floats on a bath of mercury and turns every ten seconds.",
]


def manual_store(path: Path, embedder: Embedder, nearest: np.ndarray) -> Store:
    """One manual whose third chunk holds, by its sentence vectors, the sentence
    ``nearest`` (its text does not: the rerank must follow the vectors), and whose second
    has none (indexed before they were kept)."""
    store = open_store(path=path, dim=embedder.dim)
    rng = np.random.default_rng(11)
    far = unit_rows(rng, 2)
    sentences = [pack(far[:1]), "", pack(np.vstack([far[1], nearest]))]
    dense = embedder.embed_dense(MANUAL)
    points = []
    for i, (text, d, s) in enumerate(zip(MANUAL, dense, sentences, strict=True)):
        payload = {
            "doc_id": "manual",
            "path": "/lib/manual.txt",
            "file_name": "manual.txt",
            "page_start": i + 1,
            "page_end": i + 1,
            "ordinal": i,
            "text": text,
            "content_hash": hashlib.sha256(text.encode()).hexdigest(),
            SENTENCES: s,
        }
        points.append(
            ChunkPoint(chunk_point_id("manual", i), d, embedder.embed_sparse([text])[0], payload)
        )
    store.upsert_chunks(points)
    store.upsert_document("manual", dense[0], {"file_name": "manual.txt"})
    return store


@pytest.fixture
def manual(tmp_path: Path, embedder: Embedder) -> Iterator[Store]:
    """The sentence nearest the question is the question's own vector."""
    store = manual_store(tmp_path / "qdrant", embedder, np.asarray(embedder.query_dense(QUESTION)))
    yield store
    store.close()


def ranks(store: Store, embedder: Embedder, weight: float) -> tuple[list[int], list[object]]:
    config = RetrievalConfig(sentence_weight=weight, expand_neighbours=False)
    retriever = Retriever(store, embedder, config, library_size=lambda collection=None: (1, 3))
    hits = retriever.search(QUESTION, debug=True).hits
    scores = [h.debug["scores"] for h in hits]  # type: ignore[index]
    return [h.ordinal for h in hits], [s.get("sentence") for s in scores]  # type: ignore[attr-defined]


def test_the_rerank_weighs_each_candidates_best_sentence(manual: Store, embedder: Embedder) -> None:
    before, unscored = ranks(manual, embedder, 0.0)
    assert before[0] == 0 and unscored == [None, None, None]  # off: not even read
    after, scored = ranks(manual, embedder, 2.0)
    assert after[0] == 2  # its sentence is the question's own vector
    by_ordinal = dict(zip(after, scored, strict=True))
    assert by_ordinal[2] == pytest.approx(1.0, abs=0.02)
    assert by_ordinal[1] is None  # no sentence vectors: not scored (a factor of 1)
    assert by_ordinal[0] is not None and by_ordinal[0] < 0.3


def test_a_sentence_about_the_rest_of_the_question_names_the_word(
    tmp_path: Path, embedder: Embedder
) -> None:
    """A sentence of a top passage that is the question without 'radio': the passages
    answer the rest of it, and the check says so. With the question's own vector there
    instead, leaving a word out brings no sentence closer."""
    masked = np.asarray(embedder.query_dense_many(masked_questions(QUESTION, ["radio"]))[0])
    own = np.asarray(embedder.query_dense(QUESTION))
    config = RetrievalConfig(expand_neighbours=False)
    found = {}
    for name, nearest in (("masked", masked), ("own", own)):
        store = manual_store(tmp_path / name, embedder, nearest)
        size = lambda collection=None: (1, 3)  # noqa: E731
        res = Retriever(store, embedder, config, library_size=size).search(QUESTION)
        store.close()
        assert res.evaluation is not None
        found[name] = res
    masked_ev, own_ev = found["masked"].evaluation, found["own"].evaluation
    assert masked_ev is not None and own_ev is not None
    assert masked_ev.uncovered_sentences["radio"] >= UNCOVERED_SENTENCE_GAIN
    assert found["masked"].confidence == "low" and "'radio'" in masked_ev.issues[-1]
    assert own_ev.uncovered_sentences == {}
    assert not any("'radio'" in i for i in own_ev.issues if "covers" in i)


# Indexing ------------------------------------------------------------------------------


def test_a_library_indexed_without_them_is_embedded_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lib = tmp_path / "library"
    lib.mkdir()
    (lib / "keeper.txt").write_text(f"{BODY}\n\n" * 4)
    real, current = Embedder.embed_chunks, docent.core.embedding.INDEX_FORMAT

    def without(self: Embedder, texts: object, bodies: object) -> list[ChunkVectors]:
        return [ChunkVectors(v.dense, "") for v in real(self, texts, bodies)]  # type: ignore[arg-type]

    monkeypatch.setattr(Embedder, "embed_chunks", without)
    monkeypatch.setattr(docent.core.embedding, "INDEX_FORMAT", 2)
    with Engine(load_settings(extract_in_subprocess=False)).open() as eng:
        first = eng.index([lib])
        assert first.chunks_embedded > 0
    monkeypatch.setattr(Embedder, "embed_chunks", real)
    monkeypatch.setattr(docent.core.embedding, "INDEX_FORMAT", current)
    with Engine(load_settings(extract_in_subprocess=False)).open() as eng:
        assert [r.file_name for r in eng.outdated] == ["keeper.txt"]
        report = eng.resume()
        # The text did not change, but no stored chunk has its sentence vectors to lend.
        assert report.chunks_embedded == first.chunks_embedded and report.chunks_reused == 0
        assert eng.store is not None
        (doc,) = eng.documents()
        ids = [chunk_point_id(doc.doc_id, i) for i in range(doc.chunks)]
        assert all(eng.store.sentence_vectors(ids).values())
        # Now they are there, a copy of the text reuses them whole.
        (lib / "copy.txt").write_text((lib / "keeper.txt").read_text())
        copied = eng.index([lib])
        assert copied.chunks_embedded == 0 and copied.chunks_reused == first.chunks_embedded
