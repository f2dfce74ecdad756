"""Keep Python's garbage collector from pausing the window.

A full collection walks every container object in the process and holds the GIL while
it does: with Qt, onnxruntime, fastembed and qdrant loaded that is over a hundred
milliseconds (measured 168 ms in ``benchmarks/gui_stall.py``, the run's longest stall),
and it happens in whichever thread allocates at the wrong moment. What startup builds
(modules, the model's tables, the window) lives as long as the app, so it is frozen out of
later collections, which then walk only what is new.

Not collected first: that collection would itself be the 60-170 ms stall. The price is
that garbage cycles made during startup (a little import-time debris) are kept.
"""

from __future__ import annotations

import gc
import logging
import time

log = logging.getLogger(__name__)


def settle_heap() -> None:
    """Move every object tracked so far out of the collector's sight (``gc.freeze``)."""
    started = time.perf_counter()
    gc.freeze()
    log.debug(
        "heap settled in %.0f ms; %d objects frozen",
        (time.perf_counter() - started) * 1000,
        gc.get_freeze_count(),
    )
