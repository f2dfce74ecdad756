"""A model's summary is checked against the document: the sentences the document does not
clearly say are named (summary_support.py), with the real embedding model and a real
Engine over a text file made here, the model being the stand-in Ollama."""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from docent import cli
from docent.core import summary_support
from docent.core.config import Settings
from docent.core.engine import Engine
from docent.core.errors import Cancelled, StoreError
from docent.core.evaluation import words_of
from docent.core.models import DocState
from docent.core.summarizing import SummaryProgress, SummaryResult, retrieval_text, shown_text
from docent.core.summary_parts import as_bullets
from docent.core.summary_support import check_note, check_summary, claims, unwritten_names
from ollama_stub import OllamaStub

NAME = "harbour-light.txt"
#: Five paragraphs of a local history, each on its own subject, so the search can tell
#: them apart.
DOCUMENT = """\
The Harbour Light Society was founded in 1868 by fishermen of the port who wanted a light
on the northern breakwater. Its first keeper, Anne Polwarth, lit the lamp every evening for
thirty-one years and kept a log of every ship that passed the harbour mouth.

The lighthouse tower is built of local granite and stands nineteen metres tall. Its lens,
made in Paris, was fitted in 1902 and turns once every twelve seconds, driven by a clockwork
motor that the keeper wound by hand each night.

During the great storm of 1953 the breakwater was breached and the keeper's cottage flooded.
The society raised money from the town to rebuild the cottage, and the new building opened
to visitors as a small museum of the port's fishing fleet.

Today the society has about four hundred members. They meet on the first Monday of each
month in the museum, look after the tower and its lens, and guide school visits in summer.

The society's archive holds the keepers' logs, photographs of the fleet, and the letters of
Anne Polwarth, which were transcribed by volunteers and published as a book in 1998.

The archive's catalogue runs on an old computer donated by a member in 2009, with the
software of its day: Debian 6.0 • GCC 4.4 • Perl 5.10 • Python 2.6 and 3.1 • PostgreSQL
8.4 • Samba 3.5.6. Volunteers enter each photograph with its date, the boat, and the
names of the crew when a family can give them.
"""

FAITHFUL = (
    "The Harbour Light Society was founded in 1868 by fishermen who wanted a light on the "
    "northern breakwater."
)
ALSO_FAITHFUL = (
    "During the storm of 1953 the breakwater was breached and the keeper's cottage flooded."
)
INVENTED = "The society also breeds racing pigeons and sells them at auctions across Europe."
WRONG_NUMBER = "The lighthouse tower is built of local granite and stands 45 metres tall."
#: One word swapped for a name the document never writes (it says Paris).
WRONG_NAME = "The lens of the lighthouse was made in Lyon and fitted in 1902."


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    home = tmp_path_factory.mktemp("summary-support")
    doc = home / NAME
    doc.write_text(DOCUMENT, encoding="utf-8")
    settings = Settings(data_dir=str(home / "data"), extract_in_subprocess=False)
    eng = Engine(settings).open()  # the bundled embedding model
    report = eng.index([doc])
    assert not report.failed
    yield eng
    eng.close()


def summary_of(*sentences: str) -> str:
    return " ".join(sentences)


_models = itertools.count()


@pytest.fixture
def stub(engine: Engine) -> Iterator[OllamaStub]:
    """A stand-in Ollama with a model name new to the summary cache."""
    model = f"stub-{next(_models)}:latest"
    with OllamaStub(models=[model]) as server:
        engine.settings.ollama_host = server.url
        engine.settings.ollama_model = model
        yield server


def replying(text: str) -> Any:
    return lambda messages, model: text


