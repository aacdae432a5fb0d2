"""The utility experiment (paper §7, thesis §8): calibrated Laplace mechanisms on real data.

For each dataset variant, mechanism and target BDPL ``eps``, the noise comes from the one
calibration registry (:data:`bdpsim.calibration.CALIBRATION_METHODS`) on the variant's fitted
model (:func:`problem`: a Markov chain, groups of ``m`` equicorrelated Gaussian records, or groups
of ``m`` correlated records): ``dp`` (baseline, ``tau = eps``, not BDP), ``general`` (``eps/m``),
``gaussian`` (``eps/h``), ``markov`` (``eps - 4 ln gamma``), ``zhao`` (``eps - 6 ln omega``),
``exact`` (the least eps-BDP Laplace scale of the fitted chain) and ``optimal`` (the least-``E|Z|``
integer noise that is eps-BDP, :mod:`bdpsim.calibration.optimal`; Markov data only).
The Laplace mechanism with scale ``b = Delta/tau`` runs ``runs`` times on the true query value;
we report the empirical 95 % quantile of the absolute error (alpha at beta = 5 %) against the
theory ``ln(1/beta) b``, the MAPE and the MSE (theory ``2 b^2``). A bound that cannot reach
``eps`` yields a row that says so (never a silently dropped point).

**Table noise** (``optimal``): the noise is drawn from the table law itself
(:meth:`bdpsim.kernels.noise.table.TableNoise.sample`, the same seed streams as every row);
``noise_scale = E|Z|`` (the Laplace scale is a Laplace noise's ``E|Z|`` too), ``tau`` is the
table's own DP epsilon ``sup_k ln f(k)/f(k + Delta)`` (at most ``eps``: the DP adversary is one of
the BDP adversaries), ``alpha_theory`` the exact ``(1 - beta)`` quantile of ``|Z|`` (an integer)
and ``mse_theory = E Z^2``, both from the table and its geometric tails.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..calibration import CALIBRATION_METHODS, CalibrationProblem
from ..calibration.groups import GaussianGroups, RecordGroups
from ..calibration.methods import EXACT_METHOD
from ..core.errors import check
from ..core.schema import REQUIRED, Key, resolve_table
from ..kernels.noise.table import TableNoise
from ..models import MarkovChainModel
from ..models.pedigree.model import PedigreeModel
from ..pipeline import results as R
from ..pipeline import seeds
from ..pipeline.config import load_toml
from ..pipeline.runner import RowsStudy, Unit, run_study
from . import datasets as DS
from .fitting import fit_gaussian, fit_markov

DATASETS = ("galton", "kid_iq", "synthetic_iq", "activity", "electricity", "genomic")
GAUSSIAN_SETS = ("galton", "kid_iq", "synthetic_iq")
MECHANISMS = ("dp", "general", "gaussian", "markov", "zhao", "exact", "optimal")
DEFAULT_MECHS = {
    "gaussian": ["dp", "general", "gaussian"],
    "markov": ["dp", "general", "markov", "zhao"],
    "genomic": ["dp", "general"],
}
# Mechanisms a config may ask for beyond the sources' defaults (bdpsim additions).
ALLOWED_MECHS = {**DEFAULT_MECHS, "markov": DEFAULT_MECHS["markov"] + ["exact", "optimal"]}
COLUMNS = [
    "dataset",
    "variant",
    "mechanism",
    "epsilon",
    "tau",
    "noise_scale",
    "sensitivity",
    "n",
    "m",
    "databases",
    "true_value",
    "alpha_theory",
    "alpha_empirical",
    "mape",
    "mse",
    "mse_theory",
    "clip_bias_mse",
    "runs",
    "note",
]
CLIPS = {"galton/all": (0.0, 100.0), "galton/trios": (60.0, 80.0), "iq": (40.0, 160.0)}
"""Default clip ranges: Galton 0-100 in (paper Table 3), Galton trios 60-80 in (thesis §8.2),
IQ 40-160 (paper §7.1.1)."""


@dataclass(frozen=True)
class UtilityConfig:
    dataset: str
    epsilon: tuple[float, ...]
    runs: int = 1000
    beta: float = 0.05
    seed: int = 1
    mechanisms: tuple[str, ...] = ()
    threshold: tuple[float, ...] = (70.0, 80.0, 90.0)
    split: tuple[str, ...] = ("all",)
    records: int = 20_000
    family_size: tuple[int, ...] = (2, 3, 5, 10)
    clip: tuple[float, float] | None = None
    meters: str = "all"
    raw: dict | None = None


MAX_RUNS, MAX_RECORDS, MAX_FAMILY = 10**6, 10**7, 1000  # beyond: hours and gigabytes per variant


#: every key of a ``[utility]`` table, declared once (type, default, doc, rule); :func:`parse_utility`
#: checks each value against its key and names ``utility.<key>`` with the key's rule, and the docs'
#: key reference is generated from these (``sweeps``: a list gives one variant or point per value)
UTILITY_KEYS = {
    "dataset": Key(
        "str",
        REQUIRED,
        sweep=False,
        doc="the data (paper §7.1; genomic: synthetic pedigrees)",
        rule=f"must be one of {list(DATASETS)}",
    ),
    "epsilon": Key(
        "float",
        {"linspace": [1, 20, 20]},
        doc="target BDPLs (one row per mechanism and eps)",
        rule="must be finite numbers > 0 (a list or a linspace/range table)",
    ),
    "runs": Key(
        "strict_int",
        1000,
        sweep=False,
        doc="noise draws per database and eps",
        rule=f"must be an integer in 20..{MAX_RUNS:.0e}",
    ),
    "beta": Key(
        "float",
        0.05,
        sweep=False,
        doc="alpha is the (1 - beta) quantile of |error|",
        rule="must be in (0, 1)",
    ),
    "seed": Key(
        "strict_int",
        1,
        sweep=False,
        doc="the run's seed (one SeedSequence child per row)",
        rule="must be an integer in 0..2^63-1",
    ),
    "mechanisms": Key(
        "str",
        None,
        doc="calibration methods compared (default: the paper's for the data: "
        + "; ".join(f"{k} data {', '.join(v)}" for k, v in DEFAULT_MECHS.items())
        + ")",
        rule="must be a non-empty subset of the data's methods ("
        + "; ".join(f"{k} data: {', '.join(v)}" for k, v in ALLOWED_MECHS.items())
        + ")",
    ),
    "threshold": Key(
        "float",
        [70.0, 80.0, 90.0],
        doc="electricity: daily kWh above which a day is high (one variant each)",
        rule="must be kWh > 0",
    ),
    "split": Key(
        "str",
        ["all"],
        doc="activity: all (one chain of every record) and/or days (one chain per "
        "complete day); galton: all and/or trios",
        rule="must be a subset of the data's splits (activity: all, days; galton: all, trios; others: all)",
    ),
    "records": Key(
        "strict_int",
        20_000,
        sweep=False,
        doc="synthetic_iq and genomic: records generated",
        rule=f"must be an integer in 10..{MAX_RECORDS:.0e}",
    ),
    "family_size": Key(
        "strict_int",
        [2, 3, 5, 10],
        doc="genomic: people per family m (one variant each)",
        rule=f"must be integers in 2..min(records, {MAX_FAMILY})",
    ),
    "clip": Key(
        "vector",
        None,
        sweep=False,
        doc="[low, high] range records are clipped to (default: the "
        "paper's per dataset: Galton 0-100 in, trios 60-80 in, IQ 40-160)",
        rule="must be [low, high] with low < high, |values| <= 1e12",
    ),
    "meters": Key(
        "str",
        "all",
        sweep=False,
        doc="electricity: the meter columns summed (all, as the authors' script; WHE: the whole-house meter)",
        rule=f"must be one of {list(DS.METERS)}",
    ),
}


def _valid(name: str, value, ok: bool) -> None:
    """Refuse ``value`` of ``utility.<name>`` unless ``ok``, with its key's rule."""
    check(ok, f"utility.{name}", value, UTILITY_KEYS[name].rule)


