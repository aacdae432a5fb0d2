"""A custom integer noise law given by a table: ``noise = "table"``.

The law lives on the integers. A table ``pmf`` of length ``m`` at ``offset = o`` gives
``P(o + t) = pmf[t]`` for ``t = 0..m-1``, continued by geometric tails of ratio ``r``::

    P(o - k)         = pmf[0]  * r^k      (k >= 1)
    P(o + m - 1 + k) = pmf[-1] * r^k      (k >= 1)

so the total mass is ``sum(pmf) + (pmf[0] + pmf[-1]) r / (1 - r) = 1`` (checked up front,
relative ``1e-9``). ``r = 0`` is a finite support. This is the shape the optimal noise of
:mod:`bdpsim.calibration.optimal` takes, and any user pmf fits it.

**Exact supremum of two mixtures.** Let ``p_h(s) = sum_j w_hj f(s - k_j)`` (``h = 1, 2``) over
integer atoms ``k_min <= k_j <= k_max``. For ``s <= k_min + o`` every ``s - k_j <= o`` lies in the
left tail (or at ``pmf[0]``), so ``f(s - k_j) = pmf[0] r^{o - s + k_j}`` and
``p_h(s) = pmf[0] r^{o - s} sum_j w_hj r^{k_j}``: the ratio ``p1/p2`` is the constant it takes at
``s = k_min + o``. Likewise for ``s >= k_max + o + m - 1`` it is the constant at that output. So
``sup_s ln p1(s)/p2(s)`` is a maximum over the finite window
``s in [k_min + o, k_max + o + m - 1]`` (outputs where both vanish are skipped; one vanishing
gives ``+inf``). ``p_h`` is computed there as a direct sum of non-negative terms (no FFT, no
cancellation) from the table extended by ``k_max - k_min`` tail terms each side. Atoms whose
positions differ by a non-integer never share an output: the mixtures split over such classes
(:func:`bdpsim.kernels.noise.exp_kernels.geometric_classes`), as for geometric noise. The privacy profile
``delta(eps) = sum_s (p1 - e^eps p2)^+`` is the window's sum plus two geometric series
(``p_h(s)`` is ``p_h`` at the window edge times ``r^{distance}`` beyond it).

Probabilities below ~1e-300 underflow to zero (as elsewhere in the exact engine); a row whose
window holds such a value with positive mass on the other side is computed in log space.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import numpy as np
from scipy.special import logsumexp

from ...core.files import LIMITS, FileRefused, read_text
from ...core.schema import Key
from ..argcheck import ParameterError, require
from . import exp_kernels as ek
from .checks import AtomKernelLaw, NoiseParams, check_sensitivity
from .traits import TABLE, LawTraits

SUM_RTOL = 1e-9
_TINY = 1e-290


def table_pmf_at(k, offset: int, pmf: np.ndarray, r: float) -> np.ndarray:
    """``P(Z = k)`` for integer ``k`` (array): the table and its geometric tails."""
    k = np.asarray(k, dtype=np.int64)
    m = pmf.size
    t = k - offset
    inside = (t >= 0) & (t < m)
    out = np.where(inside, pmf[np.clip(t, 0, m - 1)], 0.0)
    if r > 0:
        with np.errstate(under="ignore"):
            out = np.where(t < 0, pmf[0] * r ** np.maximum(-t, 0).astype(float), out)
            out = np.where(t >= m, pmf[-1] * r ** np.maximum(t - m + 1, 0).astype(float), out)
    return out


def _window(W: np.ndarray, ext: np.ndarray, span: int, width: int) -> np.ndarray:
    """``p(t) = sum_j W[:, j] ext[span + t - j]`` for ``t = 0..width-1``: a product with the Toeplitz
    matrix ``T[j, t] = ext[span + t - j]`` (sums of non-negative terms: no cancellation)."""
    T = np.lib.stride_tricks.sliding_window_view(ext, width)[span::-1][: W.shape[1]]
    return W @ T


def _log_window(W: np.ndarray, lext: np.ndarray, span: int, width: int) -> np.ndarray:
    """:func:`_window` in log space (one row at a time; for rows that underflow)."""
    out = np.empty((W.shape[0], width))
    t = np.arange(width)
    for b in range(W.shape[0]):
        nz = np.flatnonzero(W[b] > 0)
        terms = np.log(W[b, nz])[:, None] + lext[span + t[None, :] - nz[:, None]]
        out[b] = logsumexp(terms, axis=0)
    return out


def class_laws(
    W1: np.ndarray, W2: np.ndarray, k: np.ndarray, offset: int, pmf: np.ndarray, r: float
) -> tuple[np.ndarray, np.ndarray, int]:
    """Log output laws ``ln p_h(s)`` of two mixtures over integer atoms ``k`` (one class) on the
    window ``s = k_min + o .. k_max + o + m - 1`` (module docstring); returns ``(l1, l2, s0)``
    with ``s0 = k_min + o`` the window's first output."""
    kmin = int(k.min())
    span = int(k.max()) - kmin
    m = pmf.size
    D1 = np.zeros((W1.shape[0], span + 1))
    D2 = np.zeros_like(D1)
    np.add.at(D1.T, k - kmin, W1.T)  # D[:, k - kmin] += W, repeated atoms accumulated
    np.add.at(D2.T, k - kmin, W2.T)
    z = np.arange(offset - span, offset + m + span)
    ext = table_pmf_at(z, offset, pmf, r)
    width = span + m
    p = [_window(D, ext, span, width) for D in (D1, D2)]
    with np.errstate(divide="ignore"):
        lp = [np.log(v) for v in p]
    bad = np.zeros(0, dtype=int)
    if r > 0 and min(p[0].min(), p[1].min()) < _TINY:  # underflow, or exact zeros of the table?
        mid = (z >= offset) & (z < offset + m)
        epos = np.where(
            mid, table_pmf_at(z, offset, pmf, 0.0) > 0, np.where(z < offset, pmf[0] > 0, pmf[-1] > 0)
        )
        small = np.zeros(D1.shape[0], dtype=bool)
        for h, D in enumerate((D1, D2)):
            pos = _window((D > 0).astype(float), epos.astype(float), span, width) > 0  # exact: some term > 0
            small |= np.any(pos & (p[h] < _TINY), axis=1)
        bad = np.flatnonzero(small)
    if bad.size:
        with np.errstate(divide="ignore"):
            lext = np.log(pmf[0]) + np.log(r) * np.maximum(offset - z, 0)
            lext = np.where(z >= offset + m, np.log(pmf[-1]) + np.log(r) * (z - offset - m + 1), lext)
            mid = (z >= offset) & (z < offset + m)
            lext[mid] = np.log(pmf[z[mid] - offset])
        for h, D in enumerate((D1, D2)):
            lp[h][bad] = _log_window(D[bad], lext, span, width)
    return lp[0], lp[1], kmin + offset


