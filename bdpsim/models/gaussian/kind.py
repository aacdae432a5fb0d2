"""``[model] kind = "gaussian"``: a multivariate Gaussian (paper Def. 4.2, 5.4; thesis §6.4).

Owns its config keys (an explicit ``mean``/``cov``, or the class ``Sigma_rho`` drawn per
adversary), the Gaussian bound (paper Thm 5.5/5.8) with its conditions, the cost of conditional
sampling, how an adversary draws its real-valued targets, and the exact engines
(:mod:`bdpsim.models.gaussian.exact`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ... import bounds as B
from ...adversary import Adversary, draw_known_set
from ...core.columns import Column, owned_columns
from ...core.errors import ConfigError, check
from ...core.schema import Key
from ...kernels.noise.protocols import GaussianKernel
from ...queries import ClippedSumQuery, NoisyQuery, SumQuery, laplace_noisy
from ..base import ModelKind, ModelSpec, SampleCost, register_model_kind
from ..protocols import HasTargetValues
from . import exact as GE
from .model import GaussianClass, GaussianModel, block_size, max_correlation

GAUSSIAN_TRIES = 2000  # rejection draws a Sigma_rho class tries when it is built
DEFAULT_VALUE_RANGE = (0.0, 10.0)


def random_gaussian_adversary(
    model: GaussianModel,
    sizes: Sequence[int],
    rng: np.random.Generator,
    targets: str,
    target_range: tuple[float, float],
) -> Adversary:
    """Gaussian adversary: ``x_K ~ N(mu_K, S_KK)`` (the model's marginal) and targets

    ``"uniform"``: ``x, x'`` independent uniform on ``target_range``;
    ``"endpoints"``: ``{x, x'} = {low, high}`` in random order;
    ``"fixed"``: ``x, x' = target_range`` (the unclipped sum's ``target_values``).
    """
    i, known = draw_known_set(model.n, sizes, rng)
    lo, hi = target_range
    if targets == "uniform":
        x, xp = (float(v) for v in rng.uniform(lo, hi, size=2))
    elif targets == "endpoints":
        x, xp = (lo, hi) if rng.random() < 0.5 else (hi, lo)
    elif targets == "fixed":
        x, xp = float(lo), float(hi)
    else:
        raise ConfigError("run.targets", targets, "must be 'uniform' or 'endpoints'")
    xk = model.sample(1, rng)[0, list(known)] if known else np.zeros(0)
    return Adversary(i, known, tuple(float(v) for v in xk), x, xp)


class GaussianKind(ModelKind):
    name = "gaussian"
    doc = "multivariate Gaussian (explicit mean/cov, or the Sigma_rho class drawn per adversary)"
    example = {"n": 3, "rho": 0.3}
    keys = {
        "n": Key("int", doc="number of records", rule="integer >= 2"),
        "rho": Key(
            "float",
            doc="correlation level of the class Sigma_rho (absent: explicit cov)",
            rule="in [0, 1); exactly one of rho, cov",
        ),
        "sigma": Key("float", 1.0, doc="standard deviation of every record of Sigma_rho", rule="> 0"),
        "block": Key("int", doc="records per correlated block m (absent: n)", rule="divides n"),
        "cov_draw": Key(
            "str",
            "uniform",
            doc="how a Sigma_rho is drawn per adversary",
            rule="'uniform', 'positive' or 'equicorrelated'",
        ),
        "mean_range": Key(
            "vector", doc="range the mean is drawn from (absent: the clip range)", rule="[a, b] with a <= b"
        ),
        "mean": Key("vector", doc="fixed mean (with cov; absent: drawn)", rule="n finite numbers"),
        "cov": Key(
            "matrix",
            doc="fixed covariance (absent: drawn from Sigma_rho)",
            rule="n x n symmetric positive definite",
        ),
    }
    domain = "real"
    summary_columns = owned_columns(
        "epsilon",
        Column("rho", float, "Gaussian correlation level (class rho, or the largest |correlation|)"),
    )

    def build(self, params: dict, present: set, hints: Mapping[str, Any] | None = None) -> ModelSpec:
        """An explicit ``mean`` and ``cov``, or the class ``Sigma_rho`` (``rho``, ``sigma``,
        ``block``, ``cov_draw``, ``mean_range`` defaulting to the mechanism's value range: its clip
        range or target values, ``hints["value_range"]``)."""
        n = params["n"]
        check(n is not None, "model.n", None, "is required")
        check(n >= 2, "model.n", n, "must be an integer >= 2")
        vr = (hints or {}).get("value_range") or DEFAULT_VALUE_RANGE
        if "cov" in present or ("mean" in present and "rho" not in present):
            check(
                "cov" in present and "mean" in present,
                "model.cov",
                params["cov"],
                "an explicit Gaussian needs both mean and cov",
            )
            check("rho" not in present, "model.rho", params["rho"], "give rho or an explicit cov, not both")
            check(len(params["mean"]) == n, "model.mean", params["mean"], f"must have n = {n} entries")
            model = GaussianModel(params["mean"], params["cov"])
            block = params["block"]
            if block is not None:
                block_size(block, n)
                same = (np.arange(n)[:, None] // block) == (np.arange(n)[None, :] // block)
                check(
                    bool(np.all(model.cov[~same] == 0)),
                    "model.block",
                    block,
                    f"the cov correlates records of different blocks of {block} consecutive records",
                )
            return ModelSpec(
                self.name,
                n,
                block or n,
                fixed=model,
                owner=self,
                detail={
                    "explicit": True,
                    "block": block,
                    "value_range": tuple(vr),
                    "rho": max_correlation(model.cov),
                },
            )
        check(params["rho"] is not None, "model.rho", None, "a Gaussian model needs rho (or mean and cov)")
        mr = params["mean_range"]
        if mr is None:
            mr = list(vr)
            if mr[0] == mr[1]:
                mr = [mr[0] - 1.0, mr[1] + 1.0]
        check(len(mr) == 2, "model.mean_range", mr, "must be [low, high] with low < high")
        family = GaussianClass(
            n,
            params["rho"],
            params["sigma"],
            params["block"],
            params["cov_draw"],
            (float(mr[0]), float(mr[1])),
            None if params["mean"] is None else tuple(params["mean"]),
        )
        fixed = family.equicorrelated() if family.cov_draw == "equicorrelated" else None
        return ModelSpec(
            self.name,
            n,
            family.block or n,
            fixed=fixed,
            family=family,
            owner=self,
            detail={
                "explicit": False,
                "block": family.block,
                "value_range": family.mean_range,
                "rho": family.rho,
            },
        )

    def setup_cost(self, params: dict) -> tuple[float, float, str] | None:
        """A ``Sigma_rho`` class draws (up to :data:`GAUSSIAN_TRIES` times) an ``n x n`` matrix and
        its eigenvalues when it is built."""
        n = params.get("n")
        if not isinstance(n, int) or params.get("cov") is not None:
            return None
        return 6.0 * 8 * float(n) ** 2, GAUSSIAN_TRIES * float(n) ** 3, "model.n"

    def cost(self, spec: ModelSpec) -> SampleCost:
        n = float(spec.n)  # a conditional draw is a matrix product; a covariance draw n^3
        return SampleCost(
            n * n, n**3, model_bytes=4 * 8 * n * n, draw=0.0 if spec.fixed is not None else n**3
        )

    def summary_cells(self, spec: ModelSpec) -> dict:
        """``rho``: the class's correlation level, or an explicit cov's largest ``|correlation|``."""
        return {"rho": spec.detail["rho"]}

    def bounds(self, spec: ModelSpec, mechanism, epsilon: float) -> dict[str, B.Bound]:
        """The Gaussian bound needs a limited covariance (constant diagonal) and ``rho (m - 2) < 1``;
        eps form for the clipped sum (Thm 5.8), target-dependent metric form for the unclipped sum
        (Thm 5.5)."""
        if spec.fixed is not None and spec.detail.get("explicit"):
            d = np.diag(spec.fixed.cov)
            if not np.allclose(d, d[0], rtol=1e-12, atol=0):
                return {
                    "model": B.not_applicable(
                        "gaussian", "needs a limited covariance Sigma_rho with a constant diagonal"
                    )
                }
        query, noise = laplace_noisy(mechanism) or (None, None)
        if isinstance(query, ClippedSumQuery) and math.isfinite(epsilon):
            return {"model": B.gaussian_bound(epsilon, spec.detail["rho"], spec.m)}
        if isinstance(query, SumQuery) and noise is not None:
            x, xp = mechanism.adversary_targets("fixed")[1]  # the unclipped sum's one target pair
            return {  # metric privacy: eps' = 1 / b per unit of |x - x'|
                "model": B.gaussian_bound(1.0 / noise.scale, spec.detail["rho"], spec.m, distance=abs(x - xp))
            }
        return {}

    def draw_adversary(
        self,
        model,
        sizes: Sequence[int],
        rng: np.random.Generator,
        *,
        targets: str = "uniform",
        target_range: tuple[float, float] | None = None,
        spec: ModelSpec | None = None,
    ) -> Adversary:
        rng_ = (
            target_range
            or (spec.detail.get("value_range") if spec is not None else None)
            or DEFAULT_VALUE_RANGE
        )
        return random_gaussian_adversary(model, sizes, rng, targets, tuple(rng_))

    def exact(
        self, model, mechanism
    ) -> GE.GaussianSumEngine | GE.GaussianClippedSumEngine | GE.GaussianShiftEngine:
        query, noise = laplace_noisy(mechanism) or (None, None)  # query + Lap(noise.scale)
        if isinstance(query, SumQuery) and noise is not None:
            return GE.GaussianSumEngine(model, noise.scale, mechanism.adversary_targets("fixed")[1])
        if isinstance(query, ClippedSumQuery) and noise is not None:
            return GE.GaussianClippedSumEngine(model, query.clip, noise.scale)
        if (
            isinstance(mechanism, NoisyQuery)
            and isinstance(mechanism.query_function, SumQuery)
            and isinstance(mechanism.noise, GaussianKernel)
        ):
            fixed = mechanism.target_values if isinstance(mechanism, HasTargetValues) else None
            return GE.GaussianShiftEngine(model, mechanism.noise.sigma, fixed)
        self.no_engine(
            mechanism,
            "exact engines: unclipped and clipped Laplace sums, the unclipped sum with Gaussian noise",
        )


KIND = register_model_kind(GaussianKind())
