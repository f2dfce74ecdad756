"""A stand-in Qdrant server for tests: real HTTP on 127.0.0.1, spoken to by qdrant-client.

No Qdrant server binary can be installed here (PyPI, Debian and npm ship none), so this
server speaks the part of Qdrant's REST API that Docent uses and keeps the points in
qdrant-client's local mode (which shares the API and the search semantics). What it is
for is what a real server does to a client: answer over HTTP, and fail the ways a server
fails. Faults (attributes; each request reads them anew):

- ``fault_after_writes=N`` with ``fault="refuse"`` (the server goes away right after it
  answers the Nth write: the listening socket closes, every later connection is
  refused), ``"drop"`` (each request is read and
  the connection closed with no answer) or ``"stall"`` (no answer until ``release`` is set
  or the stand-in stops: a server too slow for the client's timeout): the first N point
  writes (upserts) are taken, then the fault starts. ``fault_after_writes=0`` faults at
  once, the first request included.
- ``api_key``: requests without this ``api-key`` header get 401, as Qdrant answers.

``requests`` logs (method, path, JSON body) of every request; ``points_taken`` counts the
points the upserts it acknowledged carried.

Also here: :func:`closed_port` (nothing listens: connections are refused) and
:class:`Silent` (a TCP server that accepts and never answers, or hangs up at once).
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import ssl
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from qdrant_client import QdrantClient
from qdrant_client import models as qm


@dataclass(frozen=True)
class SeenRequest:
    method: str
    path: str
    body: Any


def _ok(result: Any) -> dict[str, Any]:
    if hasattr(result, "model_dump"):
        result = result.model_dump(mode="json")
    elif isinstance(result, list):
        result = [r.model_dump(mode="json") if hasattr(r, "model_dump") else r for r in result]
    return {"result": result, "status": "ok", "time": 0.0}


_DONE = {"operation_id": 0, "status": "completed"}


class QdrantStandin:
    def __init__(
        self,
        port: int = 0,
        local: QdrantClient | None = None,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        """``port`` and ``local``: a server coming back where one went away, with its data.
        ``tls``: serve https with this server-side context."""
        self.local = local or QdrantClient(location=":memory:")
        self._local_lock = threading.Lock()  # local mode is not thread-safe
        self.requests: list[SeenRequest] = []
        self.api_key = ""
        self.fault = ""
        self.fault_after_writes: int | None = None
        self.writes = 0
        self.points_taken = 0
        self.release = threading.Event()
        #: set once the listening socket is closed (the port can be taken again)
        self.closed = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        if tls is not None:
            # The handshake happens in accept(); one a client refuses fails only that
            # connection (socketserver ignores the OSError).
            self._server.socket = tls.wrap_socket(self._server.socket, server_side=True)
            self.url = f"https://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._gone = False

    def start(self) -> QdrantStandin:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.release.set()
        self.go_away()
        self._thread.join(10)

    def go_away(self) -> None:
        """Stop listening: from now on connections are refused (those already waiting
        are closed unanswered)."""
        if not self._gone:
            self._gone = True
            # At once, so the very next connection is refused. shutdown() first: close()
            # alone leaves the socket listening until serve_forever's poll() returns.
            with contextlib.suppress(OSError):
                self._server.socket.shutdown(socket.SHUT_RDWR)
            self._server.socket.close()

            def close() -> None:
                self._server.shutdown()  # waits for serve_forever's loop to end
                self._server.server_close()
                self.closed.set()

            # Called from a request's thread: shutdown() there would wait for itself.
            threading.Thread(target=close, daemon=True).start()

    def faulting(self) -> bool:
        return self.fault_after_writes is not None and self.writes >= self.fault_after_writes

    # Requests -----------------------------------------------------------------

    def answer(self, method: str, path: str, body: Any) -> tuple[int, dict[str, Any]]:
        if (method, path) == ("GET", "/collections"):  # the list (Settings' Test)
            with self._local_lock:
                names = [c.name for c in self.local.get_collections().collections]
            return 200, _ok({"collections": [{"name": n} for n in names]})
        m = re.fullmatch(r"/collections/([^/]+)(/.*)?", path)
        if m is None:
            return 404, {"status": {"error": f"Not found: {path}"}}
        name, rest = m.group(1), m.group(2) or ""
        with self._local_lock:
            handler = _ROUTES.get((method, re.sub(r"/index/.+", "/index/x", rest)))
            if handler is None:
                return 404, {"status": {"error": f"Not implemented here: {method} {path}"}}
            try:
                return 200, _ok(handler(self, name, body))
            except (ValueError, KeyError) as exc:
                return 400, {"status": {"error": f"Bad request: {exc}"}}
            except Exception as exc:  # noqa: BLE001 - a stand-in's bug shows as the server's
                return 500, {"status": {"error": f"{type(exc).__name__}: {exc}"}}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _serve(self) -> None:
                size = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(size) if size else b""
                body = json.loads(raw) if raw else None
                path = self.path.split("?", 1)[0]
                standin.requests.append(SeenRequest(self.command, path, body))
                if standin.faulting():
                    if standin.fault == "refuse":
                        standin.go_away()
                        self.close_connection = True
                        return  # this request too ends without an answer
                    if standin.fault == "drop":
                        self.close_connection = True
                        return
                    if standin.fault == "stall":
                        standin.release.wait(60)
                        self.close_connection = True
                        return
                if standin.api_key and self.headers.get("api-key") != standin.api_key:
                    self._send(401, {"status": {"error": "Must provide an API key"}})
                    return
                status, payload = standin.answer(self.command, path, body)
                if standin.fault == "refuse" and standin.faulting():
                    # Gone before the answer leaves, so no later connection can slip in.
                    standin.go_away()
                self._send(status, payload)

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                # One request per connection: a server that goes away leaves no idle
                # connection behind for the client to find reset.
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_PUT = do_POST = do_DELETE = _serve

        return Handler


# Qdrant's REST routes, answered from local mode ---------------------------------------


def _exists(s: QdrantStandin, name: str, body: Any) -> Any:
    return {"exists": s.local.collection_exists(name)}


def _create(s: QdrantStandin, name: str, body: Any) -> Any:
    req = qm.CreateCollection(**body)
    # Local mode has one shard and no replicas: the request log keeps what was asked.
    return s.local.create_collection(
        name, vectors_config=req.vectors, sparse_vectors_config=req.sparse_vectors
    )


def _info(s: QdrantStandin, name: str, body: Any) -> Any:
    return s.local.get_collection(name)


def _index(s: QdrantStandin, name: str, body: Any) -> Any:
    req = qm.CreateFieldIndex(**body)
    s.local.create_payload_index(name, req.field_name, field_schema=req.field_schema)
    return _DONE


def _upsert(s: QdrantStandin, name: str, body: Any) -> Any:
    points = qm.PointsList(**body).points
    s.local.upsert(name, points=points)
    s.writes += 1
    s.points_taken += len(points)
    return _DONE


def _delete(s: QdrantStandin, name: str, body: Any) -> Any:
    selector: qm.PointsSelector
    selector = qm.FilterSelector(**body) if "filter" in body else qm.PointIdsList(**body)
    s.local.delete(name, points_selector=selector)
    return _DONE


def _set_payload(s: QdrantStandin, name: str, body: Any) -> Any:
    req = qm.SetPayload(**body)
    s.local.set_payload(name, req.payload, points=req.filter or req.points or [])
    return _DONE


def _count(s: QdrantStandin, name: str, body: Any) -> Any:
    req = qm.CountRequest(**(body or {}))
    return s.local.count(name, count_filter=req.filter, exact=bool(req.exact))


def _facet(s: QdrantStandin, name: str, body: Any) -> Any:
    req = qm.FacetRequest(**body)
    return s.local.facet(
        name, req.key, facet_filter=req.filter, limit=req.limit or 10, exact=bool(req.exact)
    )


def _scroll(s: QdrantStandin, name: str, body: Any) -> Any:
    req = qm.ScrollRequest(**body)
    points, offset = s.local.scroll(
        name,
        scroll_filter=req.filter,
        limit=req.limit or 10,
        offset=req.offset,
        with_payload=req.with_payload if req.with_payload is not None else True,
        with_vectors=req.with_vector or False,
    )
    return {"points": [p.model_dump(mode="json") for p in points], "next_page_offset": offset}


def _query(s: QdrantStandin, name: str, body: Any) -> Any:
    req = qm.QueryRequest(**body)
    return s.local.query_points(
        name,
        query=req.query,
        using=req.using,
        prefetch=req.prefetch,
        query_filter=req.filter,
        limit=req.limit or 10,
        with_payload=req.with_payload if req.with_payload is not None else True,
        with_vectors=req.with_vector or False,
    )


def _retrieve(s: QdrantStandin, name: str, body: Any) -> Any:
    req = qm.PointRequest(**body)
    return s.local.retrieve(
        name,
        req.ids,
        with_payload=req.with_payload if req.with_payload is not None else True,
        with_vectors=req.with_vector or False,
    )


_ROUTES: dict[tuple[str, str], Callable[[QdrantStandin, str, Any], Any]] = {
    ("GET", "/exists"): _exists,
    ("PUT", ""): _create,
    ("GET", ""): _info,
    ("PUT", "/index"): _index,
    ("PUT", "/points"): _upsert,
    ("POST", "/points/delete"): _delete,
    ("POST", "/points/payload"): _set_payload,
    ("POST", "/points/count"): _count,
    ("POST", "/facet"): _facet,
    ("POST", "/points/scroll"): _scroll,
    ("POST", "/points/query"): _query,
    ("POST", "/points"): _retrieve,
}


@contextmanager
def qdrant_standin() -> Iterator[QdrantStandin]:
    standin = QdrantStandin().start()
    try:
        yield standin
    finally:
        standin.stop()


# Plain TCP stand-ins -------------------------------------------------------------------


def closed_port() -> int:
    """A port nothing listens on (bound then released): connecting is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Silent:
    """Accepts connections and never answers (``hang_up=False``), or closes each at once."""

    def __init__(self, hang_up: bool = False) -> None:
        self.hang_up = hang_up
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(16)
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}"
        self._held: list[socket.socket] = []
        self._stop = threading.Event()
        self.accepted = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            self.accepted.set()
            if self.hang_up:
                conn.recv(65536)
                conn.close()
            else:
                self._held.append(conn)

    def close(self) -> None:
        self._stop.set()
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)  # wakes accept(); close() alone does not
        self._sock.close()
        for conn in self._held:
            conn.close()
        self._thread.join(10)
