"""`docent` command line. Heavy modules are imported inside commands so --help is instant."""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docent import cli_collections, cli_store, cli_watch
from docent.cli_json import print_json
from docent.cli_progress import ProgressBar
from docent.cli_signals import handlers_restored, stop_on_signals
from docent.cli_text import pad, unbold
from docent.core.files import describe_unsupported
from docent.core.gaps import sentence as gap_sentence
from docent.core.models import CANCELLED, DocState, unit_long, unit_short
from docent.core.userfiles import distinct_paths, shown

if TYPE_CHECKING:
    from docent.core.engine import Engine
    from docent.core.indexer import IndexReport


def _open_engine(rebuild: bool = False) -> Engine:
    from docent.core.engine import Engine

    eng = Engine().open(rebuild=rebuild)
    for note in eng.notes:  # what opening changed (a store deleted, a catalog rebuilt...)
        print(f"docent: {note}", file=sys.stderr)
    return eng


def _report_dict(r: IndexReport) -> dict[str, Any]:
    return {
        "indexed": r.indexed,
        "unchanged": r.unchanged,
        "renamed": [{"from": a, "to": b} for a, b in r.renamed],
        "removed": r.removed,
        "failed": [{"path": f.path, "reason": f.reason, "message": f.message} for f in r.failed],
        "skipped": [{"path": f.path, "reason": f.reason, "message": f.message} for f in r.skipped],
        "unsupported": r.unsupported,
        "read_in_part": [{"path": p, "gaps": g} for p, g in r.gaps],
        "chunks_embedded": r.chunks_embedded,
        "chunks_reused": r.chunks_reused,
        "seconds": round(r.seconds, 3),
        "cancelled": r.cancelled,
    }


#: What `docent index` says when it was stopped (Ctrl-C, SIGTERM).
CANCELLED_RUN = (
    "\nCancelled; what finished is kept. A file cut short keeps the version it had (a new "
    "file, none), and its embedding starts over at the next run: the chunks embedded below "
    "count its work too."
)


def _cancelled_files(eng: Engine, collection: str | None) -> list[str]:
    """The cancelled documents' files that are still there; those gone are said, with how
    to forget them (resumed, each failed as missing, every run, and stayed cancelled)."""
    cancelled = [r for r in eng.documents(collection) if r.state_label == CANCELLED]
    gone = [r for r in cancelled if not os.path.lexists(r.path)]
    if gone:
        names = ", ".join(shown(r.file_name) for r in gone[:3])
        more = f" and {len(gone) - 3} more" if len(gone) > 3 else ""
        print(
            f"docent: not resumed, their files are gone: {names}{more} "
            "(`docent remove NAME` forgets one).",
            file=sys.stderr,
        )
    gone_ids = {r.doc_id for r in gone}
    return [r.path for r in cancelled if r.doc_id not in gone_ids]


def _chunks(n: int) -> str:
    return f"{n} chunk" if n == 1 else f"{n} chunks"


