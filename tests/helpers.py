"""Brute-force references shared by the tests."""

import itertools
import math
import warnings

import numpy as np
from scipy.integrate import IntegrationWarning, quad


def markov_joint(model):
    """All s^n tuples and their probabilities."""
    P, w, n, s = model.transition, model.initial, model.n, model.states
    tuples = np.array(list(itertools.product(range(s), repeat=n)))
    prob = w[tuples[:, 0]].copy()
    for t in range(1, n):
        prob *= P[tuples[:, t - 1], tuples[:, t]]
    return tuples, prob


def brute_count_law(model, known: dict, counted):
    tuples, prob = markov_joint(model)
    ok = np.ones(len(tuples), bool)
    for k, v in known.items():
        ok &= tuples[:, k] == v
    c = np.isin(tuples, counted).sum(1)
    law = np.bincount(c[ok], weights=prob[ok], minlength=model.n + 1)
    return law / law.sum()


def brute_marginals(model, known: dict):
    tuples, prob = markov_joint(model)
    ok = np.ones(len(tuples), bool)
    for k, v in known.items():
        ok &= tuples[:, k] == v
    out = np.zeros((model.n, model.states))
    for t in range(model.n):
        out[t] = np.bincount(tuples[ok, t], weights=prob[ok], minlength=model.states)
    return out / out.sum(1, keepdims=True)


def script_path(name: str):
    """The one ``scripts/<folder>/<name>.py`` (the scripts sit in folders by purpose; the modules
    they share at ``scripts/``)."""
    from .conftest import ROOT

    found = [*(ROOT / "scripts").glob(f"{name}.py"), *(ROOT / "scripts").glob(f"*/{name}.py")]
    (path,) = [p for p in found if not p.is_symlink()]
    return path


def load_script(name: str):
    """The script ``name`` (:func:`script_path`) as a module (scripts are not a package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, script_path(name))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def every_binary_adversary(n: int):
    """Every adversary ``(i, K, x_K, 0, 1)`` of a binary chain of ``n`` records (for brute force)."""
    from bdpsim.adversary import Adversary

    for i in range(n):
        others = [j for j in range(n) if j != i]
        for k in range(n):
            for K in itertools.combinations(others, k):
                for xk in itertools.product(range(2), repeat=k):
                    yield Adversary(i, K, xk, 0, 1)


def local_release_laws(P, pi, L, T, t, known, a, b) -> tuple[np.ndarray, np.ndarray]:
    """By brute force over every state path and output sequence, the laws ``P(r | x_t = a, x_K)``
    and ``P(r | x_t = b, x_K)`` of the local release of every step of a chain (``L[j, x] = P(r =
    j | x)``, transition ``P``, start law ``pi``, ``T`` steps, ``known = {s: x_s}``), flattened."""
    k, m = L.shape[1], L.shape[0]

    def law(x):
        tot = np.zeros([m] * T)
        for path in itertools.product(range(k), repeat=T):
            if path[t] != x or any(path[s] != v for s, v in known.items()):
                continue
            p = pi[path[0]] * np.prod([P[path[i], path[i + 1]] for i in range(T - 1)])
            arr = np.array(1.0)
            for i in range(T):
                arr = np.multiply.outer(arr, L[:, path[i]])
            tot = tot + p * arr
        return (tot / tot.sum()).ravel()

    return law(a), law(b)


def local_release_loss(P, pi, L, T, t, known, a, b) -> float:
    """``max_r ln P(r | x_t = a, x_K) / P(r | x_t = b, x_K)`` (:func:`local_release_laws`)."""
    p, q = local_release_laws(P, pi, L, T, t, known, a, b)
    return float(np.max(np.log(p) - np.log(q)))


def np_tpr(p: np.ndarray, q: np.ndarray, a: float) -> float:
    """The most powerful test of ``p`` against ``q`` at false-positive rate ``a`` (Neyman-Pearson:
    outputs by decreasing ``p / q``, the last one randomised)."""
    with np.errstate(divide="ignore"):
        order = np.argsort(-(np.log(p) - np.log(q)), kind="stable")
    tpr, fpr = 0.0, 0.0
    for j in order:
        take = min(1.0, (a - fpr) / q[j]) if q[j] > 0 else 1.0
        tpr, fpr = tpr + take * p[j], fpr + take * q[j]
        if fpr >= a - 1e-15:
            break
    return tpr


def laplace_space_hockey(atoms, w1, w2, b, eps, tol=1e-9):
    """``∫∫∫ (p - e^eps q)^+`` of two mixtures of product ``Lap(b)^3`` laws on atoms ``(J, 3)``,
    independently of the boxes: for each ``(y0, y1)`` the ``y2`` integral in closed form
    (:func:`line_positive`), ``y1`` then ``y0`` by adaptive quadrature between the atoms'
    coordinates (tails cut at 40 b: mass below 1e-17). Returns the value and the sum of the outer
    quadrature's error estimates (each inner one asked to ``tol / 100``)."""
    A = atoms.astype(float)
    w1, w2, k = w1 / w1.sum(), w2 / w2.sum(), math.exp(eps)
    c0 = (w1 - k * w2) / (2 * b) ** 3

    def cuts(x):
        xs = np.unique(x)
        return [xs[0] - 40 * b, *xs, xs[-1] + 40 * b]

    c1 = cuts(A[:, 1])

    def over_y1(y0):
        c = c0 * np.exp(-np.abs(y0 - A[:, 0]) / b)

        def f(y1):
            return line_positive(A[:, 2], c * np.exp(-np.abs(y1 - A[:, 1]) / b), b)

        return sum(
            quad(f, lo, hi, epsabs=tol / 100, epsrel=tol, limit=100)[0] for lo, hi in zip(c1[:-1], c1[1:])
        )

    c0s = cuts(A[:, 0])
    with warnings.catch_warnings():  # kinks of the inner integrand slow quad down; its answer stands
        warnings.simplefilter("ignore", IntegrationWarning)
        parts = [
            quad(over_y1, lo, hi, epsabs=tol, epsrel=tol, limit=100) for lo, hi in zip(c0s[:-1], c0s[1:])
        ]
    return sum(v for v, _ in parts), sum(e for _, e in parts)


