"""Preparing files in a worker process that can be stopped: time limits, a memory cap,
no orphans.

A hostile file must not hang or exhaust the app: a PDF whose page contents refer to
themselves loops forever in pdfminer, a 3 MB deflate bomb inflates to gigabytes. So each
file is prepared (preparing.py) in one worker process, and:

- every step announces its time limit (a PDF page: ``Limits.page_seconds``); the worker's
  own timer interrupts Python code that runs past it, and the parent kills the worker when
  the step is not over ``GRACE`` seconds later (a stall in C code), restarts it and goes
  on with the next file. The file is marked failed with the step that took too long;
- the worker's address space is capped (``RLIMIT_AS``, ``Limits.memory_mb`` above what it
  holds when idle) and one zlib stream may not inflate past ``Limits.stream_mb``;
- a cancel (Ctrl-C, closing the window) kills the worker at once;
- the worker exits when the parent does, however it ends (a ``kill -9`` included): a
  thread waits on a pipe only the parent holds open.

The worker answers in order: ``("ready",)`` once, then per task some ``("step", id, label,
seconds, pages)`` and one ``("done", id, Prepared, clean)``; ``clean`` is false when a
step was interrupted (the worker is replaced before the next file). ``InlinePreparer`` runs the same
work on a thread, without limits (tests that make hundreds of small files).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import multiprocessing
import os
import re
import signal
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any, Protocol

from docent.core.errors import Cancelled
from docent.core.extract import PDF_SUFFIXES
from docent.core.preparing import WHOLE_FILE, Limits, Prepared, Preparer, worker_preparer
from docent.core.userfiles import shown

log = logging.getLogger(__name__)

#: The parent kills a step this long after its limit (the worker's timer comes first).
GRACE = 5.0
#: The worker's start: imports and the BM25 model, on a loaded machine.
STARTUP_SECONDS = 120.0
#: Step messages at most this often, unless the limit changes (the pipe must not fill).
STEP_MESSAGES_EVERY = 0.25
#: After a step's limit, the worker's timer fires again this often: a library cleaning up
#: (pdfplumber's close() walks the page tree that looped) must not loop for good either.
REPEAT_ALARM = 1.0
#: How often a waiting parent looks at the cancel flag.
POLL_SECONDS = 0.2
CRASHED = "crashed"

#: ``on_step(label, pages_read)`` in the parent, for progress.
StepListener = Callable[[str, int], None]


class Preparation(Protocol):
    """Files prepared in order, one file ahead of the caller."""

    def submit(self, path: str, known_sha: str, fresh: bool = False) -> int: ...
    def result(self, task: int, cancel: threading.Event, on_step: StepListener) -> Prepared: ...
    def close(self) -> None: ...


class _WorkerGone(Exception):
    """The worker's end of the pipe is closed: it died (or was killed)."""


@dataclass(slots=True)
class _Task:
    id: int
    path: str
    known_sha: str
    #: Read from the file, not from the text cache (a Re-index).
    fresh: bool = False
    #: Read by pdfplumber alone: pdfium crashed on this file (extract.py).
    careful: bool = False


