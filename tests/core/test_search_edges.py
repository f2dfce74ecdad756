"""Search and grep: bugs a review proved (each test failed before its fix). The hashing
embedder keeps it fast: none of these is about how good the vectors are."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from docent.core.config import Settings
from docent.core.engine import Engine
from docent.core.errors import DocentError
from docent.core.models import DocState, DocumentRecord, Hit, SparseVec
from docent.core.store import ChunkPoint, chunk_point_id
from docent.core.sufficiency import evaluate_retrieval, keyword_overlap
from fake_embedder import FakeEmbedder
from pdf_files import text_pdf

#: Sixty sentences: several chunks, each (but the first) opening with the sentence the
#: chunk before it ended with (chunking.py's one-sentence overlap).
LONG = " ".join(
    f"Sentence number {i} talks about topic{i} with several filler words to pad it out nicely."
    for i in range(60)
)
ZH = "北京大学图书馆的开放时间是早上八点到晚上十点。借书证需要在服务台办理。\n"
HOUSE = "The red house on the hill has a blue door and a green roof.\n"
DESK = "The 27 inch monitor stands on a desk that is 30 inches wide, with room to spare.\n"
#: Six pages, each naming the keeper: one grep match per page.
PAGES = [
    [f"Page {n} line {i}: the keeper checks lamp number {n}{i} and logs it." for i in range(12)]
    for n in range(1, 7)
]


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    root = tmp_path_factory.mktemp("search-review")
    docs = root / "docs"
    docs.mkdir()
    (docs / "long.txt").write_text(LONG + "\n")
    (docs / "zh.txt").write_text(ZH)
    (docs / "house.txt").write_text(HOUSE)
    (docs / "desk.txt").write_text(DESK)
    (docs / "keeper.pdf").write_bytes(text_pdf(PAGES))
    (docs / "broken.txt").write_bytes(b"\x00\x01\x02" * 100)  # fails: binary
    settings = Settings(data_dir=str(root / "data"), extract_in_subprocess=False)
    eng = Engine(settings, embedder=FakeEmbedder()).open()
    report = eng.index([docs])
    assert len(report.indexed) == 5 and len(report.failed) == 1
    assert next(d for d in eng.documents() if d.file_name == "long.txt").chunks > 2
    yield eng
    eng.close()


# 1. grep lists one occurrence twice ------------------------------------------------


def test_grep_lists_each_occurrence_once_though_two_chunks_overlap(engine: Engine) -> None:
    """Chunks overlap by one sentence, so a word in that sentence is in two chunks, and
    grep listed the same line of the same file twice."""
    for i in range(60):
        matches = engine.grep(f"topic{i} ")
        assert len(matches) == 1, (i, [m.line for m in matches])


# 2. grep's matches come in point-id order -------------------------------------------


def test_grep_lists_matches_in_page_order(engine: Engine) -> None:
    """One match per page of a six-page PDF: grep listed them p.3, p.1, p.4, ... (the
    store's scroll order, by random-looking point id), not in the document's order."""
    pages = [m.page_start for m in engine.grep("keeper checks lamp") if m.file_name == "keeper.pdf"]
    assert sorted(set(pages)) == [1, 2, 3, 4, 5, 6]
    assert pages == sorted(pages)


# 3. a busy document with many matches hides the others' --------------------------------


def test_grep_finds_other_documents_while_a_busy_one_holds_many_matches(
    engine: Engine,
) -> None:
    """A document being (re)indexed is left out of grep, but only after the store returned
    ``limit + 100`` matches: when it alone holds more, the ready documents' matches are
    cut off too (grep "the" while a big file re-indexes)."""
    store = engine._store  # noqa: SLF001 (a test sets the scene)
    cat = engine._cat  # noqa: SLF001

    def chunks(doc: str, n: int) -> list[ChunkPoint]:
        vec = FakeEmbedder().query_dense("zzq")
        return [
            ChunkPoint(
                chunk_point_id(doc, i),
                vec,
                SparseVec([1], [1.0]),
                {
                    "doc_id": doc,
                    "path": f"/x/{doc}.txt",
                    "file_name": f"{doc}.txt",
                    "page_start": 1,
                    "page_end": 1,
                    "ordinal": i,
                    "text": f"row {i} holds the zzqneedle",
                    "content_hash": f"{doc}{i}",
                },
            )
            for i in range(n)
        ]

    cat.put(
        DocumentRecord(
            doc_id="busy-doc",
            path="/x/busy-doc.txt",
            file_name="busy-doc.txt",
            state=DocState.INDEXING,
        )
    )
    store.upsert_chunks(chunks("busy-doc", 600))
    store.upsert_chunks(chunks("ready-doc", 5))
    try:
        found = [m for m in engine.grep("zzqneedle") if m.file_name == "ready-doc.txt"]
        assert len(found) == 5
    finally:
        store.delete_chunks("busy-doc")
        store.delete_chunks("ready-doc")
        cat.delete("busy-doc")


# 4. Chinese and Japanese words are never "found" -------------------------------------


def test_cjk_words_in_the_passage_count_as_found(engine: Engine) -> None:
    """Both words of the question stand in the passage, yet the evaluation says "not in
    the passages found: 图书馆, 开放时间" (overlap 0): the question's words are whole runs
    of CJK characters and the passage's a whole sentence, never equal."""
    result = engine.search("图书馆 开放时间", files=["zh.txt"])
    assert result.hits and "图书馆" in result.hits[0].text and "开放时间" in result.hits[0].text
    ev = result.evaluation
    assert ev is not None
    assert ev.keyword_overlap == 1.0, ev.issues
    assert not any("not in the passages found" in i for i in ev.issues), ev.issues


def test_cjk_keyword_overlap_unit() -> None:
    hit = Hit("c", "d", "zh.txt", "/x/zh.txt", 1, 1, 0, 1.0, ZH)
    overlap, missing = keyword_overlap("图书馆的开放时间", [hit])
    assert missing == [] and overlap == 1.0
    ev = evaluate_retrieval("图书馆 开放时间", [hit])
    assert ev.keyword_overlap == 1.0


# 5. a quoted phrase the library never says passes as found ---------------------------


def test_a_quoted_phrase_the_library_never_says_is_reported(engine: Engine) -> None:
    """'"blue house"': both words are in house.txt, never together. Exact terms are
    checked with MatchText (every word, anywhere), so the phrase passes as mentioned and
    the search is judged as if the library said it."""
    result = engine.search('Where is the "blue house"?', files=["house.txt"])
    ev = result.evaluation
    assert ev is not None
    assert any("never mention 'blue house'" in i for i in ev.issues), ev.issues
    # ...while a phrase it does say is not flagged
    said = engine.search('Where is the "blue door"?', files=["house.txt"]).evaluation
    assert said is not None and not any("never mention" in i for i in said.issues)


def test_inch_marks_are_not_quotes(engine: Engine) -> None:
    """'Does the 27" monitor fit on a 30" wide desk?': the two inch marks were read as
    quotes around 'monitor fit on a 30', an exact phrase that no passage holds word for
    word, so the search says the documents "never mention" it (and drops its confidence
    by two points), though desk.txt answers it."""
    result = engine.search('Does the 27" monitor fit on a 30" wide desk?', files=["desk.txt"])
    ev = result.evaluation
    assert ev is not None
    assert not any("never mention" in i for i in ev.issues), ev.issues


# 6. undecodable text crashes search and grep -------------------------------------------


@pytest.mark.parametrize("text", ["caf\udce9 keeper", "\udcff"])
def test_grep_survives_undecodable_input(engine: Engine, text: str) -> None:
    """`docent grep $'caf\\xe9'` (Latin-1 bytes in argv, or text read from such a file)
    reaches the engine with surrogate escapes: grep died with UnicodeEncodeError from the
    store, a traceback (not a DocentError the CLI reports)."""
    engine.grep(text)  # read as Windows-1252: "café keeper", "ÿ"


def test_search_survives_undecodable_input(tmp_path: Path) -> None:
    """The same with the real model: its tokenizer raised TypeError ("TextEncodeInput must
    be Union[...]"), and a name with one (``CAF\\xe9``) reached Qdrant's text match."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("The keeper climbs the tower at dusk to light the lamp.\n")
    settings = Settings(data_dir=str(tmp_path / "data"), extract_in_subprocess=False)
    with Engine(settings).open() as eng:
        eng.index([docs])
        for text in ("caf\udce9 keeper", "Where is the Caf\udce9 lamp?"):
            eng.search(text)  # read as Windows-1252: "café keeper"


# 7. a search scoped to a document that is not indexed --------------------------------


def test_a_search_scoped_to_a_failed_document_says_it_is_not_indexed(engine: Engine) -> None:
    """`docent search --file broken.txt`: the file failed to index, yet the search runs
    and says "nothing was found ... Index documents that cover this, or widen the scope",
    as if the document had been searched."""
    try:
        result = engine.search("keeper", files=["broken.txt"])
    except DocentError as exc:
        assert "broken.txt" in str(exc)
        return
    ev = result.evaluation
    assert ev is not None
    assert any("broken.txt" in i for i in ev.issues) or "broken.txt" in ev.recommendation, (
        ev.issues,
        ev.recommendation,
    )


def test_text_typed_in_a_latin1_terminal_is_read_as_such() -> None:
    """Bytes that are not UTF-8 reach Python as surrogates; they are read as Windows-1252
    (a Latin-1 terminal's "café"), and valid text is only composed."""
    from docent.core.normal_form import typed

    assert typed("caf\udce9 keeper") == "café keeper"
    assert typed("cafe\u0301") == "café"
    assert typed("\udcff") == "ÿ"
