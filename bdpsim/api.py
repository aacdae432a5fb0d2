"""The Python API for notebooks: run a config, load results, exact BDPL of a model and
mechanism, and the worst-case searches over a model class.

Everything here is a thin layer over the library (:mod:`bdpsim.pipeline.config`,
:mod:`bdpsim.pipeline.driver`,
:mod:`bdpsim.estimators`; :func:`exact_bdpl` is defined in :mod:`bdpsim.estimators.supremum`);
the CLI calls the same functions.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from pathlib import Path

from .estimators.supremum import ExactResult as ExactResult  # public here too (bdpsim.api)
from .estimators.supremum import exact_bdpl as exact_bdpl
from .pipeline.config import ExperimentConfig, load_config, parse_config
from .pipeline.results import read_adversaries, read_summary
from .studies.worstcase import GaussianWorstCase, MarkovWorstCase


def _table(rows: list[dict]):
    """``rows`` as a pandas DataFrame when pandas is installed, else the list of dicts."""
    try:
        import pandas as pd
    except ImportError:
        return rows
    return pd.DataFrame(rows)


def load_results(path: str | Path, *, as_frame: bool = True):
    """Read a run's ``summary.csv`` (or its directory) with the column types of the schema.

    Parameters
    ----------
    path : str or Path
        A results directory (``bdpsim run --out``) or its ``summary.csv``.
    as_frame : bool, optional
        Return a pandas ``DataFrame`` when pandas is installed (default); pandas is optional.

    Returns
    -------
    DataFrame or list of dict
        One row per configuration point: its parameters, the empirical BDPL ``bdpl_p99`` (the
        99th percentile over adversaries of ``sup_s ln p(s | x_K, x) / p(s | x_K, x')``,
        thesis §3.1.2), ``bdpl_exact`` where known (the max of the examined adversaries' exact
        values: with sampled adversaries a lower bound on the BDPL, which
        ``bdpl_all_adversaries`` gives where cheap), and the bounds.
    """
    rows = read_summary(Path(path))
    return _table(rows) if as_frame else rows


def _number(text: str):
    """``"3"`` -> 3, ``"0.5"`` -> 0.5; other text (e.g. ``"x_l=1"``) stays text."""
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def _positions(text: str) -> tuple[int, ...]:
    """``"0;2;5"`` -> (0, 2, 5); a window row's ranges ``"0..3;9..11"`` are expanded."""
    out: list[int] = []
    for part in filter(None, text.split(";")):
        lo, _, hi = part.partition("..")
        out.extend(range(int(lo), int(hi) + 1) if hi else [int(lo)])
    return tuple(out)


def load_adversaries(path: str | Path, *, as_frame: bool = True):
    """Read a run's ``adversaries.csv.gz`` (or its directory) with proper types.

    ``known`` becomes a tuple of record indices (a window row's ranges ``a..b`` expanded),
    ``x_known`` a tuple of values (numbers; a window row's boundary descriptions ``x_l=v`` stay
    text: given the boundaries, the other known values do not change the BDPL), ``x`` and
    ``x_prime`` numbers; the numeric columns are typed by the schema (an empty cell is ``nan``).

    Parameters
    ----------
    path : str or Path
        A results directory (``bdpsim run --out``) or its ``adversaries.csv.gz``.
    as_frame : bool, optional
        A pandas ``DataFrame`` when pandas is installed (default), else a list of dicts.

    Returns
    -------
    DataFrame or list of dict
        One row per examined adversary ``(i, K, x_K, x, x')`` with its estimate ``bdpl`` of
        ``sup_s ln p(s | x_K, x) / p(s | x_K, x')``, standard error, null estimate and exact value.
    """
    rows = read_adversaries(Path(path))
    for r in rows:
        r["known"] = _positions(r["known"])
        r["x_known"] = tuple(_number(v) for v in filter(None, r["x_known"].split(";")))
        r["x"], r["x_prime"] = _number(r["x"]), _number(r["x_prime"])
    return _table(rows) if as_frame else rows


def run(
    config: Mapping | str | Path | ExperimentConfig,
    out: str | Path | None = None,
    *,
    jobs: int = 1,
    backend: str = "loky",
    progress: bool = False,
    as_frame: bool = True,
    force: bool = False,
    limits=None,
):
    """Run a config (a dict shaped like the TOML file, a path to one, or a parsed config).

    Parameters
    ----------
    config : dict, str, Path or ExperimentConfig
        E.g. ``{"run": {...}, "model": {...}, "mechanism": {...}}``, or a bundled config's name
        (``"quickstart"``, see ``bdpsim configs``).
    out : str or Path, optional
        Output directory (resumable, as ``bdpsim run --out``); a temporary one when omitted.
    jobs, backend, progress
        As for ``bdpsim run``.

    as_frame : bool, optional
        Return a pandas ``DataFrame`` when pandas is installed (default), else a list of dicts.
    force : bool, optional
        Allow an ``out`` that holds files of another tool (as ``bdpsim run --force``).
    limits : bdpsim.pipeline.cost.Limits, optional
        Caps on the estimated memory and work (as ``--max-memory-gib`` / ``--max-work``).

    Returns
    -------
    DataFrame or list of dict
        One row per configuration point (the ``summary.csv`` columns): the empirical BDPL
        ``bdpl_p99``, the 99th percentile over the adversaries of each one's estimate of
        ``sup_s ln p(s | x_K, x) / p(s | x_K, x')`` (thesis §3.1.2), with its interval, the exact
        value where known and the bounds (paper Thm 4.3, 5.5/5.8, 6.2).
    """
    from .pipeline.driver import run_experiment

    if isinstance(config, ExperimentConfig):
        cfg = config
    elif isinstance(config, Mapping):
        cfg = parse_config(dict(config), "<dict>")
    elif isinstance(config, (str, Path)):
        from .core.bundled import resolve_config

        cfg = load_config(resolve_config(config))  # a file, or a bundled config's name ("quickstart")
    else:
        raise TypeError(f"config = {config!r}: must be a dict, a TOML path or an ExperimentConfig")
    if out is None:
        with tempfile.TemporaryDirectory(prefix="bdpsim-") as tmp:
            rows = run_experiment(
                cfg, tmp, jobs=jobs, backend=backend, progress=progress, log=lambda m: None, limits=limits
            )
    else:
        rows = run_experiment(
            cfg, out, jobs=jobs, backend=backend, progress=progress, force=force, limits=limits
        )
    return _table(rows) if as_frame else rows


def worst_case_markov(
    gamma: float,
    n: int,
    epsilon: float,
    *,
    states: int = 2,
    starts: int = 8,
    seed: int = 1,
    maxiter: int = 150,
) -> MarkovWorstCase:
    """Search stationary chains with ``max P / min P <= gamma`` for the largest exact BDPL of the
    eps-DP Laplace count (every adversary, ``K = {}`` included), as ``bdpsim worst-case markov``.

    Maximises ``BDPL(P) = sup_{K,i} sup_{x,x',x_K,s} ln p(s | x_K, x) / p(s | x_K, x')`` over the
    transition matrices ``P`` of the class bounded by the Markov bound ``eps + 4 ln gamma``
    (paper Thm 6.2), by Nelder-Mead from the symmetric chain of thesis Fig. 14 and random starts.

    Parameters
    ----------
    gamma : float
        Largest ratio ``max P / min P`` (>= 1).
    n : int
        Records (2..9; every evaluation is an exhaustive search).
    epsilon : float
        DP parameter of the count.
    states : int, optional
        2 or 3; the last state is counted.
    starts, maxiter : int, optional
        Optimiser starts and iterations per start.
    seed : int, optional
        Seed of the random starts.

    Returns
    -------
    MarkovWorstCase
        ``bdpl`` and ``transition`` of the worst chain found, the symmetric chain's value
        ``symmetric_bdpl`` and the ``markov_bound``.
    """
    import numpy as np

    from .studies.worstcase import worst_markov_chain

    return worst_markov_chain(
        gamma, n, epsilon, np.random.default_rng(seed), states=states, starts=starts, maxiter=maxiter
    )


def worst_case_gaussian(n: int, rho: float, *, starts: int = 40, seed: int = 1) -> GaussianWorstCase:
    """Search the limited-covariance class ``Sigma_rho`` (paper Def. 5.4) and the adversaries
    ``(i, K)`` for the largest slope ``|a|`` of the unclipped Laplace sum, as
    ``bdpsim worst-case gaussian``.

    With ``Lap(beta)`` noise the target-dependent BDPL is exactly
    ``BDPL_(K,i)(x, x') = |a| |x - x'| / beta``, ``a = 1 + 1^T S_UT S_TT^{-1} e_i`` (``T = K ∪ {i}``,
    ``U`` the unknown records), maximised by L-BFGS-B from sign vertices, the equicorrelated
    matrix and random interior starts.

    Parameters
    ----------
    n : int
        Records (2..12).
    rho : float
        Largest absolute correlation, in [0, 1).
    starts : int, optional
        Optimiser starts per known-set size.
    seed : int, optional
        Seed of the random starts.

    Returns
    -------
    GaussianWorstCase
        ``slope``, the worst ``correlation`` matrix and ``known_size``, with the equicorrelated
        slope ``1 + (n - 1) rho`` and the Gaussian bound's factor for reference; its
        ``bdpl(distance, beta)`` gives ``|a| |x - x'| / beta``.
    """
    import numpy as np

    from .studies.worstcase import worst_gaussian_sum

    return worst_gaussian_sum(n, rho, np.random.default_rng(seed), starts=starts)