def test_invented_sentences_and_wrong_numbers_are_named_and_the_rest_is_not(
    engine: Engine, stub: OllamaStub
) -> None:
    said = summary_of(FAITHFUL, INVENTED, ALSO_FAITHFUL, WRONG_NUMBER, WRONG_NAME)
    stub.responder = replying(said)
    result = engine.summarize(NAME, type="brief")
    assert result.mode == "generated" and not result.cached
    assert result.unsupported == [INVENTED, WRONG_NUMBER, WRONG_NAME]
    # what the document is searched by leaves them out; the summary shown keeps them
    assert INVENTED in result.summary and WRONG_NUMBER in result.summary
    rec = engine.resolve(NAME)
    assert FAITHFUL in rec.summary and INVENTED not in rec.summary
    assert WRONG_NUMBER not in rec.summary and retrieval_text(result) == rec.summary
    # served from the cache, the check is not made again: it was kept with the summary
    requests = len(stub.bodies("/api/chat"))
    again = engine.summarize(NAME, type="brief")
    assert again.cached and again.unsupported == [INVENTED, WRONG_NUMBER, WRONG_NAME]
    assert len(stub.bodies("/api/chat")) == requests


def test_a_summary_cached_before_the_check_is_checked_when_shown_again(
    engine: Engine, stub: OllamaStub
) -> None:
    stub.responder = replying(summary_of(FAITHFUL, INVENTED))
    made = engine.summarize(NAME, type="detailed")
    assert made.unsupported == [INVENTED]
    rec = engine.resolve(NAME)
    made.unsupported = None  # as an older Docent cached it
    engine._cat.put_summary(rec.sha256, "detailed", made.model, made.to_json())
    requests = len(stub.bodies("/api/chat"))
    shown = engine.summarize(NAME, type="detailed")
    assert shown.cached and shown.summary == made.summary
    assert shown.unsupported == [INVENTED]
    assert len(stub.bodies("/api/chat")) == requests  # no model call: only the check
    raw = engine._cat.get_summary(rec.sha256, "detailed", made.model)
    assert raw is not None and INVENTED in raw and '"unsupported": [' in raw


def test_an_extractive_summary_is_not_checked(engine: Engine, stub: OllamaStub) -> None:
    result = engine.summarize(NAME, type="bullets", extractive=True)
    assert result.mode == "extractive" and result.unsupported is None


def test_a_summary_with_no_sentence_to_judge_is_not_checked(engine: Engine) -> None:
    """Not "each sentence of this summary was found" (helper-60)."""
    found = unsupported(
        "## Harbour\n\n_Sections: 1 of 1._", engine.resolve(NAME).doc_id, DOCUMENT,
        engine._store, engine.embedder,
    )  # fmt: skip
    assert found is None


def test_a_document_with_no_passages_in_the_library_is_not_checked(engine: Engine) -> None:
    found = unsupported(
        summary_of(FAITHFUL, INVENTED), "no-such-doc", DOCUMENT, engine._store, engine.embedder
    )
    assert found is None  # not "every sentence is made up"


def test_notes_headings_and_a_list_opening_are_not_claims() -> None:
    summary = (
        "_Sections: 2 of 2 summarised by the model, 0 extracted._\n\n"
        "## Harbour history\n\n"
        "The document's key points are:\n"
        f"* {FAITHFUL}\n"
        f"**Pages 3–5.** {INVENTED}\n\n"
        "It is short.\n\n"
        "_Pages not covered: 6–7 (the model did not answer)._"
    )
    assert claims(summary) == [f"* {FAITHFUL}", INVENTED]  # (the window finds a bullet)


def test_the_note_agrees_with_the_count() -> None:
    assert check_note(None) == ""  # not checked: an extractive summary
    assert check_note([]).startswith("No sentence of this summary was flagged: each is close")
    one = check_note(["x"])
    assert one.startswith("1 sentence of this summary is not clearly supported by the document")
    assert one.endswith("so check it against the document.")
    two = check_note(["x", "y"], "underlined")
    assert two.startswith("2 sentences of this summary (underlined) are not clearly supported")
    assert two.endswith("so check them against the document.")


