"""Certified lower bounds on the BDPL of a black-box mechanism (DP-Sniper-style two-sample audit).

For an adversary ``(i, K, x_K, x, x')`` and any output event ``S``,
``BDPL_adv >= ln P(S | x_K, x) / P(S | x_K, x')``. With ``N`` fresh conditional samples per side
and event counts ``k, k'``, the exact one-sided Clopper–Pearson bounds ``p_low = CP_lower(k, N,
alpha/2)`` and ``q_high = CP_upper(k', N, alpha/2)`` hold jointly with probability ``>= 1 - alpha``
(union bound), so ``max(0, ln p_low / q_high)`` is a lower bound at level ``1 - alpha`` — provided
``S`` (and ``N``) were chosen without looking at those samples. Hence the two-sample design:

1. *selection*: a fraction of the budget (default 20 %) is drawn per side and an event is chosen
   on it (:func:`bdpsim.kernels.audit.events.select_event`: threshold/interval events for scalar outputs,
   single
   outputs and thresholds for discrete ones, a fitted logistic score for vectors), together with the
   number of certification samples (:func:`plan_certification`, from the selection counts only);
2. *certification*: fresh samples, counted in chunks (memory independent of the budget), give the
   Clopper–Pearson bound and a point estimate of the selected event's log-ratio with its standard
   error (delta method: ``se^2 = (1 - p)/k + (1 - q)/k'``).

Adaptivity is therefore valid by construction: everything adaptive (event, direction, score,
certification size, which adversaries) depends on selection samples only, which are independent of
the certification samples. Per configuration (:func:`certify_top`, :func:`audit_configuration`) the
adversaries are ranked by their predicted certified bound on selection samples and the ``top``
ones are certified at ``alpha / top`` each on fresh samples: the maximum of their bounds is a lower
bound on the configuration's BDPL at level ``1 - alpha`` (union bound over the ``top`` certified).

**What the point estimate estimates.** ``ln p_hat / q_hat`` on the certification part estimates the
selected event's log-ratio ``ln P(S|x)/P(S|x')``, which is ``<=`` the adversary's BDPL and equal to
it when the supremum over outputs is attained on an event of the family (for scalar outputs: in a
tail — e.g. every ``{y >= t}`` beyond the largest atom of a Laplace count; for discrete outputs:
always, since ``sup_S P(S)/Q(S) = max_v P(v)/Q(v)``). When a count is 0 the Haldane–Anscombe
correction (add 1/2 to each count) is used and flagged.

**Selection rule, measured** (study script not committed; the numbers are recorded in
``SELECTION_STUDY``). Two Laplace(1) mixtures ``1 + Bin(14, 0.3)`` vs ``Bin(14, 0.15)`` whose BDPL
3.6098 is attained only in the upper tail (``y -> inf``); certified bound at alpha = 0.05, all of the
budget spent (``tol = 0``); mean (sd) over 20 repeats at 1e5 and 1e6 calls, 6 at 1e7:

===========================  ==============  ==============  ==============
rule (level), split          1e5             1e6             1e7
===========================  ==============  ==============  ==============
plugin, 20/80                2.705 (0.376)   2.939 (0.398)   3.009 (0.197)
plugin, 50/50                1.914 (0.743)   2.027 (1.061)   2.301 (1.177)
conservative (1e-3), 20/80   2.973 (0.115)   3.348 (0.077)   3.473 (0.022)
conservative (1e-3), 50/50   2.995 (0.096)   3.323 (0.072)   3.444 (0.076)
predicted (1e-3), 20/80      2.970 (0.119)   3.332 (0.077)   3.471 (0.032)
predicted (1e-3), 50/50      2.944 (0.061)   3.298 (0.050)   3.453 (0.035)
predicted (0.05), 20/80      2.986 (0.122)   3.347 (0.079)   3.446 (0.079)
===========================  ==============  ==============  ==============

The plug-in overfits (it certifies *less* with a larger selection part:
more thresholds where the ``x'`` count came out low). Scoring by a strict Clopper–Pearson level
(``conservative``) or by the predicted certified bound (``predicted``) are equivalent within
noise; a 20/80 split is as good as or better than 50/50 from 1e6 calls on. Default:
``rule="predicted"``, ``level=1e-3``, ``selection_fraction=0.2`` (``predicted`` also ranks
adversaries by what they can certify at the planned size, which the configuration-level search
needs).

**Relation to the literature.** DP-Sniper (Bichsel et al., S&P 2021, github.com/eth-sri/dp-sniper):
trains a classifier (logistic regression or MLP) on ``n_train`` samples of ``M(a), M(a')`` to
estimate ``P(a | y)``, picks the threshold so that the ``a'``-probability of the event is a fixed
``c`` (0.01 by default: it never estimates probabilities below ``c``), estimates ``eps`` per input
pair on ``n_check`` samples, keeps the best pair and certifies it on ``n_final`` fresh samples with
Clopper–Pearson at ``(1 - confidence)/2`` per side (``dpsniper/probability/estimators.py``,
``binomial_cdf.py``). bdpsim does the same split (select on one part, certify the chosen event and
the chosen adversary on fresh samples with exact Clopper–Pearson bounds), but chooses thresholds
over the whole range including rare tails (no floor ``c``: for correlated data the worst events are
often in tails of probability 1e-4 .. 1e-6), scores them by the bound they would certify at the
planned size, and plans that size from the selection counts. google ``dp_auditorium``
(github.com/google/differential-privacy, ``python/dp_auditorium``): testers (histogram,
hockey-stick with a keras classifier, MMD, Rényi) split each sample into train/test parts, fit on
one and bound a divergence on the other (Hoeffding for the hockey-stick tester), with dataset pairs
proposed by a black-box optimiser (Vizier) over trials; each trial's bound holds at its own failure
probability with no correction across trials — bdpsim corrects for the adversaries it certifies.
Steinke, Nasr & Jagielski (NeurIPS 2023, "Privacy auditing with one (1) training run"): one run
with ``m`` canaries each included independently with probability 1/2; the number of correct
membership guesses is dominated by a binomial of randomized response, giving an ``eps`` lower bound
from one run. It needs independent inclusion of many records; BDP's adversaries on correlated data
are conditional laws given ``x_K`` with the target fixed to ``x`` or ``x'`` — no independent
randomisation to exploit — so bdpsim uses the two-sample test per adversary. What differs from
all three: the two output samples come from the data model's exact *conditional* sampler
``X_U ~ pi(. | x_K, x_i)`` (unknown records integrated out), and the quantity bounded is
``sup_S ln P(S | x_K, x) / P(S | x_K, x')`` for that adversary, not the DP epsilon over neighbouring
datasets.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..argcheck import require
from .binomial import (  # noqa: F401 (re-exported)
    certified_log_ratio,
    check_alpha,
    clopper_pearson_lower,
    clopper_pearson_upper,
    predicted_bound,
)
from .events import Event, Selection, check_outputs, select_event

Sampler = Callable[[int, np.random.Generator], np.ndarray]
_CHUNK = 1_000_000

# The study in the module docstring: rule/split -> budget -> (mean, sd) of the certified bound.
SELECTION_STUDY: dict[str, dict[int, tuple[float, float]]] = {
    "plugin, 20/80": {10**5: (2.705, 0.376), 10**6: (2.939, 0.398), 10**7: (3.009, 0.197)},
    "plugin, 50/50": {10**5: (1.914, 0.743), 10**6: (2.027, 1.061), 10**7: (2.301, 1.177)},
    "conservative 1e-3, 20/80": {10**5: (2.973, 0.115), 10**6: (3.348, 0.077), 10**7: (3.473, 0.022)},
    "conservative 1e-3, 50/50": {10**5: (2.995, 0.096), 10**6: (3.323, 0.072), 10**7: (3.444, 0.076)},
    "predicted 1e-3, 20/80": {10**5: (2.970, 0.119), 10**6: (3.332, 0.077), 10**7: (3.471, 0.032)},
    "predicted 1e-3, 50/50": {10**5: (2.944, 0.061), 10**6: (3.298, 0.050), 10**7: (3.453, 0.035)},
    "predicted 0.05, 20/80": {10**5: (2.986, 0.122), 10**6: (3.347, 0.079), 10**7: (3.446, 0.079)},
}


def plan_certification(
    selection: Selection, n_max: int, alpha: float, tol: float = 0.01, level: float = 1e-3
) -> int:
    """Certification samples per side: the smallest ``N <= n_max`` (on a grid of ratios
    ``2^{-k/4}``) whose predicted bound is within ``tol`` nats of the prediction at ``n_max``;
    computed from the selection counts only."""
    if n_max < 1:
        return 0
    pc = clopper_pearson_lower(selection.k_num, selection.n_num, level)
    qc = clopper_pearson_upper(selection.k_den, selection.n_den, level)
    grid = np.unique(np.maximum(1, (n_max * 2.0 ** (-np.arange(0, 41) / 4.0)).astype(np.int64)))
    pred = np.asarray(predicted_bound(pc, qc, grid, alpha))
    ok = grid[pred >= pred[-1] - tol]
    return int(ok[0]) if pred[-1] > 0 else int(n_max)


# ----------------------------------------------------------------------------- certification


@dataclass(frozen=True, eq=False)
class Certificate:
    """A certified bound for one event: ``lower`` at level ``1 - alpha``; ``estimate`` ``±`` ``se``
    of the event's log-ratio (``corrected``: a zero count needed the +1/2 correction)."""

    lower: float
    estimate: float
    se: float
    k_num: int
    n_num: int
    k_den: int
    n_den: int
    alpha: float
    event: Event | None
    corrected: bool = False