def cmd_index(args: argparse.Namespace) -> int:
    import threading

    from docent.core.jobs import RunStopped

    cancel = threading.Event()
    bar = ProgressBar(quiet=args.quiet)
    reports: list[IndexReport] = []  # the resume's, then the run's
    try:
        with _open_engine(rebuild=args.rebuild) as eng:
            resuming = not args.paths and not args.rebuild
            swept: list[str] = []
            if resuming:
                # what was cancelled (of the collection named): `docent status` says
                # `docent index` resumes it, and with no path it said "give files or
                # folders" (QA, session 30); and the watched folders, swept as the
                # window's start does (QA-77)
                chosen = cli_collections.chosen(eng, args)
                args.paths = _cancelled_files(eng, chosen)
                swept = eng.watched_folders(chosen)
                if away := [f for f in swept if not os.path.isdir(f)]:
                    # not swept: unplugged? its documents are kept (review, session 34)
                    print(
                        "docent: not swept, not there (unplugged or moved?): "
                        + ", ".join(shown(f) for f in away)
                        + f"; {'their' if len(away) > 1 else 'its'} documents are kept.",
                        file=sys.stderr,
                    )
                    swept = [f for f in swept if f not in away]
                left = eng.recovered or eng.outdated or eng.changed or eng.awaiting_ocr
                if not (args.paths or left or away + swept):
                    print(
                        "docent index: give files or folders to index (or --rebuild); "
                        "nothing is left to resume",
                        file=sys.stderr,
                    )
                    return 2
            # a collection for files that exist: `index /typo --collection New` made it;
            # a resume joins none (each document keeps its own)
            named = not resuming and any(os.path.lexists(p) for p in args.paths)
            collection = cli_collections.made(eng, args) if named else None
            try:
                if eng.recovered or eng.outdated or eng.changed or eng.awaiting_ocr:
                    reports.append(eng.resume(bar, cancel))
                for folder in swept:
                    if cancel.is_set():
                        break
                    bar.new_run()
                    reports.append(eng.sweep(folder, bar, cancel))
                if args.paths or args.rebuild or not reports:
                    bar.new_run()
                    reports.append(
                        eng.index(
                            args.paths,
                            recursive=args.recursive,
                            progress=bar,
                            cancel=cancel,
                            collection=collection,
                        )
                    )
            except RunStopped as stopped:  # Ctrl-C or SIGTERM: the run ended, cancelled
                cancel.set()
                reports.append(stopped.report)
            finally:
                bar.close()
            names = {c.id: c.name for c in eng.collections()}
    except KeyboardInterrupt:  # stopped outside a run, or a run that did not end in time
        cancel.set()
        print(CANCELLED_RUN, file=sys.stderr)
        return 130
    main = reports[-1]
    for earlier in reports[:-1]:
        main.merge(earlier)
    if cancel.is_set():
        print(CANCELLED_RUN, file=sys.stderr)
    if args.json:
        print_json(_report_dict(main) | cli_collections.regrouped_dict(main, names))
    else:
        print(
            f"indexed {len(main.indexed)}, unchanged {len(main.unchanged)}, "
            f"renamed {len(main.renamed)}, removed {len(main.removed)}, "
            f"failed {len(main.failed)}; {_chunks(main.chunks_embedded)} embedded "
            f"({main.chunks_reused} reused) in {main.seconds:.1f} s"
        )
        cli_collections.print_regrouped(main, names)
        for f in main.failed:
            print(f"  failed: {shown(f.path)}: {f.message}")
        for path, gaps in main.gaps:
            print(f"  read in part: {shown(path)}: {gap_sentence(gaps)}")
        # deleted or moved while the run read them: listed as they were until the next
        # run of their folder finds them gone or moved (it reused their passages then);
        # said, not left to be found (QA, session 31)
        for path in (p for p in main.indexed if not os.path.lexists(p)):
            print(
                f"  gone since it was read: {shown(path)} (moved or deleted?); it stays "
                "listed until `docent index` runs on its folder again"
            )
        if main.skipped:
            print(f"skipped {len(main.skipped)} (not read):")
        for f in main.skipped:
            print(f"  {shown(f.path)}: {f.message}")
        if main.unsupported:
            print(describe_unsupported(main.unsupported))
    if cancel.is_set():
        return 130
    total = len(main.indexed) + len(main.unchanged) + len(main.renamed) + len(main.removed)
    return 1 if main.failed and total == 0 else 0


