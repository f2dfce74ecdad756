"""The one module that talks to Ollama: health, model list, streamed and joined chat.

Every failure leaves as a typed error from ``docent.core.errors`` with a sentence a
user can act on. Timeouts are enforced here, not by the server:

- ``connect_timeout``: the TCP connect (httpx);
- ``first_token_timeout``: from the request to the first streamed chunk (model load and
  prompt evaluation happen before it, and Ollama sends no headers until then);
- ``total_timeout``: the whole answer.

The HTTP stream runs in a daemon thread that feeds a queue; the caller waits on the queue
with the remaining time, polling ``cancel`` meanwhile. A blocked ``recv`` cannot be
interrupted by closing the response from another thread (Linux keeps the socket alive
until the read returns), so to stop a call the socket is ``shutdown()``: the reader wakes
at once and Ollama sees the hang-up and stops generating. The socket is captured through
httpcore's ``trace`` request extension, which needs a fresh connection per stream
(keep-alive is off on the streaming client).

Every stream is watched by an ``OutputGuard`` (guards.py): a model that loops, rambles or
runs past its ``num_predict`` is hung up on like a cancel, and ``OutputCut`` carries the
text before the degenerate part. Answers, summaries and query rewrites all get it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import queue
import socket
import threading
import time
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from docent.core.config import OLLAMA_PORT, redact_url, with_port
from docent.core.errors import (
    ANSWERS_EXTRACTIVE,
    Cancelled,
    LLMConnectionCut,
    LLMError,
    LLMStreamError,
    LLMTimeout,
    LLMUnavailable,
    ModelNotFound,
    NotOllama,
)
from docent.core.guards import OutputCut, OutputGuard, guard_for

if TYPE_CHECKING:
    import httpx
    import ollama

    from docent.core.config import Settings

_CANCEL_POLL = 0.05  # seconds between checks of the cancel event
_LIST_TIMEOUT = 10.0  # /api/tags reads a few manifests: quick, but not instant
_END = object()  # queue item: the stream finished normally
#: How long past the total deadline the stream's read timeout (a backstop) ends.
READ_BACKSTOP_MARGIN = 5.0
_local = threading.local()  # the _Call of the stream running on this thread
CUT_MID_ANSWER = (
    "The connection to Ollama was cut mid-answer: Ollama stopped or restarted. "
    "Check that it is running, then ask again."
)
#: The same before any word came: "mid-answer" was said of an answer never begun (QA-80).
#: ("ask again", not "Retry": the command line has no Retry.)
CUT_BEFORE_ANSWER = (
    "The connection to Ollama was cut before it answered: Ollama stopped or restarted. "
    "Check that it is running, then ask again."
)


def _cut(said: bool) -> LLMConnectionCut:
    """The connection was cut, after a word of the answer came (``said``) or before."""
    return LLMConnectionCut(CUT_MID_ANSWER if said else CUT_BEFORE_ANSWER)


log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Health:
    """``ok``: Ollama answers and the configured model is installed."""

    ok: bool
    models: list[str] = field(default_factory=list)
    message: str = ""


class _Call:
    """One streaming request: its queue, and the socket to shut down to abort it."""

    def __init__(self) -> None:
        self.items: queue.Queue[object] = queue.Queue()
        self._lock = threading.Lock()
        self._sock: socket.socket | None = None
        self._aborted = False
        #: The server's reason for ending the stream ("stop", "length"), once it ended.
        self.done_reason = ""
        #: Ollama's last message (``done``) came: a stream that ends without it was cut
        #: (a proxy or a server going away between chunks closes it cleanly; review 84).
        self.done = False
        #: Messages of Ollama's read so far.
        self.parts = 0

    @property
    def aborted(self) -> bool:
        return self._aborted

    def trace(self, event: str, info: dict[str, Any]) -> None:
        if event != "connection.connect_tcp.complete" or info.get("return_value") is None:
            return
        sock = info["return_value"].get_extra_info("socket")
        with self._lock:
            self._sock = sock
            if self._aborted:
                _shutdown(sock)

    def abort(self) -> None:
        with self._lock:
            self._aborted = True
            if self._sock is not None:
                _shutdown(self._sock)


class _Echo:
    """Drops a begun reply (a last assistant message) from the stream when the server
    sends it back. Ollama goes on from it and streams only what follows; llama.cpp's
    server sends the begun words first, glued to the first token. Content that could
    still be the echo is held back until it is told apart."""

    def __init__(self, messages: list[dict[str, str]]) -> None:
        last = messages[-1] if messages else {}
        self.begun = last.get("content", "") if last.get("role") == "assistant" else ""
        self.held = ""

    def strip(self, content: str) -> str:
        if not self.begun:
            return content
        self.held += content
        if len(self.held) < len(self.begun) and self.begun.startswith(self.held):
            return ""
        held, begun = self.held, self.begun
        self.begun = self.held = ""
        return held[len(begun) :] if held.startswith(begun) else held

    def flush(self) -> str:
        """What is held back when the stream ends: the model's words after all."""
        held, self.held, self.begun = self.held, "", ""
        return held


