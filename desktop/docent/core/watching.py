"""Watched folders: a watchdog observer per folder, debounced, feeding the index queue.

The watcher never indexes; it turns events into IndexQueue jobs. The event policy, measured
on inotify (DESIGN.md), indexes each file once, at its final content:

- ``closed`` (a writer finished) or a ``moved`` destination: index after 0.5 s of quiet;
- ``created`` / ``modified``: only (re)arm a 3 s fallback timer (a copy emits a ``modified``
  per write; a file moved in from outside emits only ``created``);
- ignored: ``opened`` / ``closed_no_write`` / ``attrib``, directory created/modified, temp
  names (``*.part``, ``~$*``, ...), hidden files, unsupported types;
- ``deleted``: remove the document after ``GONE_SECONDS`` (longer than the fallback), so
  a file moved to another watched folder (another observer: it sees ``deleted`` here and
  ``created`` there) is indexed there first and found to be a move (nothing re-embedded,
  its collection follows the folder) before its old path is dropped;
- ``moved`` inside the watched folders: a move job (nothing re-embedded); out: a removal;
  in (or from a temp name such as ``x.part``): index.

A sweep (size, mtime and ctime, then sha256, then drop what is gone) runs when a folder
starts being watched, every ``sweep_interval`` seconds and when a missing folder returns. A missing
folder is *paused* (documents kept: an unplugged drive is not a deletion); one the OS
cannot watch live (inotify limit) is swept every minute instead (*sweep-only*).
"""

from __future__ import annotations

import enum
import errno
import logging
import math
import os
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

from docent.core import files as filemod
from docent.core.debounce import Debouncer
from docent.core.errors import DocentError
from docent.core.jobs import IndexQueue
from docent.core.userfiles import inside, shown

log = logging.getLogger(__name__)

QUIET_SECONDS = 0.5  # after a finished write (closed / moved here)
FALLBACK_SECONDS = 3.0  # after created / modified with no close seen
#: after deleted: later than the fallback of a ``created`` the same move made elsewhere
GONE_SECONDS = FALLBACK_SECONDS + QUIET_SECONDS
POLL_SECONDS = 1.0  # missing folders and dead observers are checked this often
SWEEP_ONLY_SECONDS = 60.0  # sweep cadence for folders the OS cannot watch live

_IGNORED = frozenset({"opened", "closed_no_write", "attrib"})


class WatchError(DocentError):
    """A folder cannot be added to or removed from the watched folders; the message says why."""


def plan_watch(watched: list[str], path: str | Path, data_dir: Path) -> tuple[str, list[str]]:
    """The folder to add for ``path`` and the watched sub-folders it replaces."""
    folder = str(filemod.normalise(path))
    if not os.path.isdir(folder):
        raise WatchError(f"{folder} is not a folder. Give an existing folder to watch.")
    try:
        folder.encode("utf-8")
    except UnicodeEncodeError:
        # Its name would be saved in settings.toml, which then no longer loads: Docent
        # would not start (found by a review). Its files can still be indexed by name.
        raise WatchError(
            f"{shown(folder)}: its name is not valid UTF-8, so it cannot be saved as a "
            "watched folder. Rename it, or index it with Add folder… instead."
        ) from None
    data = str(filemod.normalise(data_dir))
    # by their real paths: a link to a folder holding the data was watched (review)
    real, real_data = os.path.realpath(folder), os.path.realpath(data)
    if inside(real_data, real) or inside(real, real_data):
        # Docent's own text cache (JSON) would be indexed, and re-indexed as it grows.
        raise WatchError(
            f"{folder} holds Docent's own data folder ({data}). "
            "Watch a folder beside it, or move the data (DOCENT_HOME)."
        )
    if folder in watched:
        return folder, []
    # by real paths too: ~/Documents is often a link, and the same files watched through
    # it and through their real folder were each two documents (review)
    for w in watched:
        real_w = os.path.realpath(w)
        if real == real_w:
            raise WatchError(f"{folder} is already watched as {w} (the same folder).")
        if inside(folder, w) or inside(real, real_w):
            raise WatchError(f"{folder} is already watched as part of {w}.")
    return folder, [w for w in watched if inside(w, folder) or inside(os.path.realpath(w), real)]


