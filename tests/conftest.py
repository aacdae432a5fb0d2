import os
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture
def rng():
    return np.random.default_rng(20261121)


def write_toml(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@pytest.fixture
def cli_env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


PY = sys.executable
ROOT = ROOT
