"""The plug-in contract, shipped with the package (as scikit-learn ships ``check_estimator``).

Every check takes one plug-in — a model kind (:class:`~bdpsim.models.base.ModelKind` instance), a
mechanism kind, a noise law class, an estimator class or a calibration method — and raises
:class:`AssertionError` naming the plug-in and what it breaks, or returns ``None``. A plug-in
author runs them in their own tests::

    from bdpsim.testing import check_model_kind
    check_model_kind(MyKind())             # after register_model_kind(MyKind())

or all of them over the live registries with :func:`bdpsim.testing.parametrize_with_checks`.
bdpsim's own tests call the same functions over every built-in kind.

Tolerances come from the sample size (chi-square and normal quantiles at a fixed seed); every
check runs in well under a second per kind (the exact-versus-mixture checks take a few).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any, cast

import numpy as np
from scipy import stats

from ..adversary import Adversary
from ..calibration.groups import GaussianGroups, RecordGroups
from ..calibration.methods import (
    CALIBRATION_METHODS,
    GUARANTEES,
    Calibration,
    CalibrationMethod,
    CalibrationProblem,
    calibrate,
    supported_methods,
)
from ..core.columns import Column  # (also re-exported for column checks)
from ..core.errors import ConfigError, NotAvailable
from ..core.schema import REQUIRED, Key, coerce
from ..estimators import ESTIMATORS, MixtureEstimator, exact_engine
from ..estimators.base import READ_BY_SOME
from ..kernels.noise.laws import NOISE_LAWS, LaplaceNoise, NoiseLaw, noise_from_params
from ..mechanisms import MECHANISM_KINDS, Mechanism
from ..mechanisms.base import NO_COLUMNS
from ..models import MODEL_KINDS, DiscreteModel, ExactEngine, MarkovChainModel, ModelSpec
from ..models.base import SampleCost
from ..models.engines import BdplScore, HasNoiseLaw, HasSearch, HasWindowSearch, ProfileScore, StackedScore
from ..models.protocols import HasGaussianConditional
from ..pipeline.config import parse_config
from ..pipeline.rows import ADVERSARY_SCHEMA, EXTRA_COLUMNS, SUMMARY_SCHEMA

RUN = {
    "adversaries": 3,
    "samples": 1000,
    "estimator": "kde",
    "noise_floor_adversaries": 0,
    "known_sizes": [1],
}
SEED = 20261124


def _expect(condition: object, message: object) -> None:
    """Raise :class:`AssertionError` with ``message`` (what is wrong, with the values) unless
    ``condition`` holds (a check, not an ``assert`` statement: it also runs under ``python -O``).
    The check running it adds which plug-in and which check (:func:`_checks`)."""
    if not condition:
        raise AssertionError(message)


def _name(entry: Any) -> str | None:
    """A plug-in's registered name (``None``: it has none)."""
    name = getattr(entry, "name", None)
    return name if isinstance(name, str) and name else None