def point_estimate(k_num, n_num, k_den, n_den) -> tuple[float, float, bool]:
    """Plug-in ``ln (k/n) / (k'/n')`` with delta-method ``se = sqrt((1-p)/k + (1-q)/k')``; with a zero
    count, the Haldane–Anscombe version (1/2 added to every count)."""
    if k_num == 0 or k_den == 0:
        a, b, c, d = k_num + 0.5, n_num + 0.5, k_den + 0.5, n_den + 0.5
        return math.log(a / b) - math.log(c / d), math.sqrt(max(1 / a - 1 / b + 1 / c - 1 / d, 0.0)), True
    p, q = k_num / n_num, k_den / n_den
    return math.log(p / q), math.sqrt((1 - p) / k_num + (1 - q) / k_den), False


def certify_counts(
    event: Event | None, k_num: int, n_num: int, k_den: int, n_den: int, alpha: float
) -> Certificate:
    """Certificate from counts of an event on certification samples."""
    if n_num < 1 or n_den < 1:
        return Certificate(0.0, math.nan, math.nan, k_num, n_num, k_den, n_den, float(alpha), event)
    lower = certified_log_ratio(k_num, n_num, k_den, n_den, alpha)
    est, se, corr = point_estimate(k_num, n_num, k_den, n_den)
    return Certificate(
        float(lower), est, se, int(k_num), int(n_num), int(k_den), int(n_den), float(alpha), event, corr
    )


