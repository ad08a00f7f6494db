"""Issue 55: the chemistry from Python is as strict as foehn-box: solver settings outside its
option ranges, a largest step below the smallest, non-finite or complex times and values, and
the cuda backend without a device are refused with a clear error."""
import json

import numpy as np
import pytest

import foehn
from foehn import chemistry

DECAY = json.dumps({
    "name": "decay",
    "species": [{"name": "A"}, {"name": "B"}],
    "reactions": [{"type": "ARRHENIUS", "name": "loss", "A": 2e-3,
                   "reactants": [{"species name": "A", "coefficient": 1}],
                   "products": [{"species name": "B", "yield": 1}]}],
})


@pytest.fixture
def mechanism():
    return chemistry.Mechanism.parse(DECAY)


@pytest.mark.parametrize("times", [[0.0, np.nan, 10.0], [0.0, np.inf], [0.0, 1j],
                                   [[0.0, 1.0]], [0.0, 20.0, 10.0]])
def test_box_times_that_are_not_increasing_finite_seconds_are_refused(mechanism, times):
    with pytest.raises(foehn.InvalidInputError, match="times"):
        chemistry.box(mechanism, {"A": 1e12}, times)


@pytest.mark.parametrize("initial", [{"A": 1e12j}, {"A": "1e12"}, [1e12 + 1j, 0.0]])
def test_box_values_that_are_not_real_numbers_are_refused(mechanism, initial):
    with pytest.raises(foehn.InvalidInputError, match="initial"):
        chemistry.box(mechanism, initial, [0.0, 10.0])


@pytest.mark.parametrize("options, fragment", [
    ({"min_step": 10.0, "max_step": 1.0}, "below min_step"),
    ({"rtol": 0.0}, "rtol"),
    ({"rtol": 2.0}, "rtol"),
    ({"rtol": np.nan}, "rtol"),
    ({"atol": -1.0}, "atol"),
    ({"atol": np.nan}, "atol"),
    ({"max_steps": 0}, "max_steps"),
    ({"max_steps": 2.5}, "max_steps"),
    ({"initial_step": 0.0}, "initial_step"),
    ({"min_step": -1.0}, "min_step"),
    ({"min_step": np.inf}, "min_step"),
    ({"max_step": -1.0}, "max_step"),
    ({"backend": "gpu"}, "unknown backend"),
])
def test_solver_settings_foehn_box_refuses_are_refused(mechanism, options, fragment):
    with pytest.raises(foehn.InvalidInputError, match=fragment):
        chemistry.Solver(mechanism, **{"backend": "cpu", **options})


def test_a_largest_step_equal_to_the_smallest_is_taken(mechanism):
    state = np.array([[1e12, 0.0]])
    chemistry.Solver(mechanism, backend="cpu", min_step=1.0, max_step=1.0).solve(
        state, 298.15, 101325.0, 10.0)
    assert state[0, 0] == pytest.approx(1e12 * np.exp(-2e-3 * 10.0), rel=1e-4)


@pytest.mark.parametrize("duration", [np.nan, -1.0, np.inf])
def test_durations_that_are_not_finite_non_negative_are_refused(mechanism, duration):
    state = np.array([[1e12, 0.0]])
    with pytest.raises(foehn.InvalidInputError, match="duration"):
        chemistry.Solver(mechanism, backend="cpu").solve(state, 298.15, 101325.0, duration)
    assert state[0, 0] == 1e12


@pytest.mark.parametrize("state", [np.array([[1e12, 0.0]], dtype=np.float32),
                                   np.asfortranarray(np.array([[1e12, 0.0], [1e12, 0.0]]))])
def test_concentrations_not_updatable_in_place_are_refused(mechanism, state):
    with pytest.raises(foehn.InvalidInputError, match="in place"):
        chemistry.Solver(mechanism, backend="cpu").solve(state, 298.15, 101325.0, 10.0)


def test_cuda_without_a_device_says_so(mechanism):
    if foehn.cuda_device_count() > 0:
        pytest.skip("a CUDA device is present")
    with pytest.raises(foehn.UnavailableError, match="no CUDA device is available|without CUDA"):
        chemistry.Solver(mechanism, backend="cuda")
