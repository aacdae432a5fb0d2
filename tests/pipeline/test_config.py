"""Config validation: every bad input is one ConfigError naming field, value and rule; the CLI
prints one line, exits 2, writes nothing."""

import pickle
import re
from pathlib import Path

import pytest

from bdpsim.core.errors import ConfigError
from bdpsim.estimators import ESTIMATORS
from bdpsim.estimators.base import READ_BY_SOME
from bdpsim.pipeline.config import load_config, parse_config
from bdpsim.pipeline.settings import GENERIC_KEYS

from ..conftest import ROOT
from ..support.bad_config import BAD_CONFIGS, cli, one_line_error, toml

BASE_MARKOV = {
    "run": {"adversaries": 5, "samples": 1000},
    "model": {"kind": "markov", "n": 4, "gamma": 2.0},
    "mechanism": {"kind": "count", "epsilon": 1.0},
}
BASE_GAUSS = {
    "run": {"adversaries": 5, "samples": 1000},
    "model": {"kind": "gaussian", "n": 3, "rho": 0.2},
    "mechanism": {"kind": "clipped_sum", "epsilon": 1.0, "clip": [0.0, 10.0]},
}


def with_(base, **changes):
    doc = {k: dict(v) for k, v in base.items()}
    for dotted, value in changes.items():
        sec, key = dotted.split("__")
        if value is None:
            doc[sec].pop(key, None)
        else:
            doc[sec][key] = value
    return doc


# (label, document, field named in the error)
BAD = [
    (
        "non-PSD covariance",
        with_(
            BASE_GAUSS, model__rho=None, model__mean=[0, 0, 0], model__cov=[[1, 2, 0], [2, 1, 0], [0, 0, 1]]
        ),
        "model.cov",
    ),
    (
        "rows not summing to 1",
        with_(BASE_MARKOV, model__gamma=None, model__transition=[[0.9, 0.2], [0.3, 0.7]]),
        "transition",
    ),
    ("negative eps", with_(BASE_MARKOV, mechanism__epsilon=-1.0), "mechanism.epsilon"),
    ("rho out of range", with_(BASE_GAUSS, model__rho=1.5), "model.rho"),
    ("unknown key", with_(BASE_MARKOV, run__sample=10), "run.sample"),
    ("n < 2", with_(BASE_MARKOV, model__n=1), "model.n"),
    ("clip low >= high", with_(BASE_GAUSS, mechanism__clip=[10.0, 0.0]), "mechanism.clip"),
    ("unknown estimator", with_(BASE_MARKOV, run__estimator="magic"), "run.estimator"),
    ("percentile > 100", with_(BASE_MARKOV, run__percentile=120), "run.percentile"),
    ("known size >= n", with_(BASE_MARKOV, run__known_sizes=[0, 4]), "run.known_sizes"),
    ("count on gaussian", with_(BASE_GAUSS, mechanism__kind="count", mechanism__clip=None), "mechanism.kind"),
    ("gamma < 1", with_(BASE_MARKOV, model__gamma=0.5), "gamma"),
    (
        "transition and gamma",
        with_(BASE_MARKOV, model__transition=[[0.5, 0.5], [0.5, 0.5]]),
        "model.transition",
    ),
    ("exact on correlated clipped sum", with_(BASE_GAUSS, run__estimator="exact"), "run.estimator"),
    ("all without exact", with_(BASE_MARKOV, run__adversaries="all"), "run.adversaries"),
    (
        "counted state out of range",
        with_(BASE_MARKOV, mechanism__counted_states=[5]),
        "mechanism.counted_states",
    ),
    ("samples too few", with_(BASE_MARKOV, run__samples=10), "run.samples"),
    ("bad window", with_(BASE_MARKOV, run__window=[99.0, 1.0]), "run.window"),
    ("bad linspace", with_(BASE_MARKOV, model__gamma={"linspace": [1, 2]}), "model.gamma"),
    ("string where number", with_(BASE_MARKOV, mechanism__epsilon="one"), "mechanism.epsilon"),
    ("markov key on gaussian", with_(BASE_GAUSS, model__gamma=2.0), "model.gamma"),
    (
        "sum without noise scale",
        with_(BASE_GAUSS, mechanism__kind="sum", mechanism__epsilon=None, mechanism__clip=None),
        "mechanism.noise_scale",
    ),
    (
        "bad python function",
        with_(BASE_MARKOV, mechanism__kind="python", mechanism__function="nope:fn"),
        "mechanism.function",
    ),
    (
        "mean length",
        with_(BASE_GAUSS, model__rho=None, model__mean=[0, 0], model__cov=[[1, 0, 0], [0, 1, 0], [0, 0, 1]]),
        "model.mean",
    ),
    ("missing model kind", with_(BASE_MARKOV, model__kind=None), "model.kind"),
    ("unknown table", {**BASE_MARKOV, "extra": {}}, "extra"),
    ("seed sweep", with_(BASE_MARKOV, run__seed=[1, 2]), "run.seed"),
    ("block > n", with_(BASE_GAUSS, model__block=7), "model.block"),
]


