"""Exact per-adversary BDPL: the model kind's exact engine for a (model, mechanism) pair.

Which pairs have an exact BDPL, and how, is each model kind's
(:meth:`~bdpsim.models.base.ModelKind.exact`), asked through
:func:`bdpsim.models.engines.engine_for` (re-exported here); this module wraps the answer as an
estimator. An engine's ``bdpl`` is two-sided,
``sup_s |ln p(s | x_K, x) / p(s | x_K, x')|`` (both orders of the pair at once); its ``one_sided``
is ``sup_s ln p(s | x_K, x) / p(s | x_K, x')`` for the ordered pair — what the thesis' signed KDE
estimator estimates (thesis §2, Def. 2.11; §3.1.2 step 6).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, ClassVar, cast

import numpy as np

from ..adversary import Adversary, Estimate
from ..core.columns import Column, OwnedColumn, register_columns
from ..core.errors import ConfigError, NotAvailable, check
from ..core.schema import Key
from ..kernels.noise.checks import MAX_PROFILE_EPSILON
from ..kernels.noise.traits import TRAITS
from ..models.engines import (  # noqa: F401  (complete_engine, engine_for, exact_engine: their former home)
    ExactEngine,
    HasOutputPair,
    HasProfile,
    HasProfileSearch,
    PairEngine,
    complete_engine,
    engine_for,
    exact_engine,
    use_engine,
)
from ..models.protocols import WindowRow
from .base import CostContext, register_estimator


def adversary_bdpl(model, mechanism, adversary: Adversary, engine: PairEngine = None) -> Estimate:
    """Exact ``sup_s |ln p(s | x_K, x) / p(s | x_K, x')|`` for one adversary (raises
    :class:`NotAvailable` where the pair, or this adversary, has no exact value).

    ``p(s | x_K, x) = E_{x_U ~ pi(x_U | x_K, x)} p_M(s | x_K, x, x_U)`` integrates the unknown
    records out under the conditional data law (thesis §3.1, paper §3).

    Parameters
    ----------
    model : DataModel
        E.g. :class:`~bdpsim.models.MarkovChainModel` or :class:`~bdpsim.models.GaussianModel`.
    mechanism : Mechanism
        E.g. :class:`~bdpsim.mechanisms.LaplaceCount`.
    adversary : Adversary
        ``(i, K, x_K, x, x')``.
    engine : ExactEngine, NotAvailable or None, optional
        The pair's exact engine as the caller built it (a configuration point's,
        :func:`bdpsim.models.engines.build_engine`); ``None``: a new one.

    Returns
    -------
    Estimate
        ``value`` is the adversary's exact BDPL.
    """
    return use_engine(engine, model, mechanism).bdpl(adversary)


def exact_reference(
    model, mechanism, adversary: Adversary, signed: bool = False, engine: PairEngine = None
) -> Estimate:
    """Exact ``sup_s ln p(s | x_K, x)/p(s | x_K, x')`` (``signed``) or its two-sided version
    (``engine``: the pair's engine as the caller built it, as :func:`adversary_bdpl`).

    Raises :class:`~bdpsim.core.errors.NotAvailable` where no exact value exists.
    """
    eng = use_engine(engine, model, mechanism)
    return eng.one_sided(adversary) if signed else eng.bdpl(adversary)


def _profile(eng: ExactEngine, adversary: Adversary, epsilon: float) -> float:
    """The adversary's privacy profile ``delta(epsilon)`` (engines with
    :class:`~bdpsim.models.engines.HasProfile`)."""
    if not isinstance(eng, HasProfile):
        raise NotAvailable(f"no privacy profile: exact engine {type(eng).__name__} ({eng.method})")
    return eng.profile(adversary, epsilon)


PROFILE_COLUMNS = register_columns(
    "summary",
    Column(
        "epsilon_profile",
        float,
        "exact estimator: the eps of the privacy profile delta(eps) (run.epsilon_profile)",
    ),
    Column(
        "bdp_delta",
        float,
        "delta(eps) = sup over the adversaries of max(integral (p(y|x_K,x) - e^eps "
        "p(y|x_K,x'))^+ dy, the same with x, x' swapped): the hockey-stick divergence, exact",
    ),
    owner="estimator exact",
)
PROFILE_ADVERSARY = register_columns(
    "adversaries",
    Column("bdp_delta", float, "the adversary's privacy profile delta(epsilon_profile), exact"),
    owner="estimator exact",
)
#: the false-positive rates of the attack columns and their labels
ATTACK_FPRS = (("1e-3", 1e-3), ("1e-2", 1e-2), ("0.1", 0.1))
ATTACK_ADVERSARY = register_columns(
    "adversaries",
    Column(
        "advantage",
        float,
        "the optimal attack's advantage max (TPR - FPR) = TV(P, Q) of the adversary's two "
        "output laws (x: positives), exact (run.attack)",
    ),
    *(
        Column(
            f"tpr_at_{lab}",
            float,
            f"the optimal attack's largest TPR at FPR = {lab} (x: positives, x': "
            "negatives; Neyman-Pearson), exact (run.attack)",
        )
        for lab, _ in ATTACK_FPRS
    ),
    owner="estimator exact",
)
ATTACK_SUMMARY = register_columns(
    "summary",
    Column(
        "advantage_max",
        float,
        "the largest attack advantage TV(P, Q): over every adversary by the exact "
        "search (adversaries = 'all'), else over the examined ones (run.attack)",
    ),
    *(
        Column(
            f"tpr_at_{lab}_max",
            float,
            f"the largest TPR at FPR = {lab}: over every adversary and both orders "
            "of its pair (adversaries = 'all'; a value attained by an adversary), "
            "else over the examined ones (run.attack)",
        )
        for lab, _ in ATTACK_FPRS
    ),
    owner="estimator exact",
)


#: the attack columns' two functions, registered by :mod:`bdpsim.attack.columns` (the attack package
#: builds on this layer's engines, so the estimator calls it through this table, never by import):
#: ``"cells"``: ``(model, mechanism, adversaries, engine) -> [{column: value}, ...]``; ``"worst"``:
#: ``(model, mechanism, sizes, engine) -> {column_max: value}`` (``engine``: the point's)
ATTACK_COLUMNS: dict[str, Callable[..., Any]] = {}


def _attack_function(name: str) -> Callable[..., Any]:
    if name not in ATTACK_COLUMNS:  # the run pipeline imports bdpsim.attack, which registers them
        raise ConfigError(
            "run.attack", True, "needs the attack columns of bdpsim.attack (import bdpsim.attack)"
        )
    return ATTACK_COLUMNS[name]


def attack_cells(model, mechanism, adversaries, engine: PairEngine = None) -> list[dict[str, float]]:
    """Each adversary's attack columns: ``advantage = TV(P, Q)`` and ``tpr_at_<fpr> = 1 -
    beta(fpr)`` of the Neyman-Pearson test of ``P`` (``X_i = x``) against ``Q`` (``X_i = x'``),
    exact, by ``engine`` (the point's; :func:`bdpsim.attack.attack_risk` with this ``adversary``;
    :data:`ATTACK_COLUMNS`)."""
    return _attack_function("cells")(model, mechanism, list(adversaries), engine)


def worst_attack_cells(model, mechanism, sizes, engine: PairEngine = None) -> dict[str, float]:
    """``advantage_max`` and ``tpr_at_<fpr>_max`` over every adversary with ``|K|`` in ``sizes``
    (:func:`bdpsim.attack.attack_risk`: values attained by an adversary; :data:`ATTACK_COLUMNS`),
    by ``engine`` (the point's)."""
    return _attack_function("worst")(model, mechanism, sizes, engine)


@dataclass(frozen=True)
class ExactEstimator:
    """Exact per-adversary BDPL; noise floor 0 by construction.

    ``epsilon_profile`` (``[run] epsilon_profile``, optional): also the privacy profile
    ``delta(eps) = sup_adv max(∫ (p(y | x_K, x) - e^eps p(y | x_K, x'))^+ dy, swapped)`` at that
    ``eps`` — the only finite summary of a Gaussian mechanism, whose pure BDPL is infinite (its
    output densities' ratio is unbounded in the tails).
    """

    epsilon_profile: float | None = None
    attack: bool = False
    name: ClassVar[str] = "exact"
    #: nothing sampled (no sample count, sampling mode or chunk); its estimate is the exact value (no
    #: reference beside it); its noise floor, 0 by construction, fills the summary's noise_floor
    #: cells for that many adversaries; the search over every adversary is its own
    reads: ClassVar[frozenset[str]] = frozenset({"noise_floor_adversaries", "exhaustive_method"})
    exact: ClassVar[bool] = True
    keys: ClassVar[dict[str, Key]] = {
        "epsilon_profile": Key(
            "float",
            hashed=False,
            doc="also the privacy profile delta(eps) at this eps (absent: not computed)",
            rule="a finite number in [0, 100]",
        ),
        "attack": Key(
            "bool",
            hashed=False,
            doc="also the optimal attack's advantage and TPR at FPR 1e-3, 1e-2, "
            "0.1 per adversary and their max (absent: not computed)",
            rule="true or false",
        ),
    }
    summary_columns: ClassVar[tuple[OwnedColumn, ...]] = ()

    def __post_init__(self) -> None:
        e = self.epsilon_profile
        if e is not None:
            check(
                isinstance(e, (int, float))
                and not isinstance(e, bool)
                and math.isfinite(e)
                and 0 <= e <= MAX_PROFILE_EPSILON,
                "run.epsilon_profile",
                e,
                f"must be a finite number in [0, {MAX_PROFILE_EPSILON:g}] (delta(eps) is 0 long before)",
            )
        check(isinstance(self.attack, bool), "run.attack", self.attack, "must be true or false")

    @property
    def summary_extras(self) -> tuple[str, ...]:
        out = () if self.epsilon_profile is None else tuple(c.name for c in PROFILE_COLUMNS)
        return out + (tuple(c.name for c in ATTACK_SUMMARY) if self.attack else ())

    @property
    def adversary_extras(self) -> tuple[str, ...]:
        """``bdp_delta`` per adversary with a privacy profile; the attack columns with ``attack``."""
        out = () if self.epsilon_profile is None else tuple(c.name for c in PROFILE_ADVERSARY)
        return out + (tuple(c.name for c in ATTACK_ADVERSARY) if self.attack else ())

    def window_rows(self, point, advs, values) -> list[tuple[WindowRow, float, float, dict]]:
        """``(window adversary, bdpl, argmax, extras)`` of the rows of a window search (``advs``,
        ``values``: the engine's ``window``). With a privacy profile every row also gets its
        ``bdp_delta``; when the largest BDPL is infinite (no pure DP: the BDPL cannot rank the
        adversaries) the rows are those of the profile's search instead, the largest
        ``delta(eps)`` first, each with its own exact BDPL. With ``attack`` every row also gets its
        attack columns (``attack_cells``)."""
        rows = self._window_rows(point, advs, values)
        if not self.attack:
            return rows
        model, mech = point.model.fixed, point.mechanism
        cells = attack_cells(model, mech, [w.adversary() for w, _, _, _ in rows], point.exact_engine)
        return [(w, v, y, {**x, **c}) for (w, v, y, x), c in zip(rows, cells)]

    def _window_rows(self, point, advs, values) -> list[tuple[WindowRow, float, float, dict]]:
        if self.epsilon_profile is None:
            return [(w, w.bdpl, w.argmax, {}) for w in advs]
        eng, eps = point.exact_engine, self.epsilon_profile
        if np.size(values) and np.isposinf(np.max(values)) and isinstance(eng, HasProfileSearch):
            keep = point.settings.adversary_rows
            _, top, _ = eng.profile_window(point.sizes[0], eps, None if keep == "all" else keep)
            out = []
            for w in top:
                pure = cast(ExactEngine, eng).bdpl(w.adversary())  # every engine has bdpl
                out.append((w, pure.value, pure.argmax, {"bdp_delta": w.bdpl}))
            return out
        return [(w, w.bdpl, w.argmax, {"bdp_delta": _profile(eng, w.adversary(), eps)}) for w in advs]

    @classmethod
    def from_settings(cls, settings) -> ExactEstimator:
        attack = settings.option("attack")
        return cls(settings.option("epsilon_profile"), False if attack is None else attack)

    @staticmethod
    def supports(model, mechanism, engine: PairEngine = None) -> str | None:
        """``None`` when every adversary of the pair has an exact value, else why not (the
        :class:`~bdpsim.estimators.base.Estimator` answer; :func:`engine_for`'s refusal)."""
        try:
            use_engine(engine, model, mechanism, complete=True)
        except NotAvailable as exc:
            return str(exc)
        return None

    def check(self, model, mechanism, engine: PairEngine = None) -> None:
        """A mechanism without pure DP (Gaussian noise) has an infinite BDPL: ask for its profile.
        ``attack = true`` needs each adversary's output laws
        (:class:`~bdpsim.models.engines.HasOutputPair`): refused naming ``run.attack`` where the
        pair's engine gives none."""
        try:
            eng = use_engine(engine, model, mechanism, complete=True)
        except NotAvailable:
            return
        if self.attack and not isinstance(eng, HasOutputPair):
            from ..mechanisms.histogram import NoisyHistogram

            instead = (
                "bdpsim attack config CONFIG attacks it: Monte Carlo intervals past the box brackets"
                if isinstance(mechanism, NoisyHistogram)
                else "bdpsim.attack.simulated_attack attacks it by simulation"
            )
            raise ConfigError(
                "run.attack",
                True,
                f"needs each adversary's exact output laws, which the exact engine of a {model.kind} "
                f"model with the '{mechanism.kind}' mechanism does not give: remove run.attack ({instead})",
            )
        if self.epsilon_profile is None and mechanism.epsilon is None and isinstance(eng, HasProfile):
            noise = mechanism.columns().get("noise")  # the noise law's name (NoisyMechanism), else empty
            noise = noise if isinstance(noise, str) and noise else None
            field, value = ("mechanism.noise", noise) if noise else ("mechanism.kind", mechanism.kind)
            traits = TRAITS.get(noise or "")
            why = traits.not_pure if traits is not None and traits.not_pure else "its noise"
            raise ConfigError(
                field,
                value,
                f"has no pure DP ({why}): its exact BDPL is infinite; set "
                "run.epsilon_profile = eps to report its privacy profile delta(eps) (column bdp_delta)",
            )

    def estimate(self, model, mechanism, adversary, rng=None, engine: PairEngine = None) -> Estimate:
        """The adversary's exact BDPL by ``engine`` (the point's; ``None``: a new one), with its
        privacy profile and attack columns when asked."""
        eng = use_engine(engine, model, mechanism)
        est = eng.bdpl(adversary)
        extra: dict[str, float] = {}
        if self.epsilon_profile is not None:
            extra["bdp_delta"] = _profile(eng, adversary, self.epsilon_profile)
        if self.attack:
            extra.update(attack_cells(model, mechanism, [adversary], eng)[0])
        return replace(est, extra={**est.extra, **extra}) if extra else est

    def reference(self, model, mechanism, adversary, engine: PairEngine = None) -> Estimate:
        return adversary_bdpl(model, mechanism, adversary, engine)

    def null_estimate(self, model, mechanism, adversary, rng=None) -> Estimate:
        return Estimate(0.0)

    def cost(self, ctx: CostContext) -> tuple[float, float]:
        return 0.0, 0.0  # the exact values are the point's references (bdpsim.pipeline.cost)

    def summary(self, stats) -> dict:
        return {"n_samples": math.nan}

    def finish(self, ctx, stats, rows) -> dict:
        """The privacy profile's supremum over the adversaries: over the examined ones, or over every
        adversary by the engine's reduced search (``adversaries = "all"``). When the largest BDPL is
        infinite (no pure DP), the ``argmax_*`` cells name the adversary attaining ``bdp_delta``.
        With ``attack``: the attack columns' maxima
        (``worst_attack_cells`` over every adversary, else over the
        examined ones)."""
        out = self._finish_profile(ctx, stats, rows)
        if self.attack:
            if ctx.exhaustive:
                model = ctx.adversary(0)[
                    0
                ]  # the point's one model (an exhaustive search needs a fixed model)
                out.update(worst_attack_cells(model, ctx.mechanism, ctx.sizes, ctx.engine()))
            else:
                for c in ATTACK_SUMMARY:
                    d = stats.get(c.name[: -len("_max")], np.zeros(0))
                    out[c.name] = float(np.nanmax(d)) if np.isfinite(d).any() else math.nan
        return out

    def _finish_profile(self, ctx, stats, rows) -> dict:
        if self.epsilon_profile is None:
            return {}
        eps = self.epsilon_profile
        who = None  # the adversary attaining the profile (its adversaries.csv.gz columns)
        if ctx.exhaustive:
            eng = ctx.engine()
            check(
                isinstance(eng, HasProfileSearch),
                "run.epsilon_profile",
                eps,
                f"no privacy-profile search over every adversary for {ctx.pair}",
            )
            res, top, _ = eng.profile_window(ctx.sizes[0], eps, 1)
            delta, who = res.bdpl, top[0].table_row()
        else:
            d = stats.get("bdp_delta", np.zeros(0))
            delta = float(np.nanmax(d)) if np.isfinite(d).any() else math.nan
            hit = [r for r in rows if r.extras.get("bdp_delta") == delta]
            who = hit[0].as_row() if hit else None
        out = {"epsilon_profile": float(eps), "bdp_delta": float(delta)}
        v = stats.get("bdpl", np.zeros(0))
        if (
            who is not None and v.size and np.isposinf(np.nanmax(v))
        ):  # no pure DP: name the profile's adversary
            out.update({f"argmax_{k}": who[k] for k in ("i", "known", "x_known", "x", "x_prime")})
        return out


register_estimator(ExactEstimator)
