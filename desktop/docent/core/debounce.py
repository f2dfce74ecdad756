"""Per-path debounce timers on one thread (not one ``threading.Timer`` per file).

``arm(path, delay)`` (re)starts the path's timer; the owner's thread calls
``wait_due(until)`` to sleep until some path has been quiet long enough, and ``fired()``
once it has handed them on. ``wait_empty`` lets tests and headless runs wait for every
armed timer to fire or be cancelled, without sleeping.
"""

from __future__ import annotations

import heapq
import math
import threading
import time

from docent.core.userfiles import inside


class Debouncer:
    def __init__(self) -> None:
        self._deadlines: dict[str, float] = {}  # path -> time.monotonic() deadline
        self._heap: list[tuple[float, str]] = []  # may hold stale entries (re-armed paths)
        self._firing = 0
        self._woken = False
        self._closed = False
        self._cond = threading.Condition()

    def arm(self, path: str, delay: float) -> None:
        with self._cond:
            deadline = time.monotonic() + delay
            self._deadlines[path] = deadline
            heapq.heappush(self._heap, (deadline, path))
            self._cond.notify_all()

    def disarm(self, path: str) -> bool:
        with self._cond:
            armed = self._deadlines.pop(path, None) is not None
            self._cond.notify_all()
            return armed

    def disarm_under(self, folder: str) -> list[str]:
        """Cancel the timers of ``folder`` and everything under it; returns their paths."""
        with self._cond:
            gone = [p for p in self._deadlines if inside(p, folder)]
            for p in gone:
                del self._deadlines[p]
            self._cond.notify_all()
            return gone

    def pending(self) -> list[str]:
        with self._cond:
            return sorted(self._deadlines)

    def wake(self) -> None:
        """Make the waiting ``wait_due`` return now (the owner has other work)."""
        with self._cond:
            self._woken = True
            self._cond.notify_all()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._deadlines.clear()
            self._cond.notify_all()

    @property
    def closed(self) -> bool:
        return self._closed

    def wait_due(self, until: float) -> list[str]:
        """Paths whose timers ran out, waiting at most until ``until`` (monotonic) or a
        ``wake()``. A non-empty answer must be followed by ``fired()``."""
        with self._cond:
            while not self._closed:
                now = time.monotonic()
                due = self._pop_due(now)
                if due:
                    self._firing += 1
                    return due
                if now >= until or self._woken:
                    self._woken = False
                    return []
                nearest = self._heap[0][0] if self._heap else math.inf
                self._cond.wait(min(nearest, until) - now)
            return []

    def fired(self) -> None:
        with self._cond:
            self._firing -= 1
            self._cond.notify_all()

    def _pop_due(self, now: float) -> list[str]:
        due: list[str] = []
        while self._heap and self._heap[0][0] <= now:
            deadline, path = heapq.heappop(self._heap)
            if self._deadlines.get(path) == deadline:  # else re-armed or cancelled since
                del self._deadlines[path]
                due.append(path)
        return due

    def wait_empty(self, timeout: float) -> bool:
        """Block until no timer is armed and none is being handed on; False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._deadlines and not self._firing, timeout)

    def is_empty(self) -> bool:
        with self._cond:
            return not self._deadlines and not self._firing
