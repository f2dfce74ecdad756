"""Summaries: bugs a review proved (each test failed before its fix). Uses the hashing
embedder and the stand-in Ollama."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from docent import cli
from docent.core.config import Settings
from docent.core.engine import Engine
from docent.core.index_events import JobFinished
from docent.core.models import Page
from docent.core.sectioning import split_sections
from docent.core.summary_budget import PROMPT_TOKENS, TOKENS_PER_WORD, reply_tokens, section_words
from docent.core.summary_parts import without_false_labels
from docent.core.summary_prompts import FINAL_WORDS, Prompts, instructions
from docent.core.summary_quality import rejection
from fake_embedder import FakeEmbedder
from ollama_stub import OllamaStub

MODEL = "stub-summ:latest"
Messages = list[dict[str, Any]]


@pytest.fixture
def eng(tmp_path: Path) -> Iterator[Engine]:
    settings = Settings(data_dir=str(tmp_path / "data"), extract_in_subprocess=False)
    e = Engine(settings, embedder=FakeEmbedder()).open()
    yield e
    e.close()


@pytest.fixture
def stub(eng: Engine) -> Iterator[OllamaStub]:
    with OllamaStub(models=[MODEL]) as server:
        eng.settings.ollama_host = server.url
        eng.settings.ollama_model = MODEL
        eng.settings.summary_timeout_per_call = 20
        server.responder = echo
        yield server


def text_of(messages: Messages) -> str:
    return messages[-1]["content"].split("---\n", 1)[1].split("\n---", 1)[0]


def echo(messages: Messages, model: str) -> str:
    """A reply made of the prompt's own words: it passes the quality gate."""
    plain = [w for w in re.sub(r"\[[^\]]*\]", " ", text_of(messages)).split() if w.isalpha()]
    return "This part is about " + " ".join(plain[:14]) + "."


