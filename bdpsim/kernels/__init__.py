"""Pure numerical kernels: the bottom layer of bdpsim.

Modules here import only numpy/scipy (and :mod:`bdpsim.core.registry`); models, mechanisms, estimators
and the driver build on them, never the other way round. A kernel's bad input raises
:class:`~bdpsim.kernels.argcheck.ParameterError` (a ``ValueError``) naming the kernel's own
parameter (``epsilon = -1: must be a finite number > 0``), never a config field: the layer that
knows the config names the field (:func:`bdpsim.core.errors.naming`), and
``tests/architecture/test_layers.py``
checks that no kernel imports :mod:`bdpsim.core.errors`.

* :mod:`bdpsim.kernels.noise.laplace_mixture` — exact supremum of the log-ratio of two Laplace mixtures;
* :mod:`bdpsim.kernels.chains.window_scan` — the window-reduced scan over all adversaries of a Markov chain;
* :mod:`bdpsim.kernels.chains.lattice` — per-state query values on an integer lattice;
* :mod:`.stats` — distribution-free percentile intervals;
* :mod:`.argcheck` — the kernels' input error, :class:`~bdpsim.kernels.argcheck.ParameterError`.
"""
