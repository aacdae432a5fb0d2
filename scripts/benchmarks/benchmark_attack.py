"""Attack risk's speed targets, end to end, this checkout against a base revision, ratios in one run.

Usage::

    python scripts/benchmarks/benchmark_attack.py [--base d78b062] [--repeat 3] [--skip-base]
        [--json PATH] [--overwrite]

Every time is taken in a fresh process with one code tree first on ``PYTHONPATH`` (``--base``:
``git archive`` of its ``bdpsim/``; this checkout), cold (nothing cached by an earlier call), the
median of ``--repeat`` runs, the trees alternating (the machine is shared: the ratios, not the
seconds, are the measure):

1. **attack markov** on the activity chain ``P = [[0.882, 0.118], [0.305, 0.695]]``, n = 288,
   Laplace eps = 1, three FPRs (1e-3, 1e-2, 0.1): the whole command's work — the exact BDPL over
   every adversary, the largest advantage and the three worst TPRs — in the library (CPU s), and
   ``bdpsim attack markov ... --json`` end to end (wall s) against ``exact_bdpl`` of the same
   model (in the library; end to end: ``python -c`` importing bdpsim and calling it). Target <= 3.
2. **attack_risk at n = 17 568** (the activity chain over 61 days): the advantage and three worst
   TPRs against ``exact_bdpl`` (CPU s). Target <= 5. The base: the advantage alone (as measured
   when the target was set), within ``--timeout``.
3. **[run] attack = true** on ``thesis_fig15_exact``: ``bdpsim run`` end to end with and without
   the attack columns (wall s). Target <= 3.
4. **The pedigree's worst TPR** at three FPRs against its worst advantage (a three-generation
   family of 15, geometric noise of eps 0.5 on the count of ``bb``; CPU s, each cold). Target <= 3.
   The base within ``--timeout``.

Prints one line per measurement and the ratios, and writes them to ``--json`` (default
``results/benchmarks/attack.json``; a committed file is refused unless ``--overwrite``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
from fresh_python import printed  # noqa: E402
from script_out import add_overwrite, refuse_committed, write_record  # noqa: E402

CONFIG = ROOT / "bdpsim" / "configs" / "thesis_fig15_exact.toml"
DEFAULT_JSON = ROOT / "results" / "benchmarks" / "attack.json"
ACTIVITY = "[[0.882,0.118],[0.305,0.695]]"
FPRS = (1e-3, 1e-2, 0.1)

SETUP = """
import time, numpy as np, bdpsim
from bdpsim.mechanisms import LaplaceCount
from bdpsim.models import MarkovChainModel
m = MarkovChainModel(np.array({P}), {n})
mech = LaplaceCount(1.0, counted_states=(1,))
"""

#: the library's work, cold, in CPU seconds (``new``: this checkout's API; ``old``: the base's)
EXACT = SETUP + "t = time.process_time(); bdpsim.exact_bdpl(m, mech); print(time.process_time() - t)"
WHOLE_NEW = SETUP + (
    "t = time.process_time()\n"
    "r = bdpsim.attack_risk(m, mech, fpr={fprs}, bdpl=True); r.worst_tprs({fprs})\n"
    "print(time.process_time() - t)"
)
WHOLE_OLD = SETUP + (  # what the base's command did: the advantage, each TPR, then exact_bdpl
    "t = time.process_time()\n"
    "r = bdpsim.attack_risk(m, mech); [r.worst_tpr(f) for f in {fprs}]; bdpsim.exact_bdpl(m, mech)\n"
    "print(time.process_time() - t)"
)
ADVANTAGE = SETUP + "t = time.process_time(); bdpsim.attack_risk(m, mech); print(time.process_time() - t)"
E2E_EXACT = SETUP + "bdpsim.exact_bdpl(m, mech)"

PEDIGREE = """
import time
from bdpsim.pipeline.config import parse_config
from bdpsim.attack import attack_risk
cfg = parse_config({"model": {"kind": "pedigree", "family": "three_generation", "size": 15},
                    "mechanism": {"kind": "count", "epsilon": 0.5, "counted_states": [2],
                                  "noise": "geometric"}})
