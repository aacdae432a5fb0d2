"""``bdpsim figures``: regenerate every figure of the thesis and the paper.

Each figure id maps to a ``compute(ctx) -> rows`` (the CSV beside the figure) and a plotting
function of :mod:`bdpsim.figures`. Simulated figures run the bundled configs (``configs/``) through
the ordinary driver into ``OUT/runs/<config>[-quick]/`` — so they resume and are reused between
figures — at thesis fidelity by default, or with ``--quick`` at 100 adversaries × 10^4 samples
(the figure then says so across its top). :func:`replot` redraws figures from their CSVs.

``OUT/fidelity.json`` records each figure's fidelity: ``full``, ``quick``, or ``partial: <dataset>
missing`` when an optional data file was not supplied; the gallery README lists it, the notes, and
every deviation from the sources (:mod:`bdpsim.figures.deviations`).
"""

from __future__ import annotations

import copy
import csv
import itertools
import json
import tomllib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from .. import figures as F
from ..core.errors import ConfigError
from ..estimators import ESTIMATORS, KdeEstimator
from ..estimators.base import READ_BY_SOME
from ..pipeline import results as R
from ..pipeline.config import ExperimentConfig, parse_config
from ..pipeline.cost import config_seconds, estimate_point, fmt_range
from ..pipeline.driver import run_experiment
from ..pipeline.settings import GENERIC_KEYS
from ..studies import chains as S
from ..studies import genomic_study as G
from ..studies import pufferfish_fig2 as PF2
from . import data as D
from .accounting import plot_accountant_gallery
from .attack import plot_attack_vs_bdpl
from .audit import plot_audit
from .calibration import plot_calibration
from .competition import competition_panels, plot_competition
from .deviations import DEVIATIONS, DISAGREEMENTS, NOT_REPRODUCED
from .diagrams import plot_thesis_fig04, plot_thesis_fig06, plot_thesis_fig12, plot_thesis_fig14
from .frontier import plot_frontier
from .knowledge import plot_knowledge_panels
from .pedigree import plot_family_size, plot_generations
from .pufferfish import plot_pufferfish_fig2
from .temporal import day_panels, plot_temporal_day, plot_tkde_budget

QUICK = {"adversaries": 100, "samples": 10_000, "noise_floor_adversaries": 20}
QUICK_UTILITY_RUNS = 200


def _read_by(raw: dict, run: dict) -> dict:
    """The keys of ``run`` (the quick settings, a test's overrides: given to every config of a
    figure) that the config's estimators read: a generic key only some estimators read
    (:data:`~bdpsim.estimators.base.READ_BY_SOME`, e.g. ``samples`` beside ``estimator = "exact"``)
    is left out where none of them does (the run would refuse it)."""
    est = raw.get("run", {}).get("estimator", GENERIC_KEYS["estimator"].default)
    reads = [ESTIMATORS[e].reads for e in (est if isinstance(est, list) else [est]) if e in ESTIMATORS]
    return {k: v for k, v in run.items() if k not in READ_BY_SOME or any(k in r for r in reads)}


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
    missing: list = field(default_factory=list)  # optional datasets not supplied (current figure)
    heartbeat: float = 0.0  # > 0: each run logs its configurations done every that many seconds

    def raw(self, name: str) -> dict:
        path = self.configs / name
        if not path.is_file():
            raise ConfigError(
                "--configs",
                str(self.configs),
                f"has no {name}; run from a bdpsim checkout or pass --configs DIR",
            )
        raw = tomllib.loads(path.read_text())
        if self.quick and raw.setdefault("run", {}).get("adversaries") != "all":
            raw["run"].update(_read_by(raw, QUICK))
        for sec, table in self.overrides.items():
            if sec == "variants":
                raw["variants"] = copy.deepcopy(table)
            else:
                more = _read_by(raw, table) if sec == "run" else table
                raw.setdefault(sec, {}).update(copy.deepcopy(more))
        return raw

    def stem(self, name: str, tag: str = "") -> str:
        """The run directory's name under ``OUT/runs/`` of config ``name``."""
        return Path(name).stem + tag + ("-quick" if self.quick else "")

    def run(self, name: str, raw: dict, tag: str = "") -> list[dict]:
        cfg = parse_config(raw, name)
        stem = self.stem(name, tag)
        done = run_progress(cfg, self.out / "runs" / stem)
        estimate = fmt_range(*run_seconds(cfg, self.out / "runs" / stem))
        self.log(
            f"  run {stem}: {len(cfg.points)} configurations ({done} already done in "
            f"{self.out / 'runs' / stem}), estimated {estimate} of one core"
        )
        rows = run_experiment(
            cfg, self.out / "runs" / stem, jobs=self.jobs, progress=self.progress, heartbeat=self.heartbeat
        )
        self.log(f"  run {stem}: {len(cfg.points)} of {len(cfg.points)} configurations done")
        return rows


