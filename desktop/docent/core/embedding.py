"""Dense (MiniLM via fastembed) and sparse (BM25) embeddings, loaded once and reused.

The bundled model is used for the default ``embedding_model`` and needs no network.
``embedding_model`` may also name a folder holding a sentence-transformers model exported
to ONNX (``model_folder``), or a model fastembed knows whose files are already in the data
folder's model cache. Nothing is downloaded: Docent works offline, so a name whose files
are not on this machine is refused when the setting is checked (``check_model``).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
import os
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docent.core.config import BUNDLED_MODEL, resources_dir
from docent.core.model_files import (
    ACCEPTED,
    EmbeddingError,
    check_model,
    model_folder,
)
from docent.core.models import SparseVec
from docent.core.queryterms import identifier_terms
from docent.core.store_base import ChunkVectors

log = logging.getLogger(__name__)

#: Texts given BM25 terms in one turn of the model (``QueriesFirst``): a whole document's
#: chunks at once kept a search waiting.
SPARSE_BATCH = 64
#: MiniLM sees at most 256 tokens; chunking keeps a margin below it.
MODEL_MAX_TOKENS = 256
#: Bump whenever what is indexed for the same file changes: chunking, the context
#: prepended to chunks (context.py), BM25 terms (``with_identifiers``). Documents of
#: another format (or model) are re-indexed by the next run; unchanged texts keep
#: their vectors. 2: identifier terms and each chunk's context (title, headings) in BM25.
#: 3: each chunk's sentence vectors (sentence_vectors.py). 4: the document's title in
#: each chunk's payload (``title``, for the rerank's title factor; vectors are reused).
#: 5: a slide deck chunked a slide at a time under its title, a title over a bulleted
#: line a heading (chunking.py; other documents keep their chunks and vectors).
#: 6: a text file's chunks cited by their lines ("lines 61-120"), not as pages, and no
#: line of it taken for a running header (chunking.py ``paged``).
#: 7: a passage that runs onto a later page records where that page begins in it
#: (``page_breaks``), so its citation opens the page its cited part is on.
#: 8: text composed (NFC, normal_form.py): a decomposed "résumé" was two BM25 words; a
#: running line dropped only at a page's edges, never numbers of the body; words
#: hyphenated across lines made whole, soft hyphens dropped (chunking.py, normal_form.py).
#: 9: Word, OpenDocument, HTML and EPUB tables keep a merged cell's columns (cells were
#: shifted under the wrong header), a heading and the one right under it open one section
#: and a repeated section label is told apart (session 21); those formats are read again
#: (textcache.READERS), PDFs and text files keep their cached text and every vector of an
#: unchanged chunk.
#: 10: Word table rows and cells inside content controls (a form's repeating section, a
#: field around a cell) are read; Word documents are read again, the rest keep their text
#: and every vector of an unchanged chunk (session 22).
#: 11: a numbered heading closes the headings of another number in a chunk's context
#: (``6.3`` is not under ``4``, context.py); every document keeps its text, and the
#: vectors of each chunk whose context did not change (session 23). In the same format,
#: a table's first row that its file marks as the header names the columns (Word, HTML,
#: EPUB, OpenDocument and Excel files are read again: textcache.READERS).
#: 12: BM25 with ``BM25_K`` and ``BM25_AVG_LEN`` (each chunk's sparse vector computed
#: again; every text and dense vector kept, session 24).
#: 13: a text file's passage cited by its own lines ("lines 13-29"), not its blocks' of 60
#: (QA, session 32: two passages of one file were both "lines 1-29"); every text and
#: vector kept, the passages' places written again (session 32).
#: 14: a CSV or TSV file read as a sheet's rows, each cell named by the header row
#: ("rows 70–87"; QA-78: its passages reached the model without their column names); text
#: files are read again (textcache.READERS), every other text and every vector of an
#: unchanged chunk kept (session 35).
INDEX_FORMAT = 14
#: BM25's term-frequency saturation k1 (fastembed's default 1.2): chosen on the dev
#: questions, where 0.6-0.9 all do better than 1.2 (MRR@10 0.861-0.864 against 0.848 with
#: the length below); checked once on the held-out ones (docs/measurements/retrieval.md,
#: session 24).
BM25_K = 0.75
#: BM25's length normalisation b (fastembed's default).
BM25_B = 0.75
#: The mean length of a chunk in BM25's words (stemmed, stop words left out), which BM25
#: normalises a chunk's length by: 90 on the whole corpus (4,778 chunks of ~125 words;
#: median 92). fastembed's default, 256, is a longer document's.
BM25_AVG_LEN = 90.0


class QueriesFirst:
    """A model's turn to run, given to a question's query before a document's next batch.

    Inference is serialised per model (onnxruntime sessions are thread-safe, but batching
    from two threads at once only thrashes two cores). Documents are embedded a batch per
    turn, and a query waiting takes the next turn: a search during indexing waits for
    one batch, not a document. With one plain lock held for a whole call (32 chunks, and
    BM25 for a whole document), and taken again at once by the indexer, searches beside
    indexing took 1 to 8 s instead of 0.02-0.05 (session 33,
    ``benchmarks/search_while_indexing.py``).

    Turns are handed out in order of asking, queries first: a thread that gives its turn
    back and asks again at once waits behind the others (a plain condition let the
    indexer take turn after turn, and an answer's check waited for a whole document's
    BM25; review, session 33). Queries go first at most ``QUERY_STREAK`` turns in a row
    while a batch waits, so searches that never pause cannot stop indexing."""

    #: Query turns in a row while a batch waits, at most.
    QUERY_STREAK = 8

    def __init__(self) -> None:
        self._turn = threading.Condition()
        self._running = False
        self._tickets = itertools.count()
        self._queries: deque[int] = deque()  # tickets waiting, oldest first
        self._batches: deque[int] = deque()
        self._streak = 0  # query turns given in a row while a batch waited

    @property
    def waiting(self) -> tuple[int, int]:
        """Queries and documents' batches waiting for a turn."""
        with self._turn:
            return len(self._queries), len(self._batches)

    def _next(self) -> int | None:
        """The ticket whose turn comes next."""
        if self._queries and (not self._batches or self._streak < self.QUERY_STREAK):
            return self._queries[0]
        return self._batches[0] if self._batches else None

    @contextmanager
    def _taken(self, line: deque[int], query: bool) -> Iterator[None]:
        with self._turn:
            ticket = next(self._tickets)
            line.append(ticket)
            try:
                self._turn.wait_for(lambda: not self._running and self._next() == ticket)
            finally:
                line.remove(ticket)
                self._turn.notify_all()  # a waiter that gave up may have been next
            self._running = True
            self._streak = self._streak + 1 if query and self._batches else 0
        try:
            yield
        finally:
            with self._turn:
                self._running = False
                self._turn.notify_all()

    def query(self) -> AbstractContextManager[None]:
        """A question's turn: the next one."""
        return self._taken(self._queries, True)

    def documents(self) -> AbstractContextManager[None]:
        """One batch of documents' texts: after the queries waiting."""
        return self._taken(self._batches, False)


