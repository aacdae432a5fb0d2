"""Execution backends of ``bdpsim run``: a joblib ``Parallel`` on local processes (loky) or a Dask
cluster, the scheduler address check, and the heartbeat that reports progress to a log."""

from __future__ import annotations

import contextlib
import os
import re
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator

from ..core.errors import ConfigError, check
from .watchdog import loky_worker_start

BACKENDS = ("loky", "dask")
#: seconds allowed to each step of reaching a Dask cluster (handshake, connection, a worker, the
#: workers' import of bdpsim): a bad --scheduler fails within about 30 s, never hangs
DASK_STEP_SECONDS = 8.0

_ADDRESS = re.compile(r"(?:(tcp|tls|ws|wss)://)?([A-Za-z0-9._-]+|\[[0-9A-Fa-f:]+\]):([0-9]{1,5})/?")


def check_scheduler(address: str) -> None:
    """A Dask scheduler address must be ``[tcp|tls|ws|wss://]HOST:PORT``."""
    m = _ADDRESS.fullmatch(address) if isinstance(address, str) else None
    check(
        m is not None and 0 < int(m.group(3)) < 65536,
        "--scheduler",
        address,
        "must be a Dask scheduler address like tcp://HOST:PORT (schemes tcp, tls, ws, wss)",
    )


def parallel(jobs: int, backend: str, scheduler: str | None):
    """A context manager yielding a joblib ``Parallel`` for the chosen backend."""
    import joblib

    @contextlib.contextmanager
    def ctx():
        if backend == "loky":  # each worker exits when this process dies (pipeline.watchdog)
            with joblib.parallel_config(
                backend="loky", initializer=loky_worker_start, initargs=(os.getpid(),)
            ):
                yield joblib.Parallel(n_jobs=jobs, return_as="generator_unordered")
            return
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise ConfigError(
                "--backend", "dask", "needs dask[distributed] (pip install 'bdpsim[dask]')"
            ) from None
        cluster = None
        try:
            if scheduler:
                client = connect_scheduler(scheduler)
            else:  # a task whose worker dies fails at once (KilledWorker), never retried on new workers
                import dask

                with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
                    # its scheduler's HTTP server on a free port (no "port 8787 in use" warning) and
                    # its logs silenced: what fails reaches the user as bdpsim's one line
                    cluster = LocalCluster(
                        n_workers=jobs,
                        threads_per_worker=1,
                        processes=True,
                        host="127.0.0.1",
                        dashboard_address=":0",
                        silence_logs=50,
                    )
                client = Client(cluster)
        except (OSError, TimeoutError, ValueError) as exc:
            raise ConfigError(
                "--scheduler", scheduler, f"cannot connect to the Dask scheduler ({exc})"
            ) from None
        try:
            if scheduler:
                check_workers(client, scheduler)
            with joblib.parallel_config(backend=dask_backend()):
                yield joblib.Parallel(n_jobs=-1, return_as="generator_unordered")
        finally:
            import gc

            gc.collect()  # a stray Client (of a failed batch) is closed while the loop still runs
            client.close()
            if cluster is not None:
                cluster.close()

    return ctx()


#: the names of the exceptions by which joblib (loky) and Dask report a worker process that died
WORKER_DEATHS = ("TerminatedWorkerError", "BrokenProcessPool", "KilledWorker")


def tasks(fn: Callable, calls: Iterable[tuple], jobs: int, *, unordered: bool = False) -> Iterator:
    """The results ``fn(*args)`` for each ``args`` of ``calls``, computed in ``jobs`` local
    processes (joblib, loky): in the order of ``calls``, or as they finish with ``unordered``
    (then ``fn`` should return its own key). The studies' and the utility experiment's executor;
    a worker process that dies is reported as one ``ConfigError`` of ``--jobs`` (finished work
    the caller saved is kept), not as joblib's traceback.
    """
    import joblib

    check(
        isinstance(jobs, int) and not isinstance(jobs, bool) and jobs >= 1,
        "--jobs",
        jobs,
        "must be an integer >= 1",
    )
    from .watchdog import worker_count

    calls = list(calls)
    workers = worker_count(jobs, len(calls))[0]  # never more processes than CPUs or calls
    par = joblib.Parallel(n_jobs=workers, return_as="generator_unordered" if unordered else "generator")
    try:
        yield from par(joblib.delayed(fn)(*args) for args in calls)
    except Exception as exc:
        if type(exc).__name__ not in WORKER_DEATHS:
            raise
        raise ConfigError(
            "--jobs",
            jobs,
            f"a worker process died ({type(exc).__name__}; killed from outside "
            "or out of memory?): finished work is saved; re-run to resume, or "
            "lower --jobs",
        ) from None