def cmd_list(args: argparse.Namespace) -> int:
    from docent.core.files import files_gone

    with _open_engine() as eng:
        docs = eng.documents(cli_collections.chosen(eng, args))
        names = {c.id: c.name for c in eng.collections()}
    # a file moved or deleted outside the watched folders stays searchable, and was
    # listed "ready" as if it were there (QA-77): said, with what to do
    gone = files_gone(docs)
    if args.json:
        print_json(
            [
                {
                    "path": d.path,
                    "file_name": d.file_name,
                    "state": d.state.value,
                    "pages": d.pages,
                    "chunks": d.chunks,
                    "ocr_pages": d.ocr_pages,
                    "gaps": d.gaps,
                    "error": d.error,
                    "collections": sorted(names.get(c, c) for c in d.collections),
                    "file_missing": d.path in gone,
                }
                for d in docs
            ]
        )
        return 0
    if not docs:
        where = f" in the collection '{args.collection}'" if args.collection else ""
        print(f"No documents{where} yet. Add some with `docent index PATH`.")
    labels = distinct_paths(d.path for d in docs)  # two notes.md: with their folders
    for d in docs:
        state = d.state_label + (f": {d.error}" if d.error else "")
        if d.gaps and d.state is DocState.READY:
            state += f" ({d.gaps})"
        if d.path in gone:
            state += " (its file is gone: moved or deleted?)"
        ocr = f" (OCR: {d.ocr_pages} p)" if d.ocr_pages else ""
        unit = f"{d.pages:>5} {unit_short(d.page_unit, d.pages):<6}"
        chunks = "chunk " if d.chunks == 1 else "chunks"
        print(f"{pad(shown(labels[d.path]), 48)} {unit} {d.chunks:>6} {chunks}  {state}{ocr}")
    if gone:
        one = len(gone) == 1
        docs_, stay, it = ("document", "stays", "it") if one else ("documents", "stay", "them")
        print(
            f"\n{len(gone)} {docs_} whose file is gone {stay} searchable: `docent index "
            f"FOLDER` on the folder {it} {'was' if one else 'were'} in drops {it} (or, moved "
            f"within it, finds {it} again with nothing re-embedded); `docent remove NAME` "
            f"forgets {'it' if one else 'one'}.",
            file=sys.stderr,
        )
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    from docent.core.config import load_settings, settings_file
    from docent.core.engine import Engine

    settings = load_settings()
    if not settings.catalog_path.exists():
        # asking is no reason to make a library (QA-78: one appeared in ~/.local/share);
        # an engine not opened asks Ollama without touching the data folder
        health = Engine(settings).llm_health(timeout=2.0)
        if args.json:
            print_json(
                {"library": None, "data_dir": str(settings.data_path), "ollama": asdict(health)}
            )
            return 0
        print(
            f"No library at {settings.data_path} yet: `docent index <folder>` or the window "
            "makes one."
        )
        print(f"Settings:  {settings_file()}")
        print(f"Ollama:    {health.message}")
        for folder in settings.watched_folders:
            print(f"Watching:  {shown(folder)} (not indexed yet: `docent index` indexes it)")
        return 0
    with _open_engine() as eng:
        st = eng.status()
    # the window's status bar says whether answers will be written: so does this (QA,
    # session 32: `docent status` said nothing of Ollama); asked once the library's lock
    # is let go (an unreachable host takes the whole timeout; review, session 33)
    health = eng.llm_health(timeout=2.0)
    if args.json:
        print_json({**asdict(st), "ollama": asdict(health)})
        return 0
    cancelled = f", {st.cancelled} cancelled (`docent index` resumes them)" if st.cancelled else ""
    print(
        f"Documents: {st.documents} ({st.ready} ready, {st.failed} failed, "
        f"{st.queued} queued, {st.indexing} indexing{cancelled})"
    )
    print(f"Chunks:    {st.chunks}")
    print(f"Store:     {st.store} ({st.backend})")
    print(f"Data:      {st.data_dir}")
    print(f"Settings:  {settings_file()}")
    print(f"Embedding: {st.embedding_model}")
    print(f"Ollama:    {health.message}")
    for w in st.watched:
        # "off" read as switched off: nothing watches it while no window runs (QA-78)
        state = (
            "followed while the window or `docent watch` runs; `docent index` sweeps it"
            if w.state.value == "off"  # (watching.py imports the indexer: not for --help)
            else w.state.value
        )
        print(f"Watching:  {shown(w.path)} ({state})")
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    debug = bool(getattr(args, "debug", False))
    with _open_engine() as eng:
        crossed = bool(eng.settings.rerank_model_dir)
        result = eng.search(
            args.query,
            files=args.file or None,
            k=args.k,
            debug=debug,
            collection=cli_collections.chosen(eng, args),
        )
        labels = {h.path: h.name or h.file_name for h in result.hits}
    hits = [
        {
            "file_name": h.file_name,
            "path": h.path,
            "page_start": h.page_start,
            "page_end": h.page_end,
            # where, as a citation says it: "p.4", "slide 3", "lines 13-29", "rows 2–26"
            "location": h.pages_label,
            "score": round(h.score, 6),
            "text": h.text,
            "chunk_id": h.chunk_id,
            "doc_id": h.doc_id,
            "context_before": h.context_before,
            "context_after": h.context_after,
        }
        for h in result.hits
    ]
    ev = result.evaluation
    if args.json:
        out: dict[str, Any] = {
            "query": args.query,
            "confidence": result.confidence,
            "sufficient": result.sufficient,
            "k": result.k,
            "hits": hits,
        }
        if ev is not None:
            out["evaluation"] = asdict(ev)
        if debug:
            out["debug"] = result.debug
        print_json(out)
        return 0
    if not hits:
        print("No matches.")
    before = fusion_ranks([h.score for h in result.hits])
    for n, h in enumerate(result.hits, 1):
        text = " ".join(h.text.split())
        moved = f", #{before[n - 1]} by fused score" if before[n - 1] != n else ""
        print(
            f"[{n}] {shown(labels[h.path])} {h.pages_label}  (fused score {h.score:.4f}{moved})"
            f"\n    {text[:300]}"
        )
    if any(b != n for n, b in enumerate(before, 1)):
        print(
            "\n(The order is the rerank's: it favours a passage holding the question's words "
            "close together, its options as written, a sentence near the question, a title "
            "naming what it names; tables of contents go down"
            + ("; then the cross-encoder of rerank_model_dir re-sorts the best" if crossed else "")
            + ". The score is the fusion's, before the rerank.)"
        )
    if ev is not None:
        print(
            f"\nconfidence: {ev.confidence} (keyword overlap {ev.keyword_overlap:.2f}"
            + (f", similarity {ev.top_similarity:.2f}" if ev.top_similarity is not None else "")
            + ")"
        )
        for issue in ev.issues:
            print(f"  - {issue}")
        if ev.recommendation:
            print(f"  suggestion: {ev.recommendation}")
    if debug:
        _print_search_debug(result.debug)
    return 0


