"""Issue 35 item 5: the attack columns of ``bdpsim run`` with the exact estimator (``[run] attack``)."""

from __future__ import annotations

import csv
import gzip
import io
import math

import pytest

from bdpsim.attack import attack_risk
from bdpsim.attack.worst import worst_tpr
from bdpsim.cli import main
from bdpsim.pipeline.config import parse_config

LABELS = (("1e-3", 1e-3), ("1e-2", 1e-2), ("0.1", 0.1))


def _raw(gamma, epsilon, adversaries="all", attack=True, n=5):
    run = {
        "seed": 1,
        "adversaries": adversaries,
        "estimator": "exact",
        "known_sizes": "all",
        "adversary_rows": "all",
    }
    if attack is not None:
        run["attack"] = attack
    return {
        "title": "attack columns",
        "run": run,
        "model": {"kind": "markov", "n": n, "gamma": gamma},
        "mechanism": {"kind": "count", "epsilon": epsilon, "counted_states": [1]},
    }


def _toml(raw) -> str:
    def val(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, str):
            return f'"{v}"'
        if isinstance(v, list):
            return "[" + ", ".join(val(x) for x in v) + "]"
        return repr(v)

    out = [f'title = "{raw["title"]}"']
    for sec in ("run", "model", "mechanism"):
        out.append(f"[{sec}]")
        out += [f"{k} = {val(v)}" for k, v in raw[sec].items()]
    return "\n".join(out) + "\n"


def _run(tmp_path, raw):
    cfg = tmp_path / "c.toml"
    cfg.write_text(_toml(raw))
    out = tmp_path / "out"
    assert main(["run", str(cfg), "--out", str(out), "--quiet"]) == 0
    summ = list(csv.DictReader(io.StringIO((out / "summary.csv").read_text())))
    advs = list(
        csv.DictReader(io.StringIO(gzip.decompress((out / "adversaries.csv.gz").read_bytes()).decode()))
    )
    return summ, advs


def test_independent_records_give_the_laplace_closed_forms(tmp_path):
    # gamma = 1: independent records, a count with Laplace noise of sensitivity 1 and scale 1/eps:
    # advantage 1 - exp(-eps/2) and TPR(alpha) = e^eps alpha for alpha <= e^-eps / 2 (every adversary)
    summ, advs = _run(tmp_path, _raw(1.0, 1.0))
    (row,) = summ
    assert float(row["advantage_max"]) == pytest.approx(1 - math.exp(-0.5), abs=1e-9)
    for lab, a in LABELS[:2]:
        assert float(row[f"tpr_at_{lab}_max"]) == pytest.approx(math.e * a, abs=1e-9)
    assert advs and all(float(r["advantage"]) == pytest.approx(1 - math.exp(-0.5), abs=1e-9) for r in advs)


def test_correlated_chain_matches_attack_risk(tmp_path):
    raw = _raw(4.0, 1.0)
    summ, advs = _run(tmp_path, raw)
    point = parse_config(raw).points[0]
    model, mech = point.model.fixed, point.mechanism
    worst = attack_risk(model, mech)
    (row,) = summ
    assert float(row["advantage_max"]) == pytest.approx(worst.advantage, abs=1e-12)
    assert float(row["advantage_max"]) > 1 - math.exp(-0.5) + 0.05  # correlation raises the risk
    for lab, a in LABELS:
        assert float(row[f"tpr_at_{lab}_max"]) == pytest.approx(worst_tpr(model, mech, a).value, abs=1e-9)
    # every row: never above the pure-eps bound of its exact BDPL, and the largest row is the worst
    assert all(float(r["advantage"]) <= math.tanh(float(r["bdpl"]) / 2) + 1e-12 for r in advs)
    assert max(float(r["advantage"]) for r in advs) == pytest.approx(worst.advantage, abs=1e-12)


def test_two_state_histogram_is_attacked_by_its_box_brackets(tmp_path):
    """``attack = true`` with the Laplace histogram of a two-state chain (refused before): the
    worst advantage is attack_risk's (the accountant's box brackets, width <= 1e-6), each row's
    advantage at most the pure-eps bound of its exact BDPL."""
    raw = _raw(4.0, 1.0, n=2)
    raw["mechanism"] = {"kind": "histogram", "epsilon": 1.0}
    summ, advs = _run(tmp_path, raw)
    point = parse_config(raw).points[0]
    worst = attack_risk(point.model.fixed, point.mechanism)
    (row,) = summ
    assert float(row["advantage_max"]) == pytest.approx(worst.advantage, abs=1e-12)
    assert float(row["tpr_at_0.1_max"]) <= math.exp(float(row["bdpl_exact"])) * 0.1 + 1e-9
    assert advs and all(float(r["advantage"]) <= math.tanh(float(r["bdpl"]) / 2) + 1e-6 for r in advs)