@pytest.mark.parametrize("label,doc,field", BAD, ids=[b[0] for b in BAD])
def test_bad_config_names_field(label, doc, field):
    with pytest.raises(ConfigError) as err:
        parse_config(doc)
    msg = str(err.value)
    assert field in msg and "\n" not in msg and ":" in msg


def test_sweeps_expand_cartesian():
    doc = with_(
        BASE_MARKOV,
        model__gamma={"range": [1, 4, 1]},
        mechanism__epsilon=[0.5, 1.0],
        run__estimator=["kde", "mixture"],
    )
    cfg = parse_config(doc)
    assert len(cfg.points) == 3 * 2 * 2
    assert sorted({p.model.detail["gamma"] for p in cfg.points}) == [1, 2, 3]
    assert len({p.id for p in cfg.points}) == 12


@pytest.mark.parametrize(
    "estimator, key, value, owner",
    [
        ("mixture", "kde_backend", "statsmodels", "kde"),
        ("mixture", "kde_ratio", "symmetric", "kde"),
        ("kde", "mixture_target_se", 0.05, "mixture"),
        ("exact", "mixture_max_samples", 400_000, "mixture"),
        ("exact", "audit_alpha", 0.1, "audit"),
        ("audit", "eval_points", 200, "kde"),
    ],
)
def test_a_key_only_another_estimator_reads_is_refused_naming_it(estimator, key, value, owner):
    """A key one estimator owns, set beside another (``kde_backend`` with ``estimator =
    "mixture"``), did nothing without a word: refused in one line naming the key, its value and
    the estimator that reads it."""
    doc = with_(BASE_MARKOV, run__estimator=estimator, **{f"run__{key}": value})
    with pytest.raises(ConfigError) as err:
        parse_config(doc)
    msg = str(err.value)
    assert msg.startswith(f"run.{key} = {value!r}: is read by the {owner!r} estimator only: ")
    assert f"run.estimator = {estimator!r} would drop it" in msg and "\n" not in msg


def test_a_swept_estimator_keeps_its_own_keys():
    """``estimator = ["kde", "mixture"]`` with a KDE key: the KDE points read it, the mixture points
    leave it out (not refused); a key neither reads is still refused."""
    doc = with_(BASE_MARKOV, run__estimator=["kde", "mixture"], run__kde_ratio="symmetric")
    cfg = parse_config(doc)
    got = {p.settings.estimator: p.settings.option("kde_ratio") for p in cfg.points}
    assert got == {"kde": "symmetric", "mixture": "signed"}
    doc = with_(BASE_MARKOV, run__estimator=["kde", "mixture"], run__audit_alpha=0.1)
    with pytest.raises(ConfigError, match="run.audit_alpha = 0.1: is read by the 'audit' estimator only"):
        parse_config(doc)


