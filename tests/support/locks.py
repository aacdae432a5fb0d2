"""A run lock held by another thread for a while: what a second run into the same directory meets."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path

from bdpsim.pipeline import results as R


@contextlib.contextmanager
def lock_held(out: Path, seconds: float = 1.0) -> Iterator[None]:
    """Hold ``out``'s run lock (:func:`bdpsim.pipeline.results.run_lock`) in another thread and
    release it ``seconds`` after the block starts; the block runs while it is held, and the thread
    is joined at the end."""
    held, release = threading.Event(), threading.Event()

    def other_run() -> None:
        with R.run_lock(out):
            held.set()
            release.wait(10)

    t = threading.Thread(target=other_run)
    t.start()
    held.wait(5)
    timer = threading.Timer(seconds, release.set)
    timer.start()
    try:
        yield
    finally:
        timer.join()  # the lock is released on time even when the block failed
        t.join()
