"""What each noise law can do, declared once and readable without the numerical stack.

Every caller that offers or refuses a law by what it can do — the command line's ``--noise`` and
``--release`` choices, the calibration methods, the attack's calibration, the continual
release — asks :func:`law_names` (or :data:`TRAITS`), never a list of names of its own.

A law's :class:`LawTraits` say:

* ``name``: the config's ``noise = "<name>"`` and the command line's ``--noise <name>``;
* ``amount``: the law's parameter that sets the amount of noise (``scale``, ``sigma``,
  ``epsilon``), and ``grows``: whether the noise grows with it (a scale) or shrinks (a DP epsilon);
* ``calibratable``: the law has an amount to calibrate (a table has not);
* ``pure_dp``: what the exact engines answer for it — a finite pure BDPL at every amount (so it is
  calibrated to eps-BDP), or, when False, the privacy profile ``delta(eps)`` only (Gaussian noise:
  its BDPL is infinite; a table: pure DP or not by its table);
* ``monotone``: why the BDPL and the privacy profile cannot grow as the noise grows (the
  decomposition ``N2 = N1 + W``: adding independent noise is post-processing), ``""`` when no
  proof is known; the searches that rely on it (calibration to an attack target) take only the
  laws with a reason;
* ``not_pure``: why a law is not pure DP, in a refusal's words (``""`` for a pure law);
* ``exponential``: the density is ``∝ e^{-|y|/b}`` (on its lattice for a discrete law): between
  two atoms a likelihood ratio of shifted copies is monotone, so the outputs at the atoms are the
  extreme rays of a release of per-state values (:func:`bdpsim.temporal.mechanisms.value_noise`).

The built-in laws' traits are written here, beside their reasons, because this module imports no
NumPy: the command line reads them while it builds its parser (``bdpsim --help`` starts without the
numerical stack); each law class of :mod:`bdpsim.kernels.noise.laws` takes its own
(``LaplaceNoise.traits``) and its class attributes (``calibratable``, ``pure_dp``, ...) from them.
A law registered later (:func:`bdpsim.kernels.noise.laws.register_noise_law`) adds its traits to
:data:`TRAITS`: its ``traits`` if it declares them, else those its class attributes give.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class LawTraits:
    """What a noise law can do (module docstring).

    Parameters
    ----------
    name : str
        The config and command-line name (``laplace``).
    amount : str
        The parameter that sets the amount of noise (``scale``, ``sigma``, ``epsilon``).
    grows : bool
        Whether the noise grows with ``amount`` (a scale) or as it falls (a DP epsilon).
    calibratable : bool
        Whether the law has an amount to calibrate.
    pure_dp : bool
        Exact-engine support: a finite pure BDPL at every amount (True) or the privacy profile only.
    monotone : str
        Why the BDPL and ``delta(eps)`` are non-increasing in the amount of noise (``""``: no proof).
    exponential : bool
        Whether the density is ``∝ e^{-|y|/b}`` (on its lattice for a discrete law).
    not_pure : str
        Why the law is not pure DP, for a refusal (``""`` for a pure law).
    """

    name: str
    amount: str
    grows: bool
    calibratable: bool
    pure_dp: bool
    monotone: str = ""
    exponential: bool = False
    not_pure: str = ""

    def __post_init__(self) -> None:
        for key, value in (("name", self.name), ("amount", self.amount)):
            if not (isinstance(value, str) and value):
                raise TypeError(f"LawTraits.{key} must be a non-empty string, not {value!r}")
        for key, text in (("monotone", self.monotone), ("not_pure", self.not_pure)):
            if not isinstance(text, str):
                raise TypeError(f"LawTraits.{key} must be a reason (a string), not {text!r}")
        for key, flag in (*self.flags().items(), ("grows", self.grows)):
            if not isinstance(flag, bool):
                raise TypeError(f"LawTraits.{key} must be True or False, not {flag!r}")

    def flags(self) -> dict[str, bool]:
        """The capabilities :func:`law_names` selects on (``monotone``: whether a reason is given)."""
        return {
            "calibratable": self.calibratable,
            "pure_dp": self.pure_dp,
            "monotone": bool(self.monotone),
            "exponential": self.exponential,
        }


LAPLACE = LawTraits(
    "laplace",
    "scale",
    grows=True,
    calibratable=True,
    pure_dp=True,
    monotone="Lap(b2) = Lap(b1) + W for b2 > b1 (W = 0 with probability (b1/b2)^2, else Lap(b2)): "
    "more noise is post-processing",
    exponential=True,
)
GEOMETRIC = LawTraits(
    "geometric",
    "epsilon",
    grows=False,
    calibratable=True,
    pure_dp=True,
    monotone="Geom(q2) = Geom(q1) + W - W' for q2 > q1 (W, W' i.i.d. >= 0; bdpsim.kernels.noise.laws): "
    "more noise is post-processing",
    exponential=True,
)
STAIRCASE = LawTraits(
    "staircase",
    "epsilon",
    grows=False,
    calibratable=True,
    pure_dp=True,
    monotone="",  # with a fixed gamma measured non-increasing, not proven (bdpsim.kernels.noise.laws)
)
GAUSSIAN = LawTraits(
    "gaussian",
    "sigma",
    grows=True,
    calibratable=True,
    pure_dp=False,  # its BDPL is infinite: the privacy profile delta(eps)
    monotone="N(0, s2^2) = N(0, s1^2) + N(0, s2^2 - s1^2) for s2 > s1: more noise is post-processing",
    not_pure="Gaussian noise",
)
TABLE = LawTraits(
    "table",
    "tail_ratio",
    grows=True,
    calibratable=False,
    pure_dp=False,
    not_pure="the table's pmf is 0 where its shift by the sensitivity is not: a finite support or a "
    "zero inside",
)

#: the law a query mechanism adds when its config names none (``noise`` key's default)
DEFAULT_LAW = LAPLACE.name

#: every declared law's traits by name, in registration order: the built-ins, then each law
#: registered since (:func:`bdpsim.kernels.noise.laws.register_noise_law`)
TRAITS: dict[str, LawTraits] = {t.name: t for t in (LAPLACE, GEOMETRIC, STAIRCASE, GAUSSIAN, TABLE)}


def declare(traits: LawTraits) -> LawTraits:
    """Add (or replace) a law's traits in :data:`TRAITS` (the noise-law registry does, as it
    registers the law); returns them."""
    if not isinstance(traits, LawTraits):
        raise TypeError(f"a noise law's traits are a LawTraits, not {traits!r}")
    TRAITS[traits.name] = traits
    return traits


def traits_of(law: Any, name: str) -> LawTraits:
    """The traits of the law class ``law`` registered as ``name``: its own ``traits`` if it declares
    them, else those its class attributes give (``calibratable``, ``pure_dp``, ``parameter_name``,
    ``noise_grows_with_parameter``; no proof of monotonicity, no exponential kernel)."""
    own = inspect.getattr_static(law, "traits", None)
    if isinstance(own, LawTraits):
        return own
    amount = inspect.getattr_static(law, "parameter_name", None)
    grows = inspect.getattr_static(law, "noise_grows_with_parameter", None)
    return LawTraits(
        name,
        amount if isinstance(amount, str) and amount else "parameter",
        grows if isinstance(grows, bool) else True,
        bool(law.calibratable),
        bool(law.pure_dp),
    )


def contradiction(law: Any) -> str | None:
    """Why a law's declared ``traits`` contradict its class attributes (``None``: they agree)."""
    own = inspect.getattr_static(law, "traits", None)
    if own is None:
        return None
    if not isinstance(own, LawTraits):
        return f"traits must be a bdpsim.kernels.noise.traits.LawTraits, not {own!r}"
    said = {"calibratable": law.calibratable, "pure_dp": law.pure_dp}
    wrong = [k for k, v in said.items() if own.flags()[k] != v]
    return f"traits.{wrong[0]} contradicts the class's {wrong[0]}" if wrong else None


