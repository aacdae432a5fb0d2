"""
Tutorial: what could an attacker learn about one household?
===========================================================

What could an attacker learn about one household?

Five households on a street share a heat network, and the operator publishes, each evening, how
many of them drew a high load at the peak — with Laplace noise calibrated for ε-DP, ε = 1. The
households' loads are correlated (neighbours' heating follows the weather and each other), so a
BDPL above ε is expected; but a data-protection officer asks a plainer question: *could someone
tell from the published number whether one household drew a high load, and how often would they be
wrong?*

``bdpsim.attack_risk`` answers with the **optimal attack** of every adversary (every target
household, every set of households it already knows and their loads): its advantage
``max (TPR - FPR)``, its true-positive rate at a small false-positive rate, and the whole
trade-off curve, exact on the correlated model. On the command line, the bundled config
``bayesnet_example`` holds this network (its records numbered, not named) and prints the same
numbers: ``bdpsim attack config bayesnet_example --epsilon 1 --fpr 0.001 0.01 --plot roc.png``;
for your own network, a config whose ``[model]`` is ``kind = "bayesnet"`` with ``bif = "street.bif"``.
"""

import math

import matplotlib.pyplot as plt

import bdpsim
from bdpsim.attack.tradeoff import pure_dp_tradeoff
from bdpsim.figures.attack import plot_attack_roc
from bdpsim.models import BayesNetModel

# %%
# 1. The model: a Bayesian network of the five households, each ``low`` or ``high`` at the peak
# (here written in code; ``bdpsim.from_bif("street.bif")`` reads the same from a BIF file). No. 1
# sets the pace for its neighbours no. 3 and no. 5; no. 7 depends on both; no. 9 follows no. 7.
street = BayesNetModel(
    parents=[[], [0], [0], [1, 2], [3]],
    cpt=[
        [0.6, 0.4],  # P(no. 1 = low, high)
        [[0.8, 0.2], [0.3, 0.7]],  # no. 3 given no. 1 = low, high
        [[0.9, 0.1], [0.25, 0.75]],  # no. 5 given no. 1
        [[[0.95, 0.05], [0.4, 0.6]], [[0.5, 0.5], [0.1, 0.9]]],  # no. 7 given no. 3, no. 5
        [[0.85, 0.15], [0.2, 0.8]],  # no. 9 given no. 7
    ],
    names=["no. 1", "no. 3", "no. 5", "no. 7", "no. 9"],
    state_names=[("low", "high")] * 5,
)
print(f"households (bdpsim's record order): {street.names}")

# %%
# 2. The release: the count of ``high`` households plus Laplace noise of scale 1/ε (ε-DP). The
# state names are the network's: ``model=street`` reads them as a config's ``counted_states``.
eps = 1.0
count = bdpsim.LaplaceCount(epsilon=eps, counted_states=("high",), model=street)

# %%
# 3. The worst attack over every adversary. ``fpr`` names the false-positive rates whose worst
# true-positive rate is searched in the same passes; ``bdpl=True`` adds the exact BDPL over every
# adversary from the first search.
risk = bdpsim.attack_risk(street, count, fpr=(1e-3, 1e-2), bdpl=True)
print(f"worst advantage max(TPR - FPR): {risk.advantage:.4f}")
print(f"  attained by: {bdpsim.describe_adversary(street, risk.adversary)}")
print(f"  that adversary's Bayes-optimal guess is right {risk.bayes_success():.1%} of the time (prior 1/2)")
for fpr in (1e-3, 1e-2):
    w = risk.worst_tpr(fpr)
    state = "certified exact" if w.certified else f"bound for every adversary {w.upper:.4f}"
    who = bdpsim.describe_adversary(street, w.adversary, short=True)
    print(f"worst TPR at FPR {fpr:g}: {w.value:.4f} ({state}); {who}")
print(f"exact BDPL over every adversary: {risk.bdpl_max:.4f} nats (the DP epsilon: {eps})")

# %%
# What the numbers mean. The worst adversary targets household no. 7 and knows nobody else's load:
# no. 7 has the most neighbours in the network (no. 3, no. 5, no. 9), so its load carries most of
# the others' along, and the count, which adds them up, moves most with it. From the count alone,
# its best test tells ``high`` from ``low`` with a TPR that exceeds its FPR by up to the
# advantage, and guesses right 85 % of the time
# where a coin would be right half of it. At a threshold that wrongly accuses one ``low`` household
# in a hundred, it catches about a quarter of the ``high`` ones.
#
# The BDPL (in nats) is the largest log-likelihood ratio of any output. Read as a pure-ε guarantee
# it would allow an advantage of ``tanh(BDPL / 2)``, more than any attack achieves here; at low
# FPR, though, the worst attack runs along that pure-ε line, ``TPR = e^BDPL FPR``: the largest
# ratio holds on the Laplace tails, a set of outputs of positive probability.
pure = pure_dp_tradeoff(risk.bdpl_max)
print(f"advantage the BDPL's pure-eps reading allows: {pure.advantage:.4f}")
print(f"TPR / FPR at FPR 1e-3: {risk.tpr_at(1e-3) / 1e-3:.2f}; e^BDPL = {math.exp(risk.bdpl_max):.2f}")

# %%
# What they do not mean. These are Bayesian DP numbers on **this** model: an adversary who knows
# the network's probabilities. A different model of the street gives different numbers; they are
# not a DP guarantee, which holds whatever the data (the Laplace count is ε = 1-DP regardless).
#
# 4. The trade-off curve, every FPR at once: the worst TPR attained (solid), the bound for every
# adversary (shaded where above it), the two FPRs of the table marked, and the pure-ε curve of
# the exact BDPL (dashed).
# ``risk_roc_data`` computes the curves once; ``plot_attack_roc`` draws them on an Axes and returns
# it (linear axes, or ``log=True`` for the low FPRs). ``bdpsim attack --plot roc.png`` saves the same
# two panels.
roc = bdpsim.risk_roc_data(risk, marks=(1e-3, 1e-2))
fig, (ax, bx) = plt.subplots(1, 2, figsize=(10.0, 4.2), layout="constrained")
plot_attack_roc(roc, ax, show_legend=False)
plot_attack_roc(roc, bx, log=True)
fig.suptitle(f"Optimal attack on one household, Laplace count eps = {eps:g}")

# %%
# 5. How much noise keeps every attack below a target? The least Laplace scale whose worst
# advantage is at most 0.1, beside the scale ε-BDP calibration needs for the ε whose pure-ε
# curve meets the same target (``ε = 2 artanh(0.1)``): the attack target is the weaker
# requirement, so it needs less noise. On the command line:
# ``bdpsim calibrate config bayesnet_example --target-advantage 0.1``.
cal = bdpsim.calibrate_attack(street, count, target_advantage=0.1)
print(f"least Laplace scale for worst advantage <= 0.1: {cal.parameter:g} (worst advantage {cal.value:.6f})")
print(
    f"eps-BDP at eps = {cal.epsilon:.4f} needs scale {cal.bdp_parameter:.4g}: {cal.saving:.3f} times as much"
)
print(f"the DP count's scale 1/eps = {1 / eps:g}")

# %%
# On this network an advantage of at most 0.1 costs about fifteen times the DP count's noise, and
# the attack target saves only a few per cent over ε-BDP calibration: the households are strongly
# correlated, and the worst attack is close to the pure-ε one. The calibrated scale is rounded
# toward more noise, so the printed amount meets the target. Like the advantage itself, it is a
# statement about attacks under this model of the street.
