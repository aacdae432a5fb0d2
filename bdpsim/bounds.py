"""Theoretical BDPL bounds, calibration and accuracy formulas (paper §4–§7, thesis §4–§7).

All functions are pure. A bound that does not apply returns a :class:`Bound` with
``value = nan`` and the reason in ``reason``; inputs that are not numbers of the right range
raise :class:`~bdpsim.core.errors.ConfigError`. :func:`applicable_bounds` chooses the bounds of a
configuration point and says why each one that does not apply does not.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .core.errors import check
from .kernels.chains.transition import gamma_of, omega_of, symmetric_chain, transition_matrix

__all__ = [
    "Bound",
    "applicable_bounds",
    "not_applicable",
    "general_bound",
    "gaussian_bound",
    "markov_bound",
    "zhao_bound",
    "yang_bound",
    "genomic_lower_bound",
    "gamma_of",
    "omega_of",
    "symmetric_chain",
    "transition_matrix",
    "calibrate_general",
    "calibrate_gaussian",
    "calibrate_markov",
    "calibrate_zhao",
]


@dataclass(frozen=True)
class Bound:
    """A bound's value, or ``nan`` with the reason it does not apply."""

    name: str
    value: float
    reason: str = ""

    @property
    def applicable(self) -> bool:
        return math.isfinite(self.value)


def _pos(name: str, x: float) -> float:
    x = float(x)
    check(math.isfinite(x) and x > 0, name, x, "must be a finite number > 0")
    return x


def _m(m: int) -> int:
    check(
        isinstance(m, (int, np.integer)) and not isinstance(m, bool) and m >= 1,
        "m",
        m,
        "must be an integer >= 1",
    )
    return int(m)


def general_bound(epsilon: float, m: int) -> Bound:
    """General bound ``BDPL <= m eps`` for at most ``m`` correlated records (paper Thm 4.3).

    Parameters
    ----------
    epsilon : float
        DP parameter of the mechanism (> 0).
    m : int
        Largest number of mutually correlated records (>= 1).

    Returns
    -------
    Bound
        ``m eps``.
    """
    return Bound("general", _m(m) * _pos("epsilon", epsilon))


def gaussian_factor(rho: float, m: int) -> float:
    """Relative factor ``h = m^2 / (4 (1/rho - m + 2)) + 1`` of the Gaussian bound (Cor. 5.9).

    Returns ``nan`` when ``rho (m - 2) >= 1`` (the bound does not apply); ``rho = 0`` gives 1.
    """
    rho = float(rho)
    check(math.isfinite(rho) and 0 <= rho < 1, "rho", rho, "must be in [0, 1)")
    m = _m(m)
    if rho == 0:
        return 1.0
    if rho * (m - 2) >= 1:
        return math.nan
    return m * m / (4.0 * (1.0 / rho - m + 2.0)) + 1.0


def gaussian_bound(epsilon: float, rho: float, m: int, distance: float | None = None) -> Bound:
    """Gaussian bound (paper Thm 5.5/5.8) for the clipped, eps-DP Laplace sum.

    ``BDPL <= (m^2 / (4 (1/rho - m + 2)) + 1) eps``, needs ``rho (m - 2) < 1``.
    With ``distance`` given, ``epsilon`` is read as the l1-metric parameter ``eps'`` and the
    target-dependent form ``(...) eps' |x - x'|`` is returned (Thm 5.5).

    Parameters
    ----------
    epsilon : float
        DP parameter of the clipped sum (or the l1-metric parameter with ``distance``).
    rho : float
        Largest absolute correlation of the limited covariance ``Sigma_rho``, in [0, 1).
    m : int
        Number of correlated records.
    distance : float, optional
        ``|x - x'|`` for the target-dependent form.

    Returns
    -------
    Bound
        The bound, or ``nan`` with the reason when ``rho (m - 2) >= 1``.
    """
    eps = _pos("epsilon", epsilon)
    h = gaussian_factor(rho, m)
    if math.isnan(h):
        return Bound("gaussian", math.nan, f"needs rho (m - 2) < 1, got rho = {rho}, m = {m}")
    scale = 1.0 if distance is None else abs(float(distance))
    return Bound("gaussian", h * eps * scale)