class ProcessPreparer:
    """One worker process; killed and restarted when a file runs past its limits."""

    def __init__(
        self,
        tokenizer_json: str,
        cache_dir: str | None,
        cache_root: str,
        limits: Limits,
        ocr: bool = True,
    ):
        # The worker reads the tokenizer from a file. A start's arguments are written to
        # the new process before it runs, into a 64 kB pipe the parent holds open too:
        # the tokenizer's 466 kB there kept the parent (and the lock close() takes)
        # waiting for good on a worker that died or stalled as Python started it.
        self._tokenizer_json, self._cache_root = tokenizer_json, cache_root
        self._args = (cache_dir, cache_root, limits, ocr)
        self.limits = limits
        self._lock = threading.Lock()
        self._proc: Any = None
        self._conn: Connection | None = None
        self._lifeline: Connection | None = None
        self._pending: deque[_Task] = deque()
        self._next_id = 0
        self._step = ("starting", STARTUP_SECONDS)
        self._deadline = 0.0
        self._closed = False
        #: Worker processes started so far (a restart after a kill adds one).
        self.starts = 0
        #: Steps the worker's own timer could not end (a stall in C code): killed from here.
        self.stalls = 0

    # The parent's side -------------------------------------------------------------

    def submit(self, path: str, known_sha: str, fresh: bool = False) -> int:
        with self._lock:
            if self._closed:
                raise Cancelled("Indexing was stopped.")
            self._next_id += 1
            task = _Task(self._next_id, path, known_sha, fresh)
            idle = not self._pending
            self._pending.append(task)
            if self._conn is None:
                self._start()  # sends every pending task, this one included
            else:
                if idle:  # the worker waited for work: its clock starts now, not at its last file
                    self._step = ("starting", self.limits.page_seconds)
                    self._deadline = time.monotonic() + self.limits.page_seconds + GRACE
                self._send(task)
            return task.id

    def result(self, task: int, cancel: threading.Event, on_step: StepListener) -> Prepared:
        """Wait for ``task`` (the oldest one submitted). Cancelled when ``cancel`` is set."""
        while True:
            with self._lock:
                if cancel.is_set() or self._closed:
                    self._kill()
                    raise Cancelled("Indexing was cancelled.")
                head = self._pending[0]
                if head.id != task:
                    raise RuntimeError("results are taken in the order files were submitted")
                conn, proc = self._conn, self._proc
            assert conn is not None and proc is not None
            timeout = min(POLL_SECONDS, max(0.0, self._deadline - time.monotonic()))
            try:
                ready = wait([conn, proc.sentinel], timeout)
            except (OSError, ValueError):
                continue  # closed by close() on another thread: the loop's check says so
            gone = proc.sentinel in ready
            if conn in ready:
                try:
                    done = self._receive(conn, task, on_step)
                except _WorkerGone:
                    if self._closed:
                        continue  # closed by close(): the loop's check says so
                    # Its end of the pipe closed: it died. Read first, the pipe stays at
                    # EOF, so this must not wait for the sentinel on the next pass (it
                    # would see the pipe again, for good: the spin seen on a deflate bomb).
                    gone = True
                    proc.join(GRACE)
                else:
                    if done is not None:
                        return done
                    continue  # more messages may be waiting, before any EOF
            if gone:
                if self._retry_carefully(head, proc):
                    continue
                return self._fail_head(self._crashed(head, proc))
            if time.monotonic() > self._deadline:
                return self._fail_head(self._too_slow(head))

    def _receive(self, conn: Connection, task: int, on_step: StepListener) -> Prepared | None:
        try:
            msg = conn.recv()
        except (EOFError, OSError) as exc:
            raise _WorkerGone from exc
        now = time.monotonic()
        if msg[0] == "step":
            _, tid, label, seconds, pages = msg
            self._step, self._deadline = (label, seconds), now + seconds + GRACE
            if tid == task:
                on_step(label, pages)
            return None
        if msg[0] == "done":
            prepared: Prepared = msg[2]
            if not msg[3]:
                # A step was interrupted: the libraries it was in may hold broken state
                # (a half-built OCR engine); the files behind get a fresh worker.
                return self._fail_head(prepared)
            with self._lock:
                if self._pending:
                    self._pending.popleft()
            self._step = ("starting", self.limits.page_seconds)
            self._deadline = now + self.limits.page_seconds + GRACE
            return prepared
        self._deadline = now + self.limits.page_seconds + GRACE  # "ready"
        return None

    def _fail_head(self, prepared: Prepared) -> Prepared:
        """The oldest file failed the worker: restart it for the files behind."""
        with self._lock:
            self._kill()
            if self._pending:
                self._pending.popleft()
            if self._pending and not self._closed:
                self._start()
        return prepared

    def _retry_carefully(self, task: _Task, proc: Any) -> bool:
        """A PDF that crashed pdfium (C code; it aborts when it hits the memory cap, e.g.
        on a deflate bomb) is read once more by pdfplumber alone, in a fresh worker: its
        stream and memory caps name the cause, or it reads the file."""
        if task.careful or Path(task.path).suffix.lower() not in PDF_SUFFIXES:
            return False
        proc.join(1.0)
        log.warning(
            "%s: pdfium crashed (exit %s); reading it with pdfplumber",
            shown(Path(task.path).name),
            proc.exitcode,
        )
        with self._lock:
            self._kill()
            task.careful = True
            if not self._closed:
                self._start()  # resends every pending task, this one first
        return True

    def _too_slow(self, task: _Task) -> Prepared:
        self.stalls += 1
        label, seconds = self._step
        name = shown(Path(task.path).name)
        log.warning(
            "%s: %s ran past %.0f s; the extraction process was killed", name, label, seconds
        )
        return Prepared(reason="timeout", message=_timeout_message(name, label, seconds))

    def _crashed(self, task: _Task, proc: Any) -> Prepared:
        proc.join(1.0)
        code = proc.exitcode
        how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit {code}"
        if code == -signal.SIGKILL:
            how += ", perhaps out of memory"
        name = shown(Path(task.path).name)
        log.warning("%s: the extraction process died (%s)", name, how)
        return Prepared(
            reason=CRASHED,
            message=f"{name} made the document reader crash ({how}); it was skipped.",
        )

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._kill()
            self._pending.clear()

    # Starting and stopping the worker (under self._lock) ---------------------------

    def _start(self) -> None:
        ctx = multiprocessing.get_context("spawn")
        here, there = ctx.Pipe()
        lifeline_in, lifeline_out = ctx.Pipe(duplex=False)
        proc = ctx.Process(
            target=worker_main,
            args=(there, lifeline_in, *self._tokenizer(), *self._args),
            name="docent-extract",
            daemon=True,
        )
        proc.start()
        there.close()
        lifeline_in.close()
        self._proc, self._conn, self._lifeline = proc, here, lifeline_out
        self.starts += 1
        self._step = ("starting", STARTUP_SECONDS)
        self._deadline = time.monotonic() + STARTUP_SECONDS
        for task in self._pending:
            self._send(task)

    def _tokenizer(self) -> tuple[str, str]:
        """(its file, "") for the worker to read, or ("", the tokenizer) when that file
        cannot be written; checked at each start (the cache's folder may have gone)."""
        path = _tokenizer_file(self._cache_root, self._tokenizer_json)
        return (path, "") if path else ("", self._tokenizer_json)

    def _send(self, task: _Task) -> None:
        assert self._conn is not None
        with contextlib.suppress(OSError):  # it died: the sentinel says so when awaited
            self._conn.send((task.id, task.path, task.known_sha, task.fresh, task.careful))

    def _kill(self) -> None:
        proc, conn, lifeline = self._proc, self._conn, self._lifeline
        self._proc = self._conn = self._lifeline = None
        if proc is not None and proc.is_alive():
            proc.kill()
        if proc is not None:
            proc.join(5.0)
        for c in (conn, lifeline):
            if c is not None:
                c.close()


