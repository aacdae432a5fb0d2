"""estimator = "audit" end to end, the window adversary family, the bridge sampler's law, the
histogram mechanism kind and every bad input (issue 17 §2, §3)."""

import csv
import gzip
import itertools
import math
import uuid

import numpy as np
import pytest
from scipy import stats

from bdpsim.adversary import Adversary
from bdpsim.core.errors import ConfigError
from bdpsim.estimators import AuditEstimator, adversary_bdpl
from bdpsim.mechanisms.histogram import EXHAUSTIVE_MAX_N, HistogramMechanism, count_vector_law
from bdpsim.models import MarkovChainModel
from bdpsim.models.markov.kind import KIND as MARKOV_KIND
from bdpsim.models.markov.model import BRIDGE_MIN_N
from bdpsim.pipeline.config import parse_config
from bdpsim.pipeline.driver import run_chunk, run_experiment
from bdpsim.studies.audit_study import CASES, configuration_exact, coverage, exact_event_log_ratio

from ..conftest import write_toml
from ..helpers import markov_joint
from ..support.bad_config import cli, one_line_error
from ..support.bad_input import COUNT as COUNT_TOML
from ..support.bad_input import COUNT_DEFAULT, MARKOV, RUN_AUDIT, RUN_EXACT, one_line

CHAIN = {"kind": "markov", "n": 6, "gamma": 4.0}
COUNT = {"kind": "count", "epsilon": 1.0}
ACTIVITY = [[0.882, 0.118], [0.305, 0.695]]


def audit_doc(budget=200_000, adversaries=8, mechanism=COUNT, model=CHAIN, **run):
    return {
        "run": {
            "estimator": "audit",
            "adversaries": adversaries,
            "known_sizes": "all",
            "audit_budget": budget,
            "seed": 7,
            **run,
        },
        "model": dict(model),
        "mechanism": dict(mechanism),
    }


def read_adversaries(out):
    with gzip.open(out / "adversaries.csv.gz", "rt") as f:
        return list(csv.DictReader(f))


# ----------------------------------------------------------------------------- end to end


def test_end_to_end_columns_and_certified_semantics(tmp_path):
    cfg = parse_config(audit_doc())
    row = run_experiment(cfg, tmp_path / "o", progress=False)[0]
    for col in (
        "bdpl_lower",
        "bdpl_audit",
        "bdpl_audit_se",
        "audit_alpha",
        "audit_budget",
        "audit_calls",
        "audit_adversary",
        "audit_event",
        "audit_exact",
        "audit_note",
    ):
        assert col in row
    header = (tmp_path / "o" / "summary.csv").read_text().splitlines()[0].split(",")
    assert "bdpl_lower" in header and "audit_calls" in header
    exact_all = configuration_exact(COUNT)
    assert 0 < row["bdpl_lower"] <= row["audit_exact"] <= exact_all + 1e-12
    assert row["audit_calls"] <= row["audit_budget"] == 200_000 and row["audit_alpha"] == 0.05
    assert row["audit_note"] == "" and row["audit_event"].startswith("S = {")
    # the point estimate estimates the certified event's log-ratio: within 4 of its own se
    point = cfg.points[0]
    c = point.estimator().configuration_audit(point.finish_context(), run_chunk(point, list(range(8))).stats)
    target = exact_event_log_ratio(c.model, point.mechanism, c.adversary, c.event)
    assert c.lower == row["bdpl_lower"] and abs(c.estimate - target) <= 4 * c.se
    advs = read_adversaries(tmp_path / "o")
    assert len(advs) == 8 and {"bdpl_lower", "audit_calls", "audit_score"} <= set(advs[0])
    for a in advs:  # each adversary's own certificate, at its own level
        assert float(a["bdpl_lower"]) <= float(a["exact"]) + 1e-12
        assert int(a["audit_calls"]) <= 0.2 * 200_000 / 8