def markov_bound(epsilon: float, P) -> Bound:
    """Markov chain bound ``eps + 4 ln gamma`` (paper Thm 6.2), needs all ``P > 0`` (H1).

    (H2), a stationary start, is a property of the data model and is checked by the caller.

    Parameters
    ----------
    epsilon : float
        DP parameter of the mechanism (> 0).
    P : array_like
        Transition matrix (rows sum to 1); ``gamma = max P / min P``.

    Returns
    -------
    Bound
        ``eps + 4 ln gamma``, or ``nan`` with the reason when some ``P = 0``.
    """
    eps = _pos("epsilon", epsilon)
    g = gamma_of(P)
    if not math.isfinite(g):
        return Bound("markov", math.nan, "needs every transition probability > 0 (H1)")
    return Bound("markov", eps + 4.0 * math.log(g))


def zhao_bound(epsilon: float, P) -> Bound:
    """Zhao et al.'s bound ``eps + 6 ln omega`` (thesis eq. 20), needs all ``P > 0``.

    Parameters
    ----------
    epsilon : float
        DP parameter of the mechanism (> 0).
    P : array_like
        Transition matrix; ``omega = max_{x,y,y'} P_{y,x} / P_{y',x}``.

    Returns
    -------
    Bound
        ``eps + 6 ln omega``, or ``nan`` with the reason when some ``P = 0``.
    """
    eps = _pos("epsilon", epsilon)
    w = omega_of(P)
    if not math.isfinite(w):
        return Bound("zhao", math.nan, "needs every transition probability > 0 (H1)")
    return Bound("zhao", eps + 6.0 * math.log(w))


def genomic_lower_bound(m: int, epsilon: float) -> float:
    """``BDPL >= (m - 1) eps`` for the eps-DP Laplace count of BB in a family of two parents and
    ``m - 2`` children (thesis Cor. 5.2: the adversary knows one parent BB and targets the other,
    BB against bb); the count of bb likewise, with the alleles' roles swapped."""
    return (_m(m) - 1) * _pos("epsilon", epsilon)


def yang_bound(epsilon: float, n: int) -> Bound:
    """Yang et al.'s ``n eps`` (Gaussian Markov random field, weakest adversary); it coincides
    with the general bound (paper Thm 4.3) for ``m = n``.

    Parameters
    ----------
    epsilon : float
        DP parameter of the mechanism (> 0).
    n : int
        Number of records.

    Returns
    -------
    Bound
        ``n eps``.
    """
    return Bound("yang", _m(n) * _pos("epsilon", epsilon))


# ---------------------------------------------------------------- calibration and accuracy


def calibrate_general(epsilon: float, m: int) -> float:
    """DP parameter ``tau = eps / m`` that makes a Laplace mechanism eps-BDP (general bound)."""
    return _pos("epsilon", epsilon) / _m(m)


def calibrate_gaussian(epsilon: float, rho: float, m: int) -> float:
    """``tau = eps / h`` with the Gaussian factor ``h`` (paper eq. (3)); nan if not applicable."""
    return _pos("epsilon", epsilon) / gaussian_factor(rho, m)


def calibrate_markov(epsilon: float, P) -> float:
    """``tau = eps - 4 ln gamma``; nan when ``eps <= 4 ln gamma`` or some ``P = 0``."""
    eps = _pos("epsilon", epsilon)
    g = gamma_of(P)
    tau = eps - 4.0 * math.log(g) if math.isfinite(g) else -math.inf
    return tau if tau > 0 else math.nan