p = cfg.points[0]
model, mech = p.model.fixed, p.mechanism
t = time.process_time()
"""
PED_ADVANTAGE = PEDIGREE + "attack_risk(model, mech); print(time.process_time() - t)"
PED_TPR_NEW = PEDIGREE + (
    "r = attack_risk(model, mech, fpr={fprs}); r.worst_tprs({fprs}); print(time.process_time() - t)"
)
PED_TPR_OLD = PEDIGREE + (
    "r = attack_risk(model, mech); [r.worst_tpr(f) for f in {fprs}]; print(time.process_time() - t)"
)


def _fill(code: str, **values) -> str:
    """``code`` with each ``{name}`` replaced (the code holds dict braces: no ``str.format``)."""
    for k, v in values.items():
        code = code.replace("{" + k + "}", str(v))
    return code


def _env(tree: str) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = tree + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _python(tree: str, code: str, cwd: str, timeout: float) -> float | None:
    """The number ``code`` prints (its CPU seconds) in a fresh process, or ``None`` past ``timeout``."""
    words = printed(code, _env(tree), timeout, cwd)
    return None if words is None else float(words[-1])


def _wall(tree: str, argv: list[str], cwd: str, timeout: float) -> float | None:
    """Wall seconds of ``argv`` (a command) in a fresh process, or ``None`` past ``timeout``."""
    t0 = time.perf_counter()
    try:
        subprocess.run(argv, env=_env(tree), cwd=cwd, capture_output=True, check=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    return time.perf_counter() - t0


def _median(values: list) -> float | None:
    got = [v for v in values if v is not None]
    return statistics.median(got) if len(got) == len(values) and got else None


def _cases(new: bool, tmp: str, out: str) -> dict[str, tuple]:
    """What each measurement runs in a tree: ``(kind, payload)`` with kind ``py`` (code printing
    CPU seconds) or ``cmd`` (a command timed end to end)."""
    fprs = repr(FPRS)
    quiet = ["--quiet"] if new else []
    cli = [sys.executable, "-m", "bdpsim.cli"]
    att = [*cli, "attack", "markov", "--transition", ACTIVITY, "--n", "288", "--epsilon", "1", "--json"]
    att += quiet
    cfg_attack = Path(tmp) / "fig15_attack.toml"
    text = CONFIG.read_text().replace("adversary_rows = 200", "adversary_rows = 200\nattack = true")
    cfg_attack.write_text(text)
    long = _fill(WHOLE_NEW if new else ADVANTAGE, P=ACTIVITY, n=17_568, fprs=fprs)
    run = [*cli, "run"]
    return {
        "chain288_exact": ("py", _fill(EXACT, P=ACTIVITY, n=288)),
        "chain288_attack": ("py", _fill(WHOLE_NEW if new else WHOLE_OLD, P=ACTIVITY, n=288, fprs=fprs)),
        "chain288_exact_e2e": ("cmd", [sys.executable, "-c", _fill(E2E_EXACT, P=ACTIVITY, n=288)]),
        "chain288_attack_e2e": ("cmd", att),
        "chain17568_exact": ("py", _fill(EXACT, P=ACTIVITY, n=17_568)),
        "chain17568_attack": ("py", long),
        "fig15_run": ("cmd", [*run, str(CONFIG), "--out", f"{out}/plain", "--quiet", "--overwrite"]),
        "fig15_run_attack": ("cmd", [*run, str(cfg_attack), "--out", f"{out}/at", "--quiet", "--overwrite"]),
        "pedigree_advantage": ("py", PED_ADVANTAGE),
        "pedigree_tpr": ("py", _fill(PED_TPR_NEW if new else PED_TPR_OLD, fprs=fprs)),
    }


RATIOS = (
    ("attack markov, library", "chain288_attack", "chain288_exact", 3.0),
    ("attack markov, end to end", "chain288_attack_e2e", "chain288_exact_e2e", 3.0),
    ("attack_risk n = 17 568", "chain17568_attack", "chain17568_exact", 5.0),
    ("[run] attack = true", "fig15_run_attack", "fig15_run", 3.0),
    ("pedigree TPR vs advantage", "pedigree_tpr", "pedigree_advantage", 3.0),
)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="d78b062", help="git revision to compare with (default d78b062)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement and tree (median; default 3)")
    ap.add_argument("--skip-base", action="store_true", help="time this checkout only")
    ap.add_argument(
        "--timeout", type=float, default=300.0, help="seconds before a run is given up (default 300)"
    )
    ap.add_argument("--json", type=Path, default=DEFAULT_JSON, help="where the numbers go")
    add_overwrite(ap)
    a = ap.parse_args(argv)
    refuse_committed(ap, a.overwrite, a.json, option="--json")
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"this checkout": (str(ROOT), True)}
        if not a.skip_base:
            base = Path(tmp) / "base"
            base.mkdir()
            blob = subprocess.run(
                ["git", "-C", str(ROOT), "archive", a.base, "bdpsim"], capture_output=True, check=True
            ).stdout
            tarfile.open(fileobj=BytesIO(blob)).extractall(base, filter="data")
            trees = {a.base: (str(base), False), **trees}
        cases = {
            label: _cases(new, tmp, f"{tmp}/out-{k}") for k, (label, (_, new)) in enumerate(trees.items())
        }
        times: dict[str, dict[str, list]] = {label: {name: [] for name in cases[label]} for label in trees}
        for _ in range(a.repeat):  # alternating trees, so that both see the same load
            for name in cases["this checkout"]:
                for label, (tree, _) in trees.items():
                    kind, payload = cases[label][name]
                    run = _python if kind == "py" else _wall
                    times[label][name].append(run(tree, payload, tmp, a.timeout))
    record: dict = {"repeat": a.repeat, "base": None if a.skip_base else a.base, "trees": {}}
    for label in trees:
        med = {name: _median(v) for name, v in times[label].items()}
        record["trees"][label] = {"seconds": med, "ratios": {}}
        print(f"{label}:")
        for text, num, den, target in RATIOS:
            n, d = med[num], med[den]
            ratio = None if n is None or d is None else n / d
            record["trees"][label]["ratios"][text] = ratio
            shown = f"not finished in {a.timeout:g} s" if n is None else f"{n:.3f} s / {d:.3f} s"
            met = "met" if ratio is not None and ratio <= target else "NOT met"
            verdict = "" if ratio is None else f" = {ratio:.2f} (target <= {target:g}: {met})"
            print(f"  {text:<28} {shown}{verdict}")
    write_record(a.json, record, load)
    return 0


if __name__ == "__main__":
    sys.exit(main())
