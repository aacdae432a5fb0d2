"""``bdpsim figures``: regenerate every figure of the thesis and the paper.

Each figure id maps to a ``compute(ctx) -> rows`` (the CSV beside the figure) and a plotting
function of :mod:`bdpsim.figures`. Simulated figures run the bundled configs (``configs/``) through
the ordinary driver into ``OUT/runs/<config>[-quick]/`` — so they resume and are reused between
figures — at thesis fidelity by default, or with ``--quick`` at 100 adversaries × 10^4 samples.
"""

from __future__ import annotations

import copy
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from . import figdata as D
from . import figures as F
from . import results as R
from .config import parse_config
from .driver import run_experiment
from .errors import ConfigError

QUICK = {"adversaries": 100, "samples": 10_000, "noise_floor_adversaries": 20, "bootstrap": 300}


@dataclass
class Context:
    out: Path
    configs: Path
    quick: bool = False
    jobs: int = 1
    overrides: dict = field(default_factory=dict)  # deep-merged into every config (tests)
    progress: bool = False
    data_dir: Path | None = None
    log: Callable[[str], None] = print
    notes: list = field(default_factory=list)  # said in the gallery under the current figure

    def raw(self, name: str) -> dict:
        path = self.configs / name
        if not path.is_file():
            raise ConfigError("--configs", str(self.configs),
                              f"has no {name}; run from a bdpsim checkout or pass --configs DIR")
        raw = tomllib.loads(path.read_text())
        if self.quick:
            raw.setdefault("run", {}).update({k: v for k, v in QUICK.items()
                                              if raw["run"].get("adversaries") != "all" or k == "bootstrap"})
        for sec, table in self.overrides.items():
            if sec == "variants":
                raw["variants"] = copy.deepcopy(table)
            else:
                raw.setdefault(sec, {}).update(copy.deepcopy(table))
        return raw

    def run(self, name: str, raw: dict, tag: str = "") -> list[dict]:
        cfg = parse_config(raw, name)
        stem = Path(name).stem + tag + ("-quick" if self.quick else "")
        return run_experiment(cfg, self.out / "runs" / stem, jobs=self.jobs, progress=self.progress)


def _fig09(ctx: Context) -> list[dict]:
    raw = ctx.raw("thesis_fig9.toml")
    raw["run"]["estimator"] = ["kde", "mixture"]
    return F._sim_rows(ctx.run("thesis_fig9.toml", raw), "rho", "n")


def _fig10(ctx: Context) -> list[dict]:
    raw = ctx.raw("thesis_fig10.toml")
    raw["run"]["estimator"] = ["kde", "exact"]
    rows = F._sim_rows(ctx.run("thesis_fig10.toml", raw), "rho", "n")
    clipped = [r for r in _fig09(ctx) if r["estimator"] == "kde"]
    for r in clipped:
        r.update(estimator="kde-clipped", bound_general=float("nan"), bound_model=float("nan"))
    return rows + clipped


def _fig15(ctx: Context) -> list[dict]:
    rows = F._sim_rows(ctx.run("thesis_fig15.toml", ctx.raw("thesis_fig15.toml")), "gamma", "epsilon")
    exact = F._sim_rows(ctx.run("thesis_fig15_exact.toml", ctx.raw("thesis_fig15_exact.toml")), "gamma", "epsilon")
    return rows + exact


