"""Genotype names (``counted_states = ["BB"]``) count a pedigree's genotypes; on any other model
they are refused in one line (they used to count state 0 of a Markov chain without a word)."""

from __future__ import annotations

import pytest

from bdpsim.core.errors import ConfigError
from bdpsim.mechanisms.kinds import state_codes
from bdpsim.models import MarkovChainModel, PedigreeModel, symmetric_chain

from ..support.bad_config import one_line_error, toml

CHAIN = '[run]\nadversaries = 3\nestimator = "exact"\n[model]\nkind = "markov"\nn = 4\ngamma = 2.0\n'
PEDIGREE = '[model]\nkind = "pedigree"\nfamily = "nuclear"\nsize = 3\n'
COUNT_BB = '[mechanism]\nkind = "count"\nepsilon = 1.0\ncounted_states = ["BB"]\n'


def test_names_are_genotypes_only_on_a_pedigree():
    chain = MarkovChainModel(symmetric_chain(2.0), 4)
    with pytest.raises(ConfigError, match=r"counted_states = \['BB'\]: state names are a pedigree's"):
        state_codes(["BB"], chain, "counted_states")
    assert state_codes(["BB", "bb"], PedigreeModel.nuclear(3)) == (0, 2)
    assert state_codes(["Bb"]) == (1,)  # the model unknown here: the names keep their codes
    assert state_codes([0, 1], chain) == (0, 1)


@pytest.mark.parametrize("command", ["validate", "run", "calibrate config"])
def test_a_config_counting_bb_on_a_chain_is_refused(bdpsim_cli, tmp_path, command):
    cfg = toml(tmp_path, CHAIN + COUNT_BB)
    args = [*command.split(), cfg] + (["--out", tmp_path / "o", "--quiet"] if command == "run" else [])
    r = bdpsim_cli(*args)
    one_line_error(r.returncode, r.stderr, "mechanism.counted_states = ['BB']", "integers 0..1")
    assert not (tmp_path / "o").exists()


def test_a_pedigree_counts_bb_as_genotype_0(bdpsim_cli, tmp_path):
    named = toml(tmp_path, PEDIGREE + COUNT_BB, "named.toml")
    coded = toml(tmp_path, PEDIGREE + COUNT_BB.replace('["BB"]', "[0]"), "coded.toml")
    a, b = bdpsim_cli("calibrate", "config", named), bdpsim_cli("calibrate", "config", coded)
    assert a.returncode == b.returncode == 0, a.stderr
    assert "states [0]" in a.stdout
    strip = [line for line in a.stdout.splitlines() if "from the config" not in line]
    assert strip == [line for line in b.stdout.splitlines() if "from the config" not in line]


def _street():
    from bdpsim.models import BayesNetModel

    return BayesNetModel(
        parents=[[], [0], [1]],
        cpt=[[0.6, 0.4], [[0.8, 0.2], [0.3, 0.7]], [[0.5, 0.5], [0.1, 0.9]]],
        names=["a", "b", "c"],
        state_names=[("low", "high"), ("high", "low"), ("low", "high")],
    )


def test_laplace_count_reads_a_networks_state_names_with_its_model():
    """``LaplaceCount(eps, ("high",))`` was refused in Python while the config's ``counted_states =
    ["high"]`` counts them: with ``model=`` the names are read as ``bdpsim run`` reads them (here
    record b numbers ``high`` 0: a per-record count), the same BDPL as the indices it means."""
    import numpy as np

    import bdpsim
    from bdpsim.mechanisms.kinds import count_query

    net = _street()
    named = bdpsim.LaplaceCount(1.0, ("high",), model=net)
    assert named.query_function == count_query(["high"], net)  # the config's reading
    data = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0]])
    assert list(named.query_function(data)) == [3.0, 0.0, 1.0]  # counted by hand: a, b, c high
    assert named.epsilon == 1.0 and named.columns()["noise_scale"] == 1.0
    chain_net = net.__class__(
        parents=[[], [0], [1]],
        cpt=[[0.6, 0.4], [[0.8, 0.2], [0.3, 0.7]], [[0.5, 0.5], [0.1, 0.9]]],
        state_names=[("low", "high")] * 3,
    )
    by_name = bdpsim.exact_bdpl(chain_net, bdpsim.LaplaceCount(1.0, ("high",), model=chain_net)).bdpl
    assert by_name == bdpsim.exact_bdpl(chain_net, bdpsim.LaplaceCount(1.0, (1,))).bdpl


def test_laplace_count_without_its_model_says_how_to_pass_state_names():
    import bdpsim

    with pytest.raises(ConfigError) as err:
        bdpsim.LaplaceCount(1.0, counted_states=("high",))
    msg = str(err.value)
    assert msg.startswith("counted_states = ['high']: state names like 'high' are the model's")
    assert "model=" in msg and "\n" not in msg
    assert bdpsim.LaplaceCount(1.0, ("Bb",)).query_function.counted_states == (1,)  # genotypes keep codes
    with pytest.raises(ConfigError, match=r"counted_states = \['high'\]: state names are a pedigree's"):
        bdpsim.LaplaceCount(1.0, ("high",), model=MarkovChainModel(symmetric_chain(2.0), 4))
