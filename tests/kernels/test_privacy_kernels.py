"""The accountant's numerics (bdpsim.kernels.privacy) against closed forms and brute force."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import integrate
from scipy.stats import norm

from bdpsim.kernels.argcheck import ParameterError, TooExpensive
from bdpsim.kernels.noise.laws import GaussianNoise, GeometricNoise, LaplaceNoise
from bdpsim.kernels.privacy import divergences as D
from bdpsim.kernels.privacy import gaussian as G
from bdpsim.kernels.privacy import joint as J
from bdpsim.kernels.privacy import mixture as MX
from bdpsim.kernels.privacy.pld import LossBracket, PrivacyLoss

from ..helpers import laplace_plane_hockey, laplace_space_hockey

ATOMS = np.arange(5.0)
W1 = np.array([0.1, 0.2, 0.3, 0.2, 0.2])
W2 = np.array([0.3, 0.3, 0.2, 0.1, 0.1])


# ---------------------------------------------------------------- Gaussian closed form
@pytest.mark.parametrize("mu,eps", [(0.5, 0.0), (1.0, 0.5), (2.0, 1.0), (3.0, 4.0)])
def test_gaussian_delta_is_the_hockey_stick_integral(mu, eps):
    f = lambda y: max(0.0, norm.pdf(y, mu) - math.exp(eps) * norm.pdf(y))  # noqa: E731
    num, _ = integrate.quad(f, -30, 30, points=[mu / 2 + eps / mu], epsabs=1e-13, limit=200)
    assert G.gaussian_delta(mu, eps) == pytest.approx(num, abs=1e-9)


def test_gaussian_mu_renyi_beta_epsilon():
    C = np.array([[2.0, 0.5], [0.5, 1.0]])
    d = np.array([1.0, -0.5])
    assert G.gaussian_mu(d, C) == pytest.approx(math.sqrt(d @ np.linalg.solve(C, d)), rel=1e-14)
    assert G.gaussian_renyi(1.5, 3.0) == pytest.approx(3.375)
    assert G.gaussian_renyi(1.5, math.inf) == math.inf and G.gaussian_renyi(0.0, math.inf) == 0.0
    assert G.gaussian_beta(1.0, 0.05) == pytest.approx(norm.cdf(norm.ppf(0.95) - 1.0))
    e = G.gaussian_epsilon(1.0, 1e-3)
    assert G.gaussian_delta(1.0, e) == pytest.approx(1e-3, rel=1e-9)
    assert e == pytest.approx(3.138671, abs=1e-6)  # pinned (delta(e) = 1e-3 checked above)
    with pytest.raises(ParameterError, match="alpha"):
        G.gaussian_renyi(1.0, 1.0)


# ---------------------------------------------------------------- finite laws
def test_finite_divergences_by_hand():
    p, q = np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.3, 0.5])
    assert D.hockey_stick(p, q, 0.0) == pytest.approx(0.3)
    assert D.hockey_stick(p, q, math.log(2)) == pytest.approx(0.1)
    assert D.renyi(p, q, 2.0) == pytest.approx(math.log(0.25 / 0.2 + 0.09 / 0.3 + 0.04 / 0.5))
    assert D.renyi(p, q, math.inf) == pytest.approx(math.log(2.5))
    assert D.renyi(np.array([0.5, 0.5]), np.array([1.0, 0.0]), 2.0) == math.inf
    assert D.invert_profile(lambda e: D.hockey_stick(p, q, e), 0.1, 2.0) == pytest.approx(
        math.log(2), abs=1e-9
    )


def _profiles(p, q, grid):
    return (
        np.array([D.hockey_stick(p, q, e) for e in grid]),
        np.array([D.hockey_stick(q, p, e) for e in grid]),
    )


@pytest.mark.parametrize("alpha", [1.5, 2.0, 5.0])
def test_renyi_from_profile_brackets_the_renyi_divergence(alpha):
    """The hockey-stick representation of D_alpha: random finite laws, the exact profiles on grids
    up to the larger log-ratio; lower <= exact <= upper (both orders), the chords in e^eps (the
    profile is convex there) tighter than the left ends, and the gap shrinking with the cell."""
    rng = np.random.default_rng(4)
    for _ in range(5):
        p, q = rng.dirichlet(np.ones(6)), rng.dirichlet(np.ones(6))
        top = max(D.max_log_ratio(p, q), D.max_log_ratio(q, p)) * (1 + 1e-12)
        gaps = []
        for cells in (10, 40):
            grid = np.linspace(0.0, top, cells + 1)
            f, b = _profiles(p, q, grid)
            exact = D.renyi(p, q, alpha)
            lo = D.renyi_from_profile(alpha, grid, f, b, "lower")
            up = D.renyi_from_profile(alpha, grid, f, b, "upper")
            chord = D.renyi_from_profile(alpha, grid, f, b, "upper", chord=16)
            assert lo <= exact + 1e-12 and exact <= chord + 1e-12 and chord <= up + 1e-12
            assert D.renyi_from_profile(alpha, grid, b, f, "lower") <= D.renyi(q, p, alpha) + 1e-12
            gaps.append(chord - lo)
        assert gaps[1] < gaps[0] / 3


@pytest.mark.parametrize("alpha", [250.0, 2000.0])
def test_renyi_from_profile_of_a_large_order_is_finite_and_holds(alpha):
    """Orders whose weights ``e^{(alpha - 1) eps}`` overflow on the grid (``alpha L > 709``; the
    profile vanishes before the grid's end, at a loose upper end of the BDPL): computed in logs,
    finite, and around the exact value (the first version gave NaN or the grid's end)."""
    e0 = 3.0
    p1 = math.exp(e0) / (1 + math.exp(e0))
    p, q = np.array([p1, 1 - p1]), np.array([1 - p1, p1])
    grid = np.linspace(0.0, 12.7, 400)
    f, b = _profiles(p, q, grid)
    lo = D.renyi_from_profile(alpha, grid, f, b, "lower")
    up = D.renyi_from_profile(alpha, grid, f, b, "upper", chord=16)
    assert math.isfinite(lo) and math.isfinite(up)
    assert lo <= D.renyi(p, q, alpha) <= up < e0 + 0.03


def test_renyi_from_profile_pinned_and_refusals():
    """Randomized response of eps0 = 1 (p = (e, 1) / (1 + e), q reversed: D_2 = ln((p1^2/q1 + ...)))
    on a grid of four cells: pinned ends around the exact value; bad arguments named."""
    e1 = math.e / (1 + math.e)
    p, q = np.array([e1, 1 - e1]), np.array([1 - e1, e1])
    grid = np.linspace(0.0, 1.0, 5)
    f, b = _profiles(p, q, grid)
    exact = D.renyi(p, q, 2.0)
    assert exact == pytest.approx(math.log(e1**2 / (1 - e1) + (1 - e1) ** 2 / e1), abs=1e-15)
    lo = D.renyi_from_profile(2.0, grid, f, b, "lower")
    up = D.renyi_from_profile(2.0, grid, f, b, "upper", chord=16)
    assert lo < exact < up
    assert (lo, up) == pytest.approx((0.6011429, 0.7429742), abs=1e-7)
    for kwargs, name in (
        ({"alpha": 1.0}, "alpha"),
        ({"alpha": math.inf}, "alpha"),
        ({"alpha": 1e308}, "alpha"),
        ({"end": "middle"}, "end"),
        ({"grid": grid + 0.1}, "grid"),
        ({"grid": grid[::-1]}, "grid"),
        ({"forward": f[:-1]}, "forward"),
    ):
        args = {"alpha": 2.0, "grid": grid, "forward": f, "backward": b, "end": "upper", **kwargs}
        with pytest.raises(ParameterError, match=f"^{name} = "):
            D.renyi_from_profile(**args)


# ---------------------------------------------------------------- privacy-loss distributions
def test_pld_composition_brackets_the_product_pair():
    p, q = np.array([0.6, 0.3, 0.1]), np.array([0.2, 0.3, 0.5])
    k = 4
    P = np.ones(1)
    Q = np.ones(1)
    for _ in range(k):  # the exact product laws by brute force
        P, Q = np.outer(P, p).ravel(), np.outer(Q, q).ravel()
    br = LossBracket.from_losses(np.log(p / q), p, 1e-3).self_compose(k)
    for eps in (0.0, 0.5, 1.0, 2.0):
        lo, hi = br.delta(eps)
        exact = D.hockey_stick(P, Q, eps)
        assert lo <= exact + 1e-12 and exact <= hi + 1e-12 and hi - lo < 5e-3
    lo, hi = br.renyi(2.0)
    assert lo <= D.renyi(P, Q, 2.0) <= hi
    assert br.upper.bdpl == pytest.approx(k * math.log(3), abs=k * 1e-3)


def test_pld_infinity_mass_and_epsilon():
    pl = PrivacyLoss.from_losses([0.5, math.inf], [0.9, 0.1], 0.01, True)
    assert pl.inf_mass == pytest.approx(0.1)
    assert pl.epsilon(0.05) == math.inf
    assert pl.delta(10.0) == pytest.approx(0.1)
    assert pl.renyi(2.0) == math.inf


# ---------------------------------------------------------------- lattice mixtures
@pytest.mark.parametrize("noise", [LaplaceNoise(1.0), GaussianNoise(1.0), GeometricNoise(1.0)])
def test_loss_cells_bracket_the_exact_profile(noise):
    cells = MX.loss_cells(noise, ATOMS, W1, W2)
    br = LossBracket.from_cells(cells.mass, cells.lower, cells.upper, 1e-3, cells.inf_mass)
    for eps in (0.0, 0.3, 0.6):
        lo, hi = br.delta(eps)
        exact = noise.hockey_stick(ATOMS, W1, ATOMS, W2, eps)
        assert lo - 1e-12 <= exact <= hi + 1e-12
        assert hi - lo < 3e-3
    sup = noise.sup_log_ratio(ATOMS, W1, ATOMS, W2).forward
    assert br.lower.bdpl - 1e-3 <= sup <= br.upper.bdpl + 1e-12


def test_gaussian_cells_renyi_of_a_shift():
    cells = MX.gaussian_cells(1.0, [0.0, 1.0], [1.0, 0.0], [0.0, 1.0], per_sigma=256)
    lo, hi = MX.cells_renyi(cells, 3.0)
    assert lo <= 1.5 <= hi and hi - lo < 5e-3


def test_geometric_cells_renyi_is_exact():
    """Geometric noise: each output a cell, the tails' loss constant: the Rényi divergence is exact
    (brute force over a wide window of outputs)."""
    g = GeometricNoise(0.7)
    cells = MX.lattice_cells(g, ATOMS, W1, W2)
    y = np.arange(-200, 205)
    k = np.exp(g.log_density(y[:, None] - ATOMS[None, :]))
    p, q = k @ W1, k @ W2
    lo, hi = MX.cells_renyi(cells, 2.5)
    assert lo == pytest.approx(D.renyi(p, q, 2.5), abs=1e-12) and hi == pytest.approx(lo, abs=1e-15)


# ---------------------------------------------------------------- joint laws of releases
def test_lattice_joint_is_the_brute_force_sum():
    g1, g2 = GeometricNoise(1.2), GeometricNoise(0.9)
    jl = J.lattice_joint(ATOMS[:3], W1[:3], W2[:3], [g1, g2])
    assert jl.outside < 1e-13
    w1, w2 = W1[:3] / W1[:3].sum(), W2[:3] / W2[:3].sum()
    # brute force: every pair of outputs in a wide box
    ys = range(-60, 63)
    p = {}
    for y1, y2 in itertools.product(ys, ys):
        k = np.exp(g1.log_density(y1 - ATOMS[:3]) + g2.log_density(y2 - ATOMS[:3]))
        p[(y1, y2)] = (float(k @ w1), float(k @ w2))
    P = np.array([v[0] for v in p.values()])
    Q = np.array([v[1] for v in p.values()])
    for eps in (0.0, 0.4, 1.0):
        assert D.hockey_stick(jl.p, jl.q, eps) == pytest.approx(D.hockey_stick(P, Q, eps), abs=1e-13)
    assert D.max_log_ratio(jl.p, jl.q) == pytest.approx(D.max_log_ratio(P, Q), abs=1e-12)


def test_lattice_joint_refuses_a_huge_enumeration_up_front():
    g = GeometricNoise(0.1)
    with pytest.raises(TooExpensive, match="cells x atoms"):
        J.lattice_joint(ATOMS, W1, W2, [g] * 6)


def test_gaussian_releases_reduce_to_one():
    """Point-mass query laws: the joint of Gaussian releases is a Gaussian shift with
    ``mu = |shift| / sigma_eff``."""
    s = J.effective_sigma([1.0, 2.0, 2.0])
    assert s == pytest.approx(1 / math.sqrt(1.5))
    rng = np.random.default_rng(3)
    mc = J.mc_profile(
        [0.0, 1.0], [1.0, 0.0], [0.0, 1.0], [GaussianNoise(v) for v in (1.0, 2.0, 2.0)], [0.5], 40_000, rng
    )
    exact = G.gaussian_delta(1 / s, 0.5)
    assert mc.lower[0] <= exact <= mc.upper[0]


def test_monte_carlo_interval_covers():
    """Coverage of the empirical Bernstein interval: 40 seeds, 95 % nominal, against the exact
    joint (enumeration); at least 37 must cover (binomial 40 x 0.95: P(< 37) = 0.14 under the
    nominal level, and the bound is conservative)."""
    g = GeometricNoise(1.0)
    jl = J.lattice_joint(ATOMS[:3], W1[:3], W2[:3], [g, g])
    exact = max(D.hockey_stick(jl.p, jl.q, 0.2), D.hockey_stick(jl.q, jl.p, 0.2))
    cover = 0
    for seed in range(40):
        mc = J.mc_profile(ATOMS[:3], W1[:3], W2[:3], [g, g], [0.2], 2000, np.random.default_rng(seed))
        cover += bool(mc.lower[0] <= exact <= mc.upper[0])
        assert mc.loss_max <= max(D.max_log_ratio(jl.p, jl.q), D.max_log_ratio(jl.q, jl.p)) + 1e-12
    assert cover >= 37


@pytest.mark.parametrize(
    "b, eps, diagonal", [(2.0, 0.0, False), (1.0, 0.5, True), (0.5, 1.0, False), (4.0, 0.2, True)]
)
def test_laplace_boxes_bracket_the_plane_integral(b, eps, diagonal):
    """The box bracket of two product-Laplace mixtures holds the independent plane integral
    (quadrature error ~1e-12, far below the bracket's width 1e-6) in both orders, on the atoms of
    a two-state histogram ``(n - N, N)`` and of two releases of one count ``(N, N)``."""
    from bdpsim.kernels.privacy.boxes import laplace_boxes_hockey

    rng = np.random.default_rng(int(10 * b + eps * 7))
    N = np.arange(5)
    atoms = np.stack([N, N], 1) if diagonal else np.stack([4 - N, N], 1)
    w1, w2 = rng.random(5), rng.random(5)
    for p, q in ((w1, w2), (w2, w1)):
        br = laplace_boxes_hockey(atoms, p, q, b, eps)
        want = laplace_plane_hockey(atoms, p, q, b, eps)
        assert br.lower - 1e-10 <= want <= br.upper + 1e-10
        assert br.upper - br.lower <= 1e-6


def test_laplace_boxes_of_space_reduce_to_the_plane_and_the_line():
    """Three Laplace releases whose third query value is the same under every atom: the box bracket
    of R^3 holds the plane integral of the first two (the third factor integrates to 1); two
    constant coordinates: the one-release hockey-stick of the Laplace law (closed form), both
    orders, with a small work budget too (the bracket is certified at every step, only wider)."""
    from bdpsim.kernels.privacy.boxes import laplace_boxes_hockey

    rng = np.random.default_rng(7)
    N = np.arange(4.0)
    w1, w2 = rng.random(4), rng.random(4)
    plane = np.stack([3 - N, N, np.full(4, 2.0)], 1)
    line = np.stack([N, np.ones(4), np.full(4, 5.0)], 1)
    for p, q in ((w1, w2), (w2, w1)):
        want = laplace_plane_hockey(plane[:, :2], p, q, 1.0, 0.4)
        for work in (2e5, None):
            br = laplace_boxes_hockey(plane, p, q, 1.0, 0.4, max_work=work)
            assert br.lower - 1e-10 <= want <= br.upper + 1e-10
        assert br.upper - br.lower <= 1e-5
        exact = LaplaceNoise(1.5).hockey_stick(N, p / p.sum(), N, q / q.sum(), 0.2)
        br = laplace_boxes_hockey(line, p, q, 1.5, 0.2, max_work=2e6)
        assert br.lower - 1e-12 <= exact <= br.upper + 1e-12
        assert br.upper - br.lower <= 1e-4


@pytest.mark.parametrize("eps, work", [(0.15, 2e6), (0.0, 2e5)])
def test_laplace_boxes_bracket_the_space_integral(eps, work):
    """The histogram of one record of three states (atoms e_0, e_1, e_2: three Laplace releases,
    boxes of R^3): the bracket holds the independent space integral (the y2 integral in closed
    form, y1 and y0 by adaptive quadrature asked to 1e-6: its outer error estimate plus 1e-8 for
    the inner ones, which it does not report — measured: the same integral asked to 1e-9 moves by
    5e-9)."""
    from bdpsim.kernels.privacy.boxes import laplace_boxes_hockey

    w1, w2 = np.array([0.6, 0.3, 0.1]), np.array([0.2, 0.3, 0.5])
    want, err = laplace_space_hockey(np.eye(3), w1, w2, 2.0, eps, tol=1e-6)
    br = laplace_boxes_hockey(np.eye(3), w1, w2, 2.0, eps, max_work=work)
    assert br.lower - err - 1e-8 <= want <= br.upper + err + 1e-8
    assert br.upper - br.lower <= 2e-3


@pytest.mark.slow
@pytest.mark.parametrize("eps", [0.0, 0.5])
def test_laplace_boxes_bracket_the_space_integral_of_a_three_state_histogram(eps):
    """The count vectors of three records of three states (ten atoms), random weights, both
    orders: the bracket holds the space integral to its quadrature error (~1e-11; 30-60 s)."""
    from bdpsim.kernels.privacy.boxes import laplace_boxes_hockey

    rng = np.random.default_rng(3)
    atoms = np.array([(a, c, 3 - a - c) for a in range(4) for c in range(4 - a)], dtype=float)
    w1, w2 = rng.random(10), rng.random(10)
    for p, q in ((w1, w2), (w2, w1)):
        want, err = laplace_space_hockey(atoms, p, q, 2.0, eps, tol=1e-9)
        br = laplace_boxes_hockey(atoms, p, q, 2.0, eps)
        assert br.lower - err - 1e-10 <= want <= br.upper + err + 1e-10
        assert br.upper - br.lower <= 2e-5


def test_laplace_boxes_too_many_atoms_refused_before_any_work():
    """The histogram of 40 records of three states (861 atoms, 42^3 cells): its first bracket alone
    needs ~7.0e8 kernel evaluations (11 per box and atom; limit 4e7), refused at once with that
    estimate in one line."""
    from bdpsim.kernels.privacy.boxes import laplace_boxes_hockey

    atoms = np.array([(a, c, 40 - a - c) for a in range(41) for c in range(41 - a)], dtype=float)
    w = np.ones(len(atoms))
    want = (
        r"^boxes = .*3 Laplace releases of 861 atoms \(74088 cells\).*"
        r"~7\.02e\+08 kernel evaluations \(limit 4e\+07\)"
    )
    with pytest.raises(TooExpensive, match=want) as err:
        laplace_boxes_hockey(atoms, w, w[::-1], 2.0, 0.5)
    assert "\n" not in str(err.value)