def test_numbers_the_document_spells_out_are_numbers_it_states(engine: Engine) -> None:
    """The document says "nineteen metres", "thirty-one years", "about four hundred
    members": a summary's "19 metres" was flagged as a number the document never states
    (helper-58). A number it does not state, in words or figures, still is."""
    rec = engine.resolve(NAME)
    said = [
        "The lighthouse tower is built of local granite and stands 19 metres tall.",
        "Anne Polwarth lit the lamp every evening for 31 years.",
        "Today the society has about 400 members who meet each month in the museum.",
    ]
    found = unsupported(
        summary_of(*said, WRONG_NUMBER), rec.doc_id, DOCUMENT, engine._store, engine.embedder
    )
    assert found == [WRONG_NUMBER]


def test_a_sentence_the_model_wrapped_is_one_claim_and_a_page_marker_none() -> None:
    """smollm2:135m's detailed summaries wrap lines mid-sentence and label parts with
    "[pages 17–20]": each half was judged alone, and the label too (session 28)."""
    summary = (
        "[pages 17–20]\nThe society raised money from the town to rebuild\n"
        "the cottage after the storm.\n- A list item stays\n  one item.\n[p. 3] The museum opened."
        " Then more."
    )
    assert claims(summary) == [
        "The society raised money from the town to rebuild the cottage after the storm.",
        "- A list item stays one item.",
        "[p. 3] The museum opened.",
    ]