@dataclass(frozen=True, slots=True)
class _Models:
    """What loading a model gives: shared by every Embedder of the same model in the process."""

    dense: Any  # fastembed TextEmbedding
    tokenizer: Any  # tokenizers.Tokenizer, for counting (no truncation, no padding)
    dim: int
    turns: QueriesFirst


#: Each model is loaded once per process (~1 s of CPU): a library opened again in the same
#: process (a rebuild, the command line called from the tests) reuses it, as core/ocr.py
#: shares its engine. Keyed by what the loading depends on; never emptied (one or two
#: models for the life of the process).
_loaded: dict[tuple[str, str | None, int], _Models] = {}
_loaded_lock = threading.Lock()


def _shared_models(model_name: str, cache_dir: str | None, threads: int) -> _Models:
    # The bundled model is read from resources/, whatever the data folder's model cache.
    key = (model_name, None if model_name == BUNDLED_MODEL else cache_dir, threads)
    with _loaded_lock:
        if key not in _loaded:
            _loaded[key] = _load_models(model_name, cache_dir, threads)
        return _loaded[key]


#: onnxruntime's thread pools spin between runs by default. Measured on the 200k store
#: (2-core box, busy): the spinning thread doubled a search's CPU (151 -> 65 ms per
#: search, all threads), stealing the second core from the store's search right after the
#: query embedding; 64 chunks embedded with 30 % less CPU and no slower without it.
_NO_SPINNING = {"session.intra_op.allow_spinning": "0", "session.inter_op.allow_spinning": "0"}


@contextmanager
def _sessions_without_spinning() -> Iterator[None]:
    """onnxruntime sessions created meanwhile (fastembed's model) do not spin.

    fastembed builds its own ``SessionOptions`` and exposes no entry for spinning, so the
    class it calls is swapped while it loads (under ``_loaded_lock``), then put back.
    """
    import onnxruntime as ort

    plain = ort.SessionOptions

    class Quiet(plain):  # type: ignore[misc,valid-type]
        def __init__(self) -> None:
            super().__init__()
            for key, value in _NO_SPINNING.items():
                self.add_session_config_entry(key, value)

    setattr(ort, "SessionOptions", Quiet)  # noqa: B010 - a module attribute, on purpose
    try:
        yield
    finally:
        setattr(ort, "SessionOptions", plain)  # noqa: B010


