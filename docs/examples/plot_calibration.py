"""
How much noise each method prescribes
=====================================

The Laplace scale that makes a count ε-BDP on the activity chain of the paper (the exact
calibration: the smallest such scale), against the scales the bounds prescribe. Where a method
cannot calibrate (the Markov bound needs ε > 4 ln γ) it gives no scale. See
:doc:`/user/calibration`.
"""

import math

import matplotlib.pyplot as plt

import bdpsim

chain = bdpsim.MarkovChainModel([[0.882, 0.118], [0.305, 0.695]], n=40)
epsilons = [1.0, 2.0, 5.0, 10.0]
scales = {m: [] for m in ("exact", "general", "markov")}
for eps in epsilons:
    for m in scales:
        c = bdpsim.calibrate(chain, eps, method=m)
        scales[m].append(c.scale if c.scale is not None and math.isfinite(c.scale) else math.nan)
for m, s in scales.items():
    print(m.ljust(8), " ".join(f"{v:8.3f}" for v in s))

fig, ax = plt.subplots(figsize=(6, 3.5))
for m, marker in zip(scales, "os^", strict=True):
    ax.plot(epsilons, scales[m], marker + "-", label=m)
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("target ε (BDP)")
ax.set_ylabel("Laplace scale b")
ax.legend(title="method")
fig.tight_layout()
