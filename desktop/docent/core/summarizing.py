"""Summaries of documents of any length: page-section map-reduce over the text cache.

The text comes from the extracted-text cache (never a re-parse). It is cut into page
sections (core/sectioning.py); each is summarised with its page range in the prompt
(map), then the section summaries are combined (reduce), in rounds when they do not fit
one call. A section that fails is retried once, then reported, and the summary says
which pages it does not cover. A section whose model summary is unusable (the quality gate
in summary_quality.py) gets its most central sentences instead, marked "extracted".
With no model (Ollama down, model not pulled), or when asked (``extractive=True``: the
"extractive now" half of the offer a summary over the time limit makes), the summary is
extractive: each section's most central sentences (core/extractive_summary.py).

Results are cached in the catalog by (sha256, type, model). A brief summary becomes the
document's vector in the ``documents`` collection, for two-tier retrieval.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal, get_args

from docent.core import words
from docent.core.catalog import Catalog
from docent.core.config import Settings
from docent.core.embedding import Embedder
from docent.core.errors import (
    ANSWERS_EXTRACTIVE,
    Cancelled,
    EmptyDocument,
    LLMUnavailable,
    ModelNotFound,
)
from docent.core.files import changed_since_indexed
from docent.core.indexer import record_payload
from docent.core.models import DocState, DocumentRecord, ExtractedDocument
from docent.core.sectioning import Places, Section, split_sections
from docent.core.store import Store
from docent.core.summary_budget import section_words
from docent.core.summary_mapreduce import MapReduce
from docent.core.summary_parts import (
    Extract,
    FailedSection,
    Reduced,
    SectionSummary,
    SummaryProgress,
    SummaryProgressCallback,
)
from docent.core.summary_prompts import FINAL_WORDS
from docent.core.userfiles import shown

__all__ = [
    "FailedSection",
    "SectionSummary",
    "Summarizer",
    "SummaryProgress",
    "SummaryProgressCallback",
    "SummaryResult",
]

log = logging.getLogger(__name__)

SummaryType = Literal["brief", "detailed", "bullets"]
SUMMARY_TYPES: tuple[str, ...] = get_args(SummaryType)
Mode = Literal["generated", "extractive"]

#: Extractive picks per section, and how many of them the final summary keeps.
EXTRACT_PER_SECTION = {"brief": 1, "bullets": 2, "detailed": 3}
EXTRACT_KEEP = {"brief": 6, "bullets": 12, "detailed": 0}  # 0: every pick
#: Sentences standing in for one section whose model summary was unusable.
FALLBACK_SENTENCES = 3
#: ``why`` of an extractive summary the caller asked for (the offer's "extractive now").
ASKED = "asked for"
ASKED_NOTE = (
    "_Extractive summary, as you asked: no language model was used. These are the "
    "document's most central sentences, in page order._"
)
EXTRACTIVE_NOTE = (
    "_Extractive summary: no language model was available ({why}). These are the "
    "document's most central sentences, in page order._"
)


@dataclass(slots=True)
class SummaryResult:
    summary: str
    type: str
    document: str  # file name
    path: str
    total_words: int
    pages: int
    sections_processed: int
    section_summaries: list[SectionSummary]
    model: str
    seconds: float
    mode: Mode = "generated"
    failed_sections: list[FailedSection] = field(default_factory=list)
    cached: bool = False
    #: Model calls made (retries included); 0 for an extractive or cached summary.
    calls: int = 0
    #: The sentences the document does not clearly say (summary_support.py), in order;
    #: None when not checked: an extractive summary (its sentences are the document's),
    #: or one cached before the check (checked when next shown).
    unsupported: list[str] | None = None
    #: Where the document says each sentence of a model's summary the check found it
    #: bears out ("p. 4", "lines 121-180", "slide 3"), by sentence: shown after it
    #: (``shown_text``). An extractive summary writes its places into its text.
    places: dict[str, str] = field(default_factory=dict)
    #: False for a summary cached before the check kept ``places``: checked again when
    #: shown (its ``unsupported`` kept meanwhile: a check that fails must not put its
    #: flagged sentences back into what the document is searched by; review 85).
    placed: bool = True
    #: The file was saved again after it was indexed, and not indexed again yet: the
    #: summary is of the text indexed (set each time it is served, never cached as such).
    file_changed: bool = False

    @property
    def model_sections(self) -> int:
        """Sections the model summarised (0 for an extractive summary)."""
        if self.mode == "extractive":
            return 0
        return sum(1 for s in self.section_summaries if s.source == "model")

    @property
    def extracted_sections(self) -> int:
        """Sections whose summary is their most central sentences."""
        return len(self.section_summaries) - self.model_sections

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> SummaryResult:
        data: dict[str, Any] = json.loads(text)
        data["section_summaries"] = [
            SectionSummary(
                s["section"],
                _pair(s["pages"]),
                s["summary"],
                s.get("source", "model"),
                s.get("note", ""),
                s.get("where", ""),
            )
            for s in data["section_summaries"]
        ]
        data["failed_sections"] = [
            FailedSection(f["section"], _pair(f["pages"]), f["error"], f.get("where", ""))
            for f in data.get("failed_sections", [])
        ]
        data["placed"] = "places" in data  # (cached before the check kept places)
        return cls(**data)


def _pair(pages: Sequence[int]) -> tuple[int, int]:
    return (int(pages[0]), int(pages[1]))


def extractive_model_key(embedding_model: str) -> str:
    return f"extractive:{embedding_model}"


class Summarizer:
    """Summarises one document; shares the Engine's catalog, store and embedder."""

    def __init__(
        self,
        settings: Settings,
        catalog: Catalog,
        store: Store,
        embedder: Embedder,
        text: Callable[[DocumentRecord], ExtractedDocument],
    ) -> None:
        self.settings = settings
        self.catalog = catalog
        self.store = store
        self.embedder = embedder
        self._text = text

    def summarize(
        self,
        rec: DocumentRecord,
        *,
        kind: str | None = None,
        model: str | None = None,
        progress: SummaryProgressCallback | None = None,
        cancel: threading.Event | None = None,
        extractive: bool = False,
    ) -> SummaryResult:
        """Cached, generated, or (no model, or ``extractive``) extractive. Raises
        Cancelled, LLMError kinds when every section failed, UnknownFile when the text is
        not cached."""
        kind = kind or self.settings.summary_type
        if kind not in SUMMARY_TYPES:
            raise ValueError(f"summary type must be one of {', '.join(SUMMARY_TYPES)}")
        model = model or self.settings.ollama_model
        report = progress or (lambda p: None)
        cached = None if extractive else self._cached(rec, kind, model)
        if extractive:
            hit = self._extractive_now(rec, kind, report, cancel)
        elif cached is None:
            hit = self._fresh(rec, kind, model, report, cancel)
        else:
            hit = cached
            # cached before the check: checked now, and cached again with what it found
            unchecked = (hit.unsupported is None or not hit.placed) and hit.mode == "generated"
            checked = self._checked(rec, hit, report, cancel) if unchecked else None
            if checked is not None and checked.unsupported is not None and checked.placed:
                self.catalog.put_summary(
                    rec.sha256, kind, model, replace(hit, cached=False).to_json()
                )
        self._remember(rec, hit)
        hit.file_changed = changed_since_indexed(rec)  # its text is the one rec was read from
        pages = (1, max(hit.pages, 1))
        report(SummaryProgress("done", 1, 1, pages, f"{kind} summary ready ({hit.mode})"))
        return hit

    def _checked(
        self,
        rec: DocumentRecord,
        result: SummaryResult,
        report: SummaryProgressCallback,
        cancel: threading.Event | None,
        doc: ExtractedDocument | None = None,
    ) -> SummaryResult:
        """The model's summary with the sentences the document does not clearly say
        (summary_support.py); left unchecked (None) when the document is not ready with
        this text (being indexed again: its passages may be the new text's) or the check
        fails: it never costs the summary. ``doc``: its text, when already read."""
        from docent.core.summary_support import check_summary

        n = result.sections_processed
        pages = (1, max(result.pages, 1))
        what = "each sentence against the document"
        report(SummaryProgress("checking", 1, 1, pages, what, sections_done=n, sections_total=n))
        if not self._same_text(rec):
            return result
        try:
            doc = doc or self._text(rec)
            text = "\n\n".join(p.text for p in doc.pages)
            check = check_summary(
                result.summary, rec.doc_id, text, self.store, self.embedder, cancel, rec.file_name
            )
        except Cancelled:
            raise
        except Exception:  # noqa: BLE001 - a check that fails leaves the summary unchecked
            log.warning("the summary of %s was not checked", rec.file_name, exc_info=True)
            return result
        if check is not None and self._same_text(rec):  # (not re-indexed meanwhile)
            result.unsupported, result.places = check.unsupported, check.places
            result.placed = True
        return result

    def _same_text(self, rec: DocumentRecord) -> bool:
        current = self.catalog.get(rec.doc_id)
        return (
            current is not None
            and current.state is DocState.READY
            and bool(rec.sha256)
            and current.sha256 == rec.sha256
        )

    # Producing ------------------------------------------------------------------

    def _extractive_now(
        self,
        rec: DocumentRecord,
        kind: str,
        report: SummaryProgressCallback,
        cancel: threading.Event | None,
    ) -> SummaryResult:
        key = extractive_model_key(self.embedder.model_name)
        why = ASKED
        hit = self._cached(rec, kind, key)
        if hit is not None:
            return _renoted(hit, why)
        start = time.monotonic()
        doc = self._text(rec)
        places = Places.of(doc)
        sections = split_sections(doc.pages, section_words(self.settings), places=places)
        if not sections:
            raise EmptyDocument(rec.path, f"{rec.file_name} has no text to summarise.")
        result = self._extractive(rec, doc, sections, kind, why, report, cancel)
        result.seconds = round(time.monotonic() - start, 3)
        if rec.sha256:
            self.catalog.put_summary(rec.sha256, kind, key, result.to_json())
        return result

    def _fresh(
        self,
        rec: DocumentRecord,
        kind: str,
        model: str,
        report: SummaryProgressCallback,
        cancel: threading.Event | None,
    ) -> SummaryResult:
        start = time.monotonic()
        doc = self._text(rec)
        limit = section_words(self.settings)
        places = Places.of(doc)
        sections = split_sections(doc.pages, limit, places=places)
        single = section_words(self.settings, FINAL_WORDS[kind])
        if len(sections) == 1 and sections[0].words > single:
            # one call would write the whole summary: its longer reply leaves less room
            sections = split_sections(doc.pages, single, places=places)
        if not sections:
            raise EmptyDocument(rec.path, f"{rec.file_name} has no text to summarise.")
        mapreduce = MapReduce(
            self.settings,
            model,
            rec.file_name,
            kind,
            report,
            cancel,
            limit=limit,
            extract=self._fallback(rec),
        )
        transient = False
        try:
            reduced = mapreduce.run(sections, len(doc.pages))
        except (LLMUnavailable, ModelNotFound) as exc:
            log.info("summary of %s is extractive: %s", rec.file_name, exc)
            cached = self._cached(rec, kind, extractive_model_key(self.embedder.model_name))
            if cached is not None:
                return _renoted(cached, str(exc))
            result = self._extractive(rec, doc, sections, kind, str(exc), report, cancel)
        else:
            made = self._result(rec, doc, kind, reduced, model, len(sections))
            result = self._checked(rec, made, report, cancel, doc)
            transient = reduced.transient
        result.seconds = round(time.monotonic() - start, 3)
        retry_later = bool(result.failed_sections) or transient
        if rec.sha256 and not retry_later:  # a partial one is worth a retry later
            key = model if result.mode == "generated" else extractive_model_key(result.model)
            self.catalog.put_summary(rec.sha256, kind, key, result.to_json())
        return result

    def _result(
        self,
        rec: DocumentRecord,
        doc: ExtractedDocument,
        kind: str,
        reduced: Reduced,
        model: str,
        sections: int,
    ) -> SummaryResult:
        return SummaryResult(
            summary=reduced.summary,
            type=kind,
            document=rec.file_name,
            path=rec.path,
            total_words=doc.word_count,
            pages=len(doc.pages),
            sections_processed=sections,
            section_summaries=reduced.sections,
            model=model,
            seconds=0.0,
            failed_sections=reduced.failed,
            calls=reduced.calls,
        )

    def _fallback(self, rec: DocumentRecord) -> Extract:
        """One section's most central sentences, for a section the model failed on."""
        from docent.core.extractive_summary import central_sentences

        chunks: list[Any] = []
        used: set[str] = set()  # sections overlap: a sentence stands in only once

        def extract(section: Section) -> str:
            if not chunks:  # read once, on the first section that needs it
                chunks.extend(self.store.iter_chunks(rec.doc_id, with_vectors=True))
            (picks,) = central_sentences(
                [section], chunks, self.embedder.embed_dense, FALLBACK_SENTENCES
            )
            fresh = [p.text for p in picks if p.text not in used]
            used.update(fresh)
            return " ".join(fresh)

        return extract

    def _extractive(
        self,
        rec: DocumentRecord,
        doc: ExtractedDocument,
        sections: list[Section],
        kind: str,
        why: str,
        report: SummaryProgressCallback,
        cancel: threading.Event | None,
    ) -> SummaryResult:
        from docent.core.extractive_summary import central_sentences

        chunks = self.store.iter_chunks(rec.doc_id, with_vectors=True)
        total = len(sections)

        def on_section(s: Section) -> None:
            msg = f"extracting from section {s.index} of {total} ({s.where})"
            report(SummaryProgress("extractive", s.index, total, s.pages, msg))

        picks = central_sentences(
            sections,
            chunks,
            self.embedder.embed_dense,
            EXTRACT_PER_SECTION[kind],
            cancel=cancel,
            on_section=on_section,
        )
        per_section = [
            SectionSummary(
                s.index, s.pages, " ".join(p.text for p in sents), "extracted", where=s.where
            )
            for s, sents in zip(sections, picks, strict=True)
        ]
        body = _compose_extractive(kind, sections, picks, doc) or _no_sentences(doc)
        note = _note(why)
        return SummaryResult(
            summary=f"{note}\n\n{body}",
            type=kind,
            document=rec.file_name,
            path=rec.path,
            total_words=doc.word_count,
            pages=len(doc.pages),
            sections_processed=total,
            section_summaries=per_section,
            model=self.embedder.model_name,
            seconds=0.0,
            mode="extractive",
        )

    # Cache and retrieval -----------------------------------------------------------

    def _cached(self, rec: DocumentRecord, kind: str, model: str) -> SummaryResult | None:
        if not rec.sha256:
            return None
        raw = self.catalog.get_summary(rec.sha256, kind, model)
        if raw is None:
            return None
        try:
            result = SummaryResult.from_json(raw)
        except (ValueError, KeyError, TypeError):
            log.warning("ignoring an unreadable cached summary of %s", rec.file_name)
            return None
        result.cached = True
        result.document, result.path = rec.file_name, rec.path  # the same text may have moved
        return result

    def _remember(self, rec: DocumentRecord, result: SummaryResult) -> None:
        """A brief summary becomes the document's text and vector for two-tier retrieval.

        Only for a ready document with the same content (an indexing run owns the others),
        and an extractive summary never replaces one the model wrote.
        """
        if result.type != "brief":
            return
        current = self.catalog.get(rec.doc_id)
        if current is None or current.state is not DocState.READY:
            return
        if current.sha256 != rec.sha256:
            return
        text = retrieval_text(result)
        if not text or (result.mode == "extractive" and current.summary):
            return
        stored = self.store.get_document(current.doc_id) or {}
        if current.summary == text and stored.get("summary") == text:
            return
        vector = self.embedder.embed_dense([text])[0]  # slow: the record may change meanwhile
        now = self.catalog.set_summary(current.doc_id, current.sha256, text)
        if now is None:
            return
        self.store.upsert_document(now.doc_id, vector, record_payload(now))
        self.store.flush()