def _timeout_message(name: str, label: str, seconds: float) -> str:
    step, _, whole = label.partition(f"; {WHOLE_FILE} ")
    if whole:
        return (
            f"{name} took longer than the {whole} a file of its size may take (it was "
            f"{step}); Docent stopped reading it (a damaged or hostile file?). Raise "
            "extract_file_timeout to give it longer."
        )
    setting = "extract_ocr_page_timeout" if "by OCR" in label else "extract_page_timeout"
    return (
        f"{name} took longer than {seconds:.0f} s {label}; Docent stopped reading it "
        f"(a damaged or hostile file?). Raise {setting} to give it longer."
    )


class InlinePreparer:
    """The same work on one thread of this process: no time or memory limits."""

    def __init__(self, preparer: Preparer, cache_root: str) -> None:
        self._preparer, self._root = preparer, cache_root
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="extract")
        self._futures: dict[int, tuple[str, Future[Prepared]]] = {}
        self._next_id = 0

    def submit(self, path: str, known_sha: str, fresh: bool = False) -> int:
        self._next_id += 1
        fut = self._pool.submit(self._preparer.prepare, path, self._root, known_sha, fresh=fresh)
        self._futures[self._next_id] = (path, fut)
        return self._next_id

    def result(self, task: int, cancel: threading.Event, on_step: StepListener) -> Prepared:
        path, fut = self._futures.pop(task)
        while True:
            if cancel.is_set():
                fut.cancel()
                raise Cancelled("Indexing was cancelled.")
            try:
                return fut.result(timeout=POLL_SECONDS)
            except TimeoutError:
                continue
            except Exception as exc:  # noqa: BLE001 - as in the worker process
                name = shown(Path(path).name)
                log.exception("preparing %s failed", name)
                return Prepared(reason="damaged", message=f"{name} could not be read: {exc}")

    def close(self) -> None:
        for _path, fut in self._futures.values():
            fut.cancel()
        self._futures.clear()
        self._pool.shutdown(wait=False, cancel_futures=True)


