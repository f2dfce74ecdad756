"""Review 85: the session's changes (891dd07..HEAD). Each test fails on the code as
reviewed and shows one problem a user would meet. Real components: the real Ollama
client over real HTTP (a stand-in of tests/ollama_stub.py that ends its stream without
Ollama's last message), the real conversation, citation, CLI-text and store modules."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from docent.core.citations import Citation
from docent.core.conversation import Answer, Conversation
from ollama_stub import OllamaStub, _Handler, _Server

# 1. "What is on page 2 of this document?" is no longer asked of the last answer's ----


def _answered(file_name: str) -> Conversation:
    conv = Conversation()
    cite = Citation(1, "c1", "d1", file_name, f"/docs/{file_name}", 4, 4, "The CTSS ...")
    answer = Answer("How much memory?", "It has 32K words [1].", "generated", citations=[cite])
    conv.add("How much memory did CTSS have?", "How much memory did CTSS have?", answer)
    return conv


@pytest.mark.parametrize(
    "question",
    [
        "What is on page 2 of this document?",
        "And page 2 of it?",
        "What does page 2 of the PDF say?",
        "What is on page 2 of the same document?",
    ],
)
def test_a_page_question_pointing_at_the_last_answers_document_is_asked_of_it(
    question: str,
) -> None:
    """answering.pages_asked_of now filters the cited documents by the name the question
    gives (lookup.named_files); a phrase that points back ("this document", "it", "the
    PDF", "the same document") names no file, so every cited document is dropped and []
    comes back: the question is searched across every PDF of the library with a page 2
    (Engine._paged), not the document just cited. Before the change it was asked of the
    cited one."""
    from docent.core.answering import pages_asked_of

    conv = _answered("simh__ctss_hardware.pdf")
    assert pages_asked_of(question, conv) == ["/docs/simh__ctss_hardware.pdf"]


# 2. A stream that ends before any word is said to be cut "mid-answer" ---------------


class _EmptyNoDoneHandler(_Handler):
    """HTTP 200, the NDJSON headers, then a clean end: no line at all (a proxy that
    closes at its own timeout before the model's first token)."""

    def _stream(self, model: str, key: str, tokens: Iterator[str]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
        self.close_connection = True


class _EmptyNoDoneStub(OllamaStub):
    def start(self) -> OllamaStub:
        self.stopping.clear()
        self._server = _Server(("127.0.0.1", 0), _EmptyNoDoneHandler)
        self._server.stub = self
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self


def test_a_stream_that_ends_before_any_word_is_not_said_cut_mid_answer() -> None:
    """llm.stream_chat sets ``got_first`` on any queue item, and ``_produce`` always puts
    ``echo.flush()`` ("" here) before ``_END``: a stream with no message at all reaches
    ``_END`` with got_first True and says CUT_MID_ANSWER, the very wording QA-80 #1 asked
    to change for a cut before the first word. (Likewise a thinking model's chunks with
    empty ``content``.)"""
    from docent.core.errors import LLMConnectionCut
    from docent.core.llm import OllamaClient

    with _EmptyNoDoneStub() as stub:
        client = OllamaClient(stub.url, "stub-model", 1.0, 5.0, 10.0)
        with pytest.raises(LLMConnectionCut) as info:
            list(client.stream_chat([{"role": "user", "content": "When?"}]))
    assert "mid-answer" not in str(info.value), str(info.value)
    assert str(info.value).startswith("The connection to Ollama was cut before it answered")


# 3. docent ask's unbold eats the ** of code ------------------------------------------


@pytest.mark.parametrize(
    "code",
    [
        "print(2**10 + 3**2)",
        "def run(*args, **kwargs): return call(**kwargs)",
    ],
)
def test_unbold_leaves_code_in_an_answer_as_written(code: str) -> None:
    """cli_text.unbold is applied to the whole answer text (cli.cmd_ask), code blocks
    included; its pattern takes "**10 + 3**" for bold, so `docent ask` prints
    ``print(210 + 32)``: a command or program that is not the one the model wrote."""
    from docent.cli_text import unbold

    text = f"**Generated.** Run this [1]:\n\n```python\n{code}\n```\n\nAnd `{code}` inline."
    out = unbold(text)
    assert out.startswith("Generated. Run this")
    assert out.count(code) == 2, out


# 4. unsourced_code flags a prompt sign, a comment, a language tag -----------------------

PASSAGES = [
    "To install it, run sudo apt install simh and then start pdp11 with the boot file.",
    "Set the console with set console telnet=2323 before you boot.",
]


@pytest.mark.parametrize(
    "block",
    [
        "```bash\n$ sudo apt install simh\n```",  # the shell's prompt sign
        "```bash\n# install the emulator\nsudo apt install simh\n```",  # a comment
        "```shell-session\nsudo apt install simh\n```",  # a language tag with a hyphen
    ],
)
def test_code_copied_from_a_passage_is_not_called_made_up(block: str) -> None:
    """citations.unsourced_code compares each code line whole with the passages: a "$ "
    the model puts before a command it copied, a comment line it adds, or a fence tag
    like ``shell-session`` (not an identifier) is "in none of its passages", and the
    notes say "the model may have made it up. Check it against your documents" of a
    command the document gives word for word."""
    from docent.core.citations import unsourced_code

    answer = f"Install it like this [1]:\n\n{block}\n"
    assert unsourced_code(answer, PASSAGES) == []


# 5. A follow-up whose first clause sets a context is taken for a new question ---------


@pytest.mark.parametrize(
    "question",
    [
        "Using Docker Compose v2, how do I configure it?",
        "With the RP04 drive attached, can it boot?",
    ],
)
def test_a_follow_up_opening_with_a_context_phrase_is_still_a_follow_up(question: str) -> None:
    """conversation._points_inside takes any name or identifier before a clause break as
    the subject a later "it" stands for. An opening phrase that only sets a context
    ("Using Docker Compose v2, ...", "With the RP04 drive attached, ...") names no
    subject for "it": the question asks about what was said before, but is_follow_up
    says False, so it is searched without the earlier turn's subject."""
    from docent.core.conversation import is_follow_up

    assert is_follow_up(question)


# 6. An open.json with bytes that are not UTF-8 is neither read nor set aside ----------


def test_a_conversations_file_that_is_not_utf8_is_set_aside(tmp_path: Path) -> None:
    """conversation_store.read catches ValueError only around json.loads; the
    UnicodeDecodeError of path.read_text escapes, so the window says "could not be read"
    and the file stays in place, where the first answer's save writes over it: the
    docstring's "it is never lost" does not hold."""
    from docent.core.conversation_store import path_in, read

    path = path_in(tmp_path)
    path.parent.mkdir(parents=True)
    good = json.dumps({"version": 1, "conversations": []}).encode()
    path.write_bytes(good[:-2] + b"\xff\xfe" + good[-2:])
    assert read(tmp_path) == []
    assert not path.exists() and path.with_name("open.json.unreadable").exists()