def changed_note(result: SummaryResult, again: str) -> str:
    """What the window and the CLI say of a summary whose file was saved again after it
    was indexed (``again``: how to index it again, in that interface's words); "" when
    it was not."""
    if not result.file_changed:
        return ""
    return (
        f"{shown(result.document)} was saved again after it was indexed: this summary is "
        f"of the version indexed then. {again}"
    )


def _renoted(result: SummaryResult, why: str) -> SummaryResult:
    """A cached extractive summary with the note saying why it is extractive this time."""
    _, _, body = result.summary.partition("\n\n")
    result.summary = f"{_note(why)}\n\n{body}"
    return result


def _note(why: str) -> str:
    # (not what answers do meanwhile: "(... `ollama serve` (answers are extractive ...))")
    why = why.replace(ANSWERS_EXTRACTIVE, "").rstrip(".")
    return ASKED_NOTE if why == ASKED else EXTRACTIVE_NOTE.format(why=why)


def shown_text(result: SummaryResult) -> str:
    """The summary as the window and ``docent summarize`` show it: each sentence the
    check found in the document followed by where it is ("... every evening (p. 4).")."""
    from docent.core.attribution import insert_after
    from docent.core.summary_support import claims

    if not result.places:
        return result.summary
    placed = [s for s in claims(result.summary) if s in result.places]
    labels = {i: f"({result.places[s]})" for i, s in enumerate(placed)}
    return insert_after(result.summary, placed, labels)