def line_positive(a, c, b):
    """``∫ (sum_j c_j e^{-|y - a_j| / b})^+ dy`` in closed form: between consecutive atoms the sum
    is ``P e^{y/b} + M e^{-y/b}`` (one root at most)."""
    edges = np.concatenate([[-np.inf], np.unique(a), [np.inf]])
    tot = 0.0
    for lo, hi in zip(edges[:-1], edges[1:]):
        left = a <= lo  # atoms left of the piece
        P = float(np.sum(np.where(~left, c * np.exp(-a / b), 0.0)))
        M = float(np.sum(np.where(left, c * np.exp(a / b), 0.0)))

        def F(y, P=P, M=M):
            return 0.0 if math.isinf(y) else b * P * math.exp(y / b) - b * M * math.exp(-y / b)

        pts = [lo, hi]
        if P * M < 0:
            r = 0.5 * b * math.log(-M / P)
            pts = [lo, r, hi] if lo < r < hi else pts
        for u, z in zip(pts[:-1], pts[1:]):
            mid = 0.5 * (u + z) if math.isfinite(u + z) else (z - 1 if math.isfinite(z) else u + 1)
            if P * math.exp(mid / b) + M * math.exp(-mid / b) > 0:
                tot += F(z) - F(u)
    return tot


def laplace_plane_hockey(atoms, w1, w2, b, eps):
    """``∫∫ (p - e^eps q)^+`` of two mixtures of product ``Lap(b)^2`` laws on atoms ``(J, 2)``,
    independently of the boxes: for each ``y0`` the ``y1`` integral in closed form
    (:func:`line_positive`), then ``y0`` by adaptive quadrature between the atoms' first
    coordinates (tails cut at 40 b: mass below 1e-17)."""
    A0, A1 = atoms[:, 0].astype(float), atoms[:, 1].astype(float)
    w1, w2, k = w1 / w1.sum(), w2 / w2.sum(), math.exp(eps)

    def inner(y0):
        return line_positive(A1, (w1 - k * w2) * np.exp(-np.abs(y0 - A0) / b) / (4 * b * b), b)

    xs = np.unique(A0)
    cuts = [xs[0] - 40 * b, *xs, xs[-1] + 40 * b]
    return sum(
        quad(inner, lo, hi, epsabs=1e-13, epsrel=1e-11, limit=100)[0] for lo, hi in zip(cuts[:-1], cuts[1:])
    )
