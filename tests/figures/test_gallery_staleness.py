"""scripts/checks/gallery_staleness.py: the column-by-column comparison of a committed figure CSV with
the rows the current code computes (known differences in, the same differences out)."""

import math

from ..helpers import load_script


def test_compare_reports_each_column_difference():
    gs = load_script("gallery_staleness")
    nan = math.nan
    old = [
        {"x": 1, "y": 0.5, "z": "kde", "w": nan, "gone": 1},
        {"x": 2, "y": 2.0, "z": "exact", "w": 1.0, "gone": 2},
    ]
    new = [
        {"x": 1, "y": 0.5, "z": "kde", "w": 3.0, "new": 0},
        {"x": 2, "y": 1.5, "z": "mixture", "w": 1.0, "new": 0},
    ]
    res = gs.compare(old, new)
    assert (
        res["rows"] == (2, 2) and res["columns_only_old"] == ["gone"] and res["columns_only_new"] == ["new"]
    )
    assert res["columns"]["x"] == {"max_abs": 0.0, "max_rel": 0.0, "nan_mismatch": 0, "cells": 0}
    assert res["columns"]["y"] == {"max_abs": 0.5, "max_rel": 0.25, "nan_mismatch": 0, "cells": 1}
    assert res["columns"]["z"] == {"text_mismatch": 1}
    assert res["columns"]["w"]["nan_mismatch"] == 1 and res["columns"]["w"]["max_abs"] == 0.0
    assert set(gs.differing(res, 1e-9)) == {"y", "z", "w"} and set(gs.differing(res, 0.3)) == {"z", "w"}
    assert gs.differing(gs.compare(old, old), 0.0) == {}
    table = gs.markdown({"f": {**res, "seconds": 1.0}}, 1e-9)
    assert "`y`: 1 cells, max abs 0.5, max rel 0.25" in table and "`z`: 1 text cells" in table


def test_default_figures_are_the_cheap_ones():
    from bdpsim.figures.gallery import FIGURES

    ids = load_script("gallery_staleness").default_ids()
    assert ids and all(not FIGURES[i].simulated for i in ids) and "bdpsim-frontier" not in ids