def _utility(ctx: Context, names: Sequence[str], optional: Sequence[str] = ()) -> list[dict]:
    """Run the bundled utility configs ``names`` (``--quick``: 200 runs); an optional dataset
    whose file is missing is reported, not silently dropped."""
    from .utility.datasets import DatasetError
    from .utility.experiment import parse_utility, run_utility, write_utility

    rows = []
    for name in names:
        raw = tomllib.loads((ctx.configs / name).read_text()) if (ctx.configs / name).is_file() else None
        if raw is None:
            raise ConfigError("--configs", str(ctx.configs), f"has no {name}")
        if ctx.quick:
            raw["utility"]["runs"] = 200
        raw["utility"].update(ctx.overrides.get("utility", {}))
        cfg = parse_utility(raw)
        try:
            r, vs = run_utility(cfg, ctx.data_dir)
        except DatasetError as exc:
            if name not in optional:
                raise
            ctx.log(f"  skipped {name}: {exc}")
            ctx.notes.append(f"{name} skipped: {exc}")
            continue
        write_utility(ctx.out / "runs" / (Path(name).stem + ("-quick" if ctx.quick else "")), cfg, r, vs, name)
        rows += r
    return rows


@dataclass(frozen=True)
class Figure:
    title: str
    compute: Callable[[Context], list[dict]]
    plot: Callable
    simulated: bool = False


FIGURES: dict[str, Figure] = {
    "thesis-fig03": Figure("β of an error n/2 for an ε-BDP count (general bound)", lambda c: D.thesis_fig03_rows(), F.plot_thesis_fig03),
    "thesis-fig05": Figure("minimum β of an ε-free-lunch-private algorithm", lambda c: D.thesis_fig05_rows(), F.plot_thesis_fig05),
    "thesis-fig07": Figure("genomic count: α vs β, Laplace and lower bound", lambda c: D.thesis_fig07_rows(), F.plot_thesis_fig07),
    "thesis-fig08": Figure("general vs Gaussian bound, n ∈ {3, 5, 7}", lambda c: D.thesis_fig08_rows(), F.plot_thesis_fig08),
    "thesis-fig09": Figure("empirical BDPL, Gaussian, clipped sum", _fig09, F.plot_thesis_fig09, True),
    "thesis-fig10": Figure("target-dependent BDPL, unclipped sum, x = 0, x' = 10", _fig10, F.plot_thesis_fig10, True),
    "thesis-fig11": Figure("Markov vs Zhao bound region in (ω, γ)", lambda c: D.thesis_fig11_rows(), F.plot_thesis_fig11),
    "thesis-fig13": Figure("Markov vs general bound region in (n, γ), ε = 0.5", lambda c: D.thesis_fig13_rows(), F.plot_thesis_fig13),
    "thesis-fig15": Figure("empirical and exact BDPL, Markov chain n = 10", _fig15, F.plot_thesis_fig15, True),
    "thesis-fig16": Figure("max γ for a relative error factor h", lambda c: D.thesis_fig16_rows(), F.plot_thesis_fig16),
    "paper-fig1": Figure("relative accuracy h vs ρ (Gaussian)", lambda c: D.paper_fig1_rows(), F.plot_paper_fig1),
    "paper-fig2": Figure("Markov-bound Laplace vs Chakrabarti et al. randomized response", lambda c: D.paper_fig2_rows(), F.plot_paper_fig2),
    "paper-fig3": Figure("relative accuracy h vs γ (Markov)", lambda c: D.paper_fig3_rows(), F.plot_paper_fig3),
    "paper-fig4": Figure("utility on Gaussian data: Galton, FamilyIQ, SyntheticIQ",
                         lambda c: [r for r in _utility(c, ["utility_galton.toml", "utility_familyiq.toml",
                                                            "utility_syntheticiq.toml"]) if not r["variant"].startswith("trios")],
                         F.plot_paper_fig4, True),
    "paper-fig5": Figure("utility on Markov data: Activity, Electricity 70/80/90 kWh",
                         lambda c: [r for r in _utility(c, ["utility_activity.toml", "utility_electricity.toml"],
                                                        optional=["utility_electricity.toml"])
                                    if r["variant"] != "single days"],
                         F.plot_paper_fig5, True),
    "thesis-fig17": Figure("MSE of the BDP count on genomic data (synthetic pedigrees)",
                           lambda c: _utility(c, ["utility_genomic.toml"]), F.plot_thesis_fig17, True),
    "thesis-fig18": Figure("MSE of the BDP sum on Galton heights (trios, n = 3)",
                           lambda c: [r for r in _utility(c, ["utility_galton.toml"]) if r["variant"].startswith("trios")],
                           F.plot_thesis_fig18, True),
    "thesis-fig19": Figure("MSE of the BDP count on activity data (a: single days, b: complete data)",
                           lambda c: _utility(c, ["utility_activity.toml"]), F.plot_thesis_fig19, True),
}


