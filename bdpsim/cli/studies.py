"""``bdpsim configs``, ``utility``, ``figures`` and ``accuracy``: the commands that list bundled
configs or regenerate studies (parse nothing; call library functions and print what they wrote)."""

from __future__ import annotations

import sys
from pathlib import Path

from ..core.errors import ConfigError


def cmd_configs(a) -> int:
    from ..core import bundled
    from ..pipeline.config import load_toml

    if a.copy is not None:
        for p in bundled.copy_configs(a.copy):
            print(p)
        return 0
    for name in bundled.config_names():
        raw = load_toml(bundled.CONFIG_DIR / f"{name}.toml")
        title = raw.get("title") or raw.get("utility", {}).get("title") or ""
        print(f"{name:22} {title}".rstrip())
    print(f"(in {bundled.CONFIG_DIR}; run one by name: bdpsim run quickstart --out results/my-quickstart)")
    return 0


def cmd_utility(a) -> int:
    """Every config in turn; a config whose data set cannot be had (missing, unreachable, failing its
    checksum) is skipped with one line and the others still run (exit code 2 if any was skipped)."""
    from ..core.bundled import resolve_config
    from ..utility.datasets import DatasetError
    from ..utility.experiment import load_utility

    if a.out is not None and not a.out.strip():
        raise ConfigError("--out", a.out, "must be a directory path, not empty")
    _check_data_dir(a.data_dir)
    paths = [resolve_config(c) for c in a.config]  # every config is checked before any runs
    cfgs = [load_utility(p) for p in paths]
    outs = [
        (Path(a.out) / p.stem if len(paths) > 1 else Path(a.out)) if a.out else Path("results") / p.stem
        for p in paths
    ]
    for out in outs:
        _check_writable_dir(out, a.overwrite)
    skipped = 0
    for path, cfg, out in zip(paths, cfgs, outs):
        try:
            _utility_one(a, path, cfg, out)
        except DatasetError as exc:
            if len(paths) == 1:
                raise
            skipped += 1
            print(
                f"bdpsim: error: {exc} (skipped {path.stem}; the other configs go on)",
                file=sys.stderr,
                flush=True,
            )
    return 2 if skipped else 0


def _check_data_dir(data_dir: str | None) -> None:
    """``--data-dir`` must name a directory: a typo would otherwise silently use the bundled or
    downloaded copies instead of the user's files."""
    if data_dir is not None and not Path(data_dir).is_dir():
        raise ConfigError(
            "--data-dir", data_dir, "is not a directory (the directory holding the dataset files)"
        )


def _check_writable_dir(out: Path, overwrite: bool = False) -> None:
    """``--out`` must be (or become) a directory: not a file, nor below one; nor, without
    ``--overwrite``, one holding files committed to git
    (:func:`bdpsim.pipeline.results.check_not_committed`)."""
    from ..pipeline.results import check_not_committed

    if not overwrite:
        check_not_committed(out)
    if out.exists():
        if not out.is_dir():
            raise ConfigError("--out", str(out), "exists and is not a directory")
        return
    anc = out
    while not anc.exists() and anc != anc.parent:
        anc = anc.parent
    if not anc.is_dir():
        raise ConfigError("--out", str(out), f"{anc} is a file, not a directory")


def _utility_one(a, path: Path, cfg, out: Path) -> None:
    from ..utility.experiment import run_utility

    # written as it goes (a lock, metadata.json with the status, each variant saved: resumable)
    rows, vs = run_utility(cfg, a.data_dir, out=out, source=str(path))
    for p in (out / "utility.csv", out / "metadata.json"):
        print(p)
    for v in vs:
        fit = {k: v.model[k] for k in ("rho", "gamma", "omega", "four_ln_gamma") if k in v.model}
        print(
            f"{v.dataset} [{v.name}] n = {v.n}, m = {v.m}, fitted: "
            + ", ".join(f"{k} = {x:.4g}" for k, x in fit.items())
        )
    unreachable = sorted({r["note"] for r in rows if r["note"].startswith("not reachable")})
    for note in unreachable:
        print(f"note: {note}")


def _left(ids: list[str], shown: int = 2) -> str:
    """``a, b and 3 more``: the figures still to make, by name."""
    more = f" and {len(ids) - shown} more" if len(ids) > shown else ""
    return ", ".join(ids[:shown]) + more


