"""``bdpsim attack config FILE.toml``: the optimal attack over every adversary on the data model and
mechanism of a run config (Bayesian networks, random fields, pedigrees, Markov chains).

The config's ``[model]`` is read as ``bdpsim calibrate config`` reads it
(:func:`bdpsim.cli.calibrate_config.model_of_raw`), its ``[mechanism]`` as ``bdpsim run`` does
(one point: a sweep is refused); its ``[run]`` table is ignored. The work is
:func:`bdpsim.attack.attack_risk`; the table and JSON are ``bdpsim attack markov``'s
(``bdpsim.cli.attack_report.report``).
"""

from __future__ import annotations

from ..kernels.noise.traits import law_names, one_of

EPILOG = f"""\
examples:
  bdpsim attack config bayesnet_example --fpr 0.001 0.01    # a bundled config
  bdpsim attack config configs/mrf_karate.toml --json
  bdpsim attack config family.toml --min-known 1

The data model is the config's [model] table and the mechanism its [mechanism]
table, each with one value per key (a sweep is refused, naming the swept key:
attack one at a time; --epsilon picks one value of a swept mechanism.epsilon);
the [run] table is ignored. Models with an exact law: markov, pedigree,
bayesnet, mrf (counts and state sums plus
{one_of(law_names(calibratable=True))} noise), and randomized response on a
binary chain. The Laplace histogram of a chain (mechanism kind "histogram"):
certified brackets on short chains, Monte Carlo beyond them (the table says
so first; each number with its 95% interval). Output: the adversary of largest advantage, its advantage
max(TPR - FPR) and the largest TPR at each --fpr over every adversary beside
what the pure eps curve of the exact BDPL over every adversary allows, as for
bdpsim attack markov. Records and states are named in the model's words (a
network's node and state names, a pedigree's genotypes) beside their indices;
a network's records are counted in the lexicographic topological order of its
node names, from 0.
"""


def add_parser(cs) -> None:
    """Register ``attack config`` on the ``attack`` subparsers ``cs``."""
    from .attack_report import add_fpr_argument
    from .base import subcommand

    c = subcommand(
        cs,
        "config",
        command,
        help="the optimal attack on the [model] and [mechanism] of a config",
        description="The worst adversary's optimal attack on the data model and mechanism "
        "of a run config: advantage and TPR at low FPR, exact (the Laplace histogram: "
        "certified brackets, or Monte Carlo intervals on long chains).",
        epilog=EPILOG,
    )
    c.add_argument("config", help="a TOML run config or a bundled config's name (as for run)")
    add_fpr_argument(c)
    c.add_argument(
        "--epsilon",
        type=float,
        help="the mechanism's DP epsilon (replaces mechanism.epsilon, e.g. one value of a sweep)",
    )
    c.add_argument(
        "--min-known", type=int, default=0, help="least size of the adversary's known set (default 0)"
    )
    from .attack_report import add_report_arguments

    add_report_arguments(c)


def config_pair(config: str, epsilon: float | None = None):
    """``(model, mechanism)`` of the run config ``config`` (a TOML file or a bundled config's name):
    its ``[model]`` as :func:`~bdpsim.cli.calibrate_config.model_of_raw` reads it, its
    ``[mechanism]`` as ``bdpsim run`` validates it (``epsilon``, if given, replaces its ``epsilon``).

    Raises
    ------
    ConfigError
        Not a config, no ``[mechanism]`` table, an invalid model or mechanism, or a sweep.
    """
    from ..core.bundled import resolve_config
    from ..core.errors import ConfigError
    from ..pipeline.config import load_toml, parse_config
    from .calibrate_config import model_of_raw

    path = str(resolve_config(config))
    raw = load_toml(path)
    model_of_raw(raw, path)  # the [model]'s own errors, and one model
    mech = raw.get("mechanism")
    if "release" in raw:  # an accountant config: its releases are attacked together by bdpsim account
        where = "beside the [mechanism] attacked here" if isinstance(mech, dict) else "and no [mechanism]"
        raise ConfigError(
            "release",
            f"{len(raw['release']) if isinstance(raw['release'], list) else 1} table(s)",
            f"[[release]] tables {where}: an accountant config; bdpsim account CONFIG attacks its "
            "releases together (advantage, tpr_at in [account]); bdpsim attack config attacks the "
            "one [mechanism] of a run config",
        )
    if not isinstance(mech, dict):
        raise ConfigError("mechanism", mech, "needs a [mechanism] table (the mechanism attacked)")
    if epsilon is not None:
        mech = {**mech, "epsilon": epsilon}
    # the attack is exact: the pair is checked for the exact estimator, whatever [run] says (with a
    # privacy profile's eps, so that noise without pure DP is taken: its attack reads the profile)
    run = {"estimator": "exact", "epsilon_profile": 1.0}
    try:
        cfg = parse_config({"model": raw["model"], "mechanism": mech, "run": run}, path)
    except ConfigError as exc:
        if epsilon is not None and exc.field == "mechanism.epsilon":
            raise ConfigError("--epsilon", exc.value, exc.rule) from None
        if exc.field.startswith("run."):  # the estimators' advice is for bdpsim run, not here
            rule = exc.rule.split("; use estimator = ")[0]
            raise ConfigError("mechanism", mech.get("kind"), f"the attack is exact: {rule}") from None
        raise
    if len(cfg.points) != 1:
        field, values = _swept(cfg.points)
        hint = " or pick one with --epsilon" if field == "mechanism.epsilon" else ""
        raise ConfigError(
            field,
            values,
            f"sweeps {len(values)} values ({len(cfg.points)} configurations): attack one at a time "
            f"(give {field} one value in the config{hint})",
        )
    point = cfg.points[0]
    return point.model.fixed, point.mechanism


