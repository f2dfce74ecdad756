"""`docent collections`, `docent collection ...` and ``--collection`` on the commands, in
process, over a real engine with a hashing embedder (the commands' plumbing is tested
here; what the model makes of the text is not)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from docent.cli import main
from docent.core.config import load_settings
from docent.core.engine import Engine
from fake_embedder import FakeEmbedder


@pytest.fixture(autouse=True)
def fast_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    def open_engine(rebuild: bool = False) -> Engine:
        settings = load_settings(extract_in_subprocess=False)
        return Engine(settings, embedder=FakeEmbedder()).open(rebuild=rebuild)

    monkeypatch.setattr("docent.cli._open_engine", open_engine)


@pytest.fixture
def folders(tmp_path: Path) -> dict[str, Path]:
    out = {}
    for name, text in (
        ("work", "The quarterly budget review lists travel invoices and receipts."),
        ("home", "Grandma bakes sourdough bread with rye flour every Sunday."),
    ):
        folder = tmp_path / name
        folder.mkdir()
        (folder / f"{name}-notes.txt").write_text(text + "\n")
        out[name] = folder
    (tmp_path / "both.txt").write_text("A list of things both at home and at work.\n")
    out["both"] = tmp_path / "both.txt"
    return out


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def indexed(capsys: pytest.CaptureFixture[str], folders: dict[str, Path]) -> None:
    """Work: work-notes, both; Home: home-notes, both (one engine: quicker than commands)."""
    with Engine(load_settings(extract_in_subprocess=False), embedder=FakeEmbedder()) as eng:
        for name in ("work", "home"):
            made = eng.ensure_collection(name.title())
            eng.index([folders[name], folders["both"]], collection=made.id)


def test_index_makes_the_collection_and_adds_to_it(
    capsys: pytest.CaptureFixture[str], folders: dict[str, Path]
) -> None:
    code, _, err = run(capsys, "index", str(folders["work"]), "--collection", "Work", "-q")
    assert code == 0 and "Made the collection Work." in err  # a typo's says so (QA-77)
    code, _, err = run(capsys, "index", str(folders["both"]), "--collection", "work", "-q")
    assert code == 0 and "Made the collection" not in err
    code, out, _ = run(capsys, "list", "--collection", "WORK", "--json")
    assert code == 0
    assert sorted(d["file_name"] for d in json.loads(out)) == ["both.txt", "work-notes.txt"]
    # indexed again into another collection: it joins it, and says so
    code, out, _ = run(capsys, "index", str(folders["both"]), "--collection", "Home", "-q")
    assert code == 0 and "0 chunks embedded" in out
    assert "both.txt: now in Home, Work (nothing re-embedded)" in out
    code, out, _ = run(capsys, "index", str(folders["both"]), "--collection", "Home", "--json")
    assert json.loads(out)["regrouped"] == []  # already in it


def test_collections_lists_each_with_its_counts(
    capsys: pytest.CaptureFixture[str], folders: dict[str, Path]
) -> None:
    indexed(capsys, folders)
    code, out, _ = run(capsys, "collections", "--json")
    assert code == 0
    listed = {c["name"]: c for c in json.loads(out)}
    assert list(listed) == ["default", "Home", "Work"]
    assert listed["Work"]["documents"] == 2 and listed["Work"]["ready"] == 2
    assert listed["Work"]["only_here"] == 1 and listed["Work"]["chunks"] >= 2
    assert listed["default"]["documents"] == 0 and listed["default"]["default"] is True
    code, out, _ = run(capsys, "collections")
    assert "Work" in out and "2 documents" in out and "(default)" in out
    [work_line] = [line for line in out.splitlines() if line.startswith("Work")]
    assert work_line.split()[-3:] == ["1", "only", "here"]


@pytest.mark.parametrize(
    "argv",
    [
        ["search", "bread"],
        ["ask", "bread?"],
        ["grep", "bread"],
        ["list"],
        ["summarize", "home-notes.txt"],
        ["watch"],
        ["collection", "rename", "Garden", "Yard"],
        ["collection", "remove", "Garden", "--yes"],
    ],
)
def test_an_unknown_collection_exits_2_naming_it_and_listing_the_others(
    capsys: pytest.CaptureFixture[str], folders: dict[str, Path], argv: list[str]
) -> None:
    indexed(capsys, folders)
    if argv[0] != "collection":
        argv = [*argv, "--collection", "Garden"]
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert "'Garden'" in err and "default, Home, Work" in err


def test_list_grep_and_search_stay_in_the_collection(
    capsys: pytest.CaptureFixture[str], folders: dict[str, Path]
) -> None:
    indexed(capsys, folders)
    code, out, _ = run(capsys, "list", "--collection", "home", "--json")
    assert code == 0
    docs = {d["file_name"]: d for d in json.loads(out)}
    assert sorted(docs) == ["both.txt", "home-notes.txt"]
    assert docs["both.txt"]["collections"] == ["Home", "Work"]
    assert "sourdough" in run(capsys, "grep", "sourdough", "--collection", "Home")[1]
    assert run(capsys, "grep", "sourdough", "--collection", "Work")[1].strip() == "No matches."
    code, out, _ = run(capsys, "search", "sourdough bread", "--collection", "Work", "--json")
    files = {h["file_name"] for h in json.loads(out)["hits"]}
    assert "home-notes.txt" not in files


def test_rename_then_remove_asks_first_and_never_deletes_files(
    capsys: pytest.CaptureFixture[str], folders: dict[str, Path]
) -> None:
    indexed(capsys, folders)
    code, out, _ = run(capsys, "collection", "rename", "work", "Office")
    assert code == 0 and "'Work' to 'Office'" in out
    # not on a terminal and no --yes: nothing happens
    code, _, err = run(capsys, "collection", "remove", "Office")
    assert code == 2 and "--yes" in err
    assert "1 document in no other collection leaves the index, 1 stays in other" in err
    code, _, err = run(capsys, "collection", "remove", "default")
    assert code == 2 and "Empty the default collection 'default' (it stays)?" in err
    assert len(json.loads(run(capsys, "list", "--json")[1])) == 3
    code, out, _ = run(capsys, "collection", "remove", "Office", "--yes", "--json")
    assert code == 0
    done = json.loads(out)
    assert done["removed_from_index"] == [str(folders["work"] / "work-notes.txt")]
    assert done["kept_in_other_collections"] == 1
    assert (folders["work"] / "work-notes.txt").exists()
    names = [c["name"] for c in json.loads(run(capsys, "collections", "--json")[1])]
    assert names == ["default", "Home"]
    remaining = {d["file_name"] for d in json.loads(run(capsys, "list", "--json")[1])}
    assert remaining == {"both.txt", "home-notes.txt"}


class _Terminal(io.StringIO):
    """What a person types at a terminal."""

    def isatty(self) -> bool:
        return True


def test_remove_asks_on_a_terminal_on_stderr(
    capsys: pytest.CaptureFixture[str], folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The question went to stdout: `docent collection remove Work --json | jq .` from a
    terminal got it before the JSON, so what the pipe read was not JSON."""
    indexed(capsys, folders)
    monkeypatch.setattr("sys.stdin", _Terminal("n\ny\n"))
    code, out, err = run(capsys, "collection", "remove", "Home", "--json")
    assert code == 2 and out == "" and "Remove the collection 'Home'?" in err
    assert "Home" in {c.name for c in _collections()}
    code, out, err = run(capsys, "collection", "remove", "Home", "--json")
    assert code == 0 and json.loads(out)["collection"] == "Home", out
    assert "[y/N]" in err
    assert "Home" not in {c.name for c in _collections()}