def default_configs_dir() -> Path:
    return Path(__file__).resolve().parents[1] / "configs"


def make_figures(ids: Sequence[str] | None, out: Path, *, quick: bool = False, jobs: int = 1,
                 configs: Path | None = None, overrides: dict | None = None,
                 progress: bool = False, log: Callable[[str], None] = print,
                 data_dir: Path | None = None) -> list[Path]:
    """Compute, plot and save the figures ``ids`` (all when None); rewrite the gallery README."""
    ids = list(FIGURES) if not ids else list(ids)
    for i in ids:
        if i not in FIGURES:
            raise ConfigError("--only", i, f"unknown figure id (known: {', '.join(FIGURES)})")
    out = Path(out)
    ctx = Context(out, Path(configs) if configs else default_configs_dir(), quick, jobs, overrides or {},
                  progress, data_dir, log)
    written = []
    for i in ids:
        fig = FIGURES[i]
        log(f"{i}: {fig.title}")
        ctx.notes = []
        rows = fig.compute(ctx)
        cols = list(dict.fromkeys(k for r in rows for k in r))
        R.atomic_write_text(out / f"{i}.csv", R.csv_text(rows, cols))
        f, ax = F.subplots(figsize=(6.4, 4.6))
        fig.plot(rows, ax)
        written += [out / f"{i}.csv", *F.save(f, out / i)]
        _record_fidelity(out, i, "quick" if quick and fig.simulated else "full", ctx.notes)
    write_gallery(out)
    return written


def _fidelity(out: Path) -> dict:
    import json

    path = out / "fidelity.json"
    return json.loads(path.read_text()) if path.is_file() else {}


def _record_fidelity(out: Path, fig_id: str, level: str, notes: Sequence[str] = ()) -> None:
    fid = _fidelity(out)
    fid[fig_id] = level
    fid.setdefault("_notes", {})[fig_id] = list(notes)
    R.atomic_write_text(out / "fidelity.json", R.dumps(fid))
    R.atomic_write_text(out / "metadata.json", R.dumps({
        "figures": fid, "versions": R.package_versions(), "git_revision": R.git_revision(), "written": R.now(),
        "quick_run_settings": QUICK, "runs": "each simulated figure's runs/<config>/metadata.json holds its config and seed"}))


def write_gallery(out: Path) -> Path:
    lines = ["# bdpsim figure gallery", "",
             "Regenerated by `bdpsim figures` (all) or `bdpsim figures --only ID`; `--quick` gives a",
             "reduced-fidelity preview (100 adversaries × 10^4 samples). Each figure has its plotted",
             "numbers in a CSV beside it; simulated figures keep their full runs in `runs/`.", ""]
    fid = _fidelity(out)
    for i, fig in FIGURES.items():
        if not (out / f"{i}.png").is_file():
            continue
        cmd = f"bdpsim figures --only {i}" + (" --quick" if fid.get(i) == "quick" else "")
        lines += [f"## {i}: {fig.title}", "", f"![{i}]({i}.png)", "",
                  f"`{cmd}` — data: [{i}.csv]({i}.csv), vector: [{i}.pdf]({i}.pdf)", ""]
        lines += [f"> Note: {n}" for n in fid.get("_notes", {}).get(i, [])]
        if fid.get("_notes", {}).get(i):
            lines.append("")
    path = out / "README.md"
    R.atomic_write_text(path, "\n".join(lines))
    return path