def _swept(points) -> tuple[str, list]:
    """The first ``[model]`` or ``[mechanism]`` key whose value differs between the configuration
    points of a sweep, with its values (in the points' order, each once)."""
    for table in ("model", "mechanism"):
        for key in dict.fromkeys(k for p in points for k in p.params[table]):
            values: list = []
            for p in points:
                v = p.params[table].get(key)
                if v not in values:
                    values.append(v)
            if len(values) > 1:
                return f"{table}.{key}", values
    return "mechanism", [len(points)]


def command(a) -> int:
    """Run ``bdpsim attack config``: a table, or one JSON object (``--json``)."""
    from ..attack import attack_risk
    from ..attack.tradeoff import check_fpr
    from ..core.errors import ConfigError
    from ..mechanisms.protocols import ReleasesEveryRecord
    from ..models.engines import SearchTooLarge
    from .attack_report import check_plot_path, plot, report, report_local, search_progress
    from .base import quietly

    check_fpr("--fpr", a.fpr)
    check_plot_path(a.plot)
    model, mech = quietly(config_pair, a.config, a.epsilon)  # its warnings after it succeeded
    if not 0 <= a.min_known <= model.n - 1:
        raise ConfigError("--min-known", a.min_known, f"must be an integer in 0..{model.n - 1}")
    sizes = tuple(range(a.min_known, model.n))
    if isinstance(mech, ReleasesEveryRecord):  # a local release: certified brackets
        if a.plot:
            raise ConfigError(
                "--plot",
                a.plot,
                "a local release's attack has no trade-off curve to draw (its TPR is bracketed at "
                "each --fpr); bdpsim account CONFIG --plot draws its privacy profile",
            )
        return report_local(a, model, mech, attack_risk(model, mech, sizes=sizes, fpr=a.fpr))
    try:
        with search_progress(a.quiet) as bar:
            risk = attack_risk(model, mech, sizes=sizes, fpr=a.fpr, bdpl=True, progress=bar)
            rows = list(zip(a.fpr, risk.worst_tprs(a.fpr)))
    except ConfigError as exc:
        if not exc.field.startswith("run."):
            raise
        raise ConfigError(
            "--min-known",
            a.min_known,
            "the exact search over every adversary with this many "
            "known records is refused for this model (too large); attack one adversary with "
            "bdpsim.attack_risk(model, mechanism, adversary)",
        ) from None
    except SearchTooLarge as exc:  # its advice names bdpsim run's keys: this command's instead
        reason = exc.reason.split(". Use sampled adversaries")[0]
        raise ConfigError(
            "model",
            f"{model.kind}, n = {model.n}",
            f"{reason}; bdpsim attack config searches every adversary: attack fewer records, a larger "
            "--min-known, or one adversary in Python (bdpsim.attack_risk(model, mechanism, adversary))",
        ) from None
    if a.plot:
        eps = f", eps = {mech.epsilon:.4g}" if getattr(mech, "epsilon", None) is not None else ""
        plot(a, risk, f"{model.kind} model, n = {model.n}, {mech.kind}{eps}")
    return report(a, model, mech, risk, rows)


__all__ = ["add_parser", "command", "config_pair", "EPILOG"]
