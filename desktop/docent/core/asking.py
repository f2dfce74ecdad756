"""A question to the library, as one turn of a conversation: the plumbing behind
``Engine.ask``.

It settles the conversation's scope and collection, hands ``answering.Answerer`` the
engine's search (which says the stage: searching, then waiting for the model), and makes
sure the question always becomes exactly one turn: answered, stopped (AnswerCancelled)
or failed (the error is raised after the turn is added). The answer pipeline itself is
answering.py's; this module only connects it to the engine's library.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from docent.core.api import StageCallback, TokenCallback

if TYPE_CHECKING:
    from docent.core.config import Settings
    from docent.core.conversation import Answer, Conversation
    from docent.core.embedding import Embedder
    from docent.core.llm import OllamaClient
    from docent.core.models import Collection, DocumentRecord
    from docent.core.retrieval import SearchResult


class Library(Protocol):
    """What asking needs of the engine (``Engine`` is one)."""

    @property
    def settings(self) -> Settings: ...

    @property
    def llm(self) -> OllamaClient: ...

    embedder: Embedder

    def resolve(self, name_or_path: str, collection: str | None = None) -> DocumentRecord: ...

    def collections(self) -> list[Collection]: ...

    def search(
        self,
        query: str,
        *,
        files: Sequence[str] | None = None,
        k: int | None = None,
        debug: bool = False,
        rewrites: Sequence[str] = (),
        collection: str | None = None,
    ) -> SearchResult: ...


def ask(
    library: Library,
    question: str,
    *,
    conversation: Conversation | None,
    files: Sequence[str] | None,
    model: str | None,
    on_token: TokenCallback | None,
    cancel: threading.Event | None,
    on_stage: StageCallback | None,
    collection: str | None,
    attempt: int = 1,
    anyway: bool = False,
) -> Answer:
    """``Engine.ask`` (see its docstring for the arguments)."""
    from docent.core.answering import Answerer
    from docent.core.conversation import AnswerCancelled, AskStage, Conversation
    from docent.core.errors import UnknownFile
    from docent.core.models import DocState
    from docent.core.normal_form import typed

    question = typed(question)  # as the passages are (normal_form.py)
    conv = conversation if conversation is not None else Conversation()
    before = len(conv.turns)
    stage = on_stage or (lambda s: None)
    try:
        if collection is not None:
            conv.collection = collection or None
        coll = conv.collection
        if files is not None:
            conv.scope = [library.resolve(f, coll).path for f in files] or None
        scope = list(conv.scope) if conv.scope else None

        def known(path: str) -> bool:
            try:
                return library.resolve(path, coll).state is DocState.READY
            except UnknownFile:
                return False

        def search(
            query: str, rewrites: Sequence[str], /, *, within: Sequence[str] = ()
        ) -> SearchResult:
            stage(AskStage.SEARCHING)
            # the documents the last answer cited that are still in the scope and the
            # library (one removed since made the whole search fail: review, session 31)
            files = [p for p in within if (scope is None or p in scope) and known(p)] or scope
            result = library.search(query, files=files, rewrites=rewrites, collection=coll)
            stage(AskStage.WAITING)  # (an answer that abstains is back at once)
            return result

        name = next((c.name for c in library.collections() if c.id == coll), "") if coll else ""
        answerer = Answerer(
            library.llm,
            library.settings,
            search,
            count_tokens=library.embedder.count_tokens,
            embed=library.embedder.embed_for_question,
            searched=f"collection {name}" if name else "all documents",
        )
        return answerer.answer(
            question,
            conv,
            model=model,
            on_token=on_token,
            cancel=cancel,
            on_stage=on_stage,
            attempt=attempt,
            anyway=anyway,
        )
    except AnswerCancelled:
        if len(conv.turns) == before:
            conv.add_unanswered(question, stopped=True)
        raise
    except Exception as exc:
        if len(conv.turns) == before:
            conv.add_unanswered(question, error=str(exc) or exc.__class__.__name__)
        raise