# (estimator, generic key it does not read, value, the estimators that read it)
UNREAD = [
    ("exact", "samples", 5000, ["kde", "mixture"]),
    ("exact", "samples", 100_000, ["kde", "mixture"]),  # its default value, set: still refused
    ("exact", "sampling", "data", ["kde", "mixture"]),
    ("exact", "chunk", 4096, ["audit", "kde", "mixture"]),
    ("exact", "exact_reference", False, ["audit", "kde", "mixture"]),
    ("audit", "samples", 5000, ["kde", "mixture"]),
    ("audit", "noise_floor_adversaries", 0, ["exact", "kde", "mixture"]),
    ("audit", "sampling", "data", ["kde", "mixture"]),
    ("kde", "exhaustive_method", "auto", ["exact"]),
    ("mixture", "exhaustive_method", "auto", ["exact"]),
]


def test_a_noise_floor_beside_every_adversary_is_refused():
    """``adversaries = "all"`` computes exact values with no noise floor: a count of them was accepted
    and did nothing (the exact estimator's noise floor of 0 fills the summary for drawn adversaries);
    0 asks for nothing."""
    doc = with_(BASE_MARKOV, run__samples=None, run__estimator="exact", run__adversaries="all")
    doc["run"]["noise_floor_adversaries"] = 100  # its default, set
    with pytest.raises(ConfigError, match=r"^run\.noise_floor_adversaries = 100: adversaries = 'all'"):
        parse_config(doc)
    doc["run"]["noise_floor_adversaries"] = 0  # asks for nothing
    assert parse_config(doc).points[0].settings.exhaustive
    doc["run"]["adversaries"] = 5
    doc["run"]["noise_floor_adversaries"] = 100
    assert parse_config(doc).points[0].settings.noise_floor_adversaries == 100


def _unread_message(estimator, key, value, readers):
    who = " or ".join(repr(o) for o in readers)
    return (
        f"run.{key} = {value!r}: is read by the {who} estimator only: "
        f"run.estimator = {estimator!r} would drop it"
    )


@pytest.mark.parametrize("estimator, key, value, readers", UNREAD)
def test_a_generic_key_the_estimator_does_not_read_is_refused(estimator, key, value, readers):
    """A sample count (or chunk, sampling mode, exact reference, ...) beside an estimator that
    never reads it was accepted without a word: refused naming the key, its value and the
    estimators that read it (each declares the generic keys it reads: ``Estimator.reads``)."""
    doc = with_(BASE_MARKOV, run__samples=None, run__estimator=estimator)
    doc["run"][key] = value
    with pytest.raises(ConfigError) as err:
        parse_config(doc)
    assert err.value.field == f"run.{key}" and err.value.value == value
    assert str(err.value).startswith(_unread_message(estimator, key, value, readers))
    assert "\n" not in str(err.value)
    del doc["run"][key]  # without it the config is good
    assert parse_config(doc).points


def test_run_settings_refuse_an_unread_value_in_python():
    """Built in Python, ``RunSettings`` refuses a value other than the default of a key the
    estimator does not read (its default cannot be told from an absent key there)."""
    from bdpsim.pipeline.settings import RunSettings

    with pytest.raises(ConfigError, match=r"^run\.samples = 5000: is read by the 'kde' or 'mixture'"):
        RunSettings(estimator="exact", samples=5000)
    with pytest.raises(ConfigError, match=r"^run\.chunk = 2000: is read by the 'audit' or 'kde' or"):
        RunSettings(estimator="exact", chunk=2000)
    assert RunSettings(estimator="exact", samples=100_000).estimator == "exact"
    with pytest.raises(ConfigError, match=r"^run\.noise_floor_adversaries = 5: adversaries = 'all' gives"):
        RunSettings(estimator="exact", adversaries="all", noise_floor_adversaries=5)
    assert RunSettings(estimator="exact", adversaries="all", noise_floor_adversaries=0).exhaustive
    with pytest.raises(ConfigError, match=r"^run\.exhaustive_method = 'window': is how adversaries = 'all'"):
        RunSettings(estimator="exact", adversaries=10, exhaustive_method="window")
    assert RunSettings(estimator="exact", adversaries="all", exhaustive_method="window").exhaustive


