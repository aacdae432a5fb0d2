"""The layers of the package, lowest first: the one table that ``tests/architecture/test_layers.py`` checks
the imports against and that the developer layout page (``docs/developer/layout.md``) shows.

A module may import its own layer or lower ones only; every top-level module or package of
``bdpsim`` belongs to exactly one layer.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Layer:
    """One floor of the package: its name, its top-level modules and packages, and what it holds.

    ``where`` maps each top-level name to a short description of what is inside it (paths below
    it may be named in backquotes: the layout test checks they exist).
    """

    name: str
    where: tuple[tuple[str, str], ...]
    what: str

    @property
    def tops(self) -> tuple[str, ...]:
        """The top-level names (``core``, ``adversary``, ...) of this layer."""
        return tuple(top for top, _ in self.where)


#: lowest layer first
LAYERS: tuple[Layer, ...] = (
    Layer(
        "vocabulary",
        (
            (
                "core",
                "`core/errors.py`, `core/schema.py` (config keys: type, default, rule, doc), "
                "`core/registry.py` (one `Registry` for every plug-in type, checked against its "
                "Protocol), `core/columns.py`, `core/bundled.py`, `core/layers.py` (this table), "
                "`core/moved.py` (old import paths, one release), `core/warn.py` (warnings located "
                "at the config key that causes them, or at the caller)",
            ),
        ),
        "the words every layer speaks",
    ),
    Layer(
        "kernels",
        (
            (
                "kernels",
                "`kernels/noise/` (noise laws and their exact mixture suprema; the optimal-noise "
                "LP), `kernels/chains/` (transition matrices, lattices, the window scan), "
                "`kernels/graphical/` (variable elimination, junction trees), `kernels/audit/` "
                "(events, search, binomial certificates), `kernels/privacy/` (privacy-loss "
                "distributions, joint laws of releases, closed forms), `kernels/stats.py`, "
                "`kernels/mixture_interval.py`",
            ),
        ),
        "pure numerics, no config vocabulary",
    ),
    Layer(
        "notions",
        (
            ("adversary", "`adversary.py`: who knows what"),
            ("queries", "`queries.py`: what is counted or summed"),
            ("bounds", "`bounds.py`: general, Gaussian, Markov, Zhao bounds and their calibration"),
            (
                "temporal",
                "`temporal/`: continual release — Cao et al.'s TPL (`temporal/cao.py`, "
                "`temporal/lfp.py`), a chain and its releases (`temporal/chain.py`) and the exact "
                "temporal leakage of every step and adversary (`temporal/exact.py`); the `continual` "
                "mechanism kind builds on it",
            ),
        ),
        "the paper's objects",
    ),
    Layer(
        "models",
        (
            (
                "models",
                "`models/base.py` (`ModelKind`, `ModelSpec`), `models/engines.py` (the exact "
                "engine: a Protocol per capability), `models/protocols.py` (model capabilities), "
                "`models/factor_model.py`, `models/common/` (what kinds share: node vocabulary, "
                "Mendelian tables), one sub-package per kind: "
                "`models/markov/`, `models/gaussian/`, `models/pedigree/`, `models/bayesnet/`, "
                "`models/mrf/`",
            ),
        ),
        "data models, their exact engines and adversary searches",
    ),
    Layer(
        "mechanisms",
        (
            (
                "mechanisms",
                "`mechanisms/base.py`, `mechanisms/protocols.py`, `mechanisms/kinds.py` (the "
                "built-in kinds), `mechanisms/randomized_response/`",
            ),
        ),
        "what is released",
    ),
    Layer(
        "estimation",
        (
            ("estimators", "`estimators/` (`kde`, `mixture`, `exact`, `audit`; `estimators/sampling.py`)"),
            ("calibration", "`calibration/` (methods, budgets, the optimal noise, `calibration/quilt/`)"),
            (
                "attack",
                "`attack/`: what a leakage means to an attacker — the optimal test's trade-off "
                "curve, advantage, TPR at low FPR, calibration to an attack target, the attack "
                "columns of an exact run (`attack/columns.py`)",
            ),
            (
                "accounting",
                "`accounting/`: the privacy accountant of many releases on the same records — their "
                "joint output laws (`accounting/pairs.py`), the worst adversary (`accounting/search.py`), "
                "`account()` (`accounting/accountant.py`), the naive compositions (`accounting/naive.py`), "
                "exports (`accounting/export.py`)",
            ),
        ),
        "numbers from models and mechanisms",
    ),
    Layer(
        "runs",
        (
            (
                "pipeline",
                "`pipeline/settings.py`, `pipeline/config.py`, `pipeline/cost.py`, "
                "`pipeline/rows.py`, `pipeline/summarize.py`, `pipeline/flags.py`, "
                "`pipeline/results/` (atomic files, tables, points, provenance, output "
                "directories), `pipeline/runner.py` (the one runner: lock, metadata, resume), "
                "`pipeline/driver.py`, `pipeline/plan.py`, `pipeline/backends.py` (the one "
                "executor), `pipeline/seeds.py` (the one seed tree)",
            ),
        ),
        "batches: validated, resumable, reproducible",
    ),
    Layer(
        "studies",
        (
            ("studies", "`studies/`: the thesis' and papers' experiments"),
            ("utility", "`utility/`: the utility experiment on real data"),
        ),
        "the experiments of the thesis and the papers",
    ),
    Layer(
        "facade",
        (
            (
                "api",
                "`api.py`: the Python API for notebooks (`run`, `load_results`, `worst_case_markov`, ...)",
            ),
        ),
        "one import for a notebook; the studies do not import it",
    ),
    Layer(
        "output",
        (
            (
                "figures",
                "`figures/` (the only package that imports matplotlib; `figures/data.py` the "
                "figures' numbers, `figures/gallery.py` the gallery)",
            ),
        ),
        "figures",
    ),
    Layer(
        "interface",
        (
            (
                "cli",
                "`cli/` (parses arguments, calls library functions: one module per subcommand, "
                "`cli/base.py` what they share, `cli/chain.py` the Markov-chain flags)",
            ),
            ("__main__", "`__main__.py`: `python -m bdpsim` runs the command line"),
            (
                "testing",
                "`testing/`: the plug-in contract (`check_model_kind`, `check_noise_law`, ...) "
                "for plug-in authors and bdpsim's own tests",
            ),
        ),
        "the command line and the plug-in contract",
    ),
)


def layer_of(top: str) -> int:
    """The index in :data:`LAYERS` of a top-level module or package name (``KeyError`` if none)."""
    for i, layer in enumerate(LAYERS):
        if top in layer.tops:
            return i
    raise KeyError(top)