def _fig09_runs(ctx: Context) -> list[tuple[str, dict]]:
    raw = ctx.raw("thesis_fig9.toml")
    raw["run"]["estimator"] = ["kde", "mixture"]
    return [("thesis_fig9.toml", raw)]


def _fig10_runs(ctx: Context) -> list[tuple[str, dict]]:
    raw = ctx.raw("thesis_fig10.toml")
    raw["run"]["estimator"] = ["kde", "exact"]
    return [("thesis_fig10.toml", raw)]


def _fig15_runs(ctx: Context) -> list[tuple[str, dict]]:
    return [(name, ctx.raw(name)) for name in ("thesis_fig15.toml", "thesis_fig15_exact.toml")]


#: the ``bdpsim run`` configs each simulated figure runs (``(config name, raw table)``), which
#: :func:`estimate_figures` prices with the cost model before anything runs
RUNS: dict[str, Callable[[Context], list[tuple[str, dict]]]] = {
    "thesis-fig09": _fig09_runs,
    "thesis-fig10": lambda c: _fig10_runs(c) + _fig09_runs(c),
    "thesis-fig15": _fig15_runs,
}


def _fig09(ctx: Context) -> list[dict]:
    return F.sim_rows(ctx.run(*_fig09_runs(ctx)[0]), "rho", "n")


def _fig10(ctx: Context) -> list[dict]:
    rows = F.sim_rows(ctx.run(*_fig10_runs(ctx)[0]), "rho", "n")
    clipped = [r for r in _fig09(ctx) if r["estimator"] == KdeEstimator.name]
    for r in clipped:
        r.update(estimator="kde-clipped", bound_general=float("nan"), bound_model=float("nan"))
    return rows + clipped


def _fig15(ctx: Context) -> list[dict]:
    return [r for name, raw in _fig15_runs(ctx) for r in F.sim_rows(ctx.run(name, raw), "gamma", "epsilon")]


def _utility(ctx: Context, names: Sequence[str], optional: Sequence[str] = ()) -> list[dict]:
    """Run the bundled utility configs ``names`` (``--quick``: 200 runs); an optional dataset
    whose file is missing is reported (log, note, fidelity "partial"), not silently dropped."""
    from ..utility.datasets import DatasetError
    from ..utility.experiment import parse_utility, run_utility

    rows = []
    for name in names:
        raw = tomllib.loads((ctx.configs / name).read_text()) if (ctx.configs / name).is_file() else None
        if raw is None:
            raise ConfigError("--configs", str(ctx.configs), f"has no {name}")
        if ctx.quick:
            raw["utility"]["runs"] = QUICK_UTILITY_RUNS
        raw["utility"].update(ctx.overrides.get("utility", {}))
        cfg = parse_utility(raw)
        # each variant saved in OUT/runs/<config> as it finishes: an interrupted figure resumes
        runs = ctx.out / "runs" / (Path(name).stem + ("-quick" if ctx.quick else ""))
        try:
            r, _ = run_utility(cfg, ctx.data_dir, jobs=ctx.jobs, out=runs, source=name, log=ctx.log)
        except DatasetError as exc:
            if name not in optional:
                raise
            ctx.log(f"  skipped {name}: {exc}")
            ctx.notes.append(f"{name} skipped: {exc.public}")
            ctx.missing.append(cfg.dataset)
            continue
        rows += r
    return rows


def _competition(ctx: Context) -> list[dict]:
    from ..studies.competition import competition_rows

    ctx.notes.append(
        "exact BDPL of every mechanism over all adversaries (window search, truncation "
        "tolerance 1e-10); randomized response only on the symmetric chains, with the "
        "Laplace scale of equal standard deviation"
    )
    # saved by (chain, T) in OUT/runs/competition: an interrupted figure resumes
    return competition_rows(log=ctx.log, jobs=ctx.jobs, out=ctx.out / "runs" / "competition")


@dataclass(frozen=True)
class Figure:
    """A gallery entry: ``compute(ctx) -> rows`` and ``plot(rows, ax)``; with ``panels`` other
    than 1 (a count, or a function of the rows) ``plot`` gets a list of axes, laid out in a
    ``"row"``, a ``"column"`` or a grid of ``N`` columns (``"gridN"``, row-major). ``after``: a
    figure whose saved runs this one reads too; :func:`make_figures` makes it after that one, in
    the same process (not waiting on its run's lock in another)."""

    title: str
    compute: Callable[[Context], list[dict]]
    plot: Callable
    simulated: bool = False
    panels: int | Callable[[list[dict]], int] = 1
    layout: str = "row"
    after: str = ""


