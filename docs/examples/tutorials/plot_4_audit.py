"""
Tutorial: audit my own mechanism
================================

You have a mechanism bdpsim knows nothing about — a Python function that takes data tuples and
returns noisy outputs — and a model of how your records are correlated. The black-box audit
(``estimator = "audit"``) runs your function on data tuples drawn from the model given what each
adversary knows, and reports ``bdpl_lower``: a lower bound on the BDPL that holds with
probability at least 1 − ``audit_alpha`` (here 95 %). A bound above your ε proves the mechanism is
not ε-BDP on that model; a bound below it is evidence, not proof (:doc:`/user/audit`).

The steps: write the function in a module, point a config at it (``kind = "python"``), run the
audit, and — since this example's function happens to be a Laplace count — check the certified
bound against the exact value. On the command line: ``bdpsim run audit.toml --out results/my-audit``.
"""

import tempfile
from pathlib import Path

import bdpsim

# %%
# 1. Your mechanism: ``f(data, rng)`` gets an ``(N, n)`` array of N data tuples and returns N
# outputs. This one releases the number of 1s plus Laplace noise of scale 1 (an ε = 1 DP count),
# written as a user would, without telling bdpsim what it is.
work = Path(tempfile.mkdtemp())
(work / "mymech.py").write_text("""
import numpy as np

def noisy_count(data, rng):
    return (data == 1).sum(axis=1) + rng.laplace(0.0, 1.0, size=data.shape[0])
""")

# %%
# 2. The config, beside the module (a ``kind = "python"`` module next to its config is
# importable): a two-state chain of 10 readings, the window adversaries (know everything outside
# a window around the target: where the worst adversary of a count on a chain is), and a budget
# of 2·10^5 mechanism calls for the whole configuration, the adversary search included.
(work / "audit.toml").write_text("""
[run]
seed = 3
adversaries = 10
estimator = "audit"
adversary_family = "windows"
audit_alpha = 0.05
audit_budget = 200_000

[model]
kind = "markov"
n = 10
transition = [[0.9, 0.1], [0.2, 0.8]]

[mechanism]
kind = "python"
function = "mymech:noisy_count"
""")
table = bdpsim.run(work / "audit.toml", work / "out", as_frame=False)
row = table[0]
print(f"certified 95 % lower bound bdpl_lower = {row['bdpl_lower']:.3f}")
print(
    f"point estimate {row['bdpl_audit']:.3f} ± {row['bdpl_audit_se']:.3f} (the certified adversary's "
    f"event {row['audit_event']}), {row['audit_calls']} mechanism calls"
)

# %%
# 3. The check a black box does not allow, possible here because the function is a Laplace
# count: the exact BDPL over every adversary. The certified bound must lie below it (it may
# exceed it only with probability ≤ α), and the closer, the more the budget bought.
chain = bdpsim.MarkovChainModel([[0.9, 0.1], [0.2, 0.8]], n=10)
exact = bdpsim.exact_bdpl(chain, bdpsim.LaplaceCount(epsilon=1.0)).bdpl
print(f"exact BDPL {exact:.3f}; certified {row['bdpl_lower']:.3f} <= exact: {row['bdpl_lower'] <= exact}")
print(f"not 1-BDP, proved by the audit alone: {row['bdpl_lower'] > 1.0}")

# %%
# A bigger ``audit_budget`` tightens the bound (``results/benchmarks/audit.md``: 10^6 to 10^8
# calls on the activity chain); ``bdpsim run audit_example`` audits three mechanisms on it.
