"""Exact calibration (smallest eps-BDP Laplace scale) and the bound-based calibrations."""

import math

import numpy as np
import pytest

from bdpsim import bounds as B
from bdpsim.calibration import (
    CALIBRATION_METHODS,
    Calibration,
    Method,
    calibrate,
    register_calibration_method,
)
from bdpsim.models import MarkovChainModel
from bdpsim.models.markov.window import markov_bdpl

ACTIVITY = [[0.882, 0.118], [0.305, 0.695]]


@pytest.mark.parametrize(
    "P,n,eps,kw",
    [
        (ACTIVITY, 20, 1.0, {}),
        ([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.1, 0.8]], 9, 2.0, {"counted_states": [0, 2]}),
        ([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.1, 0.8]], 9, 0.7, {"state_values": [0.0, 1.5, -0.5]}),
    ],
)
def test_exact_scale_is_the_smallest_eps_bdp_scale(P, n, eps, kw):
    model = MarkovChainModel(P, n)
    cal = calibrate(model, eps, **kw)
    assert cal.method == "exact" and cal.n == n and cal.epsilon == eps
    assert cal.bdpl <= eps and cal.bdpl == pytest.approx(eps, abs=1e-8)
    assert markov_bdpl(model, cal.scale, **kw) == cal.bdpl
    assert markov_bdpl(model, cal.scale * (1 - 1e-6), **kw) > eps
    # it needs more noise than DP and less than the general bound prescribes
    sens = np.ptp(kw.get("state_values", [0.0, 1.0]))
    assert sens / eps < cal.scale < sens * n / eps


def test_activity_scale_pinned():
    """Planning measurement (issue 10): about 4 for eps = 1 at n = 288 (3.9795 at n = 20)."""
    cal = calibrate(MarkovChainModel(ACTIVITY, 20), 1.0)
    assert cal.scale == pytest.approx(3.9794508913, rel=1e-8)


def test_independent_records_need_the_dp_scale():
    row = [0.3, 0.7]
    cal = calibrate(MarkovChainModel([row, row], 8, row), 0.5)
    assert cal.scale == pytest.approx(2.0, rel=2e-9) and cal.scale >= 2.0
    assert cal.bdpl == pytest.approx(0.5, abs=1e-9)


def test_general_markov_zhao():
    model = MarkovChainModel(ACTIVITY, 20)
    g = calibrate(model, 1.0, method="general")
    assert g.scale == 20.0 and g.bdpl == pytest.approx(markov_bdpl(model, 20.0), abs=0) and g.bdpl <= 1.0
    s = calibrate(model, 1.0, method="general", state_values=[2.0, -1.0])
    assert s.scale == 60.0  # sensitivity 3, m = n = 20
    m = calibrate(model, 1.0, method="markov")
    assert m.scale is None and m.bdpl is None and "needs eps > 4 ln gamma = 8.05" in m.reason
    m = calibrate(model, 10.0, method="markov")
    tau = B.calibrate_markov(10.0, ACTIVITY)
    assert m.scale == pytest.approx(1 / tau) and m.bdpl <= B.markov_bound(tau, ACTIVITY).value
    z = calibrate(model, 12.0, method="zhao")
    assert z.scale == pytest.approx(1 / B.calibrate_zhao(12.0, ACTIVITY)) and z.bdpl <= 12.0
    assert "6 ln omega" in calibrate(model, 5.0, method="zhao").reason


def test_bound_methods_need_h1_and_h2_exact_does_not():
    zero = MarkovChainModel([[0.0, 1.0], [0.4, 0.6]], 7)
    for method in ("markov", "zhao"):
        c = calibrate(zero, 30.0, method=method)
        assert c.scale is None and c.reason.startswith("not applicable") and "(H1)" in c.reason
    exact = calibrate(zero, 1.0)
    assert exact.scale is not None and exact.bdpl == pytest.approx(1.0, abs=1e-8)
    start = MarkovChainModel(ACTIVITY, 7, [1.0, 0.0])
    c = calibrate(start, 30.0, method="markov")
    assert c.scale is None and "(H2)" in c.reason
    assert calibrate(start, 1.0).bdpl <= 1.0


def test_registry_accepts_new_methods():
    def twice_dp(p):
        return p.result("twice_dp", 2 * p.sensitivity / p.epsilon, "scale = 2 Delta / eps")

    with pytest.raises(
        TypeError, match="lacks"
    ):  # a bare function is not a method: the registry says what it lacks
        register_calibration_method(twice_dp)
    register_calibration_method(Method("twice_dp", twice_dp, "2 Delta / eps", "dp"))
    try:
        c = calibrate(MarkovChainModel(ACTIVITY, 10), 1.0, method="twice_dp")
    finally:
        del CALIBRATION_METHODS["twice_dp"]
    assert isinstance(c, Calibration) and c.scale == 2.0
    assert c.as_dict()["bdpl"] == pytest.approx(markov_bdpl(MarkovChainModel(ACTIVITY, 10), 2.0))


def test_bad_inputs():
    model = MarkovChainModel(ACTIVITY, 10)
    for kw, field in [
        (dict(method="quilt"), "method"),
        (dict(epsilon=0.0), "epsilon"),
        (dict(epsilon=math.inf), "epsilon"),
        (dict(counted_states=[5]), "counted_states"),
        (dict(state_values=[1.0, 1.0]), "state_values"),
    ]:
        args = dict(epsilon=1.0)
        args.update(kw)
        with pytest.raises(ValueError, match=f"^{field} = "):  # ConfigError, or a kernel's (query_values)
            calibrate(model, args.pop("epsilon"), **args)


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf"), True, "1"], ids=repr)
def test_every_calibration_refuses_a_bad_epsilon_in_the_same_words(bad):
    """The target eps of the chain methods, the graph engines and the optimal noise: one rule
    (bdpsim.calibration.target.check_positive), refused before any search starts."""
    import numpy as np

    from bdpsim.calibration import CalibrationProblem
    from bdpsim.calibration.graphs import calibrate_graph
    from bdpsim.calibration.optimal import optimal_noise
    from bdpsim.calibration.target import check_target_epsilon
    from bdpsim.core.errors import ConfigError
    from bdpsim.models import MarkovChainModel, PedigreeModel

    chain, f = MarkovChainModel([[0.8, 0.2], [0.3, 0.7]], 4), np.array([0.0, 1.0])
    calls = (
        lambda: check_target_epsilon(bad),
        lambda: CalibrationProblem(chain, f, bad),
        lambda: calibrate_graph(PedigreeModel.nuclear(2, 0.3), bad, np.array([0.0, 0.0, 1.0])),
        lambda: optimal_noise(chain, bad, f),
    )
    for call in calls:
        with pytest.raises(ConfigError, match=r"^epsilon = .*: must be a finite number > 0$"):
            call()


def test_a_numpy_epsilon_is_a_number_to_every_calibration():
    import numpy as np

    from bdpsim.calibration.graphs import calibrate_graph
    from bdpsim.models import PedigreeModel

    model = PedigreeModel.nuclear(2, 0.3)
    values = np.array([0.0, 0.0, 1.0])
    b = calibrate_graph(model, 1.0, values, method="exact")[0]
    for eps in (np.float32(1.0), np.int64(1)):  # not Python floats (np.float64 is one)
        a = calibrate_graph(model, eps, values, method="exact")[0]
        assert a.scale == b.scale and a.scale is not None