def table_sup(W1: np.ndarray, W2: np.ndarray, c: np.ndarray, offset: int, pmf: np.ndarray, r: float):
    """Forward and backward ``sup_s ln p1/p2`` over every integer output (module docstring) for
    rows on atoms ``c``; returns ``(fwd, bwd, s_fwd, s_bwd)`` with the outputs attaining them
    (in the units of ``c``)."""
    B = W1.shape[0]
    fwd, bwd = np.full(B, -np.inf), np.full(B, -np.inf)
    sf, sb = np.zeros(B), np.zeros(B)
    for idx, k in ek.geometric_classes(c, 1.0):
        l1, l2, s0 = class_laws(W1[:, idx], W2[:, idx], k, offset, pmf, r)
        both = np.isneginf(l1) & np.isneginf(l2)
        with np.errstate(invalid="ignore"):
            d = l1 - l2
        df, db = np.where(both, -np.inf, d), np.where(both, -np.inf, -d)
        jf, jb = np.argmax(df, axis=1), np.argmax(db, axis=1)
        rr = np.arange(B)
        shift = c[idx][0] - k[0]  # the class's residue: output = integer + shift
        f, b = df[rr, jf], db[rr, jb]
        up, dn = f > fwd, b > bwd
        fwd, sf = np.where(up, f, fwd), np.where(up, s0 + jf + shift, sf)
        bwd, sb = np.where(dn, b, bwd), np.where(dn, s0 + jb + shift, sb)
    return fwd, bwd, sf, sb