def _distinct(name: str, values: list) -> None:
    """Refuse a variant listed twice in ``utility.<name>``: each value gives its own rows, so a
    repeated one gives duplicate rows (and duplicate lines in the figure)."""
    seen: list = []
    for v in values:
        check(
            v not in seen,
            f"utility.{name}",
            values,
            f"lists {v!r} twice: each value is one variant (its own rows); list it once",
        )
        seen.append(v)


def parse_utility(raw: dict) -> UtilityConfig:
    """Validate a ``[utility]`` table (see configs/utility_*.toml) against :data:`UTILITY_KEYS`.

    The table goes through the run configs' loader (:func:`bdpsim.core.schema.resolve_table`:
    unknown keys, types, sweep lists and ``linspace``/``range`` tables, defaults); what remains
    here are the rules that relate values (ranges, the data's methods and splits, repeats).
    """
    for k in raw:
        check(k in ("utility", "title"), k, raw[k], "unknown table (allowed: title, [utility])")
    check(isinstance(raw.get("utility"), dict), "[utility]", raw.get("utility"), "table is required")
    ds = raw["utility"].get("dataset")
    _valid("dataset", ds, ds in DATASETS)
    d = resolve_table("utility", raw["utility"], UTILITY_KEYS)
    eps = d["epsilon"]
    _valid("epsilon", eps, all(0 < e < math.inf for e in eps))
    _distinct("epsilon", eps)
    (runs,), (beta,), (seed,), (records,), (clip,), (meters,) = (
        d[k] for k in ("runs", "beta", "seed", "records", "clip", "meters")
    )
    _valid("runs", runs, 20 <= runs <= MAX_RUNS)
    _valid("beta", beta, 0 < beta < 1)
    _valid("seed", seed, 0 <= seed < 2**63)
    kind = kind_of(ds)
    mechs = DEFAULT_MECHS[kind] if d["mechanisms"] == [None] else d["mechanisms"]
    _valid("mechanisms", mechs, all(m in ALLOWED_MECHS[kind] for m in mechs))
    _distinct("mechanisms", mechs)
    thr = d["threshold"]
    _valid("threshold", thr, all(0 < t < math.inf for t in thr))
    _distinct("threshold", thr)
    split = d["split"]
    allowed = {"activity": ("all", "days"), "galton": ("all", "trios")}.get(ds, ("all",))
    _valid("split", split, all(s in allowed for s in split))
    _distinct("split", split)
    _valid("records", records, 10 <= records <= MAX_RECORDS)
    fam = d["family_size"]
    _valid("family_size", fam, all(2 <= f <= min(records, MAX_FAMILY) for f in fam))
    _distinct("family_size", fam)
    if clip is not None:
        _valid("clip", clip, len(clip) == 2 and all(abs(c) <= 1e12 for c in clip) and clip[0] < clip[1])
    _valid("meters", meters, meters in DS.METERS)
    return UtilityConfig(
        ds,
        tuple(eps),
        runs,
        beta,
        seed,
        tuple(mechs),
        tuple(thr),
        tuple(split),
        records,
        tuple(fam),
        None if clip is None else (clip[0], clip[1]),
        meters,
        raw,
    )