def test_a_short_list_item_is_found_by_its_words(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "Python 2.6 and 3.1" is said word for word in a list of versions, but on a long
    document its vector was not near that chunk, which the rest of the list blurs
    (session 28, debian-history): the chunk that holds most of its words (BM25) is scored
    too. Here the vector search is made to miss it, as there."""
    rec = engine.resolve(NAME)
    store = engine._store
    search = store.query

    def vectors_miss(**kw: Any) -> list[Any]:
        hits = search(**kw)
        return [h for h in hits if "Python" not in h.payload["text"]] if kw.get("dense") else hits

    monkeypatch.setattr(store, "query", vectors_miss)
    item, wrong = "- Python 2.6 and 3.1", "- Python 2.7 and 3.4"

    def check() -> list[str] | None:
        return unsupported(f"{item}\n{wrong}", rec.doc_id, DOCUMENT, store, engine.embedder)

    assert check() == [wrong]
    monkeypatch.setattr(summary_support, "BY_WORDS", 0)
    assert check() == [item, wrong]


def test_what_a_summary_says_the_document_does_is_not_held_against_it(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "This document explores ... and discusses ...": the passages never say "document",
    "explores", "discusses", and those words counted against a sentence that was
    otherwise the document's (smollm2:135m's summary of a chapter on inference, flagged
    whole; session 28)."""
    rec = engine.resolve(NAME)
    framed = "This chapter describes the keepers and discusses various key topics of the harbour."

    def check() -> list[str] | None:
        return unsupported(framed, rec.doc_id, DOCUMENT, engine._store, engine.embedder)

    assert check() == []
    monkeypatch.setattr(summary_support, "_FRAMING", frozenset())
    assert check() == [framed]


def test_a_bullets_summary_written_as_a_paragraph_gets_its_bullets(
    engine: Engine, stub: OllamaStub
) -> None:
    """Asked for bullets, smollm2:135m wrote a paragraph in 4 of 4 runs (QA, session 28)."""
    stub.responder = replying(summary_of(FAITHFUL, ALSO_FAITHFUL))
    result = engine.summarize(NAME, type="bullets")
    body = result.summary.split("\n\n")[0]
    assert body == f"- {FAITHFUL}\n- {ALSO_FAITHFUL}"
    assert as_bullets("- One.\nTwo. Three.") == "- One.\nTwo. Three."  # a list: as it is
    # headings head bullets, and a line announcing the points is none (QA, session 30:
    # "- Here is the document's key points:", "- ## Tomatoes")
    written = "Here is the document's key points:\n## Tomatoes\nSun. Water.\n## Roses\nPrune."
    assert as_bullets(written) == "## Tomatoes\n- Sun.\n- Water.\n\n## Roses\n- Prune."
    assert as_bullets("Sure! Here's what it says:\nSun. Water.") == "- Sun.\n- Water."
    assert as_bullets("Here are the key points:") == "Here are the key points:"  # all it said
    # the prompt's "Here is the document ..." echoed, and a heading over nothing (QA 2, s30)
    echoed = 'Here is the document "m.html" (§ Pump).\n## Pump\nBolt it.\n## Wiring'
    assert as_bullets(echoed) == "## Pump\n- Bolt it."
    assert as_bullets("The document's key points are:\nSun.") == "- Sun."
    # the model's own numbered list keeps its numbers, not its announcement (QA, s31)
    numbered = "The document's key points are:\n1. Sun.\n2. Water."
    assert as_bullets(numbered) == "1. Sun.\n2. Water."
    # content beside a list is kept: a line after it, a heading of its own words (review)
    after = "1. Sun.\n2. Water.\nHere is the catch: the grant expires in June."
    assert as_bullets(after) == after
    headed = "The main points of disagreement were:\n- cost\n- timing"
    assert as_bullets(headed) == headed


def test_a_sentence_said_twice_is_one_claim() -> None:
    assert claims(summary_of(INVENTED, FAITHFUL, INVENTED)) == [INVENTED, FAITHFUL]


def test_what_the_document_is_searched_by_keeps_only_what_it_bears_out() -> None:
    """Cutting the flagged sentences out of the text missed a list item written with more
    spaces than the sentence split keeps, and left headings bare (helper-58)."""
    summary = (
        f"## Harbour history\n\n*   {INVENTED}\n*   {FAITHFUL}\n\n"
        f"**Pages 3–5.** {WRONG_NUMBER}\n\n_Sections: 2 of 2 summarised by the model._"
    )
    result = SummaryResult(
        summary=summary, type="brief", document=NAME, path=NAME, total_words=10, pages=1,
        sections_processed=2, section_summaries=[], model="m", seconds=0.0,
        unsupported=[f"* {INVENTED}", WRONG_NUMBER],
    )  # fmt: skip
    assert retrieval_text(result) == FAITHFUL


def test_a_check_that_fails_leaves_the_summary_unchecked(
    engine: Engine, stub: OllamaStub, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store or embedder error in the check must not cost the model's summary."""
    stub.responder = replying(summary_of(FAITHFUL, INVENTED, ALSO_FAITHFUL))

    def broken(*args: object, **kw: object) -> list[Any]:
        raise StoreError("the store went away")

    monkeypatch.setattr(engine._store, "query", broken)
    result = engine.summarize(NAME, type="bullets")
    assert result.mode == "generated" and INVENTED in result.summary
    assert result.unsupported is None  # unchecked, said as such: not "all supported"
    monkeypatch.undo()
    again = engine.summarize(NAME, type="bullets")  # checked when shown next
    assert again.cached and again.unsupported == [f"- {INVENTED}"]  # (a bullet each)


def test_stop_while_checking_stops(engine: Engine, stub: OllamaStub) -> None:
    stub.responder = replying(summary_of(ALSO_FAITHFUL, INVENTED))
    cancel = threading.Event()

    def on_progress(p: SummaryProgress) -> None:
        if p.phase == "checking":
            cancel.set()

    with pytest.raises(Cancelled):
        engine.summarize(NAME, type="detailed", progress=on_progress, cancel=cancel)


def test_a_document_indexed_again_is_not_checked_against_its_new_passages(
    engine: Engine, stub: OllamaStub, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its passages are replaced in place by the new text's: a check then would score the
    old summary against the new text and keep that with the old text's summary."""
    rec = engine.resolve(NAME)
    stub.responder = replying(summary_of(FAITHFUL, INVENTED))
    busy = replace(rec, state=DocState.INDEXING)
    monkeypatch.setattr(engine._cat, "get", lambda doc_id: busy)
    result = engine.summarize(NAME, type="brief")
    assert result.mode == "generated" and result.unsupported is None


def test_docent_summarize_lists_what_the_document_does_not_say(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = tmp_path / NAME
    doc.write_text(DOCUMENT, encoding="utf-8")
    with OllamaStub(responder=replying(summary_of(FAITHFUL, INVENTED))) as server:
        monkeypatch.setenv("DOCENT_OLLAMA_HOST", server.url)
        monkeypatch.setenv("DOCENT_OLLAMA_MODEL", "stub-model:latest")
        monkeypatch.setenv("DOCENT_EXTRACT_IN_SUBPROCESS", "false")
        assert cli.main(["index", "-q", str(doc)]) == 0
        capsys.readouterr()
        assert cli.main(["summarize", "-q", NAME]) == 0
        out, err = capsys.readouterr()
    assert INVENTED in out  # shown, never removed
    assert "1 sentence of this summary (below) is not clearly supported by the document" in err
    assert f"not clearly supported: “{INVENTED}”" in err and FAITHFUL not in err
    with OllamaStub(responder=replying(FAITHFUL)) as server:
        monkeypatch.setenv("DOCENT_OLLAMA_HOST", server.url)
        assert cli.main(["summarize", "-q", "--type", "bullets", NAME]) == 0
        _, err = capsys.readouterr()
    assert "No sentence of this summary was flagged: each is close to a passage" in err
    assert "1 summary section (1 by the model" in err and "1 model call;" in err  # not "1 sections"
    assert cli.main(["summarize", "-q", "--extractive", NAME]) == 0
    assert "found in the document" not in capsys.readouterr().err  # not checked


def test_names_the_document_never_writes_are_named() -> None:
    """smollm2:135m's history of Debian: "named after the green three-eyed aliens in the
    movie The Mandalorian" (the document says Toy Story) passed: every other word of it is
    the document's (session 29)."""
    words = set(words_of(DOCUMENT)) | set(words_of(NAME))
    said = [
        "It is named after the green three-eyed aliens in the movie The Mandalorian.",
        "Its first keeper, Anne Polwarth, lit the lamp; the lens came from Lyon.",
        "- The archive runs Debian 6.0 and PostgreSQL 8.4 on a GCC-built Perl.",
        "The Harbour Light Society (HLS) meets in the museum; so does the RNLI.",
        "Anne Polwarth's letters were published; the Harbour-Light log too.",
        "Lighthouse keepers: Anne Polwarth. Mandalorian: the first word of a sentence.",
        "The lens, made in Paris, was designed by Émile Perrin.",
        "The keeper said “Yes” (Fig. 3); Later the lamp was lit.",
    ]
    assert [unwritten_names(s, words) for s in said] == [
        ["Mandalorian"],
        ["Lyon"],
        [],
        ["RNLI"],  # initials of the words before it only
        [],
        [],  # a name opening a sentence or following a colon is not read as one
        ["Émile", "Perrin"],
        [],  # capitalised after an opening quotation mark, bracket or semicolon
    ]


def test_a_summary_in_a_language_that_capitalises_its_nouns_is_not_name_checked(
    tmp_path: Path, engine: Engine
) -> None:
    """German writes every noun with a capital: "Errichtung" for the text's "Bau" read as
    a name the document never writes (review, session 29). Only English summaries are."""
    doc = tmp_path / "bruecke.txt"
    doc.write_text(
        "Der Bericht beschreibt den Bau der Brücke über den Fluss. Die Gemeinde hat im Jahr "
        "1902 beschlossen, eine neue Brücke zu bauen, weil die alte Holzbrücke bei jedem "
        "Hochwasser beschädigt wurde. Der Ingenieur plante eine Steinbrücke mit drei Bögen.\n",
        encoding="utf-8",
    )
    assert not engine.index([doc]).failed
    rec = engine.resolve("bruecke.txt")
    text = doc.read_text(encoding="utf-8")
    said = "Der Bericht beschreibt den Bau der Brücke über den Fluss und die Errichtung."
    assert unwritten_names(said, set(words_of(text))) == ["Errichtung"]  # taken alone
    store, embedder = engine.store, engine.embedder
    assert store is not None
    found = unsupported(said, rec.doc_id, text, store, embedder, file_name=rec.file_name)
    assert found == []
    engine.remove("bruecke.txt")


HERON = """\
# Project Heron

## Team Alpha (hardware)

Team Alpha is led by Daniel Ferreira and builds the sensor hubs for the warehouses.
- Budget: EUR 184,500 for 2025.
- Hardware delivery deadline: 30 May 2025.

## Team Beta (software)

Team Beta is led by Priya Natarajan and writes the inventory sync service.
- Budget: EUR 96,000 for 2025.
- Go-live date: 15 September 2025.
- Headcount: 4 developers.
"""


def test_a_fact_moved_under_another_heading_is_named(tmp_path: Path) -> None:
    """QA, session 32: a bullets summary put Team Beta's go-live date under "## Team
    Alpha (hardware)", and said each sentence was found in the document."""
    doc = tmp_path / "project_plan.md"
    doc.write_text(HERON, encoding="utf-8")
    settings = Settings(data_dir=str(tmp_path / "data"), extract_in_subprocess=False)
    with Engine(settings).open() as eng:
        assert not eng.index([doc]).failed
        rec = eng.resolve(doc.name)
        assert eng.store is not None
        moved = "- Go-live date: 15 September 2025."
        summary = (
            "## Team Alpha (hardware)\n"
            f"{moved}\n- Budget: EUR 184,500 for 2025.\n\n"
            "## Team Beta (software)\n- Budget: EUR 96,000 for 2025.\n"
            "- Priya Natarajan's team did not write the inventory sync service."
        )
        found = unsupported(summary, rec.doc_id, HERON, eng.store, eng.embedder)
        assert found == [
            moved,
            "- Priya Natarajan's team did not write the inventory sync service.",
        ]


def unsupported(*args: Any, **kwargs: Any) -> list[str] | None:
    """The sentences ``check_summary`` finds unsupported; None when it judged nothing."""
    check = check_summary(*args, **kwargs)
    return None if check is None else check.unsupported


def harbour_pdf(path: Path) -> Path:
    """The history as a PDF, a paragraph a page (its lines wrapped at 90 characters)."""
    import textwrap

    from pdf_files import text_pdf

    text = DOCUMENT.replace("•", ",")  # (Latin-1 only)
    pages = [textwrap.wrap(" ".join(p.split()), 90) for p in text.split("\n\n")]
    path.write_bytes(text_pdf(pages))
    return path


def test_each_sentence_the_document_bears_out_is_shown_with_its_page(
    tmp_path: Path, engine: Engine, stub: OllamaStub
) -> None:
    """QA-79: a model's summary named no page at all, and a reader could not find where a
    sentence came from. Each sentence the check finds in the document is followed by the
    page of the passage that bears it out; one it does not find has none."""
    doc = harbour_pdf(tmp_path / "harbour.pdf")
    assert not engine.index([doc]).failed
    stub.responder = replying(summary_of(FAITHFUL, INVENTED, ALSO_FAITHFUL))
    result = engine.summarize("harbour.pdf", type="brief")
    assert result.mode == "generated" and result.unsupported == [INVENTED]
    assert result.places == {FAITHFUL: "p. 1", ALSO_FAITHFUL: "p. 3"}
    shown = shown_text(result)
    assert shown == (
        f"{FAITHFUL[:-1]} (p. 1). {INVENTED} {ALSO_FAITHFUL[:-1]} (p. 3)."
    )  # fmt: skip
    assert "(p." not in retrieval_text(result)  # what the document is searched by
    again = engine.summarize("harbour.pdf", type="brief")  # kept with the summary
    assert again.cached and again.places == result.places
    engine.remove("harbour.pdf")


def test_a_text_files_sentences_are_placed_by_their_lines(engine: Engine, stub: OllamaStub) -> None:
    stub.responder = replying(summary_of(FAITHFUL, ALSO_FAITHFUL))
    result = engine.summarize(NAME, type="brief")
    assert set(result.places) == {FAITHFUL, ALSO_FAITHFUL}
    assert all(p.startswith("line") for p in result.places.values()), result.places
    assert f"({result.places[FAITHFUL]})." in shown_text(result)


def test_a_summary_checked_before_places_were_kept_is_checked_again(
    engine: Engine, stub: OllamaStub
) -> None:
    stub.responder = replying(summary_of(ALSO_FAITHFUL, INVENTED))
    made = engine.summarize(NAME, type="brief")
    assert made.places and made.unsupported == [INVENTED]
    rec = engine.resolve(NAME)
    older = json.loads(made.to_json())
    del older["places"]  # as the Docent before cached it
    engine._cat.put_summary(rec.sha256, "brief", made.model, json.dumps(older))
    requests = len(stub.bodies("/api/chat"))
    shown = engine.summarize(NAME, type="brief")
    assert shown.cached and shown.places == made.places and shown.unsupported == [INVENTED]
    assert len(stub.bodies("/api/chat")) == requests  # the check again, not the model


def test_docent_summarize_prints_the_places(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = harbour_pdf(tmp_path / "harbour.pdf")
    with OllamaStub(responder=replying(summary_of(FAITHFUL, INVENTED))) as server:
        monkeypatch.setenv("DOCENT_HOME", str(tmp_path / "home"))
        monkeypatch.setenv("DOCENT_OLLAMA_HOST", server.url)
        monkeypatch.setenv("DOCENT_OLLAMA_MODEL", "stub-model:latest")
        monkeypatch.setenv("DOCENT_EXTRACT_IN_SUBPROCESS", "false")
        assert cli.main(["index", "-q", str(doc)]) == 0
        capsys.readouterr()
        assert cli.main(["summarize", "-q", "harbour.pdf"]) == 0
        out, _ = capsys.readouterr()
        assert out.strip() == f"{FAITHFUL[:-1]} (p. 1). {INVENTED}"
        assert cli.main(["summarize", "-q", "--json", "harbour.pdf"]) == 0
        data = json.loads(capsys.readouterr().out)
    assert data["summary"] == summary_of(FAITHFUL, INVENTED)
    assert data["places"] == {FAITHFUL: "p. 1"}


def test_a_summary_placed_again_keeps_its_verdict_when_the_check_fails(
    engine: Engine, stub: OllamaStub, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review 85: a summary cached before places were kept was reset to unchecked; when
    the check then failed, the sentences found unsupported went back into what the
    document is searched by."""
    stub.responder = replying(summary_of(ALSO_FAITHFUL, INVENTED))
    made = engine.summarize(NAME, type="detailed")
    assert made.unsupported == [INVENTED]
    rec = engine.resolve(NAME)
    older = json.loads(made.to_json())
    del older["places"], older["placed"]  # as the Docent before cached it
    engine._cat.put_summary(rec.sha256, "detailed", made.model, json.dumps(older))

    def broken(*args: object, **kw: object) -> list[Any]:
        raise StoreError("the store went away")

    monkeypatch.setattr(engine._store, "query", broken)
    shown = engine.summarize(NAME, type="detailed")
    assert shown.cached and shown.unsupported == [INVENTED] and not shown.placed
    assert INVENTED not in engine.resolve(NAME).summary
