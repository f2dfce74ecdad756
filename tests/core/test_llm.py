"""OllamaClient against the stub: real HTTP, the real ``ollama`` client underneath."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from docent.core.config import Settings
from docent.core.errors import (
    Cancelled,
    LLMError,
    LLMStreamError,
    LLMTimeout,
    LLMUnavailable,
    ModelNotFound,
)
from docent.core.llm import OllamaClient
from ollama_stub import OllamaStub, blackhole_host

MODEL = "stub-model:latest"
QUESTION = [{"role": "user", "content": "What is in the manual?"}]


def make_client(host: str, *, first: float = 5.0, total: float = 10.0) -> OllamaClient:
    return OllamaClient(
        host, MODEL, connect_timeout=1.0, first_token_timeout=first, total_timeout=total
    )


def test_stream_yields_tokens_in_order(ollama_stub: OllamaStub) -> None:
    ollama_stub.responder = lambda messages, model: ["one", " two", "", " three"]
    tokens = list(make_client(ollama_stub.url).stream_chat(QUESTION))
    assert tokens == ["one", " two", " three"]
    (body,) = ollama_stub.bodies("/api/chat")
    assert body["messages"] == QUESTION
    assert body["model"] == MODEL
    assert body["stream"] is True


BEGUN = [*QUESTION, {"role": "assistant", "content": 'Passage [1] says: "'}]


@pytest.mark.parametrize(
    "sent",
    [
        ['Passage [1] says: "The', " pump", " stops."],  # llama.cpp: glued to the first token
        ["Passage", ' [1] says: "', "The pump", " stops."],  # ... or split
        ["The", " pump", " stops."],  # Ollama: only what follows
        ["Pass", "ing", " pump", " stops."],  # the model's words, though they begin alike
    ],
    ids=["glued", "split", "ollama", "alike"],
)
def test_a_begun_reply_is_streamed_without_its_echo(
    ollama_stub: OllamaStub, sent: list[str]
) -> None:
    ollama_stub.responder = lambda messages, model: sent
    text = "".join(make_client(ollama_stub.url).stream_chat(BEGUN))
    assert text == ("Passing pump stops." if sent[0] == "Pass" else "The pump stops.")
    (body,) = ollama_stub.bodies("/api/chat")
    assert body["messages"][-1] == BEGUN[-1]


def test_words_held_back_as_a_possible_echo_are_kept_when_the_stream_ends(
    ollama_stub: OllamaStub,
) -> None:
    ollama_stub.responder = lambda messages, model: ["Pass"]
    assert make_client(ollama_stub.url).chat(BEGUN) == "Pass"


def test_chat_joins_and_passes_model_and_options(ollama_stub: OllamaStub) -> None:
    ollama_stub.models.append("other:1b")
    ollama_stub.responder = lambda messages, model: f"{model} read: {messages[-1]['content']}"
    answer = make_client(ollama_stub.url).chat(
        QUESTION, model="other:1b", options={"temperature": 0}
    )
    assert answer == "other:1b read: What is in the manual?"
    (body,) = ollama_stub.bodies("/api/chat")
    assert body["options"]["temperature"] == 0


def test_from_settings() -> None:
    settings = Settings.model_validate(
        {"ollama_host": "http://127.0.0.1:9", "ollama_model": "m:1b", "llm_first_token_timeout": 7}
    )
    client = OllamaClient.from_settings(settings)
    assert (client.host, client.model, client.first_token_timeout) == (
        "http://127.0.0.1:9",
        "m:1b",
        7,
    )


def test_health_ok_lists_models(ollama_stub: OllamaStub) -> None:
    ollama_stub.models.append("nomic-embed-text:latest")
    client = make_client(ollama_stub.url)
    health = client.health()
    assert health.ok
    assert health.models == [MODEL, "nomic-embed-text:latest"]
    assert client.list_models() == health.models


def test_health_accepts_model_without_tag(ollama_stub: OllamaStub) -> None:
    client = OllamaClient(ollama_stub.url, "stub-model", 1.0, 5.0, 10.0)
    assert client.health().ok


def test_health_missing_model_says_pull(ollama_stub: OllamaStub) -> None:
    health = OllamaClient(ollama_stub.url, "llama3.2:3b", 1.0, 5.0, 10.0).health()
    assert not health.ok
    assert health.models == [MODEL]
    assert "ollama pull llama3.2:3b" in health.message


def test_health_down_is_quick(ollama_down_host: str) -> None:
    started = time.monotonic()
    health = make_client(ollama_down_host).health()
    assert time.monotonic() - started < 5  # proves it does not hang; not a benchmark
    assert not health.ok
    assert health.message == (
        f"Ollama is not running at {ollama_down_host} — start it with `ollama serve` "
        "(answers are extractive until then)."
    )


def test_a_password_in_the_ollama_url_is_never_shown(ollama_down_host: str) -> None:
    host = ollama_down_host.replace("http://", "http://me:hunter2@")
    client = make_client(host)
    health = client.health()
    assert not health.ok and "hunter2" not in health.message
    assert "me:***@127.0.0.1" in health.message
    with pytest.raises(LLMUnavailable) as err:
        client.chat(QUESTION)
    assert "hunter2" not in str(err.value)


def test_health_silent_host_is_bounded() -> None:
    with blackhole_host() as host:
        started = time.monotonic()
        health = make_client(host).health(timeout=0.5)
        assert time.monotonic() - started < 5
    assert not health.ok
    assert "did not answer" in health.message


def test_down_chat_and_stream_raise_unavailable(ollama_down_host: str) -> None:
    client = make_client(ollama_down_host)
    with pytest.raises(LLMUnavailable, match="ollama serve"):
        client.chat(QUESTION)
    with pytest.raises(LLMUnavailable, match="not running"):
        next(client.stream_chat(QUESTION))
    with pytest.raises(LLMUnavailable):
        client.list_models()


def test_unknown_model_raises_model_not_found(ollama_stub: OllamaStub) -> None:
    with pytest.raises(ModelNotFound, match=r"run `ollama pull llama3.2:3b`"):
        make_client(ollama_stub.url).chat(QUESTION, model="llama3.2:3b")


def test_error_line_mid_stream(ollama_stub: OllamaStub) -> None:
    ollama_stub.responder = lambda messages, model: ["a", "b", "c"]
    ollama_stub.error_after_tokens = 2
    received: list[str] = []
    with pytest.raises(LLMStreamError, match="runner crashed"):
        for token in make_client(ollama_stub.url).stream_chat(QUESTION):
            received.append(token)
    assert received == ["a", "b"]


def test_server_error_status_raises_llm_error(ollama_stub: OllamaStub) -> None:
    ollama_stub.fail_status = 500
    with pytest.raises(LLMError, match="HTTP 500.*runner crashed") as info:
        make_client(ollama_stub.url).chat(QUESTION)
    assert type(info.value) is LLMError


def test_stall_before_first_token_times_out(ollama_stub: OllamaStub) -> None:
    ollama_stub.stall_after_tokens = 0
    started = time.monotonic()
    with pytest.raises(LLMTimeout, match=r"0\.5 s \(first-token timeout"):
        next(make_client(ollama_stub.url, first=0.5, total=30).stream_chat(QUESTION))
    assert time.monotonic() - started < 5
    assert ollama_stub.client_disconnected.wait(5)  # the stub saw us hang up


def test_stall_mid_stream_hits_total_timeout(ollama_stub: OllamaStub) -> None:
    ollama_stub.responder = lambda messages, model: ["a", "b", "c"]
    ollama_stub.stall_after_tokens = 2
    received: list[str] = []
    with pytest.raises(LLMTimeout, match=r"0\.8 s \(total timeout"):
        for token in make_client(ollama_stub.url, first=30, total=0.8).stream_chat(QUESTION):
            received.append(token)
    assert received == ["a", "b"]
    assert ollama_stub.client_disconnected.wait(5)


def test_a_call_may_have_a_shorter_total_deadline_than_the_client(
    ollama_stub: OllamaStub,
) -> None:
    """The LLM rerank's reply (a few numbers) must not take the answer's whole time."""
    ollama_stub.responder = lambda messages, model: ["a", "b", "c"]
    ollama_stub.stall_after_tokens = 2
    client = make_client(ollama_stub.url, first=30, total=600)
    with pytest.raises(LLMTimeout, match=r"0\.8 s \(total timeout"):
        client.chat(QUESTION, total_timeout=0.8)
    assert ollama_stub.client_disconnected.wait(5)


def test_cancel_mid_stream(ollama_stub: OllamaStub) -> None:
    ollama_stub.responder = lambda messages, model: ["a", "b", "c"]
    ollama_stub.stall_after_tokens = 2
    cancel = threading.Event()
    stream = make_client(ollama_stub.url, first=30, total=60).stream_chat(QUESTION, cancel=cancel)
    assert [next(stream), next(stream)] == ["a", "b"]
    assert ollama_stub.stalled.wait(5)
    cancel.set()
    with pytest.raises(Cancelled):
        next(stream)
    assert ollama_stub.client_disconnected.wait(5)


def test_cancel_while_waiting_for_first_token(ollama_stub: OllamaStub) -> None:
    """The GUI's Stop during a model load: no headers yet, the reader is blocked."""
    ollama_stub.stall_after_tokens = 0
    cancel = threading.Event()

    def stop_when_stalled() -> None:
        if ollama_stub.stalled.wait(5):
            cancel.set()

    threading.Thread(target=stop_when_stalled, daemon=True).start()
    started = time.monotonic()
    with pytest.raises(Cancelled):
        next(make_client(ollama_stub.url, first=30, total=60).stream_chat(QUESTION, cancel=cancel))
    assert time.monotonic() - started < 5
    assert ollama_stub.client_disconnected.wait(5)


