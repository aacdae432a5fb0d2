"""Exact Laplace-mixture supremum against dense numerical maxima."""

import numpy as np
import pytest
from scipy.special import logsumexp

from bdpsim.estimators import grid_mixture_sup, mixture_sup
from bdpsim.kernels.noise.laplace_mixture import log_mixture_pdf


def dense_log_pdf(y, atoms, w, b):
    w = np.asarray(w, float) / np.sum(w)
    return logsumexp(np.log(w)[None, :] - np.abs(y[:, None] - atoms[None, :]) / b, axis=1) - np.log(2 * b)


@pytest.mark.parametrize("seed", range(12))
def test_sup_equals_dense_maximum(seed):
    rng = np.random.default_rng(seed)
    b = rng.uniform(0.2, 2.0)
    a1 = rng.uniform(0, 6, rng.integers(1, 15))
    a2 = rng.uniform(0, 6, rng.integers(1, 15))
    w1, w2 = rng.random(a1.size), rng.random(a2.size)
    res = mixture_sup(a1, w1, a2, w2, b)
    # dense grid reaching past every atom: beyond them the ratio is constant (= the tail limit)
    y = np.concatenate([np.linspace(-40 * b - 1, 6 + 40 * b, 200_001), a1, a2])
    d = dense_log_pdf(y, a1, w1, b) - dense_log_pdf(y, a2, w2, b)
    assert res.forward == pytest.approx(d.max(), abs=1e-9)
    assert res.backward == pytest.approx(-d.min(), abs=1e-9)
    assert res.value == pytest.approx(np.abs(d).max(), abs=1e-9)


def test_log_pdf_matches_direct_sum(rng):
    atoms = np.sort(rng.normal(0, 50, 500))
    w = rng.random(500)
    y = rng.normal(0, 60, 300)
    lw = np.log(w / w.sum())
    got = log_mixture_pdf(y, atoms, lw, 0.7, centre=float(np.median(atoms)))
    assert np.allclose(got, dense_log_pdf(y, atoms, w, 0.7), atol=1e-9)


def test_shifted_laplace_is_tail_value():
    # single atoms 0 and d: sup |ln ratio| = d / b, reached in both tails
    res = mixture_sup([0.0], [1.0], [3.0], [1.0], 2.0)
    assert res.value == pytest.approx(1.5, abs=1e-12)
    assert np.isinf(res.argmax) or res.argmax in (0.0, 3.0)


def test_grid_version_equals_general(rng):
    atoms = np.arange(8.0)
    W1 = rng.dirichlet(np.ones(8), size=20)
    W2 = rng.dirichlet(np.ones(8), size=20)
    W2[3, 5] = 0.0
    W2[3] /= W2[3].sum()
    with np.errstate(divide="ignore"):
        v, _ = grid_mixture_sup(np.log(W1), np.log(W2), atoms, 0.6)
    for k in range(20):
        assert v[k] == pytest.approx(mixture_sup(atoms, W1[k], atoms, W2[k], 0.6).value, abs=1e-10)


@pytest.mark.parametrize(
    "bad",
    [
        lambda: mixture_sup([0.0], [1.0], [1.0], [1.0], 0.0),
        lambda: mixture_sup([0.0], [-1.0], [1.0], [1.0], 1.0),
        lambda: mixture_sup([], [], [1.0], [1.0], 1.0),
        lambda: mixture_sup([np.nan], [1.0], [1.0], [1.0], 1.0),
    ],
)
def test_bad_inputs(bad):
    with pytest.raises(ValueError):
        bad()
