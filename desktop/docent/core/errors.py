"""Typed errors. Each carries a sentence a user can act on (``str(err)``)."""

from __future__ import annotations


class DocentError(Exception):
    """Base for every error Docent reports to a user."""


class DocumentError(DocentError):
    """A file could not be turned into text. ``reason`` is a stable code for UIs/JSON."""

    reason = "unreadable"

    def __init__(self, path: str, message: str) -> None:
        super().__init__(message)
        self.path = path

    def __reduce__(self) -> tuple[type[DocumentError], tuple[str, str]]:
        # Survive pickling across the extraction process boundary.
        return (type(self), (self.path, str(self)))


class EncryptedDocument(DocumentError):
    """The PDF needs a password. Fix: supply it (a later version accepts one)."""

    reason = "encrypted"


class NoTextLayer(DocumentError):
    """A scanned PDF with no text layer. Fix: run OCR (e.g. ocrmypdf) first."""

    reason = "no_text"


class EmptyDocument(DocumentError):
    reason = "empty"


class DamagedDocument(DocumentError):
    reason = "damaged"


class UnsupportedType(DocumentError):
    reason = "unsupported"


class FileVanished(DocumentError):
    reason = "missing"


class UnreadableFile(DocumentError):
    reason = "unreadable"


class FileChanging(UnreadableFile):
    """The file was saved again while it was read, each time it was read: tried again by
    the next run (and by a watched folder when the saving ends)."""

    reason = "changing"


class TooLarge(DocumentError):
    """The file is bigger, or expands to more, than Docent reads. Fix: split it, or raise
    the limit in the settings."""

    reason = "too_large"


class IndexingFault(DocumentError):
    """Indexing one file failed in Docent itself (a bug, or the embedder ran out of
    memory): that file is marked failed and the run goes on; a run asked for tries it
    again, a watched folder's sweep only once the file changed or Docent restarted."""

    reason = "fault"


class TookTooLong(DocumentError):
    """Reading the file ran past its time limit. Fix: raise extract_page_timeout."""

    reason = "timeout"


class SettingsError(DocentError):
    """A setting has a bad value; the message names the key and why.

    ``problems`` maps each bad key to what is wrong with it in plain words ("must start
    with http:// or https://, like http://127.0.0.1:11434"), for a form to show next to
    its field; empty when the error is not about one key (a file that cannot be written).
    """

    def __init__(self, message: str, problems: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.problems: dict[str, str] = dict(problems or {})


class StoreError(DocentError):
    """The vector store failed."""


class StoreLocked(StoreError):
    """Another Docent (window or command) has this data folder open. Fix: close it."""


class StoreUnavailable(StoreError):
    """The Qdrant server refused, dropped or did not answer a request in time, or refused
    the API key. Fix: start it, check qdrant_url / qdrant_api_key, or raise qdrant_timeout.
    A document being indexed meanwhile is not marked ready: the next run indexes it again.

    ``what_happened`` is the message without what it means for indexing (a copy of the
    library says what it means for the copy instead)."""

    def __init__(self, message: str, what_happened: str = "") -> None:
        super().__init__(message)
        self.what_happened = what_happened or message


class StoreOfAnotherModel(StoreError):
    """The store holds vectors of another size than the embedding model makes: the
    embedding model changed. The embedded store is set aside and every document indexed
    again (core/consistency.py); a server's collections are left to the user to delete."""

    def __init__(self, message: str, stored: int, wanted: int) -> None:
        super().__init__(message)
        self.stored, self.wanted = stored, wanted


class StoreDamaged(StoreError):
    """The embedded store cannot be opened. Fix: `docent index --rebuild` moves it aside
    and rebuilds it from the files and the text cache."""


class DataFolderError(DocentError):
    """The data folder cannot be used (not a folder, read-only, full). The message says
    which folder and what to do."""


class CatalogError(DocentError):
    """The catalog database is damaged or cannot be written. The message says what to do."""


class AmbiguousFile(DocentError):
    """A file name matched several documents; ``candidates`` lists their paths."""

    def __init__(self, name: str, candidates: list[str]) -> None:
        listed = "\n  ".join(candidates)
        first = candidates[0].replace("\\", "/").split("/")[-2:] if candidates else []
        example = f", e.g. {'/'.join(first)}" if len(first) == 2 and first[0] else ""
        super().__init__(
            f"'{name}' matches {len(candidates)} documents; name one by its path "
            f"or the end of its path{example}:\n  {listed}"
        )
        self.name = name
        self.candidates = candidates


class UnknownFile(DocentError):
    """No indexed document matches a file name or path."""


class NotIndexed(UnknownFile):
    """A document named to search is in the library but cannot be searched: it failed,
    waits its turn, is being indexed or removed. The message says which."""


class UnknownCollection(DocentError):
    """No collection has this name; the message lists the ones that exist."""

    def __init__(self, name: str, existing: list[str]) -> None:
        listed = ", ".join(existing) if existing else "none yet"
        super().__init__(
            f"There is no collection named '{name}'. Collections: {listed}. "
            "`docent index PATH --collection NAME` makes one."
        )
        self.name = name
        self.existing = existing


class CollectionError(DocentError):
    """A collection cannot be made or renamed so (a bad or taken name); the message says why."""


class Cancelled(DocentError):
    """The user cancelled the operation."""


class LLMError(DocentError):
    """Base for Ollama failures."""


#: What an Ollama failure's message ends with: what answers are meanwhile. The banner and
#: a summary's note, which say it in their own words, leave it out.
ANSWERS_EXTRACTIVE = " (answers are extractive until then)"


class LLMUnavailable(LLMError):
    """Ollama is not running or not reachable. Fix: start it (`ollama serve`)."""


class NotOllama(LLMUnavailable):
    """What answers at the Ollama address is another server (a web server on port 80).
    Fix: set the Ollama host; the message says to what."""


class ModelNotFound(LLMError):
    """The model is not pulled. Fix: `ollama pull MODEL`."""


class LLMTimeout(LLMError):
    """Ollama did not answer within the configured timeout."""


class LLMStreamError(LLMError):
    """The answer stream was cut or the server reported an error mid-answer."""


class LLMConnectionCut(LLMStreamError):
    """The connection to Ollama was cut (it stopped or restarted, or a stream ended without
    its last message): unlike an error Ollama sent, nothing says it still runs."""
