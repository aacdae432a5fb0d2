"""The data-model interface and the config registry entry of a model kind.

A data model is a law ``pi`` of ``X = (X_1..X_n)`` with exact conditional sampling given any set
of known records (thesis §3.1.2 step 2). A model whose additive queries have a computable exact
law also offers :meth:`DataModel.query_law`; the mixture estimator then draws query values from
that law, and the exact engines (:mod:`bdpsim.estimators.exact`) use it.

A config point holds a :class:`ModelSpec`: either one fixed model, or a *family* that draws a
fresh model per adversary (the Gaussian ``Sigma_rho`` class of thesis §6.4.1).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..schema import Key


@runtime_checkable
class DataModel(Protocol):
    """A law of ``n`` records with exact conditional sampling (batch on the first axis)."""

    kind: str

    @property
    def n(self) -> int: ...

    def sample_conditional(self, known: Mapping[int, Any], size: int,
                           rng: np.random.Generator) -> np.ndarray:
        """``size`` exact draws of ``X`` given ``X_j = known[j]``, shape ``(size, n)``."""
        ...


class ModelFamily(Protocol):
    """A class of models from which a fresh model is drawn per adversary."""

    def draw(self, rng: np.random.Generator) -> DataModel: ...


@dataclass(frozen=True)
class ModelSpec:
    """The data model of a configuration point.

    Parameters
    ----------
    kind : str
        Registry name (``"markov"``, ``"gaussian"``, ...).
    n : int
        Number of records.
    m : int
        Number of correlated records used by the general bound ``m eps`` (block size or ``n``).
    fixed : DataModel or None
        The model, when it is the same for every adversary.
    family : ModelFamily or None
        Otherwise the class a fresh model is drawn from, per adversary.
    rho, gamma : float
        Summary columns: the correlation level of a Gaussian class and the ``max P / min P`` of
        a chain (``nan`` where they do not apply).
    """

    kind: str
    n: int
    m: int
    fixed: Any = None
    family: Any = None
    rho: float = math.nan
    gamma: float = math.nan
    detail: Mapping[str, Any] = field(default_factory=dict)

    @property
    def random(self) -> bool:
        return self.fixed is None

    def draw(self, rng: np.random.Generator):
        """The model for one adversary (a fresh draw from the family when random)."""
        return self.fixed if self.fixed is not None else self.family.draw(rng)

    def probe(self):
        """A representative model, for checks made before anything runs."""
        return self.fixed if self.fixed is not None else self.family.draw(np.random.default_rng(0))


@dataclass(frozen=True)
class ModelKind:
    """A registry entry: the config keys of a model kind, the mechanisms it takes, and the
    builder ``build(model_params, present_keys, mechanism_params) -> ModelSpec``."""

    name: str
    keys: dict[str, Key]
    mechanisms: tuple[str, ...]
    build: Callable[[dict, set, dict], ModelSpec]
    doc: str = ""