def _shutdown(sock: socket.socket | None) -> None:
    with contextlib.suppress(OSError):  # already closed: nothing to stop
        if sock is not None:
            sock.shutdown(socket.SHUT_RDWR)


def _attach_trace(request: httpx.Request) -> None:
    call = getattr(_local, "call", None)
    if call is not None:
        request.extensions["trace"] = call.trace


class OllamaClient:
    def __init__(
        self,
        host: str,
        model: str,
        connect_timeout: float,
        first_token_timeout: float,
        total_timeout: float,
    ) -> None:
        self.host = host
        self.model = model
        self.connect_timeout = connect_timeout
        self.first_token_timeout = first_token_timeout
        self.total_timeout = total_timeout
        # Imported here, not at the top: they cost ~0.7 s, and the window must show first.
        import httpx
        import ollama

        # The read timeout is only a backstop: the consumer enforces the deadlines. It ends
        # later than the total deadline, so a stall mid-answer is always told as that (at
        # the same 1.5 s, a busy machine let the backstop win the race: CI, Dec 3).
        self._read_backstop = total_timeout + READ_BACKSTOP_MARGIN
        self._stream_client = ollama.Client(
            host=host,
            timeout=httpx.Timeout(self._read_backstop, connect=connect_timeout),
            limits=httpx.Limits(max_keepalive_connections=0),
            event_hooks={"request": [_attach_trace]},
        )
        self._quick: dict[float, ollama.Client] = {}

    @classmethod
    def from_settings(cls, settings: Settings) -> OllamaClient:
        return cls(
            host=settings.effective_ollama_host(),
            model=settings.ollama_model,
            connect_timeout=settings.llm_connect_timeout,
            first_token_timeout=settings.llm_first_token_timeout,
            total_timeout=settings.llm_total_timeout,
        )

    def close(self) -> None:
        self._stream_client.close()
        for client in self._quick.values():
            client.close()
        self._quick.clear()

    # Status -----------------------------------------------------------------

    def health(self, timeout: float = 1.0) -> Health:
        """Never raises; bounded by ``timeout`` for the connect and again for the reply."""
        try:
            models = self._list(timeout)
        except LLMError as exc:
            return Health(False, [], str(exc))
        if not _has_model(models, self.model):
            return Health(False, models, _not_installed(self.model))
        return Health(
            True, models, f"Ollama is running at {redact_url(self.host)} with {self.model}."
        )

    def list_models(self) -> list[str]:
        """Installed model names (``/api/tags``)."""
        return self._list(_LIST_TIMEOUT)

    def _list(self, timeout: float) -> list[str]:
        import httpx
        import ollama

        try:
            client = self._quick.get(timeout)
            if client is None:
                limit = httpx.Timeout(timeout, connect=min(timeout, self.connect_timeout))
                client = self._quick[timeout] = ollama.Client(host=self.host, timeout=limit)
            listing = client.list()
        except Exception as exc:
            raise self._map_error(exc, None, timeout) from exc
        return [m.model for m in listing.models if m.model]

    # Chat -------------------------------------------------------------------

    def stream_chat(
        self,
        messages: list[dict[str, str]],
        *,
        model: str | None = None,
        cancel: threading.Event | None = None,
        options: dict[str, Any] | None = None,
        guard: OutputGuard | None = None,
        schema: dict[str, Any] | None = None,
        total_timeout: float | None = None,
    ) -> Generator[str, None, None]:
        """Yield the answer's content tokens as they arrive.

        Raises Cancelled when ``cancel`` is set (checked every 50 ms, even while waiting),
        OutputCut when ``guard`` (by default one capped at ``num_predict``) finds the
        output degenerate, LLMTimeout, LLMUnavailable, ModelNotFound, LLMStreamError or
        LLMError. Closing the iterator early, a cancel and a cut all hang up on Ollama, so
        it stops generating. ``guard.done_reason`` tells why a finished stream ended.
        ``schema``: a JSON schema the reply is held to (Ollama's ``format``).
        ``total_timeout``: this call's whole-reply deadline instead of the client's (a short
        reply that must not hold up the answer after it).
        """
        name = model or self.model
        watch = guard if guard is not None else guard_for(options)
        call = _Call()
        worker = threading.Thread(
            target=self._produce,
            args=(call, name, messages, options, schema),
            name="ollama-stream",
            daemon=True,
        )
        start = time.monotonic()
        worker.start()
        got_first = False
        said = False
        try:
            while True:
                item = self._next_item(call, cancel, start, got_first, total_timeout)
                if item is _END:
                    if not call.done:
                        log.info("Ollama's stream ended without its last message")
                        raise _cut(said)
                    watch.done_reason = call.done_reason
                    cut = watch.finish()
                    if cut is not None:
                        raise OutputCut(cut)
                    return
                if isinstance(item, BaseException):
                    if isinstance(item, json.JSONDecodeError) and call.parts:
                        # a line cut short after Ollama's own: not another server
                        raise _cut(said) from item
                    error = self._map_error(item, name, self._read_backstop)
                    raise (_cut(said) if isinstance(error, LLMConnectionCut) else error) from item
                got_first = True
                if item:
                    said = True  # a word came (empty messages: a thinking model's, the end's)
                    cut = watch.feed(str(item))
                    if cut is not None:
                        raise OutputCut(cut)
                    yield str(item)
        finally:
            call.abort()  # no-op once the stream ended; otherwise hang up at once

    def chat(
        self,
        messages: list[dict[str, str]],
        *,
        model: str | None = None,
        cancel: threading.Event | None = None,
        options: dict[str, Any] | None = None,
        guard: OutputGuard | None = None,
        schema: dict[str, Any] | None = None,
        total_timeout: float | None = None,
    ) -> str:
        """The whole answer as one string (query rewrites, summaries), watched by the
        same guard as a stream (OutputCut carries the text before a loop)."""
        return "".join(
            self.stream_chat(
                messages,
                model=model,
                cancel=cancel,
                options=options,
                guard=guard,
                schema=schema,
                total_timeout=total_timeout,
            )
        )

    def _produce(
        self,
        call: _Call,
        name: str,
        messages: list[dict[str, str]],
        options: dict[str, Any] | None,
        schema: dict[str, Any] | None = None,
    ) -> None:
        _local.call = call
        echo = _Echo(messages)
        try:
            parts = self._stream_client.chat(
                model=name, messages=messages, stream=True, options=options, format=schema
            )
            try:
                for part in parts:
                    if call.aborted:
                        return
                    call.parts += 1
                    if part.done:
                        call.done, call.done_reason = True, part.done_reason or ""
                    call.items.put(echo.strip(part.message.content or ""))
            finally:
                close = getattr(parts, "close", None)  # a generator: exits its `with stream`
                if close is not None:
                    close()
            call.items.put(echo.flush())
            call.items.put(_END)
        except Exception as exc:
            call.items.put(exc)
        finally:
            _local.call = None

    def _next_item(
        self,
        call: _Call,
        cancel: threading.Event | None,
        start: float,
        got_first: bool,
        total_timeout: float | None = None,
    ) -> object:
        total = self.total_timeout if total_timeout is None else total_timeout
        total_deadline = start + total
        first_deadline = start + self.first_token_timeout
        while True:
            if cancel is not None and cancel.is_set():
                raise Cancelled("Stopped: the answer was cancelled.")
            now = time.monotonic()
            if not got_first and first_deadline <= total_deadline:
                deadline, error = first_deadline, self._first_token_error
            else:
                deadline, error = total_deadline, lambda: self._total_error(total)
            remaining = deadline - now
            if remaining <= 0:
                raise error()
            wait = min(remaining, _CANCEL_POLL) if cancel is not None else remaining
            try:
                return call.items.get(timeout=wait)
            except queue.Empty:
                continue

    # Errors -----------------------------------------------------------------

    def _first_token_error(self) -> LLMTimeout:
        return LLMTimeout(
            f"Ollama sent nothing for {self.first_token_timeout:g} s (first-token timeout, "
            "llm_first_token_timeout). The model may still be loading: try again, or raise "
            "the timeout in the settings."
        )

    def _total_error(self, total: float) -> LLMTimeout:
        return LLMTimeout(
            f"The answer took longer than {total:g} s (total timeout, "
            "llm_total_timeout) and was stopped."
        )

    def _port_80(self) -> str:
        """The host with Ollama's port when it is an http:// one without a port (port 80,
        as the client takes it: a proxy's, or Ollama's 11434 left out); else ""."""
        meant = with_port(self.host, OLLAMA_PORT)
        return meant if meant != self.host and self.host.lower().startswith("http://") else ""

    def _unavailable(self) -> LLMUnavailable:
        host = redact_url(self.host)
        if meant := self._port_80():
            return LLMUnavailable(
                f"Nothing answers at {host} (port 80: the address gives no port). Ollama "
                f"listens on {OLLAMA_PORT}: set the Ollama host to {redact_url(meant)}, or "
                f"start Ollama{ANSWERS_EXTRACTIVE}."
            )
        return LLMUnavailable(
            f"Ollama is not running at {host} — start it with `ollama serve`{ANSWERS_EXTRACTIVE}."
        )

    def _map_error(self, exc: BaseException, model: str | None, read_timeout: float) -> LLMError:
        """``exc`` from the ollama client or httpx as a typed error with a user sentence."""
        import httpx
        import ollama

        if isinstance(exc, LLMError):
            return exc
        if isinstance(exc, ConnectionError | httpx.ConnectError | httpx.ConnectTimeout):
            return self._unavailable()
        if isinstance(exc, httpx.TimeoutException):
            return LLMTimeout(
                f"Ollama at {redact_url(self.host)} did not answer within {read_timeout:g} s."
            )
        if isinstance(exc, ollama.ResponseError):
            meant = self._port_80()
            said = str(exc.error).strip().lower()
            web = said.startswith("<") or (exc.status_code == 404 and "model" not in said)
            if meant and exc.status_code > 0 and web:
                # a web page, or a 404 naming no model: a web server on port 80, whose 404
                # was taken for "model not installed" (review s21); a 500 or a 401 through
                # a proxy is Ollama's or the proxy's, said as it is below
                return NotOllama(
                    f"What answers at {redact_url(self.host)} (port 80: the address gives no "
                    f"port) is not Ollama (HTTP {exc.status_code}). Ollama listens on "
                    f"{OLLAMA_PORT}: set the Ollama host to {redact_url(meant)}"
                    f"{ANSWERS_EXTRACTIVE}."
                )
            if exc.status_code == 404 and model is not None:
                return ModelNotFound(_not_installed(model))
            if exc.status_code == -1:  # an {"error": ...} line inside the stream
                return LLMStreamError(f"Ollama stopped the answer with an error: {exc.error}")
            said = str(exc.error or "").strip()  # a proxy's 502 may say nothing
            return LLMError(f"Ollama failed (HTTP {exc.status_code}){': ' + said if said else '.'}")
        if isinstance(exc, json.JSONDecodeError):
            # HTTP 200 and no JSON: a web server (nginx's welcome page), not Ollama; "cut
            # mid-answer" was said of it, where no answer was asked for (review 84)
            log.info("what answers at %s is not JSON: %s", redact_url(self.host), exc)
            return NotOllama(
                f"What answers at {redact_url(self.host)} is not Ollama (its reply is not "
                f"Ollama's JSON). Check the Ollama host (Ollama listens on {OLLAMA_PORT})"
                f"{ANSWERS_EXTRACTIVE}."
            )
        if isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError | ValueError):
            # the transport's own words ("peer closed connection without sending complete
            # message body (incomplete chunked read)") go to the log, not to the reader
            log.info("the connection to Ollama was cut: %s", exc)
            return LLMConnectionCut(CUT_MID_ANSWER)
        return LLMError(f"Ollama request failed: {exc}")


def _has_model(models: list[str], name: str) -> bool:
    return name in models or f"{name}:latest" in models


def _not_installed(model: str) -> str:
    return f"Model '{model}' is not installed — run `ollama pull {model}`."
