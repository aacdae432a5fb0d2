"""What an accountant for independent records would say about the same releases, to set beside the
joint values: the per-release BDPLs summed, and the per-release profiles composed as if the releases
were independent given the secret (each release's worst pair at the asked ``eps``, composed as
privacy-loss distributions: ``dp_accounting``'s where installed, :mod:`bdpsim.kernels.privacy.pld`
otherwise). Neither is a bound of the joint leakage on correlated records, in either direction:
the releases share the unknown records, so their losses are dependent given the secret."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..kernels.privacy import mixture as MX
from ..kernels.privacy.gaussian import gaussian_delta
from ..kernels.privacy.pld import LossBracket
from .values import Value, bracket, exact

#: loss grid of the naive composition
STEP = 1e-3


def dp_accounting_available() -> bool:
    try:
        import dp_accounting  # noqa: F401
    except ImportError:
        return False
    return True


@dataclass
class Naive:
    """The naive answers of an :class:`~bdpsim.accounting.Account`."""

    account: Any
    groups: list = field(default_factory=list)  # (release, count, its own Account)

    @property
    def summed_bdpl(self) -> Value:
        """``sum_r BDPL_r``: each release's worst BDPL, added up."""
        lo = hi = 0.0
        for _, k, sub in self.groups:
            b = sub.bdpl
            lo, hi = lo + k * b.lower, hi + k * b.upper
        return bracket(lo, hi, note="sum of the per-release BDPLs")

    def _brackets(self, epsilon: float) -> tuple[LossBracket, LossBracket]:
        fwd = bwd = None
        for _, k, sub in self.groups:
            pair = sub.pair(sub.delta(epsilon).adversary)
            z, a, p, q = pair._one()
            for order, (u, v) in enumerate(((p, q), (q, p))):
                cells = MX.loss_cells(z, a, u, v)
                br = LossBracket.from_cells(cells.mass, cells.lower, cells.upper, STEP, cells.inf_mass)
                br = br.self_compose(k)
                if order == 0:
                    fwd = br if fwd is None else fwd.compose(br)
                else:
                    bwd = br if bwd is None else bwd.compose(br)
        assert fwd is not None and bwd is not None
        return fwd, bwd

    def composed_delta(self, epsilon: float) -> Value:
        """The per-release profiles composed as if independent, at ``epsilon`` (each release's worst
        adversary at ``epsilon``; both orders, the larger)."""
        acc = self.account
        if acc.gaussian:
            mu = math.sqrt(sum(k * sub._gauss_worst()[0] ** 2 for _, k, sub in self.groups))
            return exact(gaussian_delta(mu, epsilon), note="mu-GDP composition")
        fwd, bwd = self._brackets(epsilon)
        f, b = fwd.delta(epsilon), bwd.delta(epsilon)
        return bracket(max(f[0], b[0]), max(f[1], b[1]), note="composition as if independent")

    def dp_accounting_delta(self, epsilon: float) -> float | None:
        """The same composition by ``dp_accounting``'s PLD (``None`` when it is not installed)."""
        if not dp_accounting_available() or self.account.gaussian:
            return None
        fwd, bwd = self._brackets(epsilon)
        return to_dp_accounting(fwd.upper, bwd.upper).get_delta_for_epsilon(epsilon)


def to_dp_accounting(remove, add):
    """A ``dp_accounting`` ``PrivacyLossDistribution`` from two pessimistic
    :class:`~bdpsim.kernels.privacy.pld.PrivacyLoss` of the same grid: ``remove`` the pair in one
    order, ``add`` in the other."""
    from dp_accounting.pld import privacy_loss_distribution as pldlib

    def pmf(pl):
        return {int(pl.offset + k): float(m) for k, m in enumerate(pl.pmf) if m > 0}

    return pldlib.PrivacyLossDistribution.create_from_rounded_probability(
        pmf(remove),
        float(remove.inf_mass),
        float(remove.h),
        pessimistic_estimate=True,
        rounded_probability_mass_function_add=pmf(add),
        infinity_mass_add=float(add.inf_mass),
        symmetric=False,
    )


def naive(acc) -> Naive:
    counts = Counter(acc.flat)
    groups = [(r, k, acc.single(r)) for r, k in counts.items()]
    return Naive(acc, groups)


__all__ = ["Naive", "naive", "to_dp_accounting", "dp_accounting_available"]
