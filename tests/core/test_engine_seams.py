"""The engine's seams: collaborators passed in, the one indexing queue and its events, the
one owner of settings, one turn per question. With a hashing embedder: milliseconds each."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from docent.core import config
from docent.core.answer_notes import conversation_markdown
from docent.core.config import Settings, load_settings
from docent.core.conversation import Conversation
from docent.core.engine import Engine
from docent.core.errors import SettingsError, UnknownFile
from docent.core.index_events import (
    DocumentChanged,
    DocumentProgressed,
    FilesFound,
    IndexEvent,
    JobFinished,
    JobKind,
    JobStarted,
)
from docent.core.llm import OllamaClient
from docent.core.store import open_store
from fake_embedder import FakeEmbedder, model_folder
from ollama_stub import OllamaStub


@pytest.fixture
def engine() -> Iterator[Engine]:
    eng = Engine(load_settings(extract_in_subprocess=False), embedder=FakeEmbedder()).open()
    yield eng
    eng.close()


@pytest.fixture
def lib(tmp_path: Path) -> Path:
    folder = tmp_path / "lib"
    (folder / "sub").mkdir(parents=True)
    (folder / "lamp.txt").write_text("The keeper lights the lamp at dusk and trims the wick.\n")
    (folder / "sub" / "bread.md").write_text("# Bread\n\nSourdough is fed with flour daily.\n")
    (folder / "slides.key").write_bytes(b"PK\x03\x04 not supported")
    return folder


class Events:
    def __init__(self, engine: Engine) -> None:
        self.events: list[IndexEvent] = []
        self.ended = threading.Event()
        engine.subscribe(self._on)

    def _on(self, event: IndexEvent) -> None:
        self.events.append(event)
        if isinstance(event, JobFinished):
            self.ended.set()


def test_a_submitted_folder_is_walked_and_followed_by_typed_events(
    engine: Engine, lib: Path
) -> None:
    seen = Events(engine)
    job = engine.submit_index([str(lib)])
    assert job is not None and job.kind is JobKind.INDEX
    assert seen.ended.wait(30)
    kinds = [type(e) for e in seen.events]
    assert kinds[0] is JobStarted and kinds[1] is FilesFound and kinds[-1] is JobFinished
    found = seen.events[1]
    assert isinstance(found, FilesFound)
    assert sorted(Path(f).name for f in found.files) == ["bread.md", "lamp.txt"]
    assert [Path(f).name for f in found.unsupported] == ["slides.key"]
    assert any(isinstance(e, DocumentProgressed) for e in seen.events)
    changed = [e for e in seen.events if isinstance(e, DocumentChanged)]
    assert sorted(e.record.file_name for e in changed if e.record) == ["bread.md", "lamp.txt"]
    assert all(e.record and e.record.state.value == "ready" for e in changed)
    assert all(e.job is job for e in seen.events)


def test_cancel_ends_every_queued_job_the_user_asked_for(engine: Engine, lib: Path) -> None:
    gate, running = threading.Event(), threading.Event()

    def hold(event: IndexEvent) -> None:
        if isinstance(event, DocumentProgressed):
            running.set()
            gate.wait(30)

    stop_holding = engine.subscribe(hold)
    seen = Events(engine)
    first = engine.submit_index([str(lib / "lamp.txt")])
    assert running.wait(30)
    second = engine.submit_index([str(lib / "sub")])
    assert first is not None and second is not None and second is not first
    engine.cancel_indexing()
    stop_holding()
    gate.set()
    assert engine.queue.wait_idle(30)
    ends = {e.job.id: e for e in seen.events if isinstance(e, JobFinished)}
    assert set(ends) == {first.id, second.id}, "a cancelled job never ended"
    assert ends[second.id].report.cancelled and ends[second.id].report.indexed == []
    assert not any(isinstance(e, JobStarted) and e.job is second for e in seen.events)


def test_the_command_line_path_runs_through_the_same_queue(engine: Engine, lib: Path) -> None:
    seen = Events(engine)
    report = engine.index([lib, lib / "missing.txt"])
    assert sorted(Path(p).name for p in report.indexed) == ["bread.md", "lamp.txt"]
    assert [f.reason for f in report.failed] == ["missing"]
    assert any(isinstance(e, JobFinished) for e in seen.events)
    rec = engine.remove("lamp.txt")
    assert rec.file_name == "lamp.txt"
    assert [r.file_name for r in engine.documents()] == ["bread.md"]


def test_a_store_and_an_llm_factory_can_be_passed_in(
    tmp_path: Path, ollama_stub: OllamaStub
) -> None:
    store = open_store(local_client_path=":memory:")
    made: list[Settings] = []

    def make_llm(settings: Settings) -> OllamaClient:
        made.append(settings)
        return OllamaClient.from_settings(settings)

    settings = load_settings(extract_in_subprocess=False, ollama_host=ollama_stub.url)
    with Engine(settings, embedder=FakeEmbedder(), store=store, llm=make_llm) as eng:
        assert eng.store is store
        note = tmp_path / "note.txt"
        note.write_text("A note about lighthouses and their keepers.\n")
        assert eng.index([note]).indexed == [str(note)]
        assert eng.search("lighthouse keepers").hits
        eng.llm_health(2.0)
        assert made and made[0].ollama_host == ollama_stub.url


def test_apply_settings_validates_saves_once_and_applies_what_is_live(
    engine: Engine, ollama_stub: OllamaStub, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    other = str(model_folder(tmp_path))
    writes: list[dict[str, object]] = []
    real = config.update_settings_file

    def counted(changes: dict[str, object], path: Path | None = None) -> Path:
        writes.append(dict(changes))
        return real(changes, path)

    monkeypatch.setattr("docent.core.live_settings.update_settings_file", counted)
    with pytest.raises(SettingsError, match="ollama_host"):
        engine.apply_settings({"ollama_host": "localhost 11434"})
    assert writes == [] and engine.settings.ollama_host == ""

    client = engine.llm
    applied = engine.apply_settings(
        {
            "ollama_host": ollama_stub.url,
            "summary_type": "bullets",
            "embedding_model": other,
        }
    )
    assert sorted(applied.changed) == ["embedding_model", "ollama_host", "summary_type"]
    assert applied.restart == ["embedding_model"]
    assert len(writes) == 1, "saved more than once"
    saved = load_settings()
    assert saved.embedding_model == other and saved.summary_type == "bullets"
    assert (
        engine.settings.summary_type == "bullets" and engine.settings.ollama_host == ollama_stub.url
    )
    assert engine.settings.embedding_model != other, "a restart key applied live"
    assert engine.llm is not client, "the Ollama client was not replaced"
    assert engine.llm_health(2.0).ok is False  # the stub has no llama3.2:3b, but it answers
    assert engine.apply_settings({"summary_type": "bullets"}).changed == []
    assert len(writes) == 1, "an unchanged save wrote the file"


def test_a_restart_change_undone_before_the_restart_is_saved(engine: Engine) -> None:
    """QA-79: OCR turned off (waits for a restart), then on again: weighed against the
    running value (on), the undo was no change, never saved, and the next start ran
    with OCR off. Changes are weighed against what is saved now."""
    assert engine.settings.ocr_enabled and engine.saved_settings.ocr_enabled
    off = engine.apply_settings({"ocr_enabled": False})
    assert off.changed == ["ocr_enabled"] and off.restart == ["ocr_enabled"]
    assert engine.settings.ocr_enabled, "a restart key applied live"
    assert not engine.saved_settings.ocr_enabled and not off.saved.ocr_enabled
    assert load_settings().ocr_enabled is False
    undone = engine.apply_settings({"ocr_enabled": True})
    assert undone.changed == ["ocr_enabled"]
    assert undone.restart == [], "nothing waits: the running value is the saved one again"
    assert load_settings().ocr_enabled is True and engine.saved_settings.ocr_enabled


def test_an_extraction_limit_applied_live_is_the_one_the_next_file_is_held_to(
    engine: Engine, tmp_path: Path
) -> None:
    """``apply_settings`` said ``max_text_file_mb`` (and the other extraction limits)
    applied live, not in ``restart``, but the indexer kept the limits it was opened with:
    a 2 MB text file was still read after the limit became 1 MB."""
    small, big = tmp_path / "small.txt", tmp_path / "big.txt"
    small.write_text("Llamas hum when they are content.\n")
    big.write_text("Llamas hum when they are content. " * 60_000)  # 2 MB
    assert engine.index([small]).indexed == [str(small)]  # its reader has the old limits
    applied = engine.apply_settings({"max_text_file_mb": 1, "extract_page_timeout": 5})
    assert sorted(applied.changed) == ["extract_page_timeout", "max_text_file_mb"]
    assert applied.restart == []
    assert (engine.indexer.limits.text_mb, engine.indexer.limits.page_seconds) == (1, 5.0)
    (failed,) = engine.index([big]).failed
    assert failed.reason == "too_large", failed


def test_watched_folders_are_checked_before_anything_is_saved(
    engine: Engine, lib: Path, tmp_path: Path
) -> None:
    with pytest.raises(SettingsError, match="watched_folders.*not a folder"):
        engine.apply_settings({"watched_folders": [str(tmp_path / "nowhere")]})
    with pytest.raises(SettingsError, match="already watched as part of"):
        engine.apply_settings({"watched_folders": [str(lib), str(lib / "sub")]})
    assert load_settings().watched_folders == []
    applied = engine.apply_settings({"watched_folders": [str(lib / ".." / "lib")]})
    assert applied.changed == ["watched_folders"] and engine.settings.watched_folders == [str(lib)]


def test_a_parent_folder_replaces_its_watched_sub_folder_whichever_way_it_is_added(
    engine: Engine, lib: Path
) -> None:
    """The settings dialog and `docent watch` add a folder the same way: a watched
    sub-folder is replaced by its parent (the dialog kept both: two observers, two
    sweeps of every file in it)."""
    (lib / "sub").mkdir(exist_ok=True)
    sub = str(lib / "sub")
    for order in ([sub, str(lib)], [str(lib), sub]):
        engine.apply_settings({"watched_folders": [sub]})
        engine.apply_settings({"watched_folders": order})
        assert engine.settings.watched_folders == [str(lib)], order
        assert load_settings().watched_folders == [str(lib)]
        engine.apply_settings({"watched_folders": []})
    engine.apply_settings({"watched_folders": [sub]})
    engine.watch(lib)
    assert engine.settings.watched_folders == [str(lib)] == load_settings().watched_folders
    with pytest.raises(SettingsError, match="already watched as part of"):
        engine.apply_settings({"watched_folders": [str(lib), str(lib / "sub" / "..")] + [sub]})


def test_every_question_becomes_one_turn(engine: Engine, ollama_down_host: str) -> None:
    engine.settings = engine.settings.model_copy(update={"ollama_host": ollama_down_host})
    conv = Conversation()
    with pytest.raises(UnknownFile):
        engine.ask("What is in the report?", conversation=conv, files=["report.pdf"])
    [failed] = conv.turns
    assert failed.number == 1 and failed.answer is None and "report.pdf" in failed.error
    assert conv.last is None and conv.history_messages() == []
    exported = conversation_markdown(conv)
    assert "Could not answer: No indexed document matches 'report.pdf'" in exported


def test_a_search_names_each_hit_and_the_version_it_is_of(engine: Engine, tmp_path: Path) -> None:
    """Each hit carries its file's name against the library's others of that name, and
    its document's content hash: a citation of it knows when the file was indexed again
    since (QA-77), and names "keeper/lamp.txt" though the other lamp.txt is not cited."""
    from docent.core.citations import citation_for, cited_older

    for folder, text in (("keeper", "The keeper lights the lamp at dusk."), ("shop", "Oil.")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "lamp.txt").write_text(f"{text}\n")
    engine.index([tmp_path / "keeper", tmp_path / "shop"])
    hit = engine.search("When does the keeper light the lamp?", k=1).hits[0]
    rec = engine.resolve(hit.path)
    assert hit.name == "keeper/lamp.txt" and hit.sha256 == rec.sha256
    cite = citation_for(1, hit)
    assert cite.name == "keeper/lamp.txt" and not cited_older(cite, rec)
    Path(hit.path).write_text("The keeper now lights the lamp at nine.\n")
    engine.index([hit.path])
    assert cited_older(cite, engine.resolve(hit.path))