# ------------------------------------------------------------- in the worker process


class StepTimeout(BaseException):
    """A step ran past its limit (BaseException: a library's ``except Exception`` must
    not swallow it and carry on)."""


class StreamTooLarge(BaseException):
    """A compressed stream inflates past ``Limits.stream_mb``."""


def _tokenizer_file(cache_root: str, tokenizer_json: str) -> str:
    """The tokenizer in a file of the cache's folder, named by its content, for the
    worker to read; "" when it cannot be written (it is then passed as it is). Read back
    at each start and written again when it is not what its name says: a file cut short
    (a power cut after its write) would make every worker start crash, each file blamed
    for it (review)."""
    digest = hashlib.sha256(tokenizer_json.encode("utf-8")).hexdigest()[:16]
    path = Path(cache_root) / f"worker-tokenizer-{digest}.json"
    try:
        if path.read_text(encoding="utf-8") == tokenizer_json:
            _drop_old_tokenizers(path)
            return str(path)
    except (OSError, UnicodeDecodeError):
        pass  # missing or unreadable: written below
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, part = tempfile.mkstemp(dir=path.parent, prefix=f"{path.name}.", suffix=".part")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(tokenizer_json)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(part, path)
        except BaseException:
            Path(part).unlink(missing_ok=True)
            raise
    except OSError as exc:
        log.warning("the tokenizer could not be written for the extraction worker: %s", exc)
        return ""
    _drop_old_tokenizers(path)
    return str(path)


#: A tokenizer file of another model (or a part file a crash left) older than this is
#: removed as a worker starts: the library's lock keeps one engine on a cache, and a
#: worker reads its file as it starts, so an older one is no one's.
OLD_TOKENIZER_SECONDS = 3600.0
#: The names ``_tokenizer_file`` writes: the file, and its part files while written.
_TOKENIZER_NAME = re.compile(r"worker-tokenizer-[0-9a-f]{16}\.json(?:\.[^/]+\.part)?")


def _drop_old_tokenizers(kept: Path) -> None:
    """Remove the tokenizer files beside ``kept`` that an embedding model used before
    (466 kB each, one per model change: review), and part files a crash left."""
    old = time.time() - OLD_TOKENIZER_SECONDS
    for other in kept.parent.glob("worker-tokenizer-*"):
        try:
            if (
                other != kept
                and _TOKENIZER_NAME.fullmatch(other.name)
                and other.stat().st_mtime < old
            ):
                other.unlink()
        except OSError:
            pass  # gone already, or not ours to remove: left


def worker_main(
    conn: Connection,
    lifeline: Connection,
    tokenizer_path: str,
    tokenizer_json: str,
    cache_dir: str | None,
    cache_root: str,
    limits: Limits,
    ocr: bool,
) -> None:
    """The worker: the tokenizer read from ``tokenizer_path`` (else ``tokenizer_json``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _exit_with_parent(lifeline)
    if tokenizer_path:
        tokenizer_json = Path(tokenizer_path).read_text(encoding="utf-8")
    preparer = worker_preparer(tokenizer_json, cache_dir, limits, ocr)
    _cap_zlib(limits.stream_mb << 20)
    _cap_memory(limits.memory_mb << 20)
    conn.send(("ready",))
    while True:
        try:
            task_id, path, known_sha, fresh, careful = conn.recv()
        except (EOFError, OSError):
            return
        clock = _StepClock(conn, task_id)
        signal.signal(signal.SIGALRM, clock.alarm)
        prepared, clean = _prepare_one(clock, preparer, path, cache_root, known_sha, careful, fresh)
        conn.send(("done", task_id, prepared, clean))


@dataclass(slots=True)
class _StepClock:
    """The worker's side of step limits: its own timer, and messages to the parent."""

    conn: Connection
    task_id: int
    label: str = ""
    seconds: float = -1.0
    sent_at: float = 0.0
    #: The step whose limit passed first: (label, seconds).
    overrun: tuple[str, float] | None = None

    def alarm(self, signum: int, frame: Any) -> None:
        if self.overrun is None:
            self.overrun = (self.label, self.seconds)
        raise StepTimeout

    def __call__(self, label: str, seconds: float, pages: int) -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)  # a full pipe is not the file's fault
        if self.overrun is not None:
            # A library caught the timeout (or wrapped it) and went on: it stops here.
            raise StepTimeout
        now = time.monotonic()
        if seconds != self.seconds or now - self.sent_at >= STEP_MESSAGES_EVERY:
            self.conn.send(("step", self.task_id, label, seconds, pages))
            self.sent_at = now
        self.label, self.seconds = label, seconds
        signal.setitimer(signal.ITIMER_REAL, seconds, REPEAT_ALARM)


