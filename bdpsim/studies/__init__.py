"""Studies built on the library: worst-case searches, estimator accuracy, leakage by prior
knowledge, the competition of mechanisms, pedigree and calibration studies (the rows behind the
gallery's bdpsim figures)."""