def describe_utility(cfg: UtilityConfig, source: str = "") -> list[str]:
    """Lines for ``bdpsim validate`` on a utility config."""
    return [
        f"{source or 'config'}: valid utility config, dataset {cfg.dataset}",
        f"  epsilon = [{', '.join(f'{e:g}' for e in cfg.epsilon)}]",
        f"  mechanisms = {list(cfg.mechanisms)}, runs = {cfg.runs}, split = {list(cfg.split)}, "
        f"seed = {cfg.seed}",
    ]


def load_utility(path) -> UtilityConfig:
    """Read and validate a utility config file (the same TOML loader as run configs)."""
    return parse_utility(load_toml(path))


# ------------------------------------------------------------------------------- variants


@dataclass(frozen=True)
class Variant:
    """One dataset variant: its true query value(s), sensitivity, n, m and fitted model."""

    dataset: str
    name: str
    truths: np.ndarray  # true query value per database (one, or one per day)
    sensitivity: float
    n: int
    m: int
    model: dict  # fitted parameters (for metadata and calibration)
    raw_truths: np.ndarray | None = None  # the query on unclipped records (None: nothing clipped)

    def clip_bias_mse(self) -> float:
        """Mean squared clipping bias ``mean((f(clip(D)) - f(D))^2)`` over the databases: what an
        MSE against the unclipped query adds to the noise's ``2 b^2`` (0 without clipping)."""
        return 0.0 if self.raw_truths is None else float(np.mean((self.truths - self.raw_truths) ** 2))