def _collections() -> list[object]:
    with Engine(load_settings(extract_in_subprocess=False), embedder=FakeEmbedder()) as eng:
        return list(eng.collections())


def test_a_taken_or_empty_name_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], folders: dict[str, Path]
) -> None:
    indexed(capsys, folders)
    code, _, err = run(capsys, "collection", "create", "HOME")
    assert code == 2 and "already exists" in err
    code, _, err = run(capsys, "collection", "rename", "Home", " ")
    assert code == 2 and "needs a name" in err
    # the window's name for the whole library (QA-77: listed twice, the empty one chosen)
    code, _, err = run(capsys, "collection", "create", "all  Collections")
    assert code == 2 and "names the whole library in the window" in err
    assert run(capsys, "collection", "create", "Garden")[0] == 0


def test_watch_binds_its_folders_to_the_collection(
    capsys: pytest.CaptureFixture[str], folders: dict[str, Path]
) -> None:
    with Engine(load_settings(extract_in_subprocess=False), embedder=FakeEmbedder()) as eng:
        garden = eng.ensure_collection("Garden")
        eng.watch(folders["home"], garden.id)
        [status] = eng.watched()
        assert status.collection == "Garden"
        assert [c.folders for c in eng.collections() if c.name == "Garden"] == [
            (str(folders["home"]),)
        ]
    code, out, _ = run(capsys, "collections")
    assert f"watches {folders['home']}" in out
    # removing it stops the watch, and says so before and after (QA, session 27: it
    # stopped the watch of the renamed default collection without a word)
    code, _, err = run(capsys, "collection", "remove", "Garden")
    assert code == 2 and f"stop being watched: {folders['home']}." in err
    code, out, _ = run(capsys, "collection", "remove", "Garden", "--yes")
    assert code == 0 and f"stopped watching {folders['home']}" in out
    with Engine(load_settings(extract_in_subprocess=False), embedder=FakeEmbedder()) as eng:
        assert eng.watched() == []


