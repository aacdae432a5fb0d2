"""
A tour of the Python API
========================

Exact leakage, one adversary, the bounds, calibration, a worst-case search and a whole config run
from a dict (the same keys as the TOML files; :doc:`/reference/config-keys`).
"""

import bdpsim

# %%
# Exact BDPL of a Laplace count on the thesis' Fig. 14 chain, over every adversary (K = {} included)
chain = bdpsim.MarkovChainModel(bdpsim.symmetric_chain(5.0), n=6)
worst = bdpsim.exact_bdpl(chain, bdpsim.LaplaceCount(epsilon=1.0))
print(worst.bdpl, worst.adversary)

# %%
# One adversary, and the bounds that apply
adv = bdpsim.Adversary(i=0, known=(1,), x_known=(1,), x=0, x_prime=1)
print(bdpsim.exact_bdpl(chain, bdpsim.LaplaceCount(1.0), adv).bdpl)
print(bdpsim.markov_bound(1.0, chain.transition).value)  # eps + 4 ln gamma

# %%
# The least Laplace scale that makes the count 1-BDP on this chain, and what the Markov bound needs
print(bdpsim.calibrate(chain, 1.0, method="exact").scale)
print(bdpsim.calibrate(chain, 1.0, method="markov").reason)

# %%
# Is the symmetric chain the worst one with max P / min P <= 5?  (``bdpsim worst-case markov``)
search = bdpsim.worst_case_markov(5.0, n=6, epsilon=1.0, starts=2)
print(search.bdpl, search.symmetric_bdpl)

# %%
# A whole config as a dict: a pandas DataFrame if pandas is installed. ``bdpl_exact`` is the
# largest exact BDPL among the 40 *sampled* adversaries, not over every adversary as
# ``exact_bdpl`` above (``"adversaries": "all"`` runs that search).
table = bdpsim.run(
    {
        "run": {"adversaries": 40, "samples": 20000, "estimator": "mixture"},
        "model": {"kind": "markov", "n": 6, "gamma": [1.0, 5.0]},
        "mechanism": {"kind": "count", "epsilon": 1.0},
    }
)
table["exact_all"] = [
    bdpsim.exact_bdpl(bdpsim.MarkovChainModel(bdpsim.symmetric_chain(g), n=6), bdpsim.LaplaceCount(1.0)).bdpl
    for g in table["gamma"]
]
print(table[["gamma", "bdpl_p99", "bdpl_exact", "exact_all", "bound_model"]])

# %%
# ``bdpsim.run`` also takes a TOML path or a bundled config's name
# (``bdpsim.run("quickstart", "results/my-quickstart")``, resumable like ``bdpsim run``);
# ``bdpsim.load_results(DIR)`` and ``bdpsim.load_adversaries(DIR)`` read a finished run back.