def test_same_numbers_for_any_jobs(tmp_path):
    cfg = parse_config(audit_doc(budget=60_000, adversaries=6))
    one = run_experiment(cfg, tmp_path / "a", progress=False)[0]
    two = run_experiment(cfg, tmp_path / "b", jobs=2, progress=False)[0]
    keep = lambda r: {k: v for k, v in r.items() if k != "seconds"}  # noqa: E731
    assert keep(one) == keep(two)
    assert read_adversaries(tmp_path / "a") == read_adversaries(tmp_path / "b")


def test_budget_too_small_is_zero_with_a_note(tmp_path):
    row = run_experiment(parse_config(audit_doc(budget=300)), tmp_path / "o", progress=False)[0]
    assert row["bdpl_lower"] == 0.0 and "too small" in row["audit_note"] and row["audit_adversary"] == -1
    assert row["failed_adversaries"] == 8  # no per-adversary estimate either


def test_coverage_quick():
    """The coverage check of scripts/findings/audit_coverage.py with 30 repeats per case: exceedances of
    the certified bound over the certified adversary's exact BDPL at most the 99.9 % quantile of
    Bin(30, alpha); point estimates within 2 se of the event's exact log-ratio for >= 80 % (90 %
    over 200 repeats in results/benchmarks/audit_coverage.md)."""
    for case in CASES:
        s, _ = coverage(case, repeats=30, budget=20_000, adversaries=4, seed=500)
        assert s["over_adversary"] <= s["allowed_over"] and s["over_configuration"] <= s["allowed_over"]
        assert s["per_adversary_over"] <= stats.binom.ppf(0.999, s["per_adversary_total"], 0.05)
        assert s["within_2se_rate"] >= 0.8, s


# ----------------------------------------------------------------------------- black box, bad input

MECH = """
import numpy as np

def ok(data, rng):
    return (data == 1).sum(axis=1) + rng.laplace(0.0, 1.0, size=data.shape[0])

def nan(data, rng):
    return np.full(data.shape[0], np.nan)

def rare_nan(data, rng):
    out = ok(data, rng)
    if data.shape[0] > 4:
        out[data.sum(axis=1) >= 1] = np.nan   # not on the 4-row probe; the audit's batches hit it
    return out
"""


def _python_config(tmp_path, func, **run):
    extra = "".join(f"{k} = {v}\n" for k, v in run.items())
    text = (
        f'[run]\nestimator = "audit"\nadversaries = 4\nknown_sizes = "all"\naudit_budget = 40000\n{extra}'
        f'[model]\nkind = "markov"\nn = 6\ngamma = 4.0\n[mechanism]\nkind = "python"\nfunction = "{func}"\n'
    )
    p = tmp_path / f"c{uuid.uuid4().hex[:6]}.toml"
    p.write_text(text)
    return p


def test_python_mechanism_black_box_and_nan(tmp_path, capsys):
    mod = f"auditmech_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{mod}.py").write_text(MECH)
    rc, out, err = cli(
        capsys, "run", _python_config(tmp_path, f"{mod}:ok"), "--out", tmp_path / "ok", "--quiet"
    )
    assert rc == 0, err
    row = list(csv.DictReader(open(tmp_path / "ok" / "summary.csv")))[0]
    assert float(row["bdpl_lower"]) > 0 and row["audit_exact"] == ""  # no engine for a black box
    rc, _, err = cli(capsys, "run", _python_config(tmp_path, f"{mod}:nan"), "--out", tmp_path / "bad")
    one_line_error(rc, err, "finite")
    assert not (tmp_path / "bad").exists()
    rc, _, err = cli(
        capsys, "run", _python_config(tmp_path, f"{mod}:rare_nan"), "--out", tmp_path / "mid", "--quiet"
    )
    one_line_error(rc, err, "mechanism.function", "finite")
    assert not (tmp_path / "mid" / "summary.csv").exists()


