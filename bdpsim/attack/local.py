"""The optimal attack on the local release of every record of a Markov chain
(:class:`~bdpsim.mechanisms.local.LocalRelease` with a likelihood matrix: k-RR, randomized response,
a matrix), read from the accountant of the release (:class:`~bdpsim.accounting.local.LocalAccount`,
on the chain kernels :mod:`bdpsim.kernels.chains.local_worst` and
:mod:`bdpsim.kernels.chains.local_profile`): one implementation for both.

**Advantage.** ``TV(P, Q) = delta(0)``: the profile at ``eps = 0``, of one adversary or its
supremum over every adversary (target, pair of values, nearest known records on each side),
bracketed ``[low, high]`` to :data:`TOLERANCE` (the grid refined until then, or its finest size).

**TPR at FPR alpha.** The worst adversary's most powerful test: ``sup_adv TPR_adv(alpha)``, each
adversary's own ``TPR_adv(alpha) = inf_eps [e^eps alpha + delta_adv(eps)]`` over every real ``eps``
and both orders of its pair (Neyman-Pearson on its own law pair), bracketed: the lower end is
attained by a test of the adversary named, the upper end holds for every adversary (the kernel's
branch and bound over adversaries, refined with the grid until :data:`TOLERANCE` wide). Not the
profile's bound ``inf_eps sup_adv [e^eps alpha + delta_adv(eps)]``, which lies above it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..accounting.local import LocalAccount, joint_matrix
from ..accounting.values import Value
from ..adversary import Adversary
from ..core.errors import ConfigError, NotAvailable
from ..kernels.chains.local_profile import known_sizes, local_release
from ..models.protocols import MarkovChain
from .tradeoff import check_fpr

#: the width of the advantage's and the TPR's bracket the refinement aims at
TOLERANCE = 1e-6


@dataclass(frozen=True)
class Bracket:
    """A number known to lie in ``[low, high]`` (``kind``: ``certified bracket``), with the adversary
    of its lower end where one attains it."""

    low: float
    high: float
    kind: str
    adversary: Adversary | None = None

    @property
    def width(self) -> float:
        return self.high - self.low

    def text(self, digits: int = 4) -> str:
        return f"[{self.low:.{digits}g}, {self.high:.{digits}g}] ({self.kind}, width {self.width:.2g})"


def _bracket(v: Value) -> Bracket:
    return Bracket(float(v.lower), float(v.upper), "certified bracket", v.adversary)


@dataclass(frozen=True)
class LocalAttackRisk:
    """The optimal attack on a local release, bracketed.

    Attributes
    ----------
    advantage : Bracket
        ``max (TPR - FPR) = TV(P, Q)`` of the adversary given, or its supremum over every adversary,
        certified between ``low`` and ``high``.
    adversary : Adversary
        The adversary given, or the one of the advantage's largest lower end (its nearest known
        records).
    worst : bool
        Whether the numbers are suprema over every adversary.
    account : LocalAccount
        The release's accountant, which computes (and keeps) every number.
    """

    advantage: Bracket
    adversary: Adversary
    worst: bool
    account: LocalAccount = field(repr=False, compare=False)

    def tpr_at(self, fpr: float) -> Bracket:
        """The worst adversary's (or the one given's) most powerful test's TPR at ``fpr``, a
        certified bracket (module docstring) with the adversary attaining its lower end."""
        return _bracket(self.account.tpr_at(float(check_fpr("fpr", fpr))))

    def worst_tprs(self, fprs: Sequence[float]) -> list[Bracket]:
        """:meth:`tpr_at` at each FPR, computed in one refinement."""
        fs = [float(check_fpr("fpr", f)) for f in fprs]
        self.account.prepare(fprs=fs)
        return [self.tpr_at(f) for f in fs]


def local_attack_risk(
    model, release, adversary: Adversary | None = None, *, sizes: Any = "all", fpr: Sequence[float] = ()
) -> LocalAttackRisk:
    """The optimal attack on ``release`` (a local release with a likelihood matrix) over ``model``
    (a Markov chain): of one ``adversary``, or the worst over every adversary with ``|K|`` in
    ``sizes`` (module docstring), with the TPR at each ``fpr`` computed in the same refinement;
    ``NotAvailable`` naming the release where there is no matrix or no chain, or where the
    bracket's work is too large (before the work)."""
    if not isinstance(model, MarkovChain):
        raise NotAvailable(
            f"release {release.label!r}: the optimal attack on a local release is computed on a Markov "
            f"chain, not on {type(model).__name__}"
        )
    if adversary is not None and not isinstance(adversary, Adversary):
        raise ConfigError("adversary", adversary, "must be a bdpsim.Adversary")
    fs = [float(check_fpr("fpr", f)) for f in fpr]
    M = joint_matrix((release,), int(model.states))  # NotAvailable for any / continuous outputs / schedules
    chain = local_release(
        np.asarray(model.transition, dtype=float),
        np.asarray(model.initial, dtype=float),
        M.T,
        steps=int(model.n),
    )
    acc = LocalAccount(
        model, (release,), adversary, known_sizes(sizes, int(model.n)), chain, tolerance=TOLERANCE
    )
    acc.check_cost()
    acc.prepare(epsilons=[0.0], fprs=fs)
    adv = acc.advantage
    who = adversary if adversary is not None else adv.adversary
    assert who is not None
    return LocalAttackRisk(_bracket(adv), who, adversary is None, acc)


__all__ = ["Bracket", "LocalAttackRisk", "TOLERANCE", "local_attack_risk"]
