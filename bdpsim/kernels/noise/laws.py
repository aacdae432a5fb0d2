"""Noise laws of an additive mechanism ``query + noise``, exact where the model allows.

Every law is a frozen dataclass satisfying :class:`NoiseLaw`. Besides sampling and the density,
each gives the exact quantities the exact engines need for two output laws that are mixtures of the
noise kernel over the SAME atoms ``c_j = j * delta`` (``j = 0..J-1``; rows ``W1, W2`` of shape
``(B, J)``, non-negative, normalised here)::

    p_k(y) = sum_j w_kj kernel(y - c_j)

* :meth:`NoiseLaw.grid_sup` — per row, the signed log-ratio of largest magnitude among
  ``sup_y ln p1/p2`` (positive) and ``sup_y ln p2/p1`` (negative) and where it is attained (an
  atom index as float, or ``±inf`` for a tail), the contract of
  :func:`bdpsim.kernels.noise.laplace_mixture.grid_sup`;
* :meth:`NoiseLaw.grid_delta` — per row, the hockey-stick divergence
  ``delta(eps) = ∫ max(0, p1(y) - e^eps p2(y)) dy`` (a sum for discrete noise), the privacy profile
  of the mechanism;
* :meth:`NoiseLaw.sup_log_ratio` / :meth:`NoiseLaw.hockey_stick` — the same for two arbitrary atom
  sets (one pair, not batched).

How each law computes them is in its class docstring and in :mod:`bdpsim.kernels.noise.exp_kernels`,
:mod:`bdpsim.kernels.noise.staircase` and :mod:`bdpsim.kernels.noise.gaussian_certified`.

**Monotonicity in the noise parameter** (used by calibration by bisection). If noise ``N2`` is
``N1 + W`` with ``W`` independent, both output laws given the adversary's knowledge become mixtures
of shifted copies with common weights, so ``sup ln p1/p2`` cannot grow (a ratio of mixtures with
common weights is at most the largest ratio of its parts) and neither can ``delta(eps)`` (the
hockey-stick divergence is an f-divergence: data processing). Per law:

* Laplace: ``Lap(b2) = Lap(b1) + W`` for ``b2 > b1``, ``W = 0`` with probability ``(b1/b2)^2`` and
  ``W ~ Lap(b2)`` otherwise (characteristic functions ``(1 + b1^2 t^2)/(1 + b2^2 t^2)``): BDPL and ``delta``
  non-increasing in ``scale``.
* Gaussian: ``N(0, s2^2) = N(0, s1^2) + N(0, s2^2 - s1^2)``: ``delta`` non-increasing in ``sigma``.
* Geometric: proved here. The two-sided geometric law with ``q = e^{-epsilon}`` is ``G - G'``
  with ``G, G'`` i.i.d. one-sided geometric, ``P(G = k) = (1 - q) q^k``, whose generating function is
  ``(1 - q)/(1 - q z)``. For ``q2 > q1``, ``(1-q2)/(1-q2 z) / ((1-q1)/(1-q1 z)) =
  (1-q2)/(1-q1) * [1 + sum_{k>=1} (q2 - q1) q2^{k-1} z^k]`` has non-negative coefficients summing to
  1: it is the law of a ``W >= 0``. So ``Geom(q2) = Geom(q1) + W - W'`` (``W, W'`` i.i.d.), and the
  BDPL and ``delta`` are non-increasing as ``epsilon`` decreases (checked numerically too).
* Staircase: no such decomposition is known to us. Measured (tests/kernels/test_noise_kernels.py): with a
  FIXED ``gamma`` the exact sup and ``delta`` were non-increasing as ``epsilon`` decreases in every
  case tried (40 random 6-atom pairs x 12 values of epsilon x gamma in {0, 0.3, 1} x atom spacings
  {1, 0.5, 0.37} Delta, and 300 further random cases); with ``gamma = gamma*(epsilon)`` they are
  NOT monotone: the jumps at ``(k + gamma*) Delta`` move against the atom lattice, and one pair on
  spacing 0.5 gains 0.36 nats when epsilon drops from 2.228 to 2.131 (pinned in the tests). So
  calibrate staircase noise by bisection on ``epsilon`` only with a fixed ``gamma``.

Each law's reason (or its absence) is its ``monotone`` trait (:mod:`bdpsim.kernels.noise.traits`).
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Protocol, cast, runtime_checkable

import numpy as np

from ...core.registry import Registry
from ...core.schema import Key
from ..argcheck import ParameterError, require
from . import exp_kernels as ek
from . import gaussian_certified as gc
from .checks import (
    NoiseParams,
    check_sensitivity,
    lattice,
    pair,
    positive,
    profile_eps,
    profile_epsilons,
    rows,
    signed,
    sup_result,
)
from .laplace_mixture import MixtureSup, mixture_sup
from .protocols import HasBothDeltas, HasDeltaTable
from .stepwise import GeometricNoise, StaircaseNoise
from .table import TableNoise, table_from_params
from .traits import DEFAULT_LAW, GAUSSIAN, LAPLACE, TRAITS, LawTraits, contradiction, declare, traits_of


@runtime_checkable
class NoiseLaw(Protocol):
    """What an additive noise law provides (see the module docstring)."""

    @property
    def name(self) -> str: ...

    @property
    def discrete(self) -> bool: ...

    @property
    def parameter_name(self) -> str: ...

    @property
    def noise_grows_with_parameter(self) -> bool: ...

    #: whether the law has an amount to calibrate (its ``parameter``; ``with_parameter`` gives the
    #: law with another amount): the calibration methods and ``bdpsim calibrate --noise`` offer
    #: exactly these laws (not a table: one fixed law)
    calibratable: ClassVar[bool]
    #: whether the law is pure DP (a finite ``dp_epsilon``) for every amount: calibrated to
    #: eps-BDP; ``False``: to the privacy profile ``delta(eps) <= delta`` (Gaussian), or it depends on
    #: the law's own table
    pure_dp: ClassVar[bool]

    @property
    def parameter(self) -> float: ...

    def with_parameter(self, value: float) -> NoiseLaw: ...

    def sample(self, size, rng: np.random.Generator) -> np.ndarray: ...

    def log_density(self, y) -> np.ndarray: ...

    def cdf(self, y) -> np.ndarray: ...

    def dp_epsilon(self, sensitivity: float) -> float: ...

    def grid_sup(self, W1, W2, delta: float) -> tuple[np.ndarray, np.ndarray]: ...

    def grid_delta(self, W1, W2, delta: float, epsilon: float) -> np.ndarray: ...

    def sup_log_ratio(self, atoms1, w1, atoms2, w2) -> MixtureSup: ...

    def hockey_stick(self, atoms1, w1, atoms2, w2, epsilon: float) -> float: ...

    #: the config keys the law takes besides ``noise``, ``epsilon`` and the mechanism's own keys
    #: (``sigma``, ``staircase_gamma``, ...): ``[mechanism]`` keys of every query kind; its
    #: :meth:`from_params` reads them from ``NoiseParams.options``
    keys: ClassVar[Mapping[str, Key]]

    @classmethod
    def from_params(cls, params: NoiseParams) -> NoiseLaw: ...

    def mean_abs(self) -> float:
        """``E|Z|``, in closed form (the utility of a noise: the LP objective and the calibration
        tables). A method, not a property: ``isinstance(x, NoiseLaw)`` evaluates properties."""


# ----------------------------------------------------------------------------- Laplace


@dataclass(frozen=True)
class LaplaceNoise:
    """``Lap(b)``: density ``e^{-|y|/b} / 2b``; ``query + Lap(b)`` is ``(Delta/b)``-DP.

    Exact functions: :meth:`grid_sup` delegates to :func:`bdpsim.kernels.noise.laplace_mixture.grid_sup`
    (atoms in lattice units, ``b / delta``); :meth:`grid_delta` integrates the positive part of
    ``p1 - e^eps p2`` in closed form per gap (:func:`bdpsim.kernels.noise.exp_kernels.laplace_delta`).
    Calibration
    parameter: ``scale`` (more noise as it grows; BDPL and ``delta`` non-increasing, see the module
    docstring).
    """

    scale: float
    name: str = field(default=LAPLACE.name, init=False)
    discrete: bool = field(default=False, init=False)
    parameter_name: str = field(default=LAPLACE.amount, init=False)
    noise_grows_with_parameter: bool = field(default=LAPLACE.grows, init=False)
    traits: ClassVar[LawTraits] = LAPLACE
    calibratable: ClassVar[bool] = LAPLACE.calibratable
    pure_dp: ClassVar[bool] = LAPLACE.pure_dp
    keys: ClassVar[Mapping[str, Key]] = {}  # its amount is epsilon or the mechanism's noise_scale

    def __post_init__(self) -> None:
        object.__setattr__(self, "scale", positive("scale", self.scale))

    def mean_abs(self) -> float:
        """``E|Z| = b``."""
        return float(self.scale)

    @classmethod
    def from_params(cls, params: NoiseParams) -> LaplaceNoise:
        """``scale``, or ``epsilon`` with ``scale = sensitivity / epsilon`` (exactly one)."""
        sens = params.only(LAPLACE.name, ("epsilon", "scale"))
        require(params.scale is not None or params.epsilon is not None, "epsilon", None, "is required")
        require(
            (params.scale is None) != (params.epsilon is None),
            "scale",
            params.scale,
            "give exactly one of scale and epsilon for laplace noise",
        )
        if params.scale is not None:
            return cls(params.scale)
        return cls(sens / positive("epsilon", params.epsilon))

    @property
    def parameter(self) -> float:
        return self.scale

    def with_parameter(self, value: float) -> LaplaceNoise:
        return replace(self, scale=value)

    def sample(self, size, rng: np.random.Generator) -> np.ndarray:
        return rng.laplace(0.0, self.scale, size)

    def log_density(self, y) -> np.ndarray:
        return -np.abs(np.asarray(y, dtype=float)) / self.scale - math.log(2.0 * self.scale)

    def cdf(self, y) -> np.ndarray:
        y = np.asarray(y, dtype=float)
        return np.where(
            y < 0,
            0.5 * np.exp(np.minimum(y, 0.0) / self.scale),
            1.0 - 0.5 * np.exp(-np.maximum(y, 0.0) / self.scale),
        )

    def dp_epsilon(self, sensitivity: float) -> float:
        d = check_sensitivity(sensitivity)
        return d / self.scale

    def grid_sup(self, W1, W2, delta: float):
        from .laplace_mixture import grid_sup

        A, B = rows(W1, W2)
        return grid_sup(A, B, self.scale / positive("delta", delta))

    def grid_delta(self, W1, W2, delta: float, epsilon: float) -> np.ndarray:
        A, B = rows(W1, W2)
        z = lattice(delta, A.shape[1]) / self.scale
        return ek.laplace_delta(A, B, z, profile_eps(epsilon))

    def sup_log_ratio(self, atoms1, w1, atoms2, w2) -> MixtureSup:
        pair(atoms1, w1, atoms2, w2)  # same validation as the other laws
        return mixture_sup(atoms1, w1, atoms2, w2, self.scale)

    def hockey_stick(self, atoms1, w1, atoms2, w2, epsilon: float) -> float:
        c, A, B = pair(atoms1, w1, atoms2, w2)
        return float(ek.laplace_delta(A, B, c / self.scale, profile_eps(epsilon))[0])

    def prepare_deltas(self, W1, W2, delta: float):
        """``(epsilons, subset=None) -> (forward, backward)``: both directions of the privacy profile
        of these rows (or the rows ``subset`` of them) at several ``eps`` (shape ``(m,)``, or
        ``(rows, m)``: one per row), each ``(rows, m)``, the mixtures' sides computed once
        (:func:`~bdpsim.kernels.noise.exp_kernels.laplace_prepared`)."""
        A, B = rows(W1, W2)
        at = ek.laplace_prepared(A, B, lattice(delta, A.shape[1]) / self.scale)

        def prepared(epsilons, subset=None):
            return at(np.exp(profile_epsilons(epsilons)), subset)

        prepared.bdpl_bound = at.bdpl_bound  # type: ignore[attr-defined]  # each row's BDPL
        return prepared


# ----------------------------------------------------------------------------- Gaussian


@dataclass(frozen=True)
class GaussianNoise:
    """``N(0, sigma^2)``. Not pure DP for any ``sigma`` (``dp_epsilon = inf`` for a sensitivity > 0).

    Exact functions (:mod:`bdpsim.kernels.noise.gaussian_certified`, all rows at once): the pure sup is
    ``+inf``
    unless the lowest and highest atoms of ``p1`` lie within those of ``p2`` (the normal tails
    make the ratio diverge otherwise); then it is finite and found by a branch and bound with a
    certified bound per cell (to ``1e-11`` relative). ``delta(eps)`` splits the line into cells
    certified above, below or monotone across ``eps`` (crossings by safeguarded Newton) and adds
    normal-CDF masses: exact to ~1e-14. Calibration parameter: ``sigma`` (more noise as it grows;
    ``delta`` non-increasing).
    """

    sigma: float
    name: str = field(default=GAUSSIAN.name, init=False)
    discrete: bool = field(default=False, init=False)
    parameter_name: str = field(default=GAUSSIAN.amount, init=False)
    noise_grows_with_parameter: bool = field(default=GAUSSIAN.grows, init=False)
    traits: ClassVar[LawTraits] = GAUSSIAN
    calibratable: ClassVar[bool] = GAUSSIAN.calibratable
    pure_dp: ClassVar[bool] = GAUSSIAN.pure_dp  # calibrated to the privacy profile delta(eps)
    keys: ClassVar[Mapping[str, Key]] = {
        "sigma": Key("float", hashed=False, doc="Gaussian noise: its standard deviation", rule="> 0")
    }

    def __post_init__(self) -> None:
        object.__setattr__(self, "sigma", positive("sigma", self.sigma))

    def mean_abs(self) -> float:
        """``E|Z| = sigma sqrt(2/pi)``."""
        return float(self.sigma) * math.sqrt(2.0 / math.pi)

    @classmethod
    def from_params(cls, params: NoiseParams) -> GaussianNoise:
        """``sigma`` (required)."""
        params.only(GAUSSIAN.name, ("sigma",))
        require(params.sigma is not None, "sigma", params.sigma, "is required for gaussian noise")
        return cls(cast(float, params.sigma))  # checked in __post_init__

    @property
    def parameter(self) -> float:
        return self.sigma

    def with_parameter(self, value: float) -> GaussianNoise:
        return replace(self, sigma=value)

    def sample(self, size, rng: np.random.Generator) -> np.ndarray:
        return rng.normal(0.0, self.sigma, size)

    def log_density(self, y) -> np.ndarray:
        y = np.asarray(y, dtype=float)
        return -0.5 * (y / self.sigma) ** 2 - math.log(self.sigma * math.sqrt(2.0 * math.pi))

    def cdf(self, y) -> np.ndarray:
        from scipy.special import ndtr

        return ndtr(np.asarray(y, dtype=float) / self.sigma)

    def dp_epsilon(self, sensitivity: float) -> float:
        return math.inf if check_sensitivity(sensitivity) > 0 else 0.0

    def grid_sup(self, W1, W2, delta: float):
        A, B = rows(W1, W2)
        fwd, bwd, wf, wb = gc.gauss_sup(A, B, lattice(delta, A.shape[1]), self.sigma)
        return signed(fwd, bwd, wf / float(delta), wb / float(delta))

    def grid_delta(self, W1, W2, delta: float, epsilon: float) -> np.ndarray:
        A, B = rows(W1, W2)
        return gc.gauss_delta(A, B, lattice(delta, A.shape[1]), self.sigma, profile_eps(epsilon))

    def grid_delta_both(self, W1, W2, delta: float, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
        """``(grid_delta(W1, W2), grid_delta(W2, W1))`` on one set of cells (half the work)."""
        A, B = rows(W1, W2)
        fwd, bwd = gc.gauss_delta(
            A, B, lattice(delta, A.shape[1]), self.sigma, profile_eps(epsilon), both=True
        )
        return fwd, bwd

    def sup_log_ratio(self, atoms1, w1, atoms2, w2) -> MixtureSup:
        c, A, B = pair(atoms1, w1, atoms2, w2)
        fwd, bwd, wf, wb = (float(v[0]) for v in gc.gauss_sup(A, B, c, self.sigma))
        return sup_result(fwd, bwd, wf, wb)

    def hockey_stick(self, atoms1, w1, atoms2, w2, epsilon: float) -> float:
        c, A, B = pair(atoms1, w1, atoms2, w2)
        return float(gc.gauss_delta(A, B, c, self.sigma, profile_eps(epsilon))[0])


# ----------------------------------------------------------------------------- registry


def grid_deltas(noise: NoiseLaw, W1, W2, delta: float, epsilons) -> tuple[np.ndarray, np.ndarray]:
    """Both directions of the privacy profile of every row at several ``eps``: ``epsilons`` of
    shape ``(m,)`` (the same for every row) or ``(rows, m)`` (one per row and column); returns
    ``(forward, backward)``, each ``(rows, m)``: ``noise.grid_delta(W1, W2, delta, eps)`` and the
    same with ``W1, W2`` exchanged. In one pass where the law offers it
    (:class:`~bdpsim.kernels.noise.protocols.HasDeltaTable`: Laplace and geometric noise share the
    mixtures' sides between every ``eps``), else :func:`grid_delta_pair` once per distinct ``eps``."""
    return prepared_deltas(noise, W1, W2, delta)(epsilons)


def prepared_deltas(noise: NoiseLaw, W1, W2, delta: float):
    """``(epsilons, subset=None) -> (forward, backward)`` of :func:`grid_deltas` for these rows (or
    the rows ``subset`` of them: an index or a mask), what does not depend on ``eps`` done once
    (the law's ``prepare_deltas``, :class:`~bdpsim.kernels.noise.protocols.HasDeltaTable`; else
    :func:`grid_delta_pair` once per distinct ``eps`` at each call)."""
    if isinstance(noise, HasDeltaTable):
        return noise.prepare_deltas(W1, W2, delta)
    A0, B0 = np.atleast_2d(np.asarray(W1, dtype=float)), np.atleast_2d(np.asarray(W2, dtype=float))

    def at(epsilons, subset=None) -> tuple[np.ndarray, np.ndarray]:
        A, B = (A0, B0) if subset is None else (A0[subset], B0[subset])
        rows_ = A.shape[0]
        E = profile_epsilons(epsilons)
        fwd = np.zeros((rows_, E.shape[-1]))
        bwd = np.zeros_like(fwd)
        if E.ndim == 1:
            for k, e in enumerate(E):
                fwd[:, k], bwd[:, k] = grid_delta_pair(noise, A, B, delta, float(e))
            return fwd, bwd
        full = np.broadcast_to(E, (rows_, E.shape[1]))
        for e in np.unique(full):
            r, c = np.nonzero(full == e)
            f, b = grid_delta_pair(noise, A[r], B[r], delta, float(e))
            fwd[r, c], bwd[r, c] = f, b
        return fwd, bwd

    return at


def grid_delta_pair(noise: NoiseLaw, W1, W2, delta: float, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """``(noise.grid_delta(W1, W2, ...), noise.grid_delta(W2, W1, ...))``: both directions of the
    privacy profile, in one pass where the law offers it (``grid_delta_both``, Gaussian noise)."""
    if isinstance(noise, HasBothDeltas):
        return noise.grid_delta_both(W1, W2, delta, epsilon)
    return noise.grid_delta(W1, W2, delta, epsilon), noise.grid_delta(W2, W1, delta, epsilon)


#: the laws bdpsim ships (the registry's first entries)
_BUILTIN_LAWS = (LaplaceNoise, GeometricNoise, StaircaseNoise, GaussianNoise, TableNoise)
#: what a law's numbers are (its density) and what computes them exactly from it
_DENSITY = ("sample", "log_density", "cdf")
_EXACT = ("grid_sup", "grid_delta", "grid_delta_both", "sup_log_ratio", "hockey_stick", "_sup", "_delta")
#: attributes bdpsim reads as the mark of a built-in kernel: a law with a ``scale`` runs as Laplace
#: noise (:class:`~bdpsim.kernels.noise.protocols.LaplaceKernel`: closed forms, ``LaplaceCount``),
#: one with a ``sigma`` as Gaussian noise (:class:`~bdpsim.kernels.noise.protocols.GaussianKernel`)
_KERNEL_MARKS: dict[str, Any] = {"scale": LaplaceNoise, "sigma": GaussianNoise}


def _has_member(law: type, name: str) -> bool:
    """Whether instances of the class ``law`` have the attribute ``name`` (a dataclass field, an
    annotation or a class attribute)."""
    return name in dir(law) or any(name in vars(c).get("__annotations__", {}) for c in law.__mro__)


def _own_numbers(law: type) -> str | None:
    """Why a law that is not one of bdpsim's own would run another law's numbers (``None``: it
    would not). The exact engines do not evaluate a law's density: they call its exact functions
    and take a law carrying a built-in kernel's mark for that kernel (closed forms). So a law
    may neither subclass a built-in law, change its density and inherit its exact functions, nor
    carry ``scale``/``sigma``; otherwise bdpsim would compute the parent's numbers under the new
    law's name, without a word."""
    if law in _BUILTIN_LAWS:
        return None
    for base in (b for b in law.__mro__[1:] if b in _BUILTIN_LAWS):
        changed = [
            m for m in _DENSITY if inspect.getattr_static(law, m) is not inspect.getattr_static(base, m)
        ]
        kept = [
            m
            for m in _EXACT
            if m in dir(base) and inspect.getattr_static(law, m) is inspect.getattr_static(base, m)
        ]
        if changed and kept:
            return (
                f"subclasses the built-in {base.__name__} and changes its {', '.join(changed)} but "
                f"inherits its exact {', '.join(kept)}: bdpsim would compute {base.__name__}'s numbers, "
                "not this law's; write a class of its own (the NoiseLaw protocol)"
            )
    for mark, builtin in _KERNEL_MARKS.items():
        if _has_member(law, mark):
            return (
                f"has a {mark!r}, the mark of the built-in {builtin.__name__} (bdpsim computes a law "
                f"with a {mark!r} as {builtin.name} noise, by its closed forms, not this law's "
                "functions): name the parameter otherwise"
            )
    return None


def _law_problem(law: type) -> str | None:
    """Why ``law`` cannot be registered: its declared traits contradict it, or it would run another
    law's numbers (:func:`_own_numbers`); ``None``: it can."""
    return contradiction(law) or _own_numbers(law)


class NoiseLawRegistry(Registry):
    """The noise-law registry; it keeps :data:`~bdpsim.kernels.noise.traits.TRAITS` (what each law
    can do, read without NumPy by the command line) in step with its entries."""

    def __setitem__(self, name: str, law: Any) -> None:
        traits = traits_of(law, name)
        declare(traits if traits.name == name else replace(traits, name=name))
        super().__setitem__(name, law)

    def __delitem__(self, name: str) -> None:
        super().__delitem__(name)
        TRAITS.pop(name, None)


NOISE_LAWS: Registry = NoiseLawRegistry(
    "noise law",
    NoiseLaw,
    _law_problem,
    entries={
        law.traits.name: law
        for law in (LaplaceNoise, GeometricNoise, StaircaseNoise, GaussianNoise, TableNoise)
    },
)  # each law checked against NoiseLaw; table: a user pmf with geometric tails


def register_noise_law(law: type) -> type:
    """Add the noise law ``law`` (a class satisfying :class:`NoiseLaw`) to :data:`NOISE_LAWS` under
    its ``name``, after checking it is complete; returns it (usable as a class decorator). Its
    ``keys`` become ``[mechanism]`` keys of every query kind (``count``, ``clipped_sum``,
    ``sum``), and ``noise = "<name>"`` selects it."""
    return NOISE_LAWS.register(law, stacklevel=2)


#: the ``noise`` key itself (the law's name); each law's own keys follow it in :func:`noise_keys`
NOISE_KEY = Key(
    "str",
    DEFAULT_LAW,
    hashed=False,
    doc="the additive noise law",
    rule="a registered noise law (bdpsim.kernels.noise.laws.NOISE_LAWS)",
)


def noise_keys() -> dict[str, Key]:
    """The config keys of the noise laws, read from the registry now: ``noise`` and every
    registered law's ``keys`` (a key two laws declare is the first one's)."""
    out = {"noise": NOISE_KEY}
    for law in NOISE_LAWS.values():
        for k, key in law.keys.items():
            out.setdefault(k, key)
    return out


def key_owner(key: str) -> str | None:
    """The name of the first registered law declaring the config key ``key`` (``None``: none)."""
    return next((name for name, law in NOISE_LAWS.items() if key in law.keys), None)


def noise_from_params(
    name: str, epsilon=None, sensitivity=1.0, scale=None, step=1.0, config_dir=None, **options
) -> NoiseLaw:
    """Build a noise law from config-style parameters (errors name the parameter: the config layer,
    :mod:`bdpsim.mechanisms.kinds`, names the ``mechanism.*`` field).

    ``options`` are the laws' own keys (:func:`noise_keys`; ``table``: a :class:`TableNoise`
    itself); each law's ``from_params`` reads the ones it takes and refuses the others:

    * ``laplace``: ``scale``, or ``epsilon`` with ``scale = sensitivity / epsilon``;
    * ``geometric``: ``epsilon`` for a query of this ``sensitivity`` (a multiple of ``step``): the
      per-step rate is ``epsilon * step / sensitivity``;
    * ``staircase``: ``epsilon``, ``staircase_gamma`` (default ``gamma*``), ``sensitivity``;
    * ``gaussian``: ``sigma``;
    * ``table``: ``noise_table`` or ``noise_pmf`` (with ``noise_offset``, ``noise_tail_ratio``), or
      ``table``, a :class:`TableNoise` (:func:`bdpsim.kernels.noise.table.table_from_params`).
    """
    require(name in NOISE_LAWS, "name", name, f"must be one of {sorted(NOISE_LAWS)}")
    known = set(noise_keys()) | {"table"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise TypeError(
            f"noise_from_params() got unexpected keyword arguments {unknown} (no registered law takes them)"
        )
    params = NoiseParams(epsilon, sensitivity, scale, step, options, config_dir)
    law: Any = NOISE_LAWS[name]
    return law.from_params(params)  # each law reads (and checks) the parameters it takes


def noise_with_amount(
    name: str, amount: float, sensitivity: float, *, step: float = 1.0, staircase_gamma: float | None = None
) -> NoiseLaw:
    """The law ``name`` with ``amount`` of noise for a query of ``sensitivity`` ``Delta``: the law's
    own parameter when its noise grows with it (the Laplace scale, the Gaussian sigma), else the DP
    epsilon ``Delta / amount`` (geometric on the lattice of ``step``; staircase with
    ``staircase_gamma``, default ``gamma*``). So the DP adversary leaks ``Delta / amount`` under
    every pure law, and more ``amount`` is more noise (the amount calibrations search over)."""
    require(name in TRAITS, "name", name, f"must be one of {list(TRAITS)}")
    traits = TRAITS[name]
    if traits.grows:
        return noise_from_params(name, **{traits.amount: amount})
    return noise_from_params(
        name,
        epsilon=sensitivity / amount,
        sensitivity=sensitivity,
        scale=None,
        staircase_gamma=staircase_gamma,
        step=step,
    )


__all__ = [
    "NoiseLaw",
    "LaplaceNoise",
    "GeometricNoise",
    "StaircaseNoise",
    "GaussianNoise",
    "TableNoise",
    "NOISE_LAWS",
    "NOISE_KEY",
    "key_owner",
    "noise_keys",
    "register_noise_law",
    "noise_from_params",
    "noise_with_amount",
    "table_from_params",
    "grid_delta_pair",
    "grid_deltas",
    "prepared_deltas",
    "ParameterError",
    "MixtureSup",
]