def write_lines(folder: Path, name: str, lines: list[str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def keeper_lines(n: int) -> list[str]:
    return [
        f"Entry {i}: the keeper of lighthouse {i} wrote that the lamp burned all night long."
        for i in range(n)
    ]


# 1. Stale cached summary after a Re-index that changes the text (same file bytes) --------


def test_reindex_with_ocr_turned_on_still_serves_the_pre_ocr_summary(
    tmp_path: Path, ollama_down_host: str
) -> None:
    """A scanned PDF with a one-line text stamp: indexed with OCR off, its text is the
    stamp alone, and so is its summary. With OCR on and a Re-index, its text is the page;
    the summary asked for next is still the one of the stamp (cached by the file's
    sha256, which the Re-index did not change)."""
    from scan_files import page_image, save_scan_with_stamp

    lib = tmp_path / "lib"
    lib.mkdir()
    body = [
        "The harbour almanac lists the tides.",
        "Keepers light the lamps at dusk.",
        "Ships wait for the spring tide.",
    ]
    pdf = save_scan_with_stamp(lib / "almanac.pdf", page_image(body), "Scanned with CamScanner")
    data = str(tmp_path / "data")

    def settings(ocr: bool) -> Settings:
        return Settings(
            data_dir=data,
            extract_in_subprocess=False,
            ocr_enabled=ocr,
            ollama_host=ollama_down_host,
        )

    with Engine(settings(False), embedder=FakeEmbedder()).open() as eng:
        assert not eng.index([lib]).failed
        before = eng.summarize("almanac.pdf", type="brief")
        assert "almanac" not in before.summary.lower()  # only the stamp was readable
    with Engine(settings(True), embedder=FakeEmbedder()).open() as eng:
        done = threading.Event()
        eng.subscribe(lambda e: done.set() if isinstance(e, JobFinished) else None)
        eng.submit_index([str(pdf)], force=True)  # the user's Re-index
        assert done.wait(300) and eng.queue.wait_idle(300)
        rec = eng.resolve("almanac.pdf")
        assert "harbour almanac" in eng.extracted(rec).pages[0].text.lower()  # OCR'd now
        after = eng.summarize("almanac.pdf", type="brief")
        assert not after.cached, "the summary of the old text was served from the cache"
        assert "almanac" in after.summary.lower()


# 2. Page references of non-PDF documents --------------------------------------------------


def test_summary_of_a_text_file_cites_pages_that_the_file_does_not_have(
    eng: Engine, tmp_path: Path, ollama_down_host: str
) -> None:
    """Answers cite a text file by its lines ("lines 121-180"); its summary cites "p. 3",
    a page a .txt/.md file does not have (page N is Docent's internal block of 60 lines).
    Same for the model's prompt ("[page 3]" markers, "page references like (p. 12)")."""
    write_lines(tmp_path / "lib", "log.txt", keeper_lines(200))
    eng.index([tmp_path / "lib"])
    eng.settings.ollama_host = ollama_down_host
    result = eng.summarize("log.txt", type="bullets")
    bullets = [b for b in result.summary.splitlines() if b.startswith("- ")]
    assert bullets
    hit = eng.search("keeper of lighthouse 150").hits[0]
    assert hit.location.startswith("lines")  # how answers cite this file
    for bullet in bullets:
        assert not re.search(r"\(p\. \d+\)", bullet), f"cites a page of a text file: {bullet}"
        # each sentence by its own line, as a citation of it would ("Entry 41" is line 42)
        entry = re.match(r"- Entry (\d+):", bullet)
        assert entry is not None and bullet.endswith(f"(line {int(entry.group(1)) + 1})"), bullet


# 3. Documents of numbers only ------------------------------------------------------------


def numbers_csv(folder: Path) -> Path:
    rows = [",".join(str((i * 37 + j * 11) % 1000) for j in range(6)) for i in range(400)]
    return write_lines(folder, "readings.csv", rows)


def test_numbers_only_document_extractive_summary_has_no_content(
    eng: Engine, tmp_path: Path, ollama_down_host: str
) -> None:
    numbers_csv(tmp_path / "lib")
    assert not eng.index([tmp_path / "lib"]).failed
    eng.settings.ollama_host = ollama_down_host
    result = eng.summarize("readings.csv", type="brief")
    note, _, body = result.summary.partition("\n\n")
    assert note.startswith("_Extractive summary")
    assert body.strip(), "the summary is the note alone (and it is cached as such)"


def test_numbers_only_document_model_summary_is_always_rejected(
    eng: Engine, stub: OllamaStub, tmp_path: Path
) -> None:
    """A faithful summary of a table of numbers shares no 4+ letter word with it, so the
    gate rejects every reply and summarize raises."""
    numbers_csv(tmp_path / "lib")
    eng.index([tmp_path / "lib"])
    stub.responder = lambda messages, model: (
        "A table of 400 rows and six columns of numbers from 0 to 999, such as 37, 48 and 59."
    )
    result = eng.summarize("readings.csv", type="brief")  # raises LLMStreamError today
    assert result.mode == "generated" and "400 rows" in result.summary


# 4. Thai (no spaces between words): sections far past the model's context ----------------


def test_thai_sections_fit_the_model_context() -> None:
    settings = Settings()  # llm_context_tokens 4096
    sentence = "ภาษาไทยเป็นภาษาที่ไม่มีการเว้นวรรคระหว่างคำในประโยคเดียวกัน"
    pages = [Page(n, " ".join([sentence * 3] * 40)) for n in range(1, 60)]
    sections = split_sections(pages, section_words(settings))
    # A Thai character is at least a third of a token for any model's tokenizer.
    longest = max(len(s.text) for s in sections)
    assert longest / 3 <= settings.llm_context_tokens, f"a section of {longest} characters"


# 5. / 6. Reply budgets ---------------------------------------------------------------------


def test_detailed_summary_of_a_one_section_document_gets_the_full_reply_budget(
    eng: Engine, stub: OllamaStub, tmp_path: Path
) -> None:
    """A document that fits one section gets its final summary in one call, but with the
    map call's reply budget: 564 tokens for "at most 600 words" (the multi-section final
    call gets reply_tokens(600) = 1264). Ollama stops at num_predict: the summary ends
    mid-sentence."""
    write_lines(tmp_path / "lib", "short.txt", keeper_lines(45))
    eng.index([tmp_path / "lib"])
    summary_words = 560  # within the 600 asked for

    def responder(messages: Messages, model: str) -> str:
        budget = stub.bodies("/api/chat")[-1]["options"]["num_predict"]
        lines = [ln for ln in text_of(messages).splitlines() if ln.startswith("Entry")]
        words: list[str] = []  # the text's own sentences, whole, up to summary_words
        for line in lines:
            if len(words) + len(line.split()) > summary_words:
                break
            words += line.split()
        # 4 words to 5 tokens, a low rate for English with an LLM's tokenizer
        keep = min(len(words), budget * 4 // 5)
        stub.done_reason = "length" if keep < len(words) else "stop"
        return " ".join(words[:keep])

    stub.responder = responder
    result = eng.summarize("short.txt", type="detailed")
    (body,) = stub.bodies("/api/chat")
    assert result.summary.rstrip().endswith("long."), f"cut: ...{result.summary[-60:]!r}"
    assert body["options"]["num_predict"] >= reply_tokens(FINAL_WORDS["detailed"])


def test_final_detailed_call_fits_the_model_context(
    eng: Engine, stub: OllamaStub, tmp_path: Path
) -> None:
    """section_words() sizes every call for a 250-word reply (564 tokens); the detailed
    final call asks num_predict 1264 on an input of up to that many words. At 2048 tokens
    of context the prompt and reply need ~2750."""
    eng.settings.llm_context_tokens = 2048
    write_lines(tmp_path / "lib", "long.txt", keeper_lines(600))
    eng.index([tmp_path / "lib"])

    def responder(messages: Messages, model: str) -> str:
        asked = re.search(r"at most (\d+) words", messages[-1]["content"])
        n = int(asked.group(1)) if asked else 100
        plain = [w for w in text_of(messages).split() if w.isalpha()]
        return " ".join((plain * 50)[: n - 1]) + " end."

    stub.responder = responder
    eng.summarize("long.txt", type="detailed")
    ctx = eng.settings.llm_context_tokens
    for body in stub.bodies("/api/chat"):
        words = len(body["messages"][-1]["content"].split("\n---\n")[1].split())
        need = words * TOKENS_PER_WORD + PROMPT_TOKENS + body["options"]["num_predict"]
        kind = "final" if "(section " not in body["messages"][-1]["content"] else "map"
        assert need <= ctx + 40, f"{kind} call: {need:.0f} tokens for a {ctx}-token context"


# 7. Ollama lost part-way through the map -----------------------------------------------


def test_ollama_lost_mid_map_keeps_the_sections_the_model_wrote(
    eng: Engine, stub: OllamaStub, tmp_path: Path
) -> None:
    eng.settings.max_words_per_section = 200
    write_lines(tmp_path / "lib", "log.txt", keeper_lines(300))
    eng.index([tmp_path / "lib"])

    def progress(p: Any) -> None:
        if p.phase == "section_done" and p.step == 2:
            stub.stop()  # Ollama crashes (out of memory) after two sections

    result = eng.summarize("log.txt", type="bullets", progress=progress)
    assert len(stub.bodies("/api/chat")) == 2
    assert [s.source for s in result.section_summaries[:2]] == ["model", "model"], (
        "the two section summaries the model wrote were thrown away"
    )


# 8. CLI: a failed combining step is reported as the whole document not covered ----------


def test_cli_does_not_say_every_page_is_uncovered_when_only_combining_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_lines(tmp_path / "lib", "log.txt", keeper_lines(120))

    def responder(messages: Messages, model: str) -> str:
        if "(section " in messages[-1]["content"]:
            return echo(messages, model)
        return "Galleon treasure pirate lagoon parrot cutlass."  # refused by the gate

    with OllamaStub(models=[MODEL], responder=responder) as server:
        monkeypatch.setenv("DOCENT_OLLAMA_HOST", server.url)
        monkeypatch.setenv("DOCENT_OLLAMA_MODEL", MODEL)
        monkeypatch.setenv("DOCENT_EXTRACT_IN_SUBPROCESS", "false")
        monkeypatch.setenv("DOCENT_MAX_WORDS_PER_SECTION", "200")
        assert cli.main(["index", "-q", str(path)]) == 0
        capsys.readouterr()
        assert cli.main(["summarize", "log.txt", "-q"]) == 0
        out, err = capsys.readouterr()
    assert "Combining the section summaries failed" in out
    assert "This part is about" in out  # every section's summary is shown
    assert "not covered: pages 1-" not in err, err


# 9. Quality gate: a faithful opening counted as "said back the instructions" ------------


def test_a_summary_that_opens_with_its_page_range_is_not_an_echo() -> None:
    text = (
        "The harbour of town {n} has a lighthouse whose keeper logs every ship, storm "
        "and tide in the almanac. "
    )
    pages = [Page(n, text.format(n=n) * 5) for n in range(1, 13)]
    sections = split_sections(pages, 400)
    s = sections[1]
    messages = Prompts("Harbour Almanac.pdf", "brief").map(s, len(sections), 60)
    asked = instructions(messages)  # what the map call's gate compares a summary with
    lo, hi = s.pages
    summary = (
        f"Pages {lo}–{hi} of the document describe the harbours of towns {lo} to {hi}: each "
        f"has a lighthouse whose keeper logs ships, storms and tides in the almanac (p. {lo})."
    )
    assert rejection(summary, s.text, "Harbour Almanac.pdf", asked) == ""


def test_places_name_a_documents_pages_as_its_citations_do() -> None:
    """PDF pages, a text file's lines, a deck's slides: the markers the model reads, the
    references it is asked for and the section labels."""
    from docent.core.models import ExtractedDocument
    from docent.core.sectioning import Places

    pdf = Places.of(ExtractedDocument("a.pdf", "pdf", [Page(1, "x"), Page(2, "y")]))
    assert (pdf.one(2), pdf.span((1, 2)), pdf.marker(2), pdf.example) == (
        "p. 2",
        "pages 1–2",
        "page 2",
        "(p. 12)",
    )
    text_pages = [Page(1, "\n".join(["l"] * 60)), Page(2, "\n".join(["l"] * 15))]
    text = Places.of(ExtractedDocument("a.txt", "text", text_pages, page_unit="lines:60"))
    assert (text.one(2), text.span((1, 2)), text.marker(1)) == (
        "lines 61-75",
        "lines 1-75",
        "lines 1-60",
    )
    slides = [Page(n, f"slide {n} text", label=f"slide {n}") for n in (1, 2, 3)]
    deck = Places.of(ExtractedDocument("a.pptx", "pptx", slides, page_unit="slide"))
    assert (deck.one(3), deck.span((1, 3)), deck.marker(2)) == (
        "slide 3",
        "slide 1 to slide 3",
        "slide 2",
    )
    section = split_sections(text_pages, 400, places=text)[0]
    prompt = Prompts("a.txt", "bullets", text).single(section)[-1]["content"]
    assert "[lines 1-60]" in prompt and "[page " not in prompt
    assert "line references like (lines 12-20)" in prompt


# A file saved again after it was indexed ----------------------------------------------


def test_a_summary_of_a_file_saved_again_since_it_was_indexed_says_so(
    eng: Engine, stub: OllamaStub, tmp_path: Path
) -> None:
    """Its text is the cached one of the version indexed: the summary, fresh or cached,
    says the file changed since, until it is indexed again (helper-59's QA, session 28:
    the summary of the old text was served with no word)."""
    doc = write_lines(tmp_path / "docs", "keepers.txt", keeper_lines(8))
    assert not eng.index([doc]).failed
    first = eng.summarize("keepers.txt", type="brief")
    assert first.mode == "generated" and not first.file_changed
    doc.write_text(doc.read_text() + "A line added after indexing.\n", encoding="utf-8")
    cached = eng.summarize("keepers.txt", type="brief")
    assert cached.cached and cached.file_changed
    assert cached.summary == first.summary  # the indexed text's, as before
    fresh = eng.summarize("keepers.txt", type="detailed")
    assert not fresh.cached and fresh.file_changed
    assert "A line added" not in fresh.summary
    raw = eng._cat.get_summary(eng.resolve("keepers.txt").sha256, "detailed", MODEL)
    assert raw is not None and '"file_changed": false' in raw  # never cached as changed
    assert not eng.index([doc]).failed  # indexed again: the note goes
    again = eng.summarize("keepers.txt", type="detailed")
    assert not again.cached and not again.file_changed


def test_docent_summarize_says_the_file_was_saved_again_since_it_was_indexed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = write_lines(tmp_path / "lib", "keepers.txt", keeper_lines(8))
    with OllamaStub(models=[MODEL], responder=echo) as server:
        monkeypatch.setenv("DOCENT_OLLAMA_HOST", server.url)
        monkeypatch.setenv("DOCENT_OLLAMA_MODEL", MODEL)
        monkeypatch.setenv("DOCENT_EXTRACT_IN_SUBPROCESS", "false")
        assert cli.main(["index", "-q", str(doc)]) == 0
        assert cli.main(["summarize", "-q", "keepers.txt"]) == 0
        assert "saved again" not in capsys.readouterr().err
        doc.write_text(doc.read_text() + "A line added after indexing.\n", encoding="utf-8")
        assert cli.main(["summarize", "-q", "keepers.txt"]) == 0
        err = capsys.readouterr().err
        assert cli.main(["summarize", "-q", "--json", "keepers.txt"]) == 0
        out = capsys.readouterr().out
    said = "keepers.txt was saved again after it was indexed: this summary is of the version"
    assert said in err and "`docent index` indexes it again." in err
    assert '"file_changed": true' in out


# Place labels the model made up ------------------------------------------------------


def test_place_labels_past_the_last_page_or_heading_nothing_are_dropped() -> None:
    """smollm2:135m's summary of a 6-page PDF: "[pages 6–11]" over its text, then
    "[pages 12–15]" over nothing (session 29)."""
    said = (
        "[pages 1–3]\nThe siege began in May.\n\n[pages 6–11]\nThe town held out.\n\n"
        "[pages 12–15]\n\n[page 4]\n\n[lines 3–9]\nIt fell in July."
    )
    assert without_false_labels(said, 6) == (
        "[pages 1–3]\nThe siege began in May.\n\nThe town held out.\n\n[lines 3–9]\nIt fell in July."
    )
    assert without_false_labels("No label here.", 6) == "No label here."


def test_a_summary_keeps_no_label_the_model_made_up(
    eng: Engine, stub: OllamaStub, tmp_path: Path
) -> None:
    eng.settings.max_words_per_section = 200
    doc = write_lines(tmp_path / "docs", "keepers.txt", keeper_lines(60))

    def responder(messages: Messages, model: str) -> str:
        if "(section " in messages[-1]["content"]:
            return echo(messages, model)
        return (
            echo(messages, model).replace("This part", "[pages 90–99]\n\nThis part", 1)
            + "\n\n[pages 1–2]"
        )

    stub.responder = responder
    assert not eng.index([doc]).failed
    result = eng.summarize("keepers.txt", type="brief")
    assert result.mode == "generated" and result.sections_processed > 1
    assert "[pages 90–99]" not in result.summary and "[pages 1–2]" not in result.summary
    assert result.summary.startswith("This part is about")
