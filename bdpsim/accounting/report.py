"""The accountant's report: every asked number with its kind, width and adversary (named in the
model's own words, the index beside), the naive answers beside the joint ones."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..core.errors import NotAvailable
from ..models.protocols import HasRecordNames, HasStateNames
from .export import LABEL
from .values import Value


def describe(model, adv) -> str:
    """``target O3 (record 3): 1 vs 0; knows 0..1, 5..7`` in the model's names where it has them."""
    if adv is None:
        return ""
    names = model.record_names() if isinstance(model, HasRecordNames) else None

    def rec(i: int) -> str:
        return f"{names[i]} (record {i})" if names else f"record {i}"

    def state(i: int, v) -> str:
        if isinstance(model, HasStateNames):
            return f"{model.state_label(i, int(v))} ({v})"
        return f"{v:g}" if isinstance(v, float) else str(v)

    known = list(adv.known)
    runs, start = [], None
    for k, j in enumerate(known):
        if start is None:
            start = j
        if k + 1 == len(known) or known[k + 1] != j + 1:
            runs.append(f"{start}" if start == j else f"{start}..{j}")
            start = None
    kn = f"knows records {', '.join(runs)}" if runs else "knows no record"
    return f"target {rec(adv.i)}: {state(adv.i, adv.x)} vs {state(adv.i, adv.x_prime)}; {kn}"


def _entry(name: str, v: Value, model, naive: Value | None = None) -> dict:
    out = {"quantity": name, **v.as_dict(), "adversary": describe(model, v.adversary)}
    if naive is not None:
        out["naive"] = naive.as_dict()
    return out


def account_report(
    acc,
    epsilons: Sequence[float] = (1.0,),
    deltas: Sequence[float] = (),
    alphas: Sequence[float] = (),
    fprs: Sequence[float] = (),
    naive: bool = True,
) -> dict:
    """Every asked number of ``acc`` (a dict, JSON-ready): ``rows`` of quantity, value, interval,
    kind, adversary, and where asked the naive answer beside it."""
    model = acc.model
    nv = acc.naive() if naive and len(acc.flat) > 1 else None
    acc.prepare(epsilons, deltas, alphas)
    try:
        acc.prepare_tprs(fprs)
    except NotAvailable:
        pass  # each row says why
    rows = []
    for e in epsilons:
        nd = None
        if nv is not None:
            try:
                nd = nv.composed_delta(float(e))
            except NotAvailable:
                nd = None
        rows.append(_entry(f"delta({e:g})", acc.delta(e), model, nd))
    for d in deltas:
        rows.append(_entry(f"epsilon({d:g})", acc.epsilon(d), model))
    for a in alphas:
        name = "bdpl" if math.isinf(a) else f"renyi({a:.12g})"
        nb = nv.summed_bdpl if (nv is not None and math.isinf(a)) else None
        try:
            rows.append(_entry(name, acc.renyi(a), model, nb))
        except NotAvailable as err:
            rows.append({"quantity": name, "not_available": str(err)})
    for f in fprs:
        try:
            rows.append(_entry(f"tpr_at({f:g})", acc.tpr_at(f), model))
        except NotAvailable as err:
            rows.append({"quantity": f"tpr_at({f:g})", "not_available": str(err)})
    return {
        "label": LABEL,
        "releases": [r.label for r in acc.releases],
        "method": acc.method,
        "rows": rows,
    }


def format_report(rep: dict, title: str = "") -> str:
    """The report as text, one number per line."""
    lines = [title] if title else []
    lines.append(f"releases ({len(rep['releases'])}): " + "; ".join(_counted(rep["releases"])))
    lines.append(f"joint law: {rep['method']}")
    for r in rep["rows"]:
        if "not_available" in r:
            lines.append(f"  {r['quantity']:<14} not available: {r['not_available']}")
            continue
        v = Value(
            r["value"], r["lower"], r["upper"], r["kind"], None, r.get("note", ""), r.get("confidence", 1.0)
        )
        line = f"  {r['quantity']:<14} {v.text()}"
        if "naive" in r:
            n = r["naive"]
            nv = Value(n["value"], n["lower"], n["upper"], n["kind"], None)
            what = "summed per release" if r["quantity"] == "bdpl" else "composed as if independent"
            line += f"   | {what}: {nv.text()}"
        lines.append(line)
        if r.get("adversary"):
            lines.append(f"  {'':<14}   worst adversary: {r['adversary']}")
        if r.get("note"):
            lines.append(f"  {'':<14}   note: {r['note']}")
    lines.append(rep["label"])
    return "\n".join(lines)


def _counted(labels: list[str]) -> list[str]:
    out: list[str] = []
    for lab in labels:
        if out and out[-1].split(" x ", 1)[-1] == lab:
            k = (
                int(out[-1].split(" x ", 1)[0])
                if " x " in out[-1] and out[-1].split(" x ", 1)[0].isdigit()
                else 1
            )
            out[-1] = f"{k + 1} x {lab}"
        else:
            out.append(lab)
    return out
