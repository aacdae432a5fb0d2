"""Progress of the long commands (``worst-case``, ``accuracy``, ``figures``), as ``bdpsim run``
shows it: a progress bar on a terminal, otherwise one line every ~10 s (for logs)."""

from __future__ import annotations

import sys
import threading
from typing import Any

from ..pipeline.backends import Heartbeat

#: seconds between two progress lines without a terminal
EVERY = 10.0


def add_quiet_option(parser) -> None:
    """``--quiet`` on ``parser``: no :class:`Progress` bar or line (every long command alike)."""
    parser.add_argument(
        "--quiet",
        action="store_true",
        help=f"no progress bar (nor, without a terminal, the progress line every {EVERY:g} s)",
    )


class Progress:
    """A callable ``progress(done, total)``: a tqdm bar when stderr is a terminal, else a line
    ``DESC: done/total UNIT, N s elapsed`` every ``every`` seconds; silent with ``quiet``.

    Parameters
    ----------
    desc : str
        What is progressing (``"bdpsim worst-case"``).
    unit : str
        The unit counted (``"starts"``).
    every : float, optional
        Seconds between lines without a terminal (default :data:`EVERY`, 10).
    tty : bool, optional
        Whether to draw a bar (default: stderr is a terminal).
    quiet : bool, optional
        Show nothing.
    """

    def __init__(
        self, desc: str, unit: str, every: float | None = None, tty: bool | None = None, quiet: bool = False
    ) -> None:
        self.desc, self.unit = desc, unit
        self.tty = sys.stderr.isatty() if tty is None else tty
        self.quiet = quiet
        self.state = [0, None]
        self._lock = threading.Lock()
        self._bar: Any = None  # a tqdm bar, made on the first update
        self._beat = None
        if not quiet and not self.tty:
            self._beat = Heartbeat(EVERY if every is None else every, _stderr, self.text)

    def text(self) -> str:
        done, total = self.state
        return f"{self.desc}: {done}/{'?' if total is None else total} {self.unit}"

    def __call__(self, done: int, total: int | None = None) -> None:
        with self._lock:
            self.state = [done, total]
            if self.quiet or not self.tty:
                return
            if self._bar is None:
                from tqdm.auto import tqdm

                self._bar = tqdm(total=total, unit=self.unit, desc=self.desc, file=sys.stderr)
            if total is not None and self._bar.total != total:
                self._bar.total = total
            self._bar.n = done
            self._bar.refresh()

    def close(self) -> None:
        if self._beat is not None:
            self._beat.stop()
        if self._bar is not None:
            self._bar.close()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _stderr(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)
