"""Calibrated Laplace mechanisms as mechanism kinds: the noise each calibration method prescribes,
run like any other mechanism (its exact BDPL, its estimates, its bounds).

``[mechanism] kind = "calibrated"`` with ``method = "exact" | "general" | "markov" | "zhao"`` (eps-BDP
by the exact engine or a bound), ``kind = "markov_quilt"`` (``variant = "exact" | "approx"``,
eps-Pufferfish by the Markov Quilt mechanism), ``kind = "wasserstein"`` and ``kind = "group"``;
``epsilon`` is the method's *target* and the query is a count (``counted_states``) or a sum of
``state_values``. The scale comes from :func:`bdpsim.calibration.calibrate` (one calibration layer);
the mechanism's own DP parameter ``sensitivity / scale`` is what the bounds read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, cast

from ..core.columns import Column, register_columns
from ..core.errors import check
from ..core.schema import Key
from ..kernels.noise.laws import LaplaceNoise
from ..mechanisms.base import MechanismKind, register_mechanism_kind, required
from ..mechanisms.kinds import EPSILON, state_codes
from ..mechanisms.noisy import QueryNoiseMechanism
from ..models.bayesnet.model import BayesNetModel
from ..models.protocols import MarkovChain
from ..queries import AdditiveQuery, discrete_query
from .methods import CALIBRATION_METHODS, calibrate
from .quilt.bayesnet import mqm_bayesnet

COLUMNS = register_columns(
    "summary",
    Column(
        "calibration",
        str,
        "calibrated mechanisms: the method that chose the Laplace scale (exact, general, "
        "markov, zhao, markov-quilt-*, wasserstein, group)",
    ),
    Column(
        "target_epsilon",
        float,
        "calibrated mechanisms: the eps the method aimed at (eps-BDP, or eps-Pufferfish "
        "for the Markov Quilt and Wasserstein mechanisms); epsilon is the DP parameter",
    ),
    owner="mechanism calibrated",
)


@dataclass(frozen=True)
class CalibratedLaplace(QueryNoiseMechanism):
    """``query + Lap(b)`` (``noise``, a :class:`~bdpsim.kernels.noise.laws.LaplaceNoise`) with the
    scale a calibration ``method`` prescribes for ``target_epsilon``: a member of the query + noise
    family whose ``epsilon`` is its DP parameter ``sensitivity / b``."""

    query_function: AdditiveQuery
    noise: LaplaceNoise
    method: str
    target_epsilon: float
    reason: str = ""
    kind: str = field(default="calibrated")
    summary_extras: ClassVar[tuple[str, ...]] = tuple(c.name for c in COLUMNS)

    def columns(self) -> dict:
        return {**super().columns(), "calibration": self.method, "target_epsilon": self.target_epsilon}


def _query(params: dict, model) -> AdditiveQuery:
    """The ``[mechanism]``'s query on ``model`` (one rule for every path:
    :func:`bdpsim.queries.discrete_query`)."""
    if params.get("state_values") is not None:
        return discrete_query(model.states, state_values=params["state_values"])
    return discrete_query(model.states, list(state_codes(params["counted_states"], model)))


class _CalibratedKind(MechanismKind):
    domain = "discrete"
    base_keys = {
        "epsilon": EPSILON,
        "counted_states": Key(
            "state_vector",
            [1],
            doc="the states the query counts",
            rule="distinct states of the model, not every one",
        ),
        "state_values": Key(
            "vector",
            hashed=False,
            doc="each state's value (the query sums them)",
            rule="one finite number per state, not all equal",
        ),
    }

    #: the models the kind calibrates on, in the user's words (the refusal names them)
    models = "a Markov chain model (kind = 'markov')"

    def method(self, params: dict) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    def build(self, params: dict, spec) -> CalibratedLaplace:
        eps = required(params, "epsilon")
        check(
            isinstance(spec.fixed, MarkovChain),
            "mechanism.kind",
            self.name,
            f"needs {self.models}, not model.kind = {spec.kind!r}",
        )
        query = _query(params, spec.fixed)
        method = self.method(params)
        f = query.per_state(spec.fixed.states)
        cal = calibrate(spec.fixed, eps, state_values=f.tolist(), method=method, evaluate=False)
        check(cal.scale is not None, "mechanism.epsilon", eps, f"{method}: {cal.reason}")
        scale = cast(float, cal.scale)  # not None (just checked)
        return CalibratedLaplace(query, LaplaceNoise(scale), method, float(eps), cal.reason, self.name)


class CalibratedKind(_CalibratedKind):
    name = "calibrated"
    example = {
        "model": {"kind": "markov", "n": 4, "gamma": 3.0},
        "mechanism": {"epsilon": 2.0, "method": "general"},
    }
    doc = "Laplace noise for eps-BDP by method = 'exact' (smallest scale), 'general', 'markov' or 'zhao'"
    keys = {
        **_CalibratedKind.base_keys,
        "method": Key(
            "str", "exact", hashed=False, doc="how the Laplace scale is chosen", rule="a calibration method"
        ),
    }
    METHODS = ("exact", "general", "markov", "zhao")

    def method(self, params: dict) -> str:
        check(
            params["method"] in self.METHODS,
            "mechanism.method",
            params["method"],
            f"must be one of {list(self.METHODS)}",
        )
        return params["method"]


class MarkovQuiltKind(_CalibratedKind):
    name = "markov_quilt"
    example = {
        "model": {"kind": "markov", "n": 4, "gamma": 3.0},
        "mechanism": {"epsilon": 2.0, "variant": "approx"},
    }
    doc = (
        "the Markov Quilt mechanism's Laplace noise for eps-Pufferfish (variant = 'exact' or 'approx'); on "
        "a Bayesian network the general mechanism of Pufferfish §4 (exact max-influence)"
    )
    keys = {
        **_CalibratedKind.base_keys,
        "variant": Key(
            "str", "exact", hashed=False, doc="the Markov Quilt score used", rule="'exact' or 'approx'"
        ),
    }

    VARIANTS = {"exact": "markov-quilt-exact", "approx": "markov-quilt-approx"}
    models = (
        "a Markov chain (kind = 'markov') or a Bayesian network (kind = 'bayesnet'): the Markov "
        "Quilt mechanism needs a directed model"
    )

    def build(self, params: dict, spec) -> CalibratedLaplace:
        if not isinstance(spec.fixed, BayesNetModel):
            return super().build(params, spec)
        eps = required(params, "epsilon")
        check(
            self.method(params) == self.VARIANTS["exact"],
            "mechanism.variant",
            params["variant"],
            "a Bayesian network takes the exact max-influence (variant = 'exact')",
        )
        query = _query(params, spec.fixed)
        q = mqm_bayesnet(spec.fixed, eps)
        reason = (
            f"scale = sensitivity * sigma, sigma = {q.sigma:.6g} by the general Markov Quilt mechanism "
            f"(worst record {q.record}, quilt {list(q.quilt)}, card(X_N) = {q.nearby}; eps-Pufferfish)"
        )
        scale = float(query.sensitivity * q.sigma)
        return CalibratedLaplace(
            query, LaplaceNoise(scale), "markov-quilt-general", float(eps), reason, self.name
        )

    def method(self, params: dict) -> str:
        check(
            params["variant"] in self.VARIANTS,
            "mechanism.variant",
            params["variant"],
            "must be 'exact' (MQMExact) or 'approx' (MQMApprox)",
        )
        return self.VARIANTS[params["variant"]]


class WassersteinKind(_CalibratedKind):
    name = "wasserstein"
    example = {"model": {"kind": "markov", "n": 4, "gamma": 3.0}, "mechanism": {"epsilon": 2.0}}
    doc = "the Wasserstein mechanism's Laplace noise W / eps for eps-Pufferfish"
    keys = dict(_CalibratedKind.base_keys)

    def method(self, params: dict) -> str:
        return "wasserstein"


class GroupKind(_CalibratedKind):
    name = "group"
    example = {"model": {"kind": "markov", "n": 4, "gamma": 3.0}, "mechanism": {"epsilon": 2.0}}
    doc = "group DP with one group of all n records: Laplace noise n * sensitivity / eps"
    keys = dict(_CalibratedKind.base_keys)

    def method(self, params: dict) -> str:
        return "group"


for _kind in (CalibratedKind(), MarkovQuiltKind(), WassersteinKind(), GroupKind()):
    register_mechanism_kind(_kind)

__all__ = ["CALIBRATION_METHODS", "CalibratedLaplace"]