def table_delta(
    W1: np.ndarray, W2: np.ndarray, c: np.ndarray, offset: int, pmf: np.ndarray, r: float, eps: float
) -> np.ndarray:
    """``delta(eps) = sum_s (p1(s) - e^eps p2(s))^+`` over every integer output: the window plus
    the geometric series of the two tails."""
    total = np.zeros(W1.shape[0])
    tail = r / (1.0 - r)
    for idx, k in ek.geometric_classes(c, 1.0):
        l1, l2, _ = class_laws(W1[:, idx], W2[:, idx], k, offset, pmf, r)
        g = np.maximum(np.exp(l1) - math.exp(eps) * np.exp(l2), 0.0)
        total += g.sum(axis=1) + tail * (g[:, 0] + g[:, -1])
    return np.minimum(total, 1.0)


def _number(name: str, value, rule: str, ok) -> float:
    good = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    require(good and math.isfinite(float(value)) and ok(float(value)), name, value, rule)
    return float(value)


@dataclass(frozen=True)
class TableNoise(AtomKernelLaw):
    """Integer noise with a tabulated pmf and geometric tails (module docstring).

    ``P(offset + t) = pmf[t]``; ``P(offset - k) = pmf[0] r^k``, ``P(offset + m - 1 + k) =
    pmf[-1] r^k`` for ``k >= 1``, ``r = tail_ratio`` in ``[0, 1)``. ``query + noise`` is
    ``sup_k ln f(k)/f(k + Delta)`` (both directions) -DP for an integer sensitivity ``Delta``, and
    not DP for a non-integer one. No calibration parameter: a table is one fixed law
    (:meth:`with_parameter` refuses); :mod:`bdpsim.calibration.optimal` computes the best one.
    """

    pmf: tuple
    offset: int = 0
    tail_ratio: float = 0.0
    name: str = field(default=TABLE.name, init=False)
    discrete: bool = field(default=True, init=False)
    parameter_name: str = field(default=TABLE.amount, init=False)
    noise_grows_with_parameter: bool = field(default=TABLE.grows, init=False)
    traits: ClassVar[LawTraits] = TABLE
    calibratable: ClassVar[bool] = TABLE.calibratable  # one fixed law: no amount to calibrate
    pure_dp: ClassVar[bool] = TABLE.pure_dp  # pure DP or not by its table (finite support: not)
    step: float = field(default=1.0, init=False)
    keys: ClassVar[Mapping[str, Key]] = {
        "noise_table": Key(
            "str",
            hashed=False,
            doc="table noise: a JSON file {offset, pmf, tail_ratio}",
            rule="a readable JSON file; exclusive with noise_pmf",
        ),
        "noise_pmf": Key(
            "vector",
            sweep=False,
            hashed=False,
            doc="table noise: masses at offset, offset + 1, ...",
            rule="non-negative numbers; with the tails they sum to 1",
        ),
        "noise_offset": Key(
            "int",
            hashed=False,
            doc="table noise: the integer where noise_pmf starts",
            rule="an integer (default 0)",
        ),
        "noise_tail_ratio": Key(
            "float",
            hashed=False,
            doc="table noise: geometric ratio of both tails (default 0)",
            rule="in [0, 1)",
        ),
    }

    @classmethod
    def from_params(cls, params: NoiseParams) -> TableNoise:
        """The law from its keys (:func:`table_from_params`: ``noise_table``, a JSON file relative to
        ``config_dir``, or ``noise_pmf`` with ``noise_offset`` and ``noise_tail_ratio``), or the
        option ``table``: a :class:`TableNoise` itself. The amounts (``epsilon``, ``scale``) are
        not read."""
        if params.option("table") is not None:
            require(
                isinstance(params.table, TableNoise),
                "table",
                params.table,
                "table noise needs a TableNoise (bdpsim.kernels.noise.table.table_from_params)",
            )
            return params.table
        table, pmf = params.option("noise_table"), params.option("noise_pmf")
        require(
            (table is None) != (pmf is None),
            "noise_pmf",
            pmf,
            "table noise needs exactly one of noise_table (a JSON file) and noise_pmf",
        )
        return table_from_params(
            table,
            pmf,
            params.option("noise_offset"),
            params.option("noise_tail_ratio"),
            config_dir=params.config_dir,
        )

    def mean_abs(self) -> float:
        """``E|Z|`` exactly (:meth:`moments`)."""
        return float(self.moments()[1])

    def __post_init__(self) -> None:
        raw = self.pmf
        require(
            isinstance(raw, (list, tuple, np.ndarray)) and len(raw) > 0,
            "pmf",
            raw if not isinstance(raw, np.ndarray) else "...",
            "must be a non-empty list of probabilities",
        )
        vals = [_number("pmf", v, "entries must be finite numbers >= 0", lambda x: x >= 0) for v in raw]
        off = self.offset
        require(
            isinstance(off, (int, np.integer)) and not isinstance(off, bool),
            "offset",
            off,
            "must be an integer (the noise value of pmf[0])",
        )
        r = _number("tail_ratio", self.tail_ratio, "must be a number in [0, 1)", lambda x: 0 <= x < 1)
        total = math.fsum(vals) + (vals[0] + vals[-1]) * r / (1.0 - r)
        require(
            abs(total - 1.0) <= SUM_RTOL,
            "pmf",
            f"total {total:.12g}",
            "must sum to 1 with the tails: sum(pmf) + (pmf[0] + pmf[-1]) r / (1 - r) = 1",
        )
        object.__setattr__(self, "pmf", tuple(vals))
        object.__setattr__(self, "offset", int(off))
        object.__setattr__(self, "tail_ratio", r)

    @classmethod
    def example(cls) -> TableNoise:
        """A small symmetric table with geometric tails (the contract tests' instance)."""
        return cls((0.1, 0.15, 0.3, 0.15, 0.1), offset=-2, tail_ratio=0.5)

    @property
    def p(self) -> np.ndarray:
        return np.asarray(self.pmf, dtype=float)

    @property
    def parameter(self) -> float:
        return self.tail_ratio

    def with_parameter(self, value: float) -> TableNoise:
        """The same table for its own ``tail_ratio``; any other value is refused (a table is one
        fixed law, not a family to calibrate)."""
        if value == self.tail_ratio:
            return self
        raise ParameterError(
            "value",
            value,
            "a table noise is one fixed law: it has no amount "
            "to calibrate (bdpsim calibrate --method optimal computes the best table)",
        )

    def as_dict(self) -> dict:
        """``{"offset", "pmf", "tail_ratio"}``: the JSON form (``noise_table`` file)."""
        return {"offset": self.offset, "pmf": list(self.pmf), "tail_ratio": self.tail_ratio}

    def pmf_at(self, k) -> np.ndarray:
        return table_pmf_at(k, self.offset, self.p, self.tail_ratio)

    def moments(self) -> tuple[float, float, float]:
        """``(E Z, E|Z|, E Z^2)`` exactly: the table plus closed-form tail series."""
        p, o, r = self.p, self.offset, self.tail_ratio
        z = np.arange(o, o + p.size, dtype=float)
        mean, mabs, sq = float(p @ z), float(p @ np.abs(z)), float(p @ z**2)
        if r > 0:
            s0, s1, s2 = r / (1 - r), r / (1 - r) ** 2, r * (1 + r) / (1 - r) ** 3  # sum_k k^a r^k
            for a, v, sign in ((z[0], p[0], -1.0), (z[-1], p[-1], 1.0)):  # values a + sign k, k >= 1
                mean += v * (a * s0 + sign * s1)
                sq += v * (a * a * s0 + 2 * a * sign * s1 + s2)
                mabs += v * _abs_series(a, sign, r)
        return float(mean), float(mabs), float(sq)

    def sample(self, size, rng: np.random.Generator) -> np.ndarray:
        p, r, o = self.p, self.tail_ratio, self.offset
        tl = p[0] * r / (1 - r) if r > 0 else 0.0
        tr = p[-1] * r / (1 - r) if r > 0 else 0.0
        probs = np.concatenate([[tl], p, [tr]])
        cat = rng.choice(probs.size, size=size, p=probs / probs.sum())
        out = (o + cat - 1).astype(float)
        if r > 0:
            g = rng.geometric(1.0 - r, size).astype(float)
            out = np.where(cat == 0, o - g, out)
            out = np.where(cat == probs.size - 1, o + p.size - 1 + g, out)
        return out

    def _k(self, y):
        u = np.asarray(y, dtype=float)
        k = np.rint(u)
        return k, np.abs(u - k) <= 1e-9 * np.maximum(1.0, np.abs(u))

    def log_density(self, y) -> np.ndarray:
        """``ln P(Z = y)`` on the integers (``-inf`` off them)."""
        k, on = self._k(y)
        with np.errstate(divide="ignore"):
            v = np.log(self.pmf_at(np.where(on, k, 0).astype(np.int64)))
        return np.where(on, v, -np.inf)

    def cdf(self, y) -> np.ndarray:
        p, r, o, m = self.p, self.tail_ratio, self.offset, len(self.pmf)
        k = np.floor(np.asarray(y, dtype=float) + 1e-9)
        cum = np.concatenate([[0.0], np.cumsum(p)])
        tl = p[0] * r / (1 - r) if r > 0 else 0.0
        t = np.clip(k - o, -1, m - 1).astype(np.int64)
        mid = tl + cum[t + 1]
        left = p[0] * r ** np.maximum(o - k, 0) / (1 - r) if r > 0 else np.zeros_like(k)
        right = 1.0 - (p[-1] * r ** np.maximum(k - (o + m - 1), 0) * r / (1 - r) if r > 0 else 0.0)
        return np.clip(np.where(k < o, left, np.where(k > o + m - 1, right, mid)), 0.0, 1.0)

    def dp_epsilon(self, sensitivity: float) -> float:
        d = check_sensitivity(sensitivity)
        if d == 0:
            return 0.0
        if abs(d - round(d)) > 1e-9 * max(1.0, d):
            return math.inf
        return self.sup_log_ratio([0.0], [1.0], [float(round(d))], [1.0]).value

    def _sup(self, A, B, c):
        return table_sup(A, B, c, self.offset, self.p, self.tail_ratio)

    def _delta(self, A, B, c, eps):
        return table_delta(A, B, c, self.offset, self.p, self.tail_ratio, eps)


