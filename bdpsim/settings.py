"""Run settings: the ``[run]`` table of a config as a frozen, validated value.

Every check on a run setting lives in :meth:`RunSettings.__post_init__`; the config loader only
turns TOML into keyword arguments.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from .errors import check
from .schema import Key

TARGET_MODES = ("uniform", "endpoints")

RUN_KEYS: dict[str, Key] = {
    "seed": Key("int", 1, sweep=False),
    "adversaries": Key("any", 1000),
    "samples": Key("int", 100_000),
    "estimator": Key("str", "kde"),
    "known_sizes": Key("any", "thesis", sweep=False),
    "percentile": Key("float", 99.0, sweep=False),
    "eval_points": Key("int", 1000),
    "window": Key("vector", [0.5, 99.5]),
    "kde_backend": Key("str", "fastkde"),
    "noise_floor_adversaries": Key("int", 100),
    "targets": Key("str", "uniform"),
    "bootstrap": Key("int", 1000),
    "confidence": Key("float", 0.95),
    "sampling": Key("str", "auto"),
    "chunk": Key("int", 65_536),
    "exact_reference": Key("bool", True),
    "adversary_rows": Key("any", "all", sweep=False),
    "exhaustive_method": Key("str", "auto", hashed=False),
    "kde_ratio": Key("str", "signed", hashed=False),
    "kde_positive_shift": Key("bool", False, hashed=False),
    "kde_points": Key("str", "uniform", hashed=False),
    "mixture_target_se": Key("float", 0.01, hashed=False),
    "mixture_max_samples": Key("int", 1_600_000, hashed=False),
}

EXHAUSTIVE_METHODS = ("auto", "window", "enumerate")


def _count(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 1


@dataclass(frozen=True)
class RunSettings:
    """How one configuration point is run (the ``[run]`` table; see the README for each key).

    ``adversaries`` is a count or ``"all"`` (exhaustive, exact estimator); ``known_sizes`` is
    ``"thesis"`` (1..n-1), ``"all"`` (0..n-1) or a list of sizes; ``percentile`` names the summary
    columns (``bdpl_p99`` for 99); ``targets`` is how Gaussian adversaries draw ``x, x'``.
    ``confidence`` is the level of the percentile's order-statistic interval; ``bootstrap`` is
    accepted for old configs and unused (the interval is distribution-free, not resampled).
    ``kde_ratio`` (``"signed"``: thesis §3.1.2 step 6; ``"symmetric"``: ``|ln ratio|``) and
    ``kde_positive_shift`` (fastKDE's density shift; off in the thesis' reading) configure the
    ``kde`` estimator; ``mixture_target_se`` (0: off) and ``mixture_max_samples`` its adaptive
    sample size for the ``mixture`` estimator.
    """

    seed: int = 1
    adversaries: int | str = 1000
    samples: int = 100_000
    estimator: str = "kde"
    known_sizes: str | tuple[int, ...] = "thesis"
    percentile: float = 99.0
    eval_points: int = 1000
    window: tuple[float, float] = (0.5, 99.5)
    kde_backend: str = "fastkde"
    noise_floor_adversaries: int = 100
    targets: str = "uniform"
    bootstrap: int = 1000
    confidence: float = 0.95
    sampling: str = "auto"
    chunk: int = 65_536
    exact_reference: bool = True
    adversary_rows: int | str = "all"
    exhaustive_method: str = "auto"
    kde_ratio: str = "signed"
    kde_positive_shift: bool = False
    kde_points: str = "uniform"
    mixture_target_se: float = 0.01
    mixture_max_samples: int = 1_600_000

    def __post_init__(self) -> None:
        from .estimators import ESTIMATORS, KDE_BACKENDS
        from .estimators.kde import KDE_POINTS, KDE_RATIOS
        from .sampling import SAMPLING_MODES

        check(isinstance(self.seed, int) and not isinstance(self.seed, bool) and 0 <= self.seed < 2**63,
              "run.seed", self.seed, "must be an integer in 0..2^63-1")
        adv = self.adversaries
        check(adv == "all" or _count(adv), "run.adversaries", adv, "must be an integer >= 1 or 'all'")
        check(_count(self.samples) and self.samples >= 100, "run.samples", self.samples,
              "must be an integer >= 100")
        check(self.estimator in ESTIMATORS, "run.estimator", self.estimator, f"must be one of {list(ESTIMATORS)}")
        ks = self.known_sizes
        if isinstance(ks, list):
            check(len(ks) >= 1 and all(isinstance(k, int) and not isinstance(k, bool) for k in ks),
                  "run.known_sizes", ks, "must be 'thesis', 'all' or a non-empty list of integers")
            object.__setattr__(self, "known_sizes", tuple(sorted(set(ks))))
        else:
            check(ks in ("thesis", "all") or isinstance(ks, tuple), "run.known_sizes", ks,
                  "must be 'thesis', 'all' or a non-empty list of integers")
        check(0 < self.percentile <= 100, "run.percentile", self.percentile, "must be in (0, 100]")
        check(_count(self.eval_points), "run.eval_points", self.eval_points, "must be >= 1")
        w = tuple(self.window)
        check(len(w) == 2 and 0 <= w[0] < w[1] <= 100, "run.window", list(w),
              "must be [low, high] percentiles with 0 <= low < high <= 100")
        object.__setattr__(self, "window", (float(w[0]), float(w[1])))
        check(self.kde_backend in KDE_BACKENDS, "run.kde_backend", self.kde_backend,
              f"must be one of {sorted(KDE_BACKENDS)}")
        check(self.noise_floor_adversaries >= 0, "run.noise_floor_adversaries",
              self.noise_floor_adversaries, "must be >= 0")
        check(self.targets in TARGET_MODES, "run.targets", self.targets, "must be 'uniform' or 'endpoints'")
        check(self.bootstrap >= 0, "run.bootstrap", self.bootstrap, "must be >= 0")
        check(0 < self.confidence < 1, "run.confidence", self.confidence, "must be in (0, 1)")
        check(self.sampling in SAMPLING_MODES, "run.sampling", self.sampling,
              f"must be one of {list(SAMPLING_MODES)}")
        check(isinstance(self.chunk, int) and self.chunk >= 1000, "run.chunk", self.chunk, "must be >= 1000")
        check(self.exhaustive_method in EXHAUSTIVE_METHODS, "run.exhaustive_method", self.exhaustive_method,
              f"must be one of {list(EXHAUSTIVE_METHODS)}")
        check(self.kde_ratio in KDE_RATIOS, "run.kde_ratio", self.kde_ratio, f"must be one of {list(KDE_RATIOS)}")
        check(self.kde_points in KDE_POINTS, "run.kde_points", self.kde_points, f"must be one of {list(KDE_POINTS)}")
        check(isinstance(self.kde_positive_shift, bool), "run.kde_positive_shift", self.kde_positive_shift,
              "must be true or false")
        check(not (self.kde_positive_shift and self.kde_backend == "fastkde_points"), "run.kde_positive_shift",
              True, "fastkde.pdf_at_points has no positive shift (use kde_backend = 'fastkde')")
        tse = self.mixture_target_se
        check(isinstance(tse, (int, float)) and not isinstance(tse, bool) and 0 <= tse < math.inf,
              "run.mixture_target_se", tse, "must be a finite number >= 0 (0: no adaptive sample size)")
        check(_count(self.mixture_max_samples), "run.mixture_max_samples", self.mixture_max_samples,
              "must be an integer >= 1 (samples per condition never exceed max(samples, this))")
        ar = self.adversary_rows
        check(ar == "all" or _count(ar), "run.adversary_rows", ar,
              "must be 'all' or an integer >= 1 (rows kept per configuration, highest first)")

    @property
    def exhaustive(self) -> bool:
        return self.adversaries == "all"

    @property
    def percentile_label(self) -> str:
        """``p99`` for the 99th percentile, ``p97.5`` for 97.5: the summary columns' suffix."""
        return f"p{self.percentile:g}"

    def known_size_text(self) -> str:
        ks = self.known_sizes
        return ks if isinstance(ks, str) else ";".join(map(str, ks))

    def as_dict(self) -> dict:
        d = asdict(self)
        d["window"] = list(self.window)
        if isinstance(self.known_sizes, tuple):
            d["known_sizes"] = list(self.known_sizes)
        return d

