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
