"""Execution backends of ``bdpsim run``: a joblib ``Parallel`` on local processes (loky) or a Dask
cluster, the scheduler address check, and the heartbeat that reports progress to a log."""

from __future__ import annotations

import contextlib
import re
import threading
import time
from collections.abc import Callable

from .errors import ConfigError, check

BACKENDS = ("loky", "dask")

_ADDRESS = re.compile(r"(?:(tcp|tls|ws|wss)://)?([A-Za-z0-9._-]+|\[[0-9A-Fa-f:]+\]):([0-9]{1,5})/?")


def check_scheduler(address: str) -> None:
    """A Dask scheduler address must be ``[tcp|tls|ws|wss://]HOST:PORT``."""
    m = _ADDRESS.fullmatch(address) if isinstance(address, str) else None
    check(m is not None and 0 < int(m.group(3)) < 65536, "--scheduler", address,
          "must be a Dask scheduler address like tcp://HOST:PORT (schemes tcp, tls, ws, wss)")


def parallel(jobs: int, backend: str, scheduler: str | None):
    """A context manager yielding a joblib ``Parallel`` for the chosen backend."""
    import joblib

    @contextlib.contextmanager
    def ctx():
        if backend == "loky":
            yield joblib.Parallel(n_jobs=jobs, return_as="generator_unordered")
            return
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise ConfigError("--backend", "dask", "needs dask[distributed] (pip install 'bdpsim[dask]')") from None
        cluster = None
        try:
            if scheduler:
                client = Client(scheduler, timeout="10s")
            else:
                cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                                       host="127.0.0.1", dashboard_address=None)
                client = Client(cluster)
        except (OSError, TimeoutError, ValueError) as exc:
            raise ConfigError("--scheduler", scheduler, f"cannot connect to the Dask scheduler ({exc})") from None
        try:
            with joblib.parallel_config(backend="dask"):
                yield joblib.Parallel(n_jobs=-1, return_as="generator_unordered")
        finally:
            client.close()
            if cluster is not None:
                cluster.close()

    return ctx()


class Heartbeat:
    """Log ``text()`` every ``every`` seconds from a daemon thread (off when ``every <= 0``)."""

    def __init__(self, every: float, log: Callable[[str], None], text: Callable[[], str]) -> None:
        self._stop = threading.Event()
        self._t0 = time.monotonic()
        self._thread = None
        if every > 0:
            def loop() -> None:
                while not self._stop.wait(every):
                    log(f"{text()}, {time.monotonic() - self._t0:.0f} s elapsed")
            self._thread = threading.Thread(target=loop, daemon=True, name="bdpsim-heartbeat")
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1)
