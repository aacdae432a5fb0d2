"""A Laplace count that counts the exact engines built for it, in every process: its own
``exact(model)`` (a mechanism's engine answers first) appends one line to the file ``log`` and
returns the chain's engine. A joblib worker loads it by name and writes to the same file, so a
test counts the builds of a run on any backend."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass

from bdpsim.mechanisms import LaplaceCount
from bdpsim.mechanisms.noisy import NoisyQueryMechanism
from bdpsim.models import MODEL_KINDS


@dataclass(frozen=True)
class CountingMechanism(NoisyQueryMechanism):
    """A query + noise mechanism whose every engine build is a line of ``log``."""

    log: str = ""

    def exact(self, model):
        with open(self.log, "a", encoding="utf-8") as f:
            f.write(f"{os.getpid()}\n")
        return MODEL_KINDS[model.kind].exact(model, self)


def CountingCount(epsilon: float, log: str) -> CountingMechanism:
    """:func:`~bdpsim.mechanisms.LaplaceCount` ``(epsilon)`` counting its engine builds in ``log``."""
    base = LaplaceCount(epsilon)
    fields = {f.name: getattr(base, f.name) for f in dataclasses.fields(base)}
    return CountingMechanism(**fields, log=log)


def builds(log) -> int:
    """How many engines were built (lines of ``log``; 0 when none was)."""
    return len(open(log, encoding="utf-8").read().split()) if os.path.exists(log) else 0
