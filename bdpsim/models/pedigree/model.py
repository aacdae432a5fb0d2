"""Mendelian pedigree data model (thesis Def. 5.1, Table 3; thesis §5).

Each record is one person's genotype at one position: ``0 = BB``, ``1 = Bb``, ``2 = bb``
(the number of minor alleles ``b``). Founders (no parents) are independent with the founder law,
by default Hardy–Weinberg ``(p^2, 2pq, q^2)`` with ``q = allele_b``, ``p = 1 - q``. A child of
parents with genotypes ``(g1, g2)`` receives one allele of each parent uniformly (Mendel), so
parent ``g`` passes ``b`` with probability ``g/2`` and the child's law is thesis Table 3::

    T[g1, g2] = [1 - g1/2, g1/2] * [1 - g2/2, g2/2]        (convolution over allele counts)

**Exact computation by enumeration of the core.** The *core* are the people with at least one
child; the others are *leaves*. Given the core genotypes ``g_C`` the leaves are independent, each
with law ``T[g_parents]`` (or the founder law for a childless founder). Hence every law the
package needs is a sum over the ``3^|C|`` core configurations (``|C| <= MAX_CORE``) of products
of per-leaf factors, and a count of unknown leaves with the same parents is binomial::

    P(X_K = x_K, C = c) = sum_{g_C ~ x_K} pi(g_C) prod_leaves [...] ,
    count of u unknown leaves with parents a, b  ~  Binomial(u, sum_{s in S} T[g_a, g_b][s])

(for a nuclear family: the 9-case parent mixture of convolutions of per-child Bernoullis).
Conditional sampling draws the core configuration from its exact posterior, then every unknown
leaf from ``T`` given its sampled parents: exact, vectorised, no rejection.

**One parent.** A child must list exactly 0 or 2 parents; one listed parent is rejected (list an
unrecorded parent as a founder record), because the model would otherwise have to invent a
hidden person that the data and the query do not contain.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ...core.errors import ConfigError, check
from ...queries import CountQuery
from ..common.genetics import GENOTYPES, TRANSMISSION  # noqa: F401  (re-exported: their former home)

MAX_MEMBERS = 1000  # people in one pedigree
MAX_CORE = 12  # people with children: the exact law enumerates 3^MAX_CORE configurations


def hardy_weinberg(allele_b: float) -> np.ndarray:
    """Founder law ``(p^2, 2pq, q^2)`` of ``(BB, Bb, bb)`` with ``q = allele_b``, ``p = 1 - q``."""
    q = float(allele_b)
    return np.array([(1 - q) ** 2, 2 * q * (1 - q), q * q])


def genotype_state(value, field_name: str = "state") -> int:
    """A genotype given as ``0/1/2`` or ``"BB"/"Bb"/"bb"`` (``"bB"`` = ``"Bb"``) -> ``0/1/2``."""
    if isinstance(value, str):
        name = "Bb" if value == "bB" else value
        check(name in GENOTYPES, field_name, value, "must be one of BB, Bb, bb (or 0, 1, 2)")
        return GENOTYPES.index(name)
    ok = isinstance(value, (int, np.integer)) and not isinstance(value, bool) and bool(0 <= value <= 2)
    check(ok, field_name, value, "must be one of BB, Bb, bb (or 0, 1, 2)")
    return int(value)


def genotype_states(values: Sequence, field_name: str = "mechanism.counted_states") -> tuple[int, ...]:
    """``genotype_states(["BB"]) -> (0,)``: a list of genotypes (names or codes) as codes."""
    check(
        isinstance(values, (list, tuple)) and len(values) > 0,
        field_name,
        values,
        "must be a non-empty list of genotypes (BB, Bb, bb)",
    )
    out = tuple(genotype_state(v, field_name) for v in values)
    check(len(set(out)) == len(out), field_name, list(values), "genotypes must be distinct")
    return out


def _check_size(size, smallest: int) -> int:
    ok = isinstance(size, (int, np.integer)) and not isinstance(size, bool)
    check(
        ok and smallest <= size <= MAX_MEMBERS,
        "model.size",
        size,
        f"must be an integer in {smallest}..{MAX_MEMBERS}",
    )
    return int(size)


def _check_parents(parents) -> tuple[tuple[int, ...], ...]:
    check(
        isinstance(parents, (list, tuple)) and len(parents) >= 1,
        "model.parents",
        parents,
        "must be a non-empty list with one parent list per person (founders: [])",
    )
    check(
        len(parents) <= MAX_MEMBERS,
        "model.parents",
        f"{len(parents)} people",
        f"at most {MAX_MEMBERS} people per pedigree",
    )
    out = []
    for j, entry in enumerate(parents):
        check(
            isinstance(entry, (list, tuple)),
            "model.parents",
            entry,
            f"person {j}: must be a list of parent indices ([] for a founder)",
        )
        check(len(entry) <= 2, "model.parents", list(entry), f"person {j}: at most two parents")
        check(
            len(entry) != 1,
            "model.parents",
            list(entry),
            f"person {j}: needs 0 or 2 parents (list an unrecorded parent as a founder)",
        )
        for p in entry:
            check(
                isinstance(p, (int, np.integer)) and not isinstance(p, bool),
                "model.parents",
                list(entry),
                f"person {j}: parent indices must be integers",
            )
            check(p != j, "model.parents", list(entry), f"person {j}: cannot be their own parent")
            where = f"indices in 0..{j - 1}" if j else "person 0 comes first and can only be a founder, []"
            check(
                0 <= p < j,
                "model.parents",
                list(entry),
                f"person {j}: parents must precede their children ({where}); a parent listed after "
                "the child, or a cycle of parents, is not a pedigree",
            )
        check(
            len(set(entry)) == len(entry),
            "model.parents",
            list(entry),
            f"person {j}: the two parents must be different people",
        )
        out.append(tuple(sorted(int(p) for p in entry)))
    return tuple(out)


@dataclass(frozen=True)
class PedigreeModel:
    """Genotypes of ``n`` people related by a pedigree, Mendelian inheritance (thesis Def. 5.1).

    Parameters
    ----------
    parents : sequence of sequences of int
        ``parents[j]`` is ``()`` for a founder or the two indices (``< j``) of ``j``'s parents.
    allele_b : float
        Frequency ``q`` in (0, 1) of the minor allele ``b``; founders are Hardy–Weinberg
        ``(p^2, 2pq, q^2)`` unless ``founder_law`` is given.
    founder_law : sequence of 3 floats, optional
        Explicit founder law of ``(BB, Bb, bb)`` (each > 0, summing to 1); replaces Hardy–Weinberg.
    """

    parents: tuple
    allele_b: float = 0.3
    founder_law: tuple | None = None
    kind: str = field(default="pedigree", init=False)
    states: int = field(default=3, init=False)
    if TYPE_CHECKING:  # derived state set in __post_init__ (not dataclass fields at run time)
        _law: np.ndarray = field(init=False)
        _core: tuple[int, ...] = field(init=False)
        _groups: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = field(init=False)
        _configs: np.ndarray = field(init=False)
        _prior: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        parents = _check_parents(self.parents)
        q = self.allele_b
        check(
            isinstance(q, (int, float, np.floating))
            and not isinstance(q, bool)
            and math.isfinite(q)
            and 0 < q < 1,
            "model.allele_b",
            q,
            "must be a number in (0, 1)",
        )
        if self.founder_law is None:
            law = hardy_weinberg(q)
        else:
            law = np.asarray(self.founder_law, dtype=float)
            check(
                law.shape == (3,) and bool(np.all(law > 0)) and abs(law.sum() - 1) < 1e-9,
                "model.founder_law",
                self.founder_law,
                "must be three probabilities > 0 of (BB, Bb, bb) summing to 1",
            )
            law = law / law.sum()
            object.__setattr__(self, "founder_law", tuple(float(v) for v in law))
        has_child = np.zeros(len(parents), dtype=bool)
        for entry in parents:
            has_child[list(entry)] = True
        core = tuple(int(j) for j in np.flatnonzero(has_child))
        check(
            len(core) <= MAX_CORE,
            "model.parents",
            f"{len(core)} people with children",
            f"at most {MAX_CORE} people may have children (exact laws enumerate 3^{MAX_CORE} "
            "genotype combinations of them)",
        )
        groups: dict[tuple, list[int]] = {}
        for j in np.flatnonzero(~has_child):
            groups.setdefault(parents[j], []).append(int(j))
        law.setflags(write=False)
        object.__setattr__(self, "parents", parents)
        object.__setattr__(self, "allele_b", float(q))
        object.__setattr__(self, "_law", law)
        object.__setattr__(self, "_core", core)
        object.__setattr__(self, "_groups", tuple((k, tuple(v)) for k, v in groups.items()))
        nc = len(core)
        configs = np.indices((3,) * nc, dtype=np.int8).reshape(nc, 3**nc).T.copy()
        prior = np.ones(configs.shape[0])
        pos = {c: a for a, c in enumerate(core)}
        for a, c in enumerate(core):  # core members in index order: parents come first
            par = parents[c]
            if par:
                prior *= TRANSMISSION[configs[:, pos[par[0]]], configs[:, pos[par[1]]], configs[:, a]]
            else:
                prior *= law[configs[:, a]]
        configs.setflags(write=False)
        prior.setflags(write=False)
        object.__setattr__(self, "_configs", configs)
        object.__setattr__(self, "_prior", prior)

    # ------------------------------------------------------------------ constructors
    @classmethod
    def nuclear(cls, size: int, allele_b: float = 0.3, founder_law=None) -> PedigreeModel:
        """Two founders (0, 1) and ``size - 2`` children of both (thesis Thm 5.1's family)."""
        size = _check_size(size, 2)
        return cls(((), ()) + ((0, 1),) * (size - 2), allele_b, founder_law)

    @classmethod
    def three_generation(
        cls, size: int, allele_b: float = 0.3, founder_law=None, *, grandchildren: int | None = None
    ) -> PedigreeModel:
        """Grandparents -> children, one of whom has children with a spouse.

        Layout: ``0, 1`` grandparents (founders); ``2`` their child who becomes a parent;
        ``3 .. 2 + s`` the ``s`` other children of ``0, 1`` (childless); then the spouse (a
        founder); then the ``g`` grandchildren (children of ``2`` and the spouse). ``size = 4 + s +
        g``; by default ``g = ceil((size - 4) / 2)``. The largest core family (two parents and
        their children) has ``max(3 + s, 2 + g)`` members.
        """
        size = _check_size(size, 5)
        g = (size - 3) // 2 if grandchildren is None else grandchildren
        check(
            isinstance(g, (int, np.integer)) and 1 <= g <= size - 4,
            "model.grandchildren",
            g,
            f"must be an integer in 1..{size - 4} (size - 4)",
        )
        s = size - 4 - g
        spouse = 3 + s
        parents = ((), (), (0, 1)) + ((0, 1),) * s + ((),) + ((2, spouse),) * g
        return cls(parents, allele_b, founder_law)

    # ------------------------------------------------------------------ structure
    @property
    def n(self) -> int:
        return len(self.parents)

    @property
    def founder_probabilities(self) -> np.ndarray:
        """The founder law of ``(BB, Bb, bb)`` in use."""
        return self._law

    @property
    def core(self) -> tuple[int, ...]:
        """People with at least one child (their joint law is enumerated)."""
        return self._core

    @property
    def leaf_groups(self) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
        """``((parents, members), ...)``: childless people grouped by their parents.

        Members of a group are exchangeable (swapping two of them is an automorphism of the
        pedigree); childless founders form the group with parents ``()``.
        """
        return self._groups

    def core_families(self) -> list[tuple[int, ...]]:
        """Every couple with its children, ``(parent, parent, child, ...)`` (thesis §5.3)."""
        fam: dict[tuple, list[int]] = {}
        for j, par in enumerate(self.parents):
            if par:
                fam.setdefault(par, list(par)).append(j)
        return [tuple(v) for v in fam.values()]

    def leaf_laws(self, parents: tuple[int, ...]) -> np.ndarray:
        """Law of a childless member with these ``parents`` per core configuration, ``(3^|C|, 3)``."""
        if not parents:
            return np.broadcast_to(self._law, (self._configs.shape[0], 3))
        a, b = (self._core.index(p) for p in parents)
        return TRANSMISSION[self._configs[:, a], self._configs[:, b]]

    def _known(self, known: Mapping) -> dict[int, int]:
        out = {}
        for pos, val in known.items():
            ok = isinstance(pos, (int, np.integer)) and not isinstance(pos, bool) and bool(0 <= pos < self.n)
            check(ok, "known position", pos, f"must be in 0..{self.n - 1}")
            out[int(pos)] = genotype_state(val, "known value")
        return out

    def _core_weights(self, known: dict[int, int]) -> np.ndarray:
        """``P(g_C)`` restricted to the configurations that agree with the known core members."""
        w = self._prior.copy()
        for a, c in enumerate(self._core):
            if c in known:
                w *= self._configs[:, a] == known[c]
        return w

    def _posterior(self, known: dict[int, int]) -> np.ndarray:
        """Unnormalised ``P(g_C, X_K = x_K)`` over core configurations (leaves summed out)."""
        w = self._core_weights(known)
        for par, members in self._groups:
            vals = [known[j] for j in members if j in known]
            if vals:
                w *= np.prod(self.leaf_laws(par)[:, vals], axis=1)
        return w

    def log_evidence(self, known: Mapping) -> float:
        """``log P(X_K = x_K)`` (``-inf`` when impossible)."""
        z = float(self._posterior(self._known(known)).sum())
        return math.log(z) if z > 0 else -math.inf

    # ------------------------------------------------------------------ sampling
    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """Unconditional draws, shape ``(size, n)``."""
        return self.sample_conditional({}, size, rng)

    def sample_conditional(self, known: Mapping, size: int, rng: np.random.Generator) -> np.ndarray:
        """Exact draws given ``X_j = known[j]``, shape ``(size, n)``, dtype int16.

        The core configuration is drawn from ``P(g_C | x_K) ∝ pi(g_C) prod_{known leaves}
        T[g_parents][x_leaf]``, then each unknown leaf from ``T[g_parents]`` (or the founder law).
        """
        known = self._known(known)
        w = self._posterior(known)
        z = w.sum()
        if z <= 0:
            raise ConfigError("known", known, "conditioning event has probability zero")
        cdf = np.cumsum(w / z)
        idx = np.minimum(np.searchsorted(cdf, rng.random(size), side="right"), w.size - 1)
        out = np.empty((size, self.n), dtype=np.int16)
        out[:, list(self._core)] = self._configs[idx]
        for par, members in self._groups:
            unknown = [j for j in members if j not in known]
            for j in members:
                if j in known:
                    out[:, j] = known[j]
            if unknown:
                c = np.cumsum(self.leaf_laws(par)[idx], axis=1)[:, :2]  # (size, 2)
                u = rng.random((size, len(unknown)))
                out[:, unknown] = (u[:, :, None] >= c[:, None, :]).sum(axis=2)
        return out

    def query_law(self, query, known: Mapping) -> tuple[np.ndarray, np.ndarray] | None:
        """Exact law ``(atoms, probabilities)`` of a count query (:class:`~bdpsim.queries.CountQuery`)
        given ``known`` (else ``None``)."""
        if not isinstance(query, CountQuery):
            return None
        return np.arange(self.n + 1, dtype=float), self.count_law(known, query.counted_states)

    # ------------------------------------------------------------------ count law
    def count_law(self, known: Mapping, counted: Sequence) -> np.ndarray:
        """Exact law ``P(C = c | X_K = x_K)``, ``c = 0..n``, of ``C = #{j : X_j in counted}``.

        ``sum_{g_C} P(g_C | x_K) * delta_{known count} * conv_groups Binomial(u_group, pi_group(g_C))``
        with ``pi_group = sum_{s in counted} T[g_parents][s]`` (thesis §5, Table 3).
        """
        known = self._known(known)
        states = genotype_states(list(counted))
        law = self.count_polynomials(known, states).sum(axis=0)
        z = law.sum()
        if z <= 0:
            raise ConfigError("known", known, "conditioning event has probability zero")
        return law / z

    def count_polynomials(self, known: dict[int, int], counted: tuple[int, ...]) -> np.ndarray:
        """``P(g_C, X_K = x_K, C = c)`` per core configuration, shape ``(3^|C|, n + 1)``."""
        mask = np.isin(np.arange(3), counted)
        w = self._core_weights(known)
        poly = np.zeros((w.size, len(self._core) + 1))
        poly[np.arange(w.size), mask[self._configs].sum(axis=1)] = w
        for par, members in self._groups:
            vals = [known[j] for j in members if j in known]
            comp = np.array([[len(members) - len(vals)] + [vals.count(s) for s in range(3)]])
            poly = polymul(poly, leaf_group_polynomial(self.leaf_laws(par), comp, mask)[:, 0])
        return poly


def polymul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Product of polynomials in ``z`` stored on the last axis (other axes broadcast)."""
    da, db = a.shape[-1], b.shape[-1]
    shape = np.broadcast_shapes(a.shape[:-1], b.shape[:-1]) + (da + db - 1,)
    out = np.zeros(shape)
    for k in range(da):
        out[..., k : k + db] += a[..., k : k + 1] * b
    return out


def leaf_group_polynomial(t: np.ndarray, comps: np.ndarray, counted_mask: np.ndarray) -> np.ndarray:
    """Generating polynomial of one exchangeable leaf group per core configuration and composition.

    For a composition ``(u, k_BB, k_Bb, k_bb)`` (``u`` unknown members, ``k_s`` known with genotype
    ``s``) and a member law ``t = T[g_parents]``::

        prod_s t_s^{k_s} * z^{sum_{s in S} k_s} * (1 - pi + pi z)^u,     pi = sum_{s in S} t_s

    Parameters
    ----------
    t : ndarray, shape (G, 3)
    comps : ndarray of int, shape (M, 4)
        Compositions of the same group size ``m``.
    counted_mask : ndarray of bool, shape (3,)

    Returns
    -------
    ndarray, shape (G, M, m + 1)
    """
    comps = np.asarray(comps, dtype=np.int64)
    m = int(comps[0].sum())
    t = np.asarray(t, dtype=float)
    lik = np.prod(t[:, None, :] ** comps[None, :, 1:], axis=2)  # (G, M)
    pi = t[:, counted_mask].sum(axis=1)[:, None, None]  # (G, 1, 1)
    u = comps[:, 0][:, None]  # (M, 1)
    j = np.arange(m + 1)[None, :]  # (1, m+1)
    valid = j <= u
    binom = np.array(
        [[math.comb(int(uu), int(jj)) if jj <= uu else 0 for jj in range(m + 1)] for uu in comps[:, 0]],
        dtype=float,
    )
    with np.errstate(invalid="ignore"):
        pj = np.where(valid[None], pi ** j[None] * (1 - pi) ** np.maximum(u - j, 0)[None], 0.0)
    bino = binom[None] * pj  # (G, M, m+1): coefficient of z^j of (1 - pi + pi z)^u
    kc = comps[:, 1:][:, counted_mask].sum(axis=1)  # (M,)
    out = np.zeros(bino.shape)
    for r in range(comps.shape[0]):  # shift by the known counted members
        out[:, r, kc[r] :] = bino[:, r, : m + 1 - kc[r]]
    return out * lik[:, :, None]