def calibrate_zhao(epsilon: float, P) -> float:
    """``tau = eps - 6 ln omega``; nan when ``eps <= 6 ln omega`` or some ``P = 0``."""
    eps = _pos("epsilon", epsilon)
    w = omega_of(P)
    tau = eps - 6.0 * math.log(w) if math.isfinite(w) else -math.inf
    return tau if tau > 0 else math.nan


def laplace_alpha(epsilon: float, beta: float, sensitivity: float = 1.0) -> float:
    """Tight accuracy of the Laplace mechanism: ``alpha = ln(1/beta) Delta / eps`` (Prop. 3.5)."""
    beta = float(beta)
    check(0 < beta < 1, "beta", beta, "must be in (0, 1)")
    return math.log(1.0 / beta) * _pos("sensitivity", sensitivity) / _pos("epsilon", epsilon)


def markov_factor(epsilon: float, gamma: float) -> float:
    """Relative error factor ``h = eps / (eps - 4 ln gamma)`` (Cor. 6.3); nan if eps <= 4 ln gamma."""
    eps = _pos("epsilon", epsilon)
    g = float(gamma)
    check(g >= 1, "gamma", gamma, "must be >= 1")
    d = eps - 4.0 * math.log(g)
    return eps / d if d > 0 else math.nan


# ---------------------------------------------------------------- selection per configuration


def not_applicable(name: str, reason: str) -> Bound:
    """A bound that does not apply: ``nan`` and ``"name: not applicable (reason)"``."""
    return Bound(name, math.nan, f"{name}: not applicable ({reason})")


def not_dp_reason(mechanism) -> str:
    return f"mechanism '{mechanism.kind}' is not eps-DP"


def applicable_bounds(spec, mechanism) -> dict[str, Bound]:
    """The theoretical bounds of a configuration point, each applicable or with its reason.

    Keys: ``general`` (``m eps``, paper Thm 4.3), ``model`` (the model kind's own bound, e.g.
    Gaussian Thm 5.5/5.8 or Markov Thm 6.2), ``zhao`` (thesis eq. 20), ``lower`` (a lower bound on
    the BDPL: ``eps`` for an eps-DP mechanism, attained by an adversary that knows every other
    record; a model kind may raise it, e.g. thesis Cor. 5.2 on pedigrees). ``general`` and
    ``lower`` need an eps-DP mechanism; the model kind (``spec.owner``,
    :meth:`~bdpsim.models.base.ModelKind.bounds`) says which of the others apply and why not.

    Parameters
    ----------
    spec : ModelSpec
        The configuration point's data model (``ExperimentPoint.model``).
    mechanism : Mechanism
        Its mechanism; the bounds need an eps-DP one (``mechanism.epsilon``).

    Returns
    -------
    dict of str to Bound
        ``general``, ``model``, ``zhao`` and ``lower``; an inapplicable bound is ``nan`` with
        its reason (a kind with no bound of its own: one reason for ``model`` and ``zhao``).
    """
    eps = mechanism.epsilon
    eps = float(eps) if eps is not None else math.nan
    dp = math.isfinite(eps)
    why_dp = not_dp_reason(mechanism)
    out = {
        "general": general_bound(eps, spec.m) if dp else not_applicable("general", why_dp),
        "model": Bound("model", math.nan),
        "zhao": Bound("zhao", math.nan),
        "lower": Bound("lower", eps) if dp else not_applicable("lower", why_dp),
    }
    if spec.owner is not None:
        out.update(spec.owner.bounds(spec, mechanism, eps))
    model, zhao = out["model"], out["zhao"]
    if math.isnan(model.value) and not model.reason and math.isnan(zhao.value) and not zhao.reason:
        why = (
            f"model, zhao: not applicable (no model-specific bound for a {spec.kind} model; the Gaussian "
            "and Markov bounds need those models)"
        )
        out.update(model=Bound("model", math.nan, why), zhao=Bound("zhao", math.nan, why))
    return out