def law_names(
    *,
    calibratable: bool | None = None,
    pure_dp: bool | None = None,
    monotone: bool | None = None,
    exponential: bool | None = None,
) -> tuple[str, ...]:
    """The names of the declared laws whose traits match every condition given (``None``: any), in
    registration order; ``monotone=True``: the laws with a proof of monotonicity.

    Examples
    --------
    >>> law_names(calibratable=True, pure_dp=True)[:3]
    ('laplace', 'geometric', 'staircase')
    >>> law_names(monotone=True)[:3]
    ('laplace', 'geometric', 'gaussian')
    """
    want = {
        "calibratable": calibratable,
        "pure_dp": pure_dp,
        "monotone": monotone,
        "exponential": exponential,
    }
    return tuple(
        name for name, t in TRAITS.items() if all(v is None or t.flags()[k] == v for k, v in want.items())
    )


def one_of(names: tuple[str, ...]) -> str:
    """``names`` as a rule's words: ``laplace, geometric or staircase``."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


__all__ = [
    "DEFAULT_LAW",
    "GAUSSIAN",
    "GEOMETRIC",
    "LAPLACE",
    "STAIRCASE",
    "TABLE",
    "TRAITS",
    "LawTraits",
    "contradiction",
    "declare",
    "law_names",
    "one_of",
    "traits_of",
]