def _load_models(model_name: str, cache_dir: str | None, threads: int) -> _Models:
    with _sessions_without_spinning():
        return _load_dense(model_name, cache_dir, threads)


def _load_dense(model_name: str, cache_dir: str | None, threads: int) -> _Models:
    try:
        check_model(model_name, Path(cache_dir) if cache_dir else None)
        dense = _text_embedding(model_name, cache_dir, threads)
    except Exception as exc:  # fastembed raises many kinds (ValueError, OSError, HF errors)
        # A value the settings accepted can still fail here (a folder deleted or changed
        # since): say so in a sentence, and keep fastembed's own words for the log.
        log.warning("embedding model %s did not load: %r", model_name, exc)
        if isinstance(exc, EmbeddingError):  # check_model's sentence says what to use
            what = f"{exc}. Set embedding_model in Settings"
        else:
            what = (
                f"'{model_name}' did not load ({exc}). Set embedding_model in Settings to "
                f"{ACCEPTED}"
            )
        raise EmbeddingError(
            f"Could not load the embedding model: {what}, then start Docent again."
        ) from exc
    from tokenizers import Tokenizer

    inner: Any = dense.model  # fastembed's model object owns the tokenizer
    tok = Tokenizer.from_str(inner.tokenizer.to_str())
    tok.no_truncation()
    tok.no_padding()
    dim = len(next(iter(dense.embed(["dimension probe"]))))
    log.info("embedding model %s loaded (dim %d)", model_name, dim)
    return _Models(dense, tok, dim, QueriesFirst())


def _text_embedding(model_name: str, cache_dir: str | None, threads: int) -> Any:
    """fastembed's TextEmbedding for ``model_name``, from local files only."""
    from fastembed import TextEmbedding

    kwargs: dict[str, Any] = {"threads": threads or None, "local_files_only": True}
    if cache_dir:
        kwargs["cache_dir"] = cache_dir
    if model_name == BUNDLED_MODEL:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        bundled = resources_dir() / "models" / "all-MiniLM-L6-v2-int8"
        return TextEmbedding(model_name, specific_model_path=str(bundled), **kwargs)
    folder = model_folder(model_name)
    if folder is not None:
        return TextEmbedding(_register_folder(folder), specific_model_path=str(folder), **kwargs)
    return TextEmbedding(model_name, **kwargs)


_registered: set[str] = set()


def _register_folder(folder: Path) -> str:
    """The name fastembed knows ``folder``'s model by, registered once as a local model.

    Its pooling is the folder's ``1_Pooling/config.json`` (sentence-transformers' export),
    mean when absent; vectors are normalised, as the bundled model's are (the store
    compares them by cosine, which normalising leaves unchanged).
    """
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    from docent.core.cross_encoder import model_file

    name_in_folder = model_file(folder)
    digest = hashlib.sha1(f"{folder.resolve()}|{name_in_folder}".encode()).hexdigest()[:12]
    name = f"docent-local/embedding-{digest}"
    if name not in _registered:  # called under _loaded_lock
        pooling_file = folder / "1_Pooling" / "config.json"
        cls_token = pooling_file.is_file() and bool(
            json.loads(pooling_file.read_text(encoding="utf-8")).get("pooling_mode_cls_token")
        )
        config = folder / "config.json"
        dim = (
            json.loads(config.read_text(encoding="utf-8")).get("hidden_size", 0)
            if (config.is_file())
            else 0
        )
        TextEmbedding.add_custom_model(
            name,
            pooling=PoolingType.CLS if cls_token else PoolingType.MEAN,
            normalization=True,
            sources=ModelSource(url=folder.resolve().as_uri()),
            dim=int(dim),
            model_file=name_in_folder,
            description=f"the user's embedding model in {folder}",
        )
        _registered.add(name)
    return name


#: BM25, loaded apart from the dense model when first needed (once per process): `docent
#: index` leaves documents' sparse vectors to the extraction worker, so its own process
#: never needs it (building it scans every Unicode character for punctuation, ~0.4 s).
_bm25: list[Any] = []


def _shared_bm25(cache_dir: str | None) -> Any:
    with _loaded_lock:
        if not _bm25:
            try:
                _bm25.append(load_bm25(cache_dir))
            except Exception as exc:  # as for the dense model: many kinds
                raise EmbeddingError(f"Could not load the BM25 model: {exc}") from exc
        return _bm25[0]


