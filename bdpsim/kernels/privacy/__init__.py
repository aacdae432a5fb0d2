"""Privacy accounting numerics: closed forms, divergences of finite and lattice-mixture laws, joint
laws of several releases, privacy-loss distributions with certified brackets, and Monte Carlo
intervals (no config vocabulary; the accountant is :mod:`bdpsim.accounting`)."""