@pytest.mark.parametrize("estimator, key, value, readers", [UNREAD[0], UNREAD[6], UNREAD[8]])
def test_the_cli_refuses_an_unread_key_in_one_line_writing_nothing(
    tmp_path, capsys, estimator, key, value, readers
):
    """``bdpsim validate`` and ``bdpsim run`` of each estimator family's bad config: exit 2, one
    line naming the key, nothing written."""
    shown = str(value).lower() if isinstance(value, bool) else repr(value).replace("'", '"')
    text = (
        f'[run]\nseed = 3\nadversaries = 4\nestimator = "{estimator}"\n{key} = {shown}\n'
        '[model]\nkind = "markov"\nn = 4\ngamma = 2.0\n[mechanism]\nkind = "count"\nepsilon = 1.0\n'
    )
    cfg = toml(tmp_path, text)
    for args in (("validate", cfg), ("run", cfg, "--out", tmp_path / "out")):
        rc, out, err = cli(capsys, *args)
        one_line_error(rc, err, _unread_message(estimator, key, value, readers))
        assert out == "" and not (tmp_path / "out").exists()


def test_a_swept_estimator_keeps_the_generic_keys_its_points_read():
    """``estimator = ["kde", "exact"]`` with ``samples``: the KDE points read it, the exact points do
    not refuse it; beside ``["exact", "audit"]`` (neither reads it) it is refused."""
    doc = with_(BASE_MARKOV, run__estimator=["kde", "exact"], run__samples=4000)
    cfg = parse_config(doc)
    assert sorted(p.settings.estimator for p in cfg.points) == ["exact", "kde"]
    assert {p.estimator().samples for p in cfg.points if p.settings.estimator == "kde"} == {4000}
    doc = with_(BASE_MARKOV, run__estimator=["exact", "audit"], run__samples=4000)
    with pytest.raises(ConfigError, match="run.samples = 4000: is read by the 'kde' or 'mixture'"):
        parse_config(doc)


def test_bootstrap_read_by_no_estimator_is_warned_about_once_at_the_config(tmp_path, bdpsim_cli):
    """``bootstrap`` (accepted for old configs; the percentile's interval is distribution-free) is
    read by no estimator: one warning for a sweep, naming the config file and the key, located at
    the key's line of the config (not inside bdpsim); the run goes on."""
    text = (
        "[run]\nadversaries = 4\nsamples = 1000\nbootstrap = 200\n[model]\n"
        'kind = "markov"\nn = 4\ngamma = [2.0, 3.0]\n[mechanism]\nkind = "count"\nepsilon = 1.0\n'
    )
    cfg = toml(tmp_path, text)
    said = f"{cfg}: [run] bootstrap = 200 is read by no estimator of this run (ignored); remove it"
    with pytest.warns(UserWarning) as caught:
        assert len(load_config(cfg).points) == 2
    assert [(str(w.message), w.filename, w.lineno) for w in caught] == [(said, str(cfg), 4)]
    p = bdpsim_cli("validate", cfg)
    assert p.returncode == 0 and p.stderr.count(said) == 1
    assert f"{cfg}:4: UserWarning: {said}" in p.stderr  # Python's line: the config's, not bdpsim's
    # in a [[variants]] inline table: its line
    cfg = toml(tmp_path, text.replace("bootstrap = 200\n", "") + "[[variants]]\nrun = { bootstrap = 200 }\n")
    with pytest.warns(UserWarning) as caught:
        load_config(cfg)
    assert [(w.filename, w.lineno) for w in caught] == [(str(cfg), 12)]