def retrieval_text(result: SummaryResult) -> str:
    """The summary without Docent's own notes (extractive label, pages not covered) and,
    once checked, only its sentences the document bears out: what the document is
    searched by must not be a small model's invention (summary_support.py)."""
    from docent.core.summary_support import searchable

    if result.unsupported:
        return searchable(result.summary, result.unsupported)
    if result.mode == "extractive":  # its sentences, not the places shown after each
        return " ".join(s.summary for s in result.section_summaries if s.summary).strip()
    paragraphs = [p for p in result.summary.split("\n\n") if not p.startswith("_")]
    return "\n\n".join(paragraphs).strip()


#: Words of a text quoted when it has no sentence (``_no_sentences``).
OPENING_WORDS = 40


def _no_sentences(doc: ExtractedDocument) -> str:
    """What an extractive summary says of a text with no sentence to quote (a sheet of
    numbers, a table, code): that, and how it opens. It was the note alone."""
    opening = next((p.text for p in doc.pages if p.text.strip()), "")
    first = " ".join(words.first(opening, OPENING_WORDS).split())
    return (
        "It has no sentence to quote: its text is tables, numbers or code. "
        f"It opens with: “{first}{' …' if first != ' '.join(opening.split()) else ''}”"
    )


def _compose_extractive(
    kind: str, sections: list[Section], picks: list[list[Any]], doc: ExtractedDocument
) -> str:
    places = Places.of(doc)
    texts = {p.number: p.text for p in doc.pages}

    def where(s: Any) -> str:  # a text file's sentence by its own lines
        return places.of_sentence(s.page, s.text, texts.get(s.page, ""))

    if kind == "detailed":
        parts = []
        for section, sents in zip(sections, picks, strict=True):
            if sents:
                lines = "\n".join(f"- {s.text} ({where(s)})" for s in sents)
                span = places.span(section.pages)
                parts.append(f"## {span[:1].upper()}{span[1:]}\n\n{lines}")
        return "\n\n".join(parts)
    flat = [s for sents in picks for s in sents]
    keep = EXTRACT_KEEP[kind]
    chosen = sorted(flat, key=lambda s: -s.doc_score)[:keep]
    ordered = [s for s in flat if s in chosen]  # back to page order
    if kind == "bullets":
        return "\n".join(f"- {s.text} ({where(s)})" for s in ordered)
    # each sentence with its place, as the other kinds: a brief summary had none, and a
    # reader could not find where a sentence came from (QA-79)
    return " ".join(f"{s.text} ({where(s)})" for s in ordered)