def variants(cfg: UtilityConfig, data_dir=None) -> list[Variant]:
    ds = cfg.dataset
    if ds == "galton":
        d = DS.load(ds, data_dir)
        fit = fit_gaussian({"child": d["child"], "father": d["father"], "mother": d["mother"]}, 3)
        out = []
        for sp in cfg.split:
            lo, hi = cfg.clip or CLIPS[f"galton/{sp}"]
            c, f, m = (np.clip(d[k], lo, hi) for k in ("child", "father", "mother"))
            if sp == "all":  # one database: every child's height (paper Fig. 4)
                out.append(
                    Variant(
                        ds,
                        "children (inches)",
                        np.array([c.sum()]),
                        hi - lo,
                        c.size,
                        3,
                        {**fit, "clip": [lo, hi]},
                        np.array([d["child"].sum()]),
                    )
                )
            else:  # one database of n = 3 per child: its trio with father and mother (thesis Fig. 18)
                out.append(
                    Variant(
                        ds,
                        f"trios, clip {lo:g}-{hi:g} in",
                        c + f + m,
                        hi - lo,
                        3,
                        3,
                        {**fit, "clip": [lo, hi]},
                        d["child"] + d["father"] + d["mother"],
                    )
                )
        return out
    if ds in ("kid_iq", "synthetic_iq"):
        d = (
            DS.load(ds, data_dir)
            if ds == "kid_iq"
            else DS.synthetic_iq(cfg.records, rng=seeds.stream(cfg.seed, 99))
        )
        lo, hi = cfg.clip or CLIPS["iq"]
        fit = fit_gaussian({"kid": d["kid"], "mom": d["mom"]}, 2)
        truth = np.clip(d["kid"], lo, hi).sum() + np.clip(d["mom"], lo, hi).sum()
        return [
            Variant(
                ds,
                "kids and mothers",
                np.array([truth]),
                hi - lo,
                2 * d["kid"].size,
                2,
                {**fit, "clip": [lo, hi]},
                np.array([d["kid"].sum() + d["mom"].sum()]),
            )
        ]
    if ds == "activity":
        d = DS.load(ds, data_dir)
        s = d["steps"]
        state = np.where(np.isnan(s), np.nan, (s > 0).astype(float))
        days = state.reshape(-1, 288)
        fit = fit_markov([state])
        fit.update(active=int(np.nansum(state)), records=int(np.isfinite(state).sum()), days=days.shape[0])
        out = []
        for sp in cfg.split:
            if sp == "all":  # n = m = the records counted (NA dropped, as the authors' script does)
                out.append(
                    Variant(
                        ds,
                        "complete data",
                        np.array([np.nansum(state)]),
                        1.0,
                        fit["records"],
                        fit["records"],
                        fit,
                    )
                )
            else:
                good = days[~np.isnan(days).any(axis=1)]
                out.append(
                    Variant(
                        ds,
                        "single days",
                        good.sum(axis=1),
                        1.0,
                        288,
                        288,
                        {**fit, "complete_days": int(good.shape[0])},
                    )
                )
        return out
    if ds == "electricity":
        return electricity_variants(DS.load_electricity(DS.fetch(ds, data_dir), cfg.meters), cfg.threshold)
    # genomic: synthetic pedigrees, count of genotype bb
    out = []
    for m in cfg.family_size:
        rng = seeds.stream(cfg.seed, 98, m)
        # thesis Def. 5.1 / Table 3: two Hardy–Weinberg founders + m - 2 children per family
        g = PedigreeModel.nuclear(m, 0.3).sample(max(1, cfg.records // m), rng).ravel()
        out.append(
            Variant(
                ds,
                f"family size m = {m}",
                np.array([float((g == 2).sum())]),
                1.0,
                g.size,
                m,
                {"family_size": m, "people": int(g.size), "allele_frequency_b": 0.3},
            )
        )
    return out


def electricity_variants(d: dict, thresholds) -> list[Variant]:
    """One variant per threshold: state 1 = a day whose energy exceeds the threshold (kWh), the
    days in order as one chain, transitions counted between consecutive retained days (the
    authors' ``utility_experiment.py``: across a missing day too; how many is recorded)."""
    out = []
    pos = d["kwh_whe"] > 0
    for t in thresholds:
        state = (d["kwh"] > t).astype(float)
        fit = fit_markov([state])
        fit.update(
            threshold_kwh=t,
            days=int(state.size),
            high_days=int(state.sum()),
            meters=d["meters"],
            gaps_bridged=int(np.sum(np.diff(d["day"]) != 1)),
            partial_days=int(np.sum(d["readings"] < 1440)),
            median_ratio_all_meters_to_whe=float(np.median(d["kwh_all"][pos] / d["kwh_whe"][pos]))
            if pos.any()
            else math.nan,
            preprocessing=DS.ELECTRICITY_PREPROCESSING[d["meters"]],
        )
        out.append(
            Variant("electricity", f"{t:g} kWh", np.array([state.sum()]), 1.0, state.size, state.size, fit)
        )
    return out


def kind_of(dataset: str) -> str:
    """``gaussian``, ``genomic`` or ``markov``: the model family a dataset's variants are fitted to."""
    return "gaussian" if dataset in GAUSSIAN_SETS else ("genomic" if dataset == "genomic" else "markov")


#: each model family's calibration model of a fitted variant (:func:`data_model`)
DATA_MODELS = {
    "markov": lambda v: MarkovChainModel(np.asarray(v.model["transition"], dtype=float), v.n),
    "gaussian": lambda v: GaussianGroups(v.n, v.m, float(v.model["rho"]), v.model["condition"]),
    "genomic": lambda v: RecordGroups(v.n, v.m),
}


def data_model(v: Variant):
    """The fitted model of a variant, as a calibration problem takes it: the Markov chain of ``n``
    records (stationary start), ``n`` records in groups of ``m`` equicorrelated Gaussian records
    (largest fitted ``|rho|``), or ``n`` records in families of ``m`` (genomic)."""
    return DATA_MODELS[kind_of(v.dataset)](v)


def _chain(v: Variant) -> bool:
    """Whether the variant's fitted model is a Markov chain (it has a transition matrix)."""
    return "transition" in v.model


def problem(v: Variant, eps: float) -> CalibrationProblem:
    """The calibration problem of one variant and target: its fitted model and a query whose
    per-record values span the sensitivity (``[0, Delta]``; a count: ``[0, 1]``). Exact BDPLs of
    the prescribed noise are not computed (only those the exact search computes anyway)."""
    return CalibrationProblem(data_model(v), np.array([0.0, v.sensitivity]), float(eps), evaluate=False)


#: Markov variants' calibrations, ``(mech, P, n, Delta, eps) -> Calibration``: variants and figures
#: share chains (the exact search and the optimal LP take seconds to minutes); deterministic, so a
#: calibration computed in a worker process (:func:`precompute`) is the one computed here
_CHAIN_CALIBRATIONS: dict = {}


def _chain_key(mech: str, eps: float, v: Variant) -> tuple:
    return (
        mech,
        tuple(map(tuple, np.asarray(v.model["transition"], dtype=float))),
        int(v.n),
        float(v.sensitivity),
        float(eps),
    )


def _chain_calibration(key: tuple):
    mech, P, n, sensitivity, eps = key
    model = MarkovChainModel(np.asarray(P, dtype=float), n)
    return CALIBRATION_METHODS[mech].calibrate(
        CalibrationProblem(model, np.array([0.0, sensitivity]), eps, evaluate=False)
    )


def calibration(mech: str, eps: float, v: Variant):
    """The registry's :class:`~bdpsim.calibration.Calibration` of ``mech`` for variant ``v``."""
    if _chain(v):
        key = _chain_key(mech, eps, v)
        if key not in _CHAIN_CALIBRATIONS:
            _CHAIN_CALIBRATIONS[key] = _chain_calibration(key)
        return _CHAIN_CALIBRATIONS[key]
    return CALIBRATION_METHODS[mech].calibrate(problem(v, eps))


def precompute(cfg: UtilityConfig, vs: Sequence[Variant], jobs: int = 1) -> None:
    """Compute the Markov variants' calibrations of a config in ``jobs`` processes (the optimal LPs
    and exact searches first); the rows are the same for any ``jobs`` (the noise draws happen after,
    in order)."""
    keys = [_chain_key(m, e, v) for v in vs if _chain(v) for m in cfg.mechanisms for e in cfg.epsilon]
    missing = sorted(
        (k for k in dict.fromkeys(keys) if k not in _CHAIN_CALIBRATIONS),
        key=lambda k: (k[0] != "optimal", k[0] != EXACT_METHOD),
    )
    if jobs > 1 and len(missing) > 1:
        from ..pipeline.backends import tasks

        out = list(tasks(_chain_calibration, ((k,) for k in missing), jobs))
        _CHAIN_CALIBRATIONS.update(zip(missing, out, strict=True))


def _exact_note(c, v: Variant) -> str:
    if c.scale is None:
        return c.reason
    return (
        f"exact calibration: smallest scale with exact BDPL <= eps over all adversaries of the fitted chain "
        f"(n = {v.n}), exact BDPL {c.bdpl:.6g}"
    )


def _optimal_note(c, v: Variant) -> str:
    if c.noise != "table" or c.bdpl is None:  # no table, or one not verified here: the method's reason
        return c.reason
    return (
        f"optimal integer noise: least E|Z| with exact BDPL <= eps over all adversaries of the fitted chain "
        f"(n = {v.n}), exact BDPL {c.bdpl:.6g}; noise_scale = E|Z|, tau = the table's DP epsilon"
    )


#: each row's note in the words of the paper's tables: ``(calibration, variant) -> note``
#: (a mechanism without an entry: the calibration's reason)
NOTES = {
    "dp": lambda c, v: "DP baseline: not BDP under correlation",
    "general": lambda c, v: "",
    "gaussian": lambda c, v: "" if c.scale is not None else v.model["condition"],
    "markov": lambda c, v: (
        "" if c.scale is not None else f"not reachable: eps <= 4 ln gamma = {v.model['four_ln_gamma']:.3f}"
    ),
    "zhao": lambda c, v: (
        "" if c.scale is not None else f"not reachable: eps <= 6 ln omega = {v.model['six_ln_omega']:.3f}"
    ),
    "exact": _exact_note,
    "optimal": _optimal_note,
}


def table_noise(c) -> TableNoise | None:
    """The table law a calibration prescribes (``optimal``), or ``None`` (Laplace, or none)."""
    if c.noise != "table" or not c.extra or "noise" not in c.extra:
        return None
    t = c.extra["noise"]
    return TableNoise(tuple(t["pmf"]), int(t["offset"]), float(t["tail_ratio"]))


def abs_quantile(noise: TableNoise, q: float) -> float:
    """The exact ``q`` quantile of ``|Z|`` for a table noise: the least integer ``a >= 0`` with
    ``P(|Z| <= a) >= q`` (table and geometric tails; ``P(|Z| <= a) = F(a) - F(-a - 1)``)."""
    a, width = 0, 64
    while True:
        ks = np.arange(a, a + width)
        mass = noise.cdf(ks.astype(float)) - noise.cdf((-ks - 1).astype(float))
        hit = np.flatnonzero(mass >= q)
        if hit.size:
            return float(ks[hit[0]])
        a, width = a + width, 2 * width


def calibrate(mech: str, eps: float, v: Variant) -> tuple[float, str]:
    """DP parameter ``tau`` of ``mech`` for target BDPL ``eps``, or ``nan`` with the reason (a
    table noise's ``tau``: its own DP epsilon; module docstring)."""
    c = calibration(mech, eps, v)
    note = NOTES.get(mech, lambda c, v: c.reason)(c, v)
    noise = table_noise(c)
    if noise is not None:
        return noise.dp_epsilon(v.sensitivity), note
    if c.scale is None:
        return math.nan, note
    return (c.tau if c.tau is not None else v.sensitivity / c.scale), note


def _variant_rows(cfg: UtilityConfig, vi: int, v: Variant) -> list[dict]:
    """The rows of variant ``vi`` (every mechanism and eps; a task of :class:`UtilityKind`): the
    noise of (variant, mechanism, eps) comes from its own seed stream, so a variant's rows do not
    depend on the others."""
    rows = []
    q = 1 - cfg.beta
    for mi, mech in enumerate(cfg.mechanisms):
        for ei, eps in enumerate(cfg.epsilon):
            tau, note = calibrate(mech, eps, v)
            noise = table_noise(calibration(mech, eps, v))
            base = {
                "dataset": cfg.dataset,
                "variant": v.name,
                "mechanism": mech,
                "epsilon": eps,
                "tau": tau,
                "sensitivity": v.sensitivity,
                "n": v.n,
                "m": v.m,
                "databases": int(v.truths.size),
                "runs": cfg.runs,
                "note": note,
                "clip_bias_mse": v.clip_bias_mse(),
                "true_value": float(v.truths.mean()),
            }
            if noise is None and not math.isfinite(tau):  # a table is drawn whatever its DP epsilon
                rows.append(
                    {
                        **base,
                        **{
                            k: math.nan
                            for k in (
                                "noise_scale",
                                "alpha_theory",
                                "alpha_empirical",
                                "mape",
                                "mse",
                                "mse_theory",
                            )
                        },
                    }
                )
                continue
            rng = seeds.stream(cfg.seed, DATASETS.index(cfg.dataset), vi, mi, ei)
            if noise is None:  # Laplace with the calibrated scale
                b = v.sensitivity / tau
                draws = rng.laplace(0.0, b, size=(v.truths.size, cfg.runs))  # runs per database
                theory = {
                    "noise_scale": b,
                    "alpha_theory": math.log(1 / cfg.beta) * b,
                    "mse_theory": 2 * b * b,
                }
            else:  # a table law (module docstring): its exact E|Z|, |Z| quantile and E Z^2
                draws = noise.sample((v.truths.size, cfg.runs), rng)
                _, mabs, sq = noise.moments()
                theory = {"noise_scale": mabs, "alpha_theory": abs_quantile(noise, q), "mse_theory": sq}
            err = np.abs(draws)  # |(truth + noise) - truth|
            with np.errstate(divide="ignore", invalid="ignore"):
                rel = err / np.abs(v.truths)[:, None]
            rel = rel[np.abs(v.truths) > 0]
            rows.append(
                {
                    **base,
                    "noise_scale": theory["noise_scale"],
                    "alpha_theory": theory["alpha_theory"],
                    "alpha_empirical": float(np.quantile(err, q)),
                    "mape": float(100 * rel.mean()) if rel.size else math.nan,
                    "mse": float(np.mean(err**2)),
                    "mse_theory": theory["mse_theory"],
                }
            )
    return rows


def _variant_key(cfg: UtilityConfig, v: Variant) -> str:
    """Content hash of a variant's task: the config (its fields, the raw table aside), the
    variant's name, fitted model and data (its true values): saved rows are reused only for the
    same inputs."""
    import dataclasses
    import hashlib
    import json

    fields = {k: val for k, val in dataclasses.asdict(cfg).items() if k != "raw"}

    def digest(a) -> str | None:
        return (
            None if a is None else hashlib.sha256(np.ascontiguousarray(a, dtype=float).tobytes()).hexdigest()
        )

    text = json.dumps(
        [fields, v.name, v.sensitivity, v.n, v.m, v.model, digest(v.truths), digest(v.raw_truths)],
        sort_keys=True,
        default=R.tables.json_default,
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class UtilityKind(RowsStudy):
    """The utility experiment as a study kind (:func:`bdpsim.pipeline.runner.run_study`): one unit
    per fitted variant (one task: its rows), the Markov variants' calibrations computed first in
    ``jobs`` processes (:func:`precompute`, for the variants to compute only); with an output
    directory each variant is saved in ``out/units/`` as it finishes, the table is
    ``utility.csv`` and ``metadata.json`` holds the config, the fits and the run's status."""

    name = "utility"
    noun = "variants"
    noun_one = "variant"

    def __init__(self, cfg: UtilityConfig, vs: Sequence[Variant], jobs: int = 1, source: str = "") -> None:
        self.cfg = cfg
        self.vs = list(vs)
        self.jobs = jobs
        self.source = source
        self.keys = [_variant_key(cfg, v) for v in self.vs]

    def units(self) -> list[Unit]:
        return [Unit(f"{vi:02d}", key) for vi, key in enumerate(self.keys)]

    def prepare(self, todo: Sequence[Unit]) -> None:
        precompute(self.cfg, [self.vs[int(u.id)] for u in todo], self.jobs)

    def tasks(self, unit: Unit, jobs: int) -> list[tuple[Callable, tuple]]:
        vi = int(unit.id)
        return [(_variant_rows, (self.cfg, vi, self.vs[vi]))]

    def finish(self, unit: Unit, results: list, log) -> list[dict]:
        return results[0]

    def metadata(self, jobs: int, backend: str) -> dict:
        fitted = {v.name: v.model for v in self.vs}
        return R.metadata(
            "utility",
            self.cfg.raw,
            self.cfg.seed,
            source=self.source,
            fitted=fitted,
            argv=sys.argv,
            jobs=self.jobs,
        )

    def tables(self, out: Path | None, done, status: str) -> list[dict]:
        rows = [r for u in self.units() if u.id in done for r in done[u.id]]
        if out is not None:
            R.atomic_write_text(Path(out) / "utility.csv", R.csv_text(rows, COLUMNS))
        return rows

    def remove_tables(self, out: Path) -> None:
        (Path(out) / "utility.csv").unlink(missing_ok=True)


def run_utility(
    cfg: UtilityConfig,
    data_dir=None,
    jobs: int = 1,
    out: str | Path | None = None,
    source: str = "",
    log: Callable[[str], None] | None = None,
) -> tuple[list[dict], list[Variant]]:
    """All rows of :data:`COLUMNS` for the config, and the fitted variants (``jobs``: processes for
    the Markov variants' calibrations, :func:`precompute`; the rows do not depend on it).

    Run by the one runner (:func:`bdpsim.pipeline.runner.run_study` of a :class:`UtilityKind`).
    With ``out``, each variant's rows are saved as they finish (``out/units/``), ``utility.csv``
    and ``metadata.json`` (``source``: the config file; the run's status) are written, and
    re-running resumes (a lock serialises runs into one ``out``)."""
    vs = variants(cfg, data_dir)
    kind = UtilityKind(cfg, vs, jobs, source)
    say = log if log is not None else (lambda m: print(m, file=sys.stderr, flush=True))
    rows = run_study(kind, out, jobs=1, progress=False, log=say)  # the tasks are cheap: in this process
    return rows, vs


def write_utility(
    out: Path, cfg: UtilityConfig, rows: list[dict], vs: list[Variant], source: str = ""
) -> list[Path]:
    out = Path(out)
    meta = R.metadata("utility", cfg.raw, cfg.seed, source=source, fitted={v.name: v.model for v in vs})
    R.atomic_write_text(out / "utility.csv", R.csv_text(rows, COLUMNS))
    R.atomic_write_text(out / "metadata.json", R.dumps(meta))
    return [out / "utility.csv", out / "metadata.json"]