def fusion_ranks(scores: Sequence[float]) -> list[int]:
    """Each hit's place (1-based) in the fusion's order, highest fused score first (ties
    in the order given): the order before the rerank moved passages."""
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    ranks = [0] * len(scores)
    for place, i in enumerate(order, 1):
        ranks[i] = place
    return ranks


def _print_search_debug(debug: dict[str, Any]) -> None:
    """Variants, each stage's top ranks and scores, and the time each stage took."""
    print("\n--- debug ---")
    if debug.get("pages"):
        print(
            f"a question about {debug['pages']}: {debug.get('documents', 0)} documents, "
            f"{debug.get('passages', 0)} passages on it ranked"
        )
    for v in debug.get("variants", []):
        print(f"variant {v['name']} (weight {v['weight']}): {v['text']}")
    if debug.get("two_tier_docs") is not None:
        print(f"two-tier candidate documents: {len(debug['two_tier_docs'])}")
    if debug.get("exact_terms"):
        print(
            "exact terms (chunks containing them): "
            + ", ".join(f"{t}={n}" for t, n in debug["exact_terms"].items())
        )
    if debug.get("missing_words"):
        print(
            "words the best passages lack (chunks containing them): "
            + ", ".join(f"{t}={n}" for t, n in debug["missing_words"].items())
        )
    for stage, rows in [*debug.get("stages", {}).items(), ("fused", debug.get("fused", []))]:
        if not rows:
            continue  # (a question about a page ranks that page's passages: no lists)
        print(f"\n{stage}:")
        for row in rows[:10]:
            print(f"  {row['rank']:>2}. {row['score']:.5f}  {row['chunk']}")
    if debug.get("hits"):
        print("\nhits (rank in each list):")
    for n, row in enumerate(debug.get("hits", []), 1):
        ranks = ", ".join(f"{k}#{v}" for k, v in row.get("ranks", {}).items())
        sim = row.get("similarity")
        sim_text = f" similarity {sim:.3f}" if isinstance(sim, float) else ""
        print(f"  [{n}] {row['chunk']}{sim_text}: {ranks}")
    timings = debug.get("timings_ms", {})
    print("\ntimings (ms): " + ", ".join(f"{k} {v:.1f}" for k, v in timings.items()))