def count_event(event: Event, draw: Sampler, n: int, rng: np.random.Generator, chunk: int = _CHUNK) -> int:
    """``#{y in S}`` over ``n`` fresh draws, sampled in chunks of at most ``chunk``."""
    k, left = 0, int(n)
    while left > 0:
        m = min(chunk, left)
        k += int(np.count_nonzero(event.contains(check_outputs(draw(m, rng), m, "draw output"))))
        left -= m
    return k


def certify(
    event: Event,
    draw_x: Sampler,
    draw_xp: Sampler,
    n: int,
    alpha: float,
    rng: np.random.Generator,
    chunk: int = _CHUNK,
) -> Certificate:
    """Draw ``n`` fresh outputs per side, count the event and certify it (``2 n`` mechanism calls)."""
    kx = count_event(event, draw_x, n, rng, chunk)
    kxp = count_event(event, draw_xp, n, rng, chunk)
    num, den = (kx, kxp) if event.direction > 0 else (kxp, kx)
    return certify_counts(event, num, n, den, n, alpha)


# ----------------------------------------------------------------------------- one adversary


@dataclass(frozen=True, eq=False)
class AuditResult:
    """Audit of one adversary: the certificate, the selection it came from and the budget used
    (mechanism calls, both sides, selection included)."""

    lower: float
    estimate: float
    se: float
    budget_used: int
    selection: Selection | None
    certificate: Certificate | None
    reason: str = ""


def _split(budget: int, fraction: float) -> tuple[int, int]:
    n_sel = int(fraction * budget) // 2
    n_cert = (int(budget) - 2 * n_sel) // 2
    return n_sel, n_cert


def _check_budget(budget, fraction, alpha) -> None:
    ok = bool(isinstance(budget, (int, np.integer)) and not isinstance(budget, bool) and budget >= 0)
    require(ok, "budget", budget, "must be an integer >= 0 (mechanism calls)")
    require(0 < fraction < 1, "selection_fraction", fraction, "must be in (0, 1)")
    check_alpha(alpha)


def audit_adversary(
    draw_x: Sampler,
    draw_xp: Sampler,
    budget: int,
    alpha: float,
    rng: np.random.Generator,
    selection_fraction: float = 0.2,
    rule: str = "predicted",
    level: float = 1e-3,
    kind: str = "auto",
    tol: float = 0.01,
    min_selection: int = 20,
) -> AuditResult:
    """Certified lower bound (level ``1 - alpha``) on one adversary's BDPL within ``budget`` calls.

    ``draw_x(m, rng)`` / ``draw_xp(m, rng)`` return ``m`` mechanism outputs on conditional data
    tuples with the target at ``x`` / ``x'`` (each call = ``m`` mechanism calls). A budget too small
    for ``min_selection`` selection samples per side gives ``lower = 0`` (not an error).
    """
    _check_budget(budget, selection_fraction, alpha)
    n_sel, n_max = _split(budget, selection_fraction)
    if n_sel < min_selection or n_max < 1:
        return AuditResult(
            0.0,
            math.nan,
            math.nan,
            0,
            None,
            None,
            f"budget {budget} too small to certify anything (epsilon_lower = 0)",
        )
    yx = check_outputs(draw_x(n_sel, rng), n_sel, "draw_x output")
    yxp = check_outputs(draw_xp(n_sel, rng), n_sel, "draw_xp output")
    sel = select_event(yx, yxp, n_max, alpha, rule=rule, level=level, kind=kind)
    n_cert = plan_certification(sel, n_max, alpha, tol=tol, level=level)
    cert = certify(sel.event, draw_x, draw_xp, n_cert, alpha, rng)
    return AuditResult(cert.lower, cert.estimate, cert.se, 2 * (n_sel + n_cert), sel, cert)