def _abs_series(a: float, sign: float, r: float) -> float:
    """``sum_{k>=1} |a + sign k| r^k`` in closed form (``a`` an integer)."""
    s0, s1 = r / (1 - r), r / (1 - r) ** 2
    if sign * a >= 0:  # never crosses zero
        return abs(a) * s0 + s1
    # terms with k < |a| have |a + sign k| = |a| - k; from k >= |a| on, k - |a|
    A = int(round(abs(a)))
    ks = np.arange(1, A + 1, dtype=float)
    head = float(((A - ks) * r**ks).sum())
    # sum_{k > A} (k - A) r^k = r^A * sum_{j>=1} j r^j
    return head + r**A * s1


def table_from_params(table=None, pmf=None, offset=None, tail_ratio=None, config_dir=None) -> TableNoise:
    """A :class:`TableNoise` from config keys: ``noise_table`` (a JSON file
    ``{"offset": o, "pmf": [...], "tail_ratio": r}``, relative to ``config_dir``) or inline
    ``noise_pmf`` with ``noise_offset`` (default 0) and ``noise_tail_ratio`` (default 0). Errors name
    the parameters ``table``, ``pmf``, ``offset``, ``tail_ratio`` (:mod:`bdpsim.mechanisms.kinds` names
    the ``mechanism.noise_*`` keys)."""
    require(
        (table is None) != (pmf is None),
        "pmf",
        pmf,
        "table noise needs exactly one of a table (a JSON file) and a pmf",
    )
    if pmf is not None:
        return TableNoise(
            tuple(pmf) if isinstance(pmf, (list, tuple)) else pmf,
            0 if offset is None else offset,
            0.0 if tail_ratio is None else tail_ratio,
        )
    for key, v in (("offset", offset), ("tail_ratio", tail_ratio)):
        require(v is None, key, v, "is read from the table file: give one or the other")
    path = Path(str(table))
    if config_dir is not None and not path.is_absolute():
        path = Path(config_dir) / path
    try:
        doc = json.loads(read_text(path, LIMITS["json"]))
    except FileRefused as exc:
        raise ParameterError("table", str(table), f"must be a readable JSON file: {exc.reason}") from None
    except (ValueError, RecursionError) as exc:
        raise ParameterError(
            "table", str(table), f"must be a readable JSON file ({type(exc).__name__})"
        ) from None
    require(
        isinstance(doc, dict) and "pmf" in doc and set(doc) <= {"offset", "pmf", "tail_ratio"},
        "table",
        str(table),
        'must hold {"offset": o, "pmf": [...], "tail_ratio": r}',
    )
    return TableNoise(doc["pmf"], doc.get("offset", 0), doc.get("tail_ratio", 0.0))
