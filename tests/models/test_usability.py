"""Usability: probes of the models layer."""

import pytest


def test_transient_class_is_named():
    from bdpsim.kernels.chains.transition import chain_structure

    assert (
        chain_structure([[0.5, 0.5], [0.0, 1.0]]) == "reducible: 2 communicating classes {0} (transient), {1}"
    )
    assert chain_structure([[0.0, 1.0], [1.0, 0.0]]) is None  # periodic but irreducible


def test_pedigree_parent_after_child_message(capsys):  # 18
    from bdpsim.core.errors import ConfigError
    from bdpsim.models.pedigree.model import PedigreeModel

    with pytest.raises(ConfigError) as e:
        PedigreeModel([[1, 2], [], []])
    assert "0..-1" not in str(e.value) and "person 0 comes first" in str(e.value)
    with pytest.raises(ConfigError) as e:
        PedigreeModel([[], [], [0, 3], [0, 2]])
    assert "indices in 0..1" in str(e.value) and "cycle" in str(e.value)