def test_bootstrap_in_a_config_given_as_a_dict_is_warned_about_at_the_caller():
    """A config given as a dict has no file: the warning is located at the first caller outside
    bdpsim (this test), once for the sweep."""
    doc = with_(BASE_MARKOV, run__bootstrap=200, model__gamma=[2.0, 3.0])
    with pytest.warns(UserWarning) as caught:
        assert len(parse_config(doc).points) == 2
    said = "[run] bootstrap = 200 is read by no estimator of this run (ignored); remove it"
    assert [(str(w.message), w.filename) for w in caught] == [(said, __file__)]
    with pytest.warns(UserWarning, match=r"^<dict>: \[run\] bootstrap = 200 is read by no estimator"):
        parse_config(doc, "<dict>")


def test_linspace_and_vector_sweeps():
    doc = with_(BASE_GAUSS, model__rho={"linspace": [0.0, 0.4, 5]}, mechanism__clip=[[0.0, 10.0], [0.0, 5.0]])
    cfg = parse_config(doc)
    assert len(cfg.points) == 10
    assert {p.mechanism.query_function.clip for p in cfg.points} == {(0.0, 10.0), (0.0, 5.0)}


def test_variants_union():
    doc = dict(BASE_GAUSS)
    doc["variants"] = [{"model": {"n": 3, "rho": [0.1, 0.5]}}, {"model": {"n": 5, "rho": [0.1]}}]
    cfg = parse_config(doc)
    assert [(p.model.n, p.model.detail["rho"]) for p in cfg.points] == [(3, 0.1), (3, 0.5), (5, 0.1)]


def test_bundled_configs_are_valid():
    from bdpsim.pipeline.config import load_config
    from bdpsim.utility.experiment import load_utility

    files = sorted((Path(__file__).parents[2] / "configs").glob("*.toml"))
    assert len(files) >= 11
    for f in files:
        if f.name.startswith("utility_"):
            assert load_utility(f).epsilon, f
        elif f.name.startswith("account_"):
            from bdpsim.pipeline.account_config import load_account_config

            assert load_account_config(f).releases, f
        else:
            assert load_config(f).points, f


@pytest.mark.parametrize(
    "content,needle",
    [
        (
            "[run]\nseed = "
            "-1\n[model]\nkind='markov'\nn=3\ngamma=2.0\n[mechanism]\nkind='count'\nepsilon=1.0\n",
            "run.seed",
        ),
        ("this is not toml = = \n", "not valid TOML"),
        (
            "[model]\nkind='markov'\nn=3\ntransition=[[0.5,0.6],[0.5,0.5]]\n[mechanism]\nkind='count'\nepsilon=1.0\n",
            "row must sum to 1",
        ),
    ],
)
def test_cli_bad_config_one_line_exit_2_nothing_written(tmp_path, bdpsim_cli, content, needle):
    cfg = tmp_path / "bad.toml"
    cfg.write_text(content)
    out = tmp_path / "out"
    p = bdpsim_cli("run", cfg, "--out", out)
    assert p.returncode == 2
    assert needle in p.stderr and p.stderr.count("\n") == 1 and "Traceback" not in p.stderr
    assert not out.exists()


