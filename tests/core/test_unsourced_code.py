"""QA-80: a small model's answer ended with a command in no document ("sudo setup.local
-b libs/…"), shown with no warning: the sentence checks leave code out (code is no
claim). Code that no passage offered holds is now named in the answer's notes."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from answer_script import MODEL

from docent.core.answer_notes import notes
from docent.core.answering import Answerer
from docent.core.citations import unsourced_code
from docent.core.config import Settings
from docent.core.llm import OllamaClient
from docent.core.models import Hit
from docent.core.retrieval import SearchResult
from ollama_stub import OllamaStub

PASSAGE = (
    "The console interrupt character is Control-E by default. The command "
    "SET CONSOLE WRU=5 changes it to another character."
)
INVENTED = "sudo setup.local -b libs/libraries#dz1LKYDJZQ"


def test_code_no_passage_holds_is_listed_and_code_one_holds_is_not() -> None:
    text = (
        "Change it with the console command [1]:\n\n```bash\n"
        f"set console wru=5\n{INVENTED}\n```\n\nThen type `ls` or `SET CONSOLE WRU=5`."
    )
    assert unsourced_code(text, [PASSAGE]) == [INVENTED]  # case and spaces aside
    assert unsourced_code("No code here [1].", [PASSAGE]) == []


def test_an_answer_with_an_invented_command_says_so(
    ollama_stub: OllamaStub, tmp_path: Path
) -> None:
    hit = Hit("c1", "d", "simh.pdf", "/docs/simh.pdf", 11, 11, 1, 1.0, PASSAGE)

    def search(query: str, rewrites: Sequence[str], /, *, within: Sequence[str] = ()) -> Any:
        return SearchResult(query, [hit], confidence="high")

    ollama_stub.responder = lambda messages, model: (
        "The command SET CONSOLE WRU=5 changes the interrupt character [1].\n\n"
        f"```\n{INVENTED}\n```"
    )
    settings = Settings.model_validate(
        {"data_dir": str(tmp_path), "ollama_host": ollama_stub.url, "ollama_model": MODEL}
    )
    ask = Answerer(OllamaClient(ollama_stub.url, MODEL, 1.0, 5.0, 10.0), settings, search)
    answer = ask.answer("How do I change the interrupt character?")
    assert answer.mode == "generated" and answer.unsourced_code == [INVENTED]
    said = [n for n in notes(answer) if n.startswith("⚠ Code in this answer")]
    assert said and "sudo setup.local -b libs/libraries#dz1LKYDJZQ" in said[0]
    assert "Check it against your documents before you run it." in said[0]
    assert answer.as_dict()["unsourced_code"] == [INVENTED]