def cmd_grep(args: argparse.Namespace) -> int:
    from docent.core.lookup import GREP_LIMIT

    with _open_engine() as eng:
        matches = eng.grep(args.pattern, collection=cli_collections.chosen(eng, args))
        labels = eng.names_shown([m.path for m in matches])
    if args.json:
        print_json([asdict(m) for m in matches])
        return 0
    for m in matches:
        pages = m.location or (
            f"p.{m.page_start}" if m.page_start == m.page_end else f"pp.{m.page_start}-{m.page_end}"
        )
        print(f"{shown(labels[m.path])} {pages}: {m.line}")
    if not matches:
        print("No matches.")
    elif len(matches) == GREP_LIMIT:  # (it lists no more: there may be others)
        print(
            f"({GREP_LIMIT} matches listed, the most at once: there may be more; a longer "
            "pattern narrows them.)",
            file=sys.stderr,
        )
    return 0


def cmd_ask(args: argparse.Namespace) -> int:
    import threading

    from docent.core.answer_notes import INCOMPLETE, notes, unsupported_groups
    from docent.core.answering import AnswerCancelled
    from docent.core.citations import MARKER
    from docent.core.conversation import AskStage
    from docent.core.prompting import DEFAULT_LAYOUT, LeadStream

    streamed: list[str] = []

    def write(text: str) -> None:
        streamed.append(text)
        sys.stdout.write(text)
        sys.stdout.flush()

    # the answer's opening quotation mark, when the model closed the one its begun reply
    # opened (a stream began "...stops simulation." with no opening mark; QA, s28 and s30)
    stream = [LeadStream(DEFAULT_LAYOUT.lead, write)]

    def on_token(token: str) -> None:
        if not args.json:
            stream[0](token)

    def on_stage(stage: AskStage) -> None:
        if stage is AskStage.RETRYING and not args.json:  # the next answer follows
            stream[0].flush()
            stream[0] = LeadStream(DEFAULT_LAYOUT.lead, write)
            model = args.model or eng.settings.ollama_model
            if streamed:
                print(
                    f"\n\n(No passage supports that answer: asking {model} again.)\n",
                    flush=True,
                )
            streamed.clear()

    cancel = threading.Event()
    with _open_engine() as eng:
        try:
            answer = eng.ask(
                args.question,
                files=args.file,
                model=args.model,
                on_token=on_token,
                on_stage=on_stage,
                cancel=cancel,
                collection=cli_collections.chosen(eng, args) or "",
                anyway=args.anyway,
            )
        except (KeyboardInterrupt, AnswerCancelled):
            cancel.set()
            stream[0].flush()
            print("\nStopped.", file=sys.stderr)
            return 130
    if args.json:  # the terminal's notes; the sentences they flag are fields of their own
        print_json(answer.as_dict() | {"notes": notes(answer, marked="listed", outlined=False)})
        return 0
    stream[0].flush()
    if not streamed:
        print(unbold(answer.text))
    elif answer.mode == "extractive":  # what streamed ("1) 2) 3)") was cut: quotes instead
        print(f"\n\n{unbold(answer.text)}")
    elif answer.attempt < answer.attempts:  # no later try was clearly supported: the first stands
        stands = "No answer since was clearly supported; the first answer stands."
        print(f"\n\n({stands})\n\n{unbold(answer.text)}")
    elif answer.unsupported_answer:  # the model's words were streamed; Docent's verdict
        lead, words, quotes = answer.parts()
        cut = (answer.cut or answer.partial) and "\n\n(" in words
        tail = words[words.rindex("\n\n(") :] if cut else ""
        print(unbold(f"{tail}\n\n{lead}\n\n{quotes}"))
    elif answer.partial and INCOMPLETE in answer.text:
        print("\n\n" + answer.text[answer.text.rindex(INCOMPLETE) :])
    elif answer.cut and answer.mode == "generated":
        print(f"\n\n({answer.cut})")
    else:
        print()
    if answer.citations:
        print("\nCitations:")
    for c in answer.citations:
        text = " ".join(c.text.split())
        how = {
            "matched": "  (matched by Docent: the model did not cite it)",
            "closest": "  (closest to your question; the answer does not cite it)",
        }.get(c.source, "")
        name, path = shown(c.name or c.file_name), shown(c.path)
        print(f"  [{c.n}] {name} {c.where}  ({path}){how}\n      {text[:200]}")
    # Docent's markers on sentences the model left uncited, also where the model cited
    # the same passage elsewhere (its citation is the model's: QA, session 32, the
    # footer said "Docent matched 2 sentences" of an answer shown without them)
    marked = len(MARKER.findall(answer.text)) > len(MARKER.findall("".join(streamed)))
    if streamed and (marked or any(c.source == "matched" for c in answer.citations)):
        print("\nThe answer with its matched citations:\n" + unbold(answer.text))
    # what the answer is and what its checks found: the window's footer, in its words
    print("\n" + "\n".join(notes(answer, marked="listed below", outlined=False)))
    for heading, sentences in unsupported_groups(answer):
        print(f"\n{heading}:")
        for sentence in sentences:
            print(f"  - {sentence}")
    print(
        f"\n[{answer.mode}, confidence {answer.confidence or 'unknown'}; {answer.seconds:.1f} s]",
        file=sys.stderr,
    )
    if answer.retrieval_abstained:  # Docent's verdict, which a paraphrase can fool
        print("(If they do answer it: --anyway asks the model with them.)", file=sys.stderr)
    return 0


