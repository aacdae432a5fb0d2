"""
Tutorial: regenerate a thesis figure
====================================

Every figure of the thesis and the paper is one command away:
``bdpsim figures --only thesis-fig15 --jobs 2`` reruns thesis Fig. 15 at the thesis' fidelity
(1 000 adversaries × 10^5 samples per point) into the git-ignored ``results/my-figures/``, with
its plotted numbers as a CSV beside the PNG and PDF; ``--quick`` gives a reduced preview that
says so across its top. The figure ids are listed by ``bdpsim figures --help``; how each differs
from its source is in the :doc:`/gallery`.

This page prices the run first, then redraws the committed figure from its CSV, and then
recomputes the whole pipeline at a tiny size.
"""

import tempfile
from pathlib import Path

import matplotlib.pyplot as plt

from bdpsim.figures import gallery

# %%
# 1. What would it cost? The same estimate ``bdpsim figures`` prints before it starts (the cost
# model's range on one core, for the configurations not yet finished in the output directory).
out = Path(tempfile.mkdtemp())
for quick in (False, True):
    print("\n".join(gallery.estimate_figures(["thesis-fig15"], out, quick=quick).lines(jobs=2)))

# %%
# 2. Redraw the committed figure from its CSV, without computing anything (``bdpsim figures``
# writes ``thesis-fig15.csv`` beside each figure; :func:`bdpsim.figures.gallery.replot` redraws a
# whole output directory from them).
committed = Path(gallery.__file__).resolve().parents[2] / "results" / "figures" / "thesis-fig15.csv"
if committed.is_file():  # in a checkout; an installed package has no committed gallery
    rows = gallery.read_rows(committed)
    print(
        f"{len(rows)} rows, estimators {sorted({r['estimator'] for r in rows})}, "
        f"{rows[0]['n_adversaries']} adversaries per point"
    )
    gallery.render("thesis-fig15", rows)

# %%
# 3. The pipeline itself, at a tiny size: ``overrides`` replaces keys of the bundled configs
# (here 6 adversaries × 2 000 samples, chains of 5 records, three values of γ). It runs the
# configs through ``bdpsim run`` into ``OUT/runs/`` (resumable), writes the CSV and draws the
# figure. Six adversaries make a poor KDE: the warnings say that its estimates exceed the exact
# values — the reason the thesis used 1 000.
tiny = {
    "run": {"adversaries": 6, "samples": 2000, "noise_floor_adversaries": 2},
    "model": {"n": 5, "gamma": [1.0, 2.0, 4.0]},
    "mechanism": {"epsilon": [1.0]},
}
written = gallery.make_figures(["thesis-fig15"], out, quick=True, overrides=tiny)
print([p.name for p in written])
fig, ax = plt.subplots(figsize=(8, 4.6))
ax.imshow(plt.imread(out / "thesis-fig15.png"))
ax.set_axis_off()
