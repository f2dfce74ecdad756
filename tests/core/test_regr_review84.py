"""Review 84: the answering and retrieval path. Each test fails on the code as reviewed
and shows one problem a user would meet. Real components: the real Answerer, the real
Ollama client over real HTTP (the stand-in server of tests/ollama_stub.py, or a small
server of its own where the stand-in cannot misbehave the way a test needs), the real
Engine with the hashing embedder where a library is needed."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from answer_script import INVENTION, MODEL, ScriptedModel

from docent.core.answering import Answerer
from docent.core.config import Settings
from docent.core.conversation import Conversation
from docent.core.llm import OllamaClient
from docent.core.models import Hit
from docent.core.retrieval import SearchResult
from ollama_stub import OllamaStub, _Handler, _Server

PUMP = (
    "The pump starts when the switch is on. The pump stops when the tank is full. "
    "The tank holds forty litres of water and is filled from the roof."
)
VALVE = "The relief valve opens at six bar and closes again at five bar."


def hit(n: int, text: str, page: int = 1, file_name: str = "manual.pdf") -> Hit:
    return Hit(f"c{n}", "d", file_name, f"/docs/{file_name}", page, page, n, 1.0 / n, text)


def answerer(url: str, tmp_path: Path, hits: Sequence[Hit]) -> Answerer:
    settings = Settings.model_validate(
        {"data_dir": str(tmp_path), "ollama_host": url, "ollama_model": MODEL}
    )
    llm = OllamaClient(url, MODEL, 1.0, 5.0, 10.0)

    def search(query: str, rewrites: Sequence[str], /, *, within: Sequence[str] = ()) -> Any:
        return SearchResult(query, list(hits), confidence="high")

    return Answerer(llm, settings, search)


# 1. A follow-up's rewrite request is sent with another context size than the answer's --


def test_a_follow_up_rewrite_is_asked_with_the_answers_context_size(
    ollama_stub: OllamaStub, tmp_path: Path
) -> None:
    """Every model request of one question carries ``num_ctx``, except the follow-up
    rewrite (answering._standalone: options {"temperature": 0, "num_predict": 64}).
    Ollama loads a model again when a request asks another context size than the one it
    runs with (llm_rerank.rerank passes the answer's num_ctx for exactly this reason), so
    with Ollama's default context (2048, or OLLAMA_CONTEXT_LENGTH) unlike
    llm_context_tokens (4096 by default) every follow-up reloads the model twice: once
    for the rewrite, once again for the answer."""
    model = ScriptedModel(rewrite="How does the pump stop when the tank is full?")
    ollama_stub.responder = model
    ask = answerer(ollama_stub.url, tmp_path, [hit(1, PUMP), hit(2, VALVE, page=2)])
    conv = Conversation()
    ask.answer("When does the pump stop?", conv)
    ask.answer("And how does it stop?", conv)
    assert "rewrite" in model.seen, "the follow-up was not rewritten"
    sizes = [body.get("options", {}).get("num_ctx") for body in ollama_stub.bodies("/api/chat")]
    assert sizes and all(s == 4096 for s in sizes), sizes  # before: [4096, None, 4096]


# 2. The follow-up rewrite is fed the invention the window and history hold back -------


def test_an_unsupported_answer_is_not_sent_to_the_follow_up_rewrite_as_said(
    ollama_stub: OllamaStub, tmp_path: Path
) -> None:
    """An answer no passage supports is left out of the history sent with the next
    answer (Conversation.history_messages: smollm2:135m repeated the invention), but
    conversation.rewrite_messages still sends it to the rewrite as what the assistant
    said, and parse_rewrite counts its words as said: a rewrite built on "the lunar rover"
    and "penguins" is accepted and searched in place of the person's question."""
    model = ScriptedModel(answer=INVENTION)
    ollama_stub.responder = model
    ask = answerer(ollama_stub.url, tmp_path, [hit(1, PUMP), hit(2, VALVE, page=2)])
    conv = Conversation()
    first = ask.answer("When does the pump stop?", conv)
    assert first.unsupported_answer
    model.answer = None
    model.rewrite = "How many penguins did the lunar rover carry to Jupiter?"
    second = ask.answer("And how many did it carry?", conv)
    sent = " ".join(m["content"] for m in model.seen["rewrite"][-1])
    assert "penguins" not in sent, sent
    assert "penguins" not in second.query, second.query


# 3. A stream that ends without Ollama's final message is taken for a whole answer -----


class _NoDoneHandler(_Handler):
    """Streams the reply's tokens and ends the HTTP response cleanly, without the final
    ``"done": true`` message Ollama always sends (a proxy closing at its own timeout, a
    server that went away between two chunks)."""

    def _stream(self, model: str, key: str, tokens: Iterator[str]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for token in tokens:
            data = (json.dumps(self._wrap(model, key, token, done=False)) + "\n").encode()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
        self.close_connection = True


class _NoDoneStub(OllamaStub):
    handler: type[_Handler] = _NoDoneHandler

    def start(self) -> OllamaStub:
        self.stopping.clear()
        self._server = _Server(("127.0.0.1", 0), self.handler)
        self._server.stub = self
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self


def test_a_stream_that_ends_without_its_final_message_is_an_incomplete_answer(
    tmp_path: Path,
) -> None:
    """llm.stream_chat returns normally when the response ends, whether or not Ollama's
    final message (``done``) came; the Answerer then treats "The pump stops when the tank
    is" as a whole answer: not partial, no "(Answer incomplete: ...)" line, confidence as
    for any answer. The stream-break policy (answering.py) is for exactly this."""
    words = "The pump stops when the tank is full [1]. The tank holds forty litres"
    with _NoDoneStub(responder=lambda messages, model: words) as stub:
        answer = answerer(stub.url, tmp_path, [hit(1, PUMP)]).answer("When does the pump stop?")
    assert answer.partial, answer.text
    assert "(Answer incomplete" in answer.text


class _CutLineHandler(_NoDoneHandler):
    """Streams the reply's first token, then half of the next line, and ends."""

    def _stream(self, model: str, key: str, tokens: Iterator[str]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        first = json.dumps(self._wrap(model, key, next(iter(tokens)), done=False)) + "\n"
        for data in (first.encode(), first[:20].encode()):
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
        self.close_connection = True


class _CutLineStub(_NoDoneStub):
    handler = _CutLineHandler


def test_a_line_cut_short_after_ollamas_own_is_a_cut_answer_not_another_server(
    tmp_path: Path,
) -> None:
    """(The mend of 4 below: a reply that is no JSON at all is another server; one whose
    line breaks off after Ollama's own lines is Ollama's, cut.)"""
    from docent.core.errors import LLMStreamError

    with _CutLineStub(responder=lambda messages, model: "The pump stops.") as stub:
        client = OllamaClient(stub.url, MODEL, 1.0, 5.0, 10.0)
        with pytest.raises(LLMStreamError, match="cut mid-answer"):
            list(client.stream_chat([{"role": "user", "content": "When?"}]))


# 4. A web page where Ollama should be: "cut mid-answer", "Ollama stopped or restarted" -


class _WebPage(BaseHTTPRequestHandler):
    """Any web server at the Ollama host's address: HTTP 200 and an HTML page."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _page(self) -> None:
        data = b"<!doctype html><html><body><h1>Welcome to nginx!</h1></body></html>\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._page()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._page()


@pytest.fixture
def web_page_host() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _WebPage)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


def test_a_web_page_at_the_ollama_host_is_not_called_a_cut_answer(
    web_page_host: str, tmp_path: Path
) -> None:
    """A JSON decode error is a ValueError, which llm._map_error reads as a connection cut
    mid-answer. So the health check (the banner, and Settings' Test button) says "The
    connection to Ollama was cut mid-answer: Ollama stopped or restarted. Check that it is
    running, then Retry." of a host where some other web server answers and no answer was
    ever asked for; the extractive answer says the same. The port-80 case already gets
    NotOllama ("What answers at ... is not Ollama")."""
    health = OllamaClient(web_page_host, MODEL, 1.0, 5.0, 10.0).health(2.0)
    assert not health.ok
    assert "mid-answer" not in health.message, health.message
    answer = answerer(web_page_host, tmp_path, [hit(1, PUMP)]).answer("When does the pump stop?")
    assert answer.mode == "extractive"
    assert "mid-answer" not in answer.reason, answer.reason


# 5. "What is on page 2 of <another document>?" after an answer: the cited one's page 2 -


def test_a_page_question_naming_another_document_is_not_asked_of_the_last_answers(
    answer_library: Any, ollama_stub: OllamaStub
) -> None:
    """answering.pages_asked_of takes a question about pages with nothing else asked to
    be about the documents the last answer cited, and checks only that the rest of the
    question has no words: the document the question names ("of the forensics text",
    PageRequest.document) is not looked at. So it is searched within the CTSS manual the
    last answer cited, Engine._paged finds no such name among those documents and falls
    back to their page 2: the answer quotes page 2 of the CTSS manual."""
    from answer_script import MEMORY_Q, point_at

    ollama_stub.responder = ScriptedModel()
    eng = point_at(answer_library, ollama_stub.url)
    conv = Conversation()
    first = eng.ask(MEMORY_Q, conversation=conv)
    assert {c.file_name for c in first.citations} == {"simh__ctss_hardware.pdf"}
    second = eng.ask("What is on page 2 of the forensics text?", conversation=conv)
    cited = {(c.file_name, c.page) for c in second.citations}
    assert cited and all(name.startswith("forensics") for name, _ in cited), cited