def _prepare_one(
    clock: _StepClock,
    preparer: Preparer,
    path: str,
    root: str,
    known: str,
    careful: bool,
    fresh: bool = False,
) -> tuple[Prepared, bool]:
    """The file's outcome, and whether the worker is still clean (no step interrupted)."""
    name = shown(Path(path).name)
    try:
        try:
            got = preparer.prepare(path, root, known, clock, pdfium=not careful, fresh=fresh)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except StepTimeout:
        pass  # reported below, from the step that overran
    except StreamTooLarge:
        message = (
            f"{name} holds a compressed stream that expands to more than "
            f"{preparer.limits.stream_mb} MB; Docent stopped reading it."
        )
        return Prepared(reason="too_large", message=message), False
    except MemoryError:
        message = (
            f"{name} needs more than {preparer.limits.memory_mb} MB of memory to "
            "read; it was skipped. Raise extract_memory_mb to allow more."
        )
        return Prepared(reason="too_large", message=message), False
    except Exception as exc:  # noqa: BLE001 - a reader's bug on one file; the rest go on
        if clock.overrun is None:
            log.exception("preparing %s failed", name)
            return Prepared(reason="damaged", message=f"{name} could not be read: {exc}"), True
    if clock.overrun is None:
        return got, True
    # Past a limit, even when a library turned the timeout into its own error or swallowed
    # it and finished: what it returned after being interrupted is not to be trusted.
    label, seconds = clock.overrun
    return Prepared(reason="timeout", message=_timeout_message(name, label, seconds)), False


def _exit_with_parent(lifeline: Connection) -> None:
    """Exit as soon as the parent is gone: only the parent holds the pipe's other end."""

    def watch() -> None:
        with contextlib.suppress(BaseException):  # EOF is the signal; anything else too
            lifeline.recv()
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _cap_memory(extra: int) -> None:
    """``RLIMIT_AS``: what the worker maps now plus ``extra`` (allocations past it fail
    with MemoryError instead of swapping the machine to a halt)."""
    try:
        import resource
    except ImportError:  # Windows: the stream cap and the time limits still hold
        return
    with open(f"/proc/{os.getpid()}/statm") as fh:
        mapped = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    limit = mapped + extra
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _cap_zlib(cap: int) -> None:
    """pdfminer inflates a whole stream in one ``zlib.decompress``: give it one that stops
    at ``cap`` bytes (its module's own reference, in this process only)."""
    import types
    import zlib

    from pdfminer import pdftypes

    class Capped:
        def __init__(self, *args: Any) -> None:
            self._d = zlib.decompressobj(*args)
            self._out = 0

        def decompress(self, data: bytes, max_length: int = 0) -> bytes:
            room = cap - self._out + 1
            out = self._d.decompress(data, room if not max_length else min(max_length, room))
            self._out += len(out)
            if self._out > cap:
                raise StreamTooLarge
            return out

        def flush(self, *args: Any) -> bytes:
            out = self._d.flush(*args)
            self._out += len(out)
            if self._out > cap:
                raise StreamTooLarge
            return out

        def __getattr__(self, name: str) -> Any:
            return getattr(self._d, name)

    def decompress(data: bytes, *args: Any) -> bytes:
        d = Capped(*args[:1])
        out = d.decompress(data)
        if not d.eof:
            raise zlib.error("Error -5 while decompressing data: incomplete or truncated stream")
        return out

    pdftypes.zlib = types.SimpleNamespace(  # type: ignore[assignment]
        error=zlib.error, decompress=decompress, decompressobj=Capped, MAX_WBITS=zlib.MAX_WBITS
    )
