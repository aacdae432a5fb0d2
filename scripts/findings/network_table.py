"""Real networks (pgmpy's example Bayesian networks, the karate-club field) as a user runs them.

For each network: nodes, states per node, induced width (min-fill), load time (pgmpy model ->
bdpsim model, with the rounded tables renormalised), the exact BDPL of a Laplace count of state 1
(eps = 1) for the adversary knowing nothing (``K = ∅``, worst target and pair), the worst exact
BDPL over 100 sampled adversaries (``known_sizes = "all"``, seed 26) and, beside it, the audit's
certified lower bound on the same 100 adversaries (``audit_budget = 10^6`` mechanism calls,
level 95 %) — or the refusal with its estimate where the network is too large. Each network runs
in its own process under a time budget (``--budget`` seconds; over it: "timed out").

Writes ``results/networks/networks.csv`` and the generated ``results/networks/networks.md``
(included by ``docs/guide/networks.md``; ``tests/figures/test_network_table.py`` checks it is current)::

    python scripts/findings/network_table.py --overwrite     # every network, ~10-30 min on 2 shared cores
    python scripts/findings/network_table.py --only asia alarm karate-0.5
    python scripts/findings/network_table.py --markdown      # rewrite the markdown from the CSV only
    python scripts/findings/network_table.py --only munin --csv part.csv   # a part, in parallel
    python scripts/findings/network_table.py --merge part.csv                # then merged into the table
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import subprocess
import sys
import time
import warnings
from pathlib import Path

if str(Path(__file__).resolve().parents[1]) not in sys.path:  # script_out.py, shared by every folder
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from script_out import add_overwrite, refuse_committed  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "results" / "networks"
NETWORKS = [
    "cancer",
    "earthquake",
    "survey",
    "asia",
    "sachs",
    "child",
    "insurance",
    "water",
    "mildew",
    "alarm",
    "barley",
    "hailfinder",
    "hepar2",
    "win95pts",
    "pathfinder",
    "andes",
    "diabetes",
    "pigs",
    "link",
    "munin",
]
BIG = 4  # the last networks: large (pgmpy alone takes minutes to load some)
COUPLINGS = [0.0, 0.25, 0.5, 1.0]
COLUMNS = [
    "network",
    "model",
    "nodes",
    "states",
    "induced_width",
    "load_seconds",
    "renormalised",
    "bdpl_known_empty",
    "bdpl_worst_sampled",
    "adversaries",
    "audit_lower",
    "seconds",
    "status",
]
EPSILON = 1.0
ADVERSARIES = 100
SEED = 26
AUDIT_BUDGET = 1_000_000


def _model(name: str):
    """``(model, kind params, load seconds)`` of a network name or ``karate-<coupling>``."""
    t0 = time.perf_counter()
    if name.startswith("karate-"):
        from bdpsim.models.mrf import build

        params = {"kind": "mrf", "graph": "karate", "states": 2, "coupling": float(name.split("-", 1)[1])}
        model = build(params)
        return model, params, time.perf_counter() - t0
    from pgmpy.readwrite import BIFWriter
    from pgmpy.utils import get_example_model

    from bdpsim.models.bayesnet.build import from_bif

    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f".{name}.bif"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        BIFWriter(get_example_model(name)).write_bif(str(path))
    t0 = time.perf_counter()  # the user's step: a BIF file -> bdpsim model
    try:
        model = from_bif(path)
    finally:
        path.unlink()
    return model, None, time.perf_counter() - t0


def one(name: str, budget: float) -> dict:
    """One row (run in a child process)."""
    import numpy as np

    from bdpsim.core.errors import BdpsimError
    from bdpsim.models.bayesnet.search import adversary_bdpl, laplace_score
    from bdpsim.pipeline.config import parse_config
    from bdpsim.pipeline.cost import estimate_point
    from bdpsim.pipeline.driver import run_experiment

    t_all = time.perf_counter()
    row = dict.fromkeys(COLUMNS, "")
    row["network"] = name
    model, params, load = _model(name)
    row.update(
        model=model.kind,
        nodes=model.size,
        load_seconds=round(load, 3),
        states=f"{min(model.node_states)}-{max(model.node_states)}"
        if len(set(model.node_states)) > 1
        else str(model.node_states[0]),
        renormalised=int(model.notes[0].split(" ", 1)[0]) if getattr(model, "notes", ()) else 0,
    )
    try:
        row["induced_width"] = model.check_tractable("model").width
        if params is None:  # the run's config reads the BIF again
            import tempfile

            from pgmpy.readwrite import BIFWriter
            from pgmpy.utils import get_example_model

            tmp = Path(tempfile.mkdtemp())
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                BIFWriter(get_example_model(name)).write_bif(str(tmp / "net.bif"))
            params = {"kind": "bayesnet", "bif": str(tmp / "net.bif")}
        doc = {
            "run": {
                "seed": SEED,
                "adversaries": ADVERSARIES,
                "estimator": ["exact", "audit"],
                "known_sizes": "all",
                "audit_budget": AUDIT_BUDGET,
            },
            "model": params,
            "mechanism": {"kind": "count", "epsilon": EPSILON},
        }
        cfg = parse_config(doc)
        est = max(estimate_point(p).seconds[1] for p in cfg.points if p.settings.estimator == "exact")
        if est > budget:
            raise BdpsimError(
                f"refused: ~{est:.3g} s estimated for {ADVERSARIES} adversaries (budget {budget:g} s)"
            )
        g = np.zeros((model.n, model.states), dtype=int)
        g[:, 1] = 1
        score = laplace_score(1.0 / EPSILON)
        row["bdpl_known_empty"] = max(adversary_bdpl(model, {}, i, g, score).bdpl for i in range(model.n))
        import tempfile

        rows = run_experiment(cfg, Path(tempfile.mkdtemp()) / "run", progress=False)
        ex = next(r for r in rows if r["estimator"] == "exact")
        au = next(r for r in rows if r["estimator"] == "audit")
        row.update(
            bdpl_worst_sampled=ex["bdpl_max"],
            adversaries=ex["n_adversaries"],
            audit_lower=au["bdpl_lower"],
            status="ok",
        )
    except BdpsimError as err:
        row["status"] = " ".join(str(err).split())[:300]
    row["seconds"] = round(time.perf_counter() - t_all, 2)
    return row


def _fmt(v, digits=4) -> str:
    if isinstance(v, float):
        return "" if math.isnan(v) else f"{v:.{digits}g}"
    return str(v)


def markdown(rows: list[dict]) -> str:
    """The generated table (from the CSV rows, as text)."""
    head = (
        "| network | model | nodes | states | width | load s | renormalised tables | BDPL, K = ∅ | "
        f"worst of {ADVERSARIES} sampled | audit lower bound | total s | status |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|\n"
    )
    lines = []
    for r in rows:
        num = lambda k, r=r: _fmt(float(r[k])) if r[k] not in ("", None) else ""  # noqa: E731
        lines.append(
            f"| {r['network']} | {r['model']} | {r['nodes']} | {r['states']} | {r['induced_width']} | "
            f"{num('load_seconds')} | {r['renormalised']} | {num('bdpl_known_empty')} | "
            f"{num('bdpl_worst_sampled')} | {num('audit_lower')} | {num('seconds')} | "
            f"{r['status'].replace('|', '/')} |"
        )
    return (
        "<!-- generated by scripts/findings/network_table.py from results/networks/networks.csv: "
        "do not edit -->\n\n" + head + "\n".join(lines) + "\n"
    )


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def write(rows: list[dict], csv_path: Path | None = None) -> None:
    """The CSV (atomically) and, for the main CSV, its markdown."""
    OUT.mkdir(parents=True, exist_ok=True)
    path = csv_path or OUT / "networks.csv"
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, COLUMNS, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in COLUMNS})
    tmp.replace(path)
    if csv_path is None:
        (OUT / "networks.md").write_text(markdown(read_csv(path)), encoding="utf-8")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="+", help="networks (pgmpy names, karate-<coupling>)")
    ap.add_argument("--budget", type=float, default=300.0, help="seconds per network (default 300)")
    ap.add_argument("--markdown", action="store_true", help="rewrite the markdown from the CSV")
    ap.add_argument("--csv", type=Path, help="write the rows to this CSV instead (a part run in parallel)")
    ap.add_argument("--merge", type=Path, nargs="+", help="merge these part CSVs into the table")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    add_overwrite(ap)
    a = ap.parse_args(argv)
    if not (a.one or a.markdown):  # a part CSV (--csv) or the committed table
        refuse_committed(ap, a.overwrite, a.csv or OUT, option="--csv" if a.csv else "output")
    if a.one:
        print(json.dumps(one(a.one, a.budget)))
        return 0
    if a.markdown:
        (OUT / "networks.md").write_text(markdown(read_csv(OUT / "networks.csv")), encoding="utf-8")
        return 0
    order = NETWORKS[:-BIG] + [f"karate-{c:g}" for c in COUPLINGS] + NETWORKS[-BIG:]
    names = a.only or order
    main_csv = OUT / "networks.csv"
    done = {r["network"]: r for r in read_csv(main_csv)} if main_csv.is_file() and not a.csv else {}
    if a.merge:
        for part in a.merge:
            done.update({r["network"]: r for r in read_csv(part)})
        write([done[k] for k in order if k in done] + [done[k] for k in done if k not in order])
        return 0
    for name in names:
        t0 = time.perf_counter()
        try:
            out = subprocess.run(
                [sys.executable, __file__, "--one", name, "--budget", str(a.budget)],
                capture_output=True,
                text=True,
                timeout=a.budget * 2 + 120,
            )
            if out.returncode == 0:
                row = json.loads(out.stdout.strip().splitlines()[-1])
            else:
                last = (out.stderr.strip().splitlines() or ["failed"])[-1]
                row = {"network": name, "status": f"failed: {last[:200]}"}
        except subprocess.TimeoutExpired:
            row = {"network": name, "status": f"timed out after {time.perf_counter() - t0:.0f} s"}
        done[name] = row
        write([done[k] for k in order if k in done] + [done[k] for k in done if k not in order], a.csv)
        print(f"{name}: {row.get('status')} ({time.perf_counter() - t0:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