def _checks(what: str, registry: Any) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Make a function a contract check of one ``what`` (``"model kind"``) of ``registry``: its
    failures name the plug-in and the check (``model kind 'copies' fails check_model_kind_exact:
    ...``), a plug-in that is not a registered ``what`` fails with a line saying so, and an
    exception the plug-in's own code raises (a ``ZeroDivisionError`` in its sampler, an
    ``AttributeError`` of an empty kind) fails the check naming the plug-in and the error, instead
    of escaping as itself."""

    def wrap(check: Callable[..., None]) -> Callable[..., None]:
        @functools.wraps(check)
        def run(entry: Any, *args: Any, **kwargs: Any) -> None:
            name = _name(entry)
            if name is None:
                raise AssertionError(f"{entry!r} is not a {what}: it has no name (a non-empty string)")
            label = f"{what} {name!r} fails {check.__name__}"
            held = registry.get(name)
            if not (held is entry or (not isinstance(entry, type) and type(held) is type(entry))):
                raise AssertionError(
                    f"{label}: it is not registered under its name (register it first: the checks "
                    "run it from a config, as bdpsim run does)"
                )
            try:
                check(entry, *args, **kwargs)
            except AssertionError as exc:
                if str(exc).startswith(f"{what} {name!r} fails "):  # a check it calls named it
                    raise
                raise AssertionError(f"{label}: {exc}") from exc
            except Exception as exc:  # the plug-in's own code failed: the check fails, naming it
                text = " ".join(str(exc).split())
                raise AssertionError(f"{label}: {type(exc).__name__}: {text}") from exc

        return run

    return wrap


def _close(actual: Any, expected: Any, rel: float = 1e-6, abs: float = 1e-12) -> bool:  # noqa: A002
    """``|actual - expected| <= max(rel |expected|, abs)`` elementwise (``pytest.approx``'s rule)."""
    a, e = np.asarray(actual, dtype=float), np.asarray(expected, dtype=float)
    with np.errstate(invalid="ignore"):
        ok = (a == e) | (np.abs(a - e) <= np.maximum(rel * np.abs(e), abs))
    return bool(np.all(ok))


def _model_example(kind) -> dict:
    _expect(kind.example, "it declares no example (ModelKind.example)")
    return dict(kind.example)


def _mechanism_for(kind) -> dict:
    """A mechanism every model kind takes, by its record domain."""
    return (
        {"kind": "count", "epsilon": 1.0}
        if kind.domain == "discrete"
        else {"kind": "clipped_sum", "epsilon": 1.0}
    )


def _run_table(estimator: str, run: dict) -> dict:
    """:data:`RUN` and ``run`` for ``estimator``, less the generic keys of :data:`RUN` it does not
    read (:attr:`bdpsim.estimators.base.Estimator.reads`: the run refuses them beside it)."""
    reads = ESTIMATORS[estimator].reads if estimator in ESTIMATORS else READ_BY_SOME
    base = {k: v for k, v in RUN.items() if k not in READ_BY_SOME or k in reads}
    return {**base, **run, "estimator": estimator}


def _point(model: dict, mechanism: dict, **run):
    """The configuration point, with the first registered estimator that takes the pair (unless
    ``run`` names one)."""
    if "estimator" in run:
        return parse_config(
            {"run": _run_table(run["estimator"], run), "model": model, "mechanism": mechanism}
        ).points[0]
    why = []
    for est in ESTIMATORS:
        try:
            return parse_config({"run": _run_table(est, run), "model": model, "mechanism": mechanism}).points[
                0
            ]
        except ConfigError as exc:
            why.append(str(exc))
    raise AssertionError(f"no estimator takes {model} with {mechanism}: {why}")


def _model_point(kind, **run):
    return _point({"kind": kind.name, **_model_example(kind)}, _mechanism_for(kind), **run)


def _mechanism_example(kind, example=None) -> dict:
    ex = example or kind.example
    _expect(ex, "it declares no example (MechanismKind.example)")
    return ex


def _mechanism_point(kind, example=None, **run):
    ex = _mechanism_example(kind, example)
    return _point(ex["model"], {"kind": kind.name, **ex["mechanism"]}, **run)


def check_keys(owner: str, keys) -> None:
    for name, key in keys.items():
        where = f"{owner}.{name}"
        _expect(isinstance(key, Key), f"{where} is a {type(key).__name__}, not a Key")
        _expect(key.doc.strip(), f"{where} has no doc string")
        _expect(key.rule.strip(), f"{where} has no constraint")
        if key.default is not None and key.default is not REQUIRED:  # a declared default is valid
            coerce(where, key, key.default)


def _exact_conditional(model, known: dict) -> tuple[list[tuple], np.ndarray]:
    """Every completion of ``known`` and its exact probability given ``known`` (brute force over
    the ``states^n`` tuples, by the model's own ``log_evidence``)."""
    free = [j for j in range(model.n) if j not in known]
    base = model.log_evidence(known)
    tuples, probs = [], []
    for vals in itertools.product(range(model.states), repeat=len(free)):
        full = dict(known) | dict(zip(free, vals, strict=True))
        tuples.append(tuple(full[j] for j in range(model.n)))
        probs.append(math.exp(model.log_evidence(full) - base))
    return tuples, np.array(probs)


def _chi_square_p(counts: np.ndarray, probs: np.ndarray) -> float:
    """p-value of a chi-square goodness of fit, the cells with expected count < 5 pooled into one
    (0 when a draw falls in a cell of probability 0)."""
    exp = probs * counts.sum()
    if counts[exp == 0].sum() > 0:
        return 0.0
    small = (exp < 5) & (exp > 0)
    c = np.concatenate([counts[exp >= 5], [counts[small].sum()] if small.any() else []])
    e = np.concatenate([exp[exp >= 5], [exp[small].sum()] if small.any() else []])
    if c.size < 2:
        return 1.0
    return float(stats.chisquare(c, e * c.sum() / e.sum()).pvalue)


@_checks("model kind", MODEL_KINDS)
def check_model_kind_sampling(kind):
    """Conditional sampling agrees with the model's exact law at small n: discrete models against
    the brute-force conditional of their ``log_evidence`` (chi-square, p > 1e-4 at a fixed seed);
    Gaussian models against their closed-form conditional mean and covariance (within 5 standard
    errors of 20 000 draws)."""
    point = _model_point(kind)
    rng = np.random.default_rng(SEED)
    checked = 0
    for j in range(3):
        model, adv = point.draw_adversary(np.random.default_rng([SEED, j]))
        known = adv.condition(adv.x)
        size = 20_000
        draws = model.sample_conditional(known, size, rng)
        _expect(
            draws.shape == (size, model.n),
            f"sample_conditional(size={size}) gave shape {draws.shape}, not ({size}, n = {model.n})",
        )
        for t, v in known.items():
            _expect(np.all(draws[:, t] == v), f"known record {t} = {v} not kept, for {adv}")
        if isinstance(model, DiscreteModel):
            _expect(
                model.n * math.log(model.states) <= math.log(5000),
                f"its example is too large to enumerate ({model.states}^{model.n} > 5000 tuples)",
            )
            tuples, probs = _exact_conditional(model, known)
            _expect(
                _close(probs.sum(), 1.0, abs=1e-9),
                f"the exact conditional law of {adv} sums to {float(probs.sum())!r}, not 1 (log_evidence)",
            )
            index = {t: k for k, t in enumerate(tuples)}
            counts = np.zeros(len(tuples))
            for row, c in zip(*np.unique(draws.astype(int), axis=0, return_counts=True), strict=True):
                counts[index[tuple(int(v) for v in row)]] += c
            _expect(
                (pv := _chi_square_p(counts, probs)) > 1e-4,
                f"conditional draws do not follow the exact law, for {adv} (chi-square p = {pv:.3g})",
            )
            checked += 1
        elif isinstance(model, HasGaussianConditional):
            cond = model.conditional(known)
            U = list(cond.unknown)
            X = draws[:, U]
            sd = np.sqrt(np.diag(cond.cov))
            _expect(
                np.all(np.abs(X.mean(axis=0) - cond.mean) <= 5 * sd / math.sqrt(size)),
                f"conditional means {X.mean(axis=0)} != {cond.mean} (5 standard errors), for {adv}",
            )
            # sample variances: standard error sd^2 sqrt(2/(N-1)) for normal data
            _expect(
                np.all(np.abs(X.var(axis=0, ddof=1) - sd**2) <= 5 * sd**2 * math.sqrt(2 / (size - 1))),
                f"conditional variances {X.var(axis=0, ddof=1)} != {sd**2} (5 standard errors), for {adv}",
            )
            checked += 1
        else:
            raise AssertionError(
                "no exact law to check its sampling against "
                "(implement DiscreteModel.log_evidence or HasGaussianConditional)"
            )
    _expect(checked == 3, f"{checked} of 3 adversaries checked")


def _brute_force_bdpl(model, mech, adv: Adversary) -> float:
    """Two-sided BDPL of an additive ``query + noise`` mechanism by enumerating the data tuples."""
    laws = []
    for target in (adv.x, adv.x_prime):
        tuples, probs = _exact_conditional(model, adv.condition(target))
        q = mech.query(np.array(tuples))
        atoms, inv = np.unique(q, return_inverse=True)
        laws.append((atoms, np.bincount(inv, weights=probs)))
    (a1, w1), (a2, w2) = laws
    return mech.noise.sup_log_ratio(a1, w1, a2, w2).value


@_checks("model kind", MODEL_KINDS)
def check_model_kind_exact(kind):
    """The kind's exact engine (or its reason for having none) on its example: against the brute
    force over every data tuple for discrete models, else against the mixture estimator within its
    interval."""
    point = _model_point(kind)
    model, mech = point.model.probe(), point.mechanism
    try:
        eng = kind.exact(model, mech)
    except NotAvailable as exc:
        _expect(str(exc).strip(), "an empty reason for having no exact engine")
        return
    _expect(isinstance(eng, ExactEngine), f"exact() gave a {type(eng).__name__}, not an ExactEngine")
    compared = 0
    for j in range(4):
        m, adv = point.draw_adversary(np.random.default_rng([SEED, 1, j]))
        try:
            value = eng.bdpl(adv).value
        except NotAvailable:
            continue
        if isinstance(m, DiscreteModel):
            brute = _brute_force_bdpl(m, mech, adv)
            _expect(
                _close(value, brute, rel=1e-7, abs=1e-9),
                f"the exact engine gives BDPL {float(value)!r} for {adv}, the brute force over every data "
                f"tuple {float(brute)!r} (relative tolerance 1e-7)",
            )
        else:
            est = MixtureEstimator(200_000).estimate(m, mech, adv, np.random.default_rng([SEED, 2, j]))
            _expect(
                abs(est.value - value) <= 5 * est.se + 1e-3,
                f"the exact engine gives BDPL {float(value)!r} for {adv}, the mixture estimator "
                f"{float(est.value)!r} (standard error {float(est.se)!r}; 5 of them allowed)",
            )
        compared += 1
    _expect(compared >= 1 or eng.incomplete, "the exact engine answered no adversary")


@_checks("model kind", MODEL_KINDS)
def check_model_kind_cost(kind):
    """Cost finite and non-negative; ``accepts``/``windows``/``supports`` give None or a reason;
    the bounds are Bound values keyed as documented."""
    name = kind.name
    point = _model_point(kind)
    spec = point.model
    _expect(
        isinstance(spec, ModelSpec) and spec.owner is kind and spec.kind == name,
        f"build() gave {spec!r}, not a ModelSpec of kind {name!r} owned by the kind",
    )
    cost = kind.cost(spec)
    _expect(isinstance(cost, SampleCost), f"cost() gave a {type(cost).__name__}, not a SampleCost")
    for v in (cost.per_sample, cost.exact, cost.model_bytes, cost.exact_bytes, cost.draw):
        _expect(math.isfinite(v) and v >= 0, f"cost {cost}: a value not finite and >= 0")
    setup = kind.setup_cost({k: None for k in kind.keys} | _model_example(kind))
    _expect(
        setup is None or (len(setup) == 3 and all(math.isfinite(float(x)) for x in setup[:2])),
        f"setup_cost() gave {setup!r}, not None or (work, bytes, what) with finite numbers",
    )
    for mk in MECHANISM_KINDS.values():
        why = kind.accepts(mk)
        _expect(why is None or (isinstance(why, str) and why.strip()), f"accepts({mk.name}) gave {why!r}")
    why = kind.windows(spec)
    _expect(why is None or (isinstance(why, str) and why.strip()), f"windows() gave {why!r}")
    for est in ESTIMATORS.values():
        why = est.supports(spec.probe(), point.mechanism)
        _expect(why is None or (isinstance(why, str) and why.strip()), f"estimator {est.name}: {why!r}")
    check_declared(
        f"model kind {name}", kind.summary_columns, kind.summary_extras(spec), kind.adversary_extras(spec)
    )
    own = {oc.column.name for oc in kind.summary_columns}
    for cell in kind.summary_cells(spec):  # columns it owns, or extra columns it registered and names
        _expect(cell in own or cell in kind.summary_extras(spec), f"cell {cell!r} is not declared")
    bounds = kind.bounds(spec, point.mechanism, point.epsilon)
    _expect(
        set(bounds) <= {"model", "zhao", "lower"}, f"bounds {sorted(bounds)}: keys beyond model, zhao, lower"
    )
    for key, b in bounds.items():
        _expect(
            (math.isnan(b.value) and b.reason) or b.value >= 0,
            f"bound {key!r} = {b!r}: NaN without a reason, or < 0",
        )


@_checks("model kind", MODEL_KINDS)
def check_model_kind_window_rows(kind):
    """An all-adversary search's rows (``ExactEngine.window``) satisfy ``WindowRow``: their
    ``table_row()`` gives exactly the adversary columns (no node names: the driver adds those from
    the model), ``adversary()`` the adversary with that target, and ``bdpl`` its value."""
    from bdpsim.models.protocols import WindowRow

    point = _model_point(kind)
    try:
        eng = kind.exact(point.model.probe(), point.mechanism)
    except NotAvailable:
        return
    if not isinstance(eng, HasWindowSearch):
        return
    _, rows, values = eng.window(1, 3)
    _expect(len(rows) >= 1 and np.size(values) >= 1, "window(1, 3) gave no rows")
    for w in rows:
        _expect(isinstance(w, WindowRow), f"{type(w).__name__} is not a WindowRow")
        cells = set(w.table_row())
        _expect(
            cells == {"i", "known", "x_known", "x", "x_prime"},
            f"table_row() has {sorted(cells)}, not i, known, x_known, x, x_prime",
        )
        _expect(
            w.adversary().i == w.i and w.table_row()["i"] == w.i and math.isfinite(w.bdpl),
            f"row {w!r}: its adversary's target, its table's i and i disagree, or its bdpl is not finite",
        )


def _all_adversary_laws(model, mech, min_known: int):
    """Every adversary ``(i, K, x_K, {x, x'})`` with ``|K| >= min_known`` of a small discrete model
    whose two conditions have positive probability, with the two laws of the query (brute force:
    one enumeration of every data tuple, weighted by the model's own ``log_evidence``)."""
    cards = [int(c) for c in getattr(model, "record_states", None) or [model.states] * model.n]
    n = len(cards)
    tuples = np.array(list(itertools.product(*(range(c) for c in cards))), dtype=np.int64)
    logp = np.array([model.log_evidence(dict(enumerate(map(int, t)))) for t in tuples])
    prob = np.exp(logp - logp.max())
    q = np.asarray(mech.query(tuples), dtype=float)
    atoms, inv = np.unique(np.round(q, 9), return_inverse=True)
    out = []
    for i in range(n):
        others = [j for j in range(n) if j != i]
        for k in range(min_known, n):
            for K in itertools.combinations(others, k):
                for xk in itertools.product(*(range(cards[j]) for j in K)):
                    match = np.all(tuples[:, list(K)] == np.array(xk, dtype=np.int64), axis=1)
                    laws = [
                        np.bincount(inv, weights=prob * (match & (tuples[:, i] == v)), minlength=atoms.size)
                        for v in range(cards[i])
                    ]
                    for x, xp in itertools.combinations(range(cards[i]), 2):
                        w1, w2 = laws[x], laws[xp]
                        if w1.sum() > 0 and w2.sum() > 0:
                            out.append((Adversary(i, K, xk, x, xp), w1 / w1.sum(), w2 / w2.sum()))
    return atoms, out


@_checks("model kind", MODEL_KINDS)
def check_model_kind_search(kind):
    """An engine with the search over every adversary (:class:`~bdpsim.models.engines.HasSearch`)
    and another noise law (:class:`~bdpsim.models.engines.HasNoiseLaw`), on the kind's example: one
    search of a two-component score (the BDPL and the privacy profile at ``eps = 0.5``) gives each
    component's supremum over every adversary by brute force (the query's laws from the model's
    ``log_evidence`` over every data tuple, the noise law's ``sup_log_ratio`` and
    ``hockey_stick``), for ``|K| >= 0`` with the kind's noise and ``|K| >= 1`` with another
    (``with_noise``: Laplace of scale 2), and an adversary attaining it; the engine's ``law_pairs``
    give the same largest BDPL. The windows, regions or classes a reduced search scores stand for
    every adversary, so any mistake in the reduction shows."""
    name = kind.name
    point = _model_point(kind)
    model, mech = point.model.probe(), point.mechanism
    try:
        eng = kind.exact(model, mech)
    except NotAvailable:
        return
    if not isinstance(eng, HasSearch):
        return
    _expect(isinstance(eng, HasNoiseLaw), f"{name}: an engine with a search has no with_noise")
    _expect(
        isinstance(model, DiscreteModel), f"{name}: a search over every adversary of a model without states"
    )
    eps = 0.5
    score = StackedScore(BdplScore(), ProfileScore(eps))
    for min_known, noise in ((0, eng.noise), (1, LaplaceNoise(2.0))):
        found = eng.with_noise(noise).search(score, min_known, top=3)
        _expect(
            found.names == ("bdpl", f"delta({eps:g})") and found.value.shape == (2,),
            f"a search of (bdpl, delta({eps:g})) gave names {found.names} and values {found.value}",
        )
        atoms, advs = _all_adversary_laws(model, mech, min_known)
        best = {}
        for adv, w1, w2 in advs:
            b = noise.sup_log_ratio(atoms, w1, atoms, w2).value
            d = max(
                noise.hockey_stick(atoms, w1, atoms, w2, eps), noise.hockey_stick(atoms, w2, atoms, w1, eps)
            )
            key = (adv.i, adv.known, adv.x_known)
            best[key + (adv.x, adv.x_prime)] = best[key + (adv.x_prime, adv.x)] = (b, d)
        brute = np.max(np.array(list(best.values())), axis=0)
        _expect(
            _close(found.value, brute, rel=1e-7, abs=1e-9),
            f"{name}: search {found.value} != brute force {brute} (every adversary, |K| >= {min_known})",
        )
        for k, w in enumerate(found.worst):
            a = w.adversary()
            got = best.get((a.i, tuple(a.known), tuple(a.x_known), a.x, a.x_prime))
            _expect(got is not None, f"{name}: the worst adversary {a} is not an adversary of the model")
            _expect(
                _close(got[k], found.value[k], rel=1e-7, abs=1e-9),
                f"the worst adversary {a} of {found.names[k]} has {got[k]} by brute force, the search "
                f"{found.value[k]}",
            )
        pairs = eng.with_noise(noise).law_pairs(min_known)
        v, _ = noise.grid_sup(pairs.W1, pairs.W2, pairs.step)
        _expect(_close(np.max(np.abs(v)), found.value[0], rel=1e-7, abs=1e-9), f"{name}: law pairs' BDPL")


@_checks("mechanism kind", MECHANISM_KINDS)
def check_mechanism_kind_runs(kind, example=None):
    """The example builds; the mechanism maps a batch ``(N, n)`` to ``N`` outputs (first axis),
    deterministically for a seed; its columns and extras are registered; epsilon is None or > 0;
    every estimator answers None or a reason."""
    name = kind.name
    point = _mechanism_point(kind, example)
    mech = point.mechanism
    _expect(isinstance(mech, Mechanism), f"build() gave a {type(mech).__name__}, not a Mechanism")
    data = point.model.probe().sample(7, np.random.default_rng(SEED))
    out1 = np.asarray(mech(data, np.random.default_rng(1)))
    out2 = np.asarray(mech(data, np.random.default_rng(1)))
    _expect(
        out1.shape[:1] == (7,) and np.array_equal(out1, out2),
        f"7 data tuples gave outputs of shape {out1.shape} (7 first), or different ones at one seed",
    )
    _expect(
        set(NO_COLUMNS) <= set(mech.columns()),
        f"columns() lacks {sorted(set(NO_COLUMNS) - set(mech.columns()))}",
    )
    _expect(
        mech.epsilon is None or (math.isfinite(mech.epsilon) and mech.epsilon > 0),
        f"epsilon = {mech.epsilon!r}: neither None nor a finite number > 0",
    )
    for extra in mech.summary_extras:
        _expect(extra in EXTRA_COLUMNS["summary"], f"column {extra!r} not registered")
    check_declared(f"mechanism kind {name}", (), mech.summary_extras, ())
    mode, rng_ = mech.adversary_targets("uniform")
    _expect(isinstance(mode, str), f"adversary_targets('uniform') gave mode {mode!r}, not a string")
    for est in ESTIMATORS.values():
        why = est.supports(point.model.probe(), mech)
        _expect(why is None or (isinstance(why, str) and why.strip()), f"estimator {est.name}: {why!r}")


@_checks("mechanism kind", MECHANISM_KINDS)
def check_mechanism_kind_exact(kind, example=None):
    """Where the model has an exact engine for the mechanism, the exact BDPL of one adversary lies
    within the mixture estimator's interval (5 standard errors) whenever the mixture applies, and
    below the general bound ``m eps`` when the mechanism is eps-DP."""
    point = _mechanism_point(kind, example)
    model, mech = point.model.probe(), point.mechanism
    try:  # the mechanism's own engine first (exact_engine), else the model kind's
        eng = exact_engine(model, mech)
    except NotAvailable as exc:
        _expect(str(exc).strip(), "an empty reason for having no exact engine")
        return
    for j in range(20):  # an engine may answer only some adversaries (``incomplete``)
        m, adv = point.draw_adversary(np.random.default_rng([SEED, 3, j]))
        try:
            value = eng.bdpl(adv).value
            break
        except NotAvailable:
            continue
    else:
        _expect(eng.incomplete, "the exact engine answered none of 20 adversaries")
        return
    if mech.epsilon:
        bound = point.model.m * mech.epsilon
        _expect(
            value <= bound * (1 + 1e-9) + 1e-12,
            f"the exact BDPL {float(value)!r} of {adv} exceeds the general bound m eps = {float(bound)!r}",
        )
    if MixtureEstimator.supports(m, mech) is None:
        est = MixtureEstimator(200_000).estimate(m, mech, adv, np.random.default_rng([SEED, 4]))
        _expect(
            abs(est.value - value) <= 5 * est.se + 1e-3,
            f"the exact engine gives BDPL {float(value)!r} for {adv}, the mixture estimator "
            f"{float(est.value)!r} (standard error {float(est.se)!r}; 5 of them allowed)",
        )


def example_law(cls) -> NoiseLaw:
    name = cls.name
    if hasattr(cls, "example"):
        return cls.example()
    for params in ({"epsilon": 1.0}, {"sigma": 1.0}):
        try:
            return noise_from_params(name, **params)
        except ValueError:  # a parameter the law does not take (a kernel's ParameterError)
            continue
    raise AssertionError("no example (give the class an example() classmethod)")


@_checks("noise law", NOISE_LAWS)
def check_noise_law_density(cls):
    """pmf/pdf sums/integrates to 1 and matches the cdf; sampling follows the cdf (KS at a fixed
    seed); the exact sup of the log-ratio of two mixtures is the grid's maximum (and +inf only when
    the grid's keeps growing); the batched ``grid_sup`` and the pair ``sup_log_ratio`` agree, and so
    do ``grid_delta`` and ``hockey_stick``."""
    name = cls.name
    law = example_law(cls)
    _expect(
        isinstance(law, NoiseLaw) and law.name == name,
        f"its example {law!r} is not a NoiseLaw named {name!r}",
    )
    same = law.with_parameter(law.parameter).parameter
    _expect(same == law.parameter, f"with_parameter({law.parameter!r}).parameter = {same!r}")
    step = float(getattr(law, "step", 1.0))
    if law.discrete:
        y = np.arange(-400, 401) * step
        mass = np.exp(law.log_density(y))
        _expect(_close(mass.sum(), 1.0, abs=1e-9), f"the pmf sums to {float(mass.sum())!r}, not 1")
        _expect(_close(law.cdf(y[:-1]), np.cumsum(mass)[:-1], abs=1e-9), "cdf != the cumulated pmf")
    else:
        y = np.linspace(-60, 60, 240_001)
        dens = np.exp(law.log_density(y))
        # trapezoid rule, step 5e-4: error <= 1e-3 across the jumps of a staircase density
        total = np.trapezoid(dens, y)
        _expect(_close(total, 1.0, abs=1e-3), f"the density integrates to {float(total)!r}, not 1")
        mid = y[::2000]
        _expect(
            _close(
                law.cdf(mid),
                [np.trapezoid(dens[: k * 2000 + 1], y[: k * 2000 + 1]) for k in range(mid.size)],
                abs=1e-3,
            ),
            "cdf != the integrated density (to 1e-3)",
        )
    draws = np.asarray(law.sample(20_000, np.random.default_rng(SEED)))
    _expect(draws.shape == (20_000,), f"sample(20000) gave shape {draws.shape}, not (20000,)")
    if law.discrete:
        ks = np.abs(np.searchsorted(np.sort(draws), y, side="right") / draws.size - law.cdf(y)).max()
    else:
        ks = stats.kstest(draws, law.cdf).statistic
    crit = 1.95 / math.sqrt(draws.size)  # the KS 0.999 quantile
    _expect(ks <= crit, f"samples do not follow the cdf (Kolmogorov-Smirnov {ks:.4g} > {crit:.4g})")
    atoms1, w1 = np.array([0.0, 1.0, 3.0]), np.array([0.5, 0.3, 0.2])
    atoms2, w2 = np.array([0.0, 1.0, 3.0]), np.array([0.2, 0.3, 0.5])
    exact = law.sup_log_ratio(atoms1, w1, atoms2, w2)
    grid = np.arange(-3000, 3001) * step / 100 if law.discrete else np.linspace(-30, 33, 63_001)
    p1 = np.logaddexp.reduce(np.log(w1)[:, None] + law.log_density(grid[None, :] - atoms1[:, None]), axis=0)
    p2 = np.logaddexp.reduce(np.log(w2)[:, None] + law.log_density(grid[None, :] - atoms2[:, None]), axis=0)
    both = np.isfinite(p1) & np.isfinite(p2)
    on_grid = float(np.max(np.abs(p1[both] - p2[both])))
    _expect(
        exact.value >= on_grid - 1e-6,
        f"sup_log_ratio {float(exact.value)!r} < the grid's maximum {on_grid!r}",
    )
    if math.isfinite(exact.value):
        _expect(
            exact.value <= on_grid + 1e-3,
            f"sup_log_ratio {float(exact.value)!r} > the grid's maximum {on_grid!r}",
        )
    W1, W2 = np.array([[0.5, 0.3, 0.0, 0.2]]), np.array([[0.2, 0.3, 0.0, 0.5]])
    val, _ = law.grid_sup(W1, W2, 1.0)
    _expect(
        _close(abs(val[0]), exact.value, rel=1e-6) or (math.isinf(val[0]) and math.isinf(exact.value)),
        f"grid_sup {float(val[0])!r} != sup_log_ratio {float(exact.value)!r}",
    )
    d = law.grid_delta(W1, W2, 1.0, 0.1)[0]
    hs = law.hockey_stick(atoms1, w1, atoms2, w2, 0.1)
    _expect(_close(d, hs, rel=1e-6, abs=1e-12), f"grid_delta {float(d)!r} != hockey_stick {float(hs)!r}")
    _expect(0 <= d <= 1, f"grid_delta {float(d)!r} outside [0, 1]")


@_checks("noise law", NOISE_LAWS)
def check_noise_law_keys(cls):
    """A law's config keys (``keys``) each have a doc and a rule and are keys of every query kind;
    its ``mean_abs()`` is ``E|Z|``: checked against the mean of 400 000 samples, within 5 standard
    errors (seeded)."""
    from bdpsim.mechanisms import MECHANISM_KINDS

    for key, spec in cls.keys.items():
        _expect(spec.doc and spec.rule, f"key {key!r} lacks a doc or a rule")
        for kind in MECHANISM_KINDS.values():  # every kind that takes a noise law takes its keys
            if "noise" in kind.keys:
                _expect(kind.keys.get(key) is spec, f"key {key!r} is not a key of mechanism kind {kind.name}")
    law = example_law(cls)
    z = np.abs(law.sample(400_000, np.random.default_rng([SEED, 36])))
    _expect(
        abs(z.mean() - law.mean_abs()) <= 5 * z.std() / math.sqrt(z.size),
        f"mean_abs() = {float(law.mean_abs())!r}, the samples' mean |Z| {float(z.mean())!r} "
        "(5 standard errors)",
    )


@_checks("noise law", NOISE_LAWS)
def check_noise_law_flags(cls):
    """``calibratable``: the law has an amount ``with_parameter`` changes (a table does not);
    ``pure_dp`` of a calibratable law: its ``dp_epsilon`` for a sensitivity of one step is finite.
    ``bdpsim calibrate markov --noise`` takes exactly the calibratable laws."""
    from bdpsim.cli import build_parser

    name = cls.name
    _expect(
        isinstance(cls.calibratable, bool) and isinstance(cls.pure_dp, bool),
        f"calibratable = {cls.calibratable!r}, pure_dp = {cls.pure_dp!r}: not both bools",
    )
    law = example_law(cls)
    argv = ["calibrate", "markov", "--gamma", "2", "--n", "3", "--epsilon", "1", "--noise", name]
    if cls.calibratable:
        twice = law.with_parameter(2 * law.parameter).parameter
        _expect(
            _close(twice, 2 * law.parameter), f"with_parameter({2 * law.parameter!r}).parameter = {twice!r}"
        )
        dp = law.dp_epsilon(float(getattr(law, "step", 1.0)))
        _expect(cls.pure_dp == math.isfinite(dp), f"pure_dp = {cls.pure_dp} but dp_epsilon(step) = {dp!r}")
        _expect(build_parser().parse_args(argv).noise == name, "calibrate markov --noise does not take it")
    else:
        try:
            build_parser().parse_args(argv)
        except SystemExit:
            return
        raise AssertionError("not calibratable, yet calibrate markov --noise takes it")


@_checks("estimator", ESTIMATORS)
def check_estimator_independent_records(cls):
    """Independent records: the BDPL is the DP epsilon. Every estimator supports a Laplace count on
    an i.i.d. chain; its ``reference`` is that epsilon; an estimate with a standard error lies within
    5 of them of it (exact estimators: equal); a certified lower bound (``bdpl_lower``) lies below
    it; ``cost`` is finite; ``summary`` fills registered cells."""
    name = cls.name
    point = _point(
        {"kind": "markov", "n": 3, "transition": [[0.5, 0.5], [0.5, 0.5]]},
        {"kind": "count", "epsilon": 1.0},
        estimator=name,
        **({"samples": 20_000} if "samples" in cls.reads else {}),
        **({"adversaries": "all"} if cls.exact else {}),
    )
    est = point.estimator()
    _expect(isinstance(est, cls), f"the point's estimator is a {type(est).__name__}")
    model, mech = point.model.probe(), point.mechanism
    why = est.supports(model, mech)
    _expect(why is None, f"does not support a Laplace count on an i.i.d. chain: {why}")
    adv = Adversary(0, (1,), (1,), 0, 1)
    e = est.estimate(model, mech, adv, np.random.default_rng(SEED))
    ref = est.reference(model, mech, adv).value
    _expect(_close(ref, 1.0, rel=1e-9), f"reference {float(ref)!r} for {adv}, not the DP epsilon 1")
    _expect(math.isfinite(e.value), f"estimate {e!r} for {adv} is not finite")
    if cls.exact:
        _expect(
            _close(e.value, 1.0, rel=1e-9),
            f"exact estimate {float(e.value)!r} for {adv}, not the DP epsilon 1",
        )
    elif e.se is not None and math.isfinite(e.se):
        _expect(
            abs(e.value - ref) <= 5 * e.se + 1e-9,
            f"estimate {float(e.value)!r} (standard error {float(e.se)!r}) for {adv}, the true BDPL 1 "
            "(5 of them allowed)",
        )
    if "bdpl_lower" in e.extra:
        low = e.extra["bdpl_lower"]
        _expect(low <= ref + 1e-9, f"certified lower bound {float(low)!r} above the true BDPL {float(ref)!r}")
    from bdpsim.estimators import CostContext

    ctx = CostContext(
        adversaries=10,
        conditions=2,
        n=3,
        per_sample=3,
        law=9.0,
        law_bytes=100.0,
        chunk=65_536,
        continuous=False,
    )
    work, mem = est.cost(ctx)
    _expect(
        math.isfinite(work) and work >= 0 and math.isfinite(mem) and mem >= 0,
        f"cost() = ({work!r}, {mem!r}): not finite and >= 0",
    )
    cells = est.summary(
        {
            "bdpl": np.array([e.value]),
            "null_bdpl": np.array([np.nan]),
            "exact": np.array([1.0]),
            "nonpositive_points": np.zeros(1),
            "bdpl_se": np.array([e.se]),
            "samples": np.array([20_000.0]),
        }
    )
    _expect(isinstance(cells, dict), f"summary() gave a {type(cells).__name__}, not a dict")
    for k in est.summary_extras:
        _expect(k in EXTRA_COLUMNS["summary"], f"extra column {k!r} is not registered")
    check_keys(f"run[{name}]", cls.keys)


def check_declared(label: str, owned, summary_extras, adversary_extras) -> None:
    """A kind's declared columns: the ones it owns (``summary_columns``: in every summary.csv)
    placed after a core column, typed, documented, declared once, colliding with no core or extra
    column; its extras registered (:func:`bdpsim.core.columns.register_columns`), documented, with their
    owner, and none of them a core or owned column."""
    core = {c.name for c in SUMMARY_SCHEMA}
    names = [oc.column.name for oc in owned]
    _expect(len(names) == len(set(names)), f"{label}: a summary column declared twice: {names}")
    for oc in owned:
        c = oc.column
        _expect(oc.after in core, f"{label}: {c.name!r} is placed after {oc.after!r}, not a core column")
        _expect(c.name not in core, f"{label}: {c.name!r} is a core column")
        _expect(c.name not in EXTRA_COLUMNS["summary"], f"{label}: {c.name!r} is also an extra column")
        _expect(
            c.dtype in (str, int, float) and c.meaning.strip(), f"{label}: {c.name!r} untyped or undocumented"
        )
    for table, extras, base in (
        ("summary", summary_extras, core),
        ("adversaries", adversary_extras, {c.name for c in ADVERSARY_SCHEMA}),
    ):
        _expect(len(set(extras)) == len(tuple(extras)), f"{label}: an extra {table} column named twice")
        for k in extras:
            c = EXTRA_COLUMNS[table].get(k)
            _expect(c is not None, f"{label}: extra {table} column {k!r} is not registered")
            _expect(k not in base and k not in names, f"{label}: extra {table} column {k!r} collides")
            c = cast(Column, c)  # registered (just checked)
            _expect(
                c.meaning.strip() and c.owner,
                f"{label}: extra {table} column {k!r} undocumented or ownerless",
            )


@_checks("estimator", ESTIMATORS)
def check_estimator_columns(cls):
    """Every registered estimator's columns are declared (:func:`check_declared`) and its
    ``summary`` fills only core cells, the columns it owns and its extras."""
    name = cls.name
    point = _point(
        {"kind": "markov", "n": 3, "gamma": 2.0},
        {"kind": "count", "epsilon": 1.0},
        estimator=name,
        **({"adversaries": "all"} if cls.exact else {}),
    )
    est = point.estimator()
    check_declared(f"estimator {name}", cls.summary_columns, est.summary_extras, est.adversary_extras)
    nan = np.array([np.nan])
    cells = est.summary(
        {
            "bdpl": np.array([1.0]),
            "null_bdpl": nan,
            "exact": np.array([1.0]),
            "nonpositive_points": np.zeros(1),
            "bdpl_se": np.array([0.1]),
            "samples": np.array([1e3]),
            "bdpl_ci_low": np.array([0.9]),
            "bdpl_ci_high": np.array([1.1]),
        }
    )
    allowed = (
        {c.name for c in SUMMARY_SCHEMA}
        | {oc.column.name for oc in cls.summary_columns}
        | set(est.summary_extras)
    )
    _expect(set(cells) <= allowed, f"fills undeclared cells {sorted(set(cells) - allowed)}")


CONTRACT_CHAIN = MarkovChainModel(np.array([[0.6, 0.4], [0.35, 0.65]]), 5)


@_checks("calibration method", CALIBRATION_METHODS)
def check_calibration_method_chain(m):
    """Every method of the one registry is a :class:`CalibrationMethod` (name, doc, guarantee,
    ``supports``, ``calibrate``). On a small chain it returns a Calibration, never an exception:
    not applicable (with the reason ``supports`` gives) or a noise. A method that claims eps-BDP
    (and the Pufferfish mechanisms, on this chain) prescribes noise whose exact BDPL is at most the
    target, and no Laplace scale below the exact method's smallest eps-BDP one; the DP baseline's
    BDPL is at least eps (the DP adversary alone leaks Delta / b = eps)."""
    method = m.name
    _expect(
        isinstance(m, CalibrationMethod) and m.name == method and m.doc.strip(),
        "not a CalibrationMethod with a name and a doc",
    )
    _expect(m.guarantee in GUARANTEES, f"guarantee {m.guarantee!r} is not one of {sorted(GUARANTEES)}")
    chain, eps = CONTRACT_CHAIN, 2.0
    why = m.supports(CalibrationProblem(chain, np.array([0.0, 1.0]), eps))
    _expect(why is None or (isinstance(why, str) and why.strip()), f"supports() gave {why!r}")
    cal = calibrate(chain, eps, method=method)
    _expect(
        isinstance(cal, Calibration) and cal.method == method and cal.reason.strip(),
        f"gave {cal!r}, not a Calibration of method {method!r} with a reason",
    )
    if why is not None:
        _expect(
            cal.scale is None and cal.bdpl is None and cal.reason == f"not applicable: {why}",
            f"not applicable ({why}), yet gave {cal!r}",
        )
        _expect(method not in supported_methods(chain), "not applicable, yet among supported_methods")
        return
    _expect(method in supported_methods(chain), "applicable, yet not among supported_methods")
    if cal.scale is None and cal.bdpl is None:  # defined on chains, but not for this target: says why
        return
    _expect(cal.bdpl is not None and math.isfinite(cal.bdpl), f"no finite BDPL in {cal!r}")
    if m.guarantee == "dp":
        _expect(cal.bdpl >= eps * (1 - 1e-9), f"a DP baseline below eps = {eps}: {cal!r}")
    else:
        _expect(
            cal.bdpl <= eps * (1 + 1e-6), f"claims {eps}-BDP, yet its exact BDPL is {cal.bdpl!r}: {cal!r}"
        )
    if cal.scale is None:  # a noise of its own shape (optimal): its E|Z| is what it pays
        _expect(cal.mean_abs is not None and cal.mean_abs > 0, f"no scale and no E|Z| > 0: {cal!r}")
        return
    _expect(math.isfinite(cal.scale) and cal.scale > 0, f"scale {cal.scale!r} is not finite and > 0")
    if m.guarantee != "dp":
        exact = calibrate(chain, eps, method="exact")
        _expect(
            cal.scale >= exact.scale * (1 - 1e-6),
            f"scale {cal.scale!r} below the least {eps}-BDP Laplace scale {exact.scale!r}",
        )


@_checks("calibration method", CALIBRATION_METHODS)
def check_calibration_method_groups(m):
    """On groups of correlated records (the utility experiment's Gaussian and genomic data) every
    method answers with a Calibration: a chain-only method is not applicable, the bounds give their
    known scales (general: Delta m / eps; Gaussian with rho = 0: Delta / eps; DP: Delta / eps)."""
    method = m.name
    eps, delta = 2.0, 3.0
    for model in (RecordGroups(100, 4), GaussianGroups(100, 3, 0.0, "rho (m - 2) = 0 < 1")):
        p = CalibrationProblem(model, np.array([0.0, delta]), eps)
        cal = m.calibrate(p)
        _expect(
            isinstance(cal, Calibration) and cal.method == method and cal.bdpl is None,
            f"on {type(model).__name__}: gave {cal!r}, not a Calibration of method {method!r} without a BDPL",
        )
        why = m.supports(p)
        if why is not None:
            _expect(
                cal.scale is None and cal.reason == f"not applicable: {why}",
                f"on {type(model).__name__}: not applicable ({why}), yet gave {cal!r}",
            )
            continue
        _expect(
            cal.scale is not None and cal.tau is not None,
            f"on {type(model).__name__}: no scale or tau: {cal!r}",
        )
        _expect(
            _close(cal.scale, delta / cal.tau, rel=1e-12),
            f"on {type(model).__name__}: scale {cal.scale!r} != Delta / tau = {delta / cal.tau!r}",
        )
        expect = {"general": delta * model.m / eps, "dp": delta / eps, "gaussian": delta / eps}
        if method in expect:
            _expect(
                _close(cal.scale, expect[method], rel=1e-12),
                f"on {type(model).__name__}: scale {cal.scale!r}, known {expect[method]!r}",
            )


def check_calibration_method(m) -> None:
    """Every calibration check: on a small chain and on groups of records."""
    check_calibration_method_chain(m)
    check_calibration_method_groups(m)


def check_model_kind(kind) -> None:
    """Every model-kind check: keys, conditional sampling against the exact law, the exact engine
    against brute force (or the mixture), cost/bounds/answers, window rows, the search over every
    adversary with a score and another noise law against brute force."""
    for check in MODEL_KIND_CHECKS:
        check(kind)


def check_mechanism_kind(kind, example: dict | None = None) -> None:
    """Every mechanism-kind check (``example``: ``{"model": ..., "mechanism": ...}`` tables for a
    kind that declares no ``example`` of its own)."""
    for check in MECHANISM_KIND_CHECKS:
        check(kind, example)


def check_noise_law(cls) -> None:
    """Every noise-law check: normalised, exact sups against a grid, keys and E|Z|, flags."""
    for check in NOISE_LAW_CHECKS:
        check(cls)


def check_estimator(cls) -> None:
    """Every estimator check: independent records (BDPL = epsilon), declared columns."""
    for check in ESTIMATOR_CHECKS:
        check(cls)


@_checks("model kind", MODEL_KINDS)
def check_model_kind_keys(kind) -> None:
    """Every config key of the kind has a default (valid), a rule and a doc."""
    check_keys(f"model[{kind.name}]", kind.keys)


@_checks("mechanism kind", MECHANISM_KINDS)
def check_mechanism_kind_keys(kind, example: dict | None = None) -> None:
    """Every config key of the kind has a default (valid), a rule and a doc."""
    check_keys(f"mechanism[{kind.name}]", kind.keys)


MODEL_KIND_CHECKS: tuple[Callable[[Any], None], ...] = (
    check_model_kind_keys,
    check_model_kind_sampling,
    check_model_kind_exact,
    check_model_kind_cost,
    check_model_kind_window_rows,
    check_model_kind_search,
)
MECHANISM_KIND_CHECKS: tuple[Callable[..., None], ...] = (
    check_mechanism_kind_keys,
    check_mechanism_kind_runs,
    check_mechanism_kind_exact,
)
NOISE_LAW_CHECKS: tuple[Callable[[Any], None], ...] = (
    check_noise_law_density,
    check_noise_law_keys,
    check_noise_law_flags,
)
ESTIMATOR_CHECKS: tuple[Callable[[Any], None], ...] = (
    check_estimator_independent_records,
    check_estimator_columns,
)
CALIBRATION_CHECKS: tuple[Callable[[Any], None], ...] = (
    check_calibration_method_chain,
    check_calibration_method_groups,
)


def all_checks(mechanism_examples: dict[str, dict] | None = None) -> Iterator[tuple[str, Callable[[], None]]]:
    """``(id, check)`` for every check of every plug-in in the LIVE registries (kinds registered by
    the caller included): the model kinds, mechanism kinds, noise laws, estimators and calibration
    methods. ``mechanism_examples`` gives examples for mechanism kinds that have none."""
    ex = mechanism_examples or {}
    for name, kind in sorted(MODEL_KINDS.items()):
        for check in MODEL_KIND_CHECKS:
            yield f"{check.__name__}[{name}]", partial(check, kind)
    for name, mk in sorted(MECHANISM_KINDS.items()):
        for check in MECHANISM_KIND_CHECKS:
            yield f"{check.__name__}[{name}]", partial(check, mk, ex.get(name))
    for name, law in sorted(NOISE_LAWS.items()):
        for check in NOISE_LAW_CHECKS:
            yield f"{check.__name__}[{name}]", partial(check, law)
    for name, est in sorted(ESTIMATORS.items()):
        for check in ESTIMATOR_CHECKS:
            yield f"{check.__name__}[{name}]", partial(check, est)
    for name, method in sorted(CALIBRATION_METHODS.items()):
        for check in CALIBRATION_CHECKS:
            yield f"{check.__name__}[{name}]", partial(check, method)
