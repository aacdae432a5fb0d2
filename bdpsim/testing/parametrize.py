"""A pytest parametrization of the plug-in contract over the live registries."""

from __future__ import annotations

from typing import Any

from .checks import all_checks


def parametrize_with_checks(mechanism_examples: dict[str, dict] | None = None) -> Any:
    """``@parametrize_with_checks()`` on a test ``def test_contract(check): check()`` runs every
    check of every registered plug-in as its own test, with ids such as
    ``check_model_kind_sampling[markov]`` (register your kinds before the decorator runs).

    Parameters
    ----------
    mechanism_examples : dict, optional
        ``{kind name: {"model": ..., "mechanism": ...}}`` for mechanism kinds that declare no
        example of their own.
    """
    import pytest  # only here: using bdpsim.testing's checks needs no pytest

    checks = list(all_checks(mechanism_examples))
    return pytest.mark.parametrize("check", [c for _, c in checks], ids=[i for i, _ in checks])