def test_nan_from_a_builtin_path_is_one_line():
    from bdpsim.estimators.audit import output_sampler

    class Nan:
        def __call__(self, data, rng):
            return np.full(data.shape[0], np.nan)

    draw = output_sampler(MarkovChainModel([[0.5, 0.5], [0.5, 0.5]], 4), Nan(), {0: 1}, 100)
    with pytest.raises(ConfigError, match=r"^mechanism output = nan: must be finite numbers"):
        draw(10, np.random.default_rng(0))


@pytest.mark.parametrize(
    "key, value, rule",
    [
        ("audit_alpha", 0.0, "must be in (0, 1)"),
        ("audit_alpha", 1.0, "must be in (0, 1)"),
        ("audit_alpha", -0.1, "must be in (0, 1)"),
        ("audit_alpha", 1.5, "must be in (0, 1)"),
        ("audit_budget", -5, "must be an integer >= 0"),
        ("audit_budget", 1.5, "must be an integer"),
        ("audit_search", 0.0, "must be in (0, 1)"),
        ("audit_search", 1.0, "must be in (0, 1)"),
        ("audit_top", 0, "must be an integer >= 1"),
        ("audit_candidates", 0, "must be an integer >= 1"),
        ("adversary_family", "nearby", "must be one of"),
    ],
)
def test_bad_keys_are_one_line(key, value, rule):
    with pytest.raises(ConfigError, match=rf"^run\.{key} = .*{rule.replace('(', '.').replace(')', '.')}"):
        parse_config(audit_doc(**{key: value}))


def test_bad_input_through_the_cli_writes_nothing(tmp_path, capsys):
    p = tmp_path / "c.toml"
    p.write_text(
        '[run]\nestimator = "audit"\naudit_alpha = 1.5\n[model]\nkind = "markov"\nn = 6\ngamma = 2.0\n'
        '[mechanism]\nkind = "count"\nepsilon = 1.0\n'
    )
    rc, _, err = cli(capsys, "run", p, "--out", tmp_path / "o")
    one_line_error(rc, err, "run.audit_alpha = 1.5: must be in (0, 1)")
    assert not (tmp_path / "o").exists()


def test_windows_need_a_kind_that_offers_them():
    doc = audit_doc(
        adversary_family="windows",
        model={"kind": "gaussian", "n": 3, "rho": 0.2},
        mechanism={"kind": "clipped_sum", "epsilon": 1.0},
    )
    with pytest.raises(
        ConfigError, match=r"^run\.adversary_family = 'windows': model kind 'gaussian' has no window"
    ):
        parse_config(doc)
    with pytest.raises(ConfigError, match=r"^run\.adversary_family = "):
        parse_config(
            {
                "run": {"estimator": "exact", "adversaries": "all", "adversary_family": "windows"},
                "model": CHAIN,
                "mechanism": COUNT,
            }
        )


def test_new_keys_keep_point_ids():
    base = {
        "run": {"estimator": "kde", "adversaries": 3, "samples": 1000},
        "model": CHAIN,
        "mechanism": COUNT,
    }
    a = parse_config(base).points[0]
    b = parse_config({**base, "run": {**base["run"], "adversary_family": "random"}}).points[0]
    assert a.id != b.id and a.population_key == b.population_key  # set keys are hashed; same adversaries
    w = parse_config({**base, "run": {**base["run"], "adversary_family": "windows"}}).points[0]
    assert w.population_key != a.population_key  # another adversary population
    assert "audit_alpha" not in str(a.params) and "adversary_family" not in str(a.params)


# ----------------------------------------------------------------------------- windows