class FolderState(enum.StrEnum):
    WATCHING = "watching"
    PAUSED = "paused"
    SWEEP_ONLY = "sweep-only"
    ERROR = "error"
    #: Saved, but nothing watches it now (no window or `docent watch` is running).
    OFF = "off"


@dataclass(slots=True)
class FolderStatus:
    path: str
    state: FolderState
    #: What a user should read next to the folder ("" while all is well).
    message: str = ""
    #: time.time() when a sweep of it was last queued (0: never).
    last_sweep: float = 0.0
    #: The name of the collection its files join ("" until the engine says).
    collection: str = ""

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["state"] = self.state.value
        return data


StateCallback = Callable[[FolderStatus], None]


class _Folder:
    def __init__(self, path: str) -> None:
        self.status = FolderStatus(path, FolderState.PAUSED)
        self.observer: BaseObserver | None = None
        self.next_sweep = math.inf  # time.monotonic()

    @property
    def path(self) -> str:
        return self.status.path


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: Watcher, root: str) -> None:
        self._watcher = watcher
        self._root = root

    def dispatch(self, event: FileSystemEvent) -> None:
        try:
            self._watcher._on_event(self._root, event)
        except Exception:  # noqa: BLE001 - an odd event must not kill the observer thread
            log.exception("could not handle %s", event)