def test_closing_the_stream_early_hangs_up(ollama_stub: OllamaStub) -> None:
    ollama_stub.responder = lambda messages, model: ["a", "b"]
    ollama_stub.stall_after_tokens = 1
    stream = make_client(ollama_stub.url, first=30, total=60).stream_chat(QUESTION)
    assert next(stream) == "a"
    stream.close()
    assert ollama_stub.client_disconnected.wait(5)


def test_released_stall_completes(ollama_stub: OllamaStub) -> None:
    ollama_stub.responder = lambda messages, model: ["a", "b"]
    ollama_stub.stall_after_tokens = 1
    ollama_stub.release.set()
    assert make_client(ollama_stub.url).chat(QUESTION) == "ab"


def test_stub_stops_promptly_with_a_stalled_stream() -> None:
    stub = OllamaStub(stall_after_tokens=0).start()
    client = make_client(stub.url, first=30, total=60)
    errors: list[BaseException] = []

    def ask() -> None:
        try:
            client.chat(QUESTION)
        except LLMError as exc:
            errors.append(exc)

    asker = threading.Thread(target=ask, daemon=True)
    asker.start()
    assert stub.stalled.wait(5)
    started = time.monotonic()
    stub.stop()
    asker.join(5)
    assert time.monotonic() - started < 5
    assert not asker.is_alive()
    assert isinstance(errors[0], LLMStreamError)  # server hung up without an answer