# ----------------------------------------------------------------------------- configuration


@dataclass(frozen=True, eq=False)
class ConfigurationAudit:
    """``lower``: a lower bound on the configuration's BDPL at level ``1 - alpha`` as a whole;
    ``adversary``: index of the adversary giving it (``-1`` if none); ``certified``: indices of the
    certified adversaries with their certificates (each at ``alpha / len(certified)``)."""

    lower: float
    estimate: float
    se: float
    adversary: int
    budget_used: int
    certified: tuple[tuple[int, Certificate], ...]
    predicted: tuple[float, ...]
    reason: str = ""


def certify_top(
    selections: Sequence[Selection],
    samplers: Sequence[tuple[Sampler, Sampler]],
    n_cert: int,
    alpha: float,
    rng: np.random.Generator,
    top: int = 1,
) -> ConfigurationAudit:
    """Certify the ``top`` adversaries with the largest predicted bounds (from their selection
    results ``selections``, computed on selection samples the caller drew) on ``n_cert`` fresh
    samples per side each, at ``alpha / top`` each; the max is valid at ``1 - alpha`` overall."""
    require(
        len(selections) == len(samplers) and len(samplers) >= 1,
        "selections",
        len(selections),
        f"need one selection per sampler pair ({len(samplers)})",
    )
    require(isinstance(top, int) and top >= 1, "top", top, "must be an integer >= 1")
    pred = np.array([s.predicted for s in selections])
    order = np.argsort(-pred, kind="stable")[: min(top, len(selections))]
    a = float(check_alpha(alpha)) / len(order)
    certs = []
    for i in order:
        dx, dxp = samplers[int(i)]
        certs.append((int(i), certify(selections[int(i)].event, dx, dxp, n_cert, a, rng)))
    best = max(certs, key=lambda t: t[1].lower)
    used = 2 * n_cert * len(order)
    return ConfigurationAudit(
        best[1].lower,
        best[1].estimate,
        best[1].se,
        best[0] if best[1].lower > 0 else -1,
        used,
        tuple(certs),
        tuple(float(p) for p in pred),
    )


def audit_configuration(
    samplers: Sequence[tuple[Sampler, Sampler]],
    budget: int,
    alpha: float,
    rng: np.random.Generator,
    top: int = 1,
    selection_fraction: float = 0.2,
    rule: str = "predicted",
    level: float = 1e-3,
    kind: str = "auto",
    min_selection: int = 20,
) -> ConfigurationAudit:
    """Select on ``selection_fraction * budget`` calls spread evenly over the adversaries, certify
    the ``top`` most promising on the rest (:func:`certify_top`). ``samplers[i] = (draw_x,
    draw_xp)`` of adversary ``i``."""
    _check_budget(budget, selection_fraction, alpha)
    A = len(samplers)
    require(A >= 1, "samplers", A, "need at least one adversary")
    m = max(1, min(top, A))
    n_sel = int(selection_fraction * budget) // (2 * A)
    n_cert = (int(budget) - 2 * n_sel * A) // (2 * m)
    if n_sel < min_selection or n_cert < 1:
        return ConfigurationAudit(
            0.0,
            math.nan,
            math.nan,
            -1,
            0,
            (),
            (),
            f"budget {budget} too small for {A} adversaries (epsilon_lower = 0)",
        )
    sels = []
    for dx, dxp in samplers:
        yx = check_outputs(dx(n_sel, rng), n_sel, "draw_x output")
        yxp = check_outputs(dxp(n_sel, rng), n_sel, "draw_xp output")
        sels.append(select_event(yx, yxp, n_cert, float(alpha) / m, rule=rule, level=level, kind=kind))
    res = certify_top(sels, samplers, n_cert, alpha, rng, top=m)
    return ConfigurationAudit(
        res.lower,
        res.estimate,
        res.se,
        res.adversary,
        res.budget_used + 2 * n_sel * A,
        res.certified,
        res.predicted,
    )
