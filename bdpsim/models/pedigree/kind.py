"""``[model] kind = "pedigree"``: a Mendelian pedigree (thesis Def. 5.1, Table 3).

Owns its config keys, the genomic lower bound ``(m - 1) eps`` of a count of BB (or bb) on a
nuclear family (thesis Cor. 5.2) and its exact engine (:mod:`bdpsim.models.pedigree.exact`).
"""

from __future__ import annotations

import math

from ... import bounds as B
from ...core.errors import check
from ...core.schema import Key
from ...queries import CountQuery, NoisyQuery, laplace_noisy
from ..base import ModelKind, ModelSpec, register_model_kind
from . import exact as PE
from .model import PedigreeModel

FAMILIES = ("nuclear", "three_generation")


class PedigreeKind(ModelKind):
    name = "pedigree"
    doc = "Mendelian pedigree (nuclear or three-generation family, or explicit parents)"
    example = {"family": "nuclear", "size": 4}
    keys = {
        "family": Key(
            "str",
            hashed=False,
            doc="a bundled family shape (absent: parents)",
            rule="'nuclear' or 'three_generation'; exactly one of family, parents",
        ),
        "size": Key("int", hashed=False, doc="number of people of a bundled family", rule="integer >= 3"),
        "allele_b": Key(
            "float",
            0.3,
            hashed=False,
            doc="frequency of allele b (Hardy-Weinberg founders)",
            rule="in (0, 1)",
        ),
        "parents": Key(
            "any",
            hashed=False,
            doc="each person's parents, earlier people (absent: family)",
            rule="a list of lists with 0 or 2 earlier indices each",
        ),
        "founder_law": Key(
            "vector",
            hashed=False,
            doc="founders' law [pBB, pBb, pbb] (absent: allele_b)",
            rule="a probability vector of length 3",
        ),
    }
    domain = "discrete"

    def build(self, params: dict, present: set, hints=None) -> ModelSpec:
        """``family = "nuclear" | "three_generation"`` with ``size``, or an explicit ``parents``
        list; ``allele_b`` (Hardy–Weinberg founders) or ``founder_law``."""
        fam, law = params["family"], params["founder_law"]
        if "parents" in present:
            check(
                "family" not in present and "size" not in present,
                "model.parents",
                params["parents"],
                "give parents or family + size, not both",
            )
            model = PedigreeModel(params["parents"], params["allele_b"], law)
        else:
            check(fam in FAMILIES, "model.family", fam, f"must be one of {list(FAMILIES)} (or give parents)")
            check(params["size"] is not None, "model.size", None, "is required with family")
            make = PedigreeModel.nuclear if fam == "nuclear" else PedigreeModel.three_generation
            model = make(params["size"], params["allele_b"], law)
        return ModelSpec(
            self.name,
            model.n,
            model.n,
            fixed=model,
            owner=self,
            detail={"family": fam if "parents" not in present else "explicit"},
        )

    def bounds(self, spec: ModelSpec, mechanism, epsilon: float) -> dict[str, B.Bound]:
        """Thesis Cor. 5.2: a count of BB (or of bb) on a nuclear family of ``m`` leaks at least
        ``(m - 1) eps``."""
        query, _ = laplace_noisy(mechanism) or (None, None)
        if (
            math.isfinite(epsilon)
            and spec.detail.get("family") == "nuclear"
            and isinstance(query, CountQuery)
            and query.counted_states in ((0,), (2,))
        ):
            return {"lower": B.Bound("lower", B.genomic_lower_bound(spec.n, epsilon))}
        return {}

    def exact(self, model, mechanism) -> PE.PedigreeCountEngine:
        if not (isinstance(mechanism, NoisyQuery) and isinstance(mechanism.query_function, CountQuery)):
            self.no_engine(mechanism, "exact engine: a count plus noise")
        return PE.PedigreeCountEngine(model, mechanism)


KIND = register_model_kind(PedigreeKind())