@pytest.mark.parametrize("encoding", ["utf-8", "cp1252"])
def test_json_is_valid_whatever_the_names_and_the_console(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, encoding: str
) -> None:
    """A file name that is not UTF-8 came out as a raw byte, and a Windows console
    (cp1252) stopped mid-document on a collection named in Japanese (review)."""
    import io
    import os

    folder = tmp_path / "odd"
    folder.mkdir()
    odd = os.fsdecode(os.fsencode(folder) + b"/caf\xe9.txt")
    Path(odd).write_text("A note about the harbour lanterns.\n")
    with Engine(load_settings(extract_in_subprocess=False), embedder=FakeEmbedder()) as eng:
        eng.index([folder], collection=eng.ensure_collection("日本語 notes").id)

    def command(*argv: str) -> object:
        out = io.TextIOWrapper(io.BytesIO(), encoding=encoding, errors="surrogateescape")
        monkeypatch.setattr("sys.stdout", out)
        assert main(list(argv)) == 0
        out.flush()
        return json.loads(out.buffer.getvalue().decode(encoding))  # type: ignore[attr-defined]

    listed = command("collections", "--json")
    assert isinstance(listed, list) and "日本語 notes" in [c["name"] for c in listed]
    removed = command("collection", "remove", "日本語 notes", "--yes", "--json")
    assert isinstance(removed, dict) and odd in json.dumps(removed, ensure_ascii=False)


def test_status_counts_cancelled_documents_and_dump_says_why_it_cannot_write(
    capsys: pytest.CaptureFixture[str], folders: dict[str, Path], tmp_path: Path
) -> None:
    """status said "0 ready, 0 failed, 0 queued" of 5 cancelled documents, and dump -o to a
    folder that does not exist was a traceback (review)."""
    from docent.core.models import CANCELLED, DocState

    indexed(capsys, folders)
    with Engine(load_settings(extract_in_subprocess=False), embedder=FakeEmbedder()) as eng:
        rec = eng.resolve("both.txt")
        rec.state, rec.reason = DocState.QUEUED, CANCELLED
        eng.catalog.put(rec)
    code, out, _ = run(capsys, "status")
    assert code == 0
    assert "(2 ready, 0 failed, 0 queued, 0 indexing, 1 cancelled (`docent index` resumes" in out
    for target in (tmp_path / "missing" / "out.md", tmp_path):
        code, _, err = run(capsys, "dump", "work-notes.txt", "-o", str(target))
        assert code == 1 and err.startswith(f"docent: cannot write {target}: ")
        assert "Traceback" not in err


def test_a_command_that_fails_on_a_path_makes_no_collection_and_saves_no_folder(
    capsys: pytest.CaptureFixture[str], folders: dict[str, Path], tmp_path: Path
) -> None:
    """`watch good /typo --collection Projects` exited 1 yet saved `good` and made
    Projects; `index /missing --collection Other` made Other (review)."""
    code, _, err = run(
        capsys, "watch", str(folders["work"]), str(tmp_path / "typo"), "--collection", "Projects"
    )
    assert code == 1 and "typo is not a folder" in err
    assert load_settings().watched_folders == []
    code, _, _ = run(capsys, "index", str(tmp_path / "missing"), "--collection", "Other")
    assert code != 0
    code, out, _ = run(capsys, "collections", "--json")
    assert [c["name"] for c in json.loads(out)] == ["default"]


def test_a_resumed_document_is_counted_once() -> None:
    """A run resumed first (an older format, a crash), then the run asked for: each file was
    counted "indexed" by the one and "unchanged" by the other (review)."""
    from docent.core.index_report import FailedFile, IndexReport

    asked = IndexReport(unchanged=["/a", "/b", "/c", "/d"], indexed=["/e"])
    resumed = IndexReport(indexed=["/a"], renamed=[("/x", "/b")])
    resumed.failed.append(FailedFile("/c", "unreadable", "c cannot be read."))
    asked.merge(resumed)
    assert sorted(asked.indexed) == ["/a", "/e"] and asked.unchanged == ["/d"]
    assert asked.renamed == [("/x", "/b")] and [f.path for f in asked.failed] == ["/c"]