def test_the_ollama_client_is_not_imported_until_a_model_is_used() -> None:
    # ollama and httpx cost ~0.5 s of CPU at import: the window must be up before that.
    probe = (
        "import sys, docent.core.engine, docent.core.api\n"
        "print(sorted(m for m in ('ollama', 'httpx') if m in sys.modules))\n"
        "from docent.core.llm import OllamaClient\n"
        "OllamaClient('http://127.0.0.1:9', 'm', 1.0, 1.0, 1.0)\n"
        "print(sorted(m for m in ('ollama', 'httpx') if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    ).stdout.split("\n")
    assert out[:2] == ["[]", "['httpx', 'ollama']"]


def test_a_connection_cut_mid_answer_is_said_in_plain_words(ollama_stub: OllamaStub) -> None:
    """QA, session 29: Ollama stopped mid-answer read "(peer closed connection without
    sending complete message body (incomplete chunked read))": the transport's words."""
    ollama_stub.responder = lambda messages, model: ["a", "b", "c"]
    ollama_stub.stall_after_tokens = 2
    ollama_stub.max_stall = 0.2  # then the stub drops the connection mid-stream
    received: list[str] = []
    with pytest.raises(LLMStreamError) as info:
        for token in make_client(ollama_stub.url, first=30, total=30).stream_chat(QUESTION):
            received.append(token)
    assert received == ["a", "b"]
    said = str(info.value)
    assert said.startswith("The connection to Ollama was cut mid-answer: Ollama stopped or")
    assert "ask again" in said and "chunked" not in said and "peer" not in said


def test_a_connection_cut_before_any_word_is_not_said_mid_answer(ollama_stub: OllamaStub) -> None:
    """QA-80: Ollama stopped before its first word: "cut mid-answer", and under it "Ollama
    is running: try again", while the banner said Ollama was not running."""
    from docent.core.prompting import extractive_text

    ollama_stub.responder = lambda messages, model: ["a", "b"]
    ollama_stub.stall_after_tokens = 0
    ollama_stub.max_stall = 0.2  # then the stub drops the connection, no word sent
    with pytest.raises(LLMStreamError) as info:
        list(make_client(ollama_stub.url, first=30, total=30).stream_chat(QUESTION))
    said = str(info.value)
    assert said.startswith("The connection to Ollama was cut before it answered: Ollama")
    text = extractive_text("q", [], said, "m", failure=info.value)
    assert "Ollama is running" not in text and said in text


def test_an_http_error_with_no_words_ends_its_sentence(ollama_stub: OllamaStub) -> None:
    ollama_stub.fail_status = 502
    ollama_stub.error_message = ""
    with pytest.raises(LLMError) as info:
        make_client(ollama_stub.url).chat(QUESTION)
    assert str(info.value) == "Ollama failed (HTTP 502)."
