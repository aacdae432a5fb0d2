"""Issue 38 item 4: one Python entry point, ``bdpsim.calibrate(model, epsilon, ...)``, for every
model ``bdpsim calibrate`` takes (chains, pedigrees, Bayesian networks, Markov random fields),
the query given as counted states, state values or a mechanism. Each answer is checked by
:func:`bdpsim.exact_bdpl` of the calibrated mechanism (the run's exact engine): eps-BDP at the
returned scale, and not at a scale 1e-4 smaller (the least one)."""

import pytest

import bdpsim

MODELS = {
    "chain": lambda: bdpsim.MarkovChainModel([[0.5, 0.3, 0.2], [0.2, 0.6, 0.2], [0.1, 0.2, 0.7]], 6),
    "pedigree": lambda: bdpsim.PedigreeModel.nuclear(3, 0.3),
    "network": lambda: bdpsim.BayesNetModel(
        [[], [0], [1]],
        [
            [0.5, 0.3, 0.2],
            [[0.7, 0.2, 0.1], [0.2, 0.6, 0.2], [0.1, 0.1, 0.8]],
            [[0.6, 0.3, 0.1], [0.3, 0.4, 0.3], [0.05, 0.15, 0.8]],
        ],
    ),
    "random field": lambda: bdpsim.MRFModel([(0, 1), (1, 2), (2, 3), (3, 0)], 3, 0.8),
}


@pytest.mark.parametrize("kind", list(MODELS))
def test_exact_laplace_on_every_model(kind):
    model, eps = MODELS[kind](), 0.9
    c = bdpsim.calibrate(model, eps, counted_states=[2])
    assert c.method == "exact" and c.bdpl <= eps * (1 + 1e-9)
    at = bdpsim.exact_bdpl(model, bdpsim.LaplaceCount(1.0 / c.scale, (2,))).bdpl
    assert at <= eps * (1 + 1e-9) and at == pytest.approx(eps, rel=1e-6)
    assert bdpsim.exact_bdpl(model, bdpsim.LaplaceCount(1.0 / (c.scale * (1 - 1e-4)), (2,))).bdpl > eps
    # the query as a mechanism: the same calibration (its own noise is not used)
    same = bdpsim.calibrate(model, eps, mechanism=bdpsim.LaplaceCount(5.0, (2,)))
    assert same.scale == pytest.approx(c.scale, rel=1e-12)


@pytest.mark.parametrize("kind", ["network", "pedigree"])
def test_optimal_on_graph_models(kind):
    model = MODELS[kind]()
    c = bdpsim.calibrate(model, 1.0, counted_states=[2], method="optimal")
    lap = bdpsim.calibrate(model, 1.0, counted_states=[2])
    assert c.method == "optimal" and c.noise == "table" and c.bdpl <= 1 + 1e-9
    assert c.mean_abs <= lap.mean_abs * (1 + 1e-9)  # the least E|Z| beats the calibrated Laplace


def test_state_values_on_a_network():
    model = MODELS["network"]()
    c = bdpsim.calibrate(model, 1.0, state_values=[0, 1, 3], noise="geometric")
    # the amount is Delta / (DP eps) = 3 / (DP eps); the law's parameter is its per-step rate 1 / amount
    assert c.noise == "geometric" and c.bdpl <= 1 + 1e-9 and c.parameter == pytest.approx(1 / c.scale)


@pytest.mark.parametrize(
    "kwargs,field",
    [
        ({"method": "markov"}, "method"),
        ({"counted_states": [2], "mechanism": bdpsim.LaplaceCount(1.0, (2,))}, "mechanism"),
        ({"counted_states": [5]}, "counted_states"),
        ({"window_limit": 3}, "search"),
    ],
)
def test_graph_model_errors_name_the_argument(kwargs, field):
    with pytest.raises(ValueError, match=rf"^{field} = "):  # ConfigError, or a kernel's ParameterError
        bdpsim.calibrate(MODELS["network"](), 1.0, **kwargs)


@pytest.mark.parametrize("method", ["exact", "general", "wasserstein", "markov-quilt-exact"])
def test_the_query_reads_alike_on_a_chain(method):
    """A count of states {0, 2} given as counted states, as its per-state values or as a mechanism:
    the same per-state values, so the same scale to the last bit, whatever the method."""
    model = MODELS["chain"]()
    ways = (
        {"counted_states": [0, 2]},
        {"state_values": [1.0, 0.0, 1.0]},
        {"mechanism": bdpsim.LaplaceCount(3.0, (0, 2))},
    )
    scales = {bdpsim.calibrate(model, 2.0, method=method, evaluate=False, **w).scale for w in ways}
    assert len(scales) == 1 and None not in scales


@pytest.mark.parametrize(
    "kwargs,field",
    [
        ({"counted_states": [2], "mechanism": bdpsim.LaplaceCount(1.0, (2,))}, "mechanism"),
        ({"mechanism": object()}, "mechanism"),
        ({"counted_states": [3]}, "counted_states"),
        ({"counted_states": [0, 1, 2]}, "counted_states"),
        ({"state_values": [0.0, 1.0]}, "state_values"),
    ],
)
def test_chain_query_errors_name_the_argument(kwargs, field):
    with pytest.raises(ValueError, match=rf"^{field} = "):
        bdpsim.calibrate(MODELS["chain"](), 1.0, **kwargs)


def test_state_names_of_a_bif_network_as_run_reads_them():
    """``bdpsim.calibrate`` reads a BIF network's state names as ``bdpsim run`` does ("yes" is
    state 1 of Rain and Umbrella and no state of Wind and Cloud: a per-record count), checked by
    the run's own mechanism at the returned scale."""
    pytest.importorskip("pgmpy")
    from bdpsim.models.bayesnet.build import from_bif
    from bdpsim.pipeline.config import parse_config

    from ..conftest import TEST_DATA

    bif = str(TEST_DATA / "weather.bif")
    not_counted = "2 of 4 records have a counted state; not counted .*: Wind, Cloud$"  # no "yes" state
    with pytest.warns(UserWarning, match=not_counted):
        c = bdpsim.calibrate(from_bif(bif), 0.9, counted_states=["yes"])
    raw = {
        "run": {"adversaries": 2, "samples": 1000, "seed": 1},
        "model": {"kind": "bayesnet", "bif": bif},
        "mechanism": {"kind": "count", "epsilon": 1.0 / c.scale, "counted_states": ["yes"]},
    }
    with pytest.warns(UserWarning, match=not_counted):
        point = parse_config(raw, "weather").points[0]
    at = bdpsim.exact_bdpl(point.model.fixed, point.mechanism).bdpl
    assert c.bdpl <= 0.9 * (1 + 1e-9) and at <= 0.9 * (1 + 1e-9) and at == pytest.approx(0.9, rel=1e-6)
    with pytest.warns(UserWarning, match=not_counted):
        optimal = bdpsim.calibrate(from_bif(bif), 0.9, counted_states=["yes"], method="optimal")
    assert optimal.bdpl <= 0.9 * (1 + 1e-9) and optimal.mean_abs <= c.mean_abs * (1 + 1e-9)
