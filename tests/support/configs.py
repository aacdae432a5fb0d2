"""Config texts more than one test module runs."""

#: two estimators (KDE and its mixture pair) on two chains: 4 points, 12 adversaries each
KDE_AND_MIXTURE = """[run]
seed = 11
adversaries = 12
samples = 4000
estimator = ["kde", "mixture"]
known_sizes = "all"
noise_floor_adversaries = 4
[model]
kind = "markov"
n = 6
gamma = [2.0, 6.0]
[mechanism]
kind = "count"
epsilon = 1.0
"""
