"""A question in collection A never gets a passage from a document only in B: in search
(hybrid prefetches, the dense list, the keyword boost), two-tier document search, neighbour
expansion, grep and ask.

The library is big enough for two-tier retrieval (more than 25 documents in each
collection) and made of small generated files, several chunks each. A hashing embedder
stands in for the model: what matters is which documents a query may reach, not how well
it ranks them. B's documents are the better match for every question asked in A, so a
filter that does not reach a query lets them in.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from docent.core.config import Settings
from docent.core.conversation import Conversation
from docent.core.engine import Engine
from docent.core.models import Hit
from docent.core.retrieval import RetrievalConfig, Retriever
from fake_embedder import FakeEmbedder

PER_COLLECTION = 30  # above RetrievalConfig.two_tier_min_docs
QUESTION = "comet telescope observatory eyepiece nebula"
B_ONLY = "ZX-81"  # an identifier only B's documents hold


def paragraph(words: list[str], n: int, seed: int) -> str:
    return " ".join(words[(seed * 7 + i * 3) % len(words)] for i in range(n)) + "."


def a_text(i: int) -> str:
    words = ["lighthouse", "keeper", "lamp", "wick", "harbour", "tide", "fog", "signal"]
    body = [paragraph(words, 60, i * 5 + k) for k in range(8)]
    if i == 0:  # one A document does mention a comet, so A has something to say
        body[3] = "The keeper once saw a comet from the lamp room. " + body[3]
    return f"Lighthouse log {i}\n\n" + "\n\n".join(body) + "\n"


def b_text(i: int) -> str:
    words = ["comet", "telescope", "observatory", "eyepiece", "nebula", "mirror", "dome"]
    body = [paragraph(words, 60, i * 3 + k) for k in range(8)]
    body[2] = f"The {B_ONLY} mount tracks the comet. " + body[2]
    return f"Observatory notebook {i}\n\n" + "\n\n".join(body) + "\n"


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Engine, dict[str, str]]]:
    root = tmp_path_factory.mktemp("isolation")
    for name, make in (("a", a_text), ("b", b_text)):
        (root / name).mkdir()
        for i in range(PER_COLLECTION):
            (root / name / f"{name}{i:02d}.txt").write_text(make(i))
    (root / "shared.txt").write_text(
        "Shared almanac\n\nThe comet returns every seventy years; telescope owners and "
        "lighthouse keepers both note it in their logs.\n"
    )
    settings = Settings(data_dir=str(root / "home"), extract_in_subprocess=False)
    eng = Engine(settings, embedder=FakeEmbedder()).open()
    ids = {name: eng.create_collection(name.upper()).id for name in ("a", "b")}
    for name in ("a", "b"):
        eng.index([root / name], collection=ids[name])
        eng.index([root / "shared.txt"], collection=ids[name])
    yield eng, ids
    eng.close()


def docs_of(eng: Engine, collection: str) -> set[str]:
    return {d.doc_id for d in eng.documents(collection)}


def test_the_library_is_big_enough_and_chunked(library: tuple[Engine, dict[str, str]]) -> None:
    eng, ids = library
    for cid in ids.values():
        docs = eng.documents(cid)
        assert len(docs) == PER_COLLECTION + 1 > RetrievalConfig().two_tier_min_docs
        assert all(d.chunks >= 3 for d in docs if d.file_name != "shared.txt")
    [shared] = [d for d in eng.documents() if d.file_name == "shared.txt"]
    assert sorted(shared.collections) == sorted(ids.values())


def test_without_a_collection_the_question_reaches_b(
    library: tuple[Engine, dict[str, str]],
) -> None:
    """The control: unfiltered, B's documents are what this question finds."""
    eng, ids = library
    found = {h.doc_id for h in eng.search(QUESTION).hits}
    assert found & (docs_of(eng, ids["b"]) - docs_of(eng, ids["a"]))


def test_search_in_a_never_returns_a_passage_only_in_b(
    library: tuple[Engine, dict[str, str]],
) -> None:
    eng, ids = library
    a_docs = docs_of(eng, ids["a"])
    result = eng.search(QUESTION, collection=ids["a"], debug=True)
    assert result.hits
    assert {h.doc_id for h in result.hits} <= a_docs
    # two-tier ran, over A's documents only
    tier = result.debug["two_tier_docs"]
    assert tier is not None and set(tier) <= a_docs
    # every ranked list (hybrid per variant, dense) held A's chunks only
    b_names = {d.file_name for d in eng.documents(ids["b"])} - {"shared.txt"}
    for stage, rows in result.debug["stages"].items():
        assert not any(r["chunk"].split(" p.")[0] in b_names for r in rows), stage
    # neighbour expansion: the context comes from A's documents too
    for h in result.hits:
        for text in (h.context_before, h.context_after):
            assert "observatory" not in text.lower() or h.file_name == "shared.txt"


def test_the_keyword_boost_and_absence_check_stay_inside_a(
    library: tuple[Engine, dict[str, str]],
) -> None:
    eng, ids = library
    in_b = eng.search(f"{B_ONLY} mount", collection=ids["b"], debug=True)
    assert in_b.debug["exact_terms"][B_ONLY] > 0
    in_a = eng.search(f"{B_ONLY} mount", collection=ids["a"], debug=True)
    assert in_a.debug["exact_terms"][B_ONLY] == 0
    assert {h.doc_id for h in in_a.hits} <= docs_of(eng, ids["a"])
    assert in_a.confidence == "low"  # A's documents never mention it


