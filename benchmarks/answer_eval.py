"""Answers from a real model on the dev questions: cited, on the gold page, never looping.

    .venv/bin/python benchmarks/answer_eval.py [--model smollm2:135m] [--host URL]
        [--layout NAME] [--only q001,q019] [--out answers.jsonl] [--home DIR] [--trim N]
    .venv/bin/python benchmarks/answer_eval.py --calibrate   # the matching thresholds

A benchmark, not a test: it works with any Ollama model (default: the rig's smollm2:135m;
start it with ``../shared/llm-rig/start``) and prints figures. The library is the PDFs
the dev questions refer to plus two look-alike manuals, indexed under ``--home``
(persistent, so re-runs only index what changed). Every question goes through the same
``Answerer`` as ``Engine.ask``, with the prompt layout ``--layout``.

Per question: the mode, citations written by the model and matched by Docent, whether a
gold page is among the citations, repeated sentences, characters, tokens against the
budget, seconds, and the 1-minute load average. Then the targets:

- at least 90 % of generated answers carry a citation;
- no answer repeats a sentence or runs past its budget;
- a gold page is among the citations for at least 50 % of answerable questions;
- unanswerable questions abstain.

``--calibrate`` needs no model: for every answerable question it scores the reference
answer and evidence sentences against the passages retrieval offers, and prints how well
each weight/threshold separates the gold passage from passages of other files.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("DOCENT_SHARED", REPO.parent / "shared"))
CORPUS = SHARED / "corpus" / "pdfs"
DEV_QUESTIONS = SHARED / "corpus" / "dev-questions.jsonl"
DISTRACTORS = ["simh__ctss_hardware.pdf", "simh__vax780_doc.pdf"]

sys.path.insert(0, str(REPO / "desktop"))
from docent.core.guards import Cut, GuardLimits, OutputGuard  # noqa: E402
from docent.core.prompting import asked_message  # noqa: E402

if TYPE_CHECKING:
    from docent.core.answering import Answer
    from docent.core.attribution import EmbedFn, Scorer
    from docent.core.engine import Engine
    from docent.core.models import Hit
    from docent.core.retrieval import SearchResult


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    question: str
    file: str | None
    pages: tuple[int, ...]
    answer: str
    evidence: str

    @property
    def answerable(self) -> bool:
        return self.file is not None


@dataclass(slots=True)
class Record:
    id: str
    answerable: bool
    mode: str
    model_citations: int
    matched_citations: int
    #: Gold page among the citations; a generated answer's best-passage pointer aside.
    gold_cited: bool
    repeated: int
    chars: int
    tokens: int
    budget: int
    seconds: float
    load: float
    cut: str
    text: str
    #: What the model streamed, before any cut or matching (to judge the guards).
    raw: str
    #: Every chunk the server sent, the one a guard cut on included, and why the stream
    #: ended: what ``--replay`` serves again (the rig's model is seeded, so a re-run of
    #: the same prompt streams the same chunks). The first try's.
    chunks: list[str] = field(default_factory=list)
    done_reason: str = ""
    #: The same for every try when the model was asked again, in order (``--replay``
    #: serves them in turn; a recording made before session 10 kept only the last try's,
    #: as ``chunks``).
    tries: list[list[str]] = field(default_factory=list)
    done_reasons: list[str] = field(default_factory=list)
    #: The passages offered, as "file pN-M", in prompt order.
    offered: list[str] = field(default_factory=list)
    #: Per sentence: (sentence, support score, supported).
    sentences: list[tuple[str, float, bool]] = field(default_factory=list)
    #: A generated answer nothing supports (``Answer.unsupported_answer``): labelled so,
    #: the best passages quoted beneath it ("retrieved", never counted as cited); and
    #: whether a gold page is among those passages.
    unsupported: bool = False
    gold_quoted: bool = False
    #: Each sentence that carries a citation: (sentence, numbers, "model" | "matched"),
    #: and the passages offered as the model saw them (to judge the citations by hand).
    cited: list[tuple[str, list[int], str]] = field(default_factory=list)
    passages: list[str] = field(default_factory=list)
    #: Parts of cited sentences that their passage does not say (``Answer.unsaid_parts``).
    unsaid: list[str] = field(default_factory=list)
    #: A citation's chip opens a gold page itself (``Citation.opens_at``: for a passage
    #: over two pages, the page its cited part is on), not only a passage holding one.
    gold_opened: bool = False
    #: Above 1: an answer had no supported sentence and the model was asked again
    #: (``llm_answer_retries``); the record is the last answer's.
    attempts: int = 1


def load_questions(only: Sequence[str]) -> list[Question]:
    rows = [json.loads(line) for line in DEV_QUESTIONS.read_text().splitlines() if line.strip()]
    qs = [
        Question(
            r["id"],
            r["question"],
            r.get("file"),
            tuple(r.get("pages") or ()),
            r.get("answer") or "",
            r.get("evidence") or "",
        )
        for r in rows
    ]
    return [q for q in qs if not only or q.id in only]


def open_library(
    home: Path,
    questions: Sequence[Question],
    host: str,
    model: str,
    context: int,
    *,
    retries: int | None = None,
) -> Engine:
    from docent.core.config import Settings
    from docent.core.engine import Engine

    more: dict[str, object] = {}
    if retries is not None:  # the request cap grows with them: the first ask plus each try
        more = {"llm_answer_retries": retries, "llm_max_requests_per_question": max(3, retries + 1)}
    settings = Settings(
        data_dir=str(home),
        ollama_host=host,
        ollama_model=model,
        llm_first_token_timeout=600,
        llm_total_timeout=1200,
        llm_context_tokens=context,
        **more,
    )
    eng = Engine(settings).open()
    files = sorted({q.file for q in questions if q.file} | set(DISTRACTORS))
    started = time.monotonic()
    report = eng.index([CORPUS / f for f in files])
    print(
        f"library: {len(files)} PDFs ({len(report.indexed)} indexed now, "
        f"{time.monotonic() - started:.0f} s)",
        file=sys.stderr,
    )
    return eng


def on_gold_page(file: str | None, pages: Sequence[int], hit_file: str, lo: int, hi: int) -> bool:
    return file == hit_file and any(lo <= p <= hi for p in pages)


def repeated_sentences(text: str) -> int:
    """Sentences of three words or more said again; a section number the model copied
    twice ("4.0.5.6.", split off as a sentence of its own) is no sentence (session 21)."""
    from docent.core.evaluation import split_sentences
    from docent.core.guards import normalise

    keys = [normalise(s) for s in split_sentences(text)]
    counts = Counter(k for k in keys if len(k.split()) >= 3 and re.search(r"[^\W\d_]", k))
    return sum(n - 1 for n in counts.values())


def load1() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


# Answers --------------------------------------------------------------------------


def trimmed(eng: Engine, keep: int, shown: int = 3) -> Callable[[str, Sequence[str]], SearchResult]:
    """``eng.search`` with each of the ``shown`` best passages cut to its ``keep`` sentences
    nearest the question (half the share of its words, half the embedder's cosine), in
    their order, a gap marked with "…" (session 9: a small model given less to copy)."""
    import dataclasses

    import numpy as np

    from docent.core.evaluation import split_sentences, terms

    def cut(question: str, text: str) -> str:
        sentences = split_sentences(" ".join(text.split()))
        if len(sentences) <= keep:
            return text
        vecs = np.array(eng.embedder.embed_dense([question, *sentences]), dtype=float)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        wanted = terms(question)
        share = [len(terms(s) & wanted) / max(len(wanted), 1) for s in sentences]
        score = 0.5 * (vecs[1:] @ vecs[0]) + 0.5 * np.array(share)
        parts: list[str] = []
        last = None
        for i in sorted(np.argsort(-score)[:keep]):
            if last is not None and i != last + 1:
                parts.append("…")
            parts.append(sentences[i])
            last = i
        return " ".join(parts)

    def search(query: str, rewrites: Sequence[str]) -> SearchResult:
        result = eng.search(query, rewrites=rewrites)
        head = [dataclasses.replace(h, text=cut(query, h.text)) for h in result.hits[:shown]]
        result.hits = head + result.hits[shown:]
        return result

    return search


def ask_all(
    eng: Engine, questions: Sequence[Question], layout_name: str, out: str = "", trim: int = 0
) -> list[Record]:
    """Each record is written to ``out`` (JSON lines) as soon as it is made. ``trim``: the
    passages offered cut to that many sentences each (``trimmed``)."""
    from docent.core import answering
    from docent.core.answering import Answerer
    from docent.core.prompting import LAYOUTS

    layout = LAYOUTS[layout_name]
    search = (
        trimmed(eng, trim) if trim else lambda query, rewrites: eng.search(query, rewrites=rewrites)
    )
    guards: list[RecordingGuard] = []
    real_guard_for = answering.guard_for

    def recording_guard_for(options: Mapping[str, object] | None) -> OutputGuard:
        made = real_guard_for(options)
        guards.append(RecordingGuard(made.limits, made.what))
        return guards[-1]

    records = []
    answering.guard_for = recording_guard_for  # type: ignore[assignment]
    try:
        for q in questions:
            answerer = Answerer(
                eng.llm,
                eng.settings,
                search,
                count_tokens=eng.embedder.count_tokens,
                embed=eng.embedder.embed_dense,
                layout=layout,
            )
            guards.clear()
            started = time.monotonic()
            streamed: list[str] = []
            answer = answerer.answer(q.question, on_token=streamed.append)
            rec = record(q, answer, time.monotonic() - started, "".join(streamed))
            if guards:
                rec.chunks, rec.done_reason = guards[0].chunks, guards[0].done_reason
                rec.tries = [g.chunks for g in guards]
                rec.done_reasons = [g.done_reason for g in guards]
            records.append(rec)
            print(line(rec), flush=True)
            if out:
                with open(out, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps(asdict(rec)) + "\n")
    finally:
        answering.guard_for = real_guard_for
    return records


class RecordingGuard(OutputGuard):
    """Keeps every chunk the server sent, the one the guard cuts on included (the
    stream does not yield that one), so ``--replay`` can serve the same stream."""

    def __init__(self, limits: GuardLimits, what: str) -> None:
        super().__init__(limits, what)
        self.chunks: list[str] = []

    def feed(self, token: str) -> Cut | None:
        if self.cut is None:
            self.chunks.append(token)
        return super().feed(token)


def record(q: Question, answer: Answer, seconds: float, raw: str) -> Record:
    body = answer.parts()[1]  # the model's words, without Docent's lead or quotes
    if answer.cut and body.endswith(f"({answer.cut})"):
        body = body[: -len(answer.cut) - 2].rstrip()
    unsupported = set(answer.unsupported_sentences)
    quoted = answer.mode == "generated" and answer.unsupported_answer
    on_gold = any(
        on_gold_page(q.file, q.pages, c.file_name, c.page, c.page_end) for c in answer.citations
    )
    opened = any(
        on_gold_page(q.file, q.pages, c.file_name, c.opens_at, c.opens_at) for c in answer.citations
    )
    return Record(
        id=q.id,
        answerable=q.answerable,
        mode=answer.mode,
        model_citations=sum(c.source == "model" for c in answer.citations),
        matched_citations=sum(c.source == "matched" for c in answer.citations),
        gold_cited=on_gold and not quoted,
        unsupported=quoted,
        gold_quoted=on_gold and quoted,
        gold_opened=opened and not quoted,
        repeated=repeated_sentences(body) if answer.mode == "generated" else 0,
        chars=len(body),
        tokens=answer.tokens,
        budget=answer.budget,
        seconds=round(seconds, 1),
        load=load1(),
        cut=answer.cut,
        text=answer.text,
        raw=raw,
        offered=[f"{h.file_name} p{h.page_start}-{h.page_end}" for h in answer.offered],
        sentences=[(s, score, s not in unsupported) for s, score in answer.sentence_support],
        cited=cited_sentences(answer),
        passages=[h.text for h in answer.offered],
        unsaid=list(answer.unsaid_parts),
        attempts=answer.attempts,
    )


def cited_sentences(answer: Answer) -> list[tuple[str, list[int], str]]:
    """The model's sentences that carry a citation, with its numbers and who wrote it."""
    from docent.core.citations import cited_numbers
    from docent.core.evaluation import split_sentences

    if answer.mode != "generated" or answer.unsupported_answer:
        return []
    source = {c.n: c.source for c in answer.citations}
    out = []
    for sentence in split_sentences(answer.text):
        nums = [n for n in cited_numbers(sentence) if n in source]
        if nums:
            out.append((sentence, nums, source[nums[0]]))
    return out


def line(r: Record) -> str:
    gold = "gold" if r.gold_cited else ("-" if r.answerable else "n/a")
    if r.unsupported:
        gold = "uns" + ("G" if r.gold_quoted else "-")
    over = " OVER" if r.budget and r.tokens > r.budget else ""
    cut = f" cut:{r.cut.split(' because ')[-1][:40]}" if r.cut else ""
    cut += f" (asked {r.attempts} times)" if r.attempts > 1 else ""
    return (
        f"{r.id} {r.mode:10} model={r.model_citations} matched={r.matched_citations} "
        f"{gold:4} rep={r.repeated} {r.chars:5d} ch {r.tokens:4d}/{r.budget} tok{over} "
        f"{r.seconds:6.1f} s load {r.load:.1f}{cut}"
    )


def summary(records: Sequence[Record], model: str, layout: str, context: int) -> str:
    generated = [r for r in records if r.mode == "generated"]
    answerable = [r for r in records if r.answerable]
    unanswerable = [r for r in records if not r.answerable]
    cited = [r for r in generated if r.model_citations + r.matched_citations]
    by_model = [r for r in generated if r.model_citations]
    gold = [r for r in answerable if r.gold_cited]
    quoted = [r for r in generated if r.unsupported]
    gold_or_quoted = [r for r in answerable if r.gold_cited or r.gold_quoted]
    repeats = sum(r.repeated > 0 for r in records)
    over = sum(bool(r.budget) and r.tokens > r.budget for r in records)
    abstained = [r for r in unanswerable if r.mode == "abstained"]
    secs = [r.seconds for r in generated] or [0.0]
    loads = [r.load for r in records] or [0.0]

    def pct(part: Sequence[Record], whole: Sequence[Record]) -> str:
        return f"{len(part)}/{len(whole)} ({len(part) / max(len(whole), 1):.0%})"

    rows = [
        ("layout, context", f"{layout}, {context}"),
        ("model", model),
        ("modes", ", ".join(f"{k} {v}" for k, v in Counter(r.mode for r in records).items())),
        ("generated answers with a citation (target ≥ 90 %)", pct(cited, generated)),
        ("... cited by the model itself", pct(by_model, generated)),
        (
            "... with a cited sentence that goes on past its passage (that part underlined)",
            pct([r for r in cited if r.unsaid], generated),
        ),
        (
            "... not supported: labelled so, the best passages quoted beneath",
            pct(quoted, generated),
        ),
        ("gold page among the citations, answerable (target ≥ 50 %)", pct(gold, answerable)),
        (
            "... a chip of theirs opens the gold page itself",
            pct([r for r in gold if r.gold_opened], answerable),
        ),
        ("... or among an unsupported answer's quoted passages", pct(gold_or_quoted, answerable)),
        ("answers with a repeated sentence (target 0)", str(repeats)),
        ("answers past their budget (target 0)", str(over)),
        ("answers cut by a guard", str(sum(bool(r.cut) for r in records))),
        (
            "asked again (an answer unsupported), of them cited",
            f"{sum(r.attempts > 1 for r in generated)}, "
            f"{sum(r.attempts > 1 and r in cited for r in generated)}",
        ),
        ("unanswerable questions abstained", pct(abstained, unanswerable)),
        (
            "median / max seconds per generated answer",
            f"{statistics.median(secs):.0f} / {max(secs):.0f}",
        ),
        (
            "median characters per generated answer",
            f"{statistics.median([r.chars for r in generated] or [0]):.0f}",
        ),
        ("1-min load average during the run (min-max)", f"{min(loads):.1f}-{max(loads):.1f}"),
    ]
    return "\n".join(["| | |", "|---|---|", *(f"| {k} | {v} |" for k, v in rows)])


# Calibration ----------------------------------------------------------------------


def calibrate(eng: Engine, questions: Sequence[Question], windows: Sequence[int]) -> None:
    """How well support scores separate the gold passage from the others, and how often
    a sentence no offered passage supports would be cited wrongly.

    Positives: the reference answer and evidence sentences of each answerable question
    against the passages its prompt offers. Negatives: the reference sentences of the
    other questions whose gold page is not offered (nothing offered supports them). The
    same twice over for whole answers (all of a question's reference sentences at once).
    Once per cosine window (``Thresholds.window``: 0 is the whole passage only).
    """
    from docent.core.attribution import Scorer, Thresholds, plain
    from docent.core.conversation import Conversation
    from docent.core.evaluation import split_sentences
    from docent.core.prompting import build_prompt, context_plan

    answerable = [q for q in questions if q.answerable]
    refs = {q.id: split_sentences(q.answer) + split_sentences(q.evidence) for q in answerable}
    prompts = []
    for q in answerable:
        hits = eng.search(q.question).hits
        plan = context_plan(eng.settings, eng.embedder.count_tokens, q.question)
        prompt = build_prompt(q.question, q.question, hits, Conversation(), plan, follows=False)
        gold = {n for n, h in enumerate(prompt.offered, 1) if is_gold(q, h)}
        if not gold:
            continue
        negs = [
            o.id
            for o in answerable
            if o.id != q.id and not any(is_gold(o, h) for h in prompt.offered)
        ]
        neg = [s for o in negs for s in refs[o]]
        wholes = [" ".join(plain(s) for s in refs[o]) for o in [q.id, *negs]]
        prompts.append(
            (prompt.shown, [*refs[q.id], *neg, *wholes], gold, len(refs[q.id]), len(neg))
        )
    n_pos = sum(c[3] for c in prompts)
    n_neg = sum(c[4] for c in prompts)
    print(
        f"{len(prompts)} questions with a gold passage offered: {n_pos} reference sentences, "
        f"{n_neg} sentences of other questions (nothing offered supports them)"
    )
    embed = cached(eng.embedder.embed_dense)
    for window in windows:
        print(f"\n== cosine window {window} (0: the whole passage only)", flush=True)
        cases = [
            (Scorer(texts, shown, embed, Thresholds(0.0, window=window)), texts, gold, npos, nneg)
            for shown, texts, gold, npos, nneg in prompts
        ]
        _calibrate_sentences(cases, n_pos, n_neg, window)
        _calibrate_wholes(cases, window)


CalCase = tuple["Scorer", list[str], set[int], int, int]


def cached(embed: EmbedFn) -> EmbedFn:
    """``embed`` that computes each text once (the cases share most of their sentences)."""
    memo: dict[str, list[float]] = {}

    def embed_once(texts: Sequence[str]) -> list[list[float]]:
        todo = list(dict.fromkeys(t for t in texts if t not in memo))
        if todo:
            memo.update(zip(todo, embed(todo), strict=True))
        return [memo[t] for t in texts]

    return embed_once


def _calibrate_sentences(cases: Sequence[CalCase], n_pos: int, n_neg: int, window: int) -> None:
    from docent.core.attribution import Thresholds

    for weight in (0.25, 0.4, 0.5, 0.6, 0.75, 1.0):
        print(f"\nweight {weight:.2f} (overlap share of the score)")
        for t in (0.4, 0.45, 0.5, 0.55, 0.6):
            gold_hit = wrong_hit = neg_hit = 0
            for scorer, texts, gold, npos, nneg in cases:
                scorer.t = Thresholds(weight=weight, support=t, window=window)
                for i in range(npos + nneg):
                    n, score = scorer.best(i, texts[i])
                    if score < t:
                        continue
                    if i >= npos:
                        neg_hit += 1
                    elif n in gold:
                        gold_hit += 1
                    else:
                        wrong_hit += 1
            print(
                f"  sentence threshold {t:.2f}: reference sentences matched to gold "
                f"{gold_hit / n_pos:5.1%}, to another passage {wrong_hit / n_pos:5.1%}; "
                f"unsupported sentences cited wrongly {neg_hit}/{n_neg} ({neg_hit / n_neg:.1%})"
            )


def _calibrate_wholes(cases: Sequence[CalCase], window: int) -> None:
    from docent.core.attribution import Thresholds, whole_match

    print("\nwhole answers (weight 0.5): matched when best >= whole and >= margin above the next")
    for whole in (0.4, 0.45, 0.5, 0.55):
        for margin in (0.05, 0.1, 0.15):
            gold_hit = wrong_hit = neg_hit = tried = 0
            for scorer, texts, gold, npos, nneg in cases:
                scorer.t = Thresholds(whole=whole, whole_margin=margin, window=window)
                first = npos + nneg
                for j, i in enumerate(range(first, len(texts))):
                    n = whole_match(scorer, i, texts[i])
                    if j:
                        tried += 1
                        neg_hit += n is not None
                    elif n is not None:
                        gold_hit += n in gold
                        wrong_hit += n not in gold
            print(
                f"  whole {whole:.2f}, margin {margin:.2f}: reference answers matched to gold "
                f"{gold_hit}/{len(cases)}, elsewhere {wrong_hit}; other questions' answers "
                f"cited wrongly {neg_hit}/{tried} ({neg_hit / max(tried, 1):.1%})"
            )


def is_gold(q: Question, h: Hit) -> bool:
    return on_gold_page(q.file, q.pages, h.file_name, h.page_start, h.page_end)


def replay(args: argparse.Namespace, questions: Sequence[Question], layout: str) -> int:
    """The recorded streams served again by the test suite's stand-in Ollama server, so
    the checks after the stream (guards, citations, matching) can be re-run on the same
    output without the model. The passages offered must be the ones recorded.

    An answer asked again is served its tries in turn (retries as the setting's default,
    or ``--retries``); if the replay asks more often than the recording did (other
    thresholds or retries), it is served the first try again, which as a later try can
    never replace it. A recording made before session 10
    holds only each answer's last try: it is replayed once, without retries."""
    sys.path.insert(0, str(REPO / "tests"))
    from ollama_stub import OllamaStub

    recorded = {
        r["id"]: r for r in map(json.loads, Path(args.replay).read_text().splitlines()) if r
    }
    by_question = {q.question: recorded[q.id] for q in questions if q.id in recorded}
    with_tries = all("tries" in r for r in by_question.values())
    stub = OllamaStub(models=[args.model])
    served: Counter[str] = Counter()

    def respond(messages: list[dict[str, object]], model: str) -> list[str]:
        asked = asked_message(messages)
        q, rec = next((q, r) for q, r in by_question.items() if f"Question: {q}" in asked)
        tries = rec.get("tries") or [rec["chunks"]]
        reasons = rec.get("done_reasons") or [rec["done_reason"]]
        n = served[q] if served[q] < len(tries) else 0
        served[q] += 1
        stub.done_reason = reasons[n] or "stop"
        return list(tries[n])

    stub.responder = respond
    retries = args.retries if with_tries else 0
    with stub:
        eng = open_library(
            Path(args.home), load_questions([]), stub.url, args.model, args.context, retries=retries
        )
        if args.set:
            use_retrieval(eng, args.set)
        try:
            print(f"replay of {args.replay}, layout {layout}", file=sys.stderr)
            records = ask_all(eng, [q for q in questions if q.question in by_question], layout)
        finally:
            eng.close()
    moved = [r.id for r in records if r.offered != recorded[r.id]["offered"]]
    if moved:
        print(f"passages offered differ from the recording: {', '.join(moved)}", file=sys.stderr)
    for r in records:  # the recording's time and load, not the replay's
        r.seconds, r.load = recorded[r.id]["seconds"], recorded[r.id]["load"]
    finish(args, records, layout)
    return 0


def finish(args: argparse.Namespace, records: Sequence[Record], layout: str) -> None:
    if args.out:  # again, whole (a replay corrects the seconds and load afterwards)
        with open(args.out, "w", encoding="utf-8") as fh:
            for r in records:
                fh.write(json.dumps(asdict(r)) + "\n")
    print()
    print(summary(records, args.model, layout, args.context))


def use_retrieval(eng: Engine, items: Sequence[str]) -> None:
    """The engine's retrieval with RetrievalConfig fields changed (``KEY=VALUE``), as
    ``retrieval_eval.py --set`` changes them: what the answers are given to read."""
    from retrieval_eval import config_with

    retriever = eng._retriever  # made when the engine opened
    assert retriever is not None
    retriever.config = config_with(retriever.config, items)
    print(f"retrieval: {retriever.config}", file=sys.stderr)


def use_thresholds(spec: str) -> None:
    """Answers matched with other thresholds (``attribute`` reads the module's default)."""
    import dataclasses

    from docent.core import attribution

    changes = {k: float(v) for k, v in (kv.split("=") for kv in spec.split(","))}
    for whole in ("window", "copied_words"):
        if whole in changes:
            changes[whole] = int(changes[whole])
    attribution.THRESHOLDS = dataclasses.replace(attribution.THRESHOLDS, **changes)  # type: ignore[arg-type]
    print(f"matching thresholds: {attribution.THRESHOLDS}", file=sys.stderr)


def model_arguments(parser: argparse.ArgumentParser) -> None:
    """``--model`` and ``--host``, as every benchmark that asks a model takes them: the rig's
    model, at DOCENT_RIG_HOST, OLLAMA_HOST or the rig's default port."""
    parser.add_argument("--model", default="smollm2:135m")
    parser.add_argument(
        "--host",
        default=os.environ.get("DOCENT_RIG_HOST")
        or os.environ.get("OLLAMA_HOST")
        or "http://127.0.0.1:11435",
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    model_arguments(parser)
    parser.add_argument("--home", default="/tmp/docent-answer-eval")
    parser.add_argument("--layout", default="")
    parser.add_argument(
        "--context", type=int, default=4096, help="llm_context_tokens (the rig serves 4096)"
    )
    parser.add_argument("--only", default="", help="comma-separated question ids")
    parser.add_argument(
        "--trim", type=int, default=0, help="cut each passage offered to its N nearest sentences"
    )
    parser.add_argument(
        "--set", nargs="*", default=[], metavar="KEY=VALUE", help="RetrievalConfig fields"
    )
    parser.add_argument("--out", default="", help="write one JSON record per question")
    parser.add_argument(
        "--match",
        default="",
        help="matching thresholds to try instead of the default, e.g. support=0.45,window=1",
    )
    parser.add_argument(
        "--retries",
        type=int,
        default=None,
        help="llm_answer_retries (default: the setting's default; 0: never ask again)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="the answers' sampling seed (default: prompting.ANSWER_SAMPLING's); other "
        "seeds give other outputs of the same model, for more answers to read",
    )
    parser.add_argument("--calibrate", action="store_true")
    parser.add_argument(
        "--windows", default="0", help="--calibrate: cosine windows to compare, e.g. 0,1,2"
    )
    parser.add_argument(
        "--replay",
        default="",
        help="serve the streams recorded in this --out file from a stand-in server",
    )
    args = parser.parse_args()
    from docent.core.prompting import DEFAULT_LAYOUT

    layout = args.layout or DEFAULT_LAYOUT.name
    if args.seed is not None:
        from docent.core import prompting

        prompting.ANSWER_SAMPLING["seed"] = args.seed
    if args.match:
        use_thresholds(args.match)
    questions = load_questions([s for s in args.only.split(",") if s])
    if args.replay:
        return replay(args, questions, layout)
    host = args.host
    eng = open_library(
        Path(args.home), load_questions([]), host, args.model, args.context, retries=args.retries
    )
    if args.set:
        use_retrieval(eng, args.set)
    try:
        if args.calibrate:
            calibrate(eng, questions, [int(w) for w in args.windows.split(",")])
            return 0
        health = eng.llm_health(timeout=5.0)
        if not health.ok:
            print(f"no model: {health.message}", file=sys.stderr)
            return 1
        from docent.core.prompting import ANSWER_SAMPLING

        print(
            f"{args.model} at {host}, layout {layout}, context {args.context}, "
            f"seed {ANSWER_SAMPLING['seed']}, load {load1():.1f}",
            file=sys.stderr,
        )
        if args.out:
            Path(args.out).write_text("")
        records = ask_all(eng, questions, layout, args.out, trim=args.trim)
    finally:
        eng.close()
    finish(args, records, layout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
