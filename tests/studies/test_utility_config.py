"""``[utility]`` tables go through the run configs' loader (issue 36 item 5): the same sweep
forms, type rules and messages as every other table, the relations checked on top."""

import pytest

from bdpsim.core import schema
from bdpsim.core.errors import ConfigError
from bdpsim.utility.experiment import UTILITY_KEYS, parse_utility

from ..support.bad_config import cli, one_line_error, toml


def test_the_table_is_resolved_by_the_one_loader(monkeypatch):
    seen = []
    real = schema.resolve_table

    def spy(section, table, keys):
        seen.append((section, keys))
        return real(section, table, keys)

    monkeypatch.setattr("bdpsim.utility.experiment.resolve_table", spy)
    parse_utility({"utility": {"dataset": "galton"}})
    assert seen == [("utility", UTILITY_KEYS)]


def test_sweep_forms_of_run_configs_work_in_utility_tables():
    cfg = parse_utility(
        {
            "utility": {
                "dataset": "galton",
                "epsilon": {"range": [1, 4, 1]},
                "mechanisms": "dp",
                "split": "trios",
            }
        }
    )
    assert cfg.epsilon == (1.0, 2.0, 3.0)
    assert cfg.mechanisms == ("dp",) and cfg.split == ("trios",)
    # the defaults that are sweeps (a linspace table, lists) expand as a written value would
    d = parse_utility({"utility": {"dataset": "electricity"}})
    assert d.epsilon == tuple(float(e) for e in range(1, 21))
    assert d.threshold == (70.0, 80.0, 90.0) and d.mechanisms == ("dp", "general", "markov", "zhao")


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"runs": 1e3}, "utility.runs = 1000.0: must be an integer, not a float"),
        ({"epsilon": []}, "utility.epsilon = []: a sweep list must not be empty"),
        ({"epsilon": {"linspace": [1, 2]}}, "linspace needs three finite numbers"),
        ({"seed": True}, "utility.seed = True: must be an integer"),
        ({"clip": [3, 1]}, "utility.clip = [3.0, 1.0]: must be [low, high] with low < high"),
        ({"beta": 1.5}, "utility.beta = 1.5: must be in (0, 1)"),
        ({"foo": 1}, "utility.foo = 1: unknown key (allowed: dataset, epsilon,"),
        ({"dataset": ["galton"]}, "utility.dataset = ['galton']: must be one of"),
        ({"mechanisms": ["markov"]}, "utility.mechanisms = ['markov']: must be a non-empty subset"),
    ],
)
def test_bad_values_name_the_key_the_value_and_the_rule(table, message):
    with pytest.raises(ConfigError) as e:
        parse_utility({"utility": {"dataset": "galton", **table}})
    assert message in str(e.value)


@pytest.mark.parametrize(
    "line,word",
    [
        ("family_size = [1000000000]", "utility.family_size"),
        ("records = 1000000000000", "utility.records"),
        ("runs = 1000000000000", "utility.runs"),
        ("seed = true", "utility.seed"),
        ("epsilon = [inf]", "utility.epsilon"),
    ],
)
def test_hostile_utility_configs(tmp_path, capsys, line, word):
    cfg = toml(tmp_path, f'[utility]\ndataset = "genomic"\n{line}\n')
    for cmd in ("validate", "utility"):
        rc, out, err = cli(capsys, cmd, cfg, *(["--out", tmp_path / "o"] if cmd == "utility" else []))
        one_line_error(rc, err, word)
    assert not (tmp_path / "o").exists()  # how quickly: scripts/benchmarks/benchmark_limits.py