def _audit(ctx: Context) -> list[dict]:
    from ..studies.audit_study import budget_rows

    if ctx.quick:
        return budget_rows(budgets=(1e5, 1e6), kde_samples=(10_000,), jobs=ctx.jobs, log=ctx.log)
    return budget_rows(jobs=ctx.jobs, log=ctx.log)


def _attack(ctx: Context) -> list[dict]:
    from ..studies.attack_chains import attack_rows

    return attack_rows()


def _accountant(ctx: Context) -> list[dict]:
    from ..studies.accountant import accountant_rows

    if ctx.quick:
        return accountant_rows(gammas=(1.0, 5.0), releases=(1, 5, 20), log=ctx.log)
    return accountant_rows(log=ctx.log)


def _frontier(ctx: Context) -> list[dict]:
    from ..studies.frontier import frontier_rows

    return frontier_rows(log=ctx.log)


def _tkde_budget(ctx: Context) -> list[dict]:
    from ..studies.temporal_curves import tkde_budget_rows

    return tkde_budget_rows()


def _temporal_day(ctx: Context) -> list[dict]:
    from ..studies.temporal_curves import day_rows

    return day_rows()


def _n_utility_panels(rows: list[dict]) -> int:
    return len(F.utility_panels(rows))


FIGURES: dict[str, Figure] = {
    "thesis-fig03": Figure(
        "β of an error n/2 for an ε-BDP count (general bound)",
        lambda c: D.thesis_fig03_rows(),
        F.plot_thesis_fig03,
    ),
    "thesis-fig04": Figure(
        "the sets of thesis eqs. (70)–(71) (schematic)", lambda c: D.thesis_fig04_rows(), plot_thesis_fig04
    ),
    "thesis-fig05": Figure(
        "minimum β of an ε-free-lunch-private algorithm", lambda c: D.thesis_fig05_rows(), F.plot_thesis_fig05
    ),
    "thesis-fig06": Figure(
        "an allele pair at one position (schematic, thesis Def. 5.1)",
        lambda c: D.thesis_fig06_rows(),
        plot_thesis_fig06,
    ),
    "thesis-fig07": Figure(
        "genomic count: α vs β, Laplace and lower bound", lambda c: D.thesis_fig07_rows(), F.plot_thesis_fig07
    ),
    "thesis-fig08": Figure(
        "general vs Gaussian bound, n ∈ {3, 5, 7}", lambda c: D.thesis_fig08_rows(), F.plot_thesis_fig08
    ),
    "thesis-fig09": Figure(
        "empirical BDPL, Gaussian, clipped sum",
        _fig09,
        F.plot_thesis_fig09,
        True,
        panels=lambda rows: len({r["n"] for r in rows}),
    ),
    "thesis-fig10": Figure(
        "target-dependent BDPL, unclipped sum, x = 0, x' = 10",
        _fig10,
        F.plot_thesis_fig10,
        True,
        panels=lambda rows: len({r["n"] for r in rows}),
        after="thesis-fig09",  # its clipped rows are Fig. 9's run
    ),
    "thesis-fig11": Figure(
        "Markov vs Zhao bound region in (ω, γ)", lambda c: D.thesis_fig11_rows(), F.plot_thesis_fig11
    ),
    "thesis-fig12": Figure(
        "two example Markov chains, γ = 9 with ω = 2 and ω = 8 (from the chain models)",
        lambda c: D.thesis_fig12_rows(),
        plot_thesis_fig12,
        panels=2,
    ),
    "thesis-fig13": Figure(
        "Markov vs general bound regions in (n, γ), ε ∈ {0.5, 1, 2}",
        lambda c: D.thesis_fig13_rows(),
        F.plot_thesis_fig13,
    ),
    "thesis-fig14": Figure(
        "the Markov chain of the Fig. 15 simulations (from the chain model)",
        lambda c: D.thesis_fig14_rows(),
        plot_thesis_fig14,
    ),
    "thesis-fig15": Figure(
        "empirical and exact BDPL, Markov chain n = 10", _fig15, F.plot_thesis_fig15, True
    ),
    "thesis-fig16": Figure(
        "max γ for a relative error factor h", lambda c: D.thesis_fig16_rows(), F.plot_thesis_fig16
    ),
    "paper-fig1": Figure(
        "relative accuracy h vs ρ (Gaussian), m ∈ {3, 6, 12, 24}",
        lambda c: D.paper_fig1_rows(),
        F.plot_paper_fig1,
    ),
    "paper-fig2": Figure(
        "Markov-bound Laplace vs Chakrabarti et al. randomized response (paper and authors' variant)",
        lambda c: D.paper_fig2_rows() + D.paper_fig2_authors_rows(),
        F.plot_paper_fig2,
        panels=2,
        layout="column",
    ),
    "paper-fig3": Figure(
        "relative accuracy h vs γ (Markov), ε ∈ {0.5, 1, 2, 5, 10, 20}",
        lambda c: D.paper_fig3_rows(),
        F.plot_paper_fig3,
    ),
    "paper-fig4": Figure(
        "utility on Gaussian data: Galton, FamilyIQ, SyntheticIQ",
        lambda c: [
            r
            for r in _utility(c, ["utility_galton.toml", "utility_familyiq.toml", "utility_syntheticiq.toml"])
            if not r["variant"].startswith("trios")
        ],
        F.plot_paper_fig4,
        True,
        panels=_n_utility_panels,
    ),
    "paper-fig5": Figure(
        "utility on Markov data: Activity, Electricity 70/80/90 kWh",
        lambda c: [
            r
            for r in _utility(
                c,
                ["utility_activity.toml", "utility_electricity.toml"],
                optional=["utility_electricity.toml"],
            )
            if r["variant"] != "single days"
        ],
        F.plot_paper_fig5,
        True,
        panels=_n_utility_panels,
    ),
    "thesis-fig17": Figure(
        "MSE of the BDP count on genomic data (thesis design: 1 000 synthetic data sets × 2 504 people)",
        lambda c: G.thesis_fig17_rows(),
        F.plot_thesis_fig17,
    ),
    "thesis-fig18": Figure(
        "MSE of the BDP sum on Galton heights (trios, n = 3, clip 60–80 in)",
        lambda c: [r for r in _utility(c, ["utility_galton.toml"]) if r["variant"].startswith("trios")],
        F.plot_thesis_fig18,
        True,
        after="paper-fig4",  # the Galton runs
    ),
    "thesis-fig19": Figure(
        "MSE of the BDP count on activity data (a: single days, b: complete data)",
        lambda c: _utility(c, ["utility_activity.toml"]),
        F.plot_thesis_fig19,
        True,
        panels=2,
        after="paper-fig5",  # the activity runs
    ),
    "bdpsim-calibration": Figure(
        "Laplace scale for ε-BDP: exact calibration vs general, Markov and Zhao bounds",
        lambda c: S.calibration_rows(),
        plot_calibration,
        panels=4,
        layout="grid2",
    ),
    "bdpsim-competition": Figure(
        "competing mechanisms under BDP: noise scale and exact BDPL of general, group, "
        "Markov, Zhao, Markov Quilt, Wasserstein, randomized response, exact",
        _competition,
        plot_competition,
        panels=competition_panels,
        layout="grid3",
    ),  # 2 rows x 3 chains
    "bdpsim-knowledge": Figure(
        "exact leakage by prior knowledge: activity count, b = 1, n = 288",
        lambda c: S.knowledge_rows(),
        plot_knowledge_panels,
        panels=2,
    ),
    "bdpsim-pedigree": Figure(
        "exact BDPL of a nuclear family's BB count vs family size m (thesis §5)",
        lambda c: G.family_size_study(),
        plot_family_size,
        panels=2,
    ),
    "bdpsim-generations": Figure(
        "thesis §5.3: three-generation family vs core families, exact BDPL",
        lambda c: G.generation_study(),
        plot_generations,
        panels=lambda rows: len({r["allele_b"] for r in rows}),
    ),
    PF2.GALLERY_ENTRY["id"]: Figure(
        PF2.GALLERY_ENTRY["title"],
        PF2.gallery_rows,
        plot_pufferfish_fig2,
        True,
        panels=PF2.GALLERY_ENTRY["panels"],
        layout=PF2.GALLERY_ENTRY["layout"],
    ),
    "bdpsim-audit": Figure(
        "black-box audit of the activity chain's Laplace count (n = 288, b = 1): certified 95 % "
        "lower bound and estimate vs mechanism calls, the thesis' KDE beside it, exact BDPL",
        _audit,
        plot_audit,
        True,
    ),
    "bdpsim-utility-optimal": Figure(
        "utility of the optimal integer noise vs the exactly calibrated Laplace noise, "
        "both ε-BDP (activity: single days n = 288, complete data n = 15 264; "
        "Electricity when supplied)",
        lambda c: _utility(
            c,
            ["utility_activity_optimal.toml", "utility_electricity_optimal.toml"],
            optional=["utility_electricity_optimal.toml"],
        ),
        F.plot_utility_optimal,
        True,
        panels=_n_utility_panels,
    ),
    "bdpsim-frontier": Figure(
        "the utility frontier: E|Z| of the optimal integer noise for ε-BDP vs calibrated Laplace, "
        "geometric, staircase and the Markov Quilt mechanism (activity count, n = 288; the paper's "
        "Electricity chains, n = 731)",
        _frontier,
        plot_frontier,
        panels=3,
    ),
    "tkde-budget": Figure(
        "Cao et al. (TKDE 2019) budget allocations, BPL/FPL/TPL over time: their recursion vs the "
        "exact leakage",
        _tkde_budget,
        plot_tkde_budget,
        panels=2,
    ),
    "bdpsim-temporal": Figure(
        "continual release on the paper's chains: exact TPL_t vs Cao et al.'s TPL_t, the Markov "
        "bound and group privacy Tε",
        _temporal_day,
        plot_temporal_day,
        panels=day_panels,
        layout="grid3",
    ),
    "bdpsim-attack": Figure(
        "what the leakage means to an attacker: the worst adversary's advantage vs the exact BDPL "
        "across ε, the paper's chains (Laplace count) vs independent records",
        _attack,
        plot_attack_vs_bdpl,
        panels=2,
    ),
    "bdpsim-accountant": Figure(
        "many releases of a count on correlated records: the joint δ(1) over every adversary against "
        "the per-release profiles composed as if independent (symmetric chains, a hidden Markov network)",
        _accountant,
        plot_accountant_gallery,
        panels=3,
    ),
}


