"""Regression (51f2718, EngineCollections._release_folders): the folders' bindings are no
longer dropped when a collection is released, on the premise that ``delete_collection``
drops them once the removal job ran -- but ``delete_collection`` never touches the
default collection (it is emptied, it stays). After "Remove collection" on the default
collection its folders are no longer watched, yet stay bound to it for good:
`docent collections` still prints "watches <folder>" under it, the window's library
shows rows from it as the default collection's (library_pane._shows), and membership
rules (folder_collection) keep treating the folder as the default collection's watched
folder. Before the commit the binding went with the watch."""

from __future__ import annotations

from pathlib import Path

from docent.core.config import load_settings
from docent.core.engine import Engine
from docent.core.models import DEFAULT_COLLECTION
from fake_embedder import FakeEmbedder


def test_emptying_the_default_collection_forgets_its_folders(tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "a.txt").write_text("The alpha note: alpha alpha and nothing else.\n")
    with Engine(load_settings(extract_in_subprocess=False), embedder=FakeEmbedder()).open() as eng:
        eng.watch(lib)  # into the default collection
        eng.index([lib])
        assert eng.collection("default").folders == (str(lib),)
        eng.remove_collection(DEFAULT_COLLECTION)
        assert eng.settings.watched_folders == []
        assert eng.documents() == []
        default = next(c for c in eng.collections() if c.id == DEFAULT_COLLECTION)
        assert default.folders == (), default.folders  # still "watches <lib>"
