"""``bdpsim.fit_chain``: a Markov chain fitted to a user's time series, on the activity data's
layout (``tests/data/activity.zip``: 61 days x 288 five-minute readings, eight days missing,
generated from the two-state chain ``P = [[0.882, 0.118], [0.305, 0.695]]`` that paper §7.1.2 fits
to the real file), against an independent count of the transitions."""

from __future__ import annotations

import math

import numpy as np
import pytest

import bdpsim
from bdpsim.core.errors import ConfigError
from bdpsim.utility.datasets import load_activity
from bdpsim.utility.fitting import fit_markov

from ..conftest import ROOT

GENERATING = np.array([[0.882, 0.118], [0.305, 0.695]])


@pytest.fixture(scope="module")
def active():
    """Active (steps > 0) per reading, NaN where the file says NA."""
    steps = load_activity(ROOT / "tests" / "data" / "activity.zip")["steps"]
    return np.where(np.isnan(steps), np.nan, (steps > 0).astype(float))


def _count(runs) -> np.ndarray:
    """The transitions between consecutive present readings, one pair at a time."""
    C = np.zeros((2, 2))
    for run in runs:
        for a, b in zip(run[:-1], run[1:], strict=True):
            if not (math.isnan(a) or math.isnan(b)):
                C[int(a), int(b)] += 1
    return C


def test_the_activity_series_fits_the_chain_that_generated_it(active):
    chain = bdpsim.fit_chain(active)
    C = _count([active])
    assert np.array_equal(chain.transition, C / C.sum(axis=1, keepdims=True))
    assert chain.n == 53 * 288 == int(np.isfinite(active).sum())  # the eight NA days dropped
    se = np.sqrt(GENERATING * (1 - GENERATING) / C.sum(axis=1, keepdims=True))
    assert np.all(np.abs(chain.transition - GENERATING) <= 5 * se), (chain.transition, se)
    assert np.array_equal(chain.transition, np.array(fit_markov([active])["transition"]))  # one count
    day = bdpsim.MarkovChainModel(chain.transition, 288)  # one day of it, as tutorial 1 asks
    assert (
        1.0
        < bdpsim.exact_bdpl(day, bdpsim.LaplaceCount(1.0)).bdpl
        < bdpsim.markov_bound(1.0, chain.transition).value
    )


def test_a_missing_reading_breaks_the_chain_and_days_are_runs(active):
    """No transition into or out of a missing reading is counted (NaN, None or pandas' NA), and
    with one run per day none from one day to the next."""
    pd = pytest.importorskip("pandas")
    for gap in (math.nan, None, pd.NA):
        chain = bdpsim.fit_chain([0, 1, gap, 1, 0, 0, 1])  # 0->1, 1->0, 0->0, 0->1 (not 1->?, ?->1)
        assert np.allclose(chain.transition, [[1 / 3, 2 / 3], [1, 0]]) and chain.n == 6
    nullable = pd.Series([0, 1, pd.NA, 1, 0, 0, 1], dtype="Int64")
    assert np.allclose(bdpsim.fit_chain(nullable).transition, [[1 / 3, 2 / 3], [1, 0]])
    days = active.reshape(61, 288)
    by_day = bdpsim.fit_chain(days)
    C = _count(days)
    assert np.array_equal(by_day.transition, C / C.sum(axis=1, keepdims=True))
    across = np.isfinite(days[:-1, -1]) & np.isfinite(days[1:, 0])  # day boundaries, both sides present
    assert C.sum() == _count([active]).sum() - across.sum() and across.sum() > 40
    assert by_day.n == bdpsim.fit_chain(list(days)).n == 53 * 288


@pytest.mark.parametrize(
    ("series", "kw", "line"),
    [
        ([0, 1.5, 1], {}, "series = 1.5: readings must be state numbers 0..k-1"),
        ([0, "x", 1], {}, "series = 'x': readings must be state numbers 0..k-1, or missing (NaN)"),
        ([0, 0, 0], {}, "series = 'state 1': is never left in the data"),
        ([0, 1, 2, 0], {"states": 2}, "series = 2.0: a state past states - 1 = 1"),
        ([[0], [1]], {}, "series = '2 readings': needs two consecutive readings present"),
        ([0, 1, 0], {"states": 1}, "states = 1: must be an integer >= 2"),
        ([0, 1, 0], {"n": 0}, "n = 0: must be an integer >= 1"),
    ],
)
def test_a_series_that_fits_no_chain_is_one_line(series, kw, line):
    with pytest.raises(ConfigError) as err:
        bdpsim.fit_chain(series, **kw)
    assert str(err.value).startswith(line) and "\n" not in str(err.value)
