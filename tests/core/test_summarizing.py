"""Summaries on real documents indexed by a real Engine, against the stand-in Ollama."""

from __future__ import annotations

import itertools
import json
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from docent import cli
from docent.core.config import Settings
from docent.core.engine import Engine
from docent.core.errors import Cancelled
from docent.core.models import Page
from docent.core.sectioning import Section, pages_label, split_sections
from docent.core.summarizing import SummaryProgress, SummaryResult
from ollama_stub import OllamaStub

CTSS = "simh__ctss_hardware.pdf"  # 11 pages, ~340 words each
SHORT = "forensics-samples-files__a-text.pdf"  # 2 pages
WORDS = 400  # max_words_per_section: forces ~12 sections on CTSS
_models = itertools.count()

Messages = list[dict[str, Any]]


@pytest.fixture(scope="module")
def engine(samples_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    home = tmp_path_factory.mktemp("summary-home")
    settings = Settings(
        data_dir=str(home),
        extract_in_subprocess=False,
        max_words_per_section=WORDS,
        summary_timeout_per_call=20,
    )
    eng = Engine(settings).open()
    report = eng.index([samples_dir / CTSS, samples_dir / SHORT])
    assert not report.failed
    yield eng
    eng.close()


@pytest.fixture
def stub(engine: Engine) -> Iterator[OllamaStub]:
    """A stand-in Ollama with a model name new to the summary cache, wired into the engine."""
    model = f"stub-{next(_models)}:latest"
    with OllamaStub(models=[model]) as server:
        engine.settings.ollama_host = server.url
        engine.settings.ollama_model = model
        engine.settings.max_words_per_section = WORDS
        engine.settings.summary_timeout_per_call = 20
        engine.settings.summary_timeout_total = 600
        yield server


def ctss_sections(engine: Engine, words: int = WORDS) -> list[Section]:
    return split_sections(engine.extracted(engine.resolve(CTSS)).pages, words)


def user_prompts(stub: OllamaStub) -> list[str]:
    return [body["messages"][-1]["content"] for body in stub.bodies("/api/chat")]


def section_of(messages: Messages) -> int:
    """The section number a map prompt names, 0 for any other prompt."""
    found = re.search(r"\(section (\d+) of \d+\)", messages[-1]["content"])
    return int(found.group(1)) if found else 0


def normal(text: str) -> str:
    return " ".join(text.split())


# Sections -------------------------------------------------------------------------------


def test_sections_follow_pages_with_overlap() -> None:
    pages = [Page(n, " ".join(f"p{n}w{i}" for i in range(100))) for n in range(1, 8)]
    sections = split_sections(pages, 300, overlap_words=100)
    assert [s.pages for s in sections] == [(1, 3), (3, 5), (5, 7)]
    for prev, cur in itertools.pairwise(sections):
        assert cur.pieces[0] == prev.pieces[-1]  # the previous section's last page, whole
        assert cur.overlap_words == 100 and cur.carried == 1
    assert all(s.words <= 300 for s in sections)
    assert "[page 4]\np4w0 " in sections[1].text


def test_long_page_is_split_by_words_and_keeps_its_number() -> None:
    pages = [
        Page(1, "intro " * 50),
        Page(2, " ".join(f"w{i}" for i in range(1000))),
        Page(3, "end"),
    ]
    sections = split_sections(pages, 400)
    assert all(s.words <= 400 for s in sections)
    parts = [p for s in sections for p in s.pieces if p.page == 2 and p.parts > 1]
    assert {p.page for p in parts} == {2} and parts[0].part == 1
    assert "[page 2, part 1 of" in "".join(s.text for s in sections)
    covered = " ".join(p.text for s in sections for p in s.pieces if p.page == 2).split()
    assert set(covered) == {f"w{i}" for i in range(1000)}  # every word, some twice (overlap)
    assert sections[-1].pages[1] == 3


def test_a_document_that_fits_is_one_section_and_no_words_is_none() -> None:
    pages = [Page(1, "a b c"), Page(2, ""), Page(3, "d e")]
    (only,) = split_sections(pages, 100)
    assert only.pages == (1, 3) and only.words == 5 and only.overlap_words == 0
    assert split_sections([Page(1, "  \n ")], 100) == []


def test_sections_of_a_real_pdf_follow_its_pages(engine: Engine) -> None:
    doc = engine.extracted(engine.resolve(CTSS))
    sections = ctss_sections(engine)
    assert len(sections) > 3
    texts = {p.number: normal(p.text) for p in doc.pages}
    for s in sections:
        assert s.words <= WORDS
        assert s.pages == (s.pieces[0].page, s.pieces[-1].page)
        for piece in s.pieces:
            assert normal(piece.text) in texts[piece.page]
    for prev, cur in itertools.pairwise(sections):
        assert cur.overlap_words > 0
        assert cur.pieces[0].page == prev.pieces[-1].page
        assert normal(prev.pieces[-1].text).endswith(normal(cur.pieces[0].text))
    pages_seen = {p.page for s in sections for p in s.pieces}
    assert pages_seen == {p.number for p in doc.pages if p.text.split()}


# Map-reduce against the stub ------------------------------------------------------------


def test_one_map_call_per_section_then_synthesis_with_progress_in_order(
    engine: Engine, stub: OllamaStub
) -> None:
    stub.responder = lambda messages, model: f"Section {section_of(messages)} is about drums."
    events: list[SummaryProgress] = []
    result = engine.summarize(CTSS, type="bullets", progress=events.append)
    sections = ctss_sections(engine)
    n = len(sections)
    prompts = user_prompts(stub)
    assert len(prompts) == n + 1  # one map call per section, one synthesis
    for section, prompt in zip(sections, prompts, strict=False):
        assert f"Here are {pages_label(section.pages)} of the document" in prompt
        assert f"(section {section.index} of {n})" in prompt
        assert normal(section.pieces[-1].text) in normal(prompt)
    # the overlap: section 2's prompt repeats the end of section 1
    assert normal(sections[1].pieces[0].text) in normal(prompts[0])
    assert normal(sections[1].pieces[0].text) in normal(prompts[1])
    assert "Section 3 is about drums." in prompts[-1] and "Markdown bullets" in prompts[-1]
    phases = [(e.phase, e.step) for e in events]
    assert phases == [("section", i) for i in range(1, n + 1)] + [("synthesis", 1), ("done", 1)]
    assert all(e.total == n for e in events if e.phase == "section")
    assert result.mode == "generated" and not result.cached and not result.failed_sections
    assert result.sections_processed == n and result.pages == 11
    assert [s.section for s in result.section_summaries] == list(range(1, n + 1))
    assert result.section_summaries[1].summary == "Section 2 is about drums."
    assert result.section_summaries[1].pages == sections[1].pages
    assert result.total_words == sum(
        len(p.text.split()) for p in engine.extracted(engine.resolve(CTSS)).pages
    )
    body = stub.bodies("/api/chat")[0]
    assert body["model"] == engine.settings.ollama_model
    assert body["options"]["num_ctx"] == engine.settings.llm_context_tokens


def test_a_document_that_fits_gets_one_call(engine: Engine, stub: OllamaStub) -> None:
    engine.settings.max_words_per_section = 5000
    stub.responder = lambda messages, model: "A two-page text sample."
    result = engine.summarize(SHORT)
    (prompt,) = user_prompts(stub)
    assert "Here is the document" in prompt and "one paragraph" in prompt
    assert result.summary == "A two-page text sample."
    assert result.sections_processed == 1 and result.type == "brief"


def test_the_second_time_is_cached_with_no_requests(engine: Engine, stub: OllamaStub) -> None:
    first = engine.summarize(CTSS, type="detailed")
    calls = len(stub.bodies("/api/chat"))
    again = engine.summarize(CTSS, type="detailed")
    assert len(stub.bodies("/api/chat")) == calls
    assert again.cached and not first.cached
    assert again.summary == first.summary
    assert again.section_summaries == first.section_summaries
    engine.summarize(CTSS, type="bullets")  # another type is another summary
    assert len(stub.bodies("/api/chat")) > calls


def test_brief_summary_becomes_the_document_vector(engine: Engine, stub: OllamaStub) -> None:
    text = "Compatible Time-Sharing System hardware: drums, disks, the 7750 and its timers."
    stub.responder = lambda messages, model: text
    rec = engine.resolve(CTSS)
    result = engine.summarize(CTSS, type="brief")
    assert result.summary == text
    assert engine.store is not None
    payload = engine.store.get_document(rec.doc_id)
    assert payload is not None and payload["summary"] == text and payload["state"] == "ready"
    record = engine.document(rec.doc_id)
    assert record is not None and record.summary == text
    hits = engine.store.query_documents(engine.embedder.query_dense(text), limit=2)
    assert hits[0].payload["doc_id"] == rec.doc_id and hits[0].score > 0.99
    stub.responder = lambda messages, model: "A detailed summary is not the document's text."
    engine.summarize(CTSS, type="detailed")
    payload = engine.store.get_document(rec.doc_id)
    assert payload is not None and payload["summary"] == text


def test_cancel_between_calls_stops_further_calls(engine: Engine, stub: OllamaStub) -> None:
    cancel = threading.Event()

    def progress(p: SummaryProgress) -> None:
        if p.phase == "section" and p.step == 2:
            cancel.set()

    with pytest.raises(Cancelled):
        engine.summarize(CTSS, type="bullets", progress=progress, cancel=cancel)
    assert len(stub.bodies("/api/chat")) == 1


def test_cancel_during_a_call_hangs_up_at_once(engine: Engine, stub: OllamaStub) -> None:
    def responder(messages: Messages, model: str) -> str:
        stub.stall_after_tokens = 0 if section_of(messages) == 2 else None
        return "Fine."

    stub.responder = responder
    cancel = threading.Event()
    threading.Thread(target=lambda: stub.stalled.wait(10) and cancel.set(), daemon=True).start()
    start = time.monotonic()
    with pytest.raises(Cancelled):
        engine.summarize(CTSS, type="bullets", cancel=cancel)
    assert time.monotonic() - start < 10
    assert stub.client_disconnected.wait(5)
    time.sleep(0.2)
    assert len(stub.bodies("/api/chat")) == 2


def test_a_section_that_times_out_is_retried_once_then_reported(
    engine: Engine, stub: OllamaStub
) -> None:
    engine.settings.summary_timeout_per_call = 0.5
    stuck = 3

    def responder(messages: Messages, model: str) -> str:
        stub.stall_after_tokens = 0 if section_of(messages) == stuck else None
        return f"Section {section_of(messages)} summary."

    stub.responder = responder
    events: list[SummaryProgress] = []
    result = engine.summarize(CTSS, type="brief", progress=events.append)
    sections = ctss_sections(engine)
    (failed,) = result.failed_sections
    assert failed.section == stuck and failed.pages == sections[stuck - 1].pages
    assert "0.5 s" in failed.error and "summary_timeout_per_call" in failed.error
    assert [section_of(m) for m in (b["messages"] for b in stub.bodies("/api/chat"))].count(
        stuck
    ) == 2
    assert [e.phase for e in events].count("retry") == 1
    assert stuck not in [s.section for s in result.section_summaries]
    final = user_prompts(stub)[-1]
    lost = f"page {sections[stuck - 1].page_end}"  # its first page is the overlap
    assert f"There is no summary of {lost}" in final and "not covered" in final
    assert f"_Not covered: {lost} " in result.summary
    # a partial summary is not cached: the next request tries again
    calls = len(stub.bodies("/api/chat"))
    stub.responder = lambda messages, model: "All good now."
    again = engine.summarize(CTSS, type="brief")
    assert not again.cached and not again.failed_sections
    assert len(stub.bodies("/api/chat")) > calls


def test_a_failed_call_is_retried_and_can_succeed(engine: Engine, stub: OllamaStub) -> None:
    seen: list[int] = []

    def responder(messages: Messages, model: str) -> str:
        section = section_of(messages)
        stub.error_after_tokens = 1 if section == 2 and section not in seen else None
        seen.append(section)
        return "Some words here."

    stub.responder = responder
    events: list[SummaryProgress] = []
    result = engine.summarize(CTSS, type="bullets", progress=events.append)
    assert not result.failed_sections
    assert seen.count(2) == 2
    (retry,) = [e for e in events if e.phase == "retry"]
    assert retry.step == 2 and "retrying" in retry.message


def test_out_of_total_time_reports_what_was_not_reached(engine: Engine, stub: OllamaStub) -> None:
    engine.settings.summary_timeout_per_call = 1.0
    engine.settings.summary_timeout_total = 1.6

    def responder(messages: Messages, model: str) -> str:
        stub.stall_after_tokens = 0 if section_of(messages) == 2 else None
        return "Quick."

    stub.responder = responder
    result = engine.summarize(CTSS, type="bullets")
    n = len(ctss_sections(engine))
    failed = {f.section: f.error for f in result.failed_sections}
    assert set(failed) == {0, *range(2, n + 1)}  # 0: the synthesis
    assert "summary_timeout_total" in failed[2]
    assert all("ran out of time" in failed[i] for i in range(3, n + 1))
    assert [s.section for s in result.section_summaries] == [1]
    assert "Quick." in result.summary and "_Not covered:" in result.summary


def test_long_section_summaries_are_reduced_in_rounds(engine: Engine, stub: OllamaStub) -> None:
    def responder(messages: Messages, model: str) -> str:
        section = section_of(messages)
        if section:
            return " ".join(f"s{section}w{i}" for i in range(120))
        if "Combine them" in messages[-1]["content"]:
            return "A combined part: " + " ".join(f"c{i}" for i in range(30))  # no loop
        return "The final summary."

    stub.responder = responder
    events: list[SummaryProgress] = []
    result = engine.summarize(CTSS, type="detailed", progress=events.append)
    n = len(ctss_sections(engine))
    prompts = user_prompts(stub)
    combines = [p for p in prompts if "Combine them" in p]
    assert combines and len(prompts) == n + len(combines) + 1
    rounds = [e.round for e in events if e.phase == "synthesis"]
    assert rounds == sorted(rounds) and rounds[-1] >= 2
    final_input = prompts[-1].split("\n---\n")[1]
    assert len(final_input.split()) <= WORDS and "A combined part" in final_input
    for p in combines:
        assert len(p.split("\n---\n")[1].split()) <= WORDS + 1
    assert result.summary == "The final summary."


# No model: extractive -------------------------------------------------------------------


def test_no_ollama_gives_an_extractive_summary(engine: Engine, ollama_down_host: str) -> None:
    engine.settings.ollama_host = ollama_down_host
    engine.settings.max_words_per_section = WORDS
    events: list[SummaryProgress] = []
    result = engine.summarize(CTSS, type="bullets", progress=events.append)
    assert result.mode == "extractive" and not result.failed_sections
    assert result.model == engine.embedder.model_name
    assert result.summary.startswith("_Extractive summary: no language model was available")
    assert "ollama serve" in result.summary
    sections = ctss_sections(engine)
    assert [e.step for e in events if e.phase == "extractive"] == list(range(1, len(sections) + 1))
    pages = {p.number: normal(p.text) for p in engine.extracted(engine.resolve(CTSS)).pages}
    bullets = [b for b in result.summary.split("\n") if b.startswith("- ")]
    assert 3 <= len(bullets) <= 12
    numbers = []
    for bullet in bullets:
        found = re.fullmatch(r"- (.*) \(p\. (\d+)\)", bullet)
        assert found is not None, bullet
        sentence, page = found.groups()
        assert sentence in pages[int(page)]
        numbers.append(int(page))
    assert numbers == sorted(numbers)  # page order
    assert engine.summarize(CTSS, type="bullets").cached  # extractive results are cached too


def test_model_not_pulled_gives_an_extractive_summary(engine: Engine, stub: OllamaStub) -> None:
    result = engine.summarize(SHORT, type="detailed", model="not-pulled:7b")
    assert result.mode == "extractive" and "ollama pull not-pulled:7b" in result.summary
    assert "## Page" in result.summary


# Command line ---------------------------------------------------------------------------


def test_cli_summarize_json_with_progress_on_stderr(
    samples_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with OllamaStub() as server:
        monkeypatch.setenv("DOCENT_OLLAMA_HOST", server.url)
        monkeypatch.setenv("DOCENT_OLLAMA_MODEL", "stub-model:latest")
        monkeypatch.setenv("DOCENT_EXTRACT_IN_SUBPROCESS", "false")
        monkeypatch.setenv("DOCENT_MAX_WORDS_PER_SECTION", "1000")
        assert cli.main(["index", "-q", str(samples_dir / SHORT)]) == 0
        capsys.readouterr()
        assert cli.main(["summarize", "a-text", "--type", "bullets", "--json"]) == 0
        out, err = capsys.readouterr()
        data = json.loads(out)
        assert data["type"] == "bullets" and data["summary"] == "The stub model says hello."
        assert data["mode"] == "generated" and data["sections_processed"] == 1
        assert "section: summarising section 1 of 1" in err
        assert cli.main(["summarize", "a-text", "--type", "bullets"]) == 0
        out, err = capsys.readouterr()
        assert out.strip() == "The stub model says hello." and "cached" in err


def test_result_round_trips_through_json(engine: Engine, stub: OllamaStub) -> None:
    result = engine.summarize(SHORT, type="bullets")
    again = SummaryResult.from_json(result.to_json())
    assert again == result
    with pytest.raises(ValueError, match="brief, detailed, bullets"):
        engine.summarize(SHORT, type="haiku")
