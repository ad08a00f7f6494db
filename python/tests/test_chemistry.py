"""Chemistry through Python: mechanisms in each format, a box run against the analytic solution,
many cells on the CPU and (CuPy) the GPU, refused inputs."""
import json
import os

import numpy as np
import pytest

import foehn
from foehn import chemistry

DATA = os.path.join(os.path.dirname(__file__), "..", "..", "data", "mechanisms")

# A -> B at k = 2e-3 s-1 (ARRHENIUS with A = k, no temperature dependence): [A] = A0 exp(-k t).
DECAY = json.dumps({
    "name": "decay",
    "species": [{"name": "A"}, {"name": "B"}],
    "reactions": [{"type": "ARRHENIUS", "name": "loss", "A": 2e-3,
                   "reactants": [{"species name": "A", "coefficient": 1}],
                   "products": [{"species name": "B", "yield": 1}]}],
})


def test_box_run_follows_the_exponential():
    mechanism = chemistry.Mechanism.parse(DECAY)
    assert mechanism.species == ["A", "B"]
    assert mechanism.reactions == ["A -> B"]
    times = np.linspace(0.0, 1000.0, 11)
    result = chemistry.box(mechanism, {"A": 1e12}, times, rtol=1e-10, atol=1e-6,
                           method="rodas4")
    np.testing.assert_allclose(result[:, 0], 1e12 * np.exp(-2e-3 * times), rtol=1e-8)
    np.testing.assert_allclose(result.sum(axis=1), 1e12, rtol=1e-12)


@pytest.mark.parametrize("name", ["chapman.json", "robertson.json", "openatmos_v1/chapman.json"])
def test_files_and_formats_round_trip(name, tmp_path):
    mechanism = chemistry.Mechanism.read(os.path.join(DATA, name))
    yaml_path = tmp_path / "written.yaml"
    mechanism.write(yaml_path)
    again = chemistry.Mechanism.read(yaml_path)
    assert again.species == mechanism.species
    assert again.reactions == mechanism.reactions
    assert again.concentration_unit == "mol m-3"
    back = chemistry.Mechanism.parse(mechanism.to_json())
    assert back.reactions == mechanism.reactions


def test_kpp_text_is_read():
    kpp = """#DEFVAR
A = IGNORE;
B = IGNORE;
#EQUATIONS
<R1> A = B : 2.0E-03;
"""
    mechanism = chemistry.Mechanism.parse(kpp, format="kpp", source="decay.eqn")
    assert mechanism.species == ["A", "B"] and mechanism.reactions == ["A -> B"]


def test_malformed_mechanism_names_the_problem():
    with pytest.raises(foehn.InvalidInputError, match="inline.json"):
        chemistry.Mechanism.parse('{"species": [{"name": "A"}], "reactions": [{"type": "X"}]}',
                                  source="inline.json")
    with pytest.raises(foehn.FileError):
        chemistry.Mechanism.read("/nonexistent/mechanism.json")


def test_many_cells_in_place_and_bad_values():
    mechanism = chemistry.Mechanism.read(os.path.join(DATA, "chapman.json"))
    solver = chemistry.Solver(mechanism, backend="cpu", rtol=1e-8)
    cells = 16
    air = 2.5e19
    state = np.zeros((cells, len(mechanism.species)))
    state[:, mechanism.species.index("M")] = air
    state[:, mechanism.species.index("O2")] = 0.21 * air
    state[:, mechanism.species.index("O3")] = np.linspace(1e12, 8e12, cells)
    rates = np.tile([1e-11, 4e-4, 5e-5][:len(mechanism.external_rates)], (cells, 1))
    before = state.copy()
    report = solver.solve(state, 298.15, 101325.0, 600.0, external_rates=rates)
    assert report["cells"] == cells and report["failed_cells"] == 0
    assert not np.array_equal(state, before)
    one = before[3:4].copy()  # one cell alone gives the same numbers
    chemistry.Solver(mechanism, backend="cpu", rtol=1e-8).solve(one, 298.15, 101325.0, 600.0,
                                                                 rates[3:4])
    np.testing.assert_array_equal(one[0], state[3])
    state[2, 1] = -1.0
    with pytest.raises(foehn.InvalidInputError, match="cell 2"):
        solver.solve(state, 298.15, 101325.0, 600.0, external_rates=rates)


def test_gpu_solver_on_cupy_matches_the_cpu(cupy):
    mechanism = chemistry.Mechanism.synthetic(40, 90, seed=3)
    cells = 2000
    rng = np.random.default_rng(4)
    state = rng.uniform(1e6, 1e10, (cells, len(mechanism.species)))
    temperature = rng.uniform(220.0, 300.0, cells)
    pressure = rng.uniform(2e4, 1e5, cells)
    rates = rng.uniform(0.0, 1e-4, (cells, len(mechanism.external_rates)))
    expected = state.copy()
    chemistry.Solver(mechanism, backend="cpu").solve(expected, temperature, pressure, 300.0, rates)
    device = cupy.asarray(state)
    gpu = chemistry.Solver(mechanism, backend="cuda")
    assert gpu.uses_gpu
    report = gpu.solve(device, temperature, pressure, 300.0, rates)
    assert report["failed_cells"] == 0
    np.testing.assert_allclose(cupy.asnumpy(device), expected, rtol=1e-12, atol=0)
    device[5, 2] = float("nan")
    with pytest.raises(foehn.InvalidInputError, match="cell 5"):
        gpu.solve(device, temperature, pressure, 300.0, rates)
