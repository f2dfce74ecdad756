"""`docent watch` and `docent unwatch`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from docent import cli_collections
from docent.cli_json import print_json
from docent.cli_signals import Stop
from docent.core.userfiles import shown

if TYPE_CHECKING:
    from docent.core.engine import Engine
    from docent.core.index_events import IndexEvent

OpenEngine = Callable[[], "Engine"]


def cmd_watch(args: argparse.Namespace, open_engine: OpenEngine) -> int:
    from datetime import datetime
    from threading import Event

    from docent.core.index_events import DocumentProgressed, JobFailed, JobFinished
    from docent.core.watching import plan_watch

    def emit(entry: dict[str, str]) -> None:
        stamp = datetime.now().isoformat(timespec="seconds")
        if args.json:
            print_json({"time": stamp, **entry}, indent=None, flush=True)
            return
        extra = f" (from {shown(entry['from'])})" if "from" in entry else ""
        extra += f" [collection {entry['collection']}]" if entry.get("collection") else ""
        if entry.get("collections"):
            extra += f" [now in {entry['collections']}; nothing re-embedded]"
        extra += f": {entry['message']}" if entry.get("message") else ""
        print(f"{stamp} {entry['event']:<10} {shown(entry['path'])}{extra}", flush=True)

    try:
        with open_engine() as eng:
            for folder in args.dirs:  # each checked before any is saved or a collection made
                plan_watch(eng.settings.watched_folders, folder, eng.settings.data_path)
            chosen = cli_collections.made if args.dirs else cli_collections.chosen
            collection = chosen(eng, args)
            for folder in args.dirs:
                eng.watch(folder, collection)
            if not eng.settings.watched_folders:
                print("No watched folders. Give one: `docent watch DIR`.", file=sys.stderr)
                return 1

            reading: set[tuple[int, str]] = set()

            def on_event(event: IndexEvent) -> None:
                p = event.progress if isinstance(event, DocumentProgressed) else None
                # what is being read now: a first sweep of a big folder printed nothing
                # until its end, 78 s of silence (QA, session 29); what it did is printed
                # when its job ends, as before
                first = p is not None and (event.job.id, p.path) not in reading
                if p is not None and first and p.phase == "extracting" and not args.json:
                    reading.add((event.job.id, p.path))
                    print(
                        f"  reading {shown(p.path)} ({p.file_index} of {p.file_count})",
                        file=sys.stderr,
                        flush=True,
                    )
                if isinstance(event, JobFinished | JobFailed):
                    reading.clear()
                    names = {c.id: c.name for c in eng.collections()}
                    for entry in event.changes(names):
                        emit(entry)

            eng.subscribe(on_event)
            statuses = eng.start_watching(None if args.dirs else collection)
            if not statuses:
                print(
                    f"The collection '{args.collection}' has no watched folders.", file=sys.stderr
                )
                return 1
            for st in statuses:
                emit(
                    {
                        "event": st.state.value,
                        "path": st.path,
                        "collection": st.collection,
                        "message": st.message,
                    }
                )
            assert eng.watcher is not None
            eng.watcher.on_state = lambda st: emit(
                {"event": st.state.value, "path": st.path, "message": st.message}
            )
            if not args.json:
                print("Watching; Ctrl-C to stop.", file=sys.stderr, flush=True)
            # short waits: a signal the kernel gives another thread (watchdog's, the
            # queue's) wakes no long wait of this one, and its handler runs only once this
            # thread runs Python again: `docent watch` ignored a SIGINT or SIGTERM for
            # the hour of its wait, now and then (1 run in 12; session 29)
            while not Event().wait(0.5):
                pass
    except Stop as stop:
        print(f"Stopped watching ({stop}); what finished is kept.", file=sys.stderr)
    return 0


def cmd_unwatch(args: argparse.Namespace, open_engine: OpenEngine) -> int:
    from docent.core.files import normalise

    with open_engine() as eng:
        folder = str(normalise(args.dir))
        count = len(eng.catalog.under(folder)) if eng.catalog and args.drop else 0
        if eng.unwatch(args.dir, drop_documents=args.drop) is not None:
            eng.queue.wait_idle()
    if args.json:
        print_json({"unwatched": folder, "removed": count})
    elif args.drop:
        print(f"stopped watching {folder}; removed its {count} documents")
    else:
        print(f"stopped watching {folder}; its documents are kept (--drop removes them)")
    return 0
