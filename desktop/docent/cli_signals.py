"""How a command stops: SIGINT and SIGTERM end it as Ctrl-C would, closing the library,
even when a shell started it in the background with SIGINT ignored."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator


class Stop(KeyboardInterrupt):
    """SIGINT or SIGTERM arrived: end the command as Ctrl-C would, closing the library."""


def stop_on_signals() -> None:
    """SIGINT and SIGTERM raise Stop, even where SIGINT was ignored (a shell's ``&``
    starts background jobs with SIGINT ignored). After the first, both are ignored, so a
    second signal cannot cut closing the library short. ``main`` puts the previous
    handlers back when the command ends (tests call it in their own process)."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        return  # only the main thread may set handlers (and only it gets signals)

    def stop(signum: int, frame: object) -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise Stop(signal.Signals(signum).name)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)


@contextlib.contextmanager
def handlers_restored() -> Iterator[None]:
    """The handlers of SIGINT and SIGTERM as they were, once the command ends (tests call
    ``main`` in their own process)."""
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        with contextlib.suppress(ValueError, TypeError):  # not the main thread: none were set
            for sig, handler in handlers.items():
                signal.signal(sig, handler)