def run_progress(cfg: ExperimentConfig, run_dir: Path) -> int:
    """How many configuration points of ``cfg`` already have a finished record in ``run_dir``
    (a resumed run skips them)."""
    return sum(R.point_done(run_dir, pt.id) for pt in cfg.points) if run_dir.is_dir() else 0


def run_seconds(cfg: ExperimentConfig, run_dir: Path) -> tuple[float, float]:
    """``(low, high)`` seconds of one core for the points of ``cfg`` not yet finished in
    ``run_dir`` (:func:`bdpsim.pipeline.cost.config_seconds`; an exhaustive point counts 0)."""
    todo = [pt for pt in cfg.points if not (run_dir.is_dir() and R.point_done(run_dir, pt.id))]
    return config_seconds([estimate_point(pt) for pt in todo])


@dataclass(frozen=True)
class FiguresEstimate:
    """What ``bdpsim figures`` is about to do, priced before anything runs.

    Attributes
    ----------
    figures : tuple of str
        The figure ids to make.
    runs : tuple of str
        The distinct ``bdpsim run`` directories (``OUT/runs/<stem>``) of the simulated figures.
    configurations, to_compute, exhaustive : int
        Their configuration points; those without a finished record in ``OUT``; those among
        ``to_compute`` that examine every adversary (timed by their exact engine, not the model).
    seconds : tuple of float
        ``(low, high)`` seconds of one core for ``to_compute``: the sum of
        :func:`bdpsim.pipeline.cost.estimate_point`'s ranges, ``factor × work / 10^8 +
        adversaries × overhead`` per point.
    other : tuple of str
        The figures outside the cost model (analytic curves, exact studies, utility runs).
    """

    figures: tuple[str, ...]
    runs: tuple[str, ...]
    configurations: int
    to_compute: int
    exhaustive: int
    seconds: tuple[float, float]
    other: tuple[str, ...]

    def __post_init__(self) -> None:
        if not 0 <= self.to_compute <= self.configurations:
            raise ValueError(
                f"to_compute = {self.to_compute}: must be in [0, configurations = {self.configurations}]"
            )
        if not 0 <= self.exhaustive <= self.to_compute:
            raise ValueError(
                f"exhaustive = {self.exhaustive}: must be in [0, to_compute = {self.to_compute}]"
            )

    def lines(self, jobs: int = 1) -> list[str]:
        """The estimate as the console prints it (one line, a second naming the other figures)."""
        n = len(self.figures)
        head = f"bdpsim figures: {n} figure{'s' * (n != 1)}"
        if not self.runs:
            out = [f"{head}, none simulated (no bdpsim run)"]
        else:
            lo, hi = self.seconds
            wall = f", about {fmt_range(lo / jobs, hi / jobs)} with --jobs {jobs}" if jobs > 1 else ""
            ex = (
                f" (+ {self.exhaustive} over every adversary, timed by the exact engine)"
                if self.exhaustive
                else ""
            )
            out = [
                f"{head}; {len(self.runs)} simulated run{'s' * (len(self.runs) != 1)} of "
                f"{self.configurations} configurations, {self.to_compute} to compute: estimated "
                f"{fmt_range(lo, hi)} of one core{wall}{ex}"
            ]
        if self.other:
            k = len(self.other)
            names = f": {', '.join(self.other)}" if k <= 6 else ""
            out.append(
                f"  + {k} figure{'s' * (k != 1)} not priced by the cost model{names} (analytic curves, "
                "exact studies, utility runs: seconds to minutes each)"
            )
        return out


