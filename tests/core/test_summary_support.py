"""A model's summary is checked against the document: the sentences the document does not
clearly say are named (summary_support.py), with the real embedding model and a real
Engine over a text file made here, the model being the stand-in Ollama."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from docent import cli
from docent.core.config import Settings
from docent.core.engine import Engine
from docent.core.summarizing import retrieval_text
from docent.core.summary_support import claims, not_found_note, unsupported_sentences
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


@pytest.fixture
def stub(engine: Engine) -> Iterator[OllamaStub]:
    with OllamaStub(models=["stub-summary:latest"]) as server:
        engine.settings.ollama_host = server.url
        engine.settings.ollama_model = "stub-summary:latest"
        yield server


def replying(text: str) -> Any:
    return lambda messages, model: text


def test_invented_sentences_and_wrong_numbers_are_named_and_the_rest_is_not(
    engine: Engine, stub: OllamaStub
) -> None:
    stub.responder = replying(summary_of(FAITHFUL, INVENTED, ALSO_FAITHFUL, WRONG_NUMBER))
    result = engine.summarize(NAME, type="brief")
    assert result.mode == "generated" and not result.cached
    assert result.unsupported == [INVENTED, WRONG_NUMBER]
    # what the document is searched by leaves them out; the summary shown keeps them
    assert INVENTED in result.summary and WRONG_NUMBER in result.summary
    rec = engine.resolve(NAME)
    assert FAITHFUL in rec.summary and INVENTED not in rec.summary
    assert WRONG_NUMBER not in rec.summary and retrieval_text(result) == rec.summary
    # served from the cache, the check is not made again: it was kept with the summary
    requests = len(stub.bodies("/api/chat"))
    again = engine.summarize(NAME, type="brief")
    assert again.cached and again.unsupported == [INVENTED, WRONG_NUMBER]
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


def test_a_document_with_no_passages_in_the_library_is_not_checked(engine: Engine) -> None:
    found = unsupported_sentences(
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
    assert not_found_note(0) == ""
    assert not_found_note(1).startswith("1 sentence of this summary is not clearly found")
    assert "check it against it" in not_found_note(1)
    two = not_found_note(2, "underlined")
    assert two.startswith("2 sentences of this summary are not clearly found in the document")
    assert "(underlined)" in two and "check them" in two


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
    assert "1 sentence of this summary is not clearly found in the document (below)" in err
    assert f"not found: “{INVENTED}”" in err and FAITHFUL not in err
