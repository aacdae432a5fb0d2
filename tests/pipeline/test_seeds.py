"""The one seed tree (issue 36 item 5): every SeedSequence is built by bdpsim.pipeline.seeds, and
its two walks (addressed nodes, spawned children) are one tree, so committed numbers stay."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import bdpsim
from bdpsim.pipeline import seeds

PACKAGE = Path(bdpsim.__file__).parent


def _code_lines(pattern: str) -> dict[str, int]:
    """Files of the package whose code (docstring/comment lines aside) contains ``pattern``."""
    hits: dict[str, int] = {}
    for f in sorted(PACKAGE.rglob("*.py")):
        for line in f.read_text(encoding="utf-8").splitlines():
            code = line.split("#", 1)[0]
            if re.search(pattern, code) and "``" not in code:
                hits[str(f.relative_to(PACKAGE))] = hits.get(str(f.relative_to(PACKAGE)), 0) + 1
    return hits


def test_seed_sequences_are_built_in_one_module():
    assert set(_code_lines(r"SeedSequence\(")) == {"pipeline/seeds.py"}


def test_parallel_is_called_in_one_module():
    assert set(_code_lines(r"\bParallel\(")) == {"pipeline/backends.py"}


@pytest.mark.parametrize("seed", [0, 7, 2**40 + 3])
def test_spawned_children_are_the_addressed_nodes(seed):
    """node(s).spawn(n)[i] has the state of node(s, i), and one level further down."""
    kids = seeds.node(seed).spawn(3)
    for i, kid in enumerate(kids):
        assert np.array_equal(kid.generate_state(8), seeds.node(seed, i).generate_state(8))
        grand = kid.spawn(2)[1]
        assert np.array_equal(grand.generate_state(8), seeds.node(seed, i, 1).generate_state(8))
    a = [g.random(4) for g in seeds.streams(seed, 5, 2, count=3)]
    b = [np.random.default_rng(s).random(4) for s in np.random.SeedSequence(seed, spawn_key=(5, 2)).spawn(3)]
    assert all(np.array_equal(x, y) for x, y in zip(a, b))


def test_stream_is_the_old_construction():
    """The exact streams the utility experiment and the accuracy study drew before the move."""
    old = np.random.default_rng(np.random.SeedSequence(11, spawn_key=(3, 0, 2, 1))).random(5)
    assert np.array_equal(seeds.stream(11, 3, 0, 2, 1).random(5), old)


@pytest.mark.parametrize("args", [(-1,), (1.5,), (True,), (3, -2), (3, 1.0)])
def test_bad_seeds_are_refused(args):
    with pytest.raises(ValueError, match="must be an integer >= 0"):
        seeds.node(*args)
    with pytest.raises(ValueError, match="count = -1"):
        seeds.streams(1, count=-1)


def _square(x: int) -> int:
    return x * x


def _die(x: int) -> int:
    import os

    os._exit(3)


def test_tasks_keeps_the_order_of_the_calls():
    from bdpsim.pipeline.backends import tasks

    assert list(tasks(_square, ((i,) for i in range(6)), 1)) == [i * i for i in range(6)]
    assert sorted(tasks(_square, [(i,) for i in range(6)], 2, unordered=True)) == [i * i for i in range(6)]


def test_tasks_refuses_bad_jobs_and_reports_a_dead_worker_in_one_line():
    from bdpsim.core.errors import ConfigError
    from bdpsim.pipeline.backends import tasks

    with pytest.raises(ConfigError, match="--jobs"):
        list(tasks(_square, [(1,)], 0))
    with pytest.raises(ConfigError, match="a worker process died"):
        list(tasks(_die, [(1,), (2,)], 2))
