"""The Python API for notebooks: run a config, load results, exact BDPL of a model and mechanism.

Everything here is a thin layer over the library (:mod:`bdpsim.config`, :mod:`bdpsim.driver`,
:mod:`bdpsim.estimators`); the CLI calls the same functions.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .adversary import Adversary, is_upward_closed, known_sizes
from .config import ExperimentConfig, load_config, parse_config
from .errors import ConfigError, NotAvailable
from .estimators import adversary_bdpl, engine_for
from .results import read_summary


def _table(rows: list[dict]):
    """``rows`` as a pandas DataFrame when pandas is installed, else the list of dicts."""
    try:
        import pandas as pd
    except ImportError:
        return rows
    return pd.DataFrame(rows)


def load_results(path: str | Path, *, as_frame: bool = True):
    """Read a run's ``summary.csv`` (or its directory) with the column types of the schema.

    Returns a pandas ``DataFrame`` when pandas is installed and ``as_frame`` is true, else a list
    of dicts (one per configuration point).
    """
    rows = read_summary(Path(path))
    return _table(rows) if as_frame else rows


def run(config: Mapping | str | Path | ExperimentConfig, out: str | Path | None = None, *, jobs: int = 1,
        backend: str = "loky", progress: bool = False, as_frame: bool = True):
    """Run a config (a dict shaped like the TOML file, a path to one, or a parsed config).

    Parameters
    ----------
    config : dict, str, Path or ExperimentConfig
        E.g. ``{"run": {...}, "model": {...}, "mechanism": {...}}``.
    out : str or Path, optional
        Output directory (resumable, as ``bdpsim run --out``); a temporary one when omitted.
    jobs, backend, progress
        As for ``bdpsim run``.

    Returns
    -------
    DataFrame or list of dict
        One row per configuration point (the ``summary.csv`` columns).
    """
    from .driver import run_experiment

    if isinstance(config, ExperimentConfig):
        cfg = config
    elif isinstance(config, Mapping):
        cfg = parse_config(dict(config), "<dict>")
    elif isinstance(config, (str, Path)):
        cfg = load_config(config)
    else:
        raise TypeError(f"config = {config!r}: must be a dict, a TOML path or an ExperimentConfig")
    if out is None:
        with tempfile.TemporaryDirectory(prefix="bdpsim-") as tmp:
            rows = run_experiment(cfg, tmp, jobs=jobs, backend=backend, progress=progress, log=lambda m: None)
    else:
        rows = run_experiment(cfg, out, jobs=jobs, backend=backend, progress=progress)
    return _table(rows) if as_frame else rows


@dataclass(frozen=True)
class ExactResult:
    """The exact BDPL ``sup`` over the examined adversaries and the adversary attaining it;
    ``adversaries`` counts the adversaries (or, for the window search, the window classes) examined."""

    bdpl: float
    adversary: Adversary
    adversaries: int


def exact_bdpl(model, mechanism, adversary: Adversary | None = None, *,
               sizes: str | tuple[int, ...] = "all") -> ExactResult:
    """Exact BDPL of ``mechanism`` on ``model``: of one ``adversary``, or the supremum over every
    adversary ``(i, K, x_K, x, x')`` with ``|K|`` in ``sizes`` (``"all"``: 0..n-1).

    ``BDPL = sup_{K,i} sup_{x, x', x_K, s} ln p(s | x_K, x) / p(s | x_K, x')`` (thesis §3.1,
    paper §3); the engine is the one of :data:`bdpsim.estimators.EXACT_ENGINES` for the pair.
    Raises :class:`~bdpsim.errors.NotAvailable` when the pair has no exact engine.
    """
    if adversary is not None:
        return ExactResult(adversary_bdpl(model, mechanism, adversary).value, adversary, 1)
    eng = engine_for(model, mechanism)
    if isinstance(eng, str):
        raise NotAvailable(eng)
    ks = known_sizes(sizes, model.n)
    if eng.window is not None and is_upward_closed(ks, model.n):
        search, advs, values = eng.window(model, mechanism, ks[0], 1)
        return ExactResult(search.bdpl, advs[0].adversary(), int(values.size))
    if eng.exhaustive is None:
        raise NotAvailable(f"no exhaustive search for {model.kind}+{mechanism.kind}")
    if eng.limit is not None and (why := eng.limit(model, ks)) is not None:
        raise ConfigError("sizes", sizes, why)
    res = eng.exhaustive(model, mechanism, ks, None)
    j = res.best
    return ExactResult(float(res.value[j]), res.adversary(j), len(res))
