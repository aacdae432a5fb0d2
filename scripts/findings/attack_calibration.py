#!/usr/bin/env python
"""Noise calibrated to an attack target against eps-BDP calibration: the noise saved, measured.

Measured on the paper's activity chain and on a network.

Settings: the activity chain ``P = [[0.882, 0.118], [0.305, 0.695]]`` (n = 288, count of state 1)
and the example Bayesian network of ``bdpsim configs`` (the ``bayesnet`` kind's example: 4 nodes,
count of state 1), Laplace noise, every adversary. For each target — worst advantage
``<= 0.05, 0.1, 0.2`` (both models) and worst TPR at FPR 0.01 ``<= 0.05`` (the network) — the least
Laplace scale meeting it (:func:`bdpsim.attack.calibrate.calibrate_attack`), the eps whose pure
curve meets the same target and the least eps-BDP scale for it; the saving is their ratio.
Writes ``--json`` (default ``results/benchmarks/attack_calibration.json``; a committed file is
refused unless --overwrite).

Usage: python scripts/findings/attack_calibration.py [--json PATH] [--overwrite]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's bdpsim first
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # script_out.py, shared by every folder

import numpy as np  # noqa: E402
from script_out import add_overwrite, refuse_committed  # noqa: E402

from bdpsim.attack.calibrate import calibrate_attack  # noqa: E402
from bdpsim.kernels.chains.transition import ACTIVITY  # noqa: E402
from bdpsim.kernels.noise.laws import LaplaceNoise  # noqa: E402
from bdpsim.mechanisms.noisy import NoisyQueryMechanism  # noqa: E402
from bdpsim.models import BayesNetModel, MarkovChainModel  # noqa: E402
from bdpsim.models.bayesnet.kind import BayesNetKind  # noqa: E402
from bdpsim.queries import CountQuery  # noqa: E402

DEFAULT_JSON = Path(__file__).resolve().parents[2] / "results" / "benchmarks" / "attack_calibration.json"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", type=Path, default=DEFAULT_JSON, help="where the numbers go")
    add_overwrite(ap)
    a = ap.parse_args(argv)
    refuse_committed(ap, a.overwrite, a.json, option="--json")
    ex = BayesNetKind.example
    models = {
        "activity chain, n = 288": MarkovChainModel(np.array(ACTIVITY), 288),
        "example network (4 nodes)": BayesNetModel(ex["parents"], ex["cpt"]),
    }
    mech = NoisyQueryMechanism(CountQuery((1,)), LaplaceNoise(1.0))
    rows = []
    for name, model in models.items():
        targets = [dict(target_advantage=v) for v in (0.05, 0.1, 0.2)]
        if "network" in name:
            targets.append(dict(target_tpr=0.05, at_fpr=0.01))
        for t in targets:
            start = time.perf_counter()
            c = calibrate_attack(model, mech, **t)
            rows.append({"model": name, **t, **c.as_dict(), "seconds": time.perf_counter() - start})
            print(
                f"{name}: {c.what} <= {c.target:g}: scale {c.parameter:.6g} (eps-BDP at eps "
                f"{c.epsilon:.4g}: {c.bdp_parameter:.6g}); saving x{c.saving:.4g}",
                flush=True,
            )
    a.json.parent.mkdir(parents=True, exist_ok=True)
    a.json.write_text(
        json.dumps({"rows": rows, "when": datetime.now(UTC).isoformat(timespec="seconds")}, indent=1) + "\n"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