def cmd_dump(args: argparse.Namespace) -> int:
    with _open_engine() as eng:
        text = eng.dump(args.file)
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as exc:  # a traceback, not a sentence (review)
            from docent.core.errors import DocentError

            raise DocentError(f"cannot write {shown(args.output)}: {exc.strerror or exc}.") from exc
        print(f"wrote {shown(args.output)}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def cmd_summarize(args: argparse.Namespace) -> int:
    import threading

    from docent.core.errors import UnknownFile
    from docent.core.summarizing import SummaryProgress, changed_note, shown_text
    from docent.core.summary_support import check_note

    offered = False

    def progress(p: SummaryProgress) -> None:
        nonlocal offered
        if not args.quiet and p.phase != "done":
            print(f"{p.phase}: {p.message}", file=sys.stderr, flush=True)
        if p.over_limit and not offered and not args.quiet:
            offered = True
            print(
                "  this summary will take longer than summary_seconds_per_page allows: "
                "`docent summarize --extractive` gives one now (Ctrl-C stops this one).",
                file=sys.stderr,
                flush=True,
            )

    cancel = threading.Event()
    with _open_engine() as eng:
        try:
            result = eng.summarize(
                args.file,
                type=args.type,
                model=args.model,
                progress=progress,
                cancel=cancel,
                collection=cli_collections.chosen(eng, args),
                extractive=args.extractive,
            )
        except KeyboardInterrupt:
            cancel.set()
            print("\nCancelled.", file=sys.stderr)
            return 130
        try:  # its own units; a document removed meanwhile keeps its summary
            unit = eng.resolve(result.path).page_unit
        except UnknownFile:
            unit = "page"
    if args.json:
        print_json(asdict(result))
        return 0
    print(shown_text(result))
    how = "cached" if result.cached else f"{result.seconds:.1f} s"
    print(
        f"\n[{result.type} summary of {result.document}: {result.mode} by {result.model}, "
        f"{unit_long(unit, result.pages)}, "
        f"{cli_collections.plural(result.sections_processed, 'summary section')} "
        f"({result.model_sections} by the model, {result.extracted_sections} extracted), "
        f"{cli_collections.plural(result.calls, 'model call')}; {how}]",
        file=sys.stderr,
    )
    for f in result.failed_sections:
        print(f"  {f.said}", file=sys.stderr)
    if result.unsupported is not None:
        print(f"  {check_note(result.unsupported, 'below')}", file=sys.stderr)
        for sentence in result.unsupported:
            print(f"    not clearly supported: “{sentence}”", file=sys.stderr)
    if changed := changed_note(result, "`docent index` indexes it again."):
        print(f"  {changed}", file=sys.stderr)
    return 0


def cmd_remove(args: argparse.Namespace) -> int:
    with _open_engine() as eng:
        rec = eng.remove(args.file)
    if args.json:
        print_json({"removed": rec.path})
    else:
        print(f"removed {shown(rec.path)}")
    return 0


def cmd_watch(args: argparse.Namespace) -> int:
    return cli_watch.cmd_watch(args, _open_engine)


def cmd_unwatch(args: argparse.Namespace) -> int:
    return cli_watch.cmd_unwatch(args, _open_engine)


def _results_k(text: str) -> int:
    try:
        k = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if not 1 <= k <= 100:
        raise argparse.ArgumentTypeError(f"{k} is not between 1 and 100")
    return k


def _words(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("it is empty: give some words")
    return text


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="docent", description="Chat with your own documents, locally.")
    p.add_argument("-v", "--verbose", action="store_true", help="log what happens")
    sub = p.add_subparsers(dest="command")

    def add(name: str, func: Any, help_: str, json_: bool = True) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help_, description=help_)
        sp.set_defaults(func=func)
        if json_:
            sp.add_argument("--json", action="store_true", help="machine-readable output")
        return sp

    sp = add("index", cmd_index, "index files and folders (incremental)")
    sp.add_argument("paths", nargs="*")
    sp.add_argument(
        "--rebuild",
        action="store_true",
        help="set a damaged store or catalog aside and rebuild it from the files and the "
        "text cache; index every document that is queued",
    )
    sp.add_argument(
        "-r",
        "--recursive",
        action="store_true",
        default=True,
        help="descend into subfolders (default)",
    )
    sp.add_argument("--no-recursive", dest="recursive", action="store_false")
    sp.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    cli_collections.add_option(sp, "add them to this collection (made if new)")
    sp = add("list", cmd_list, "list indexed documents")
    cli_collections.add_option(sp, "only this collection's")
    add("status", cmd_status, "library and store status")
    sp = add("search", cmd_search, "hybrid search over the library")
    sp.add_argument("query", type=_words)
    sp.add_argument(
        "--file", action="append", help="limit to a document (name or path); repeatable"
    )
    sp.add_argument("-k", "--k", type=_results_k, default=None, help="number of results (1-100)")
    sp.add_argument("--debug", action="store_true", help="show retrieval stages")
    cli_collections.add_option(sp, "search only this collection")
    sp = add("grep", cmd_grep, "case-insensitive exact text search (at most 100 matches)")
    sp.add_argument("pattern", type=_words)
    cli_collections.add_option(sp, "search only this collection")
    sp = add("ask", cmd_ask, "answer a question from the library, with checked citations")
    sp.add_argument("question", type=_words)
    sp.add_argument(
        "--file", action="append", help="limit to a document (name or path); repeatable"
    )
    sp.add_argument("--model", default=None, help="Ollama model (default: ollama_model)")
    sp.add_argument(
        "--anyway",
        action="store_true",
        help="ask the model even when the passages found do not seem to answer the question",
    )
    cli_collections.add_option(sp, "ask only this collection")
    sp = add("dump", cmd_dump, "extracted text as Markdown with page markers", json_=False)
    sp.add_argument("file")
    sp.add_argument("-o", "--output")
    sp = add("summarize", cmd_summarize, "summarise a document (map-reduce over its pages)")
    sp.add_argument("file")
    sp.add_argument(
        "--type",
        choices=["brief", "detailed", "bullets"],
        default=None,
        help="kind of summary (default: the summary_type setting)",
    )
    sp.add_argument("--model", default=None, help="Ollama model (default: ollama_model)")
    sp.add_argument(
        "--extractive",
        action="store_true",
        help="no model: the most central sentences of each section, in seconds",
    )
    sp.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    cli_collections.add_option(sp, "look for the document in this collection")
    sp = add("remove", cmd_remove, "remove a document from the library")
    sp.add_argument("file")
    sp = add("watch", cmd_watch, "watch folders and keep them indexed until Ctrl-C")
    sp.add_argument("dirs", nargs="*", help="folders to add (default: the saved ones)")
    cli_collections.add_option(
        sp, "the folders' files join this collection (made if new); with no DIR, watch its folders"
    )
    sp = add("unwatch", cmd_unwatch, "stop watching a folder")
    sp.add_argument("dir")
    sp.add_argument("--drop", action="store_true", help="also remove its documents")
    add("gui", cmd_gui, "open the Docent window (the default with no command)", json_=False)
    cli_collections.add_commands(sub, add, lambda: _open_engine())
    cli_store.add_command(add, lambda: _open_engine())
    return p


