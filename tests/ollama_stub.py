"""A stand-in Ollama server for tests: real HTTP on 127.0.0.1, spoken to by the real client.

Speaks enough of Ollama's API for the official ``ollama`` package: ``GET /``,
``/api/version``, ``/api/tags``; ``POST /api/show``, ``/api/chat`` and ``/api/generate``
(streaming NDJSON or one JSON object), ``/api/embed``. Wire shapes follow
``/work/shared/llm-rig/ollama_shim.py``.

Scripting (attributes may be changed while the stub runs; each request reads them anew):

- ``responder(messages, model)`` returns the reply text (split into word tokens) or an
  iterable of token chunks, which may be endless (a model stuck in a loop: it streams
  until the client hangs up);
- ``error_after_tokens=N``: stream N tokens, then an ``{"error": ...}`` line;
- ``stall_after_tokens=N``: stream N tokens, then hang until ``release`` is set, the stub
  stops, the client hangs up, or ``max_stall`` seconds pass. With N=0 nothing is sent,
  not even the headers (like Ollama loading a model);
- ``fail_status=500``: chat/generate/embed/show answer that status with ``{"error": ...}``;
- an unknown model gets 404 ``{"error": "model 'x' not found"}``.

``requests`` logs every request (method, path, JSON body). ``stalled`` is set when a
stream starts hanging; ``client_disconnected`` when a client hangs up mid-response (the
stream then stops, as Ollama stops generating).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import select
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Responder = Callable[[list[dict[str, Any]], str], str | Iterable[str]]


def default_responder(messages: list[dict[str, Any]], model: str) -> str:
    return "The stub model says hello."


def split_tokens(text: str) -> list[str]:
    """Word-sized chunks that join back to ``text``."""
    return re.findall(r"\s*\S+\s*", text) or [text]


@dataclass(frozen=True)
class StubRequest:
    method: str
    path: str
    body: dict[str, Any]


def unused_port() -> int:
    """A port on 127.0.0.1 with nothing listening (bound, read, closed)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def blackhole_host() -> Iterator[str]:
    """A host that accepts TCP connections (kernel backlog) but never answers."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        s.listen(16)
        yield f"http://127.0.0.1:{s.getsockname()[1]}"


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _fake_embedding(text: str, dim: int) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest()
    raw = [(digest[i % len(digest)] - 127.5) / 127.5 for i in range(dim)]
    norm = sum(v * v for v in raw) ** 0.5 or 1.0
    return [v / norm for v in raw]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    stub: OllamaStub

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.connections: set[Any] = set()
        self._open_lock = threading.Lock()

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._open_lock:
            self.connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._open_lock:
            self.connections.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        """End every open connection, as a server going away does: a kept-alive one went on
        answering health checks long after the stop."""
        with self._open_lock:
            for sock in list(self.connections):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients that hang up mid-stream (cancel, timeout tests) are expected here.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 10  # idle keep-alive connections end on their own
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    @property
    def stub(self) -> OllamaStub:
        return self.server.stub

    # Plumbing ---------------------------------------------------------------

    def _send_json(self, obj: Any, code: int = 200) -> None:
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _read_body(self) -> dict[str, Any]:
        n = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(n) or b"{}")
        return body if isinstance(body, dict) else {"_": body}

    def _known(self, model: str) -> bool:
        models = self.stub.models
        return model in models or f"{model}:latest" in models

    def _stall(self) -> bool:
        """Hang (bounded). True: released, go on. False: give up on this response."""
        stub = self.stub
        stub.stalled.set()
        deadline = time.monotonic() + stub.max_stall
        while time.monotonic() < deadline and not stub.stopping.is_set():
            if stub.release.is_set():
                return True
            readable, _, _ = select.select([self.connection], [], [], 0.02)
            if readable:
                try:
                    peek = self.connection.recv(1, socket.MSG_PEEK)
                except OSError:
                    peek = b""
                if not peek:
                    stub.client_disconnected.set()
                    return False
                stub.stopping.wait(0.02)  # pipelined bytes: not a hang-up
        return False

    # Endpoints --------------------------------------------------------------

    def do_GET(self) -> None:
        self.stub._log("GET", self.path, {})
        if self.path == "/":
            data = b"Ollama is running"
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        elif self.path == "/api/version":
            self._send_json({"version": "0.0.0-stub"})
        elif self.path == "/api/tags":
            self._send_json({"models": [self._model_entry(m) for m in self.stub.models]})
        else:
            self._send_json({"error": "not found"}, 404)

    def do_POST(self) -> None:
        body = self._read_body()
        self.stub._log("POST", self.path, body)
        handlers = {
            "/api/show": self._show,
            "/api/chat": self._chat,
            "/api/generate": self._generate,
            "/api/embed": self._embed,
        }
        handler = handlers.get(self.path)
        if handler is None:
            self._send_json({"error": "not found"}, 404)
            return
        model = str(body.get("model") or body.get("name") or "")
        if self.stub.fail_status is not None:
            self._send_json({"error": self.stub.error_message}, self.stub.fail_status)
        elif not self._known(model):
            self._send_json({"error": f"model '{model}' not found"}, 404)
        else:
            handler(body, model)

    def _model_entry(self, name: str) -> dict[str, Any]:
        details = {"format": "gguf", "family": "stub", "parameter_size": "1M"}
        return {
            "name": name,
            "model": name,
            "modified_at": _now(),
            "size": 1000,
            "digest": "0" * 64,
            "details": details,
        }

    def _show(self, body: dict[str, Any], model: str) -> None:
        self._send_json(
            {
                "modelfile": "",
                "parameters": "",
                "template": "",
                "details": {"format": "gguf", "family": "stub"},
                "model_info": {"general.architecture": "stub"},
                "capabilities": ["completion", "embedding"],
                "modified_at": _now(),
            }
        )

    def _chat(self, body: dict[str, Any], model: str) -> None:
        self._answer(body, model, list(body.get("messages") or []), key="message")

    def _generate(self, body: dict[str, Any], model: str) -> None:
        if not body.get("prompt"):  # Ollama: an empty prompt just loads the model
            self._send_json(
                {
                    "model": model,
                    "created_at": _now(),
                    "response": "",
                    "done": True,
                    "done_reason": "load",
                }
            )
            return
        system = [{"role": "system", "content": body["system"]}] if body.get("system") else []
        self._answer(
            body, model, [*system, {"role": "user", "content": body["prompt"]}], key="response"
        )

    def _embed(self, body: dict[str, Any], model: str) -> None:
        texts = body.get("input") or []
        texts = texts if isinstance(texts, list) else [texts]
        embs = [_fake_embedding(str(t), self.stub.embedding_dim) for t in texts]
        self._send_json(
            {
                "model": model,
                "embeddings": embs,
                "total_duration": 1,
                "load_duration": 0,
                "prompt_eval_count": len(texts),
            }
        )

    # Answers ----------------------------------------------------------------

    def _wrap(self, model: str, key: str, text: str, **extra: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"model": model, "created_at": _now()}
        out[key] = {"role": "assistant", "content": text} if key == "message" else text
        out.update(extra)
        return out

    def _answer(
        self, body: dict[str, Any], model: str, messages: list[dict[str, Any]], key: str
    ) -> None:
        reply = self.stub.responder(messages, model)
        chunks = split_tokens(reply) if isinstance(reply, str) else reply
        if body.get("stream", True):
            self._stream(model, key, iter(chunks))
            return
        tokens = list(chunks)
        if self.stub.stall_after_tokens is not None and not self._stall():
            self.close_connection = True
            return
        if self.stub.error_after_tokens is not None:
            self._send_json({"error": self.stub.error_message}, 500)
            return
        done = {"done": True, "done_reason": "stop", "total_duration": 1, "eval_count": len(tokens)}
        self._send_json(self._wrap(model, key, "".join(tokens), **done))

    def _stream(self, model: str, key: str, tokens: Iterator[str]) -> None:
        stub = self.stub
        started = False

        def emit(obj: dict[str, Any]) -> None:
            nonlocal started
            if not started:  # like Go: headers go out with the first chunk
                self.send_response(200)
                self.send_header("Content-Type", "application/x-ndjson")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                started = True
            data = (json.dumps(obj) + "\n").encode()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

        sent = 0
        try:
            while True:
                if stub.stall_after_tokens == sent and not self._stall():
                    self.close_connection = True
                    return
                if stub.error_after_tokens == sent:
                    emit({"error": stub.error_message})
                    break
                token = next(tokens, None)
                if token is None:
                    done = {"done": True, "done_reason": stub.done_reason, "eval_count": sent}
                    emit(self._wrap(model, key, "", **done))
                    break
                emit(self._wrap(model, key, token, done=False))
                sent += 1
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            stub.client_disconnected.set()
            self.close_connection = True


class OllamaStub:
    """``with OllamaStub(models=["m:1b"]) as stub: OllamaClient(stub.url, "m:1b", ...)``."""

    def __init__(
        self,
        models: list[str] | None = None,
        responder: Responder | None = None,
        *,
        error_after_tokens: int | None = None,
        stall_after_tokens: int | None = None,
        fail_status: int | None = None,
        error_message: str = "stub: the model runner crashed",
        max_stall: float = 30.0,
        embedding_dim: int = 8,
        done_reason: str = "stop",
    ) -> None:
        self.models = list(models) if models is not None else ["stub-model:latest"]
        self.responder: Responder = responder or default_responder
        self.error_after_tokens = error_after_tokens
        self.stall_after_tokens = stall_after_tokens
        self.fail_status = fail_status
        self.error_message = error_message
        self.max_stall = max_stall
        self.embedding_dim = embedding_dim
        #: What the last streamed message says ended it ("length": num_predict reached).
        self.done_reason = done_reason
        self.requests: list[StubRequest] = []
        self.release = threading.Event()
        self.stalled = threading.Event()
        self.client_disconnected = threading.Event()
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("the stub is not running")
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> OllamaStub:
        self.stopping.clear()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.stub = self
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="ollama-stub",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Ends stalls first, so stopping never waits on a hanging stream."""
        self.stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server.close_connections()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = self._thread = None

    def __enter__(self) -> OllamaStub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _log(self, method: str, path: str, body: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append(StubRequest(method, path, body))

    def bodies(self, path: str) -> list[dict[str, Any]]:
        """The JSON bodies received on ``path`` (e.g. ``"/api/chat"``), oldest first."""
        with self._lock:
            return [r.body for r in self.requests if r.path == path]