def test_window_adversaries_know_everything_outside_a_window():
    model = MarkovChainModel(ACTIVITY, 60)
    h = MARKOV_KIND.window_half_length(model)
    assert 8 <= h <= 20  # |lambda_2| = 0.577: D_d + E_d <= 0.01 needs d ~ 12
    rng = np.random.default_rng(3)
    lefts, rights = [], []
    for _ in range(300):
        adv = MARKOV_KIND.window_adversary(model, range(60), rng)
        window = sorted(set(range(60)) - set(adv.known))  # the unknown records and the target
        assert window == list(range(window[0], window[-1] + 1)) and adv.i in window  # one window around i
        lefts.append(adv.i - window[0])
        rights.append(window[-1] - adv.i)
        assert adv.x != adv.x_prime
    assert max(lefts) <= h and max(rights) <= h and min(lefts) == 0 and max(lefts) == h
    # a window sits at the worst adversary's geometry often enough to be found
    assert sum(5 <= a <= 9 and 5 <= b <= 9 for a, b in zip(lefts, rights)) >= 300 * 0.5 * (5 / (h + 1)) ** 2


def test_windows_find_the_worst_adversary():
    """Activity chain, n = 40 (exact BDPL 3.4749 as at n = 288): the most leaking of 60 window
    adversaries is within 0.01 of the exact BDPL over every adversary."""
    doc = {
        "run": {
            "estimator": "exact",
            "adversaries": 60,
            "known_sizes": "thesis",
            "adversary_family": "windows",
        },
        "model": {"kind": "markov", "n": 40, "transition": ACTIVITY},
        "mechanism": COUNT,
    }
    pt = parse_config(doc).points[0]
    best = max(adversary_bdpl(m, pt.mechanism, a).value for m, a in (pt.adversary(j) for j in range(60)))
    exact = pt.exact_engine.window(1, 1)[0].bdpl
    assert exact == pytest.approx(3.4749, abs=1e-4) and exact - 0.01 < best <= exact + 1e-12


# ----------------------------------------------------------------------------- bridge sampler


def _chi2_two_samples(a, b, s):
    """Chi-square test of equal laws for two samples of tuples of states (rows)."""
    code = lambda x: (x * s ** np.arange(x.shape[1])).sum(axis=1)  # noqa: E731
    ca, cb = np.bincount(code(a), minlength=s ** a.shape[1]), np.bincount(code(b), minlength=s ** a.shape[1])
    keep = (ca + cb) > 0
    return stats.chi2_contingency(np.vstack([ca[keep], cb[keep]]))[1]


def test_bridge_sampler_has_the_law_of_ffbs():
    P = [[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.25, 0.25, 0.5]]
    model = MarkovChainModel(P, BRIDGE_MIN_N + 6)
    n = model.n
    known = {2: 1, 5: 0, 6: 2, 30: 1, n - 4: 0}
    look = [0, 1, 3, 4, 7, 29, 31, n - 3, n - 1]  # prefix, bridges, a bridge end, the suffix
    N = 40_000
    b = model.sample_conditional(known, N, np.random.default_rng(1), method="bridge")
    f = model.sample_conditional(known, N, np.random.default_rng(2), method="ffbs")
    assert b.dtype == f.dtype == np.int16 and b.shape == f.shape == (N, n)
    assert all((b[:, k] == v).all() for k, v in known.items())
    for cols in ([0, 1], [3, 4], [7, 29], [29, 31], [n - 3, n - 1], [1, 3]):  # pairs: the joint law
        assert _chi2_two_samples(b[:, cols], f[:, cols], 3) > 1e-3, cols
    # and the exact posterior marginals: every cell within 5 standard errors
    exact = model.marginals(known)
    for t in look:
        freq = np.bincount(b[:, t], minlength=3) / N
        se = np.sqrt(exact[t] * (1 - exact[t]) / N) + 1e-12
        assert np.all(np.abs(freq - exact[t]) <= 5 * se + 1e-12), t