def has_display() -> bool:
    """Can Qt open a window? (Linux needs X11 or Wayland unless QT_QPA_PLATFORM says.)"""
    import os

    if os.environ.get("QT_QPA_PLATFORM"):
        return True
    if sys.platform.startswith("linux"):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


def samples_dir() -> Path:
    from docent.core.config import resources_dir

    return resources_dir() / "samples"


def cmd_gui(args: argparse.Namespace) -> int:
    if not has_display():
        print(
            "docent: no display is available (DISPLAY, WAYLAND_DISPLAY and QT_QPA_PLATFORM "
            "are unset), so the window cannot open; indexing the bundled samples and "
            "showing the library status instead.",
            file=sys.stderr,
        )
        # the sample PDFs, not their provenance list (MANIFEST.tsv was a document)
        samples = [str(p) for p in sorted(samples_dir().glob("*.pdf"))]
        rc = cmd_index(
            argparse.Namespace(paths=samples, recursive=True, quiet=True, json=False, rebuild=False)
        )
        return rc or cmd_status(argparse.Namespace(json=False))
    from docent.gui.app import main as gui_main

    return gui_main([sys.argv[0]])


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    if not getattr(args, "func", None):
        args.func = cmd_gui  # `docent` alone opens the window
    from docent.core.config import check_ollama_host_env
    from docent.core.errors import CollectionError, DocentError, UnknownCollection

    try:
        check_ollama_host_env()  # before `ollama` is imported: it reads OLLAMA_HOST then
        with handlers_restored():
            if args.func is not cmd_gui:
                # every command: SIGTERM too ends it as Ctrl-C does, closing the library
                # (only index, copy-store and watch did; ask and summarize were killed)
                stop_on_signals()
            return int(args.func(args))
    except (UnknownCollection, CollectionError) as exc:
        print(f"docent: {exc}", file=sys.stderr)
        return 2
    except DocentError as exc:
        print(f"docent: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\ndocent: stopped.", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # read by a program that stopped reading (`docent grep x | head`): no traceback,
        # and none again when Python flushes stdout at exit
        with contextlib.suppress(OSError, ValueError):  # (a stdout with no descriptor)
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, as a shell reports a command a pipe stopped


if __name__ == "__main__":
    sys.exit(main())
