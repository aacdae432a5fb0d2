"""Issue 38 item 10: ``bdpsim --version`` and ``--help`` start without the numerical stack.

Building the parser used to import the calibration registry (NumPy, SciPy: 0.4-0.65 s on an idle
machine); the choices it needs are now constants kept equal to the registries here, and each
command imports its own stack when it runs.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from ..support.parser import choices_of, default_of

#: what no help or version text needs (``scipy`` covers every SciPy submodule)
HEAVY = ("numpy", "scipy", "pgmpy", "pandas", "matplotlib", "networkx", "joblib", "dask")


@pytest.mark.parametrize(
    "argv",
    [
        ["--version"],
        ["--help"],
        ["calibrate", "--help"],
        ["calibrate", "markov", "--help"],
        ["temporal", "--help"],
        ["run", "--help"],
    ],
)
def test_version_and_help_import_no_numerical_stack(argv, cli_env):
    probe = (
        f"import sys\nfrom bdpsim.cli import main\ntry:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})), file=sys.stderr)"
    )
    p = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=cli_env, timeout=60)
    assert p.returncode == 0, p.stderr
    assert "bdpsim" in p.stdout
    assert p.stderr.strip().splitlines()[-1] == "[]", p.stderr


def test_calibrate_choices_are_the_library_s():
    from bdpsim.calibration import CALIBRATION_METHODS
    from bdpsim.cli import calibrate as cli_calibrate
    from bdpsim.kernels.noise.laws import NOISE_LAWS
    from bdpsim.mechanisms.kinds import NOISE_KEYS

    assert sorted(cli_calibrate.CALIBRATION_METHODS) == sorted(CALIBRATION_METHODS)
    calibratable = tuple(k for k, law in NOISE_LAWS.items() if law.calibratable)
    pure = tuple(k for k in calibratable if NOISE_LAWS[k].pure_dp)
    assert tuple(choices_of(["calibrate", "markov"], "--noise")) == calibratable
    assert tuple(choices_of(["attack", "markov"], "--noise")) == calibratable
    assert tuple(choices_of(["calibrate", "config"], "--noise")) == pure
    assert default_of(["calibrate", "markov"], "--noise") == NOISE_KEYS["noise"].default