def estimate_figures(
    ids: Sequence[str] | None,
    out: Path,
    *,
    quick: bool = False,
    configs: Path | None = None,
    overrides: dict | None = None,
) -> FiguresEstimate:
    """Price ``make_figures(ids, out, quick=...)`` before it runs: the configuration points of its
    simulated runs (:data:`RUNS`, each run counted once) still to compute in ``out/runs/``, and
    their time by the cost model (:class:`FiguresEstimate`). Nothing is written."""
    ids = _check_ids(ids)
    out = Path(out)
    ctx = Context(
        out,
        Path(configs) if configs else default_configs_dir(),
        quick,
        1,
        overrides or {},
        log=lambda line: None,
    )
    stems: dict[str, ExperimentConfig] = {}
    for i in ids:
        for name, raw in RUNS.get(i, lambda c: [])(ctx):
            stems.setdefault(ctx.stem(name), parse_config(raw, name))
    total = todo = exhaustive = 0
    lo = hi = 0.0
    for stem, cfg in stems.items():
        run_dir = out / "runs" / stem
        left = [pt for pt in cfg.points if not (run_dir.is_dir() and R.point_done(run_dir, pt.id))]
        total += len(cfg.points)
        todo += len(left)
        exhaustive += sum(pt.settings.exhaustive for pt in left)
        a, b = config_seconds([estimate_point(pt) for pt in left])
        lo, hi = lo + a, hi + b
    return FiguresEstimate(
        tuple(ids), tuple(stems), total, todo, exhaustive, (lo, hi), tuple(i for i in ids if i not in RUNS)
    )