def cmd_figures(a) -> int:
    from ..core.bundled import CONFIG_DIR
    from ..figures.gallery import estimate_figures, make_figures
    from ..pipeline.watchdog import available_cpus
    from .progress import EVERY, Progress

    if a.jobs is None:  # every core this process may use
        a.jobs = available_cpus()
    if a.jobs < 1:
        raise ConfigError("--jobs", a.jobs, "must be an integer >= 1")
    _check_data_dir(a.data_dir)
    _check_writable_dir(Path(a.out), a.overwrite)
    configs = Path(a.configs) if a.configs else CONFIG_DIR
    # up front: what will run and how long the cost model expects it to take
    for line in estimate_figures(a.only, Path(a.out), quick=a.quick, configs=configs).lines(a.jobs):
        print(line, flush=True)
    tty = sys.stderr.isatty()
    # without a terminal, a line every ~10 s says how many figures are done and which are left
    # (runs show their own bar on one)
    bar = Progress("bdpsim figures", "figures done", tty=False, quiet=a.quiet or tty)

    def log(line: str) -> None:
        print(line, flush=True)

    def done(finished: list[str], left: list[str]) -> None:
        bar.desc = f"bdpsim figures (left: {_left(left)})" if left else "bdpsim figures"
        bar(len(finished), len(finished) + len(left))

    skipped: list[str] = []
    try:
        paths = make_figures(
            a.only,
            Path(a.out),
            quick=a.quick,
            jobs=a.jobs,
            configs=configs,
            progress=tty and not a.quiet,
            data_dir=Path(a.data_dir) if a.data_dir else None,
            log=log,
            skipped=skipped,
            heartbeat=0.0 if a.quiet or tty else EVERY,
            done=done,
        )
    finally:
        bar.close()
    print(f"{len(paths)} files -> {a.out} (gallery: {Path(a.out) / 'README.md'})")
    if skipped:  # as 'bdpsim utility' with several configs: the others are drawn, exit code 2 at the end
        print(
            f"bdpsim: error: {len(skipped)} figure{'s' * (len(skipped) != 1)} skipped, their data cannot be "
            f"had ({', '.join(skipped)}): see the 'skipped' lines above; --data-dir DIR uses local files",
            file=sys.stderr,
        )
        return 2
    return 0


def cmd_accuracy(a) -> int:
    from ..studies.accuracy import GRID, accuracy_table
    from .progress import Progress

    if a.jobs < 1:
        raise ConfigError("--jobs", a.jobs, "must be an integer >= 1")
    out = Path(a.out)
    _check_writable_dir(out, a.overwrite)
    meta = {"samples": a.samples, "adversaries": a.adversaries, "seed": a.seed}
    finished: dict = {}
    try:  # the report is written as it goes (a lock, metadata.json, cases saved: resumable)
        with Progress("bdpsim accuracy", "cases", quiet=a.quiet) as bar:
            rows = accuracy_table(
                tuple(a.samples),
                a.adversaries,
                a.seed,
                a.jobs,
                out=out,
                progress=bar,
                finished=finished,
                meta=meta,
            )
    except KeyboardInterrupt:  # as 'bdpsim run': what finished is kept (status interrupted), resumable
        print(
            f"bdpsim: interrupted; {len(finished)} of {len(GRID)} cases are saved in {out}; "
            "re-run the same command to resume",
            file=sys.stderr,
        )
        return 130
    from ..figures.accuracy import save_accuracy

    paths = [p for p in (out / "accuracy.csv", out / "accuracy.json") if p.is_file()]  # written as it went
    paths += save_accuracy(rows, Path(a.out))
    # the adaptive mixture run (target_se > 0) is labelled by its target: no two rows look alike
    label = [r["estimator"] + (f" se<={r['target_se']:g}" if r.get("target_se") else "") for r in rows]
    wc, we = max([4, *(len(r["case"]) for r in rows)]), max([9, *map(len, label)])
    print(f"{'case':{wc}} {'estimator':{we}} {'samples':>8} {'bias':>8} {'rmse':>8} {'max|err|':>8}")
    for r, est in zip(rows, label, strict=True):
        print(
            f"{r['case']:{wc}} {est:{we}} {r['samples']:>8} {r['bias']:8.4f} {r['rmse']:8.4f} "
            f"{r['max_abs_error']:8.4f}"
        )
    for p in paths:
        print(p)
    return 0