class Embedder:
    """Wraps fastembed's TextEmbedding (dense) and SparseTextEmbedding (BM25).

    Thread-safe for use from one indexing worker plus query threads. The models themselves
    are loaded once per process and shared (``_shared_models``); each Embedder counts its
    own texts.
    """

    def __init__(
        self,
        model_name: str = BUNDLED_MODEL,
        cache_dir: Path | None = None,
        batch_size: int = 4,
        threads: int = 0,
    ) -> None:
        self.model_name = model_name
        self.batch_size = batch_size
        #: onnxruntime threads; 0 = onnxruntime's default (every core).
        self.threads = threads
        self.cache_dir = str(cache_dir) if cache_dir else None
        self._dense: Any = None
        self._sparse: Any = None
        self._tokenizer: Any = None
        self._turns = QueriesFirst()  # the models' own once loaded
        self.dim = 384
        #: How many texts went through the dense model (tests count re-embedding with it).
        self.texts_embedded = 0

    @property
    def index_format(self) -> str:
        """What a document indexed now is stored as (the catalog records it per document)."""
        return f"{INDEX_FORMAT}:{self.model_name}"

    # Loading -------------------------------------------------------------

    def _load(self) -> None:
        models = _shared_models(self.model_name, self.cache_dir, self.threads)
        self._tokenizer = models.tokenizer
        self.dim = models.dim
        self._turns = models.turns
        self._dense = models.dense  # last: ``loaded`` reads it

    def warm_up(self) -> None:
        """Load the dense model and BM25 now, ahead of the first question."""
        self.ensure_loaded()
        self._bm25()

    def _bm25(self) -> Any:
        if self._sparse is None:
            self._sparse = _shared_bm25(self.cache_dir)
        return self._sparse

    @property
    def loaded(self) -> bool:
        return self._dense is not None

    def ensure_loaded(self) -> None:
        if self._dense is None:
            self._load()

    # Tokens --------------------------------------------------------------

    def tokenizer_json(self) -> str:
        """The counting tokenizer, serialised (the extraction worker rebuilds it)."""
        self.ensure_loaded()
        return str(self._tokenizer.to_str())

    def count_tokens(self, text: str) -> int:
        """Tokens the dense model would see for ``text`` (special tokens included)."""
        self.ensure_loaded()
        return len(self._tokenizer.encode(text).ids)

    # Documents -----------------------------------------------------------

    def embed_dense(self, texts: Sequence[str]) -> list[list[float]]:
        return self._embed_dense(texts, self._turns.documents)

    def embed_for_question(self, texts: Sequence[str]) -> list[list[float]]:
        """``embed_dense`` for the texts an answer is checked with (its sentences, its
        passages' pieces): in a question's turns, so beside indexing the check waits as
        a search does, not behind the documents (review, session 33)."""
        return self._embed_dense(texts, self._turns.query)

    def _embed_dense(
        self, texts: Sequence[str], turn: Callable[[], AbstractContextManager[None]]
    ) -> list[list[float]]:
        if not texts:
            return []
        self.ensure_loaded()
        vecs: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            batch = list(texts[start : start + self.batch_size])
            with turn():
                vecs += [v.tolist() for v in self._dense.embed(batch, batch_size=self.batch_size)]
        self.texts_embedded += len(texts)
        return vecs

    def embed_chunks(self, texts: Sequence[str], bodies: Sequence[str]) -> list[ChunkVectors]:
        """Chunks' dense vectors (those ``embed_dense`` gives) and their sentences' vectors,
        from the same pass of the model: each sentence of ``bodies[i]``, the end of
        ``texts[i]`` after its context line, is the mean of its tokens' vectors in that
        pass (sentence_vectors.py). A chunk whose sentences all lie past the model's 256
        tokens keeps its dense vector as its one sentence vector."""
        if len(texts) != len(bodies):
            raise ValueError("each chunk's text needs its body")
        if not texts:
            return []
        from docent.core.sentence_vectors import pack, pool, sentence_spans

        self.ensure_loaded()
        model = self._dense.model  # fastembed's model: tokenizer, session, pooling
        out: list[ChunkVectors | None] = [None] * len(texts)
        # texts of like length share a batch: a batch is padded to its longest text, and
        # a section's short last chunk beside full ones was run at their length
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(texts), self.batch_size):
            which = order[start : start + self.batch_size]
            batch = [texts[i] for i in which]
            with self._turns.documents():
                run = model.onnx_embed(batch)  # the tokens' vectors, before pooling
                encoded = model.tokenize(batch)  # the same encodings, for their offsets
            dense = list(model._post_process_onnx_output(run))  # as embed() pools them
            for j, (i, text) in enumerate(zip(which, batch, strict=True)):
                body = bodies[i]
                if not text.endswith(body):
                    raise ValueError("a chunk's body must end its embedded text")
                spans = sentence_spans(body)
                hidden = run.model_output[j]
                sentences = pool(hidden, encoded[j].offsets, spans, len(text) - len(body))
                if not len(sentences):
                    sentences = dense[j][None, :]
                out[i] = ChunkVectors(dense[j].tolist(), pack(sentences))
        self.texts_embedded += len(texts)
        made = [v for v in out if v is not None]
        assert len(made) == len(texts)  # every text was in one batch
        return made

    def embed_sparse(self, texts: Sequence[str]) -> list[SparseVec]:
        if not texts:
            return []
        self.ensure_loaded()
        bm25 = self._bm25()
        out: list[SparseVec] = []
        for start in range(0, len(texts), SPARSE_BATCH):
            with self._turns.documents():
                out += sparse_vectors(bm25, texts[start : start + SPARSE_BATCH])
        return out

    # Queries -------------------------------------------------------------

    def query_dense(self, text: str) -> list[float]:
        self.ensure_loaded()
        with self._turns.query():
            return [float(x) for x in next(iter(self._dense.query_embed(text)))]

    def query_sparse(self, text: str) -> SparseVec:
        self.ensure_loaded()
        bm25 = self._bm25()
        with self._turns.query():
            v = next(iter(bm25.query_embed(text)))
        return with_identifiers(SparseVec(v.indices.tolist(), v.values.tolist()), text)

    def query_dense_many(self, texts: Sequence[str]) -> list[list[float]]:
        """Dense vectors of several queries in one model call (retrieval's variants)."""
        if not texts:
            return []
        self.ensure_loaded()
        with self._turns.query():
            return [v.tolist() for v in self._dense.query_embed(list(texts))]