def test_bridge_is_auto_only_for_long_chains():
    """Chains shorter than BRIDGE_MIN_N keep the backward pass and its random stream (every
    committed result); longer ones with a known record take the bridge."""
    short = MarkovChainModel([[0.7, 0.3], [0.4, 0.6]], 10)
    known = {3: 1}
    a = short.sample_conditional(known, 50, np.random.default_rng(5))
    np.testing.assert_array_equal(
        a, short.sample_conditional(known, 50, np.random.default_rng(5), method="ffbs")
    )
    long = MarkovChainModel([[0.7, 0.3], [0.4, 0.6]], BRIDGE_MIN_N)
    a = long.sample_conditional(known, 50, np.random.default_rng(5))
    np.testing.assert_array_equal(
        a, long.sample_conditional(known, 50, np.random.default_rng(5), method="bridge")
    )
    np.testing.assert_array_equal(
        long.sample(7, np.random.default_rng(5)),
        long.sample_conditional({}, 7, np.random.default_rng(5), method="ffbs"),
    )
    with pytest.raises(ConfigError, match="sampling method"):
        long.sample_conditional(known, 5, np.random.default_rng(5), method="gibbs")


# ----------------------------------------------------------------------------- histogram


def _brute_histogram_law(model, known):
    tuples, prob = markov_joint(model)
    ok = np.ones(len(tuples), dtype=bool)
    for k, v in known.items():
        ok &= tuples[:, k] == v
    counts = np.stack([(tuples[ok] == k).sum(axis=1) for k in range(model.states)], axis=1)
    law = {}
    for c, p in zip(map(tuple, counts), prob[ok]):
        law[c] = law.get(c, 0.0) + p
    z = sum(law.values())
    return {c: p / z for c, p in law.items()}


@pytest.mark.parametrize("P", [[[0.8, 0.2], [0.3, 0.7]], [[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.2, 0.7]]])
def test_histogram_count_vector_law_is_brute_force(P):
    model = MarkovChainModel(P, 5)
    for known in ({}, {2: 1}, {0: 0, 4: 1, 2: 0}):
        atoms, w = count_vector_law(model, known)
        ref = _brute_histogram_law(model, known)
        got = {tuple(int(v) for v in a): p for a, p in zip(atoms, w)}
        assert set(got) == set(ref) and max(abs(got[c] - ref[c]) for c in ref) < 1e-14


def test_histogram_kind_exact_and_audit(tmp_path):
    mech = {"kind": "histogram", "epsilon": 1.0}
    model = {"kind": "markov", "n": 5, "gamma": 3.0}
    point = parse_config(
        {
            "run": {"estimator": "exact", "adversaries": "all", "known_sizes": "all"},
            "model": model,
            "mechanism": mech,
        }
    ).points[0]
    h = point.mechanism
    assert isinstance(h, HistogramMechanism) and h.noise_scale == 2.0 and h.output_dim == 2
    y = h(np.array([[0, 1, 1, 1, 0], [1, 1, 1, 1, 1]]), np.random.default_rng(0))
    assert y.shape == (2, 2)
    # 'all' by the window search = the max over every adversary (i, K, x_K, x, x') by enumeration
    all_row = run_experiment(
        parse_config(
            {
                "run": {"estimator": "exact", "adversaries": "all", "known_sizes": "all"},
                "model": model,
                "mechanism": mech,
            }
        ),
        tmp_path / "all",
        progress=False,
    )[0]
    chain = point.model.fixed
    worst = 0.0
    for i in range(5):
        others = [j for j in range(5) if j != i]
        for k in range(5):
            for K in itertools.combinations(others, k):
                for xk in itertools.product(range(2), repeat=k):
                    worst = max(worst, adversary_bdpl(chain, h, Adversary(i, K, xk, 0, 1)).value)
    assert all_row["bdpl_exact"] == pytest.approx(worst, abs=1e-12)
    thesis = run_experiment(
        parse_config(
            {
                "run": {"estimator": "exact", "adversaries": "all", "known_sizes": "thesis"},
                "model": model,
                "mechanism": mech,
            }
        ),
        tmp_path / "th",
        progress=False,
    )[0]
    assert thesis["bdpl_exact"] <= worst + 1e-12
    # the audit: a vector output scored by a fitted likelihood ratio, certified below the exact value
    row = run_experiment(
        parse_config(audit_doc(budget=300_000, adversaries=6, mechanism=mech, model=model)),
        tmp_path / "a",
        progress=False,
    )[0]
    assert 0 < row["bdpl_lower"] <= row["audit_exact"] <= worst + 1e-12
    assert "score(y)" in row["audit_event"]


