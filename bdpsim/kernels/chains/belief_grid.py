"""Finite vector measures on the positive cone, propagated by a hidden Markov chain's filter step and
held to a bounded size by two discretisations that bracket every divergence they carry.

**The object.** Take releases ``r_1..r_n`` of a chain, each ``r_s ~ L_s[., x_s]`` given ``x_s``.
Every output sequence ``r`` has the forward vector ``u(r)_x = P(r, x_{n+1} = x)`` (with the
recursion ``u(r, o) = M^T (u(r) * L[o, .])``, ``M`` the transition), and a hypothesis ``x_{n+1}
= a`` gives ``r`` the mass ``u(r)_a / Q_a``, ``Q = sum_r u(r)``. The backward vectors
``v(r)_x = P(r | x)`` obey the same recursion with ``M`` the transposed transition. So the pair of
laws of ``r`` under two hypotheses ``(a, b)`` is a function of the finite vector measure
``{u(r)}`` (:class:`Atoms`: atom ``i`` is the vector ``w_i D_i``, ``D_i`` a direction whose
entries sum to 1, ``w_i > 0``), and :func:`propagate` is one step of it (``n m`` atoms from ``n``).

**Garbling both ways.** Grouping outcomes into classes is a post-processing (a garbling) of the
release: every f-divergence, hockey-stick and Rényi divergence between the two hypotheses' laws
can only shrink. Conversely, write each atom ``u`` as a non-negative combination
``u = sum_c lambda_c V_c`` of fixed vectors ``V_c`` and replace the atoms by the vectors
``Lambda_c V_c = sum_i lambda_{ic} V_c``: the channel that sends ``c`` to atom ``i`` with
probability ``lambda_{ic} / Lambda_c`` maps the new measure onto the old one *for every
coordinate ``x`` at once* (it does not depend on ``x``), so the true release is a garbling of the
new one and every divergence can only grow. Because the channel does not depend on the hidden
state, it commutes with every later filter step and with every independent later release: a
merge or a split made at one step keeps its direction through all further propagation and
composition.

* :func:`merge_in_grid` (the lower bracket): the atoms whose directions fall in the same cell of
  a grid are summed (a garbling). The atoms that maximise each pairwise ratio ``u_x / u_y`` are
  kept apart, so the largest privacy loss survives where it is attained by one of them.
* :func:`split_onto_grid` (the upper bracket): in the chart ``rho_x = u_x / u_z`` (``z`` the last
  coordinate of the support) the grid's cells are boxes ``prod_x [e^{e_x}, e^{e_x + h_x}]``
  (uniform in ``ln rho``), and a point of a box is the multilinear combination
  ``rho = sum_c (prod_x s_x^{c_x} (1 - s_x)^{1 - c_x}) V_c`` of its corners ``V_c``,
  ``s_x = (rho_x - e^{e_x}) / (e^{e_x + h_x} - e^{e_x}) = expm1(ln rho_x - e_x) / expm1(h_x)`` (the
  multilinear interpolant reproduces every affine function, the coordinates included): each atom
  ``u = u_z (rho, 1)`` is split onto the corner vectors ``(V_c, 1)`` with the weights
  ``u_z prod_x s_x^{c_x} (1 - s_x)^{1 - c_x}``.

Both keep every coordinate's total mass exactly. Their difference to the true measure is a
second-order effect of the cell size (a Jensen gap of a convex function of the atom over one
cell), so the bracket they give narrows like ``h^2``.

:func:`loss_factor` does the same in one dimension for a pair ``(a, b)``: the atoms become
outcomes with masses ``p_i = u_ia / Q_a`` and ``q_i = u_ib / Q_b`` and loss ``l_i = ln p_i / q_i``,
grouped in cells of equal width in ``l`` (lower) or split onto the two cell ends, ``(p_i, q_i) =
q_i (1 - s) (e^{l_j}, 1) + q_i s (e^{l_{j+1}}, 1)`` with ``s = expm1(l_i - l_j) / expm1(l_{j+1} -
l_j)`` (upper).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..argcheck import ParameterError, TooExpensive, require
from .pair_product import PairFactor

#: most nodes of a dense grid (cells + 1 per axis, multiplied) a split or merge allocates
MAX_NODES = 8_000_000


@dataclass(frozen=True)
class Atoms:
    """A finite measure on the cone ``R^k_+``: atom ``i`` is the vector ``w[i] * D[:, i]``.

    Parameters
    ----------
    D : numpy.ndarray
        ``(k, n)`` directions (one row per coordinate, one column per atom), entries ``>= 0``,
        no column all 0 (their scale is free: every use is homogeneous in the atom's vector).
    w : numpy.ndarray
        ``(n,)`` weights ``> 0``.
    """

    D: np.ndarray
    w: np.ndarray

    @staticmethod
    def of(vectors: np.ndarray) -> Atoms:
        """The atoms of the non-negative ``vectors`` (``(n, k)``, one per row; zero rows dropped)."""
        Y = np.atleast_2d(np.asarray(vectors, dtype=float)).T
        return _normalised(Y, np.ones(Y.shape[1]))

    @property
    def size(self) -> int:
        return int(self.w.size)

    @property
    def states(self) -> int:
        return int(self.D.shape[0])

    def total(self) -> np.ndarray:
        """``sum_i w_i D[:, i]``: the measure's total vector."""
        return self._total

    @cached_property
    def _total(self) -> np.ndarray:
        return self.D @ self.w

    def support(self) -> np.ndarray:
        """The coordinates where the total is ``> 0`` (every atom is ``> 0`` there: checked)."""
        return self._support

    @cached_property
    def _support(self) -> np.ndarray:
        S = np.flatnonzero(self.total() > 0)
        if S.size > 1 and not all(bool(np.all(self.D[x] > 0)) for x in S):
            raise ParameterError(
                "transitions",
                f"{self.size} atoms",
                "a ratio of forward vectors left the floating-point range (beyond e^700): "
                "the chain mixes too slowly for this computation",
            )
        return S


def _normalised(Y: np.ndarray, w: np.ndarray) -> Atoms:
    """Atoms of the vectors ``w_i Y[:, i]`` (``(k, n)``), columns rescaled to sum 1."""
    s = Y.sum(axis=0)
    if not bool(np.all(s > 0)):
        keep = s > 0
        Y, s, w = Y[:, keep], s[keep], w[keep]
    return Atoms(Y / s, w * s)


def propagate(atoms: Atoms, likelihoods: np.ndarray, M: np.ndarray) -> Atoms:
    """One filter step for every atom and every output ``o``: the vector ``M^T (D_i * L[o, .])``,
    i.e. ``(D_i * L[o]) @ M`` as a row (``n m`` atoms; output ``o`` of atom ``i`` at ``o n + i``).

    Parameters
    ----------
    atoms : Atoms
        The measure before the step.
    likelihoods : numpy.ndarray
        ``(m, k)``: ``L[o, x] = P(o | x)``.
    M : numpy.ndarray
        ``(k, k)``: the transition (forward) or its transpose (backward).
    """
    k, n = atoms.D.shape
    m = likelihoods.shape[0]
    # row o k + j of W: column j of diag(L[o]) M, so (W @ D)[o k + j, i] = ((D_i * L[o]) @ M)_j
    W = (likelihoods[:, :, None] * M[None, :, :]).transpose(0, 2, 1).reshape(m * k, k)
    Y = (W @ atoms.D).reshape(m, k, n).transpose(1, 0, 2).reshape(k, m * n)
    w = np.tile(atoms.w, m)
    zero = ~(Y > 0).any(axis=0)  # not for a positive release: L > 0 and M's rows sum to 1
    return Atoms(Y[:, ~zero], w[~zero]) if bool(zero.any()) else Atoms(Y, w)


@dataclass(frozen=True)
class _Chart:
    """The log chart of a set of atoms on their support: ``Z = ln D_S[:-1] - ln D_S[-1]`` (one row
    per axis), the bounding box ``[lo, lo + cells h]`` per axis, each atom's cell ``j`` and
    position ``s`` in it."""

    S: np.ndarray
    lo: np.ndarray
    h: np.ndarray
    cells: np.ndarray
    j: np.ndarray
    s: np.ndarray


def _chart(atoms: Atoms, cells: int) -> _Chart:
    S = atoms.support()
    d = S.size - 1
    lD = np.log(atoms.D[S])
    Z = lD[:-1]
    Z -= lD[-1]
    n = atoms.size
    lo, h = Z.min(axis=1), np.zeros(d)
    hi = Z.max(axis=1)
    ncell = np.ones(d, dtype=np.int64)
    j = np.zeros((d, n), dtype=np.int64)
    s = np.zeros((d, n))
    for x in range(d):
        if hi[x] > lo[x]:
            ncell[x] = cells
            h[x] = (hi[x] - lo[x]) / cells
            Zx = Z[x]
            Zx -= lo[x]
            jx = np.minimum((Zx * (1.0 / h[x])).astype(np.int64), cells - 1)
            j[x] = jx
            Zx -= jx * h[x]  # the position in the cell, in [0, h]
            sx = np.expm1(Zx, out=s[x])
            sx *= 1.0 / math.expm1(h[x])
            np.clip(sx, 0.0, 1.0, out=sx)
    return _Chart(S, lo, h, ncell, j, s)


def _one_direction(atoms: Atoms) -> Atoms:
    """All atoms as one (exact when they share a direction)."""
    return Atoms.of(atoms.total()[None, :])


def _check_nodes(nodes: int, cells: int, d: int) -> None:
    if nodes > MAX_NODES:
        raise TooExpensive(
            "grid",
            cells,
            f"a grid of {cells} cells per axis in {d} dimensions has {nodes} nodes, "
            f"above the limit {MAX_NODES}",
        )


def split_onto_grid(atoms: Atoms, cells: int) -> Atoms:
    """The upper discretisation (module docstring): every atom split onto the corners of its cell of
    the ``cells``-per-axis grid of its bounding box in the log chart; at most ``(cells + 1)^(k'-1)``
    atoms (``k'`` the support's size), each coordinate's total kept."""
    S = atoms.support()
    if S.size <= 1:
        return _one_direction(atoms)
    c = _chart(atoms, cells)
    d = S.size - 1
    per = c.cells + 1
    nodes = int(np.prod(per))
    _check_nodes(nodes, cells, d)
    base = atoms.w * atoms.D[S[-1]]
    W = np.zeros(nodes)
    for corner in itertools.product((0, 1), repeat=d):
        if any(corner[x] and c.h[x] == 0 for x in range(d)):
            continue
        weight = base.copy()
        flat = np.zeros(atoms.size, dtype=np.int64)
        for x in range(d):
            weight *= c.s[x] if corner[x] else 1.0 - c.s[x]
            flat *= per[x]
            flat += c.j[x] + corner[x]
        W += np.bincount(flat, weights=weight, minlength=nodes)
    idx = np.flatnonzero(W > 0)
    coords = np.stack(np.unravel_index(idx, tuple(per))) * c.h[:, None] + c.lo[:, None]  # (d, n)
    top = np.maximum(coords.max(axis=0), 0.0)
    V = np.zeros((atoms.states, idx.size))
    V[S[:-1]] = np.exp(coords - top)
    V[S[-1]] = np.exp(-top)
    tot = V.sum(axis=0)
    # node vector = W (e^coords, 1) = W e^top V
    return Atoms(V / tot, W[idx] * np.exp(top) * tot)


def extreme_atoms(atoms: Atoms, S: np.ndarray) -> np.ndarray:
    """Indices of the atoms maximising each ratio ``D_x / D_y`` over ``x != y`` in ``S``."""
    lD = np.log(atoms.D[S])
    pick = set()
    for x in range(S.size):
        for y in range(x + 1, S.size):
            diff = lD[x] - lD[y]
            pick |= {int(np.argmax(diff)), int(np.argmin(diff))}
    return np.array(sorted(pick), dtype=np.int64)


def merge_in_grid(atoms: Atoms, cells: int) -> Atoms:
    """The lower discretisation (module docstring): the atoms of each cell summed, the atoms that
    maximise a pairwise ratio kept apart; at most ``cells^(k'-1) + k'(k'-1)`` atoms."""
    S = atoms.support()
    if S.size <= 1:
        return _one_direction(atoms)
    c = _chart(atoms, cells)
    d = S.size - 1
    total_cells = int(np.prod(c.cells))
    _check_nodes(total_cells, cells, d)
    keep = extreme_atoms(atoms, S)
    flat = np.zeros(atoms.size, dtype=np.int64)
    for x in range(d):
        flat *= c.cells[x]
        flat += c.j[x]
    flat[keep] = total_cells  # a cell of their own, dropped below
    Y = np.stack(
        [
            np.bincount(flat, weights=atoms.w * atoms.D[x], minlength=total_cells + 1)[:total_cells]
            for x in range(atoms.states)
        ]
    )
    used = Y.sum(axis=0) > 0
    merged = _normalised(Y[:, used], np.ones(int(used.sum())))
    kept = _normalised(atoms.D[:, keep], atoms.w[keep])  # rescaled: a kept atom's scale would
    # otherwise shrink by a likelihood at every step and underflow on a long chain
    return Atoms(np.concatenate([merged.D, kept.D], axis=1), np.concatenate([merged.w, kept.w]))


def pair_masses(atoms: Atoms, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
    """``(p, q)``: the atoms' masses under the hypotheses ``a`` and ``b`` (``u_ia / Q_a``, ``u_ib / Q_b``)."""
    Q = atoms.total()
    require(Q[a] > 0 and Q[b] > 0, "pair", (a, b), "both values must have positive probability")
    return atoms.w * atoms.D[a] / Q[a], atoms.w * atoms.D[b] / Q[b]


def loss_factor(atoms: Atoms, a: int, b: int, bins: int, kind: str) -> PairFactor:
    """The atoms as one part of a release for the pair ``(a, b)`` (module docstring): exact if
    there are at most ``bins`` atoms, else merged into (``kind = "lower"``) or split onto
    (``"upper"``) ``bins`` cells of equal width in the loss ``ln p / q``."""
    p, q = pair_masses(atoms, a, b)
    if p.size <= bins:
        return PairFactor(p, q)
    Q = atoms.total()
    loss = np.log(atoms.D[a]) - np.log(atoms.D[b]) + (math.log(Q[b]) - math.log(Q[a]))
    lo, hi = float(loss.min()), float(loss.max())
    if hi <= lo:
        return PairFactor(np.array([p.sum()]), np.array([q.sum()]))
    h = (hi - lo) / bins
    j = np.minimum(((loss - lo) / h).astype(np.int64), bins - 1)
    np.maximum(j, 0, out=j)
    if kind == "lower":
        keep = np.array(sorted({int(np.argmin(loss)), int(np.argmax(loss))}))
        j[keep] = bins
        P = np.bincount(j, weights=p, minlength=bins + 1)[:bins]
        Qm = np.bincount(j, weights=q, minlength=bins + 1)[:bins]
        return PairFactor(np.concatenate([P, p[keep]]), np.concatenate([Qm, q[keep]]))
    edge = lo + j * h
    s = np.expm1(loss - edge) / np.expm1(h)
    np.clip(s, 0.0, 1.0, out=s)
    qs = q * s
    Qn = np.bincount(j, weights=q - qs, minlength=bins + 1) + np.bincount(
        j + 1, weights=qs, minlength=bins + 1
    )
    # the p-masses are e^{node} times the q-masses (each at most 1: no overflow in logs)
    nodes = lo + np.arange(bins + 1) * h
    with np.errstate(divide="ignore"):
        Pn = np.exp(np.log(Qn) + nodes)
    return PairFactor(Pn, Qn)


__all__ = [
    "MAX_NODES",
    "Atoms",
    "extreme_atoms",
    "loss_factor",
    "merge_in_grid",
    "pair_masses",
    "propagate",
    "split_onto_grid",
]
