"""Exact reference values of what an estimator estimates, one- or two-sided.

The adversary-specific BDPL of a fixed ordered pair ``(x, x')`` (thesis §2, Def. 2.11) is the
one-sided ``sup_s ln p(s | x_K, x) / p(s | x_K, x')``; the thesis' estimator estimates exactly
that (§3.1.2 step 6). bdpsim's exact engines (:data:`~bdpsim.estimators.EXACT_ENGINES`) return
the two-sided ``sup_s |ln p(s | x_K, x) / p(s | x_K, x')|`` (both orders of the pair at once).

* Two-sided: :func:`~bdpsim.estimators.adversary_bdpl`.
* One-sided, a model with an exact query law (Markov chain + count): the forward supremum of the
  two exact Laplace mixtures ``p_x(y) = sum_c P(C = c | x_K, x) e^{-|y - c|/b} / 2b``
  (:func:`~bdpsim.kernels.laplace_mixture.mixture_sup`, ``forward``).
* One-sided, Gaussian + sum / clipped sum: where these engines are exact the output is a location
  family ``q(y - a x)`` (resp. ``q(y - clip(x))``) of a ``1/b``-log-Lipschitz density ``q`` whose
  log-slopes tend to ``∓1/b`` in the tails, so both one-sided suprema equal the two-sided value
  ``|a x - a x'| / b``.
"""

from __future__ import annotations

from ..errors import NotAvailable
from ..sampling import exact_query_law
from .base import Estimate
from .engines import adversary_bdpl
from ..kernels.laplace_mixture import mixture_sup

DIRECTION_FREE = {("gaussian", "sum"), ("gaussian", "clipped_sum")}


def exact_reference(model, mechanism, adversary, signed: bool = False) -> Estimate:
    """Exact ``sup_s ln p(s | x_K, x)/p(s | x_K, x')`` (``signed``) or its two-sided version.

    Raises :class:`~bdpsim.errors.NotAvailable` where no exact value exists.
    """
    two_sided = adversary_bdpl(model, mechanism, adversary)
    if not signed:
        return two_sided
    law_x = exact_query_law(model, mechanism, adversary.condition(adversary.x))
    law_xp = exact_query_law(model, mechanism, adversary.condition(adversary.x_prime))
    if law_x is not None and law_xp is not None:
        s = mixture_sup(*law_x, *law_xp, mechanism.noise_scale)
        where = s.argmax if s.forward >= s.backward else float("nan")
        return Estimate(s.forward, 0, where)
    if (getattr(model, "kind", None), getattr(mechanism, "kind", None)) in DIRECTION_FREE:
        return two_sided
    raise NotAvailable(f"no one-sided exact value for {getattr(model, 'kind', model)}"
                       f"+{getattr(mechanism, 'kind', mechanism)}")
