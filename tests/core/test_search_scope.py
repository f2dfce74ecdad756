"""Search through the Engine and the CLI: file scope, disambiguation, grep limits."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from docent.cli import main
from docent.core.config import Settings
from docent.core.engine import GREP_LIMIT, Engine
from docent.core.errors import AmbiguousFile, UnknownFile
from docent.core.models import SparseVec
from docent.core.store import ChunkPoint, chunk_point_id

Add = Callable[[str, list[str]], None]

LIGHTHOUSE = (
    "The keeper climbs the tower at dusk to light the lamp. Lamp oil is kept in "
    "sealed tins in the cellar, and the lens is polished every morning.\n"
)
BAKERY = (
    "Sourdough starter is fed with flour and water every day. Loaves proof overnight "
    "in a cool room and bake in a very hot oven for a crisp crust.\n"
)


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    lib = tmp_path_factory.mktemp("search-scope") / "lib"
    for folder, text in (("harbour", LIGHTHOUSE), ("village", BAKERY)):
        (lib / folder).mkdir(parents=True)
        (lib / folder / "notes.txt").write_text(text)
    (lib / "diary.md").write_text("Tomatoes ripen in August when the nights stay warm.\n")
    return lib


@pytest.fixture(scope="module")
def engine(library: Path) -> Iterator[Engine]:
    """One indexed engine for the module (the model loads once)."""
    home = library.parent / "home"
    eng = Engine(Settings(data_dir=str(home), extract_in_subprocess=False)).open()
    eng.index([library])
    yield eng
    eng.close()


class _Borrowed:
    """The module's engine lent to a CLI command, which must not close it."""

    def __init__(self, eng: Engine) -> None:
        self.eng = eng

    def __enter__(self) -> Engine:
        return self.eng

    def __exit__(self, *exc: object) -> None:
        pass