def test_histogram_is_refused_where_it_cannot_be_estimated():
    mech = {"kind": "histogram", "epsilon": 1.0}
    with pytest.raises(
        ConfigError,
        match=r"^run\.estimator = 'kde': the KDE estimator is one-dimensional; "
        r"mechanism 'histogram' releases vectors of 2 values",
    ):
        parse_config({"run": {"estimator": "kde"}, "model": CHAIN, "mechanism": mech})
    with pytest.raises(ConfigError, match=r"^run\.estimator = 'mixture'"):
        parse_config({"run": {"estimator": "mixture"}, "model": CHAIN, "mechanism": mech})
    big = {"kind": "markov", "n": EXHAUSTIVE_MAX_N[2] + 1, "gamma": 2.0}
    with pytest.raises(ConfigError, match=r"^run\.adversaries = 'all'"):
        parse_config({"run": {"estimator": "exact", "adversaries": "all"}, "model": big, "mechanism": mech})
    assert math.isfinite(AuditEstimator().alpha)


# ----------------------------------------------------------------------------- figure


def test_audit_figure_rows_and_plot(tmp_path):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.transforms import Bbox

    from bdpsim.figures import LEGEND_PT, subplots
    from bdpsim.figures.audit import plot_audit
    from bdpsim.studies.audit_study import budget_rows

    rows = budget_rows(budgets=(1e4, 5e4), adversaries=4, n=40, kde_samples=(1_000,))
    assert [r["estimator"] for r in rows] == ["audit", "audit", "kde"]
    assert all(r["bdpl_exact"] == pytest.approx(3.4749, abs=1e-4) for r in rows)
    assert all(r["lower"] <= r["bdpl_exact"] for r in rows if r["estimator"] == "audit")
    fig, ax = subplots(figsize=(8.4, 4.8))
    plot_audit(rows, ax)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    leg = ax.get_legend()
    box, area = leg.get_window_extent(canvas.get_renderer()), ax.get_window_extent(canvas.get_renderer())
    assert Bbox.intersection(box, area) is None and all(
        t.get_fontsize() >= LEGEND_PT for t in leg.get_texts()
    )
    assert "n = 40" in ax.get_title() and "4 window adversaries" in ax.get_title()


@pytest.mark.parametrize("value", ["1e6", "100000.0", "1e300"])
def test_audit_budget_must_be_an_integer(bdpsim_cli, tmp_path, value):
    cfg = RUN_AUDIT + f"audit_budget = {value}\n" + MARKOV + COUNT_TOML
    one_line(
        bdpsim_cli("validate", write_toml(tmp_path / "c.toml", cfg)), "run.audit_budget", "must be an integer"
    )


def test_a_too_costly_audit_names_its_budget(bdpsim_cli, tmp_path):
    cfg = RUN_AUDIT + "audit_budget = 1_000_000_000_000_000\n" + MARKOV + COUNT_TOML
    one_line(
        bdpsim_cli("validate", write_toml(tmp_path / "c.toml", cfg)), "run.audit_budget = 1000000000000000"
    )


@pytest.mark.parametrize(
    "value, words",
    [
        ("true", ["= True", "must be an integer", "not a boolean"]),
        ('"1000000"', ["must be an integer", "not a string"]),
        ("[true]", ["not a boolean"]),
        ("1e6", ["not a float", "1_000_000"]),
    ],
)
def test_audit_budget_names_what_it_got(bdpsim_cli, tmp_path, value, words):
    cfg = write_toml(
        tmp_path / "c.toml",
        RUN_EXACT.replace('"exact"', '"audit"') + f"audit_budget = {value}\n" + MARKOV + COUNT_DEFAULT,
    )
    p = bdpsim_cli("validate", cfg)
    one_line(p, "run.audit_budget", *words)
    if value != "1e6":
        assert "float" not in p.stderr
