"""The package as a user installs it (issue 37 item 4): the smoke subset (``-m smoke``) that .ci/run
runs against the built wheel, installed into a fresh venv, from a copy of tests/ outside the
checkout. There the environment variable ``BDPSIM_INSTALLED_IN`` names the venv, and the first test
checks that the bdpsim imported is the installed one, not the checkout's. Run in the checkout
(without the variable) these tests check the checkout's bdpsim the same way.

The other tests of the subset are marked ``smoke`` where they live: the quickstart's numbers
(test_quickstart_identity.py), a CLI error path through the bundled configs and the shipped data
(test_newcomer.py), an exact value (test_exact.py).
"""

import importlib.util
import os
import re
import sys
from pathlib import Path

import pytest

import bdpsim
from bdpsim.core import bundled

from ..conftest import ROOT

pytestmark = pytest.mark.smoke
INSTALLED_IN = os.environ.get("BDPSIM_INSTALLED_IN")
EXTRAS = {"mrf": "networkx", "bayesnet": "pgmpy", "dask": "distributed"}  # extra -> its import


def test_the_bdpsim_under_test_is_the_expected_one():
    """Installed: bdpsim comes from the venv named by BDPSIM_INSTALLED_IN, and the tests' directory
    holds no bdpsim/ that could shadow it. In the checkout: bdpsim is the checkout's."""
    here = Path(bdpsim.__file__).resolve()
    if INSTALLED_IN:
        venv = Path(INSTALLED_IN).resolve()
        assert here.is_relative_to(venv), f"bdpsim imported from {here}, not from the venv {venv}"
        assert Path(sys.prefix).resolve() == venv, f"tests run by {sys.prefix}, not by the venv {venv}"
        assert not (ROOT / "bdpsim").exists(), f"{ROOT} holds a bdpsim/ (the checkout's?)"
    else:
        assert here == (ROOT / "bdpsim" / "__init__.py").resolve(), here


def test_version_comes_from_the_distribution(bdpsim_cli):
    """``bdpsim --version`` states the distribution's version (setuptools-scm, from the tag or the
    fallback), never the placeholder of a source tree that was not installed."""
    rc, out, err = bdpsim_cli("--version")
    assert rc == 0 and out.strip() == f"bdpsim {bdpsim.__version__}", (out, err)
    if INSTALLED_IN:
        from importlib.metadata import version

        assert bdpsim.__version__ == version("bdpsim") and not bdpsim.__version__.startswith("0.0.0")


def test_bundled_configs_and_data_are_found_in_the_package():
    """Every bundled config parses from the package's own directory; the shipped galton.csv has the
    registry's pinned checksum; py.typed ships (PEP 561). Installed without an optional extra
    (.ci/run installs the bare wheel), a config needing it says which extra, in one line."""
    from bdpsim.core.errors import ConfigError
    from bdpsim.pipeline.config import load_config
    from bdpsim.utility import datasets as DS
    from bdpsim.utility.experiment import load_utility

    names = bundled.config_names()
    assert {"quickstart", "utility_galton", "thesis_fig9", "mrf_karate"} <= set(names), names
    for name in names:
        path = bundled.resolve_config(name)
        assert path.parent == bundled.CONFIG_DIR
        try:
            if name.startswith("account_"):
                from bdpsim.pipeline.account_config import load_account_config

                assert load_account_config(path).releases, name
            else:
                assert (
                    load_utility(path).epsilon if name.startswith("utility_") else load_config(path).points
                ), name
        except ConfigError as exc:  # a config of an optional extra, without it: one line saying so
            extra = re.search(r"pip install bdpsim\[(\w+)\]", str(exc))
            assert extra and extra[1] in EXTRAS, (name, str(exc))
            assert importlib.util.find_spec(EXTRAS[extra[1]]) is None, (name, str(exc))
    galton = bundled.data_file("galton.csv")
    assert galton is not None and DS._sha256(galton) == DS.REGISTRY["galton"].sha256
    assert (bundled.HERE / "py.typed").is_file()
