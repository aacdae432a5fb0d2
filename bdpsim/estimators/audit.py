"""``estimator = "audit"``: a certified lower bound on the BDPL of any mechanism, run as a black box.

The audit never looks inside the mechanism: it draws data tuples from the data model's exact
conditional sampler (``model.sample_conditional``), runs the mechanism on each
(``mechanism(data, rng)``, one *mechanism call* per tuple) and counts outputs in events. Any
mechanism works — ``query + noise`` of every noise law, randomized response, a histogram with a
vector output, a user's ``kind = "python"`` function. What it reports:

**Per adversary** (``adversaries.csv.gz``), from ``audit_search * audit_budget / adversaries``
calls: an event ``S`` of outputs chosen on 20 % of the calls (thresholds ``{y >= t}``, ``{y <= t}``
and intervals for scalar outputs, single values for discrete ones, a fitted likelihood-ratio score
for vector outputs; :mod:`bdpsim.kernels.audit.events`), then on the other 80 %, fresh,

* ``bdpl_lower``: ``ln(p_low / q_high)`` with exact Clopper–Pearson bounds at ``audit_alpha / 2``
  each — a lower bound on *this adversary's* (two-sided) BDPL at level ``1 - audit_alpha``;
* ``bdpl`` ± ``bdpl_se``: the point estimate ``ln(p_hat / q_hat)`` of the event's log-ratio
  ``ln P(S | x_K, x) / P(S | x_K, x')`` (or the reverse, whichever the event bounds) with its
  delta-method standard error ``sqrt((1 - p)/k + (1 - q)/k')``. It estimates the *event's*
  log-ratio: at most the adversary's BDPL, and equal to it when the supremum over outputs is
  attained on the event — always for discrete outputs (a single output is an event), in a tail for
  a count plus Laplace or geometric noise (every ``{y >= t}`` beyond the largest atom);
* ``audit_calls`` and ``audit_score`` (the bound the adversary is predicted to certify with the
  configuration's final certification size: what ranks the adversaries).

**Per configuration** (``summary.csv``, :meth:`AuditEstimator.finish`): ``bdpl_lower``, a lower
bound on the configuration's BDPL that holds at level ``1 - audit_alpha`` *as a whole*. Everything
adaptive happens on samples that are never used to certify: (1) the per-adversary audits above
rank the adversaries (``audit_score``); (2) successive halving
(:mod:`bdpsim.kernels.audit.search`) spends 20 % of the remaining budget on the
``audit_candidates`` best: each round gives every remaining candidate fresh samples (pooled with
its earlier ones), lets it choose its event on the pool and predict the bound it would certify,
and keeps the better half, until ``audit_top`` remain; (3) those are certified on fresh samples
(the rest of the budget), each at ``audit_alpha / audit_top`` (Bonferroni), and ``bdpl_lower`` is
the largest certified bound. The certification size is planned from the selection counts (no more
calls than improve the bound by 0.01 nats), so a rare tail gets the budget it needs and an easy
case stops early; ``audit_calls`` is what was used, at most ``audit_budget``. ``bdpl_audit`` ±
``bdpl_audit_se`` is that certificate's point estimate (the certified event's log-ratio, as
above), ``audit_adversary`` its index and ``audit_exact`` its exact BDPL where an exact engine
exists. A budget too small to select and certify gives ``bdpl_lower = 0`` and says so in
``audit_note`` — never an error. Same config and seed, same numbers for any ``--jobs``: the
per-adversary audits use the adversaries' own streams, the configuration's work a stream of its
own (:meth:`bdpsim.pipeline.config.ExperimentPoint.stream`).

**Adversaries.** Any adversary's certified bound is a valid lower bound, so the family is free:
``run.adversary_family = "random"`` (the thesis' random known sets) or ``"windows"`` (know
everything outside a random window around the target, where the worst adversary of an additive
query on a chain is, by the window reduction of :mod:`bdpsim.models.markov.window`; the Markov
kind offers it). On the activity chain (n = 288, count + Lap(1), exact BDPL 3.4749, attained with 7
unknown records each side and everything else known) the thesis' random known sets do draw
adversaries whose *exact* BDPL is close (up to 3.466 among 60), but with unknown records scattered
along the chain their leakage sits in far tails that no affordable sample certifies; window
adversaries have a short unknown segment, and the audit certifies 3.37 of 3.47 within 10^8 calls in
all (``scripts/benchmarks/benchmark_audit.py``, ``results/benchmarks/audit.md``).

**What bdpsim does differently from the literature** (details and sources in
:mod:`bdpsim.kernels.audit.certificates`). DP-Sniper (Bichsel et al. 2021), Google's ``dp_auditorium`` and
Steinke, Nasr & Jagielski (2023) audit *differential privacy*: neighbouring datasets of
independent records, with the output laws of two fixed inputs (DP-Sniper, dp_auditorium) or of
randomly included canaries (Steinke et al.). bdpsim audits *Bayesian* DP on correlated data: the
two laws compared are ``p(y | x_K, x)`` and ``p(y | x_K, x')`` with the unknown records drawn from
the data model's exact conditional law given the adversary's knowledge — each output needs a fresh
conditional data tuple — and the supremum is over adversaries ``(i, K, x_K, x, x')``, searched by
the adversary family. It chooses events over the whole output range including rare tails
(DP-Sniper never estimates probabilities below 0.01; correlated data's worst events are often
1e-4 .. 1e-6 tails), scores them by the bound they would certify at the planned size, and keeps one
``alpha`` for the configuration by certifying only what was selected on other samples, with a
Bonferroni split over the certified adversaries (dp_auditorium reports each trial at its own
level). It needs no independent randomisation of inclusion, which Steinke et al.'s one-run audit
relies on and BDP's conditional adversaries do not have.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..core.columns import Column, OwnedColumn, register_columns
from ..core.errors import NotAvailable, check, naming
from ..core.schema import Key
from ..kernels.audit import certify
from ..kernels.audit.binomial import clopper_pearson_lower, clopper_pearson_upper, predicted_bound
from ..kernels.audit.certificates import audit_adversary, plan_certification
from ..kernels.audit.events import Event, check_outputs
from ..kernels.audit.search import successive_halving
from .base import CostContext, Estimate, register_estimator
from .exact import adversary_bdpl

#: share of the budget left after the per-adversary search that chooses the final events (the
#: kernels' measured 20/80 selection/certification split,
# :data:`bdpsim.kernels.audit.certificates.SELECTION_STUDY`)
SELECTION_FRACTION = 0.2
#: least selection samples per side before anything is chosen (below: nothing certified)
MIN_SELECTION = 20
#: conservative level of the selection counts when ranking (the kernels' ``level``)
RANK_LEVEL = 1e-3

SUMMARY_COLUMNS = register_columns(
    "summary",
    Column(
        "bdpl_lower",
        float,
        "audit: lower bound on the configuration's BDPL at level 1 - audit_alpha as a "
        "whole (the largest certified bound of the audit_top adversaries selected on "
        "earlier samples and certified on fresh ones at audit_alpha / audit_top each); "
        "0 when nothing could be certified",
    ),
    Column(
        "bdpl_audit",
        float,
        "audit: point estimate of the log-ratio ln P(S ; x_K, x) / P(S ; x_K, x') of "
        "the certified event S on the certification samples (<= that adversary's BDPL; "
        "equal when the supremum over outputs is attained on S)",
    ),
    Column("bdpl_audit_se", float, "audit: its standard error (delta method)"),
    Column("audit_alpha", float, "audit: the level's alpha (run.audit_alpha)"),
    Column("audit_budget", int, "audit: mechanism calls allowed for the configuration (run.audit_budget)"),
    Column(
        "audit_calls",
        int,
        "audit: mechanism calls used in all: per-adversary search, selection, certification",
    ),
    Column("audit_adversary", int, "audit: index of the adversary certified (the largest bound's; -1: none)"),
    Column("audit_event", str, "audit: the certified event (for a vector output: of its fitted score)"),
    Column(
        "audit_exact", float, "audit: exact two-sided BDPL of that adversary, where an exact engine exists"
    ),
    Column("audit_note", str, "audit: why bdpl_lower is 0, when it is"),
    owner="estimator audit",
)
ADVERSARY_COLUMNS = register_columns(
    "adversaries",
    Column(
        "bdpl_lower",
        float,
        "audit: certified lower bound on this adversary's BDPL at level 1 - audit_alpha "
        "(for this adversary alone)",
    ),
    Column("audit_calls", int, "audit: mechanism calls of this adversary's search audit"),
    Column(
        "audit_score",
        float,
        "audit: the bound this adversary is predicted to certify with the "
        "configuration's final certification size (ranks the adversaries)",
    ),
    owner="estimator audit",
)


def output_sampler(model, mechanism, known, chunk: int):
    """``draw(m, rng)``: ``m`` outputs of ``mechanism`` on fresh conditional data tuples given
    ``known`` (``m`` mechanism calls), in chunks of at most ``chunk`` tuples; a non-finite output
    is a one-line :class:`~bdpsim.core.errors.ConfigError`."""

    def draw(m: int, rng: np.random.Generator) -> np.ndarray:
        parts, left = [], int(m)
        while left > 0:
            k = min(chunk, left)
            y = mechanism(model.sample_conditional(known, k, rng), rng)
            with naming():  # the config-level error (one line in the CLI)
                parts.append(check_outputs(y, k, "mechanism output"))
            left -= k
        return np.concatenate(parts) if parts else np.zeros(0)

    return draw


def _samplers(model, mechanism, adv, chunk: int):
    return (
        output_sampler(model, mechanism, adv.condition(adv.x), chunk),
        output_sampler(model, mechanism, adv.condition(adv.x_prime), chunk),
    )


@dataclass(frozen=True, eq=False)
class ConfigurationCertificate:
    """A configuration's audit: ``lower`` holds at level ``1 - alpha`` for the configuration's BDPL;
    ``estimate`` ± ``se`` the certified event's log-ratio; ``calls`` used in all; ``index``, ``model``
    and ``adversary`` the certified adversary (``-1``/``None``: none), ``event`` its event (a
    :class:`~bdpsim.kernels.audit.events.Event`), ``exact`` its exact BDPL where known, ``note``
    why ``lower`` is 0 when it is."""

    lower: float
    estimate: float
    se: float
    calls: int
    index: int
    event: Event | None
    model: object
    adversary: object
    exact: float
    note: str = ""


def _fraction(name: str, v) -> None:
    check(isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v < 1, name, v, "must be in (0, 1)")


def _integer(name: str, v, low: int, rule: str) -> None:
    check(isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= low, name, v, rule)


@dataclass(frozen=True)
class AuditEstimator:
    """Black-box audit (see module docstring).

    Its ``[run]`` keys: ``audit_alpha`` (``alpha``, default 0.05), ``audit_budget`` (``budget``:
    mechanism calls per configuration, default 10^7 — enough to certify about 3.3 nats of a
    tail event and to reach within 0.05–0.1 of a BDPL up to ~3 on the thesis' chains (measured:
    :data:`bdpsim.kernels.audit.certificates.SELECTION_STUDY`), at seconds to a minute of one core per
    configuration for n up to a few hundred), ``audit_search`` (``search``: the share spent auditing
    every drawn adversary, default 0.2), ``audit_candidates`` (adversaries in the successive halving on
    fresh selection samples, default 8) and ``audit_top`` (adversaries certified, each at ``alpha / top``,
    default 1). ``adversaries`` come from ``run.adversaries``.
    """

    alpha: float = 0.05
    budget: int = 10_000_000
    search: float = 0.2
    candidates: int = 8
    top: int = 1
    adversaries: int = 1000
    chunk: int = 65_536
    name: ClassVar[str] = "audit"
    #: its budget, not run.samples, sets its calls; no noise floor (null_estimate: nan)
    reads: ClassVar[frozenset[str]] = frozenset({"chunk", "exact_reference"})
    exact: ClassVar[bool] = False
    keys: ClassVar[dict[str, Key]] = {
        "audit_alpha": Key(
            "float", 0.05, hashed=False, doc="the audit's error probability", rule="in (0, 1)"
        ),
        "audit_budget": Key(
            "strict_int",
            10_000_000,
            hashed=False,
            doc="mechanism calls per adversary",
            rule="an integer >= 0 (a TOML integer, not 1e6)",
        ),
        "audit_search": Key(
            "float", 0.2, hashed=False, doc="share of the budget spent searching events", rule="in (0, 1)"
        ),
        "audit_candidates": Key("int", 8, hashed=False, doc="candidate events certified", rule=">= 1"),
        "audit_top": Key("int", 1, hashed=False, doc="adversaries re-certified at the end", rule=">= 1"),
    }
    summary_columns: ClassVar[tuple[OwnedColumn, ...]] = ()
    summary_extras: ClassVar[tuple[str, ...]] = tuple(c.name for c in SUMMARY_COLUMNS)
    adversary_extras: ClassVar[tuple[str, ...]] = tuple(c.name for c in ADVERSARY_COLUMNS)

    def __post_init__(self) -> None:
        a = self.alpha
        check(
            isinstance(a, (int, float)) and not isinstance(a, bool) and math.isfinite(a) and 0 < a < 1,
            "run.audit_alpha",
            a,
            "must be in (0, 1)",
        )
        _integer(
            "run.audit_budget", self.budget, 0, "must be an integer >= 0 (mechanism calls per configuration)"
        )
        _fraction("run.audit_search", self.search)
        _integer("run.audit_candidates", self.candidates, 1, "must be an integer >= 1")
        _integer("run.audit_top", self.top, 1, "must be an integer >= 1")

    @classmethod
    def from_settings(cls, settings) -> AuditEstimator:
        o = settings.option
        adv = settings.adversaries if isinstance(settings.adversaries, int) else 1
        return cls(
            o("audit_alpha"),
            o("audit_budget"),
            o("audit_search"),
            o("audit_candidates"),
            o("audit_top"),
            adv,
            settings.chunk,
        )

    @staticmethod
    def supports(model, mechanism, engine=None) -> str | None:
        """Any mechanism: it is only run."""
        return None

    def check(self, model, mechanism, engine=None) -> None:
        """Nothing beyond :meth:`__post_init__`: a budget too small to certify is a result (0)."""

    # ----------------------------------------------------------------- budget
    @property
    def per_adversary(self) -> int:
        """Calls of one adversary's search audit."""
        return int(self.search * self.budget) // max(1, self.adversaries)

    def _final_size(self, left: float) -> float:
        """Certification samples per side planned for each certified adversary, from ``left`` calls."""
        return (1 - SELECTION_FRACTION) * left / (2 * self.top)

    # ----------------------------------------------------------------- per adversary
    def _score(self, r) -> float:
        """Predicted certified bound at the final size, from every count of the adversary's event."""
        if r.selection is None or r.certificate is None:
            return math.nan
        s, c = r.selection, r.certificate
        p = clopper_pearson_lower(s.k_num + c.k_num, s.n_num + c.n_num, RANK_LEVEL)
        q = clopper_pearson_upper(s.k_den + c.k_den, s.n_den + c.n_den, RANK_LEVEL)
        left = (1 - self.search) * self.budget
        return float(predicted_bound(p, q, max(1.0, self._final_size(left)), self.alpha / self.top))

    def estimate(self, model, mechanism, adversary, rng, engine=None) -> Estimate:
        """Sampled: the exact engine is not used."""
        dx, dxp = _samplers(model, mechanism, adversary, self.chunk)
        r = audit_adversary(dx, dxp, self.per_adversary, self.alpha, rng, min_selection=MIN_SELECTION)
        extra = {
            "bdpl_lower": float(r.lower),
            "audit_calls": int(r.budget_used),
            "audit_score": self._score(r),
        }
        return Estimate(float(r.estimate), 0, math.nan, float(r.se), int(r.budget_used // 2), extra)

    def null_estimate(self, model, mechanism, adversary, rng) -> Estimate:
        """No noise floor: the certified bound's false-positive rate is ``alpha`` by construction and
        each point estimate carries its own standard error (a null audit would spend the budget)."""
        return Estimate(math.nan)

    def reference(self, model, mechanism, adversary, engine=None) -> Estimate:
        """The adversary's exact two-sided BDPL, the quantity bounded (the point estimate estimates
        an event's log-ratio, at most this; by ``engine``: the point's)."""
        return adversary_bdpl(model, mechanism, adversary, engine)

    # ----------------------------------------------------------------- per configuration
    def configuration_audit(self, ctx, stats) -> ConfigurationCertificate:
        """Successive halving among the best-ranked adversaries on fresh selection samples, then
        the ``top`` survivors certified on fresh samples at ``alpha / top`` each (module docstring):
        the work of :meth:`finish`, with the certificate's event and adversary."""
        A = int(stats["bdpl"].size)
        used = int(np.nansum(stats.get("audit_calls", np.zeros(0))))
        left = max(0, self.budget - used)
        m = min(self.top, A)
        R = min(max(self.candidates, m), A)
        a = self.alpha / max(m, 1)
        sel_budget = int(SELECTION_FRACTION * left)
        n_plan = (left - sel_budget) // (2 * max(m, 1))
        score = np.nan_to_num(
            np.asarray(stats.get("audit_score", np.full(A, math.nan)), dtype=float), nan=-math.inf
        )
        order = [int(j) for j in np.argsort(-score, kind="stable")[:R]]
        rng = ctx.stream(0)
        drawn = {j: ctx.adversary(j) for j in order}
        samplers = {j: _samplers(model, ctx.mechanism, adv, self.chunk) for j, (model, adv) in drawn.items()}
        survivors, spent = (
            successive_halving(
                [samplers[j] for j in order],
                sel_budget,
                max(1, n_plan),
                a,
                rng,
                keep=m,
                min_selection=MIN_SELECTION,
            )
            if A and n_plan >= 1
            else ([], 0)
        )
        if not survivors:
            return ConfigurationCertificate(
                0.0,
                math.nan,
                math.nan,
                used,
                -1,
                None,
                None,
                None,
                math.nan,
                f"audit_budget {self.budget} too small to select and certify after "
                f"the search of {A} adversaries (epsilon_lower = 0)",
            )
        used += spent
        n_max = max(1, (self.budget - used) // (2 * len(survivors)))
        certs = []
        for c in survivors:  # fresh certification samples
            j = order[c.index]
            n = plan_certification(c.selection, n_max, a)
            draw_x, draw_xp = samplers[j]
            certs.append((certify(c.selection.event, draw_x, draw_xp, n, a, rng), j))
            used += 2 * n
        cert, j = max(certs, key=lambda t: t[0].lower)
        model, adv = drawn[j]
        exact = math.nan
        if ctx.exact_reference:
            try:
                exact = adversary_bdpl(model, ctx.mechanism, adv, ctx.engine_of(model)).value
            except NotAvailable:
                pass
        note = (
            ""
            if cert.lower > 0
            else (
                f"nothing certified: the selected event's ratio is not distinguishable "
                f"from 1 with {n_max} calls per side (epsilon_lower = 0)"
            )
        )
        return ConfigurationCertificate(
            float(cert.lower),
            float(cert.estimate),
            float(cert.se),
            int(used),
            j,
            cert.event,
            model,
            adv,
            float(exact),
            note,
        )

    def finish(self, ctx, stats, rows) -> dict:
        """The configuration's ``summary.csv`` cells (:meth:`configuration_audit`)."""
        c = self.configuration_audit(ctx, stats)
        return {
            "audit_alpha": self.alpha,
            "audit_budget": int(self.budget),
            "bdpl_lower": c.lower,
            "bdpl_audit": c.estimate,
            "bdpl_audit_se": c.se,
            "audit_calls": c.calls,
            "audit_adversary": c.index,
            "audit_event": c.event.describe() if c.event is not None else "",
            "audit_exact": c.exact,
            "audit_note": c.note,
        }

    # ----------------------------------------------------------------- cost, summary
    def cost(self, ctx: CostContext) -> tuple[float, float]:
        """Every call samples one data tuple and runs the mechanism once (about three passes over
        its records); memory: a chunk of tuples (int16) with a temporary of the mechanism, an
        adversary's selection sample and the configuration's selection pools (at most
        ``SELECTION_FRACTION * budget`` outputs)."""
        work = self.budget * ctx.per_sample * 3.0
        return (
            work,
            ctx.chunk * ctx.n * 10 + 8 * 0.2 * self.per_adversary + 8 * SELECTION_FRACTION * self.budget,
        )

    def summary(self, stats) -> dict:
        return {"n_samples": self.per_adversary // 2}

    def cost_culprit(self) -> tuple[float, str, int]:
        """``(ratio to its default, field, value)`` of the key that sets the audit's cost, for a
        refusal to name (:func:`bdpsim.pipeline.cost._culprit`): the budget, not ``run.samples``."""
        return self.budget / 10_000_000, "run.audit_budget", self.budget


register_estimator(AuditEstimator)