def test_sampled_adversaries_take_the_max_over_the_rows(tmp_path):
    summ, advs = _run(tmp_path, _raw(4.0, 1.0, adversaries=30))
    (row,) = summ
    for name in ("advantage", *(f"tpr_at_{lab}" for lab, _ in LABELS)):
        assert float(row[f"{name}_max"]) == pytest.approx(max(float(r[name]) for r in advs), abs=1e-15)


def test_off_by_default_no_columns(tmp_path):
    summ, advs = _run(tmp_path, _raw(4.0, 1.0, attack=None))
    assert "advantage_max" not in summ[0] and "advantage" not in advs[0]


def test_bad_attack_value_is_one_line_exit_2(tmp_path, capsys):
    cfg = tmp_path / "c.toml"
    cfg.write_text(_toml(_raw(4.0, 1.0, attack="yes")))
    assert main(["run", str(cfg), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "run.attack" in err[0] and not (tmp_path / "out").exists()


def test_console_table_shows_the_attack_columns(tmp_path, capsys):
    """The table ``bdpsim run`` prints holds the attack columns of the summary (they were only in
    summary.csv)."""
    cfg = tmp_path / "c.toml"
    cfg.write_text(_toml(_raw(4.0, 1.0)))
    assert main(["run", str(cfg), "--out", str(tmp_path / "out")]) == 0
    head = capsys.readouterr().out
    for name in ("advantage_max", "tpr_at_1e-3_max", "tpr_at_0.1_max"):
        assert name in head


@pytest.mark.parametrize(
    "run, mechanism, first",
    [
        (
            {"estimator": "mixture", "adversaries": 5, "attack": True},
            None,
            "run.attack = True: is computed by the 'exact' estimator only: run.estimator = 'mixture'",
        ),
        (
            {"estimator": "mixture", "adversaries": 5, "epsilon_profile": 0.5},
            None,
            "run.epsilon_profile = 0.5: is computed by the 'exact' estimator only",
        ),
        (
            {"estimator": "kde", "adversaries": 5, "attack": True},
            None,
            "run.attack = True: is computed by the 'exact' estimator only: run.estimator = 'kde'",
        ),
        (
            {"attack": True},
            {
                "kind": "histogram",
                "epsilon": 1.0,
                "model": {
                    "kind": "markov",
                    "n": 5,
                    "transition": [[0.5, 0.3, 0.2], [0.2, 0.5, 0.3], [0.3, 0.3, 0.4]],
                },
            },
            "run.attack = True: needs each adversary's exact output laws, which the exact engine of "
            "a markov model with the 'histogram' mechanism does not give",
        ),
    ],
)
def test_attack_keys_the_run_cannot_honour_are_refused_naming_them(tmp_path, capsys, run, mechanism, first):
    """``attack`` / ``epsilon_profile`` beside an estimator that drops them (they ran, the columns
    silently missing), and ``attack`` on a pair without exact output laws (its error named a
    Python class, the engine's, after the run started): one line naming the key, exit 2, at
    validate and run alike, nothing written."""
    raw = _raw(4.0, 1.0)
    raw["run"] = {k: v for k, v in raw["run"].items() if k not in ("known_sizes", "adversaries", "attack")}
    raw["run"].update(run)
    if mechanism is not None:
        mechanism = dict(mechanism)
        raw["model"] = mechanism.pop("model", raw["model"])  # the histogram of three states
        raw["mechanism"] = mechanism
    cfg = tmp_path / "c.toml"
    cfg.write_text(_toml(raw))
    for argv in (["validate", str(cfg)], ["run", str(cfg), "--out", str(tmp_path / "out"), "--quiet"]):
        assert main(argv) == 2
        cap = capsys.readouterr()
        err = cap.err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("bdpsim: error: " + first), cap.err
        assert "Engine" not in err[0] and not (tmp_path / "out").exists()
