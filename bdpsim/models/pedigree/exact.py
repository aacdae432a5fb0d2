"""Exact BDPL of a Laplace count on Mendelian pedigrees (thesis §5), over every adversary.

**One adversary.** ``P(C = c | x_K, x_i)`` is exact (:meth:`PedigreeModel.count_law`), the output
law is the Laplace mixture ``sum_c P(C = c | .) Lap(c, 1/eps)``, and the supremum over outputs of
the log-ratio of two such mixtures is attained at an atom or in a tail (between atoms the ratio is
monotone), computed exactly by the noise law's ``grid_sup`` (Laplace:
:func:`~bdpsim.kernels.noise.laplace_mixture.grid_sup`).

**All adversaries, by exchangeability.** Childless people with the same parents (a *leaf group*;
e.g. the children of a nuclear family) are exchangeable: permuting them is an automorphism of the
pedigree that leaves the count unchanged, so an adversary's BDPL depends on a leaf group only
through its *composition* ``(u, k_BB, k_Bb, k_bb)`` — how many members are unknown and how many
are known with each genotype. Adversary classes are therefore (target, pattern of the core
members in {BB, Bb, bb, unknown}, one composition per leaf group): ``4^|C| prod_j C(m_j + 3, 3)``
classes instead of ``3 n 4^(n-1)`` adversaries (nuclear family of 12: 3 744 classes of positive
probability stand for its 3.4e7 possible adversaries, out of 1.5e8 patterns). Their joint laws ``P(X_K =
x_K, C = c)`` all come from one tensor: the core
configurations' prior times the generating polynomial of each leaf group per composition
(:func:`~bdpsim.models.pedigree.model.leaf_group_polynomial`), then along each core axis the sum over
that member's genotype is appended as a fourth value "unknown" (a zeta transform), so every
marginal is computed once. A leaf target is a known member of its group whose value changes
between ``x`` and ``x'`` (composition ``k + e_x`` vs ``k + e_x'``).

The separation argument (as for the window reduction on Markov chains, it holds for any graphical
model: unknown records cut off from the target by known ones add a term independent of ``x_i``,
a common-weight mixture, so ``BDPL_(K,i) <= BDPL_(K*,i)`` with them known) is not needed to prune here; it
is checked in the tests instead: a worst class has its
unknowns connected to the target through unknowns in the moral graph.

**Bounds.** ``genomic_lower_bound(m, eps) = (m - 1) eps`` (thesis Cor. 5.2) and the general bound
``m eps`` (paper Thm 4.3) for a family of ``m`` people.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np

from ...adversary import Adversary
from ...core.errors import ConfigError, NotAvailable, check
from ...kernels.argcheck import count_as_float
from ...kernels.noise.scores import names_of
from ...queries import CountQuery, NoisyQuery
from ..engines import (
    AdversaryRow,
    AdversarySearch,
    ExhaustiveResult,
    PairScore,
    QueryLaws,
    QueryLawsEngine,
    SearchTooLarge,
    adversary_row,
    ranked_search,
    refuse_query_values,
    score_rows,
)
from .model import PedigreeModel, leaf_group_polynomial, polymul

MAX_CELLS = 20_000_000  # cells of the class tensor (4^|C| prod_j C(m_j + 3, 3) (n + 1)): 160 MB


def _counted(model: PedigreeModel, mechanism) -> tuple[int, ...]:
    if not (isinstance(mechanism, NoisyQuery) and isinstance(mechanism.query_function, CountQuery)):
        raise NotAvailable(
            f"no exact BDPL for model 'pedigree' with mechanism '{mechanism.kind}' (only 'count')"
        )
    counted = mechanism.query_function.counted_states
    bad = [c for c in counted if c > 2]
    check(not bad, "mechanism.counted_states", list(counted), "genotypes must be in 0..2 (BB, Bb, bb)")
    return tuple(counted)


def _sup(law_x: np.ndarray, law_xp: np.ndarray, noise, chunk: int = 20_000):
    """Exact ``sup_y |ln p_x(y) / p_x'(y)|`` per row of two normalised count laws ``(B, n + 1)``
    plus noise: the noise law's ``grid_sup`` on the count's lattice (step 1; Laplace:
    :func:`~bdpsim.kernels.noise.laplace_mixture.grid_sup`), in chunks of ``chunk`` rows."""
    vals, where = np.empty(law_x.shape[0]), np.empty(law_x.shape[0])
    for s in range(0, law_x.shape[0], chunk):
        v, w = noise.grid_sup(law_x[s : s + chunk], law_xp[s : s + chunk], 1.0)
        vals[s : s + chunk], where[s : s + chunk] = np.abs(v), w
    return vals, where


def count_laws(model: PedigreeModel, mechanism, adversary: Adversary) -> QueryLaws:
    """The laws of the count under ``(x_K, x)`` and ``(x_K, x')`` on ``0..n`` (step 1)."""
    laws = _target_laws(model, mechanism, adversary)
    return QueryLaws(np.arange(model.n + 1, dtype=float), laws[0], laws[1], 1.0)


def _target_laws(model: PedigreeModel, mechanism, adversary: Adversary) -> list[np.ndarray]:
    """The count's law given ``x_K`` and the target at ``x``, then at ``x'``."""
    counted = _counted(model, mechanism)
    laws = []
    for target in (adversary.x, adversary.x_prime):
        try:
            laws.append(model.count_law(adversary.condition(target), counted))
        except ConfigError:
            raise NotAvailable(f"adversary {adversary}: a conditioning event has probability zero") from None
    return laws


def adversary_bdpl(model: PedigreeModel, mechanism, adversary: Adversary) -> float:
    """Exact target-dependent ``BDPL_(K,i)(x, x') = sup_{y} |ln p(y | x_K, x) / p(y | x_K, x')|``
    for the adversary's known values ``x_K`` (paper Def. 5.2; :meth:`PedigreeCountEngine.bdpl`)."""
    _counted(model, mechanism)  # NotAvailable for anything but a count
    return PedigreeCountEngine(model, mechanism).bdpl(adversary).value


# ---------------------------------------------------------------------------------- exhaustive


def compositions(m: int) -> np.ndarray:
    """All ``(u, k_BB, k_Bb, k_bb) >= 0`` with sum ``m``, shape ``(C(m + 3, 3), 4)``."""
    rows = [
        (m - a - b - c, a, b, c) for a in range(m + 1) for b in range(m + 1 - a) for c in range(m + 1 - a - b)
    ]
    return np.array(rows, dtype=np.int64).reshape(-1, 4)


def _assignment(comps: np.ndarray) -> np.ndarray:
    """Representative values of a group's members per composition: ``k_BB`` BB first, then
    ``k_Bb`` Bb, ``k_bb`` bb, then ``u`` unknown (-1). Shape ``(M, m)``."""
    m = int(comps[0].sum()) if comps.size else 0
    out = np.full((comps.shape[0], m), -1, dtype=np.int8)
    for r, (_, a, b, c) in enumerate(comps):
        out[r, :a], out[r, a : a + b], out[r, a + b : a + b + c] = 0, 1, 2
    return out


def _multinomial(comps: np.ndarray) -> np.ndarray:
    m = comps.sum(axis=1)
    return np.array(
        [math.factorial(int(t)) // math.prod(math.factorial(int(k)) for k in r) for t, r in zip(m, comps)],
        dtype=float,
    )


def class_tensor_cells(model: PedigreeModel) -> float:
    """Size of the class tensor of :func:`exhaustive_pedigree_count` (``inf`` past the float range)."""
    cells = 4 ** len(model.core) * (model.n + 1)
    for _, members in model.leaf_groups:
        cells *= math.comb(len(members) + 3, 3)
    return count_as_float(cells)


def _class_tensor(model: PedigreeModel, counted: tuple[int, ...]):
    """``E[core pattern (4,)*|C|, comp_1, ..., comp_m, c] = P(X_K = x_K, C = c)`` (see module doc)."""
    cells = class_tensor_cells(model)
    if cells > MAX_CELLS:
        raise ConfigError(
            "model.size",
            model.n,
            f"the exhaustive search over all adversary classes needs {cells:.3g} cells "
            f"(4^core x prod_groups C(size + 3, 3) x (n + 1)), more than the limit "
            f"{MAX_CELLS:.0e} (nuclear families up to 52 people fit)",
        )
    mask = np.isin(np.arange(3), counted)
    nc, ng = len(model.core), len(model.leaf_groups)
    configs = model._configs
    E = np.zeros((configs.shape[0],) + (1,) * ng + (nc + 1,))
    E[(np.arange(configs.shape[0]),) + (0,) * ng + (mask[configs].sum(axis=1),)] = model._prior
    comps = []
    for j, (par, members) in enumerate(model.leaf_groups):
        cj = compositions(len(members))
        F = leaf_group_polynomial(model.leaf_laws(par), cj, mask)
        shape = [F.shape[0]] + [1] * ng + [F.shape[2]]
        shape[1 + j] = cj.shape[0]
        E = polymul(E, F.reshape(shape))
        comps.append(cj)
    E = E.reshape((3,) * nc + E.shape[1:])
    for a in range(nc):  # zeta transform: index 3 = "unknown" = sum over the genotype
        E = np.concatenate([E, E.sum(axis=a, keepdims=True)], axis=a)
    return E, comps


@dataclass(frozen=True)
class PedigreeExhaustiveResult(ExhaustiveResult):
    """:class:`ExhaustiveResult` with one row per adversary *class*: the row's adversary is a
    representative, ``multiplicity[j]`` the number of adversaries ``(i, K, x_K, {x, x'})`` it
    stands for (all with the same BDPL), ``known_size[j] = |K|``."""

    multiplicity: np.ndarray | None = None
    known_size: np.ndarray | None = None

    def known_sizes(self) -> np.ndarray:
        """``|K|`` of every class (``known_size``)."""
        return cast(np.ndarray, self.known_size)  # always set on a pedigree result (concat)


def _target_view(model, E, comps, target: int, representative: bool):
    """Axes of ``E`` for one target: the (x-indexed) slicer and per-axis row descriptors."""
    nc = len(model.core)
    axes = [("core", c) for c in model.core] + [("group", j) for j in range(len(comps))]
    if target in model.core:
        a = model.core.index(target)
        take = lambda x: np.take(E, x, axis=a)  # noqa: E731
        return take, axes[:a] + axes[a + 1 :], None, 1
    j = next(g for g, (_, mem) in enumerate(model.leaf_groups) if target in mem)
    others = compositions(len(model.leaf_groups[j][1]) - 1)
    full = {tuple(r): k for k, r in enumerate(comps[j])}
    index = [
        np.array([full[(r[0],) + tuple(r[1:] + np.eye(3, dtype=np.int64)[x])] for r in others])
        for x in range(3)
    ]
    take = lambda x: np.take(E, index[x], axis=nc + j)  # noqa: E731
    factor = len(model.leaf_groups[j][1]) if representative else 1
    return take, axes, (j, others), factor


@dataclass(frozen=True)
class ClassLaws:
    """The adversary classes of one target ``i`` and target pair ``(x, x')`` (rows): each class's
    pattern (``pattern[r, t]``: ``-2`` the target, ``-1`` unknown, else the known genotype),
    multiplicity, ``|K|``, and its two count laws ``W1[r] = P(C | x_K, x_i = x)``,
    ``W2[r] = P(C | x_K, x_i = x')`` on ``0..n`` (normalised) — what any score of the class search
    needs, whatever the noise."""

    i: int
    x: int
    x_prime: int
    pattern: np.ndarray
    multiplicity: np.ndarray
    known_size: np.ndarray
    W1: np.ndarray
    W2: np.ndarray


def class_laws(
    model: PedigreeModel,
    counted: tuple[int, ...],
    sizes: Sequence[int] | None = None,
    targets: Sequence[int] | None = None,
    min_known: int = 0,
) -> list[ClassLaws]:
    """The count laws of every adversary class (module docstring) with ``|K|`` in ``sizes``
    (default all) and ``|K| >= min_known``, one :class:`ClassLaws` per (target, target pair) with a
    class of positive probability; ``targets`` as :func:`exhaustive_pedigree_count`."""
    E, comps = _class_tensor(model, counted)
    n = model.n
    if targets is None:
        targets, representative = list(model.core) + [mem[0] for _, mem in model.leaf_groups], True
    else:
        targets, representative = [int(t) for t in targets], False
    allowed = set(range(n)) if sizes is None else {int(k) for k in sizes}
    blocks = []
    for i in targets:
        check(0 <= i < n, "targets", i, f"must be in 0..{n - 1}")
        take, axes, tgroup, factor = _target_view(model, E, comps, i, representative)
        lead = take(0).shape[:-1]
        idx = np.indices(lead).reshape(len(lead), -1)
        rows = idx.shape[1]
        pattern = np.full((rows, n), -1, dtype=np.int8)
        pattern[:, i] = -2
        ksize = np.zeros(rows, dtype=np.int64)
        mult = np.full(rows, float(factor))
        for a, (kind, ref) in enumerate(axes):
            if kind == "core":
                pattern[:, ref] = np.where(idx[a] == 3, -1, idx[a])
                ksize += idx[a] != 3
                continue
            members = list(model.leaf_groups[ref][1])
            cj = comps[ref]
            if tgroup is not None and tgroup[0] == ref:
                cj = tgroup[1]
                members.remove(i)
            if members:
                pattern[:, members] = _assignment(cj)[idx[a]]
            ksize += cj[idx[a], 1:].sum(axis=1)
            mult *= _multinomial(cj)[idx[a]]
        keep = np.isin(ksize, list(allowed)) & (ksize >= min_known)
        for x, xp in ((0, 1), (0, 2), (1, 2)):
            A, B = take(x).reshape(rows, n + 1), take(xp).reshape(rows, n + 1)
            za, zb = A.sum(axis=1), B.sum(axis=1)
            ok = np.flatnonzero(keep & (za > 0) & (zb > 0))
            if ok.size == 0:
                continue
            blocks.append(
                ClassLaws(
                    i, x, xp, pattern[ok], mult[ok], ksize[ok], A[ok] / za[ok, None], B[ok] / zb[ok, None]
                )
            )
    return blocks


def exhaustive_pedigree_count(
    model: PedigreeModel,
    mechanism,
    sizes: Sequence[int] | None = None,
    targets: Sequence[int] | None = None,
    min_known: int = 0,
    noise=None,
) -> PedigreeExhaustiveResult:
    """Exact BDPL of every adversary class ``(i, K, x_K, {x, x'})`` (see module docstring).

    Parameters
    ----------
    sizes : sequence of int, optional
        Allowed ``|K|`` (default all); ``min_known`` further requires ``|K| >= min_known``
        (``1`` = the thesis' sampler, which never draws ``K = {}``).
    targets : sequence of int, optional
        Targets to search. By default every core member and one representative per leaf group
        (multiplicities count all its members); listed leaf targets are searched individually.
    noise : NoiseLaw, optional
        Instead of the mechanism's (an engine's :meth:`~PedigreeCountEngine.with_noise`).
    """
    counted = _counted(model, mechanism)
    return _scored_classes(
        model,
        class_laws(model, counted, sizes, targets, min_known),
        mechanism.noise if noise is None else noise,
    )


def _scored_classes(model: PedigreeModel, blocks: list[ClassLaws], noise) -> PedigreeExhaustiveResult:
    """The BDPL of every class of ``blocks`` (the noise law's ``grid_sup``, :func:`_sup`)."""
    parts = []
    for b in blocks:
        v, where = _sup(b.W1, b.W2, noise)
        parts.append(
            PedigreeExhaustiveResult(
                np.full(v.size, b.i),
                b.pattern,
                np.full(v.size, b.x),
                np.full(v.size, b.x_prime),
                v,
                where,
                None,
                b.multiplicity,
                b.known_size,
            )
        )
    if not parts:
        raise NotAvailable("no adversary with positive-probability conditions matches the filters")
    return PedigreeExhaustiveResult.concat(parts)


def worst_adversary(res: PedigreeExhaustiveResult, rtol: float = 1e-9) -> int:
    """Row of the largest BDPL; among ties (within ``rtol``) the smallest ``|K|``, then first
    (:meth:`~bdpsim.models.engines.ExhaustiveResult.worst`)."""
    return res.worst(rtol)


def check_exhaustive(model: PedigreeModel, sizes: Sequence[int]) -> None:
    """Raise :class:`~bdpsim.models.engines.SearchTooLarge` (field ``run.adversaries``) when the
    exhaustive search of ``model`` would need more than :data:`MAX_CELLS` tensor cells."""
    cells = class_tensor_cells(model)
    if cells > MAX_CELLS:
        raise SearchTooLarge(
            "run.adversaries",
            f"the exhaustive pedigree search needs {cells:.2e} tensor cells "
            f"(limit {MAX_CELLS:.0e}); use fewer people",
        )


def exhaustive_for_driver(
    model: PedigreeModel, mechanism, sizes: Sequence[int], targets: Sequence[int] | None
) -> PedigreeExhaustiveResult:
    """The exact-engine interface ``(model, mechanism, sizes, targets)`` of the driver: every
    adversary class with ``|K|`` in ``sizes`` (rows are classes of exchangeable children; the
    supremum is over all adversaries)."""
    return exhaustive_pedigree_count(model, mechanism, sizes, targets)


class PedigreeCountEngine(QueryLawsEngine):
    """The exact engine of a count of genotypes plus noise (any noise law) on a pedigree: the
    genotypes of people with children enumerated, binomial counts of their children
    (:func:`count_laws`, then :class:`~bdpsim.models.engines.QueryLawsEngine`); every adversary
    class of exchangeable children enumerated (:func:`exhaustive_pedigree_count`), and searched for
    any score (:meth:`search`: the classes' count laws computed once per engine, shared by its
    :meth:`with_noise` copies).

    Capabilities: :class:`~bdpsim.models.engines.HasSearch`,
    :class:`~bdpsim.models.engines.HasNoiseLaw`, :class:`~bdpsim.models.engines.HasExhaustive`,
    :class:`~bdpsim.models.engines.HasProfile`, :class:`~bdpsim.models.engines.HasQueryLaws`.
    """

    method = (
        "enumeration of the genotypes of people with children, binomial counts of their "
        "children; exhaustive over adversary classes of exchangeable children"
    )

    def __init__(self, model: PedigreeModel, mechanism) -> None:
        self.model, self.mechanism = model, mechanism
        self.query, self.noise = mechanism.query_function, mechanism.noise

    def query_laws(self, adversary: Adversary) -> QueryLaws:
        return count_laws(self.model, self.mechanism, adversary)

    def check_exhaustive(self, sizes: Sequence[int]) -> None:
        check_exhaustive(self.model, sizes)

    def exhaustive(self, sizes: Sequence[int], targets: Sequence[int] | None) -> PedigreeExhaustiveResult:
        return exhaustive_pedigree_count(self.model, self.mechanism, sizes, targets, noise=self.noise)

    def check_search(self, min_known: int) -> None:
        check_exhaustive(self.model, range(self.model.n))

    def _classes(self, min_known: int, targets: Sequence[int] | None) -> list[ClassLaws]:
        """The class laws searched: every target's (one representative per leaf group), computed
        once per engine; or the listed targets' (each leaf target on its own)."""
        counted = _counted(self.model, self.mechanism)
        if targets is not None:
            return class_laws(self.model, counted, None, targets, min_known)
        cache = self._noise_free()
        if "classes" not in cache:
            cache["classes"] = class_laws(self.model, counted)
        out = []
        for b in cache["classes"]:
            keep = b.known_size >= min_known
            if keep.all():
                out.append(b)
            elif keep.any():
                cut = {k: v[keep] for k, v in vars(b).items() if isinstance(v, np.ndarray)}
                out.append(ClassLaws(b.i, b.x, b.x_prime, **cut))
        return out

    def search(
        self, score: PairScore, min_known: int = 0, top: int | None = 1, targets: Sequence[int] | None = None
    ) -> AdversarySearch:
        """Every adversary class scored (the module docstring: exact for every adversary, each
        class standing for its exchangeable members); a component's worst is, among the classes
        within ``1e-9`` of its supremum, one of the fewest known records (:func:`worst_adversary`);
        a score reading the query's values is refused (the class laws are on the count's lattice)."""
        names = names_of(score)
        refuse_query_values(score, "the pedigree's class search")
        self.check_search(min_known)
        blocks = self._classes(int(min_known), targets)
        if not blocks:
            raise NotAvailable("no adversary with positive-probability conditions matches the filters")
        W1, W2 = np.vstack([b.W1 for b in blocks]), np.vstack([b.W2 for b in blocks])
        got = score_rows(score, W1, W2, 1.0, self.noise, self.SCORE_CHUNK)
        ref = PedigreeExhaustiveResult.concat(
            [
                PedigreeExhaustiveResult(
                    np.full(len(b.known_size), b.i),
                    b.pattern,
                    np.full(len(b.known_size), b.x),
                    np.full(len(b.known_size), b.x_prime),
                    np.zeros(len(b.known_size)),
                    np.zeros(len(b.known_size)),
                    None,
                    b.multiplicity,
                    b.known_size,
                )
                for b in blocks
            ]
        )
        ksize = cast(np.ndarray, ref.known_size)

        def fewest_known(v: np.ndarray, rtol: float = 1e-9) -> int:
            tied = np.flatnonzero(v >= v.max() - rtol * max(1.0, abs(v.max())))
            return int(tied[np.argmin(ksize[tied])])

        def row(j: int, k: int) -> AdversaryRow:
            return adversary_row(ref.adversary(j), got, j, k, 0.0, 1.0)

        return ranked_search(names, got, row, top, fewest_known, detail=ref)