@pytest.fixture
def cli(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> Engine:
    monkeypatch.setattr("docent.cli._open_engine", lambda: _Borrowed(engine))
    return engine


def test_a_name_matching_several_files_lists_the_candidates(engine: Engine, library: Path) -> None:
    with pytest.raises(AmbiguousFile) as err:
        engine.search("lamp oil", files=["notes.txt"])
    paths = sorted(str(library / f / "notes.txt") for f in ("harbour", "village"))
    assert sorted(err.value.candidates) == paths
    assert all(p in str(err.value) for p in paths)
    with pytest.raises(AmbiguousFile):
        engine.search("lamp oil", files=["note"])  # a part of a name


def test_a_path_or_the_end_of_one_picks_the_file(engine: Engine, library: Path) -> None:
    full = engine.search("lamp oil", files=[str(library / "harbour" / "notes.txt")])
    assert {h.path for h in full.hits} == {str(library / "harbour" / "notes.txt")}
    tail = engine.search("what is in the oven", files=["village/notes.txt"])
    assert {h.path for h in tail.hits} == {str(library / "village" / "notes.txt")}
    unique = engine.search("summer", files=["diary"])
    assert {h.file_name for h in unique.hits} == {"diary.md"}
    with pytest.raises(UnknownFile):
        engine.search("lamp", files=["nowhere.pdf"])


def test_whole_library_and_a_set_of_files(engine: Engine) -> None:
    assert {h.file_name for h in engine.search("lamp").hits} == {"notes.txt", "diary.md"}
    two = engine.search("food", files=["village/notes.txt", "diary.md"])
    assert {h.path.split("/")[-2] for h in two.hits} == {"village", "lib"}


def test_cli_search_file_prints_candidates_instead_of_guessing(
    cli: Engine, library: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["search", "lamp oil", "--file", "notes.txt"]) == 1
    err = capsys.readouterr().err
    assert "matches 2 documents" in err
    assert str(library / "harbour" / "notes.txt") in err
    assert str(library / "village" / "notes.txt") in err


def test_cli_search_json_and_debug(cli: Engine, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "How is the lens kept clean?", "--json", "--debug"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["confidence"] in ("high", "medium", "low")
    assert isinstance(out["sufficient"], bool)
    assert out["hits"][0]["file_name"] == "notes.txt"
    assert {"variants", "stages", "timings_ms"} <= set(out["debug"])
    assert main(["search", "How is the lens kept clean?", "--debug"]) == 0
    text = capsys.readouterr().out
    for part in ("confidence:", "variant question", "variant keywords", "timings (ms)", "fused:"):
        assert part in text


def test_fusion_ranks_give_each_hit_its_place_by_fused_score() -> None:
    from docent.cli import fusion_ranks

    assert fusion_ranks([0.04, 0.05, 0.03]) == [2, 1, 3]
    assert fusion_ranks([0.05, 0.05, 0.01]) == [1, 2, 3]  # a tie keeps the order given
    assert fusion_ranks([]) == []


def test_cli_search_says_when_the_rerank_put_a_lower_fused_score_first(
    cli: Engine, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The scores printed are fusion's and the order the rerank's, so [1] could show a
    lower score than [2] with no word why (QA, session 26): each moved hit now names its
    place by fused score, and a note says whose the order is."""
    from dataclasses import replace

    assert main(["search", "lamp oil lens"]) == 0
    plain = capsys.readouterr().out
    assert "by fused score" not in plain and "The order is the rerank's" not in plain
    search = Engine.search

    def reranked(self: Engine, query: str, **kwargs: object) -> object:
        result = search(self, query, **kwargs)
        hits = sorted(result.hits, key=lambda h: h.score)  # the lowest fused score first
        return replace(result, hits=hits)

    monkeypatch.setattr(Engine, "search", reranked)
    assert main(["search", "lamp oil lens"]) == 0
    out = capsys.readouterr().out
    n = out.count("\n[") + out.startswith("[")
    assert n >= 2, out
    assert "[1] " in out and f"#{n} by fused score" in out, out
    assert "The order is the rerank's" in out


# grep ---------------------------------------------------------------------------------


@pytest.fixture
def add_chunks(engine: Engine) -> Iterator[Callable[[str, list[str]], None]]:
    """Put chunks straight into the store (no embedding); removed after the test."""
    assert engine.store is not None
    store, added = engine.store, []
    vec = [1.0] + [0.0] * (engine.embedder.dim - 1)

    def add(doc: str, texts: list[str]) -> None:
        added.append(doc)
        store.upsert_chunks(
            [
                ChunkPoint(
                    chunk_point_id(doc, i),
                    vec,
                    SparseVec([1], [1.0]),
                    {
                        "doc_id": doc,
                        "path": f"/x/{doc}",
                        "file_name": doc,
                        "page_start": i + 1,
                        "page_end": i + 2,
                        "ordinal": i,
                        "text": t,
                        "content_hash": f"{doc}{i}",
                    },
                )
                for i, t in enumerate(texts)
            ]
        )

    yield add
    for doc in added:
        store.delete_chunks(doc)


def test_grep_is_case_insensitive_with_file_and_pages(engine: Engine, add_chunks: Add) -> None:
    add_chunks("manual.pdf", ["Set the BaudRate to 9600 first.", "nothing here"])
    matches = engine.grep("baudrate")
    assert len(matches) == 1
    m = matches[0]
    assert (m.file_name, m.path, m.page_start, m.page_end) == ("manual.pdf", "/x/manual.pdf", 1, 2)
    assert "BaudRate to 9600" in m.line
    assert engine.grep("LAMP OIL")[0].file_name == "notes.txt"
    assert engine.grep("no such words anywhere") == []


def test_grep_returns_at_most_100_matches(engine: Engine, add_chunks: Add) -> None:
    add_chunks("big.txt", [f"line {i}: the NeEdLe is here" for i in range(130)])
    assert len(engine.grep("needle")) == GREP_LIMIT == 100
    assert len(engine.grep("needle", limit=1000)) == 100
    assert len(engine.grep("needle", limit=3)) == 3


def test_cli_grep_json(cli: Engine, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["grep", "SOURDOUGH", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out) == 1 and out[0]["file_name"] == "notes.txt" and out[0]["page_start"] == 1
