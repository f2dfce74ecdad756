"""Retrieval: plain hybrid (dense + BM25 fused with RRF) for now; see issue 3."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from docent.core.embedding import Embedder
from docent.core.models import Hit
from docent.core.store import ScoredPoint, Store


@dataclass(slots=True)
class SearchResult:
    query: str
    hits: list[Hit]
    confidence: str = ""
    sufficient: bool = True
    debug: dict[str, Any] = field(default_factory=dict)


def hit_from_point(p: ScoredPoint) -> Hit:
    pl = p.payload
    return Hit(
        chunk_id=p.id, doc_id=pl["doc_id"], file_name=pl["file_name"], path=pl["path"],
        page_start=int(pl["page_start"]), page_end=int(pl["page_end"]),
        ordinal=int(pl["ordinal"]), score=p.score, text=pl["text"],
    )


class Retriever:
    def __init__(self, store: Store, embedder: Embedder) -> None:
        self.store = store
        self.embedder = embedder

    def search(self, query: str, *, k: int = 5, doc_ids: Sequence[str] | None = None,
               exclude_doc_ids: Sequence[str] | None = None) -> SearchResult:
        points = self.store.query(
            dense=self.embedder.query_dense(query), sparse=self.embedder.query_sparse(query),
            limit=k, doc_ids=doc_ids, exclude_doc_ids=exclude_doc_ids,
        )
        return SearchResult(query, [hit_from_point(p) for p in points])