def load_bm25(cache_dir: str | None) -> Any:
    """fastembed's BM25 from the bundled stopwords (no download)."""
    from fastembed import SparseTextEmbedding

    kwargs: dict[str, Any] = {"cache_dir": cache_dir} if cache_dir else {}
    path = resources_dir() / "models" / "bm25"
    return SparseTextEmbedding(
        "Qdrant/bm25",
        specific_model_path=str(path),
        k=BM25_K,
        b=BM25_B,
        avg_len=BM25_AVG_LEN,
        **kwargs,
    )


def sparse_vectors(bm25: Any, texts: Sequence[str], batch_size: int = 64) -> list[SparseVec]:
    """BM25 vectors of documents, with their identifiers as extra terms (``with_identifiers``)."""
    if not texts:
        return []
    out = bm25.embed(list(texts), batch_size=batch_size)
    return [
        with_identifiers(SparseVec(v.indices.tolist(), v.values.tolist()), text, bm25)
        for v, text in zip(out, texts, strict=True)
    ]


def identifier_id(term: str) -> int:
    """The sparse index of an identifier term; the prefix keeps it apart from word stems."""
    import mmh3

    return abs(mmh3.hash("\x00id:" + term))


def with_identifiers(vec: SparseVec, text: str, bm25: Any | None = None) -> SparseVec:
    """``vec`` plus one term per identifier of ``text`` (``is.na``, ``-p``, ``SET CPU``).

    BM25's tokenizer splits them into words it then drops (``is``, ``p``) or weighs as
    common ones (``set``). With ``bm25`` (documents) a term gets BM25's term-frequency
    weight for this text's length; without (queries) 1.0, as fastembed weighs query terms.
    Qdrant applies the IDF to both, as to every other term.
    """
    terms: dict[int, int] = {}
    for term in identifier_terms(text):
        i = identifier_id(term)
        terms[i] = terms.get(i, 0) + 1
    if not terms:
        return vec
    values = dict(zip(vec.indices, vec.values, strict=True))
    if bm25 is None:
        values.update(dict.fromkeys(terms, 1.0))
    else:
        model = getattr(bm25, "model", bm25)  # SparseTextEmbedding wraps fastembed's Bm25
        k, b, avg = model.k, model.b, model.avg_len
        norm = k * (1 - b + b * len(text.split()) / avg)
        values.update({i: n * (k + 1) / (n + norm) for i, n in terms.items()})
    return SparseVec(list(values), list(values.values()))