def dask_backend() -> str:
    """The name of joblib's Dask backend with one fix: a task that fails outside the task's own
    code (its worker died: ``KilledWorker``) fails the ``Parallel`` call. joblib's backend (1.6)
    then sets the exception of its future without calling the batch's callback, on which
    ``Parallel(return_as="generator_unordered")`` waits for ever. Falls back to ``"dask"`` when
    joblib's internals differ."""
    import asyncio

    import joblib
    from joblib._dask import DaskDistributedBackend

    if not all(hasattr(DaskDistributedBackend, a) for a in ("_collect", "start_call")):  # pragma: no cover
        return "dask"

    class Backend(DaskDistributedBackend):
        async def _collect(self):  # joblib's, with the callback also called on an error
            while self._continue:
                async for future, result in self.waiting_futures:
                    cf_future = self._results.pop(future)
                    callback = self._callbacks.pop(future)
                    if future.status == "error":
                        exc = result[1]
                        cf_future.set_exception(exc)
                        callback(exc)  # joblib raises it in the caller: the run stops
                    else:
                        cf_future.set_result(result)
                        callback(result)
                await asyncio.sleep(0.01)

    joblib.register_parallel_backend("bdpsim-dask", Backend)
    return "bdpsim-dask"


def probe_scheduler(address: str, seconds: float = DASK_STEP_SECONDS) -> None:
    """Check that a ``tcp://`` address answers as a Dask scheduler does: it speaks first (its
    handshake) as soon as a connection is accepted. Another service (an HTTP server, say) stays
    silent, on which ``distributed.Client`` would wait forever. Other schemes are not probed."""
    m = _ADDRESS.fullmatch(address)
    if m is None or (m.group(1) or "tcp") != "tcp":
        return
    host, port = m.group(2).strip("[]"), int(m.group(3))
    try:
        with socket.create_connection((host, port), timeout=seconds) as conn:
            conn.settimeout(seconds)
            first = conn.recv(1)
    except TimeoutError:
        raise ConfigError(
            "--scheduler",
            address,
            f"is not a Dask scheduler (no Dask handshake within {seconds:g} s: "
            "another service on that port?)",
        ) from None
    except OSError as exc:
        raise ConfigError(
            "--scheduler", address, f"cannot connect to the Dask scheduler ({exc.strerror or exc})"
        ) from None
    if not first:
        raise ConfigError(
            "--scheduler",
            address,
            "is not a Dask scheduler (it closed the connection without a Dask handshake)",
        )


def connect_scheduler(address: str, seconds: float = DASK_STEP_SECONDS):
    """A ``distributed.Client`` of the scheduler at ``address``, or a one-line
    :class:`~bdpsim.core.errors.ConfigError` within about ``2 * seconds`` (the connection is made in a
    daemon thread with a deadline: ``Client``'s own timeout does not cover every hang)."""
    from dask.distributed import Client

    probe_scheduler(address, seconds)
    box: dict = {}

    def connect() -> None:
        try:
            box["client"] = Client(address, timeout=f"{seconds:g}s")
        except BaseException as exc:  # handed to the caller
            box["error"] = exc

    t = threading.Thread(target=connect, daemon=True, name="bdpsim-dask-connect")
    t.start()
    t.join(seconds + 5.0)
    if t.is_alive():
        raise ConfigError(
            "--scheduler", address, f"no answer from the Dask scheduler within {seconds + 5:g} s"
        )
    if "error" in box:
        exc = box["error"]
        raise ConfigError(
            "--scheduler",
            address,
            f"cannot connect to the Dask scheduler ({type(exc).__name__}: "
            f"{' '.join(str(exc).split())[:160]})",
        ) from None
    return box["client"]


def check_workers(client, address: str, seconds: float = DASK_STEP_SECONDS) -> None:
    """The cluster has a worker (waiting up to ``seconds``) and every worker imports bdpsim; else
    a one-line :class:`~bdpsim.core.errors.ConfigError` (with the client closed)."""
    try:
        try:
            client.wait_for_workers(1, timeout=seconds)
        except (TimeoutError, OSError):
            raise ConfigError(
                "--scheduler",
                address,
                f"has no worker after {seconds:g} s (start one: dask worker {address})",
            ) from None
        try:  # exec is a builtin: it reaches a worker without bdpsim, which then reports the import error
            answers = client.run(exec, "import bdpsim.pipeline.driver", on_error="return", wait=True)
        except Exception as exc:
            raise ConfigError(
                "--scheduler",
                address,
                f"cannot run on its workers ({type(exc).__name__}: {' '.join(str(exc).split())[:120]})",
            ) from None
        bad = {w: a for w, a in answers.items() if isinstance(a, BaseException)}
        if bad:
            w, err = next(iter(bad.items()))
            raise ConfigError(
                "--scheduler",
                address,
                f"{len(bad)} of {len(answers)} workers cannot import bdpsim "
                f"({w}: {type(err).__name__}: {' '.join(str(err).split())[:100]}); "
                "install bdpsim on every worker",
            )
    except ConfigError:
        client.close()
        raise


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