class Watcher:
    """Watched folders -> jobs. Thread-safe; its own thread runs timers and sweeps."""

    def __init__(
        self,
        queue: IndexQueue,
        *,
        sweep_interval: float = 600.0,
        quiet: float = QUIET_SECONDS,
        fallback: float = FALLBACK_SECONDS,
        gone: float = GONE_SECONDS,
        poll: float = POLL_SECONDS,
        on_state: StateCallback | None = None,
    ) -> None:
        self.queue = queue
        self.sweep_interval = sweep_interval  # seconds; 0: no periodic sweep
        self.quiet, self.fallback, self.poll = quiet, fallback, poll
        self.gone = max(gone, fallback + quiet)
        self.on_state = on_state
        self._folders: dict[str, _Folder] = {}
        self._timers = Debouncer()
        self._cond = threading.Condition(threading.RLock())  # guards _folders and their state
        # Serialises starting/stopping observers (add, remove, pause, resume, stop). Never
        # taken by observer threads, so joining an observer while holding it is safe.
        self._lifecycle = threading.Lock()
        self._next_poll = 0.0
        self._thread = threading.Thread(target=self._loop, name="docent-watcher", daemon=True)

    # Folders ---------------------------------------------------------------

    def start(self) -> None:
        self._thread.start()

    def add(self, folder: str) -> FolderStatus:
        """Start watching ``folder`` (an absolute path) and queue a sweep of it."""
        with self._lifecycle:
            with self._cond:
                new = folder not in self._folders
                f = self._folders.setdefault(folder, _Folder(folder))
            if new and os.path.isdir(folder):
                self._start(f)
            elif new:
                self._set(f, FolderState.PAUSED, _paused_message(folder))
            return FolderStatus(**asdict(f.status))

    def remove(self, folder: str) -> None:
        with self._lifecycle:
            with self._cond:
                f = self._folders.pop(folder, None)
            self._timers.disarm_under(folder)
            if f is not None:
                self._stop_observer(f)

    def statuses(self) -> list[FolderStatus]:
        with self._cond:
            return [FolderStatus(**asdict(f.status)) for f in self._folders.values()]

    def sweep_now(self, folder: str | None = None) -> None:
        with self._cond:
            targets = [f for f in self._folders.values() if folder in (None, f.path)]
        for f in targets:
            if f.status.state is not FolderState.PAUSED:
                self._sweep(f)

    def stop(self) -> None:
        self._timers.close()
        with self._lifecycle:
            with self._cond:
                folders = list(self._folders.values())
            for f in folders:
                self._stop_observer(f)
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(5.0)

    # Waiting (tests, headless) ---------------------------------------------

    def pending_paths(self) -> list[str]:
        return self._timers.pending()

    def wait_settled(self, timeout: float) -> bool:
        """Block until no timer is armed and the queue is idle; False on timeout."""
        deadline = time.monotonic() + timeout
        while True:
            if not self._timers.wait_empty(max(0.0, deadline - time.monotonic())):
                return False
            if not self.queue.wait_idle(max(0.0, deadline - time.monotonic())):
                return False
            if self._timers.is_empty() and self.queue.is_idle():
                return True

    # Observers -------------------------------------------------------------

    def _start(self, f: _Folder) -> None:
        observer = Observer()
        observer.schedule(_Handler(self, f.path), f.path, recursive=True)
        try:
            observer.start()
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, errno.EMFILE):
                self._set(f, FolderState.SWEEP_ONLY, _limit_message(f.path))
            else:
                self._set(
                    f,
                    FolderState.ERROR,
                    f"Cannot watch {f.path}: {exc.strerror or exc}. Retrying at each sweep.",
                )
            log.warning("cannot watch %s: %s", f.path, exc)
        else:
            with self._cond:
                f.observer = observer
            self._set(f, FolderState.WATCHING, "")
        self._sweep(f)

    def _stop_observer(self, f: _Folder) -> None:
        with self._cond:
            observer, f.observer = f.observer, None
        if observer is not None:
            observer.stop()
            if observer.is_alive():
                observer.join(5.0)

    @staticmethod
    def _observer_alive(f: _Folder) -> bool:
        obs = f.observer
        return obs is not None and obs.is_alive() and all(e.is_alive() for e in obs.emitters)

    def _set(self, f: _Folder, state: FolderState, message: str) -> None:
        with self._cond:
            changed = (f.status.state, f.status.message) != (state, message)
            f.status.state, f.status.message = state, message
            snapshot = FolderStatus(**asdict(f.status))
        if changed:
            log.info("%s: %s %s", f.path, state.value, message)
            if self.on_state is not None:
                try:
                    self.on_state(snapshot)
                except Exception:  # noqa: BLE001
                    log.exception("watch state listener failed")

    def _sweep(self, f: _Folder) -> None:
        interval = self.sweep_interval or math.inf
        if f.status.state in (FolderState.SWEEP_ONLY, FolderState.ERROR):
            interval = min(interval, SWEEP_ONLY_SECONDS)
        with self._cond:
            f.status.last_sweep = time.time()
            f.next_sweep = time.monotonic() + interval
        self.queue.sweep(f.path)

    # The watcher's thread: debounce timers, missing folders, periodic sweeps -----

    def _loop(self) -> None:
        while not self._timers.closed:
            due = self._timers.wait_due(until=self._next_poll)
            if due:
                try:
                    # A path's timer ends in what is there now: a file to index, or
                    # nothing (deleted, or moved to another watched folder) to remove.
                    present = [p for p in due if os.path.isfile(p)]
                    if present:
                        self.queue.index(present, source="watch")
                    for p in due:
                        if not os.path.isfile(p):  # gone, or a folder in its place
                            self.queue.remove(p, source="watch")
                finally:
                    self._timers.fired()
            if time.monotonic() >= self._next_poll:
                self._next_poll = time.monotonic() + self.poll
                with self._lifecycle:
                    if not self._timers.closed:
                        self._maintain()

    def _maintain(self) -> None:
        with self._cond:
            folders = list(self._folders.values())
        now = time.monotonic()
        for f in folders:
            there = os.path.isdir(f.path)
            state = f.status.state
            if not there:
                if state is not FolderState.PAUSED:
                    self._stop_observer(f)
                    self._timers.disarm_under(f.path)
                    self._set(f, FolderState.PAUSED, _paused_message(f.path))
            elif state is FolderState.PAUSED:
                log.info("%s is back: resuming", f.path)
                self._start(f)  # sweeps: catch up on what changed while it was away
            elif state is FolderState.WATCHING and not self._observer_alive(f):
                self._stop_observer(f)  # deleted and recreated between two polls
                self._start(f)
            elif state is FolderState.ERROR and now >= f.next_sweep:
                self._start(f)
            elif now >= f.next_sweep:
                self._sweep(f)

    # Events (on the observers' threads) -------------------------------------

    def _root_of(self, path: str) -> str | None:
        with self._cond:
            return next((r for r in self._folders if inside(path, r)), None)

    def _visible(self, path: str) -> bool:
        """Inside a watched folder and not under a hidden folder (``.git``, ``.cache``)."""
        root = self._root_of(path)
        if root is None:
            return False
        return not any(part.startswith(".") for part in Path(os.path.relpath(path, root)).parts)

    def _wanted(self, path: str) -> bool:
        root = self._root_of(path)
        return (
            root is not None
            and self._visible(path)
            and filemod.is_candidate(Path(path))
            and not filemod.leaves_folder(path, root)  # a link planted to read outside
        )

    def _on_event(self, root: str, ev: FileSystemEvent) -> None:
        kind = ev.event_type
        if kind in _IGNORED:
            return
        src = os.fsdecode(ev.src_path)
        dest = os.fsdecode(ev.dest_path) if ev.dest_path else ""
        if ev.is_directory:
            if kind == "deleted":
                self._on_dir_deleted(root, src)
            elif kind == "moved":
                self._on_dir_moved(src, dest)
            return  # directory created/modified: the events of the files inside suffice
        if kind == "closed":
            if self._wanted(src):
                self._timers.arm(src, self.quiet)
        elif kind in ("created", "modified"):
            if self._wanted(src):
                self._timers.arm(src, self.fallback)
        elif kind == "deleted":
            if self._wanted(src):
                self._timers.arm(src, self.gone)
            else:
                self._timers.disarm(src)
        elif kind == "moved" and not ev.is_synthetic:  # synthetic: its folder's move covers it
            self._on_file_moved(src, dest)

    def _on_file_moved(self, src: str, dest: str) -> None:
        self._timers.disarm(src)
        src_in, dest_in = self._wanted(src), self._wanted(dest)
        if src_in and dest_in:
            self.queue.move(src, dest, source="watch")
        elif src_in:  # moved out of the watched folders, or renamed to a temp/hidden name
            # removed when it is still gone GONE_SECONDS later: an editor's backup save
            # (a.txt -> a.txt~, then a new a.txt) keeps its document and collections
            self._timers.arm(src, self.gone)
        elif dest_in:  # moved in, or a finished download (x.part -> x.pdf)
            self._timers.arm(dest, self.quiet)

    def _on_dir_moved(self, src: str, dest: str) -> None:
        writing = self._timers.disarm_under(src)
        src_in, dest_in = self._visible(src), self._visible(dest)
        if src_in and dest_in:
            self.queue.move(src, dest, source="watch")
            for p in writing:  # files still being written when their folder moved
                self._timers.arm(dest + p[len(src) :], self.quiet)
        elif src_in:
            self.queue.remove(src, source="watch")
        elif dest_in:  # e.g. a hidden staging folder renamed into view
            found = filemod.Collected()
            filemod.walk_folder(Path(dest), found)
            for file in found.files:
                self._timers.arm(str(file), self.quiet)

    def _on_dir_deleted(self, root: str, src: str) -> None:
        if src == root:  # the watched folder itself: pause (see _maintain), keep documents
            self._next_poll = 0.0
            self._timers.wake()
            return
        self._timers.disarm_under(src)
        if self._visible(src):
            self._timers.arm(src, self.gone)  # removed then, unless it moved (see above)


def _paused_message(folder: str) -> str:
    return f"{folder} is missing (unplugged drive?). Paused until it comes back; documents kept."


def _limit_message(folder: str) -> str:
    return (
        f"The system's limit of watched folders (inotify) is reached: {folder} is checked "
        f"every {SWEEP_ONLY_SECONDS:.0f} s instead of live. Raise fs.inotify.max_user_watches."
    )
