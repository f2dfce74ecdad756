"""A new user's walk through the window, a screenshot at each step: first run, index two
PDFs (one with a long name), pick the model in the chat's box, ask, Stop mid-answer, Retry,
go back to the earlier answer, Summarize, New conversation, Settings with bad values and
Test on a bad host, index three more and Cancel; then, run again with ``--phase restart``
on the same ``--home``, what the next start shows (the cancelled files wait for Resume).

    OLLAMA_HOST=http://127.0.0.1:11444 xvfb-run -a -s "-screen 0 1024x700x24" \
        .venv/bin/python resources/screenshots/new_user_walk.py --size 1024x700 \
        --out /tmp/shots --home /tmp/walk
    ... the same with --phase restart

OLLAMA_HOST names a real Ollama or the llm-rig (smollm2:135m). Steps run one after another,
each waiting on a condition the window shows (a script, so it polls every 0.5 s).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from shots import Window, copy_corpus, save

LONG = "Debian-project-history-from-the-debian-history-package-english-edition-2024.pdf"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="1600x1000")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--home", type=Path, default=None)
    ap.add_argument("--phase", default="all")  # all | restart
    args = ap.parse_args()
    W, H = (int(v) for v in args.size.split("x"))
    args.out.mkdir(parents=True, exist_ok=True)
    with Window(size=(W, H), prefix="docent-newuser-", home=args.home, keep=True) as w:
        docs = w.scratch / "Documents"
        later = w.scratch / "Later"
        if args.phase == "all":
            copy_corpus(
                {
                    "simh__ctss_hardware.pdf": "simh__ctss_hardware.pdf",
                    "debian-history__project-history.en.pdf": LONG,
                },
                docs,
            )
            copy_corpus(
                ["r-doc-pdf__R-intro.pdf", "r-doc-pdf__R-data.pdf", "pari-doc__tutorial.pdf"], later
            )
        timer = drive(w, args, docs, later)
        w.run(timeout_ms=2_400_000)
        timer.stop()


def drive(w: Window, args: argparse.Namespace, docs: Path, later: Path) -> Any:
    """Queue the walk's steps (the phase's), each run when the one before is done."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QWidget

    app, window = w.app, w.window
    W, H = (int(v) for v in args.size.split("x"))
    lib, chat, src = window.library, window.chat, window.citations
    t0 = time.monotonic()

    def log(msg: str) -> None:
        print(f"{time.strftime('%H:%M:%S')} +{time.monotonic() - t0:6.1f}s {msg}", flush=True)

    def shot(name: str, widget: QWidget | None = None) -> None:
        save(widget or window, args.out / f"{name}-{W}x{H}.png")

    steps: list[tuple[str, Callable[[], bool], Callable[[], None]]] = []
    state = {"i": 0, "since": time.monotonic(), "acted": False}

    def step(name: str, until: Callable[[], bool] = lambda: True):
        def deco(fn: Callable[[], None]) -> Callable[[], None]:
            steps.append((name, until, fn))
            return fn

        return deco

    def waited() -> float:
        return time.monotonic() - state["since"]

    def tick() -> None:
        i = state["i"]
        if i >= len(steps):
            log("done")
            app.quit()
            return
        name, until, act = steps[i]
        if not state["acted"]:
            log(f"step {name}")
            state["acted"] = True
            state["since"] = time.monotonic()
            act()
            return
        if until():
            state["i"] += 1
            state["acted"] = False

    def turn_done() -> bool:
        return not chat.streaming

    if args.phase == "all":

        @step("first-run", lambda: waited() > 3)
        def _() -> None:
            pass

        @step("first-run-shot")
        def _() -> None:
            shot("00-first-run")

        @step(
            "index", lambda: not lib.controller.busy and lib.model.rowCount() >= 2 and waited() > 2
        )
        def _() -> None:
            lib.add_paths([str(docs)])

        @step("indexed-shot")
        def _() -> None:
            log(f"rows: {[(r.file_name, r.state_text) for r in lib.model.rows()]}")
            shot("01-indexed")

        @step("pick-model", lambda: window.health is not None and waited() > 3)
        def _() -> None:
            log(f"banner: {chat.banner_label.text()!r} status: {window.ollama_label.text()!r}")
            combo = chat.model_combo
            i = combo.findText("smollm2:135m")
            log(f"combo items: {[combo.itemText(k) for k in range(combo.count())]}, idx {i}")
            if i >= 0:
                combo.setCurrentIndex(i)
                combo.activated.emit(i)

        @step("picked-shot")
        def _() -> None:
            log(
                f"banner visible={chat.banner.isVisible()} {chat.banner_label.text()!r}; status {window.ollama_label.text()!r}"
            )
            shot("02-model-picked")

        # A quiet machine's smollm2:135m may have answered before 6 s: go on then too.
        @step("ask-wait", lambda: waited() > 6 and chat.status.isVisible() or turn_done())
        def _() -> None:
            chat.input.setPlainText("What does the interval timer in location 5 do?")
            chat.send_button.click()

        @step("waiting-shot", lambda: "writing" in chat.status.text() or turn_done())
        def _() -> None:
            log(f"status: {chat.status.text()!r}")
            shot("03-waiting")

        @step("stop", turn_done)
        def _() -> None:
            log(f"status: {chat.status.text()!r}; stopping")
            chat.stop_button.click()

        @step("stopped-shot", lambda: waited() > 1)
        def _() -> None:
            shot("04-stopped")

        finished = {"n": 0}
        chat.answer_finished.connect(lambda *_: finished.__setitem__("n", finished["n"] + 1))

        @step("retry", lambda: finished["n"] > state["before"])
        def _() -> None:
            state["before"] = finished["n"]
            window.retry_action.trigger()

        @step("answered-page", lambda: waited() > 3)
        def _() -> None:
            t = chat.turns[-1] if chat.turns else None
            log(f"answer: {(t.answer.text[:300] if t and t.answer else t and t.error)!r}")
            if t and t.citations:
                src.select(t.citations[0].n)

        @step("answered-shot")
        def _() -> None:
            shot("05-retried-answered")

        @step("go-back", lambda: waited() > 1)
        def _() -> None:
            chat.answer_bar.earlier_button.click()

        @step("back-shot")
        def _() -> None:
            shot("06-back-to-earlier")

        @step("summarize", lambda: waited() > 25)
        def _() -> None:
            rows = [r for r in lib.model.rows() if r.file_name.startswith("simh")]
            window.summarize(rows[0].path)

        @step("summary-shot")
        def _() -> None:
            d = window.dialogs[-1]
            log(f"summary status: {d.status.text()!r}")
            shot("07-summary-progress", d)
            shot("07-summary-window")

        @step("summary-wait", lambda: window.dialogs[-1].worker is None or waited() > 240)
        def _() -> None:
            pass

        @step("summary-shot2")
        def _() -> None:
            d = window.dialogs[-1]
            log(f"summary status: {d.status.text()!r}")
            shot("08-summary-later", d)
            d.close()

        @step("new-conversation", lambda: waited() > 1)
        def _() -> None:
            window.new_chat_action.trigger()

        @step("new-shot")
        def _() -> None:
            shot("09-new-conversation")

        @step("settings", lambda: waited() > 3)
        def _() -> None:
            d = window.open_settings()
            state["settings"] = d
            d.host_edit.setText("localhost 11434")
            d.qdrant_edit.setText("localhost:6333")
            d.save()

        @step("settings-shot")
        def _() -> None:
            d = state["settings"]
            shot("10-settings-bad", d)
            d.host_edit.setText("http://nowhere.invalid:1")
            d.test_button.click()

        @step("settings-test", lambda: state["settings"].test_button.isEnabled() and waited() > 1)
        def _() -> None:
            pass

        @step("settings-test-shot")
        def _() -> None:
            d = state["settings"]
            log(f"test label: {d.test_label.text()!r}; error: {d.error_label.text()!r}")
            shot("11-settings-test-bad-host", d)
            d.reject()

        @step(
            "index-more",
            lambda: any(r.state == "indexing" for r in lib.model.rows()) and waited() > 2,
        )
        def _() -> None:
            lib.add_paths([str(later)])

        @step("cancel", lambda: not lib.controller.busy)
        def _() -> None:
            log(f"rows: {[(r.file_name, r.state_text) for r in lib.model.rows()]}")
            shot("12-indexing-more")
            lib.cancel_button.click()

        @step("cancelled-shot", lambda: waited() > 1)
        def _() -> None:
            log(f"rows: {[(r.file_name, r.state_text) for r in lib.model.rows()]}")
            shot("13-cancelled")

    else:

        @step(
            "restart",
            lambda: window.health is not None and lib.model.rowCount() > 0 and waited() > 4,
        )
        def _() -> None:
            pass

        @step("restart-shot")
        def _() -> None:
            log(f"rows: {[(r.file_name, r.state_text) for r in lib.model.rows()]}")
            log(f"resume visible={lib.resume_row.isVisible()} {lib.resume_label.text()!r}")
            shot("14-after-restart")

    timer = QTimer()
    timer.setInterval(500)
    timer.timeout.connect(tick)
    timer.start()
    return timer


if __name__ == "__main__":
    main()