def test_a_document_in_both_collections_is_found_from_each(
    library: tuple[Engine, dict[str, str]],
) -> None:
    eng, ids = library
    for cid in ids.values():
        hits = eng.search("comet returns every seventy years almanac", collection=cid).hits
        assert "shared.txt" in {h.file_name for h in hits}


def test_the_store_filters_inside_each_query(library: tuple[Engine, dict[str, str]]) -> None:
    """Below the retriever: each store method that searches takes the collection."""
    eng, ids = library
    store = eng.store
    assert store is not None
    [b_doc] = [d for d in eng.documents(ids["b"]) if d.file_name == "b00.txt"]
    places = [(b_doc.doc_id, o) for o in (0, 1, 2)]
    assert store.chunks_at(places, collection=ids["b"])
    assert store.chunks_at(places, collection=ids["a"]) == []
    # neighbour expansion asks for the neighbours inside the collection searched
    hit = Hit("x", b_doc.doc_id, b_doc.file_name, b_doc.path, 1, 1, 1, 1.0, "")
    Retriever(store, eng.embedder).expand([hit], ids["a"])
    assert (hit.context_before, hit.context_after) == ("", "")
    Retriever(store, eng.embedder).expand([hit], ids["b"])
    assert hit.context_before and hit.context_after
    vector = eng.embedder.query_dense(QUESTION)
    docs = store.query_documents(vector, limit=100, collection=ids["a"])
    assert len(docs) == PER_COLLECTION + 1
    assert {p.payload["doc_id"] for p in docs} == docs_of(eng, ids["a"])
    assert store.text_match("observatory", collection=ids["a"]) == []
    assert len(store.text_match("observatory", collection=ids["b"], limit=100)) > PER_COLLECTION
    assert store.grep(B_ONLY, collection=ids["a"]) == []
    assert len(store.grep(B_ONLY, collection=ids["b"])) == PER_COLLECTION


def test_grep_and_list_stay_inside_a(library: tuple[Engine, dict[str, str]]) -> None:
    eng, ids = library
    assert eng.grep(B_ONLY, collection=ids["a"]) == []
    assert len(eng.grep(B_ONLY, collection=ids["b"])) == PER_COLLECTION
    assert len(eng.grep(B_ONLY)) == PER_COLLECTION
    names = {d.file_name for d in eng.documents(ids["a"])}
    assert names == {f"a{i:02d}.txt" for i in range(PER_COLLECTION)} | {"shared.txt"}


def test_ask_in_a_offers_only_a_passages_and_the_conversation_stays_there(
    library: tuple[Engine, dict[str, str]], ollama_down_host: str
) -> None:
    eng, ids = library
    eng.settings = eng.settings.model_copy(update={"ollama_host": ollama_down_host})
    a_docs = docs_of(eng, ids["a"])
    conv = Conversation()
    first = eng.ask(QUESTION, conversation=conv, collection=ids["a"])
    assert first.mode in ("extractive", "abstained") and first.offered
    assert {h.doc_id for h in first.offered} <= a_docs
    assert conv.collection == ids["a"]
    # a follow-up with no collection named stays in the one the conversation started in
    follow = eng.ask("and the telescope mirror?", conversation=conv)
    assert {h.doc_id for h in follow.offered} <= a_docs
    # the per-file scope works inside it
    scoped = eng.ask(QUESTION, conversation=conv, files=["a05.txt"])
    assert {h.file_name for h in scoped.offered} == {"a05.txt"}


def test_an_abstention_in_a_collection_names_it(
    library: tuple[Engine, dict[str, str]], ollama_down_host: str
) -> None:
    """It said "in all documents" while the question searched the collection only."""
    eng, ids = library
    eng.settings = eng.settings.model_copy(update={"ollama_host": ollama_down_host})
    off = eng.ask("How do I bake sourdough bread with rye flour?", collection=ids["a"])
    assert off.mode == "abstained" and " in collection A." in off.text
    anywhere = eng.ask("How do I bake sourdough bread with rye flour?")
    assert anywhere.mode == "abstained" and " in all documents." in anywhere.text


def test_a_file_scope_is_looked_for_inside_the_collection(
    library: tuple[Engine, dict[str, str]],
) -> None:
    eng, ids = library
    from docent.core.errors import UnknownFile

    with pytest.raises(UnknownFile, match="in the collection 'A'"):
        eng.search(QUESTION, files=["b03.txt"], collection=ids["a"])
    assert eng.search(QUESTION, files=["b03.txt"], collection=ids["b"]).hits


def test_summarize_finds_the_document_in_its_collection(
    library: tuple[Engine, dict[str, str]], ollama_down_host: str, tmp_path: Path
) -> None:
    eng, ids = library
    eng.settings = eng.settings.model_copy(update={"ollama_host": ollama_down_host})
    from docent.core.errors import UnknownFile

    with pytest.raises(UnknownFile):
        eng.summarize("b07.txt", collection=ids["a"])
    result = eng.summarize("b07.txt", collection=ids["b"])
    assert result.document == "b07.txt" and result.mode == "extractive"