@pytest.mark.parametrize(
    "args,needle",
    [
        (["run", "configs/quickstart.toml", "--jobs", "0"], "--jobs"),
        (["run", "configs/quickstart.toml", "--jobs", "two"], "--jobs"),
        (["run", "configs/quickstart.toml", "--scheduler", "tcp://127.0.0.1:1"], "--scheduler"),
        (["bounds", "markov", "--transition", "[[1,2]", "--epsilon", "1"], "--transition"),
        (["bounds", "gaussian", "--rho", "0.3", "--m", "3", "--epsilon", "-1"], "epsilon"),
        (["plot", "/nonexistent/dir"], "summary.csv"),
        (
            [
                "run",
                "configs/quickstart.toml",
                "--backend",
                "dask",
                "--scheduler",
                "tcp://127.0.0.1:1",
                "--out",
                "/tmp/bdpsim-test-nodask",
            ],
            "cannot connect",
        ),
    ],
)
def test_cli_bad_arguments(tmp_path, bdpsim_cli, monkeypatch, args, needle):
    monkeypatch.chdir(ROOT)  # the arguments name configs/ relative to the checkout
    p = bdpsim_cli(*args)
    assert p.returncode == 2, p.stderr
    assert needle in p.stderr and p.stderr.strip().count("\n") == 0 and "Traceback" not in p.stderr
    assert not Path("/tmp/bdpsim-test-nodask").exists()


@pytest.mark.parametrize("case", sorted(BAD_CONFIGS))
def test_bad_config_one_line_nothing_written(tmp_path, capsys, case):
    text, word = BAD_CONFIGS[case]
    cfg = toml(tmp_path, text)
    rc, out, err = cli(capsys, "validate", cfg)
    one_line_error(rc, err, word)
    assert out == ""
    rc, out, err = cli(capsys, "run", cfg, "--out", tmp_path / "out")
    one_line_error(rc, err, word)
    assert not (tmp_path / "out").exists()  # refused up front, not after building or running


def test_config_error_survives_pickling():
    e = ConfigError("model.rho", lambda: 0, "must be in [0, 1)")
    f = pickle.loads(pickle.dumps(e))
    assert type(f) is ConfigError and str(f) == str(e) and f.field == "model.rho"


BOUND = re.compile(r"^(>=|>) (-?\d+(?:\.\d+)?)\b")


def _bounded_keys():
    for est in ESTIMATORS:  # the generic keys it reads (the others are refused beside it) and its own
        reads = ESTIMATORS[est].reads
        generic = {k: key for k, key in GENERIC_KEYS.items() if k not in READ_BY_SOME or k in reads}
        keys = {**generic, **ESTIMATORS[est].keys}
        for name, key in keys.items():
            m = BOUND.match(key.rule or "")
            if m and key.type in ("int", "float", "strict_int"):
                yield pytest.param(est, name, key, m.group(1), float(m.group(2)), id=f"{est}-{name}")


@pytest.mark.parametrize("est, name, key, op, bound", list(_bounded_keys()))
def test_run_key_rule_agrees_with_the_code(est, name, key, op, bound):
    """A ``[run]`` key whose reference rule is ``>= b`` accepts ``b``; ``> b`` refuses it; below ``b``
    is refused either way (``mixture_target_width`` said "> 0" and took 0; ``mixture_max_samples``
    said ">= run.samples" and took 1; ``eval_points`` said ">= 10" and took 9)."""
    b = bound if key.type == "float" else int(bound)
    below = b - 0.5 if key.type == "float" else b - 1

    def accepted(v) -> bool:
        run = {"seed": 1, "adversaries": 2, "estimator": est, name: v}
        if est in ("kde", "mixture") and name != "samples":
            run["samples"] = 1000
        doc = {
            "run": run,
            "model": {"kind": "markov", "n": 4, "gamma": 2.0},
            "mechanism": {"kind": "count", "epsilon": 1.0},
        }
        try:
            parse_config(doc)
            return True
        except ConfigError as err:
            assert f"run.{name}" in str(err), str(err)
            return False

    assert accepted(b) == (op == ">="), (name, key.rule, b)
    assert not accepted(below), (name, key.rule, below)


def test_the_disputed_rules_are_bounds_the_probe_reads():
    """The three rules the issue found wrong are plain bounds now, so the probe above covers them
    (``mixture_max_samples`` said ">= run.samples", which no value of the key can be checked against)."""
    probed = {p.values[1] for p in _bounded_keys()}
    assert {"mixture_target_width", "mixture_max_samples", "eval_points"} <= probed
