"""The subprocess CLI's one-line error check (``one_line``), config texts and the user mechanisms
that end their process, shared by the tests of bad input: each probe gets one line naming the
field, the value and the rule, exit code 2 (130 for Ctrl-C), no traceback, nothing written."""

import uuid

from ..conftest import write_toml

RUN = '[run]\nseed = 3\nadversaries = 4\nsamples = 1000\nestimator = "mixture"\nnoise_floor_adversaries = 0\n'
#: the audit's run table: its budget sets its calls (no samples), it has no noise floor
RUN_AUDIT = '[run]\nseed = 3\nadversaries = 4\nestimator = "audit"\n'


MARKOV = '[model]\nkind = "markov"\nn = 4\ngamma = 2.0\n'


COUNT = '[mechanism]\nkind = "count"\nepsilon = 1.0\ncounted_states = [1]\n'

#: an exact run and a count with its default counted state, for the probes of a config's other tables
RUN_EXACT = '[run]\nseed = 3\nadversaries = 4\nestimator = "exact"\n'
COUNT_DEFAULT = '[mechanism]\nkind = "count"\nepsilon = 1.0\n'


def one_line(p, *words, code=2):
    assert p.returncode == code, p
    assert p.stderr.startswith("bdpsim: ") and p.stderr.count("\n") == 1 and "Traceback" not in p.stderr, (
        p.stderr
    )
    for w in words:
        assert w in p.stderr, p.stderr


# ------------------------------------------------------------------ user mechanisms that end their process
MECHANISMS = """
import os, sys, signal, multiprocessing
import numpy as np

def _ok(data, rng):
    return (data == 1).sum(axis=1) + rng.laplace(0.0, 1.0, size=data.shape[0])

def sys_exit_0(data, rng):
    sys.exit(0)

def sys_exit_7(data, rng):
    sys.exit(7)

def os_exit_0(data, rng):
    os._exit(0)

def complex_out(data, rng):
    return _ok(data, rng) + 1j

def kill_in_worker(data, rng):  # runs in bdpsim's process for the config check, dies in a worker
    if multiprocessing.parent_process() is not None or "dask" in sys.modules and _in_dask_worker():
        os.kill(os.getpid(), signal.SIGKILL)
    return _ok(data, rng)

def _in_dask_worker():
    try:
        from distributed import get_worker
        get_worker()
        return True
    except Exception:
        return False
"""


def _user_config(tmp_path, body: str, function: str, **run) -> tuple:
    """A config using ``function`` of a fresh module (unique name: no import cache between tests)."""
    mod = f"hostile_mech_{uuid.uuid4().hex[:10]}"
    (tmp_path / f"{mod}.py").write_text(body)
    extra = "".join(f"{k} = {v}\n" for k, v in run.items())
    text = (
        RUN.replace('"mixture"', '"kde"')
        + extra
        + MARKOV
        + f'[mechanism]\nkind = "python"\nfunction = "{mod}:{function}"\n'
    )
    return write_toml(tmp_path / "c.toml", text), tmp_path / "o"