def default_configs_dir() -> Path:
    return Path(__file__).resolve().parents[1] / "configs"


def render(fig_id: str, rows: list[dict], fidelity: str = "full"):
    """The matplotlib ``Figure`` of ``fig_id`` drawn from ``rows``; a ``quick`` fidelity is
    written across its top."""
    spec = FIGURES[fig_id]
    k = spec.panels(rows) if callable(spec.panels) else spec.panels
    if k == 1 and not callable(spec.panels):
        fig, ax = F.subplots(figsize=(8.4, 4.8))
        spec.plot(rows, ax)
    else:
        if spec.layout.startswith("grid"):
            cols = int(spec.layout[4:])
            rows_ = -(-k // cols)
            shape, size = (rows_, cols), (4.2 * cols + 3.0, 3.6 * rows_)
        else:
            shape, size = (
                ((k, 1), (7.2, 4.0 * k)) if spec.layout == "column" else ((1, k), (4.0 * k + 3.0, 4.4))
            )
        fig, axes = F.subplots(*shape, figsize=size, squeeze=False)
        spec.plot(rows, list(axes.ravel()))
    if fidelity.startswith("quick"):
        F.stamp(fig, "QUICK PREVIEW (bdpsim figures --quick: reduced runs) — not the sources' fidelity")
    return fig


def fidelity_level(quick: bool, simulated: bool, missing: Sequence[str] = ()) -> str:
    """``full``, ``quick`` or ``partial: <dataset> missing`` (``quick; partial: ...`` for both)."""
    parts = ["quick"] if quick and simulated else []
    if missing:
        parts.append("partial: " + ", ".join(f"{m} missing" for m in dict.fromkeys(missing)))
    return "; ".join(parts) or "full"


@dataclass(frozen=True)
class Computed:
    """One figure's computation: its rows (``None``: skipped, ``skipped`` says why), the notes and
    missing data sets it recorded, the lines it logged (a worker's, shown when it finishes), its
    seconds and the CPU seconds of the process that made it (its runs' worker processes aside)."""

    fig_id: str
    rows: list[dict] | None
    notes: list
    missing: list
    lines: list[str]
    seconds: float
    cpu: float
    skipped: str = ""


def _compute(fig_id: str, ctx: Context, live: bool) -> Computed:
    """Compute one figure (in this process, or in a worker process of :func:`make_figures`); a
    missing data set (:class:`~bdpsim.utility.datasets.DatasetError`) skips it. ``live``: log as it
    goes (one process); else keep the lines for the parent to show when the figure is done."""
    import time

    from ..utility.datasets import DatasetError

    lines: list[str] = []
    if not live:  # a worker: no progress bar or heartbeat of its own, its lines kept
        ctx = replace(ctx, log=lines.append, progress=False, heartbeat=0.0)
    ctx.notes, ctx.missing = [], []
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        rows: list[dict] | None = FIGURES[fig_id].compute(ctx)
        why = ""
    except DatasetError as exc:
        rows, why = None, str(exc)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    return Computed(fig_id, rows, ctx.notes, ctx.missing, lines, seconds, cpu, why)


def figure_groups(ids: Sequence[str]) -> list[list[str]]:
    """``ids`` in groups made one after the other in one process: a figure with ``after`` joins
    the group of that figure when it is made too (they read the same runs); the simulated groups
    (the longest) first, the gallery's order otherwise."""
    groups: dict[str, list[str]] = {}
    for i in ids:
        head = FIGURES[i].after if FIGURES[i].after in groups else i
        groups.setdefault(head, []).append(i)
    return sorted(groups.values(), key=lambda g: not any(FIGURES[i].simulated for i in g))


def figure_workers(jobs: int, groups: int) -> tuple[int, int]:
    """``(workers, jobs per figure)``: ``jobs`` processes make up to that many groups of figures
    at once, each figure's own runs sharing what is left (one group alone: its runs get every
    job)."""
    workers = max(1, min(jobs, groups))
    return workers, max(1, jobs // workers)


def _compute_group(group: Sequence[str], ctx: Context) -> list[Computed]:
    """A worker process's part: the figures of one group, in order."""
    return [_compute(i, ctx, False) for i in group]


def make_figures(
    ids: Sequence[str] | None,
    out: Path,
    *,
    quick: bool = False,
    jobs: int = 1,
    configs: Path | None = None,
    overrides: dict | None = None,
    progress: bool = False,
    log: Callable[[str], None] = print,
    data_dir: Path | None = None,
    skipped: list | None = None,
    heartbeat: float = 0.0,
    done: Callable[[list[str], list[str]], None] | None = None,
) -> list[Path]:
    """Compute, plot and save the figures ``ids`` (all when None); rewrite the gallery README.

    ``jobs > 1``: the simulated figures first, here, each run on every job; then the others
    several at once in ``jobs`` worker processes (the studies' executor,
    :func:`~bdpsim.pipeline.backends.tasks`; :func:`figure_groups`, :func:`figure_workers`).
    Each figure's numbers are the same for any ``jobs`` (its runs are reproducible; figures
    reading the same runs are made in one process, and any two runs into one directory take turns
    by its lock). A worker's log lines are shown when its figures are done; the others' as they
    come.
    ``done(finished, left)``: called with the figure ids finished and still to make, before the
    first and after each (a progress display: never more finished than ``ids``).

    A figure whose data set cannot be had (not supplied, offline, failing its checksum:
    :class:`~bdpsim.utility.datasets.DatasetError`) is skipped with one logged line saying how to
    get it, its id appended to ``skipped``; the other figures are drawn. Each simulated run logs
    its configurations and estimate as it starts; ``heartbeat > 0``: its progress every that many
    seconds (without a terminal; ``progress`` draws a bar)."""
    ids = _check_ids(ids)
    out = Path(out)
    groups = figure_groups(ids)
    # the simulated figures first, one after the other here, each run on every job (they divide
    # well); then the others, several at once in worker processes (each in one process)
    here = [g for g in groups if jobs == 1 or any(FIGURES[i].simulated for i in g)]
    rest = [g for g in groups if g not in here]
    workers = figure_workers(jobs, len(rest))[0]
    ctx = Context(
        out,
        Path(configs) if configs else default_configs_dir(),
        quick,
        jobs,
        overrides or {},
        progress,
        data_dir,
        log,
        heartbeat=heartbeat,
    )
    finished: list[str] = []
    if done is not None:
        done([], list(ids))
    live = [i for g in here for i in g] if jobs > 1 else ids  # one process: the gallery's order
    computed: Iterable[Computed] = (_compute_logged(i, ctx, log) for i in live)
    if rest:
        from ..pipeline.backends import tasks

        alone = replace(ctx, jobs=1, log=print, progress=False, heartbeat=0.0)
        parts = tasks(_compute_group, [(g, alone) for g in rest], workers, unordered=True)
        later = (c for part in parts for c in part)  # each group as its worker finishes it
        computed = itertools.chain(computed, later)
    written = []
    for c in computed:
        if c.fig_id not in live:  # a worker's: its title and lines now
            log(f"{c.fig_id}: {FIGURES[c.fig_id].title}")
            for line in c.lines:
                log(line)
        if c.rows is None:
            log(f"  skipped {c.fig_id}: {c.skipped}")
            if skipped is not None:
                skipped.append(c.fig_id)
        else:
            cols = list(dict.fromkeys(k for r in c.rows for k in r))
            R.atomic_write_text(out / f"{c.fig_id}.csv", R.csv_text(c.rows, cols))
            level = fidelity_level(quick, FIGURES[c.fig_id].simulated, c.missing)
            written += [out / f"{c.fig_id}.csv", *F.save(render(c.fig_id, c.rows, level), out / c.fig_id)]
            _record_fidelity(out, c.fig_id, level, c.notes)
        log(f"  {c.fig_id}: done in {c.seconds:.0f} s ({c.cpu:.0f} s of CPU in its process)")
        finished.append(c.fig_id)
        if done is not None:
            done(list(finished), [i for i in ids if i not in finished])
    write_gallery(out)
    return written


def _compute_logged(fig_id: str, ctx: Context, log: Callable[[str], None]) -> Computed:
    """:func:`_compute` in this process, its title logged first and its lines as they come."""
    log(f"{fig_id}: {FIGURES[fig_id].title}")
    return _compute(fig_id, ctx, True)


def read_rows(path: Path) -> list[dict]:
    """A figure CSV back as rows: integers, floats (empty = nan) and strings."""

    def parse(v: str):
        if v == "":
            return float("nan")
        for kind in (int, float):
            try:
                return kind(v)
            except ValueError:
                pass
        return v

    with open(path, newline="") as fh:
        return [{k: parse(v) for k, v in r.items()} for r in csv.DictReader(fh)]


def replot(ids: Sequence[str] | None, out: Path) -> list[Path]:
    """Redraw figures from their CSVs in ``out`` (no computation; fidelity and notes kept)."""
    ids = _check_ids(ids)
    out = Path(out)
    fid = _fidelity(out)
    written = []
    for i in ids:
        if not (out / f"{i}.csv").is_file():
            raise ConfigError("--only", i, f"has no {i}.csv in {out} to redraw")
        written += F.save(render(i, read_rows(out / f"{i}.csv"), fid.get(i, "full")), out / i)
    write_gallery(out)
    return written


def _check_ids(ids: Sequence[str] | None) -> list[str]:
    ids = list(FIGURES) if not ids else list(ids)
    for i in ids:
        if i not in FIGURES:
            raise ConfigError("--only", i, f"unknown figure id (known: {', '.join(FIGURES)})")
    return ids


def _fidelity(out: Path) -> dict:
    path = out / "fidelity.json"
    return json.loads(path.read_text()) if path.is_file() else {}


def _record_fidelity(out: Path, fig_id: str, level: str, notes: Sequence[str] = ()) -> None:
    fid = _fidelity(out)
    fid[fig_id] = level
    fid.setdefault("_notes", {})[fig_id] = list(notes)
    R.atomic_write_text(out / "fidelity.json", R.dumps(fid))
    R.atomic_write_text(
        out / "metadata.json",
        R.dumps(
            R.metadata(
                "figures",
                figures=fid,
                quick_run_settings={**QUICK, "utility_runs": QUICK_UTILITY_RUNS},
                runs="each simulated figure's runs/<config>/metadata.json holds its config and seed",
            )
        ),
    )


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def deviation_table() -> list[str]:
    """The gallery's table: figure | source's parameters | bdpsim's | why they differ."""
    lines = ["| figure | source's parameters | bdpsim's | why they differ |", "|---|---|---|---|"]
    for i in FIGURES:
        d = DEVIATIONS[i]
        lines.append(f"| [{i}](#{i}) | {_cell(d.source)} | {_cell(d.ours)} | {_cell(d.why)} |")
    return lines


def write_gallery(out: Path) -> Path:
    """Rewrite ``out/README.md``: the deviation table, then each figure present with its fidelity."""
    out = Path(out)
    lines = [
        "# bdpsim figure gallery",
        "",
        "Regenerated by `bdpsim figures` (all) or `bdpsim figures --only ID`; `--quick` gives a",
        "reduced-fidelity preview (100 adversaries × 10^4 samples, 200 utility runs) that says so",
        "across its top. Each figure has its plotted numbers in a CSV beside it; simulated figures",
        "keep their full runs in `runs/`. Fidelity: `full`, `quick`, or `partial: <dataset> missing`",
        "when a data file was not supplied.",
        "",
        "## Deviations from the sources",
        "",
        "Sources: thesis = Lange, *Utility of Semantic Privacy Notions for Correlated Data* (2024);",
        "paper = Lange et al., PVLDB 18(11) 2025; authors' scripts = the public repository",
        "lange-martin/privacy-utility-bdp (`plots_for_paper.py`, `BDP_RR/*.py`, `plots/mle_accu.py`,",
        "`utility_experiment.py`).",
        "",
        *deviation_table(),
        "",
        "### Not drawn",
        "",
        "Every figure of the paper (Figs. 1–5) and of the thesis (Figs. 3–19) has an entry above, except:",
        "",
        *[f"- {k}: {v}." for k, v in NOT_REPRODUCED.items()],
        "",
        "### Where the sources' own numbers disagree",
        "",
        *[f"- {d}" for d in DISAGREEMENTS],
        "",
    ]
    fid = _fidelity(out)
    for i, spec in FIGURES.items():
        if not (out / f"{i}.png").is_file():
            continue
        level = fid.get(i, "full")
        cmd = f"bdpsim figures --only {i}" + (" --quick" if level.startswith("quick") else "")
        lines += [
            f"## {i}",
            "",
            f"**{spec.title}** — fidelity: `{level}`",
            "",
            f"![{i}]({i}.png)",
            "",
            f"`{cmd}` — data: [{i}.csv]({i}.csv), vector: [{i}.pdf]({i}.pdf)",
            "",
        ]
        lines += [f"> Note: {n}" for n in fid.get("_notes", {}).get(i, [])]
        if fid.get("_notes", {}).get(i):
            lines.append("")
    path = out / "README.md"
    R.atomic_write_text(path, "\n".join(lines))
    return path
