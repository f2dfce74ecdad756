"""Take the README's summary screenshots from a real model: Summarize… on a corpus PDF, the
dialog while its section summaries arrive, and the dialog with the finished summary.

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python \\
        resources/screenshots/capture_summary.py --host http://127.0.0.1:11435 \\
        [--model smollm2:135m] [--pdf debian-history__project-history.en.pdf] [--out DIR]

``--host`` names a running Ollama or the llm-rig (``../shared/llm-rig/start`` serves
smollm2:135m); the README's caption names the model. Saves ``summary-growing.png`` once
three sections are in and ``summary-done.png`` when the summary is.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from shots import OUT, Window, copy_corpus, log, save

PDF = "debian-history__project-history.en.pdf"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host", default=os.environ.get("DOCENT_RIG_HOST", ""))
    ap.add_argument("--model", default="smollm2:135m")
    ap.add_argument("--pdf", default=PDF)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--growing-at", type=int, default=3, help="sections in for the first shot")
    args = ap.parse_args()
    if not args.host:
        print("no model: set DOCENT_RIG_HOST or pass --host", file=sys.stderr)
        return 1
    with Window(
        prefix="docent-summary-shots-",
        size=(1300, 900),
        ollama_host=args.host,
        ollama_model=args.model,
        summary_timeout_per_call=300,
        summary_timeout_total=3600,
    ) as w:
        folder = copy_corpus([args.pdf], w.scratch / "Documents")
        lib = w.window.library
        state: dict[str, Any] = {"growing": False}

        def after_index(_: Any) -> None:
            rows = lib.model.rows()
            log(f"indexed: {[(r.file_name, r.state_text) for r in rows]}")
            w.window.summarize(rows[0].path)
            dialog = w.window.dialogs[-1]
            dialog.summary_finished.connect(lambda result: finished(dialog, result))
            watch(dialog)

        def watch(dialog: Any) -> None:
            if dialog.summary is not None or not dialog.isVisible():
                return
            if not state["growing"] and len(dialog.sections) >= args.growing_at:
                state["growing"] = True
                log(f"status: {dialog.status.text()!r}")
                save(dialog, args.out / "summary-growing.png")
            w.later(500, lambda: watch(dialog))

        def finished(dialog: Any, result: Any) -> None:
            if result is None:
                log("the summary failed or was cancelled")
                w.quit()
                return
            log(
                f"done: {result.calls} calls, {result.model_sections} sections by the model, "
                f"{result.extracted_sections} extracted; status {dialog.status.text()!r}"
            )
            w.later(400, lambda: (save(dialog, args.out / "summary-done.png"), w.quit()))

        lib.controller.run_finished.connect(after_index)
        w.later(800, lambda: lib.add_paths([str(folder)]))
        w.run(timeout_ms=3_900_000)
    return 0


if __name__ == "__main__":
    sys.exit(main())
