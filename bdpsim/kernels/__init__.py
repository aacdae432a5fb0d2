"""Pure numerical kernels: the bottom layer of bdpsim.

Modules here import only numpy/scipy and :mod:`bdpsim.errors`; models, mechanisms, estimators
and the driver build on them, never the other way round.

* :mod:`bdpsim.kernels.noise.laplace_mixture` — exact supremum of the log-ratio of two Laplace mixtures;
* :mod:`bdpsim.kernels.chains.window_scan` — the window-reduced scan over all adversaries of a Markov chain;
* :mod:`bdpsim.kernels.chains.lattice` — per-state query values on an integer lattice;
* :mod:`.stats` — distribution-free percentile intervals.
"""
