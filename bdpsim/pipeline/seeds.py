"""The seed tree: the one module that builds a :class:`numpy.random.SeedSequence`.

Every random stream of a run, a study or the utility experiment is a node of the spawn tree of
one root seed. The node at path ``(k_1, ..., k_d)`` is

.. math::

    \\mathrm{node}(s; k_1, \\dots, k_d) = \\mathtt{SeedSequence}(s, \\mathtt{spawn\\_key}=(k_1, \\dots, k_d)),

which is exactly the child that ``SeedSequence(s).spawn(...)`` gives at that position:
``node(s).spawn(n)[i]`` *is* ``node(s, i)`` (same entropy, same spawn key, same state), and
``node(s, *path).spawn(n)[i]`` is ``node(s, *path, i)``. The two ways the package walks the tree
are therefore one tree, and both keep their committed numbers:

* **positional** (addressed nodes) — the driver (:meth:`ExperimentPoint.adversary_streams
  <bdpsim.pipeline.config.ExperimentPoint.adversary_streams>`: adversary ``j`` is drawn from
  ``(population_key, 2, j)``, estimated from the two children of ``(point_key, 0, j)``;
  configuration-level work from ``(point_key, 1, *path)``), the accuracy study, the genomic
  study's noise, the utility experiment — :func:`node` / :func:`stream` with an explicit path, so
  a stream does not depend on the order in which others are made or on the number of workers;
* **sequential** (spawned children) — the Pufferfish figure and the genomic study's data —
  ``node(seed).spawn(n)``: the ``i``-th child spawned from a node is the node one level below
  at position ``i`` (counting every child spawned from that node object so far).
"""

from __future__ import annotations

import numpy as np

__all__ = ["node", "stream", "streams"]


def _path(seed: int, path: tuple[int, ...]) -> tuple[int, ...]:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed = {seed!r}: must be an integer >= 0")
    for k in path:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
            raise ValueError(f"spawn key = {path!r}: every entry must be an integer >= 0")
    return tuple(int(k) for k in path)


def node(seed: int, *path: int) -> np.random.SeedSequence:
    """The node ``SeedSequence(seed, spawn_key=path)`` of ``seed``'s spawn tree.

    ``node(seed)`` is the root; ``node(seed, *path, i)`` is the ``i``-th child that
    ``node(seed, *path).spawn(...)`` gives. Raises ``ValueError`` for a negative or non-integer
    seed or path entry.
    """
    return np.random.SeedSequence(int(seed), spawn_key=_path(seed, path))


def stream(seed: int, *path: int) -> np.random.Generator:
    """``numpy.random.default_rng(node(seed, *path))``: the generator at ``path`` of the tree."""
    return np.random.default_rng(node(seed, *path))


def streams(seed: int, *path: int, count: int) -> list[np.random.Generator]:
    """The generators of the ``count`` children of ``node(seed, *path)``, i.e. of
    ``node(seed, *path, i)`` for ``i = 0, ..., count - 1`` (what ``.spawn(count)`` gives)."""
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 0:
        raise ValueError(f"count = {count!r}: must be an integer >= 0")
    return [np.random.default_rng(s) for s in node(seed, *path).spawn(int(count))]
