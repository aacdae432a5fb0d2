"""Worker processes that end with their driver, and the number of workers worth starting.

**Orphans.** A pool worker busy with a task does not notice that ``bdpsim run`` was killed
(``kill -9``, the OOM killer, a closed terminal): it finishes its task — minutes, hours — and
only then finds its pipe closed. :func:`exit_with_parent` starts, once per worker process, a
daemon thread that checks every :data:`POLL_SECONDS` whether the process's parent is still the
driver (``os.getppid()``: a dead parent's children are re-parented to init or a sub-reaper) and
ends the worker at once when not. :func:`loky_worker_start` starts it as each loky worker starts
(idle workers too). It acts only in a *direct child* of the driver: never in the driver itself
(``--jobs 1`` runs in-process) nor on a Dask worker of another machine, whose parent is not the
driver.

**Fork storms.** :func:`worker_count` caps ``--jobs`` at the CPUs this process may use and at the
number of tasks: more processes than either only add memory and start-up time (the numbers never
depend on ``--jobs``).
"""

from __future__ import annotations

import os
import threading
import time

#: how often a worker looks at its parent (seconds)
POLL_SECONDS = 0.5

_started: set[int] = set()  # pids of processes whose watchdog runs (a forked child starts its own)
_lock = threading.Lock()
#: the real ``os._exit``, taken at import: while a worker runs a user's mechanism,
#: :func:`bdpsim.mechanisms.custom.no_exit` replaces ``os._exit`` with a function that raises (a
#: mechanism must not end its process), which would turn this watchdog's exit into an exception in
#: its own thread and leave the busy worker running
_EXIT = os._exit


def _watch(driver: int) -> None:
    while True:
        time.sleep(POLL_SECONDS)
        if os.getppid() != driver:  # the driver died: nobody will read this worker's results
            _EXIT(1)


def exit_with_parent(driver: int) -> bool:
    """Make this process exit as soon as its parent, the driver of pid ``driver``, dies.

    Returns whether a watchdog runs in this process (False in the driver itself and in a process
    that is not the driver's child)."""
    pid = os.getpid()
    if pid == driver or os.getppid() != driver:
        return False
    with _lock:
        if pid not in _started:
            _started.add(pid)
            threading.Thread(
                target=_watch, args=(driver,), name="bdpsim-exit-with-parent", daemon=True
            ).start()
    return True


def loky_worker_start(driver: int) -> None:
    """The initializer of ``bdpsim run``'s loky workers (``driver``: its pid): exit at once if the
    driver died while this worker started (importing takes seconds; an idle worker would wait on its
    queue for ever), else :func:`exit_with_parent`."""
    if os.getppid() != driver:
        _EXIT(1)
    exit_with_parent(driver)


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the system has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # no affinity masks on this system (macOS, Windows)
        return max(1, os.cpu_count() or 1)


#: the cap is never below this: ``--jobs 2`` still runs user code in worker processes (isolated
#: from the driver) on a one-CPU machine
MIN_WORKERS = 2


def worker_count(jobs: int, tasks: int, cpus: int | None = None) -> tuple[int, str | None]:
    """``(workers, note)``: ``jobs`` capped at ``max(cpus, MIN_WORKERS)`` (``cpus`` default
    :func:`available_cpus`) and at ``tasks`` (at least 1); ``note`` says why when ``jobs``
    exceeded that cap (a cap at the number of tasks alone is silent: it changes nothing but idle
    processes)."""
    cpus = available_cpus() if cpus is None else cpus
    cap = max(cpus, MIN_WORKERS)
    workers = max(1, min(jobs, cap, tasks))
    note = None
    if jobs > cap:
        note = (
            f"--jobs {jobs}: using {workers} worker process{'es' if workers > 1 else ''} (this process may "
            f"use {cpus} CPU{'s' if cpus > 1 else ''}; {tasks} task{'s' if tasks != 1 else ''}): more would "
            "only add memory, the numbers do not depend on --jobs"
        )
    return workers, note
