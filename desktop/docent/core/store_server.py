"""Talking to a Qdrant server or cluster: the connection options, and its failures in words.

``ClientStore`` holds the schema; this module holds what only a server has: a URL and API
key, TLS, a timeout per request, how new collections are sharded and replicated, and the
ways a server fails (refused, dropped, too slow, a refused key, a bad certificate), each
turned into a :class:`~docent.core.errors.StoreUnavailable` that says which setting to
look at. qdrant-client wraps every transport error of httpx in ``ResponseHandlingException``
(``source`` is the original); an HTTP error status arrives as ``UnexpectedResponse``.
"""

from __future__ import annotations

import logging
import os
import ssl
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from docent.core.config import QDRANT_PORT, redact_url
from docent.core.errors import SettingsError, StoreUnavailable
from docent.core.store_base import ServerCheck

if TYPE_CHECKING:
    from qdrant_client import QdrantClient

    from docent.core.config import Settings

#: What a failure in an open library means for indexing (the catalog marks a document
#: ready only after the server acknowledged all its points, reads included in between).
_NOT_READY = (
    " A document being indexed is not marked ready: the next run (`docent index`, or "
    "the window's next indexing) does it again."
)
OPENING = "open the library"

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ServerOptions:
    """How to reach the server and how to make its collections (``Settings.qdrant_*``)."""

    url: str
    api_key: str = ""
    timeout: int = 10
    ca_file: str = ""
    shards: int = 1
    replicas: int = 1
    write_consistency: int = 1

    @classmethod
    def of(cls, s: Settings) -> ServerOptions:
        return cls(
            url=s.qdrant_url,
            api_key=s.qdrant_api_key,
            timeout=s.qdrant_timeout,
            ca_file=s.qdrant_ca_file,
            shards=s.qdrant_shards,
            replicas=s.qdrant_replicas,
            write_consistency=s.qdrant_write_consistency,
        )

    @property
    def shown(self) -> str:
        """The URL as messages show it (no password)."""
        return redact_url(self.url)

    def collection_args(self) -> dict[str, Any]:
        """The cluster layout of a collection Docent creates."""
        return {
            "shard_number": self.shards,
            "replication_factor": self.replicas,
            "write_consistency_factor": self.write_consistency,
        }


def connect(opts: ServerOptions) -> QdrantClient:
    """A client for the server; nothing is sent yet (the first request says if it is up)."""
    from qdrant_client import QdrantClient

    extra: dict[str, Any] = {}
    if opts.ca_file:
        # "~/certs/ca.pem" passed the settings' check (it expands ~), but ssl does not
        # expand it: every command ended in a FileNotFoundError naming no file.
        cafile = os.path.expanduser(opts.ca_file)
        try:
            extra["verify"] = ssl.create_default_context(cafile=cafile)
        except OSError as exc:  # gone since the check, or not PEM (ssl.SSLError)
            why = f"{cafile} cannot be used as a CA file ({exc.strerror or exc})"
            raise SettingsError(
                f"setting 'qdrant_ca_file': {why}", {"qdrant_ca_file": why}
            ) from exc
    with warnings.catch_warnings():
        # The settings refuse a key over http:// except to this machine; that case is fine.
        warnings.filterwarnings("ignore", "Api key is used with an insecure connection")
        return QdrantClient(
            url=opts.url,
            api_key=opts.api_key or None,
            timeout=opts.timeout,
            check_compatibility=False,  # its probe would cost a request at every start
            **extra,
        )


def probe(opts: ServerOptions, library: str) -> ServerCheck:
    """Ask the server at ``opts.url`` for its collections (nothing is made or changed):
    whether it answers, takes the key, and holds a library (its collection ``library``).
    Never raises. Before, a wrong URL was found only by a restart that failed (QA-79)."""
    try:
        client = connect(opts)
    except SettingsError as exc:
        return ServerCheck(False, str(exc))
    try:
        names = {c.name for c in client.get_collections().collections}
    except Exception as exc:  # noqa: BLE001 - said, never raised: a Test
        said = unavailable(opts, "list its collections", exc) if is_server_failure(exc) else None
        if said is not None:
            return ServerCheck(False, said.what_happened)
        log.info("what answers at %s is not Qdrant: %s", opts.shown, _short(exc))
        return ServerCheck(
            False,
            f"What answers at {opts.shown} is not a Qdrant server (its reply to a list of "
            f"collections is not Qdrant's). Qdrant's REST port is {QDRANT_PORT}.",
        )
    finally:
        client.close()
    if library in names:
        return ServerCheck(True, f"Qdrant answers at {opts.shown} and holds a Docent library.")
    return ServerCheck(
        True,
        f"Qdrant answers at {opts.shown}; it holds no Docent library yet (one is made there "
        "when Docent starts with this URL).",
    )


def is_server_failure(exc: BaseException) -> bool:
    return isinstance(exc, ResponseHandlingException | UnexpectedResponse | httpx.HTTPError)


def unavailable(opts: ServerOptions, what: str, exc: BaseException) -> StoreUnavailable | None:
    """The sentence for a server that failed while trying to ``what``; None when ``exc``
    is an answer about the request itself (a bad filter), not about reaching the server."""
    source = exc.source if isinstance(exc, ResponseHandlingException) else exc
    where = f"The Qdrant server at {opts.shown}"
    if isinstance(source, httpx.TimeoutException):
        why = (
            f"did not answer within {opts.timeout} s (qdrant_timeout) while trying to {what}. "
            "Is it overloaded? Raise qdrant_timeout if it is just slow."
        )
    elif isinstance(source, httpx.ConnectError) and _is_certificate_error(source):
        why = (
            f"has a TLS certificate this machine does not trust ({_short(source)}). Set "
            "qdrant_ca_file to the PEM file of the CA that signed it."
        )
    elif isinstance(source, httpx.ConnectError):
        why = (
            f"cannot be reached ({_short(source)}) while trying to {what}. Is it running, "
            "and is qdrant_url right?"
        )
    elif isinstance(source, httpx.TransportError):
        why = (
            f"dropped the connection ({_short(source)}) while trying to {what}. "
            "Is it restarting or behind a proxy that cuts requests?"
        )
    elif isinstance(source, UnexpectedResponse) and source.status_code in (401, 403):
        why = (
            f"refused the API key (HTTP {source.status_code}) while trying to {what}: "
            "check qdrant_api_key."
        )
    elif isinstance(source, UnexpectedResponse) and (source.status_code or 0) >= 500:
        why = f"failed (HTTP {source.status_code}) while trying to {what}: {_body(source)}"
    else:
        return None
    tail = "" if what == OPENING else _NOT_READY
    return StoreUnavailable(f"{where} {why}{tail}", f"{where} {why}")


def _is_certificate_error(exc: httpx.ConnectError) -> bool:
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, ssl.SSLCertVerificationError):
            return True
        cause = cause.__cause__ or cause.__context__
    return "CERTIFICATE_VERIFY_FAILED" in str(exc)


def _short(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    # "[Errno 111] Connection refused" reads better without the number.
    if text.startswith("[Errno"):
        text = text.split("]", 1)[-1].strip()
    return text[:200]


def _body(resp: UnexpectedResponse) -> str:
    text = resp.content.decode("utf-8", "replace").strip()
    return (text or resp.reason_phrase)[:300]
