"""The in-process CLI (``cli``, ``calibrate``, ``_help``), its one-line error check and the config
texts the tests of bad configs share: one line, exit 2, nothing written; no hang, no memory blow-up
(``BAD_CONFIGS``, also timed by scripts/benchmarks/benchmark_limits.py)."""

from pathlib import Path

import pytest

from bdpsim.cli import main

ROOT = Path(__file__).resolve().parents[2]


RUN = '[run]\nseed = 3\nadversaries = 6\nsamples = 1000\nestimator = "mixture"\nnoise_floor_adversaries = 2\n'


MARKOV = '[model]\nkind = "markov"\nn = 4\ngamma = 2.0\n'


COUNT = '[mechanism]\nkind = "count"\nepsilon = 1.0\ncounted_states = [1]\n'


GAUSS = '[model]\nkind = "gaussian"\nn = 4\nrho = 0.3\n'


CLIPPED = '[mechanism]\nkind = "clipped_sum"\nepsilon = 1.0\nclip = [0.0, 1.0]\n'


OK = RUN + MARKOV + COUNT


def cli(capsys, *args):
    try:
        rc = main([str(a) for a in args])
    except SystemExit as exc:  # argparse
        rc = exc.code
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def calibrate(capsys, *args):
    return cli(capsys, "calibrate", "markov", *args)


def _help(capsys, monkeypatch, *args, columns=80):
    monkeypatch.setenv("COLUMNS", str(columns))
    with pytest.raises(SystemExit):
        from bdpsim.cli import main

        main([*args, "--help"])
    return capsys.readouterr().out


def one_line_error(rc, err, *words):
    assert rc == 2, err
    assert err.startswith("bdpsim: error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    for w in words:
        assert w in err, err


def toml(tmp_path, text, name="c.toml"):
    p = tmp_path / name
    p.write_text(text)
    return p


# ------------------------------------------------------------------ one line, exit 2, nothing written


BAD_CONFIGS = {
    "section not a table": ("model = 5\n" + RUN + COUNT, "model = 5"),
    "list of strings": (RUN + 'known_sizes = ["a"]\n' + MARKOV + COUNT, "run.known_sizes"),
    "nested list": (RUN + "known_sizes = [[1]]\n" + MARKOV + COUNT, "run.known_sizes"),
    "float in int list": (RUN + "known_sizes = [1.5]\n" + MARKOV + COUNT, "run.known_sizes"),
    "bool in int list": (RUN + "known_sizes = [true]\n" + MARKOV + COUNT, "run.known_sizes"),
    "huge range sweep": (
        RUN + MARKOV + COUNT.replace("epsilon = 1.0", "epsilon = {range = [1, 1e12, 1]}"),
        "range has",
    ),
    "sigma overflow": (RUN + GAUSS + "sigma = 1e200\n" + CLIPPED, "model.sigma"),
    "clip overflow": (RUN + GAUSS + CLIPPED.replace("[0.0, 1.0]", "[-1e308, 1e308]"), "mechanism.clip"),
    "huge Gaussian n": (RUN + GAUSS.replace("n = 4", "n = 5000") + CLIPPED, "--max-work"),
    "huge Markov n": (RUN + MARKOV.replace("n = 4", "n = 1000000") + COUNT, "--max-memory-gib"),
    "10^9 adversaries": (
        RUN.replace("adversaries = 6", "adversaries = 1000000000") + MARKOV + COUNT,
        "run.adversaries",
    ),
    "10^12 Gaussian samples": (
        RUN.replace("samples = 1000", "samples = 1000000000000") + GAUSS + CLIPPED,
        "run.samples",
    ),
    "10^9 kde samples": (
        RUN.replace("samples = 1000", "samples = 1000000000").replace('"mixture"', '"kde"') + MARKOV + COUNT,
        "--max-memory-gib",
    ),
    "1e9-member family": (
        RUN
        + '[model]\nkind = "pedigree"\nfamily = "nuclear"\nsize = 1000000000\n'
        + COUNT.replace("[1]", '["BB"]'),
        "model.size",
    ),
}


MECH = """
import numpy as np

def ok(data, rng):
    return (data == 1).sum(axis=1) + rng.laplace(0.0, 1.0, size=data.shape[0])

def nan(data, rng):
    return np.full(data.shape[0], np.nan)

def big(data, rng):
    if data.shape[0] > 100:
        raise RuntimeError("too big")
    return ok(data, rng)
"""


def python_config(tmp_path, func: str) -> Path:
    return toml(
        tmp_path,
        RUN.replace('"mixture"', '"kde"')
        + "exact_reference = false\n"
        + MARKOV
        + f'[mechanism]\nkind = "python"\nfunction = "{func}"\n',
    )
